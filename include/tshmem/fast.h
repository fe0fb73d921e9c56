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

/* One PE as the inline puts and gets see it: one range check and one add
 * take a symmetric address of this PE's heap to the same object on that
 * PE, through this process's mapping of its heap. */
typedef struct tshmem_fast_peer_s {
    intptr_t delta;     /* add to a symmetric address of this PE's heap */
    uintptr_t size;     /* heap bytes reachable that way; 0: PE not mapped here */
    uintptr_t copy_min; /* copies of this many bytes or more go through
                           tern_copy_ (Tern's topology-aware copy) */
    uintptr_t reserved_;
} tshmem_fast_peer_t;

/* Written by libtshmem at initialization and finalization only; read by
 * the inline paths. npes is 0 while they are off (before init, after
 * finalize, under SHMEM_DEBUG), which sends every call to the library.
 * Part of libtshmem's ABI: fields are only ever added at the end. */
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
    /* every PE, for the puts and gets (before it, they translated through
     * peer_base and then Tern's peer table: two range checks, 35
     * instructions per 8-byte put against tern_put's 26) */
    const tshmem_fast_peer_t *peer;
    /* 1: every PE is mapped here (one node), where Tern's signal updates
     * are CPU atomics after the data: put with signal goes inline too */
    uint32_t one_node;
    uint32_t reserved2_;
} tshmem_fast_t;

extern TSHMEM_API tshmem_fast_t tshmem_fast_;

/* The entry of pe when [sym, sym+n) of this PE's heap is mapped here on
 * pe, else NULL (off, bad PE, sym outside the heap, PE not mapped). Cost:
 * ~10 instructions, two predictable branches, as tern_fast_ok_. */
static inline const tshmem_fast_peer_t *tshmem_fast_peer_(const void *sym, size_t n,
                                                          int pe)
{
    uintptr_t off = (uintptr_t)sym - tshmem_fast_.heap_base;
    if (TERN_LIKELY_((unsigned)pe < tshmem_fast_.npes)) {
        const tshmem_fast_peer_t *p = &tshmem_fast_.peer[pe];
        if (TERN_LIKELY_(off <= p->size && n <= p->size - off))
            return p;
    }
    return NULL;
}

/* The copy of an inline transfer with pe: what tern_fast_copy_ does. */
static inline void tshmem_fast_copy_(const tshmem_fast_peer_t *p, int pe, void *dst,
                                     const void *src, size_t n)
{
    if (TERN_LIKELY_(n < p->copy_min))
        memcpy(dst, src, n);
    else
        tern_copy_(pe, dst, src, n);
}

/* Cost to a mapped PE: the check of tshmem_fast_peer_ and the copy, as
 * tern_put's (26 instructions per 8-byte put, scripts/shmem-cost.sh). */
static inline void tshmem_putmem_fast_(void *dest, const void *source, size_t n, int pe)
{
    const tshmem_fast_peer_t *p = tshmem_fast_peer_(dest, n, pe);
    if (TERN_LIKELY_(p != NULL)) {
        tshmem_fast_copy_(p, pe, (char *)dest + p->delta, source, n);
        TERN_PUT_FENCE_();
        return;
    }
    shmem_putmem(dest, source, n, pe);
}

static inline void tshmem_putmem_nbi_fast_(void *dest, const void *source, size_t n,
                                           int pe)
{
    const tshmem_fast_peer_t *p = tshmem_fast_peer_(dest, n, pe);
    if (TERN_LIKELY_(p != NULL)) {
        tshmem_fast_copy_(p, pe, (char *)dest + p->delta, source, n);
        return;
    }
    shmem_putmem_nbi(dest, source, n, pe);
}

static inline void tshmem_getmem_fast_(void *dest, const void *source, size_t n, int pe)
{
    const tshmem_fast_peer_t *p = tshmem_fast_peer_(source, n, pe);
    if (TERN_LIKELY_(p != NULL)) {
        tshmem_fast_copy_(p, pe, dest, (const char *)source + p->delta, n);
        return;
    }
    shmem_getmem(dest, source, n, pe);
}

