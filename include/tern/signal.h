/* Put with signal, and waiting on several signal words (included by
 * tern.h). A put with signal copies n bytes to rank and then updates a
 * 64-bit signal word on the same rank (set or add), in that order: a rank
 * that sees the signal change sees the data. The target waits with
 * tern_wait_until_u64 or the vector forms below. Signal words are updated
 * atomically with respect to each other (two ranks adding to one word
 * lose nothing), by the same mechanism an atomic domain for u64 {set,
 * add} would use (docs/design/atomics.md). */
#ifndef TERN_SIGNAL_H
#define TERN_SIGNAL_H

#ifndef TERN_H
#error "include <tern.h>, not <tern/signal.h>"
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum { TERN_SIGNAL_SET = 0, TERN_SIGNAL_ADD = 1 };

/* Behind the calls below (the library's path: checks, network peers). */
TERN_API tern_status_t tern_put_signal_(tern_ctx_t ctx, int rank, void *dst,
                                        const void *src, size_t n, uint64_t *sig,
                                        uint64_t value, int sig_op, tern_flags_t flags,
                                        int nbi);

#if defined(__GNUC__)
/* 1 when a put with signal runs inline: a job on one node, a known
 * sig_op and flags, and the data and an aligned signal word both mapped
 * here (*dd, *ds their deltas). */
static inline int tern_put_signal_fast_(int rank, void *dst, size_t n, uint64_t *sig,
                                        int sig_op, tern_flags_t flags, intptr_t *dd,
                                        intptr_t *ds)
{
    return TERN_LIKELY_(tern_fast_.signal_cpu && (unsigned)sig_op <= TERN_SIGNAL_ADD &&
                        !((uintptr_t)sig & 7) && tern_fast_word_ok_(rank, sig, ds)) &&
           TERN_FAST_(rank, dst, n, flags, dd);
}

/* The inline form: the copy, then the signal with release order. */
static inline void tern_put_signal_run_(int rank, void *dst, const void *src, size_t n,
                                        uint64_t *sig, uint64_t value, int sig_op,
                                        intptr_t dd, intptr_t ds)
{
    if (n) /* src may be NULL with n == 0 (a signal alone) */
        tern_fast_copy_(rank, (char *)dst + dd, src, n);
    uint64_t *w = (uint64_t *)((char *)sig + ds);
    if (sig_op == TERN_SIGNAL_SET)
        __atomic_store_n(w, value, __ATOMIC_RELEASE);
    else
        __atomic_fetch_add(w, value, __ATOMIC_RELEASE);
}
#endif

/* Both forms of put with signal: inline on a mapped peer, else the
 * library (nbi: 1 for the implicit form). */
static inline tern_status_t tern_put_signal_any_(tern_ctx_t ctx, int rank, void *dst,
                                                 const void *src, size_t n, uint64_t *sig,
                                                 uint64_t value, int sig_op,
                                                 tern_flags_t flags, int nbi)
{
#if defined(__GNUC__)
    intptr_t dd, ds;
    /* src NULL with n bytes goes to the library, which refuses it (one
     * test and branch; folded away where n is a constant 0) */
    if (TERN_LIKELY_(src != NULL || n == 0) &&
        tern_put_signal_fast_(rank, dst, n, sig, sig_op, flags, &dd, &ds)) {
        tern_put_signal_run_(rank, dst, src, n, sig, value, sig_op, dd, ds);
        return TERN_OK;
    }
#endif
    return tern_put_signal_(ctx, rank, dst, src, n, sig, value, sig_op, flags, nbi);
}
/* Blocking: returns when the data and the signal are visible at rank
 * (on a context whose ordering mode lets a blocking non-fetching atomic
 * return early, once both are on their way in order: docs/design/
 * ordering.md).
 * sig is an 8-byte aligned word in rank's segment (as rank sees it),
 * sig_op TERN_SIGNAL_SET (*sig = value) or TERN_SIGNAL_ADD (*sig += value).
 * Returns TERN_OK, the statuses of tern_ctx_put, and TERN_ERR_INVALID (bad
 * sig_op, misaligned sig, src NULL with n > 0), TERN_ERR_RANGE (sig outside rank's segment),
 * TERN_ERR_UNSUPPORTED (the job spans nodes, the network provider has no
 * u64 atomic set and add, and TERN_OFI_ATOMICS=net refuses the
 * active-message path). Inside an active-message handler, blocking or
 * nbi, it must complete in the call: TERN_ERR_INVALID where it would wait
 * (rank not mapped here, or, in a job on several nodes, signal words on
 * the provider's atomics). Cost on a mapped peer of a job on one node,
 * inlined: two bounds checks, the copy and one release store or add
 * (scripts/amo-cost.sh). src NULL with n > 0 is refused on every path
 * (it crashed inline); as with tern_ctx_put, ctx is not validated on the
 * inline path. */
