/* OpenSHMEM collectives on Tern's (tern/team.h): sync, broadcast, collect,
 * fcollect, alltoall, alltoalls, the reductions and the 1.6 scans, and the
 * deprecated active-set forms. What Tern does directly goes straight
 * through; what it does not (strided all-to-all, complex products, scans,
 * teams in reverse order) is built here on fcollect and alltoall through
 * the team's symmetric scratch, in chunks. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "tshmem.h"

#define HALF_SCRATCH (tshmem_scratch_bytes / 2)

/* The team and this call's common checks; NULL after a message. */
static struct tshmem_team_s *coll_team(shmem_team_t team, const char *call)
{
    if (TSHMEM_UNLIKELY(tshmem_g.init_count == 0)) {
        tshmem_error("%s: called %s", call,
                     tshmem_g.ever_finalized ? "after the last shmem_finalize"
                                             : "before shmem_init");
        return NULL;
    }
    return tshmem_team_get(team, call);
}

static int fail(const char *call, int rc)
{
    tshmem_error("%s: %s (see above)", call, tern_strerror(rc));
    return 1;
}

static int bytes_of(const char *call, size_t nelems, size_t es, size_t *out)
{
    if (__builtin_mul_overflow(nelems, es, out)) {
        tshmem_error("%s: %zu elements of %zu bytes overflow", call, nelems, es);
        return 1;
    }
    return 0;
}

/* ---- synchronization -------------------------------------------------------------- */

int shmem_team_sync(shmem_team_t team)
{
    struct tshmem_team_s *t = coll_team(team, "shmem_team_sync");
    if (!t)
        return 1;
    int rc = tern_team_barrier(t->tt);
    return rc == TERN_OK ? 0 : fail("shmem_team_sync", rc);
}

/* ---- data movement ------------------------------------------------------------------ */

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root)
{
    const char *call = "shmem_broadcast";
    struct tshmem_team_s *t = coll_team(team, call);
    if (!t)
        return 1;
    int n = tern_team_size(t->tt);
    if (PE_root < 0 || PE_root >= n) {
        tshmem_error("%s: PE_root %d is not a PE of the team (0..%d)", call, PE_root,
                     n - 1);
        return 1;
    }
    int rc = tern_broadcast(t->tt, dest, source, nelems, tshmem_team_trank(t, PE_root));
    return rc == TERN_OK ? 0 : fail(call, rc);
}

/* Elements per member that half the team's scratch holds for n members
 * (the chunk of the scratch-based collectives), or 0 after a message. */
static size_t chunk_elems(const char *call, int n, size_t es)
{
    size_t per = (size_t)n * es;
    if (per > HALF_SCRATCH) {
        tshmem_error("%s: %d PEs x %zu-byte elements exceed the team's scratch", call, n,
                     es);
        return 0;
    }
    return HALF_SCRATCH / per;
}

/* Reverses the order of n blocks of b bytes at p (a team in reverse
 * order gets Tern's gather in Tern's order). */
static int reverse_blocks(char *p, int n, size_t b)
{
    if (n < 2 || b == 0)
        return 0;
    char *tmp = malloc(b);
    if (!tmp)
        return 1;
    for (int i = 0, j = n - 1; i < j; i++, j--) {
        memcpy(tmp, p + (size_t)i * b, b);
        memcpy(p + (size_t)i * b, p + (size_t)j * b, b);
        memcpy(p + (size_t)j * b, tmp, b);
    }
    free(tmp);
    return 0;
}

int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    const char *call = "shmem_fcollect";
    struct tshmem_team_s *t = coll_team(team, call);
    if (!t)
        return 1;
    int rc = tern_fcollect(t->tt, dest, source, nelems);
    if (rc != TERN_OK)
        return fail(call, rc);
    return t->reversed ? reverse_blocks(dest, tern_team_size(t->tt), nelems) : 0;
}

