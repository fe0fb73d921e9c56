/* Accumulate (included by tern.h): ARMCI's dst = dst + scale * src on a
 * contiguous array of count elements of one type at rank, element-wise
 * atomic with respect to other accumulates to the same elements from any
 * rank or thread (and to CPU-atomic operations of atomic domains on them;
 * not to a domain whose implementation is TERN_AD_IMPL_NET, nor to puts).
 * On a mapped peer each element is one CPU atomic update in place;
 * otherwise the scaled values travel as Medium active messages of up to
 * tern_am_max_medium(rank) bytes, sent back to back (pipelined), and the
 * target applies them with the same element-wise CPU atomics.
 * docs/design/atomics.md has the costs. */
#ifndef TERN_ACC_H
#define TERN_ACC_H

#ifndef TERN_H
#error "include <tern.h>, not <tern/acc.h>"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* type: TERN_AT_I32, TERN_AT_I64, TERN_AT_FLOAT or TERN_AT_DOUBLE (integers
 * wrap). dst: count naturally aligned elements in rank's segment (as rank
 * sees it); src: count elements of local memory (any alignment); scale:
 * one element of type, or NULL for 1. count 0 does nothing.
 * Blocking: returns when every element has been updated at rank.
 * TERN_FLAG_IMMEDIATE: TERN_ERR_AGAIN when the first message cannot be
 * sent at once (nothing done); later messages of a long accumulate wait
 * for room. Returns TERN_OK, TERN_ERR_INVALID (a type accumulate does not
 * take, misaligned dst, src NULL with count > 0, count * size overflowing,
 * bad flags or context), TERN_ERR_RANK, TERN_ERR_RANGE (the elements are
 * not all inside rank's segment; TERN_ERR_OVERFLOW when the range wraps
 * around), TERN_ERR_AGAIN, TERN_ERR_UNSUPPORTED (no
 * transport carries messages to an unmapped rank), TERN_ERR_NOT_INIT. */
TERN_API tern_status_t tern_ctx_acc(tern_ctx_t ctx, int rank, void *dst, const void *src,
                                    size_t count, int type, const void *scale,
                                    tern_flags_t flags);
/* Implicit: src may be reused when it returns; the updates are complete at
 * rank after the context's tern_ctx_nbi_sync(ctx, TERN_SYNC_REMOTE), quiet
 * or fence. Statuses as tern_ctx_acc. */
TERN_API tern_status_t tern_ctx_acc_nbi(tern_ctx_t ctx, int rank, void *dst,
                                        const void *src, size_t count, int type,
                                        const void *scale, tern_flags_t flags);

static inline tern_status_t tern_acc(int rank, void *dst, const void *src, size_t count,
                                     int type, const void *scale, tern_flags_t flags)
{
    return tern_ctx_acc(TERN_CTX_DEFAULT, rank, dst, src, count, type, scale, flags);
}
static inline tern_status_t tern_acc_nbi(int rank, void *dst, const void *src,
                                         size_t count, int type, const void *scale,
                                         tern_flags_t flags)
{
    return tern_ctx_acc_nbi(TERN_CTX_DEFAULT, rank, dst, src, count, type, scale, flags);
}

#ifdef __cplusplus
}
#endif
#endif
