/* Atomic memory operations (OpenSHMEM 1.6 "Atomic Memory Operations"):
 * fetch, set, compare_swap, swap, fetch_inc, inc, fetch_add, add, the
 * bitwise and/or/xor with their fetching forms, and the non-blocking
 * fetching forms, for the standard, extended and bitwise AMO types, with
 * and without a context; and the deprecated names of OpenSHMEM 1.3.
 *
 * Each OpenSHMEM type maps to the Tern atomic type of its width and
 * signedness (int and int32_t to i32, long, long long, ptrdiff_t and
 * int64_t to i64, ...). One Tern atomic domain per Tern type, with every
 * op OpenSHMEM needs on it, is created at the first shmem_init and kept
 * for the life of the process: all AMOs on a word of one type then go
 * through one domain, hence one coherent mechanism (CPU atomics, network
 * atomics or the active-message path; docs/design/atomics.md). */
#include <string.h>

#include "tshmem.h"

_Static_assert(sizeof(long) == 8 && sizeof(long long) == 8 && sizeof(int) == 4,
               "libtshmem maps long to a 64-bit atomic type");
_Static_assert(sizeof(size_t) == 8 && sizeof(ptrdiff_t) == 8,
               "libtshmem maps size_t and ptrdiff_t to 64-bit atomic types");

/* ---- the domains ------------------------------------------------------------- */

/* The ops of the OpenSHMEM AMOs on integer types, and on float/double
 * (fetch, set, swap only). */
#define OPS_INT                                                               \
    (TERN_OP_GET | TERN_OP_SET | TERN_OP_SWAP | TERN_OP_CSWAP | TERN_OP_ADD | \
     TERN_OP_FADD | TERN_OP_INC | TERN_OP_FINC | TERN_OP_AND | TERN_OP_OR |   \
     TERN_OP_XOR | TERN_OP_FAND | TERN_OP_FOR | TERN_OP_FXOR)
#define OPS_FP (TERN_OP_GET | TERN_OP_SET | TERN_OP_SWAP)

#define NTYPES 6 /* TERN_AT_I32 .. TERN_AT_DOUBLE */
static tern_ad_t ad_[NTYPES];
static int ad_rc_[NTYPES]; /* creation status of a domain that failed */
static const char *const type_name_[NTYPES] = {"int32",  "uint32", "int64",
                                               "uint64", "float",  "double"};

int tshmem_amo_init(void)
{
    for (int t = 0; t < NTYPES; t++) {
        if (ad_[t])
            continue; /* a re-initialization keeps the domains */
        uint32_t ops = t == TERN_AT_FLOAT || t == TERN_AT_DOUBLE ? OPS_FP : OPS_INT;
        /* A failure (the network provider lacks an op and TERN_OFI_ATOMICS=net)
         * is reported by the first AMO of that type, not by shmem_init: a
         * program that does not use that type still runs. */
        /* No TERN_AD_PROVIDER: where the provider emulates atomics in
         * software, Tern's active-message path is faster for every row of
         * bench-shmem (add 0.3-0.5 against 6-7 us, gups 6x; fetching ops
         * alike) now that its blocking non-fetching ops return once issued
         * (docs/design/atomics.md, "libtshmem's domains"). */
        ad_rc_[t] = tern_ad_create(t, ops, 0, &ad_[t]);
        if (ad_rc_[t] != TERN_OK)
            ad_[t] = NULL;
    }
    return 0;
}

tern_ad_t tshmem_amo_domain(int type)
{
    return (unsigned)type < NTYPES ? ad_[type] : NULL;
}

/* A failed AMO: says which and why, then ends the job. */
TSHMEM_NOINLINE TSHMEM_NORETURN static void amo_fail(const char *call, int rc, int type,
                                                     int pe, const void *sym, size_t size)
{
    if (!ad_[type])
        tshmem_fatal("%s: no atomic domain for %s: %s (the cause is logged at "
                     "shmem_init; TERN_OFI_ATOMICS=auto lets Tern use active messages "
                     "where the network provider lacks an atomic)",
                     call, type_name_[type], tern_strerror(ad_rc_[type]));
    if ((uintptr_t)sym & (size - 1))
        tshmem_fatal("%s: %p is not aligned to the %zu bytes of its type (AMOs need "
                     "naturally aligned symmetric objects)",
                     call, sym, size);
    tshmem_rma_fail(call, rc, pe, sym, size);
}