static inline void tshmem_getmem_nbi_fast_(void *dest, const void *source, size_t n,
                                           int pe)
{
    const tshmem_fast_peer_t *p = tshmem_fast_peer_(source, n, pe);
    if (TERN_LIKELY_(p != NULL)) {
        tshmem_fast_copy_(p, pe, dest, (const char *)source + p->delta, n);
        return;
    }
    shmem_getmem_nbi(dest, source, n, pe);
}

/* Put with signal to a mapped PE in a job on one node: the copy, then the
 * signal update with release order, as Tern's put with signal does there
 * (src/core/signal.c: a CPU atomic after the data). Across nodes Tern
 * updates signals through a network atomic domain, even on mapped PEs, so
 * the library serves every call then; also a bad op, a misaligned
 * signal, ranges outside the heap. */
static inline void tshmem_putmem_signal_fast_(void *dest, const void *source, size_t n,
                                              uint64_t *sig, uint64_t signal, int sig_op,
                                              int pe)
{
    const tshmem_fast_peer_t *p = tshmem_fast_peer_(dest, n, pe);
    if (TERN_LIKELY_(p && tshmem_fast_.one_node && (unsigned)sig_op <= SHMEM_SIGNAL_ADD &&
                     !((uintptr_t)sig & 7) && tshmem_fast_peer_(sig, 8, pe))) {
        tshmem_fast_copy_(p, pe, (char *)dest + p->delta, source, n);
        uint64_t *w = (uint64_t *)(void *)((char *)sig + p->delta);
        if (sig_op == SHMEM_SIGNAL_SET)
            __atomic_store_n(w, signal, __ATOMIC_RELEASE);
        else
            __atomic_fetch_add(w, signal, __ATOMIC_RELEASE);
        return;
    }
    shmem_putmem_signal(dest, source, n, sig, signal, sig_op, pe);
}

/* Typed single-element put and get (shmem_TYPE_p, shmem_TYPE_g) for every
 * standard RMA type: to a mapped PE a store (and the put's release fence)
 * or a load of the element at its address there, as shmem_putmem and
 * shmem_getmem of sizeof(T) bytes do; anything else calls the library
 * function of the same name. */
#define TSHMEM_FAST_PG_(T, N)                                                   \
    static inline void tshmem_##N##_p_fast_(T *dest, T value, int pe)           \
    {                                                                           \
        const tshmem_fast_peer_t *p = tshmem_fast_peer_(dest, sizeof(T), pe);   \
        if (TERN_LIKELY_(p != NULL)) {                                          \
            *(T *)(void *)((char *)dest + p->delta) = value;                    \
            TERN_PUT_FENCE_();                                                  \
            return;                                                             \
        }                                                                       \
        shmem_##N##_p(dest, value, pe);                                         \
    }                                                                           \
    static inline T tshmem_##N##_g_fast_(const T *source, int pe)               \
    {                                                                           \
        const tshmem_fast_peer_t *p = tshmem_fast_peer_(source, sizeof(T), pe); \
        if (TERN_LIKELY_(p != NULL))                                            \
            return *(const T *)(const void *)((const char *)source + p->delta); \
        return shmem_##N##_g(source, pe);                                       \
    }
TSHMEM_RMA_TYPES(TSHMEM_FAST_PG_)
#undef TSHMEM_FAST_PG_

/* Typed and sized block transfers (shmem_TYPE_put, _get, _put_nbi and
 * _get_nbi for every standard RMA type; shmem_putSIZE, getSIZE and their
 * _nbi): nelems elements of es bytes, inline as shmem_putmem and
 * friends. In the library each took a call, the context and argument
 * checks and then Tern's inline call: 104 instructions per 8-byte
 * shmem_long_get against tern_get's 26 (scripts/shmem-cost.sh). A count
 * whose bytes overflow fits no PE's range here (SIZE_MAX), so the library
 * gets it and says so. */
static inline size_t tshmem_fast_bytes_(size_t nelems, size_t es)
{
    return nelems <= SIZE_MAX / es ? nelems * es : SIZE_MAX;
}
/* F: the library function's name after shmem_; T: the element type as its
 * prototype says (void for the sized forms); ES: bytes per element. */
