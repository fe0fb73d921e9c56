/* Point-to-point synchronization (OpenSHMEM 1.6 "Point-To-Point
 * Synchronization Routines"): wait_until and test with their all, any,
 * some and vector forms for the standard AMO types, and the deprecated
 * short/ushort forms and shmem_wait.
 *
 * A variable is read with an acquire load, so the data its writer ordered
 * before it (fence, quiet, put-with-signal) is visible once it matches.
 * Waiting on one 64-bit variable is Tern's tern_wait_until_u64 where the
 * comparison allows it (its wait policy, TERN_WAIT_MODE); other waits poll
 * Tern and yield after a while (tshmem_wait_step). Tests poll Tern once,
 * so that updates arriving over the network land. */
#include "tshmem.h"

static TSHMEM_NOINLINE TSHMEM_NORETURN void bad_cmp(const char *call, int cmp)
{
    tshmem_fatal("%s: comparison %d is not one of SHMEM_CMP_EQ, _NE, _GT, _GE, _LT, _LE",
                 call, cmp);
}

static inline void check_cmp(const char *call, int cmp)
{
    if (TSHMEM_UNLIKELY((unsigned)cmp > SHMEM_CMP_LE))
        bad_cmp(call, cmp);
}

#define CMP_(v, cmp, w)                   \
    ((cmp) == SHMEM_CMP_EQ   ? (v) == (w) \
     : (cmp) == SHMEM_CMP_NE ? (v) != (w) \
     : (cmp) == SHMEM_CMP_GT ? (v) > (w)  \
     : (cmp) == SHMEM_CMP_GE ? (v) >= (w) \
     : (cmp) == SHMEM_CMP_LT ? (v) < (w)  \
                             : (v) <= (w))

_Static_assert(SHMEM_CMP_EQ == TERN_CMP_EQ && SHMEM_CMP_NE == TERN_CMP_NE &&
                   SHMEM_CMP_GT == TERN_CMP_GT && SHMEM_CMP_GE == TERN_CMP_GE &&
                   SHMEM_CMP_LT == TERN_CMP_LT && SHMEM_CMP_LE == TERN_CMP_LE,
               "SHMEM_CMP_* are Tern's comparisons");

/* Rotates the first index tested by the any routines, so that a series of
 * calls eventually returns every satisfied entry. */
static _Thread_local size_t any_next;

/* The routines of one type. The vector forms compare entry i against
 * ws[i]; the others against w (ws NULL). */
