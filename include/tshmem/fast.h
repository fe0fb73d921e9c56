/* Inline fast paths of the hottest OpenSHMEM calls on the default context
 * (included by shmem.h; define TSHMEM_NO_INLINE before including shmem.h
 * to call the library for everything, e.g. under a profiling tool that
 * interposes the shmem_ symbols). To a PE whose heap is mapped here (self,
 * same node) the call is then what the Tern-native call costs: a put or
 * get is a bounds check and a copy, an AMO on a CPU-atomic domain one
 * locked instruction. Anything else (network PEs, addresses outside the
 * symmetric heap, SHMEM_DEBUG, before init) calls the library function of
 * the same name, which checks and reports exactly as before. */
#ifndef TSHMEM_FAST_H
#define TSHMEM_FAST_H

#include <tern.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Written by libtshmem at initialization and finalization only; read by
 * the inline paths. npes is 0 while they are off (before init, after
 * finalize, under SHMEM_DEBUG), which sends every call to the library.
 * Part of libtshmem's ABI. */
typedef struct tshmem_fast_s {
    uint32_t npes; /* PEs, or 0: inline paths off */
    uint32_t reserved_;
    uintptr_t heap_base;        /* this PE's symmetric heap */
    uintptr_t heap_size;        /* its bytes */
    const uintptr_t *peer_base; /* heap base of every PE, as that PE sees it */
    /* the AMOs' domains of those types; NULL (the library serves every
     * AMO) in a job where some PE is not mapped here, so that AMOs served
     * in place also drive progress (src/shmem/tshmem.h, tshmem_spin_poll) */
    tern_ad_t ad_i64, ad_u64;
} tshmem_fast_t;

extern TSHMEM_API tshmem_fast_t tshmem_fast_;

/* Address on pe of the symmetric object at sym, or NULL when the inline
 * path does not apply (off, bad PE, sym outside the heap). */
static inline void *tshmem_fast_remote_(const void *sym, int pe)
{
    uintptr_t off = (uintptr_t)sym - tshmem_fast_.heap_base;
    if (TERN_LIKELY_((unsigned)pe < tshmem_fast_.npes && off < tshmem_fast_.heap_size))
        return (void *)(tshmem_fast_.peer_base[pe] + off);
    return NULL;
}

/* Cost to a mapped PE: the checks of tshmem_fast_remote_ and
 * tern_fast_ok_ (about 15 instructions) and the copy. */
static inline void tshmem_putmem_fast_(void *dest, const void *source, size_t n, int pe)
{
    char *r = (char *)tshmem_fast_remote_(dest, pe);
    intptr_t d;
    if (TERN_LIKELY_(r && tern_fast_ok_(pe, r, n, &d))) {
        tern_fast_copy_(pe, r + d, source, n);
        TERN_PUT_FENCE_();
        return;
    }
    shmem_putmem(dest, source, n, pe);
}

static inline void tshmem_putmem_nbi_fast_(void *dest, const void *source, size_t n,
                                           int pe)
{
    char *r = (char *)tshmem_fast_remote_(dest, pe);
    intptr_t d;
    if (TERN_LIKELY_(r && tern_fast_ok_(pe, r, n, &d))) {
        tern_fast_copy_(pe, r + d, source, n);
        return;
    }
    shmem_putmem_nbi(dest, source, n, pe);
}

static inline void tshmem_getmem_fast_(void *dest, const void *source, size_t n, int pe)
{
    const char *r = (const char *)tshmem_fast_remote_(source, pe);
    intptr_t d;
    if (TERN_LIKELY_(r && tern_fast_ok_(pe, r, n, &d))) {
        tern_fast_copy_(pe, dest, r + d, n);
        return;
    }
    shmem_getmem(dest, source, n, pe);
}

static inline void tshmem_getmem_nbi_fast_(void *dest, const void *source, size_t n,
                                           int pe)
{
    const char *r = (const char *)tshmem_fast_remote_(source, pe);
    intptr_t d;
    if (TERN_LIKELY_(r && tern_fast_ok_(pe, r, n, &d))) {
        tern_fast_copy_(pe, dest, r + d, n);
        return;
    }
    shmem_getmem_nbi(dest, source, n, pe);
}

/* Typed single-element put and get (shmem_TYPE_p, shmem_TYPE_g) for every
 * standard RMA type: to a mapped PE a store (and the put's release fence)
 * or a load of the element at its address there, as shmem_putmem and
 * shmem_getmem of sizeof(T) bytes do; anything else calls the library
 * function of the same name. */