#define TSHMEM_FAST_PUT_(F, T, ES, FENCE)                                          \
    static inline void tshmem_##F##_fast_(T *dest, const T *source, size_t nelems, \
                                          int pe)                                  \
    {                                                                              \
        size_t n = tshmem_fast_bytes_(nelems, ES);                                 \
        const tshmem_fast_peer_t *p = tshmem_fast_peer_(dest, n, pe);              \
        if (TERN_LIKELY_(p != NULL)) {                                             \
            tshmem_fast_copy_(p, pe, (char *)dest + p->delta, source, n);          \
            FENCE;                                                                 \
            return;                                                                \
        }                                                                          \
        shmem_##F(dest, source, nelems, pe);                                       \
    }
#define TSHMEM_FAST_GET_(F, T, ES)                                                 \
    static inline void tshmem_##F##_fast_(T *dest, const T *source, size_t nelems, \
                                          int pe)                                  \
    {                                                                              \
        size_t n = tshmem_fast_bytes_(nelems, ES);                                 \
        const tshmem_fast_peer_t *p = tshmem_fast_peer_(source, n, pe);            \
        if (TERN_LIKELY_(p != NULL)) {                                             \
            tshmem_fast_copy_(p, pe, dest, (const char *)source + p->delta, n);    \
            return;                                                                \
        }                                                                          \
        shmem_##F(dest, source, nelems, pe);                                       \
    }