#define TSHMEM_P2P_IMPL_(T, N)                                                           \
    static inline int sat_##N(T *p, int cmp, T w)                                        \
    {                                                                                    \
        T v = __atomic_load_n(p, __ATOMIC_ACQUIRE);                                      \
        return CMP_(v, cmp, w);                                                          \
    }                                                                                    \
    static void wait1_##N(T *p, int cmp, T w, const char *call)                          \
    {                                                                                    \
        if (sizeof(T) == 8 && ((uintptr_t)p & 7) == 0 &&                                 \
            (cmp <= SHMEM_CMP_NE || (T)-1 > 0)) {                                        \
            /* unsigned 64-bit order, or equality of any 64-bit type */                  \
            uint64_t u;                                                                  \
            __builtin_memcpy(&u, &w, sizeof(u));                                         \
            int rc = tern_wait_until_u64((const volatile uint64_t *)(void *)p, cmp, u);  \
            if (TSHMEM_UNLIKELY(rc != TERN_OK))                                          \
                tshmem_fatal("%s: %s", call, tern_strerror(rc));                         \
            return;                                                                      \
        }                                                                                \
        for (uint64_t it = 0; !sat_##N(p, cmp, w); it++)                                 \
            tshmem_wait_step(it);                                                        \
    }                                                                                    \
    static inline int all_##N(T *iv, size_t n, const int *st, int cmp, T w, const T *ws) \
    {                                                                                    \
        for (size_t i = 0; i < n; i++)                                                   \
            if ((!st || !st[i]) && !sat_##N(&iv[i], cmp, ws ? ws[i] : w))                \
                return 0;                                                                \
        return 1;                                                                        \
    }                                                                                    \
    static inline size_t any_##N(T *iv, size_t n, const int *st, int cmp, T w,           \
                                 const T *ws)                                            \
    {                                                                                    \
        size_t start = n ? any_next % n : 0;                                             \
        for (size_t k = 0; k < n; k++) {                                                 \
            size_t i = start + k < n ? start + k : start + k - n;                        \
            if ((!st || !st[i]) && sat_##N(&iv[i], cmp, ws ? ws[i] : w)) {               \
                any_next = i + 1;                                                        \
                return i;                                                                \
            }                                                                            \
        }                                                                                \
        return SIZE_MAX;                                                                 \
    }                                                                                    \
    static inline size_t some_##N(T *iv, size_t n, size_t *idx, const int *st, int cmp,  \
                                  T w, const T *ws)                                      \
    {                                                                                    \
        size_t found = 0;                                                                \
        for (size_t i = 0; i < n; i++)                                                   \
            if ((!st || !st[i]) && sat_##N(&iv[i], cmp, ws ? ws[i] : w))                 \
                idx[found++] = i;                                                        \
        return found;                                                                    \
    }

static int set_empty(size_t n, const int *st)
{
    for (size_t i = 0; i < n; i++)
        if (!st || !st[i])
            return 0;
    return 1;
}

#define TSHMEM_DEF_P2P_(T, N)                                                            \
    TSHMEM_P2P_IMPL_(T, N)                                                               \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                           \
    {                                                                                    \
        check_cmp(__func__, cmp);                                                        \
        wait1_##N(ivar, cmp, cmp_value, __func__);                                       \
    }                                                                                    \
    static void wait_all_##N(T *iv, size_t n, const int *st, int cmp, T w, const T *ws,  \
                             const char *call)                                           \
    {                                                                                    \
        check_cmp(call, cmp);                                                            \
        for (size_t i = 0; i < n; i++)                                                   \
            if (!st || !st[i])                                                           \
                wait1_##N(&iv[i], cmp, ws ? ws[i] : w, call);                            \
    }                                                                                    \
    static size_t wait_any_##N(T *iv, size_t n, const int *st, int cmp, T w,             \
                               const T *ws, const char *call)                            \
    {                                                                                    \
        check_cmp(call, cmp);                                                            \
        if (set_empty(n, st))                                                            \
            return SIZE_MAX;                                                             \
        for (uint64_t it = 0;; it++) {                                                   \
            size_t i = any_##N(iv, n, st, cmp, w, ws);                                   \
            if (i != SIZE_MAX)                                                           \
                return i;                                                                \
            tshmem_wait_step(it);                                                        \
        }                                                                                \
    }                                                                                    \
    static size_t wait_some_##N(T *iv, size_t n, size_t *idx, const int *st, int cmp,    \
                                T w, const T *ws, const char *call)                      \
    {                                                                                    \
        check_cmp(call, cmp);                                                            \
        if (set_empty(n, st))                                                            \
            return 0;                                                                    \
        for (uint64_t it = 0;; it++) {                                                   \
            size_t k = some_##N(iv, n, idx, st, cmp, w, ws);                             \
            if (k)                                                                       \
                return k;                                                                \
            tshmem_wait_step(it);                                                        \
        }                                                                                \
    }                                                                                    \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, \
                                    T cmp_value)                                         \
    {                                                                                    \
        wait_all_##N(ivars, nelems, status, cmp, cmp_value, NULL, __func__);             \
    }                                                                                    \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status,        \
                                      int cmp, T cmp_value)                              \
    {                                                                                    \
        return wait_any_##N(ivars, nelems, status, cmp, cmp_value, NULL, __func__);      \
    }                                                                                    \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,         \
                                       const int *status, int cmp, T cmp_value)          \
    {                                                                                    \
        return wait_some_##N(ivars, nelems, indices, status, cmp, cmp_value, NULL,       \
                             __func__);                                                  \
    }                                                                                    \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status,   \
                                           int cmp, const T *cmp_values)                 \
    {                                                                                    \
        wait_all_##N(ivars, nelems, status, cmp, 0, cmp_values, __func__);               \
    }                                                                                    \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, \
                                             int cmp, const T *cmp_values)               \
    {                                                                                    \
        return wait_any_##N(ivars, nelems, status, cmp, 0, cmp_values, __func__);        \
    }                                                                                    \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,  \
                                              const int *status, int cmp,                \
                                              const T *cmp_values)                       \
    {                                                                                    \
        return wait_some_##N(ivars, nelems, indices, status, cmp, 0, cmp_values,         \
                             __func__);                                                  \
    }                                                                                    \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value)                                  \
    {                                                                                    \
        check_cmp(__func__, cmp);                                                        \
        tern_poll();                                                                     \
        return sat_##N(ivar, cmp, cmp_value);                                            \
    }                                                                                    \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,        \
                             T cmp_value)                                                \
    {                                                                                    \
        check_cmp(__func__, cmp);                                                        \
        tern_poll();                                                                     \
        return all_##N(ivars, nelems, status, cmp, cmp_value, NULL);                     \
    }                                                                                    \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,     \
                                T cmp_value)                                             \
    {                                                                                    \
        check_cmp(__func__, cmp);                                                        \
        tern_poll();                                                                     \
        return any_##N(ivars, nelems, status, cmp, cmp_value, NULL);                     \
    }                                                                                    \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,               \
                                 const int *status, int cmp, T cmp_value)                \
    {                                                                                    \
        check_cmp(__func__, cmp);                                                        \
        tern_poll();                                                                     \
        return some_##N(ivars, nelems, indices, status, cmp, cmp_value, NULL);           \
    }                                                                                    \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                    const T *cmp_values)                                 \
    {                                                                                    \
        check_cmp(__func__, cmp);                                                        \
        tern_poll();                                                                     \
        return all_##N(ivars, nelems, status, cmp, 0, cmp_values);                       \
    }                                                                                    \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status,       \
                                       int cmp, const T *cmp_values)                     \
    {                                                                                    \
        check_cmp(__func__, cmp);                                                        \
        tern_poll();                                                                     \
        return any_##N(ivars, nelems, status, cmp, 0, cmp_values);                       \
    }                                                                                    \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,        \
                                        const int *status, int cmp, const T *cmp_values) \
    {                                                                                    \
        check_cmp(__func__, cmp);                                                        \
        tern_poll();                                                                     \
        return some_##N(ivars, nelems, indices, status, cmp, 0, cmp_values);             \
    }
