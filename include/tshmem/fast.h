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

/* After an inline put or get to a mapped PE, which is a copy and polls
 * nothing: in a job that spans nodes (one_node 0) every 1024th such call
 * of a thread (with the library's AMOs, puts and gets: one counter, the
 * library's tshmem_spin_poll) polls Tern, so that a PE spinning on puts
 * and gets of its own heap or a node peer's (a lock made of puts and
 * gets) still serves the PEs that reach it by messages only. Cost on one
 * node: a load of the word beside the peer table's pointer and a
 * predictable branch; across nodes a thread-local increment too. */
#if defined(__GNUC__)
extern TSHMEM_API __thread
    __attribute__((tls_model("initial-exec"))) unsigned tshmem_spin_count_;
static inline void tshmem_fast_poll_(void)
{
    if (__builtin_expect(!tshmem_fast_.one_node, 0) &&
        __builtin_expect(++tshmem_spin_count_ % 1024u == 0, 0))
        (void)tern_poll();
}
#else
TSHMEM_API void tshmem_fast_spin_(void); /* the same, in the library */
static inline void tshmem_fast_poll_(void)
{
    if (!tshmem_fast_.one_node)
        tshmem_fast_spin_();
}
#endif

/* Cost to a mapped PE: the check of tshmem_fast_peer_ and the copy, as
 * tern_put's (26 instructions per 8-byte put, scripts/shmem-cost.sh). */
static inline void tshmem_putmem_fast_(void *dest, const void *source, size_t n, int pe)
{
    const tshmem_fast_peer_t *p = tshmem_fast_peer_(dest, n, pe);
    if (TERN_LIKELY_(p != NULL)) {
        tshmem_fast_copy_(p, pe, (char *)dest + p->delta, source, n);
        TERN_PUT_FENCE_();
        tshmem_fast_poll_();
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
        tshmem_fast_poll_();
        return;
    }
    shmem_putmem_nbi(dest, source, n, pe);
}

static inline void tshmem_getmem_fast_(void *dest, const void *source, size_t n, int pe)
{
    const tshmem_fast_peer_t *p = tshmem_fast_peer_(source, n, pe);
    if (TERN_LIKELY_(p != NULL)) {
        tshmem_fast_copy_(p, pe, dest, (const char *)source + p->delta, n);
        tshmem_fast_poll_();
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
        tshmem_fast_poll_();
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
            tshmem_fast_poll_();                                                \
            return;                                                             \
        }                                                                       \
        shmem_##N##_p(dest, value, pe);                                         \
    }                                                                           \
    static inline T tshmem_##N##_g_fast_(const T *source, int pe)               \
    {                                                                           \
        const tshmem_fast_peer_t *p = tshmem_fast_peer_(source, sizeof(T), pe); \
        if (TERN_LIKELY_(p != NULL)) {                                          \
            T v_ = *(const T *)(const void *)((const char *)source + p->delta); \
            tshmem_fast_poll_();                                                \
            return v_;                                                          \
        }                                                                       \
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
            tshmem_fast_poll_();                                                   \
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
            tshmem_fast_poll_();                                                   \
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

/* The deprecated active-set collectives when the set is every PE
 * (PE_start 0, logPE_stride 0, PE_size the number of PEs), the form
 * programs call: the library runs them on the world team with Tern's
 * collectives, pSync and pWrk untouched (src/shmem/coll_aset.c), so inline
 * they are that call of Tern's, as the program's own tern_broadcast would
 * be, without the call into libtshmem and its checks. Any other set, a
 * root or count that the library must report (it names them), and every
 * call while the inline paths are off (npes 0: before init, after
 * finalize, under SHMEM_DEBUG) call the library function of the same
 * name. A status other than TERN_OK from Tern (which names the argument,
 * e.g. a dest outside the symmetric memory) ends the job as the library's
 * path does. */
static inline int tshmem_aset_world_(int PE_start, int logPE_stride, int PE_size)
{
    return (PE_start | logPE_stride) == 0 && PE_size > 0 &&
           (uint32_t)PE_size == tshmem_fast_.npes;
}

/* *n = nelems * es; 0 when that overflows (the library reports it). */
static inline int tshmem_aset_bytes_(size_t nelems, size_t es, size_t *n)
{
    *n = nelems * es;
    return nelems <= SIZE_MAX / es;
}

#define TSHMEM_FAST_ASET_GATHER_(B, F, TF)                                               \
    static inline void tshmem_##F##B##_fast_(void *dest, const void *source,             \
                                             size_t nelems, int PE_start,                \
                                             int logPE_stride, int PE_size, long *pSync) \
    {                                                                                    \
        size_t n;                                                                        \
        if (TERN_LIKELY_(tshmem_aset_world_(PE_start, logPE_stride, PE_size) &&          \
                         tshmem_aset_bytes_(nelems, (B) / 8, &n))) {                     \
            tern_status_t rc = TF(TERN_TEAM_WORLD, dest, source, n);                     \
            if (TERN_LIKELY_(rc == TERN_OK))                                             \
                return;                                                                  \
            tshmem_aset_fail_("shmem_" #F, "shmem_" #F #B, rc);                          \
        }                                                                                \
        shmem_##F##B(dest, source, nelems, PE_start, logPE_stride, PE_size, pSync);      \
    }
#define TSHMEM_FAST_ASET_SIZED_(B)                                                    \
    static inline void tshmem_broadcast##B##_fast_(                                   \
        void *dest, const void *source, size_t nelems, int PE_root, int PE_start,     \
        int logPE_stride, int PE_size, long *pSync)                                   \
    {                                                                                 \
        size_t n;                                                                     \
        if (TERN_LIKELY_(tshmem_aset_world_(PE_start, logPE_stride, PE_size) &&       \
                         (unsigned)PE_root < (unsigned)PE_size &&                     \
                         tshmem_aset_bytes_(nelems, (B) / 8, &n))) {                  \
            tern_status_t rc = tern_broadcast_flags(TERN_TEAM_WORLD, dest, source, n, \
                                                    PE_root, TERN_BCAST_KEEP_ROOT);   \
            if (TERN_LIKELY_(rc == TERN_OK))                                          \
                return;                                                               \
            tshmem_aset_fail_("shmem_broadcast", "shmem_broadcast" #B, rc);           \
        }                                                                             \
        shmem_broadcast##B(dest, source, nelems, PE_root, PE_start, logPE_stride,     \
                           PE_size, pSync);                                           \
    }                                                                                 \
    TSHMEM_FAST_ASET_GATHER_(B, collect, tern_collect)                                \
    TSHMEM_FAST_ASET_GATHER_(B, fcollect, tern_fcollect)                              \
    TSHMEM_FAST_ASET_GATHER_(B, alltoall, tern_alltoall)