/* ---- one operation, per Tern type ----------------------------------------------- */

/* Blocking op: returns the fetched value (0 for non-fetching ops). Every
 * AMO of a context goes through its AMO context (ctx->amo, Tern's partial
 * ordering mode): a non-fetching AMO to a network PE returns once issued
 * where the path keeps the order of atomics to one PE (the provider's
 * atomic order, or on the active-message path the order of Requests), as
 * the specification allows ("may return before the operation executes on
 * the target"), and waits for the target otherwise;
 * either way a PE's AMOs on a word take effect in program order (a set
 * followed by a fetch sees the set), which programs rely on. Fence and
 * quiet complete them. Cost on a mapped PE: the context and PE checks,
 * the mapped test, then Tern's inline CPU atomic. */
#define AMO_CORE_(TT, C, CODE)                                                           \
    static inline C amo_##TT(shmem_ctx_t ctx, int pe, const void *sym, uint32_t op,      \
                             C a1, C a2, const char *call)                               \
    {                                                                                    \
        (void)tshmem_tctx(ctx, call); /* a live context */                               \
        if (TSHMEM_UNLIKELY((unsigned)pe >= tshmem_g.npes))                              \
            tshmem_bad_pe(call, pe);                                                     \
        if (TSHMEM_UNLIKELY(tshmem_g.debug))                                             \
            tshmem_rma_debug_check(call, pe, sym, &a1, sizeof(C));                       \
        void *r = tshmem_remote(pe, sym);                                                \
        C v = 0;                                                                         \
        int rc = tern_ctx_ad_op_##TT(tshmem_amo_tctx(ctx), ad_[CODE], pe, r, op, a1, a2, \
                                     &v, 0);                                             \
        if (TSHMEM_UNLIKELY(rc != TERN_OK))                                              \
            amo_fail(call, rc, CODE, pe, sym, sizeof(C));                                \
        tshmem_spin_poll(); /* served in place, it polled nothing */                     \
        return v;                                                                        \
    }                                                                                    \
    /* Non-blocking fetching op: *fetch is set by the next quiet of ctx. */              \
    static inline void amo_nbi_##TT(shmem_ctx_t ctx, C *fetch, int pe, const void *sym,  \
                                    uint32_t op, C a1, C a2, const char *call)           \
    {                                                                                    \
        (void)tshmem_tctx(ctx, call); /* a live context */                               \
        if (TSHMEM_UNLIKELY((unsigned)pe >= tshmem_g.npes))                              \
            tshmem_bad_pe(call, pe);                                                     \
        if (TSHMEM_UNLIKELY(tshmem_g.debug))                                             \
            tshmem_rma_debug_check(call, pe, sym, fetch, sizeof(C));                     \
        if (TSHMEM_UNLIKELY(!fetch))                                                     \
            tshmem_fatal("%s: the fetch address is NULL", call);                         \
        int rc = tern_ctx_ad_op_nbi_##TT(tshmem_amo_tctx(ctx), ad_[CODE], pe,            \
                                         tshmem_remote(pe, sym), op, a1, a2, fetch, 0);  \
        if (TSHMEM_UNLIKELY(rc != TERN_OK))                                              \
            amo_fail(call, rc, CODE, pe, sym, sizeof(C));                                \
        tshmem_spin_poll();                                                              \
    }
AMO_CORE_(i32, int32_t, TERN_AT_I32)
AMO_CORE_(u32, uint32_t, TERN_AT_U32)
AMO_CORE_(i64, int64_t, TERN_AT_I64)
AMO_CORE_(u64, uint64_t, TERN_AT_U64)
AMO_CORE_(float, float, TERN_AT_FLOAT)
AMO_CORE_(double, double, TERN_AT_DOUBLE)

/* C type of each Tern type suffix. */
#define C_i32    int32_t
#define C_u32    uint32_t
#define C_i64    int64_t
#define C_u64    uint64_t
#define C_float  float
#define C_double double