TSHMEM_AMO_STD_TYPES(TSHMEM_DEF_P2P_)

/* ---- deprecated ----------------------------------------------------------------- */

/* short and unsigned short: wait_until and test are deprecated (1.5);
 * their all, any, some and vector forms are not in the specification (its
 * point-to-point type table, deprecated, lists both types) but Sandia
 * OpenSHMEM has them and its test suite calls them through the C11
 * generic names: kept for such programs, as the other old names are. */
TSHMEM_DEF_P2P_(short, short)
TSHMEM_DEF_P2P_(unsigned short, ushort)

/* shmem_wait: wait until the value is not cmp_value (deprecated in 1.4). */
void shmem_short_wait(short *ivar, short cmp_value)
{
    wait1_short(ivar, SHMEM_CMP_NE, cmp_value, __func__);
}
void shmem_int_wait(int *ivar, int cmp_value)
{
    wait1_int(ivar, SHMEM_CMP_NE, cmp_value, __func__);
}
void shmem_long_wait(long *ivar, long cmp_value)
{
    wait1_long(ivar, SHMEM_CMP_NE, cmp_value, __func__);
}
void shmem_longlong_wait(long long *ivar, long long cmp_value)
{
    wait1_longlong(ivar, SHMEM_CMP_NE, cmp_value, __func__);
}
void shmem_wait(long *ivar, long cmp_value)
{
    wait1_long(ivar, SHMEM_CMP_NE, cmp_value, __func__);
}
/* Parenthesized: in C11 shmem.h makes shmem_wait_until a type-generic
 * macro. */
void(shmem_wait_until)(long *ivar, int cmp, long cmp_value)
{
    check_cmp("shmem_wait_until", cmp);
    wait1_long(ivar, cmp, cmp_value, "shmem_wait_until");
}