TSHMEM_FAST_ASET_SIZED_(32)
TSHMEM_FAST_ASET_SIZED_(64)
#undef TSHMEM_FAST_ASET_SIZED_
#undef TSHMEM_FAST_ASET_GATHER_

/* shmem_sync(PE_start, logPE_stride, PE_size, pSync) over every PE: the
 * world team's barrier, as shmem_team_sync. */
static inline void tshmem_sync_aset_fast_(int PE_start, int logPE_stride, int PE_size,
                                          long *pSync)
{
    if (TERN_LIKELY_(tshmem_aset_world_(PE_start, logPE_stride, PE_size))) {
        tern_status_t rc = tern_team_barrier(TERN_TEAM_WORLD);
        if (TERN_LIKELY_(rc == TERN_OK))
            return;
        tshmem_aset_fail_("shmem_team_sync", "shmem_sync", rc);
    }
    tshmem_sync_aset_(PE_start, logPE_stride, PE_size, pSync);
}

/* shmem_TYPE_OP_to_all over every PE: Tern's allreduce on the world team,
 * as the team form shmem_TYPE_OP_reduce (the complex types go to the
 * library). TT: Tern's element type of T. A negative nreduce goes to the
 * library, which names it. */
#define TSHMEM_FAST_TOALL_(T, N, OP, TT, TOP)                                            \
    static inline void tshmem_##N##_##OP##_to_all_fast_(                                 \
        T *dest, const T *source, int nreduce, int PE_start, int logPE_stride,           \
        int PE_size, T *pWrk, long *pSync)                                               \
    {                                                                                    \
        if (TERN_LIKELY_(tshmem_aset_world_(PE_start, logPE_stride, PE_size) &&          \
                         nreduce >= 0)) {                                                \
            tern_status_t rc =                                                           \
                tern_allreduce(TERN_TEAM_WORLD, dest, source, (size_t)nreduce, TT, TOP); \
            if (TERN_LIKELY_(rc == TERN_OK))                                             \
                return;                                                                  \
            tshmem_aset_fail_("shmem_" #N "_" #OP "_reduce",                             \
                              "shmem_" #N "_" #OP "_to_all", rc);                        \
        }                                                                                \
        shmem_##N##_##OP##_to_all(dest, source, nreduce, PE_start, logPE_stride,         \
                                  PE_size, pWrk, pSync);                                 \
    }
/* Tern's type of a signed integer type, by its size (as the library's). */
#define TSHMEM_FAST_INT_(T)             \
    (sizeof(T) == 2   ? TERN_TYPE_INT16 \
     : sizeof(T) == 4 ? TERN_TYPE_INT32 \
                      : TERN_TYPE_INT64)
#define TSHMEM_FAST_TOALL_ARITH_(T, N, TT)          \
    TSHMEM_FAST_TOALL_(T, N, max, TT, TERN_RED_MAX) \
    TSHMEM_FAST_TOALL_(T, N, min, TT, TERN_RED_MIN) \
    TSHMEM_FAST_TOALL_(T, N, sum, TT, TERN_RED_SUM) \
    TSHMEM_FAST_TOALL_(T, N, prod, TT, TERN_RED_PROD)