#define TSHMEM_FAST_PG_(T, N)                                          \
    static inline void tshmem_##N##_p_fast_(T *dest, T value, int pe)  \
    {                                                                  \
        char *r = (char *)tshmem_fast_remote_(dest, pe);               \
        intptr_t d;                                                    \
        if (TERN_LIKELY_(r && tern_fast_ok_(pe, r, sizeof(T), &d))) {  \
            *(T *)(void *)(r + d) = value;                             \
            TERN_PUT_FENCE_();                                         \
            return;                                                    \
        }                                                              \
        shmem_##N##_p(dest, value, pe);                                \
    }                                                                  \
    static inline T tshmem_##N##_g_fast_(const T *source, int pe)      \
    {                                                                  \
        const char *r = (const char *)tshmem_fast_remote_(source, pe); \
        intptr_t d;                                                    \
        if (TERN_LIKELY_(r && tern_fast_ok_(pe, r, sizeof(T), &d)))    \
            return *(const T *)(const void *)(r + d);                  \
        return shmem_##N##_g(source, pe);                              \
    }
TSHMEM_RMA_TYPES(TSHMEM_FAST_PG_)
#undef TSHMEM_FAST_PG_

/* AMOs on long (Tern i64, as the library maps it) and uint64_t: the
 * domain's inline path, which declines anything but a CPU domain, a
 * mapped PE and an aligned word. */
#if defined(__GNUC__) && defined(__LP64__)
#define TSHMEM_FAST_AMO_ 1
static inline long tshmem_long_fetch_add_fast_(long *dest, long value, int pe)
{
    void *r = tshmem_fast_remote_(dest, pe);
    int64_t old;
    if (TERN_LIKELY_(r && TERN_AD_FAST_i64_(tshmem_fast_.ad_i64, TERN_AT_I64, pe, r,
                                            TERN_OP_FADD, value, 0, &old, 0)))
        return (long)old;
    return shmem_long_atomic_fetch_add(dest, value, pe);
}

static inline void tshmem_long_add_fast_(long *dest, long value, int pe)
{
    void *r = tshmem_fast_remote_(dest, pe);
    if (TERN_LIKELY_(r && TERN_AD_FAST_i64_(tshmem_fast_.ad_i64, TERN_AT_I64, pe, r,
                                            TERN_OP_ADD, value, 0, (int64_t *)0, 0)))
        return;
    shmem_long_atomic_add(dest, value, pe);
}

static inline long tshmem_long_compare_swap_fast_(long *dest, long cond, long value,
                                                  int pe)
{
    void *r = tshmem_fast_remote_(dest, pe);
    int64_t old;
    if (TERN_LIKELY_(r && TERN_AD_FAST_i64_(tshmem_fast_.ad_i64, TERN_AT_I64, pe, r,
                                            TERN_OP_CSWAP, cond, value, &old, 0)))
        return (long)old;
    return shmem_long_atomic_compare_swap(dest, cond, value, pe);
}

static inline long tshmem_long_fetch_fast_(const long *source, int pe)
{
    void *r = tshmem_fast_remote_(source, pe);
    int64_t v;
    if (TERN_LIKELY_(r && TERN_AD_FAST_i64_(tshmem_fast_.ad_i64, TERN_AT_I64, pe, r,
                                            TERN_OP_GET, 0, 0, &v, 0)))
        return (long)v;
    return shmem_long_atomic_fetch(source, pe);
}

static inline void tshmem_uint64_xor_fast_(uint64_t *dest, uint64_t value, int pe)
{
    void *r = tshmem_fast_remote_(dest, pe);
    if (TERN_LIKELY_(r && TERN_AD_FAST_u64_(tshmem_fast_.ad_u64, TERN_AT_U64, pe, r,
                                            TERN_OP_XOR, value, 0, (uint64_t *)0, 0)))
        return;
    shmem_uint64_atomic_xor(dest, value, pe);
}
#endif

#ifdef __cplusplus
}
#endif

/* Function-like macros: a call goes inline, while the name alone (its
 * address, a _Generic association) still denotes the library function. */