static inline tern_status_t tern_ctx_put_signal(tern_ctx_t ctx, int rank, void *dst,
                                                const void *src, size_t n, uint64_t *sig,
                                                uint64_t value, int sig_op,
                                                tern_flags_t flags)
{
    return tern_put_signal_any_(ctx, rank, dst, src, n, sig, value, sig_op, flags, 0);
}
/* Implicit: src may be reused when it returns; completed (data and signal
 * visible) by the context's nbi sync, quiet or fence. Across nodes, data
 * of up to TERN_SIGNAL_MSG_MAX goes with its signal in one active message
 * where signal words take the active-message path (returns once sent);
 * otherwise the data's remote completion is awaited inside the call
 * before the signal is issued. */
static inline tern_status_t tern_ctx_put_signal_nbi(tern_ctx_t ctx, int rank, void *dst,
                                                    const void *src, size_t n,
                                                    uint64_t *sig, uint64_t value,
                                                    int sig_op, tern_flags_t flags)
{
    return tern_put_signal_any_(ctx, rank, dst, src, n, sig, value, sig_op, flags, 1);
}

static inline tern_status_t tern_put_signal(int rank, void *dst, const void *src,
                                            size_t n, uint64_t *sig, uint64_t value,
                                            int sig_op, tern_flags_t flags)
{
    return tern_ctx_put_signal(TERN_CTX_DEFAULT, rank, dst, src, n, sig, value, sig_op,
                               flags);
}
static inline tern_status_t tern_put_signal_nbi(int rank, void *dst, const void *src,
                                                size_t n, uint64_t *sig, uint64_t value,
                                                int sig_op, tern_flags_t flags)
{
    return tern_ctx_put_signal_nbi(TERN_CTX_DEFAULT, rank, dst, src, n, sig, value,
                                   sig_op, flags);
}

/* Wait on the n words at addrs (in this rank's segment) against cmp and
 * value (TERN_CMP_*), skipping those whose status[i] is non-zero (status
 * may be NULL). all: until every word compares true; any: until one does,
 * its index in *index; some: until at least one does, the indexes of all
 * that do in indices[0..*count). Waiting polls and yields as
 * tern_wait_until_u64 does. TERN_OK, or TERN_ERR_INVALID (NULL or
 * misaligned addrs, bad cmp, NULL outputs, n == 0 or every word skipped
 * for any/some, called from inside an active-message handler). */
TERN_API tern_status_t tern_wait_until_all_u64(const volatile uint64_t *addrs, size_t n,
                                               const int *status, int cmp,
                                               uint64_t value);
TERN_API tern_status_t tern_wait_until_any_u64(const volatile uint64_t *addrs, size_t n,
                                               const int *status, int cmp, uint64_t value,
                                               size_t *index);
TERN_API tern_status_t tern_wait_until_some_u64(const volatile uint64_t *addrs, size_t n,
                                                const int *status, int cmp,
                                                uint64_t value, size_t *indices,
                                                size_t *count);

#ifdef __cplusplus
}
#endif
#endif
