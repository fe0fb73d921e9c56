/* Signaling operations (OpenSHMEM 1.6 "Signaling Operations"): put with
 * signal (blocking and nbi, every standard RMA type, the sized forms and
 * mem, with and without a context), signal_set and signal_add,
 * signal_fetch and signal_wait_until, on Tern's put-with-signal.
 *
 * Every remote update of a signal word goes through tern_ctx_put_signal,
 * signal_set and signal_add as a put of zero bytes: Tern then uses one
 * mechanism for all updates of signal words (CPU atomics on one node, its
 * internal u64 {set, add} domain across nodes), so concurrent adds from
 * any mix of PEs lose nothing. Reads at the owner are 8-byte atomic
 * loads, as Tern's own waits are. */
#include "tshmem.h"

_Static_assert(SHMEM_SIGNAL_SET == TERN_SIGNAL_SET && SHMEM_SIGNAL_ADD == TERN_SIGNAL_ADD,
               "shmem.h's signal operators are Tern's");

/* A failed put-with-signal: names what was wrong, then ends the job. */
TSHMEM_NOINLINE TSHMEM_NORETURN static void signal_fail(const char *call, int rc, int pe,
                                                        const void *dest,
                                                        const uint64_t *sig, int sig_op,
                                                        size_t n)
{
    uintptr_t s = (uintptr_t)sig;
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        tshmem_fatal(
            "%s: sig_op %d is not SHMEM_SIGNAL_SET (%d) or SHMEM_SIGNAL_ADD (%d)", call,
            sig_op, SHMEM_SIGNAL_SET, SHMEM_SIGNAL_ADD);
    if (!tshmem_is_sym(sig, sizeof(*sig)))
        tshmem_fatal("%s: the signal address %p is not a symmetric address: it is "
                     "outside %s of this PE",
                     call, (const void *)sig, tshmem_sym_ranges());
    if (s & (sizeof(*sig) - 1))
        tshmem_fatal("%s: the signal address %p is not 8-byte aligned", call,
                     (const void *)sig);
    tshmem_rma_fail(call, rc, pe, dest, n);
}

/* Put of n bytes to dest on pe, then the signal update; nbi: completed by
 * the context's quiet. Cost on a mapped PE: the copy, a release fence and
 * one atomic store or add (Tern's put-with-signal). */
static inline void put_signal_(shmem_ctx_t ctx, void *dest, const void *src,
                               size_t nelems, size_t es, uint64_t *sig, uint64_t signal,
                               int sig_op, int pe, int nbi, const char *call)
{
    tern_ctx_t t = tshmem_tctx(ctx, call);
    size_t n = tshmem_rma_args(call, pe, nelems, es);
    if (TSHMEM_UNLIKELY(tshmem_g.debug)) {
        tshmem_rma_debug_check(call, pe, dest, src, n);
        tshmem_rma_debug_check(call, pe, sig, &signal, sizeof(*sig));
    }
    uint64_t *rs = tshmem_remote(pe, sig);
    void *rd = n ? tshmem_remote(pe, dest) : rs; /* Tern checks even an empty range */
    if (!n)
        src = &signal; /* an empty copy still wants a valid source */
    int rc = nbi ? tern_ctx_put_signal_nbi(t, pe, rd, src, n, rs, signal, sig_op, 0)
                 : tern_ctx_put_signal(t, pe, rd, src, n, rs, signal, sig_op, 0);
    if (TSHMEM_UNLIKELY(rc != TERN_OK))
        signal_fail(call, rc, pe, dest, sig, sig_op, n);
}

/* ---- put with signal ------------------------------------------------------------ */

#define DFLT SHMEM_CTX_DEFAULT

#define DEF_PUT_SIGNAL_(T, N)                                                            \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source,           \
                                    size_t nelems, uint64_t *sig_addr, uint64_t signal,  \
                                    int sig_op, int pe)                                  \
    {                                                                                    \
        put_signal_(ctx, dest, source, nelems, sizeof(T), sig_addr, signal, sig_op, pe,  \
                    0, __func__);                                                        \
    }                                                                                    \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems,                 \
                                uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
    {                                                                                    \
        put_signal_(DFLT, dest, source, nelems, sizeof(T), sig_addr, signal, sig_op, pe, \
                    0, __func__);                                                        \
    }                                                                                    \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source,       \
                                        size_t nelems, uint64_t *sig_addr,               \
                                        uint64_t signal, int sig_op, int pe)             \
    {                                                                                    \
        put_signal_(ctx, dest, source, nelems, sizeof(T), sig_addr, signal, sig_op, pe,  \
                    1, __func__);                                                        \
    }                                                                                    \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,             \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op,     \
                                    int pe)                                              \
    {                                                                                    \
        put_signal_(DFLT, dest, source, nelems, sizeof(T), sig_addr, signal, sig_op, pe, \
                    1, __func__);                                                        \
    }
TSHMEM_RMA_TYPES(DEF_PUT_SIGNAL_)