int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    const char *call = "shmem_collect";
    struct tshmem_team_s *t = coll_team(team, call);
    if (!t)
        return 1;
    int n = tern_team_size(t->tt);
    uint64_t *sizes = NULL;
    if (t->reversed) { /* every member's size, to reorder the blocks after */
        if ((size_t)n * 2 * sizeof(uint64_t) > tshmem_scratch_bytes) {
            tshmem_error("%s: a team of %d PEs in reverse order is too large", call, n);
            return 1;
        }
        uint64_t *s = tshmem_team_scratch(t);
        s[n] = nelems;
        int rc = tern_fcollect(t->tt, s, &s[n], sizeof(uint64_t));
        if (rc != TERN_OK)
            return fail(call, rc);
        sizes = malloc((size_t)n * sizeof(*sizes));
        if (!sizes)
            return 1;
        memcpy(sizes, s, (size_t)n * sizeof(*sizes));
        tern_team_barrier(t->tt);
    }
    int rc = tern_collect(t->tt, dest, source, nelems);
    if (rc != TERN_OK) {
        free(sizes);
        return fail(call, rc);
    }
    if (sizes) { /* Tern order (member m = team PE n-1-m) to team order */
        size_t total = 0;
        for (int m = 0; m < n; m++)
            total += sizes[m];
        char *copy = malloc(total ? total : 1);
        if (!copy) {
            free(sizes);
            return 1;
        }
        memcpy(copy, dest, total);
        size_t out = 0, off = total; /* team PE 0 is Tern's last member */
        for (int m = n - 1; m >= 0; m--) {
            off -= sizes[m];
            memcpy((char *)dest + out, copy + off, sizes[m]);
            out += sizes[m];
        }
        free(copy);
        free(sizes);
    }
    return 0;
}

/* The strided all-to-all through the scratch: chunks of c elements per
 * member packed (in Tern's member order), exchanged with tern_alltoall,
 * unpacked; a barrier keeps the scratch from being refilled while a peer
 * may still read it. alltoall of a reversed team goes this way too. */
static int alltoalls_bytes(const char *call, struct tshmem_team_s *t, char *dest,
                           const char *source, ptrdiff_t dst, ptrdiff_t sst,
                           size_t nelems, size_t es)
{
    int n = tern_team_size(t->tt);
    if (dst < 1 || sst < 1) {
        tshmem_error("%s: strides dst %td and sst %td must be at least 1", call, dst,
                     sst);
        return 1;
    }
    /* The farthest element either side touches, n * nelems elements at the
     * larger stride, must be an address: unchecked, dst 2^60 wrapped
     * around (a segmentation fault; with 8-byte elements a stride of
     * 2^61 + 1 wraps to a stride of 1). */
    size_t last, span, stride = (size_t)(dst > sst ? dst : sst);
    if (nelems && (__builtin_mul_overflow((size_t)n, nelems, &last) ||
                   __builtin_mul_overflow(last - 1, stride, &span) ||
                   __builtin_add_overflow(span, 1, &span) ||
                   __builtin_mul_overflow(span, es, &span) || span > PTRDIFF_MAX)) {
        tshmem_error("%s: %zu elements for each of %d PEs at stride %zu (%zu-byte "
                     "elements) overflow the address space",
                     call, nelems, n, stride, es);
        return 1;
    }
    size_t c = chunk_elems(call, n, es);
    if (!c)
        return 1;
    char *s_out = tshmem_team_scratch(t), *s_in = s_out + HALF_SCRATCH;
    for (size_t k0 = 0; k0 < nelems; k0 += c) {
        size_t cnt = nelems - k0 < c ? nelems - k0 : c;
        for (int m = 0; m < n; m++) {
            int j = tshmem_team_trank(t, m); /* the team PE that member m is */
            for (size_t k = 0; k < cnt; k++)
                memcpy(s_out + ((size_t)m * cnt + k) * es,
                       source + ((size_t)j * nelems + k0 + k) * (size_t)sst * es, es);
        }
        int rc = tern_alltoall(t->tt, s_in, s_out, cnt * es);
        if (rc != TERN_OK)
            return fail(call, rc);
        for (int m = 0; m < n; m++) {
            int i = tshmem_team_trank(t, m);
            for (size_t k = 0; k < cnt; k++)
                memcpy(dest + ((size_t)i * nelems + k0 + k) * (size_t)dst * es,
                       s_in + ((size_t)m * cnt + k) * es, es);
        }
        rc = tern_team_barrier(t->tt);
        if (rc != TERN_OK)
            return fail(call, rc);
    }
    return 0;
}