#define TSHMEM_FAST_BLOCK_(T, N)                               \
    TSHMEM_FAST_PUT_(N##_put, T, sizeof(T), TERN_PUT_FENCE_()) \
    TSHMEM_FAST_PUT_(N##_put_nbi, T, sizeof(T), (void)0)       \
    TSHMEM_FAST_GET_(N##_get, T, sizeof(T))                    \
    TSHMEM_FAST_GET_(N##_get_nbi, T, sizeof(T))
TSHMEM_RMA_TYPES(TSHMEM_FAST_BLOCK_)
#define TSHMEM_FAST_SIZED_(S)                                  \
    TSHMEM_FAST_PUT_(put##S, void, (S) / 8, TERN_PUT_FENCE_()) \
    TSHMEM_FAST_PUT_(put##S##_nbi, void, (S) / 8, (void)0)     \
    TSHMEM_FAST_GET_(get##S, void, (S) / 8)                    \
    TSHMEM_FAST_GET_(get##S##_nbi, void, (S) / 8)
TSHMEM_RMA_SIZES(TSHMEM_FAST_SIZED_)
#undef TSHMEM_FAST_SIZED_
#undef TSHMEM_FAST_BLOCK_
#undef TSHMEM_FAST_GET_
#undef TSHMEM_FAST_PUT_

/* AMOs on long (Tern i64, as the library maps it) and uint64_t. The
 * library's domain of that type (ad_i64, ad_u64) holds every AMO op on
 * it; where it uses CPU atomics on mapped PEs (its head says so while it
 * lives, tern/atomic.h) the AMO is the locked instruction on the word
 * through this process's mapping, as Tern's inline path does, after the
 * one range check of tshmem_fast_peer_ (the domain's type and op set need
 * no check: the library made it with these). Anything else (a network or
 * AM domain, a PE not mapped, a misaligned word) calls the library. */
#if defined(__GNUC__) && defined(__LP64__)
#define TSHMEM_FAST_AMO_ 1
static inline void *tshmem_fast_word_(tern_ad_t ad, const void *sym, int pe)
{
    const tshmem_fast_peer_t *p = tshmem_fast_peer_(sym, 8, pe);
    const tern_ad_fast_t_ *f = (const tern_ad_fast_t_ *)ad;
    if (TERN_LIKELY_(p && f && f->cpu == TERN_AD_CPU_LIVE_ && !((uintptr_t)sym & 7)))
        return (char *)sym + p->delta;
    return NULL;
}

static inline long tshmem_long_fetch_add_fast_(long *dest, long value, int pe)
{
    long *w = (long *)tshmem_fast_word_(tshmem_fast_.ad_i64, dest, pe);
    if (TERN_LIKELY_(w != NULL))
        return __atomic_fetch_add(w, value, __ATOMIC_SEQ_CST);
    return shmem_long_atomic_fetch_add(dest, value, pe);
}

static inline void tshmem_long_add_fast_(long *dest, long value, int pe)
{
    long *w = (long *)tshmem_fast_word_(tshmem_fast_.ad_i64, dest, pe);
    if (TERN_LIKELY_(w != NULL)) {
        __atomic_fetch_add(w, value, __ATOMIC_SEQ_CST);
        return;
    }
    shmem_long_atomic_add(dest, value, pe);
}

static inline long tshmem_long_compare_swap_fast_(long *dest, long cond, long value,
                                                  int pe)
{
    long *w = (long *)tshmem_fast_word_(tshmem_fast_.ad_i64, dest, pe);
    if (TERN_LIKELY_(w != NULL)) {
        __atomic_compare_exchange_n(w, &cond, value, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST);
        return cond; /* the old value, equal or not */
    }
    return shmem_long_atomic_compare_swap(dest, cond, value, pe);
}

static inline long tshmem_long_fetch_fast_(const long *source, int pe)
{
    const long *w = (const long *)tshmem_fast_word_(tshmem_fast_.ad_i64, source, pe);
    if (TERN_LIKELY_(w != NULL))
        return __atomic_load_n(w, __ATOMIC_SEQ_CST);
    return shmem_long_atomic_fetch(source, pe);
}

static inline void tshmem_uint64_xor_fast_(uint64_t *dest, uint64_t value, int pe)
{
    uint64_t *w = (uint64_t *)tshmem_fast_word_(tshmem_fast_.ad_u64, dest, pe);
    if (TERN_LIKELY_(w != NULL)) {
        __atomic_fetch_xor(w, value, __ATOMIC_SEQ_CST);
        return;
    }
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
#define shmem_putmem_signal(d, s, n, sig, v, op, pe) \
    tshmem_putmem_signal_fast_(d, s, n, sig, v, op, pe)
#define shmem_float_p(d, v, pe)      tshmem_float_p_fast_(d, v, pe)
#define shmem_float_g(s, pe)         tshmem_float_g_fast_(s, pe)
#define shmem_double_p(d, v, pe)     tshmem_double_p_fast_(d, v, pe)
#define shmem_double_g(s, pe)        tshmem_double_g_fast_(s, pe)
#define shmem_longdouble_p(d, v, pe) tshmem_longdouble_p_fast_(d, v, pe)
#define shmem_longdouble_g(s, pe)    tshmem_longdouble_g_fast_(s, pe)
#define shmem_char_p(d, v, pe)       tshmem_char_p_fast_(d, v, pe)
#define shmem_char_g(s, pe)          tshmem_char_g_fast_(s, pe)
#define shmem_schar_p(d, v, pe)      tshmem_schar_p_fast_(d, v, pe)
#define shmem_schar_g(s, pe)         tshmem_schar_g_fast_(s, pe)
#define shmem_short_p(d, v, pe)      tshmem_short_p_fast_(d, v, pe)
#define shmem_short_g(s, pe)         tshmem_short_g_fast_(s, pe)
#define shmem_int_p(d, v, pe)        tshmem_int_p_fast_(d, v, pe)
#define shmem_int_g(s, pe)           tshmem_int_g_fast_(s, pe)
#define shmem_long_p(d, v, pe)       tshmem_long_p_fast_(d, v, pe)
#define shmem_long_g(s, pe)          tshmem_long_g_fast_(s, pe)
#define shmem_longlong_p(d, v, pe)   tshmem_longlong_p_fast_(d, v, pe)
#define shmem_longlong_g(s, pe)      tshmem_longlong_g_fast_(s, pe)
#define shmem_uchar_p(d, v, pe)      tshmem_uchar_p_fast_(d, v, pe)
#define shmem_uchar_g(s, pe)         tshmem_uchar_g_fast_(s, pe)
#define shmem_ushort_p(d, v, pe)     tshmem_ushort_p_fast_(d, v, pe)
#define shmem_ushort_g(s, pe)        tshmem_ushort_g_fast_(s, pe)
#define shmem_uint_p(d, v, pe)       tshmem_uint_p_fast_(d, v, pe)
#define shmem_uint_g(s, pe)          tshmem_uint_g_fast_(s, pe)
#define shmem_ulong_p(d, v, pe)      tshmem_ulong_p_fast_(d, v, pe)
#define shmem_ulong_g(s, pe)         tshmem_ulong_g_fast_(s, pe)
#define shmem_ulonglong_p(d, v, pe)  tshmem_ulonglong_p_fast_(d, v, pe)
#define shmem_ulonglong_g(s, pe)     tshmem_ulonglong_g_fast_(s, pe)
#define shmem_int8_p(d, v, pe)       tshmem_int8_p_fast_(d, v, pe)
#define shmem_int8_g(s, pe)          tshmem_int8_g_fast_(s, pe)
#define shmem_int16_p(d, v, pe)      tshmem_int16_p_fast_(d, v, pe)
#define shmem_int16_g(s, pe)         tshmem_int16_g_fast_(s, pe)
#define shmem_int32_p(d, v, pe)      tshmem_int32_p_fast_(d, v, pe)
#define shmem_int32_g(s, pe)         tshmem_int32_g_fast_(s, pe)
#define shmem_int64_p(d, v, pe)      tshmem_int64_p_fast_(d, v, pe)
#define shmem_int64_g(s, pe)         tshmem_int64_g_fast_(s, pe)
#define shmem_uint8_p(d, v, pe)      tshmem_uint8_p_fast_(d, v, pe)
#define shmem_uint8_g(s, pe)         tshmem_uint8_g_fast_(s, pe)
#define shmem_uint16_p(d, v, pe)     tshmem_uint16_p_fast_(d, v, pe)
#define shmem_uint16_g(s, pe)        tshmem_uint16_g_fast_(s, pe)
#define shmem_uint32_p(d, v, pe)     tshmem_uint32_p_fast_(d, v, pe)
#define shmem_uint32_g(s, pe)        tshmem_uint32_g_fast_(s, pe)
#define shmem_uint64_p(d, v, pe)     tshmem_uint64_p_fast_(d, v, pe)
#define shmem_uint64_g(s, pe)        tshmem_uint64_g_fast_(s, pe)
#define shmem_size_p(d, v, pe)       tshmem_size_p_fast_(d, v, pe)
#define shmem_size_g(s, pe)          tshmem_size_g_fast_(s, pe)
#define shmem_ptrdiff_p(d, v, pe)    tshmem_ptrdiff_p_fast_(d, v, pe)
#define shmem_ptrdiff_g(s, pe)       tshmem_ptrdiff_g_fast_(s, pe)
/* The typed and sized block transfers. */
#define shmem_float_put(d, s, n, pe)          tshmem_float_put_fast_(d, s, n, pe)
#define shmem_float_get(d, s, n, pe)          tshmem_float_get_fast_(d, s, n, pe)
#define shmem_float_put_nbi(d, s, n, pe)      tshmem_float_put_nbi_fast_(d, s, n, pe)
#define shmem_float_get_nbi(d, s, n, pe)      tshmem_float_get_nbi_fast_(d, s, n, pe)
#define shmem_double_put(d, s, n, pe)         tshmem_double_put_fast_(d, s, n, pe)
#define shmem_double_get(d, s, n, pe)         tshmem_double_get_fast_(d, s, n, pe)
#define shmem_double_put_nbi(d, s, n, pe)     tshmem_double_put_nbi_fast_(d, s, n, pe)
#define shmem_double_get_nbi(d, s, n, pe)     tshmem_double_get_nbi_fast_(d, s, n, pe)
#define shmem_longdouble_put(d, s, n, pe)     tshmem_longdouble_put_fast_(d, s, n, pe)
#define shmem_longdouble_get(d, s, n, pe)     tshmem_longdouble_get_fast_(d, s, n, pe)
#define shmem_longdouble_put_nbi(d, s, n, pe) tshmem_longdouble_put_nbi_fast_(d, s, n, pe)
#define shmem_longdouble_get_nbi(d, s, n, pe) tshmem_longdouble_get_nbi_fast_(d, s, n, pe)
#define shmem_char_put(d, s, n, pe)           tshmem_char_put_fast_(d, s, n, pe)
#define shmem_char_get(d, s, n, pe)           tshmem_char_get_fast_(d, s, n, pe)
#define shmem_char_put_nbi(d, s, n, pe)       tshmem_char_put_nbi_fast_(d, s, n, pe)
#define shmem_char_get_nbi(d, s, n, pe)       tshmem_char_get_nbi_fast_(d, s, n, pe)
#define shmem_schar_put(d, s, n, pe)          tshmem_schar_put_fast_(d, s, n, pe)
#define shmem_schar_get(d, s, n, pe)          tshmem_schar_get_fast_(d, s, n, pe)
#define shmem_schar_put_nbi(d, s, n, pe)      tshmem_schar_put_nbi_fast_(d, s, n, pe)
#define shmem_schar_get_nbi(d, s, n, pe)      tshmem_schar_get_nbi_fast_(d, s, n, pe)
#define shmem_short_put(d, s, n, pe)          tshmem_short_put_fast_(d, s, n, pe)
#define shmem_short_get(d, s, n, pe)          tshmem_short_get_fast_(d, s, n, pe)
#define shmem_short_put_nbi(d, s, n, pe)      tshmem_short_put_nbi_fast_(d, s, n, pe)
#define shmem_short_get_nbi(d, s, n, pe)      tshmem_short_get_nbi_fast_(d, s, n, pe)
#define shmem_int_put(d, s, n, pe)            tshmem_int_put_fast_(d, s, n, pe)
#define shmem_int_get(d, s, n, pe)            tshmem_int_get_fast_(d, s, n, pe)
#define shmem_int_put_nbi(d, s, n, pe)        tshmem_int_put_nbi_fast_(d, s, n, pe)
#define shmem_int_get_nbi(d, s, n, pe)        tshmem_int_get_nbi_fast_(d, s, n, pe)
#define shmem_long_put(d, s, n, pe)           tshmem_long_put_fast_(d, s, n, pe)
#define shmem_long_get(d, s, n, pe)           tshmem_long_get_fast_(d, s, n, pe)
#define shmem_long_put_nbi(d, s, n, pe)       tshmem_long_put_nbi_fast_(d, s, n, pe)
#define shmem_long_get_nbi(d, s, n, pe)       tshmem_long_get_nbi_fast_(d, s, n, pe)
#define shmem_longlong_put(d, s, n, pe)       tshmem_longlong_put_fast_(d, s, n, pe)
#define shmem_longlong_get(d, s, n, pe)       tshmem_longlong_get_fast_(d, s, n, pe)
#define shmem_longlong_put_nbi(d, s, n, pe)   tshmem_longlong_put_nbi_fast_(d, s, n, pe)
#define shmem_longlong_get_nbi(d, s, n, pe)   tshmem_longlong_get_nbi_fast_(d, s, n, pe)
#define shmem_uchar_put(d, s, n, pe)          tshmem_uchar_put_fast_(d, s, n, pe)
#define shmem_uchar_get(d, s, n, pe)          tshmem_uchar_get_fast_(d, s, n, pe)
#define shmem_uchar_put_nbi(d, s, n, pe)      tshmem_uchar_put_nbi_fast_(d, s, n, pe)
#define shmem_uchar_get_nbi(d, s, n, pe)      tshmem_uchar_get_nbi_fast_(d, s, n, pe)
#define shmem_ushort_put(d, s, n, pe)         tshmem_ushort_put_fast_(d, s, n, pe)
#define shmem_ushort_get(d, s, n, pe)         tshmem_ushort_get_fast_(d, s, n, pe)
#define shmem_ushort_put_nbi(d, s, n, pe)     tshmem_ushort_put_nbi_fast_(d, s, n, pe)
#define shmem_ushort_get_nbi(d, s, n, pe)     tshmem_ushort_get_nbi_fast_(d, s, n, pe)
#define shmem_uint_put(d, s, n, pe)           tshmem_uint_put_fast_(d, s, n, pe)
#define shmem_uint_get(d, s, n, pe)           tshmem_uint_get_fast_(d, s, n, pe)
#define shmem_uint_put_nbi(d, s, n, pe)       tshmem_uint_put_nbi_fast_(d, s, n, pe)
#define shmem_uint_get_nbi(d, s, n, pe)       tshmem_uint_get_nbi_fast_(d, s, n, pe)
#define shmem_ulong_put(d, s, n, pe)          tshmem_ulong_put_fast_(d, s, n, pe)
#define shmem_ulong_get(d, s, n, pe)          tshmem_ulong_get_fast_(d, s, n, pe)
#define shmem_ulong_put_nbi(d, s, n, pe)      tshmem_ulong_put_nbi_fast_(d, s, n, pe)
#define shmem_ulong_get_nbi(d, s, n, pe)      tshmem_ulong_get_nbi_fast_(d, s, n, pe)
#define shmem_ulonglong_put(d, s, n, pe)      tshmem_ulonglong_put_fast_(d, s, n, pe)
#define shmem_ulonglong_get(d, s, n, pe)      tshmem_ulonglong_get_fast_(d, s, n, pe)
#define shmem_ulonglong_put_nbi(d, s, n, pe)  tshmem_ulonglong_put_nbi_fast_(d, s, n, pe)
#define shmem_ulonglong_get_nbi(d, s, n, pe)  tshmem_ulonglong_get_nbi_fast_(d, s, n, pe)
#define shmem_int8_put(d, s, n, pe)           tshmem_int8_put_fast_(d, s, n, pe)
#define shmem_int8_get(d, s, n, pe)           tshmem_int8_get_fast_(d, s, n, pe)
#define shmem_int8_put_nbi(d, s, n, pe)       tshmem_int8_put_nbi_fast_(d, s, n, pe)
#define shmem_int8_get_nbi(d, s, n, pe)       tshmem_int8_get_nbi_fast_(d, s, n, pe)
#define shmem_int16_put(d, s, n, pe)          tshmem_int16_put_fast_(d, s, n, pe)
#define shmem_int16_get(d, s, n, pe)          tshmem_int16_get_fast_(d, s, n, pe)
#define shmem_int16_put_nbi(d, s, n, pe)      tshmem_int16_put_nbi_fast_(d, s, n, pe)
#define shmem_int16_get_nbi(d, s, n, pe)      tshmem_int16_get_nbi_fast_(d, s, n, pe)
#define shmem_int32_put(d, s, n, pe)          tshmem_int32_put_fast_(d, s, n, pe)
#define shmem_int32_get(d, s, n, pe)          tshmem_int32_get_fast_(d, s, n, pe)
#define shmem_int32_put_nbi(d, s, n, pe)      tshmem_int32_put_nbi_fast_(d, s, n, pe)
#define shmem_int32_get_nbi(d, s, n, pe)      tshmem_int32_get_nbi_fast_(d, s, n, pe)
#define shmem_int64_put(d, s, n, pe)          tshmem_int64_put_fast_(d, s, n, pe)
#define shmem_int64_get(d, s, n, pe)          tshmem_int64_get_fast_(d, s, n, pe)
#define shmem_int64_put_nbi(d, s, n, pe)      tshmem_int64_put_nbi_fast_(d, s, n, pe)
#define shmem_int64_get_nbi(d, s, n, pe)      tshmem_int64_get_nbi_fast_(d, s, n, pe)
#define shmem_uint8_put(d, s, n, pe)          tshmem_uint8_put_fast_(d, s, n, pe)
#define shmem_uint8_get(d, s, n, pe)          tshmem_uint8_get_fast_(d, s, n, pe)
#define shmem_uint8_put_nbi(d, s, n, pe)      tshmem_uint8_put_nbi_fast_(d, s, n, pe)
#define shmem_uint8_get_nbi(d, s, n, pe)      tshmem_uint8_get_nbi_fast_(d, s, n, pe)
#define shmem_uint16_put(d, s, n, pe)         tshmem_uint16_put_fast_(d, s, n, pe)
#define shmem_uint16_get(d, s, n, pe)         tshmem_uint16_get_fast_(d, s, n, pe)
#define shmem_uint16_put_nbi(d, s, n, pe)     tshmem_uint16_put_nbi_fast_(d, s, n, pe)
#define shmem_uint16_get_nbi(d, s, n, pe)     tshmem_uint16_get_nbi_fast_(d, s, n, pe)
#define shmem_uint32_put(d, s, n, pe)         tshmem_uint32_put_fast_(d, s, n, pe)
#define shmem_uint32_get(d, s, n, pe)         tshmem_uint32_get_fast_(d, s, n, pe)
#define shmem_uint32_put_nbi(d, s, n, pe)     tshmem_uint32_put_nbi_fast_(d, s, n, pe)
#define shmem_uint32_get_nbi(d, s, n, pe)     tshmem_uint32_get_nbi_fast_(d, s, n, pe)
#define shmem_uint64_put(d, s, n, pe)         tshmem_uint64_put_fast_(d, s, n, pe)
#define shmem_uint64_get(d, s, n, pe)         tshmem_uint64_get_fast_(d, s, n, pe)
#define shmem_uint64_put_nbi(d, s, n, pe)     tshmem_uint64_put_nbi_fast_(d, s, n, pe)
#define shmem_uint64_get_nbi(d, s, n, pe)     tshmem_uint64_get_nbi_fast_(d, s, n, pe)
#define shmem_size_put(d, s, n, pe)           tshmem_size_put_fast_(d, s, n, pe)
#define shmem_size_get(d, s, n, pe)           tshmem_size_get_fast_(d, s, n, pe)
#define shmem_size_put_nbi(d, s, n, pe)       tshmem_size_put_nbi_fast_(d, s, n, pe)
#define shmem_size_get_nbi(d, s, n, pe)       tshmem_size_get_nbi_fast_(d, s, n, pe)
#define shmem_ptrdiff_put(d, s, n, pe)        tshmem_ptrdiff_put_fast_(d, s, n, pe)
#define shmem_ptrdiff_get(d, s, n, pe)        tshmem_ptrdiff_get_fast_(d, s, n, pe)
#define shmem_ptrdiff_put_nbi(d, s, n, pe)    tshmem_ptrdiff_put_nbi_fast_(d, s, n, pe)
#define shmem_ptrdiff_get_nbi(d, s, n, pe)    tshmem_ptrdiff_get_nbi_fast_(d, s, n, pe)
#define shmem_put8(d, s, n, pe)               tshmem_put8_fast_(d, s, n, pe)
#define shmem_get8(d, s, n, pe)               tshmem_get8_fast_(d, s, n, pe)
#define shmem_put8_nbi(d, s, n, pe)           tshmem_put8_nbi_fast_(d, s, n, pe)
#define shmem_get8_nbi(d, s, n, pe)           tshmem_get8_nbi_fast_(d, s, n, pe)
#define shmem_put16(d, s, n, pe)              tshmem_put16_fast_(d, s, n, pe)
#define shmem_get16(d, s, n, pe)              tshmem_get16_fast_(d, s, n, pe)
#define shmem_put16_nbi(d, s, n, pe)          tshmem_put16_nbi_fast_(d, s, n, pe)
#define shmem_get16_nbi(d, s, n, pe)          tshmem_get16_nbi_fast_(d, s, n, pe)
#define shmem_put32(d, s, n, pe)              tshmem_put32_fast_(d, s, n, pe)
#define shmem_get32(d, s, n, pe)              tshmem_get32_fast_(d, s, n, pe)
#define shmem_put32_nbi(d, s, n, pe)          tshmem_put32_nbi_fast_(d, s, n, pe)
#define shmem_get32_nbi(d, s, n, pe)          tshmem_get32_nbi_fast_(d, s, n, pe)
#define shmem_put64(d, s, n, pe)              tshmem_put64_fast_(d, s, n, pe)
#define shmem_get64(d, s, n, pe)              tshmem_get64_fast_(d, s, n, pe)
#define shmem_put64_nbi(d, s, n, pe)          tshmem_put64_nbi_fast_(d, s, n, pe)
#define shmem_get64_nbi(d, s, n, pe)          tshmem_get64_nbi_fast_(d, s, n, pe)
#define shmem_put128(d, s, n, pe)             tshmem_put128_fast_(d, s, n, pe)
#define shmem_get128(d, s, n, pe)             tshmem_get128_fast_(d, s, n, pe)
#define shmem_put128_nbi(d, s, n, pe)         tshmem_put128_nbi_fast_(d, s, n, pe)
#define shmem_get128_nbi(d, s, n, pe)         tshmem_get128_nbi_fast_(d, s, n, pe)
#ifdef TSHMEM_FAST_AMO_
#define shmem_long_atomic_fetch_add(d, v, pe) tshmem_long_fetch_add_fast_(d, v, pe)
#define shmem_long_atomic_add(d, v, pe)       tshmem_long_add_fast_(d, v, pe)
#define shmem_long_atomic_compare_swap(d, c, v, pe) \
    tshmem_long_compare_swap_fast_(d, c, v, pe)
#define shmem_long_atomic_fetch(s, pe)    tshmem_long_fetch_fast_(s, pe)
#define shmem_uint64_atomic_xor(d, v, pe) tshmem_uint64_xor_fast_(d, v, pe)
#endif

#endif