#define shmem_putmem(d, s, n, pe)     tshmem_putmem_fast_(d, s, n, pe)
#define shmem_putmem_nbi(d, s, n, pe) tshmem_putmem_nbi_fast_(d, s, n, pe)
#define shmem_getmem(d, s, n, pe)     tshmem_getmem_fast_(d, s, n, pe)
#define shmem_getmem_nbi(d, s, n, pe) tshmem_getmem_nbi_fast_(d, s, n, pe)
#define shmem_float_p(d, v, pe)       tshmem_float_p_fast_(d, v, pe)
#define shmem_float_g(s, pe)          tshmem_float_g_fast_(s, pe)
#define shmem_double_p(d, v, pe)      tshmem_double_p_fast_(d, v, pe)
#define shmem_double_g(s, pe)         tshmem_double_g_fast_(s, pe)
#define shmem_longdouble_p(d, v, pe)  tshmem_longdouble_p_fast_(d, v, pe)
#define shmem_longdouble_g(s, pe)     tshmem_longdouble_g_fast_(s, pe)
#define shmem_char_p(d, v, pe)        tshmem_char_p_fast_(d, v, pe)
#define shmem_char_g(s, pe)           tshmem_char_g_fast_(s, pe)
#define shmem_schar_p(d, v, pe)       tshmem_schar_p_fast_(d, v, pe)
#define shmem_schar_g(s, pe)          tshmem_schar_g_fast_(s, pe)
#define shmem_short_p(d, v, pe)       tshmem_short_p_fast_(d, v, pe)
#define shmem_short_g(s, pe)          tshmem_short_g_fast_(s, pe)
#define shmem_int_p(d, v, pe)         tshmem_int_p_fast_(d, v, pe)
#define shmem_int_g(s, pe)            tshmem_int_g_fast_(s, pe)
#define shmem_long_p(d, v, pe)        tshmem_long_p_fast_(d, v, pe)
#define shmem_long_g(s, pe)           tshmem_long_g_fast_(s, pe)
#define shmem_longlong_p(d, v, pe)    tshmem_longlong_p_fast_(d, v, pe)
#define shmem_longlong_g(s, pe)       tshmem_longlong_g_fast_(s, pe)
#define shmem_uchar_p(d, v, pe)       tshmem_uchar_p_fast_(d, v, pe)
#define shmem_uchar_g(s, pe)          tshmem_uchar_g_fast_(s, pe)
#define shmem_ushort_p(d, v, pe)      tshmem_ushort_p_fast_(d, v, pe)
#define shmem_ushort_g(s, pe)         tshmem_ushort_g_fast_(s, pe)
#define shmem_uint_p(d, v, pe)        tshmem_uint_p_fast_(d, v, pe)
#define shmem_uint_g(s, pe)           tshmem_uint_g_fast_(s, pe)
#define shmem_ulong_p(d, v, pe)       tshmem_ulong_p_fast_(d, v, pe)
#define shmem_ulong_g(s, pe)          tshmem_ulong_g_fast_(s, pe)
#define shmem_ulonglong_p(d, v, pe)   tshmem_ulonglong_p_fast_(d, v, pe)
#define shmem_ulonglong_g(s, pe)      tshmem_ulonglong_g_fast_(s, pe)
#define shmem_int8_p(d, v, pe)        tshmem_int8_p_fast_(d, v, pe)
#define shmem_int8_g(s, pe)           tshmem_int8_g_fast_(s, pe)
#define shmem_int16_p(d, v, pe)       tshmem_int16_p_fast_(d, v, pe)
#define shmem_int16_g(s, pe)          tshmem_int16_g_fast_(s, pe)
#define shmem_int32_p(d, v, pe)       tshmem_int32_p_fast_(d, v, pe)
#define shmem_int32_g(s, pe)          tshmem_int32_g_fast_(s, pe)
#define shmem_int64_p(d, v, pe)       tshmem_int64_p_fast_(d, v, pe)
#define shmem_int64_g(s, pe)          tshmem_int64_g_fast_(s, pe)
#define shmem_uint8_p(d, v, pe)       tshmem_uint8_p_fast_(d, v, pe)
#define shmem_uint8_g(s, pe)          tshmem_uint8_g_fast_(s, pe)
#define shmem_uint16_p(d, v, pe)      tshmem_uint16_p_fast_(d, v, pe)
#define shmem_uint16_g(s, pe)         tshmem_uint16_g_fast_(s, pe)
#define shmem_uint32_p(d, v, pe)      tshmem_uint32_p_fast_(d, v, pe)
#define shmem_uint32_g(s, pe)         tshmem_uint32_g_fast_(s, pe)
#define shmem_uint64_p(d, v, pe)      tshmem_uint64_p_fast_(d, v, pe)
#define shmem_uint64_g(s, pe)         tshmem_uint64_g_fast_(s, pe)
#define shmem_size_p(d, v, pe)        tshmem_size_p_fast_(d, v, pe)
#define shmem_size_g(s, pe)           tshmem_size_g_fast_(s, pe)
#define shmem_ptrdiff_p(d, v, pe)     tshmem_ptrdiff_p_fast_(d, v, pe)
#define shmem_ptrdiff_g(s, pe)        tshmem_ptrdiff_g_fast_(s, pe)
#ifdef TSHMEM_FAST_AMO_
#define shmem_long_atomic_fetch_add(d, v, pe) tshmem_long_fetch_add_fast_(d, v, pe)
#define shmem_long_atomic_add(d, v, pe)       tshmem_long_add_fast_(d, v, pe)
#define shmem_long_atomic_compare_swap(d, c, v, pe) \
    tshmem_long_compare_swap_fast_(d, c, v, pe)
#define shmem_long_atomic_fetch(s, pe)    tshmem_long_fetch_fast_(s, pe)
#define shmem_uint64_atomic_xor(d, v, pe) tshmem_uint64_xor_fast_(d, v, pe)
#endif

#endif