/* X(T, N, TT): OpenSHMEM type, its name in routine names, Tern suffix. */
#define STD_TYPES(X)                      \
    X(int, int, i32)                      \
    X(long, long, i64)                    \
    X(long long, longlong, i64)           \
    X(unsigned int, uint, u32)            \
    X(unsigned long, ulong, u64)          \
    X(unsigned long long, ulonglong, u64) \
    X(int32_t, int32, i32)                \
    X(int64_t, int64, i64)                \
    X(uint32_t, uint32, u32)              \
    X(uint64_t, uint64, u64)              \
    X(size_t, size, u64)                  \
    X(ptrdiff_t, ptrdiff, i64)
#define FP_TYPES(X) X(float, float, float) X(double, double, double)
#define BITWISE_TYPES(X)                  \
    X(unsigned int, uint, u32)            \
    X(unsigned long, ulong, u64)          \
    X(unsigned long long, ulonglong, u64) \
    X(int32_t, int32, i32)                \
    X(int64_t, int64, i64)                \
    X(uint32_t, uint32, u32)              \
    X(uint64_t, uint64, u64)

#define DFLT SHMEM_CTX_DEFAULT

/* ---- extended AMO types: fetch, set, swap and their nbi forms ---------------------- */

/* The non-blocking forms convert through a C_TT slot when T and C_TT
 * differ only in name (long vs long long): same size and representation,
 * so the fetch pointer is passed as is. */
