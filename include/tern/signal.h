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

/* Blocking: returns when the data and the signal are visible at rank.
 * sig is an 8-byte aligned word in rank's segment (as rank sees it),
 * sig_op TERN_SIGNAL_SET (*sig = value) or TERN_SIGNAL_ADD (*sig += value).
 * Returns TERN_OK, the statuses of tern_ctx_put, and TERN_ERR_INVALID (bad
 * sig_op, misaligned sig), TERN_ERR_RANGE (sig outside rank's segment),
 * TERN_ERR_UNSUPPORTED (the job spans nodes, the network provider has no
 * u64 atomic set and add, and TERN_OFI_ATOMICS=net refuses the
 * active-message path). Cost on a mapped peer: the copy, a release
 * fence and one atomic store or add. */
TERN_API tern_status_t tern_ctx_put_signal(tern_ctx_t ctx, int rank, void *dst,
                                           const void *src, size_t n, uint64_t *sig,
                                           uint64_t value, int sig_op,
                                           tern_flags_t flags);
/* Implicit: src may be reused when it returns; completed (data and signal
 * visible) by the context's nbi sync, quiet or fence. Over the network the
 * data's remote completion is awaited inside the call before the signal
 * is issued (the provider gives no cheaper ordered pair yet). */
TERN_API tern_status_t tern_ctx_put_signal_nbi(tern_ctx_t ctx, int rank, void *dst,
                                               const void *src, size_t n, uint64_t *sig,
                                               uint64_t value, int sig_op,
                                               tern_flags_t flags);

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
 * for any/some). */
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
