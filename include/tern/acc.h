/* Accumulate (included by tern.h): ARMCI's dst = dst + scale * src on a
 * contiguous array of count elements of one type at rank, element-wise
 * atomic with respect to other accumulates to the same elements from any
 * rank or thread (not with respect to atomic-domain operations or puts on
 * them). On a mapped peer the update runs in place, a 4 KiB block at a
 * time under one of 64 stripe locks kept in the target's control area;
 * otherwise the scaled values travel as Medium active messages of up to
 * tern_am_max_medium(rank) bytes, sent back to back (pipelined), and the
 * target applies them under the same locks. docs/design/atomics.md has
 * the costs. */
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
 * Blocking: returns when every element has been updated at rank; on a
 * TERN_ORDER_NONE context, to an unmapped rank, once the scaled values
 * are sent (src reusable), completed as an nbi accumulate is (fence,
 * quiet, a barrier). Strict and partial contexts wait (the messages are
 * not claimed to be applied in the order sent).
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

/* Strided accumulate: dst = dst + scale * src for every element of a
 * strided description as tern_put_strided takes it (tern/vis.h), with
 * elements of type: for each index tuple (i[0], .., i[n-1]), 0 <= i[k] <
 * count[k], the element at src + sum i[k]*srcstrides[k] is added (scaled)
 * to the one at dst + sum i[k]*dststrides[k]. stridelevels 0..
 * TERN_VIS_MAX_DIMS; strides in bytes, signed, in any order (transposes,
 * reflections); a source stride of 0 adds one element to many. Every
 * index tuple is one addition, element-wise atomic as for tern_acc: where
 * destinations overlap (a destination stride of 0, or both strides 0)
 * each receives every one of its additions, in an unspecified order.
 * dst and every dststrides[k] with count[k] > 1 are multiples of the
 * type's size (natural alignment); src may be unaligned. count may be
 * NULL (and the strides) when stridelevels is 0: one element.
 * On a mapped peer the additions run in place under the target's stripe
 * locks (consecutive elements of one 4 KiB block share one lock round
 * trip); otherwise the scaled elements are packed into Medium messages
 * (elements grouped into contiguous pieces by the stride optimizer; a
 * piece larger than TERN_VIS_PACK_MAX goes as a contiguous accumulate)
 * and the target applies them under the same locks.
 * Blocking: returns when every addition is done at rank. _nbi: src may be
 * reused when it returns; done after tern_ctx_nbi_sync(ctx,
 * TERN_SYNC_REMOTE), quiet or fence. TERN_FLAG_IMMEDIATE refuses as a
 * whole (TERN_ERR_AGAIN, nothing done) when the first message cannot be
 * sent at once. Returns TERN_OK; TERN_ERR_INVALID (a type accumulate does
 * not take, dst or a dststrides entry misaligned, NULL count, strides,
 * dst or src with elements to add, more than TERN_VIS_MAX_DIMS levels, a
 * count negative as a signed value, bad flags or context; the message
 * names the argument); TERN_ERR_RANK; TERN_ERR_RANGE (the destination's
 * extent is not inside rank's segment: a global variable is refused as
 * for tern_acc; nothing is added); TERN_ERR_OVERFLOW (sizes or extents
 * that wrap around); TERN_ERR_AGAIN; TERN_ERR_UNSUPPORTED;
 * TERN_ERR_NOT_INIT. */
TERN_API tern_status_t tern_ctx_acc_strided(tern_ctx_t ctx, int rank, void *dst,
                                            const ptrdiff_t dststrides[], const void *src,
                                            const ptrdiff_t srcstrides[],
                                            const size_t count[], size_t stridelevels,
                                            int type, const void *scale,
                                            tern_flags_t flags);
TERN_API tern_status_t tern_ctx_acc_strided_nbi(
    tern_ctx_t ctx, int rank, void *dst, const ptrdiff_t dststrides[], const void *src,
    const ptrdiff_t srcstrides[], const size_t count[], size_t stridelevels, int type,
    const void *scale, tern_flags_t flags);

static inline tern_status_t
tern_acc_strided(int rank, void *dst, const ptrdiff_t dststrides[], const void *src,
                 const ptrdiff_t srcstrides[], const size_t count[], size_t stridelevels,
                 int type, const void *scale, tern_flags_t flags)
{
    return tern_ctx_acc_strided(TERN_CTX_DEFAULT, rank, dst, dststrides, src, srcstrides,
                                count, stridelevels, type, scale, flags);
}
static inline tern_status_t
tern_acc_strided_nbi(int rank, void *dst, const ptrdiff_t dststrides[], const void *src,
                     const ptrdiff_t srcstrides[], const size_t count[],
                     size_t stridelevels, int type, const void *scale, tern_flags_t flags)
{
    return tern_ctx_acc_strided_nbi(TERN_CTX_DEFAULT, rank, dst, dststrides, src,
                                    srcstrides, count, stridelevels, type, scale, flags);
}

#ifdef __cplusplus
}
#endif
#endif