#define DEF_EXT_(T, N, TT)                                                            \
    _Static_assert(sizeof(T) == sizeof(C_##TT), #T " and its atomic type differ");    \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe)          \
    {                                                                                 \
        return (T)amo_##TT(ctx, pe, source, TERN_OP_GET, 0, 0, __func__);             \
    }                                                                                 \
    T shmem_##N##_atomic_fetch(const T *source, int pe)                               \
    {                                                                                 \
        return (T)amo_##TT(DFLT, pe, source, TERN_OP_GET, 0, 0, __func__);            \
    }                                                                                 \
    void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe)        \
    {                                                                                 \
        amo_##TT(ctx, pe, dest, TERN_OP_SET, (C_##TT)value, 0, __func__);             \
    }                                                                                 \
    void shmem_##N##_atomic_set(T *dest, T value, int pe)                             \
    {                                                                                 \
        amo_##TT(DFLT, pe, dest, TERN_OP_SET, (C_##TT)value, 0, __func__);            \
    }                                                                                 \
    T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe)          \
    {                                                                                 \
        return (T)amo_##TT(ctx, pe, dest, TERN_OP_SWAP, (C_##TT)value, 0, __func__);  \
    }                                                                                 \
    T shmem_##N##_atomic_swap(T *dest, T value, int pe)                               \
    {                                                                                 \
        return (T)amo_##TT(DFLT, pe, dest, TERN_OP_SWAP, (C_##TT)value, 0, __func__); \
    }                                                                                 \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, \
                                          int pe)                                     \
    {                                                                                 \
        amo_nbi_##TT(ctx, (C_##TT *)(void *)fetch, pe, source, TERN_OP_GET, 0, 0,     \
                     __func__);                                                       \
    }                                                                                 \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe)              \
    {                                                                                 \
        amo_nbi_##TT(DFLT, (C_##TT *)(void *)fetch, pe, source, TERN_OP_GET, 0, 0,    \
                     __func__);                                                       \
    }                                                                                 \
    void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, \
                                         int pe)                                      \
    {                                                                                 \
        amo_nbi_##TT(ctx, (C_##TT *)(void *)fetch, pe, dest, TERN_OP_SWAP,            \
                     (C_##TT)value, 0, __func__);                                     \
    }                                                                                 \
    void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe)              \
    {                                                                                 \
        amo_nbi_##TT(DFLT, (C_##TT *)(void *)fetch, pe, dest, TERN_OP_SWAP,           \
                     (C_##TT)value, 0, __func__);                                     \
    }
STD_TYPES(DEF_EXT_)
FP_TYPES(DEF_EXT_)

/* ---- standard AMO types: compare_swap, fetch_inc, inc, fetch_add, add ---------------- */

#define DEF_STD_(T, N, TT)                                                               \
    T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value,     \
                                          int pe)                                        \
    {                                                                                    \
        return (T)amo_##TT(ctx, pe, dest, TERN_OP_CSWAP, (C_##TT)cond, (C_##TT)value,    \
                           __func__);                                                    \
    }                                                                                    \
    T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe)                  \
    {                                                                                    \
        return (T)amo_##TT(DFLT, pe, dest, TERN_OP_CSWAP, (C_##TT)cond, (C_##TT)value,   \
                           __func__);                                                    \
    }                                                                                    \
    T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe)                 \
    {                                                                                    \
        return (T)amo_##TT(ctx, pe, dest, TERN_OP_FINC, 0, 0, __func__);                 \
    }                                                                                    \
    T shmem_##N##_atomic_fetch_inc(T *dest, int pe)                                      \
    {                                                                                    \
        return (T)amo_##TT(DFLT, pe, dest, TERN_OP_FINC, 0, 0, __func__);                \
    }                                                                                    \
    void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe)                    \
    {                                                                                    \
        amo_##TT(ctx, pe, dest, TERN_OP_INC, 0, 0, __func__);                            \
    }                                                                                    \
    void shmem_##N##_atomic_inc(T *dest, int pe)                                         \
    {                                                                                    \
        amo_##TT(DFLT, pe, dest, TERN_OP_INC, 0, 0, __func__);                           \
    }                                                                                    \
    T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe)        \
    {                                                                                    \
        return (T)amo_##TT(ctx, pe, dest, TERN_OP_FADD, (C_##TT)value, 0, __func__);     \
    }                                                                                    \
    T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe)                             \
    {                                                                                    \
        return (T)amo_##TT(DFLT, pe, dest, TERN_OP_FADD, (C_##TT)value, 0, __func__);    \
    }                                                                                    \
    void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe)           \
    {                                                                                    \
        amo_##TT(ctx, pe, dest, TERN_OP_ADD, (C_##TT)value, 0, __func__);                \
    }                                                                                    \
    void shmem_##N##_atomic_add(T *dest, T value, int pe)                                \
    {                                                                                    \
        amo_##TT(DFLT, pe, dest, TERN_OP_ADD, (C_##TT)value, 0, __func__);               \
    }                                                                                    \
    void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest,     \
                                                 T cond, T value, int pe)                \
    {                                                                                    \
        amo_nbi_##TT(ctx, (C_##TT *)(void *)fetch, pe, dest, TERN_OP_CSWAP,              \
                     (C_##TT)cond, (C_##TT)value, __func__);                             \
    }                                                                                    \
    void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe) \
    {                                                                                    \
        amo_nbi_##TT(DFLT, (C_##TT *)(void *)fetch, pe, dest, TERN_OP_CSWAP,             \
                     (C_##TT)cond, (C_##TT)value, __func__);                             \
    }                                                                                    \
    void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest,        \
                                              int pe)                                    \
    {                                                                                    \
        amo_nbi_##TT(ctx, (C_##TT *)(void *)fetch, pe, dest, TERN_OP_FINC, 0, 0,         \
                     __func__);                                                          \
    }                                                                                    \
    void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe)                     \
    {                                                                                    \
        amo_nbi_##TT(DFLT, (C_##TT *)(void *)fetch, pe, dest, TERN_OP_FINC, 0, 0,        \
                     __func__);                                                          \
    }                                                                                    \
    void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest,        \
                                              T value, int pe)                           \
    {                                                                                    \
        amo_nbi_##TT(ctx, (C_##TT *)(void *)fetch, pe, dest, TERN_OP_FADD,               \
                     (C_##TT)value, 0, __func__);                                        \
    }                                                                                    \
    void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe)            \
    {                                                                                    \
        amo_nbi_##TT(DFLT, (C_##TT *)(void *)fetch, pe, dest, TERN_OP_FADD,              \
                     (C_##TT)value, 0, __func__);                                        \
    }
STD_TYPES(DEF_STD_)

/* ---- bitwise AMO types: and, or, xor and their fetching forms ------------------------ */

#define DEF_BIT_OP_(T, N, TT, name, OP, FOP)                                           \
    T shmem_ctx_##N##_atomic_fetch_##name(shmem_ctx_t ctx, T *dest, T value, int pe)   \
    {                                                                                  \
        return (T)amo_##TT(ctx, pe, dest, FOP, (C_##TT)value, 0, __func__);            \
    }                                                                                  \
    T shmem_##N##_atomic_fetch_##name(T *dest, T value, int pe)                        \
    {                                                                                  \
        return (T)amo_##TT(DFLT, pe, dest, FOP, (C_##TT)value, 0, __func__);           \
    }                                                                                  \
    void shmem_ctx_##N##_atomic_##name(shmem_ctx_t ctx, T *dest, T value, int pe)      \
    {                                                                                  \
        amo_##TT(ctx, pe, dest, OP, (C_##TT)value, 0, __func__);                       \
    }                                                                                  \
    void shmem_##N##_atomic_##name(T *dest, T value, int pe)                           \
    {                                                                                  \
        amo_##TT(DFLT, pe, dest, OP, (C_##TT)value, 0, __func__);                      \
    }                                                                                  \
    void shmem_ctx_##N##_atomic_fetch_##name##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, \
                                                   T value, int pe)                    \
    {                                                                                  \
        amo_nbi_##TT(ctx, (C_##TT *)(void *)fetch, pe, dest, FOP, (C_##TT)value, 0,    \
                     __func__);                                                        \
    }                                                                                  \
    void shmem_##N##_atomic_fetch_##name##_nbi(T *fetch, T *dest, T value, int pe)     \
    {                                                                                  \
        amo_nbi_##TT(DFLT, (C_##TT *)(void *)fetch, pe, dest, FOP, (C_##TT)value, 0,   \
                     __func__);                                                        \
    }