int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    const char *call = "shmem_alltoall";
    struct tshmem_team_s *t = coll_team(team, call);
    if (!t)
        return 1;
    if (t->reversed)
        return alltoalls_bytes(call, t, dest, source, 1, 1, nelems, 1);
    int rc = tern_alltoall(t->tt, dest, source, nelems);
    return rc == TERN_OK ? 0 : fail(call, rc);
}

int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems)
{
    const char *call = "shmem_alltoalls";
    struct tshmem_team_s *t = coll_team(team, call);
    return t ? alltoalls_bytes(call, t, dest, source, dst, sst, nelems, 1) : 1;
}

static int typed_alltoalls(shmem_team_t team, void *dest, const void *source,
                           ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t es)
{
    const char *call = "shmem_alltoalls";
    struct tshmem_team_s *t = coll_team(team, call);
    return t ? alltoalls_bytes(call, t, dest, source, dst, sst, nelems, es) : 1;
}

/* The typed forms: element counts to bytes (checked), then the mem form. */
typedef int (*coll_mem_fn)(shmem_team_t, void *, const void *, size_t);
static int typed(const char *call, coll_mem_fn fn, shmem_team_t team, void *dest,
                 const void *source, size_t nelems, size_t es)
{
    size_t b;
    return bytes_of(call, nelems, es, &b) ? 1 : fn(team, dest, source, b);
}

static int typed_broadcast(shmem_team_t team, void *dest, const void *source,
                           size_t nelems, int root, size_t es)
{
    size_t b;
    return bytes_of("shmem_broadcast", nelems, es, &b)
               ? 1
               : shmem_broadcastmem(team, dest, source, b, root);
}

#define TSHMEM_DEF_COLL_(T, N)                                                           \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source,               \
                              size_t nelems, int PE_root)                                \
    {                                                                                    \
        return typed_broadcast(team, dest, source, nelems, PE_root, sizeof(T));          \
    }                                                                                    \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems)  \
    {                                                                                    \
        return typed("shmem_collect", shmem_collectmem, team, dest, source, nelems,      \
                     sizeof(T));                                                         \
    }                                                                                    \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems) \
    {                                                                                    \
        return typed("shmem_fcollect", shmem_fcollectmem, team, dest, source, nelems,    \
                     sizeof(T));                                                         \
    }                                                                                    \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems) \
    {                                                                                    \
        return typed("shmem_alltoall", shmem_alltoallmem, team, dest, source, nelems,    \
                     sizeof(T));                                                         \
    }                                                                                    \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source,               \
                              ptrdiff_t dst, ptrdiff_t sst, size_t nelems)               \
    {                                                                                    \
        return typed_alltoalls(team, dest, source, dst, sst, nelems, sizeof(T));         \
    }
TSHMEM_RMA_TYPES(TSHMEM_DEF_COLL_)

/* ---- reductions ------------------------------------------------------------------ */

/* Tern's element type for a C type of the given size and kind. */
#define TERN_INT_TYPE_(T)                                \
    ((T)-1 < (T)1 ? (sizeof(T) == 1   ? TERN_TYPE_INT8   \
                     : sizeof(T) == 2 ? TERN_TYPE_INT16  \
                     : sizeof(T) == 4 ? TERN_TYPE_INT32  \
                                      : TERN_TYPE_INT64) \
                  : (sizeof(T) == 1   ? TERN_TYPE_UINT8  \
                     : sizeof(T) == 2 ? TERN_TYPE_UINT16 \
                     : sizeof(T) == 4 ? TERN_TYPE_UINT32 \
                                      : TERN_TYPE_UINT64))