#define DEF_PUT_SIGNAL_SIZED_(S)                                                        \
    void shmem_ctx_put##S##_signal(shmem_ctx_t ctx, void *dest, const void *source,     \
                                   size_t nelems, uint64_t *sig_addr, uint64_t signal,  \
                                   int sig_op, int pe)                                  \
    {                                                                                   \
        put_signal_(ctx, dest, source, nelems, S / 8, sig_addr, signal, sig_op, pe, 0,  \
                    __func__);                                                          \
    }                                                                                   \
    void shmem_put##S##_signal(void *dest, const void *source, size_t nelems,           \
                               uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
    {                                                                                   \
        put_signal_(DFLT, dest, source, nelems, S / 8, sig_addr, signal, sig_op, pe, 0, \
                    __func__);                                                          \
    }                                                                                   \
    void shmem_ctx_put##S##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, \
                                       size_t nelems, uint64_t *sig_addr,               \
                                       uint64_t signal, int sig_op, int pe)             \
    {                                                                                   \
        put_signal_(ctx, dest, source, nelems, S / 8, sig_addr, signal, sig_op, pe, 1,  \
                    __func__);                                                          \
    }                                                                                   \
    void shmem_put##S##_signal_nbi(void *dest, const void *source, size_t nelems,       \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op,     \
                                   int pe)                                              \
    {                                                                                   \
        put_signal_(DFLT, dest, source, nelems, S / 8, sig_addr, signal, sig_op, pe, 1, \
                    __func__);                                                          \
    }
TSHMEM_RMA_SIZES(DEF_PUT_SIGNAL_SIZED_)

void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source,
                             size_t nelems, uint64_t *sig_addr, uint64_t signal,
                             int sig_op, int pe)
{
    put_signal_(ctx, dest, source, nelems, 1, sig_addr, signal, sig_op, pe, 0, __func__);
}
void shmem_putmem_signal(void *dest, const void *source, size_t nelems,
                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    put_signal_(DFLT, dest, source, nelems, 1, sig_addr, signal, sig_op, pe, 0, __func__);
}
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,
                                 size_t nelems, uint64_t *sig_addr, uint64_t signal,
                                 int sig_op, int pe)
{
    put_signal_(ctx, dest, source, nelems, 1, sig_addr, signal, sig_op, pe, 1, __func__);
}
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    put_signal_(DFLT, dest, source, nelems, 1, sig_addr, signal, sig_op, pe, 1, __func__);
}

/* ---- signal_set, signal_add (1.6), signal_fetch, signal_wait_until --------------- */

/* A put of no data with the signal: completed by the context's quiet, like
 * the specification's non-blocking signal update. */
void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    put_signal_(ctx, NULL, NULL, 0, 1, sig_addr, signal, SHMEM_SIGNAL_SET, pe, 1,
                __func__);
}
void shmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)
{
    put_signal_(DFLT, NULL, NULL, 0, 1, sig_addr, signal, SHMEM_SIGNAL_SET, pe, 1,
                __func__);
}
void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    put_signal_(ctx, NULL, NULL, 0, 1, sig_addr, signal, SHMEM_SIGNAL_ADD, pe, 1,
                __func__);
}
void shmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)
{
    put_signal_(DFLT, NULL, NULL, 0, 1, sig_addr, signal, SHMEM_SIGNAL_ADD, pe, 1,
                __func__);
}

/* Local signal words only, hence no context. */
static void local_sig_check(const char *call, const uint64_t *sig)
{
    uintptr_t s = (uintptr_t)sig;
    if (TSHMEM_UNLIKELY(!sig || (s & 7)))
        tshmem_fatal("%s: the signal address %p is NULL or not 8-byte aligned", call,
                     (const void *)sig);
    if (TSHMEM_UNLIKELY(tshmem_g.debug) && !tshmem_is_sym(sig, sizeof(*sig)))
        tshmem_debug_note("%s: %p is not symmetric (neither in the symmetric heap nor "
                          "a global variable): no PE can signal it",
                          call, (const void *)sig);
}

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    local_sig_check(__func__, sig_addr);
    /* Programs spin on it: now and then it serves the PEs whose signals
     * reach this one by messages (tshmem_spin_poll). */
    tshmem_spin_poll();
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}

static inline int sig_cmp(uint64_t v, int cmp, uint64_t w)
{
    switch (cmp) {
    case SHMEM_CMP_EQ: return v == w;
    case SHMEM_CMP_NE: return v != w;
    case SHMEM_CMP_GT: return v > w;
    case SHMEM_CMP_GE: return v >= w;
    case SHMEM_CMP_LT: return v < w;
    default: return v <= w;
    }
}

/* Returns the value that satisfied the comparison: Tern's wait (which
 * polls, drives progress and yields), then a load that is checked again,
 * since another update may have come in between. */
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    local_sig_check(__func__, sig_addr);
    if (TSHMEM_UNLIKELY((unsigned)cmp > SHMEM_CMP_LE))
        tshmem_fatal("shmem_signal_wait_until: comparison %d is not one of SHMEM_CMP_EQ "
                     "(0) .. SHMEM_CMP_LE (5)",
                     cmp);
    for (;;) {
        int rc = tern_wait_until_u64(sig_addr, cmp, cmp_value);
        if (TSHMEM_UNLIKELY(rc != TERN_OK))
            tshmem_fatal("shmem_signal_wait_until: %s", tern_strerror(rc));
        uint64_t v = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
        if (sig_cmp(v, cmp, cmp_value))
            return v;
    }
}