#define DEF_BIT_(T, N, TT)                                \
    DEF_BIT_OP_(T, N, TT, and, TERN_OP_AND, TERN_OP_FAND) \
    DEF_BIT_OP_(T, N, TT, or, TERN_OP_OR, TERN_OP_FOR)    \
    DEF_BIT_OP_(T, N, TT, xor, TERN_OP_XOR, TERN_OP_FXOR)
BITWISE_TYPES(DEF_BIT_)

/* ---- deprecated names (OpenSHMEM 1.3, deprecated since 1.4) ---------------------------- */

#define DEP_TYPES(X) X(int, int, i32) X(long, long, i64) X(long long, longlong, i64)

#define DEF_DEP_EXT_(T, N, TT)                                                        \
    T shmem_##N##_fetch(const T *source, int pe)                                      \
    {                                                                                 \
        return (T)amo_##TT(DFLT, pe, source, TERN_OP_GET, 0, 0, __func__);            \
    }                                                                                 \
    void shmem_##N##_set(T *dest, T value, int pe)                                    \
    {                                                                                 \
        amo_##TT(DFLT, pe, dest, TERN_OP_SET, (C_##TT)value, 0, __func__);            \
    }                                                                                 \
    T shmem_##N##_swap(T *dest, T value, int pe)                                      \
    {                                                                                 \
        return (T)amo_##TT(DFLT, pe, dest, TERN_OP_SWAP, (C_##TT)value, 0, __func__); \
    }
DEP_TYPES(DEF_DEP_EXT_)
FP_TYPES(DEF_DEP_EXT_)

#define DEF_DEP_STD_(T, N, TT)                                                         \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe)                              \
    {                                                                                  \
        return (T)amo_##TT(DFLT, pe, dest, TERN_OP_CSWAP, (C_##TT)cond, (C_##TT)value, \
                           __func__);                                                  \
    }                                                                                  \
    T shmem_##N##_finc(T *dest, int pe)                                                \
    {                                                                                  \
        return (T)amo_##TT(DFLT, pe, dest, TERN_OP_FINC, 0, 0, __func__);              \
    }                                                                                  \
    void shmem_##N##_inc(T *dest, int pe)                                              \
    {                                                                                  \
        amo_##TT(DFLT, pe, dest, TERN_OP_INC, 0, 0, __func__);                         \
    }                                                                                  \
    T shmem_##N##_fadd(T *dest, T value, int pe)                                       \
    {                                                                                  \
        return (T)amo_##TT(DFLT, pe, dest, TERN_OP_FADD, (C_##TT)value, 0, __func__);  \
    }                                                                                  \
    void shmem_##N##_add(T *dest, T value, int pe)                                     \
    {                                                                                  \
        amo_##TT(DFLT, pe, dest, TERN_OP_ADD, (C_##TT)value, 0, __func__);             \
    }
DEP_TYPES(DEF_DEP_STD_)

/* OpenSHMEM 1.0's untyped swap of a long. In C11 shmem.h makes shmem_swap
 * the type-generic form; this function is what C99 and C++ callers get. */
long(shmem_swap)(long *dest, long value, int pe)
{
    return (long)amo_i64(DFLT, pe, dest, TERN_OP_SWAP, value, 0, "shmem_swap");
}