static int reduce(const char *call, shmem_team_t team, void *dest, const void *source,
                  size_t count, int type, int op)
{
    struct tshmem_team_s *t = coll_team(team, call);
    if (!t)
        return 1;
    int rc = tern_allreduce(t->tt, dest, source, count, type, op);
    return rc == TERN_OK ? 0 : fail(call, rc);
}

/* Gathers chunks of every member's source into the scratch (team order)
 * and hands each chunk to fn, which writes dest; used where Tern has no
 * reduction (complex products, scans). */
typedef void (*gather_fn)(void *dest, const char *all, int n, int me, size_t cnt);
static int gather_apply(const char *call, shmem_team_t team, char *dest,
                        const char *source, size_t nelems, size_t es, gather_fn fn)
{
    struct tshmem_team_s *t = coll_team(team, call);
    if (!t)
        return 1;
    int n = tern_team_size(t->tt), me = shmem_team_my_pe(team);
    size_t bytes; /* unchecked, 2^61 elements ran the copies off the map */
    if (bytes_of(call, nelems, es, &bytes))
        return 1;
    size_t c = chunk_elems(call, n, es);
    if (!c)
        return 1;
    char *s_all = tshmem_team_scratch(t), *s_mine = s_all + HALF_SCRATCH;
    for (size_t k0 = 0; k0 < nelems; k0 += c) {
        size_t cnt = nelems - k0 < c ? nelems - k0 : c;
        memcpy(s_mine, source + k0 * es, cnt * es);
        int rc = tern_fcollect(t->tt, s_all, s_mine, cnt * es);
        if (rc == TERN_OK && t->reversed)
            rc = reverse_blocks(s_all, n, cnt * es) ? TERN_ERR_NOMEM : TERN_OK;
        if (rc != TERN_OK)
            return fail(call, rc);
        fn(dest + k0 * es, s_all, n, me, cnt);
        rc = tern_team_barrier(t->tt); /* the scratch is refilled next */
        if (rc != TERN_OK)
            return fail(call, rc);
    }
    return 0;
}

#define TSHMEM_DEF_RED_(T, N, OP, TOP)                                            \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source,    \
                                  size_t nreduce)                                 \
    {                                                                             \
        return reduce("shmem_" #N "_" #OP "_reduce", team, dest, source, nreduce, \
                      TYPE_OF_(T), TOP);                                          \
    }
#define TYPE_OF_(T)                          \
    _Generic((T)0, float                     \
             : TERN_TYPE_FLOAT, double       \
             : TERN_TYPE_DOUBLE, long double \
             : TERN_TYPE_LONGDOUBLE, default \
             : TERN_INT_TYPE_(T))
#define TSHMEM_DEF_RED_BIT_(T, N)            \
    TSHMEM_DEF_RED_(T, N, and, TERN_RED_AND) \
    TSHMEM_DEF_RED_(T, N, or, TERN_RED_OR) TSHMEM_DEF_RED_(T, N, xor, TERN_RED_XOR)
#define TSHMEM_DEF_RED_ORD_(T, N) \
    TSHMEM_DEF_RED_(T, N, max, TERN_RED_MAX) TSHMEM_DEF_RED_(T, N, min, TERN_RED_MIN)
TSHMEM_RED_BIT_TYPES(TSHMEM_DEF_RED_BIT_)
TSHMEM_RED_ORD_TYPES(TSHMEM_DEF_RED_ORD_)