#define TSHMEM_FAST_TOALL_INT_(T, N)                                 \
    TSHMEM_FAST_TOALL_ARITH_(T, N, TSHMEM_FAST_INT_(T))              \
    TSHMEM_FAST_TOALL_(T, N, and, TSHMEM_FAST_INT_(T), TERN_RED_AND) \
    TSHMEM_FAST_TOALL_(T, N, or, TSHMEM_FAST_INT_(T), TERN_RED_OR)   \
    TSHMEM_FAST_TOALL_(T, N, xor, TSHMEM_FAST_INT_(T), TERN_RED_XOR)
TSHMEM_FAST_TOALL_INT_(short, short)
TSHMEM_FAST_TOALL_INT_(int, int)
TSHMEM_FAST_TOALL_INT_(long, long)
TSHMEM_FAST_TOALL_INT_(long long, longlong)
TSHMEM_FAST_TOALL_ARITH_(float, float, TERN_TYPE_FLOAT)
TSHMEM_FAST_TOALL_ARITH_(double, double, TERN_TYPE_DOUBLE)
TSHMEM_FAST_TOALL_ARITH_(long double, longdouble, TERN_TYPE_LONGDOUBLE)
#undef TSHMEM_FAST_TOALL_INT_
#undef TSHMEM_FAST_TOALL_ARITH_
#undef TSHMEM_FAST_INT_
#undef TSHMEM_FAST_TOALL_

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

/* The deprecated active-set collectives (inline over every PE). */
#define shmem_broadcast32(d, s, n, r, ps, ls, sz, sy) \
    tshmem_broadcast32_fast_(d, s, n, r, ps, ls, sz, sy)
#define shmem_collect32(d, s, n, ps, ls, sz, sy) \
    tshmem_collect32_fast_(d, s, n, ps, ls, sz, sy)
#define shmem_fcollect32(d, s, n, ps, ls, sz, sy) \
    tshmem_fcollect32_fast_(d, s, n, ps, ls, sz, sy)
#define shmem_alltoall32(d, s, n, ps, ls, sz, sy) \
    tshmem_alltoall32_fast_(d, s, n, ps, ls, sz, sy)
#define shmem_broadcast64(d, s, n, r, ps, ls, sz, sy) \
    tshmem_broadcast64_fast_(d, s, n, r, ps, ls, sz, sy)
#define shmem_collect64(d, s, n, ps, ls, sz, sy) \
    tshmem_collect64_fast_(d, s, n, ps, ls, sz, sy)
#define shmem_fcollect64(d, s, n, ps, ls, sz, sy) \
    tshmem_fcollect64_fast_(d, s, n, ps, ls, sz, sy)
#define shmem_alltoall64(d, s, n, ps, ls, sz, sy) \
    tshmem_alltoall64_fast_(d, s, n, ps, ls, sz, sy)
#define tshmem_sync_aset_(ps, ls, sz, sy) tshmem_sync_aset_fast_(ps, ls, sz, sy)
#define shmem_short_max_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_short_max_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_short_min_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_short_min_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_short_sum_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_short_sum_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_short_prod_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_short_prod_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_short_and_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_short_and_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_short_or_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_short_or_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_short_xor_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_short_xor_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_int_max_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_int_max_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_int_min_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_int_min_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_int_sum_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_int_sum_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_int_prod_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_int_prod_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_int_and_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_int_and_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_int_or_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_int_or_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_int_xor_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_int_xor_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_long_max_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_long_max_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_long_min_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_long_min_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_long_sum_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_long_sum_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_long_prod_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_long_prod_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_long_and_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_long_and_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_long_or_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_long_or_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_long_xor_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_long_xor_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_longlong_max_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_longlong_max_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_longlong_min_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_longlong_min_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_longlong_sum_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_longlong_sum_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_longlong_prod_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_longlong_prod_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_longlong_and_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_longlong_and_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_longlong_or_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_longlong_or_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_longlong_xor_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_longlong_xor_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_float_max_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_float_max_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_float_min_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_float_min_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_float_sum_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_float_sum_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_float_prod_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_float_prod_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_double_max_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_double_max_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_double_min_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_double_min_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_double_sum_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_double_sum_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_double_prod_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_double_prod_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_longdouble_max_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_longdouble_max_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_longdouble_min_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_longdouble_min_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_longdouble_sum_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_longdouble_sum_to_all_fast_(d, s, n, ps, ls, sz, w, sy)
#define shmem_longdouble_prod_to_all(d, s, n, ps, ls, sz, w, sy) \
    tshmem_longdouble_prod_to_all_fast_(d, s, n, ps, ls, sz, w, sy)

#endif