/* Scans and products computed from a gather, per type. */
#define TSHMEM_DEF_GATHER_FNS_(T, N)                                                    \
    static void N##_inscan_fn(void *dest, const char *all, int n, int me, size_t cnt)   \
    {                                                                                   \
        (void)n;                                                                        \
        T *d = dest;                                                                    \
        const T *a = (const T *)(const void *)all;                                      \
        for (size_t k = 0; k < cnt; k++) {                                              \
            T s = 0;                                                                    \
            for (int m = 0; m <= me; m++)                                               \
                s += a[(size_t)m * cnt + k];                                            \
            d[k] = s;                                                                   \
        }                                                                               \
    }                                                                                   \
    static void N##_exscan_fn(void *dest, const char *all, int n, int me, size_t cnt)   \
    {                                                                                   \
        (void)n;                                                                        \
        T *d = dest;                                                                    \
        const T *a = (const T *)(const void *)all;                                      \
        for (size_t k = 0; k < cnt; k++) {                                              \
            T s = 0;                                                                    \
            for (int m = 0; m < me; m++)                                                \
                s += a[(size_t)m * cnt + k];                                            \
            d[k] = s;                                                                   \
        }                                                                               \
    }                                                                                   \
    __attribute__((unused)) static void N##_prod_fn(void *dest, const char *all, int n, \
                                                    int me, size_t cnt)                 \
    {                                                                                   \
        (void)me;                                                                       \
        T *d = dest;                                                                    \
        const T *a = (const T *)(const void *)all;                                      \
        for (size_t k = 0; k < cnt; k++) {                                              \
            T p = 1;                                                                    \
            for (int m = 0; m < n; m++)                                                 \
                p *= a[(size_t)m * cnt + k];                                            \
            d[k] = p;                                                                   \
        }                                                                               \
    }                                                                                   \
    int shmem_##N##_sum_inscan(shmem_team_t team, T *dest, const T *source,             \
                               size_t nelems)                                           \
    {                                                                                   \
        return gather_apply("shmem_" #N "_sum_inscan", team, (char *)dest,              \
                            (const char *)source, nelems, sizeof(T), N##_inscan_fn);    \
    }                                                                                   \
    int shmem_##N##_sum_exscan(shmem_team_t team, T *dest, const T *source,             \
                               size_t nelems)                                           \
    {                                                                                   \
        return gather_apply("shmem_" #N "_sum_exscan", team, (char *)dest,              \
                            (const char *)source, nelems, sizeof(T), N##_exscan_fn);    \
    }
TSHMEM_RED_ARITH_TYPES(TSHMEM_DEF_GATHER_FNS_)

/* Sum and product: Tern's allreduce for real types; complex sums are sums
 * of their real and imaginary parts, complex products come from a gather. */
#define TSHMEM_DEF_RED_ARITH_(T, N) \
    TSHMEM_DEF_RED_(T, N, sum, TERN_RED_SUM) TSHMEM_DEF_RED_(T, N, prod, TERN_RED_PROD)
TSHMEM_RED_ORD_TYPES(TSHMEM_DEF_RED_ARITH_)

int shmem_complexd_sum_reduce(shmem_team_t team, double _Complex *dest,
                              const double _Complex *source, size_t nreduce)
{
    size_t bytes; /* 2 nreduce parts: unchecked, 2^63 wrapped to none */
    if (bytes_of("shmem_complexd_sum_reduce", nreduce, sizeof(*dest), &bytes))
        return 1;
    return reduce("shmem_complexd_sum_reduce", team, dest, source, 2 * nreduce,
                  TERN_TYPE_DOUBLE, TERN_RED_SUM);
}
int shmem_complexf_sum_reduce(shmem_team_t team, float _Complex *dest,
                              const float _Complex *source, size_t nreduce)
{
    size_t bytes; /* 2 nreduce parts: unchecked, 2^63 wrapped to none */
    if (bytes_of("shmem_complexf_sum_reduce", nreduce, sizeof(*dest), &bytes))
        return 1;
    return reduce("shmem_complexf_sum_reduce", team, dest, source, 2 * nreduce,
                  TERN_TYPE_FLOAT, TERN_RED_SUM);
}
int shmem_complexd_prod_reduce(shmem_team_t team, double _Complex *dest,
                               const double _Complex *source, size_t nreduce)
{
    return gather_apply("shmem_complexd_prod_reduce", team, (char *)dest,
                        (const char *)source, nreduce, sizeof(*dest), complexd_prod_fn);
}
int shmem_complexf_prod_reduce(shmem_team_t team, float _Complex *dest,
                               const float _Complex *source, size_t nreduce)
{
    return gather_apply("shmem_complexf_prod_reduce", team, (char *)dest,
                        (const char *)source, nreduce, sizeof(*dest), complexf_prod_fn);
}
