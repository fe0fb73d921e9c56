/* Non-contiguous put and get (included by tern.h): vector, indexed and
 * strided transfers between local memory and one rank's segment, in one
 * call each. Remote addresses are addresses in the target's segment as the
 * target sees it (as for tern_put); local ones may be any memory.
 *
 *   vector   lists of (address, length) pieces on each side; the counts may
 *            differ as long as both lists hold the same total: the bytes
 *            of the source list, in order, go to the bytes of the
 *            destination list, in order. Pieces of length 0 are skipped.
 *   indexed  lists of addresses on each side, with one piece length per
 *            side (dstcount * dstlen == srccount * srclen); vector's rule.
 *   strided  elemsz contiguous bytes for each index tuple (i[0], ..,
 *            i[n-1]), 0 <= i[k] < count[k]: from src + sum i[k]*srcstrides[k]
 *            to dst + sum i[k]*dststrides[k]. n (the stride levels) is 0 to
 *            TERN_VIS_MAX_DIMS; strides are in bytes and may be negative
 *            (reflections) or 0 (a source stride of 0 broadcasts one
 *            element); their order is free (transposes). A stride optimizer
 *            folds dimensions that are contiguous on both sides, so a
 *            description in many dimensions costs what its simplest
 *            equivalent costs.
 *
 * Every remote piece is checked against the target's segment before any
 * byte moves. Destination pieces that overlap receive one of their
 * sources, unspecified which. To a rank mapped here (this rank, a
 * shared-memory peer: tern_ptr works) the call copies directly; to a
 * network peer, small pieces (at most TERN_VIS_PACK_MAX bytes, on average
 * for lists) are packed into active messages, puts and gets alike, and
 * larger ones go as one RMA per contiguous piece, completed together (see
 * docs/design/non-contiguous.md). Strided accumulate: tern/acc.h.
 *
 * Forms, as for the contiguous calls: blocking (returns at remote
 * completion), _nb with events (put: lc when the sources may be reused, rc
 * at remote completion, rc NULL waits; get: done when the data has landed,
 * NULL waits) and _nbi (completed by tern_ctx_nbi_sync / tern_ctx_quiet of
 * the context). Each has a tern_ctx_ form; the short forms use
 * TERN_CTX_DEFAULT.
 *
 * Statuses: TERN_OK; TERN_ERR_RANK (bad rank); TERN_ERR_RANGE (a remote
 * piece outside the target's segment: the message names the list entry or
 * the extent); TERN_ERR_INVALID (NULL list or pointer with a nonzero count,
 * totals that differ, more than TERN_VIS_MAX_DIMS levels, a count that is
 * negative as a signed value, a bad flag or context; the message names the
 * argument); TERN_ERR_OVERFLOW (sizes or extents that wrap around);
 * TERN_ERR_NOT_INIT; TERN_ERR_AGAIN (TERN_FLAG_IMMEDIATE: nothing was
 * issued; as a whole: once the first piece is issued the rest follows);
 * a failure after the start comes as for tern_put. */
#ifndef TERN_VIS_H
#define TERN_VIS_H

#ifndef TERN_H
#error "include <tern.h>, not <tern/vis.h>"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define TERN_VIS_MAX_DIMS 32 /* stride levels of a strided transfer at most */

/* One piece of a vector transfer. */
typedef struct tern_memvec {
    void *addr;
    size_t len;
} tern_memvec_t;

/* Out-of-line entry points of every call below; op is a TERN_RMA_*_
 * value, lc/rc the events of the _nb forms. Not to be called directly. */
TERN_API tern_status_t tern_vis_vector_(tern_ctx_t ctx, int op, int rank, size_t dstcount,
                                        const tern_memvec_t *dstlist, size_t srccount,
                                        const tern_memvec_t *srclist, tern_event_t *lc,
                                        tern_event_t *rc, tern_flags_t flags);
TERN_API tern_status_t tern_vis_indexed_(tern_ctx_t ctx, int op, int rank,
                                         size_t dstcount, void *const *dstlist,
                                         size_t dstlen, size_t srccount,
                                         const void *const *srclist, size_t srclen,
                                         tern_event_t *lc, tern_event_t *rc,
                                         tern_flags_t flags);
TERN_API tern_status_t tern_vis_strided_(tern_ctx_t ctx, int op, int rank, void *dst,
                                         const ptrdiff_t *dststrides, const void *src,
                                         const ptrdiff_t *srcstrides, size_t elemsz,
                                         const size_t *count, size_t stridelevels,
                                         tern_event_t *lc, tern_event_t *rc,
                                         tern_flags_t flags);

/* Vector: dstlist/srclist of dstcount/srccount pieces (a list may be NULL
 * only with a count of 0), equal totals. */
static inline tern_status_t tern_ctx_put_vector(tern_ctx_t ctx, int rank, size_t dstcount,
                                                const tern_memvec_t dstlist[],
                                                size_t srccount,
                                                const tern_memvec_t srclist[],
                                                tern_flags_t flags)
{
    return tern_vis_vector_(ctx, TERN_RMA_PUT_, rank, dstcount, dstlist, srccount,
                            srclist, 0, 0, flags);
}
static inline tern_status_t
tern_put_vector(int rank, size_t dstcount, const tern_memvec_t dstlist[], size_t srccount,
                const tern_memvec_t srclist[], tern_flags_t flags)
{
    return tern_ctx_put_vector(TERN_CTX_DEFAULT, rank, dstcount, dstlist, srccount,
                               srclist, flags);
}
static inline tern_status_t tern_ctx_get_vector(tern_ctx_t ctx, size_t dstcount,
                                                const tern_memvec_t dstlist[], int rank,
                                                size_t srccount,
                                                const tern_memvec_t srclist[],
                                                tern_flags_t flags)
{
    return tern_vis_vector_(ctx, TERN_RMA_GET_, rank, dstcount, dstlist, srccount,
                            srclist, 0, 0, flags);
}
static inline tern_status_t
tern_get_vector(size_t dstcount, const tern_memvec_t dstlist[], int rank, size_t srccount,
                const tern_memvec_t srclist[], tern_flags_t flags)
{
    return tern_ctx_get_vector(TERN_CTX_DEFAULT, dstcount, dstlist, rank, srccount,
                               srclist, flags);
}
static inline tern_status_t
tern_ctx_put_vector_nb(tern_ctx_t ctx, int rank, size_t dstcount,
                       const tern_memvec_t dstlist[], size_t srccount,
                       const tern_memvec_t srclist[], tern_event_t *lc, tern_event_t *rc,
                       tern_flags_t flags)
{
    return tern_vis_vector_(ctx, TERN_RMA_PUT_NB_, rank, dstcount, dstlist, srccount,
                            srclist, lc, rc, flags);
}
static inline tern_status_t
tern_put_vector_nb(int rank, size_t dstcount, const tern_memvec_t dstlist[],
                   size_t srccount, const tern_memvec_t srclist[], tern_event_t *lc,
                   tern_event_t *rc, tern_flags_t flags)
{
    return tern_ctx_put_vector_nb(TERN_CTX_DEFAULT, rank, dstcount, dstlist, srccount,
                                  srclist, lc, rc, flags);
}
static inline tern_status_t tern_ctx_get_vector_nb(tern_ctx_t ctx, size_t dstcount,
                                                   const tern_memvec_t dstlist[],
                                                   int rank, size_t srccount,
                                                   const tern_memvec_t srclist[],
                                                   tern_event_t *done, tern_flags_t flags)
{
    return tern_vis_vector_(ctx, TERN_RMA_GET_NB_, rank, dstcount, dstlist, srccount,
                            srclist, 0, done, flags);
}
static inline tern_status_t tern_get_vector_nb(size_t dstcount,
                                               const tern_memvec_t dstlist[], int rank,
                                               size_t srccount,
                                               const tern_memvec_t srclist[],
                                               tern_event_t *done, tern_flags_t flags)
{
    return tern_ctx_get_vector_nb(TERN_CTX_DEFAULT, dstcount, dstlist, rank, srccount,
                                  srclist, done, flags);
}
static inline tern_status_t
tern_ctx_put_vector_nbi(tern_ctx_t ctx, int rank, size_t dstcount,
                        const tern_memvec_t dstlist[], size_t srccount,
                        const tern_memvec_t srclist[], tern_flags_t flags)
{
    return tern_vis_vector_(ctx, TERN_RMA_PUT_NBI_, rank, dstcount, dstlist, srccount,
                            srclist, 0, 0, flags);
}
static inline tern_status_t
tern_put_vector_nbi(int rank, size_t dstcount, const tern_memvec_t dstlist[],
                    size_t srccount, const tern_memvec_t srclist[], tern_flags_t flags)
{
    return tern_ctx_put_vector_nbi(TERN_CTX_DEFAULT, rank, dstcount, dstlist, srccount,
                                   srclist, flags);
}
static inline tern_status_t tern_ctx_get_vector_nbi(tern_ctx_t ctx, size_t dstcount,
                                                    const tern_memvec_t dstlist[],
                                                    int rank, size_t srccount,
                                                    const tern_memvec_t srclist[],
                                                    tern_flags_t flags)
{
    return tern_vis_vector_(ctx, TERN_RMA_GET_NBI_, rank, dstcount, dstlist, srccount,
                            srclist, 0, 0, flags);
}
static inline tern_status_t
tern_get_vector_nbi(size_t dstcount, const tern_memvec_t dstlist[], int rank,
                    size_t srccount, const tern_memvec_t srclist[], tern_flags_t flags)
{
    return tern_ctx_get_vector_nbi(TERN_CTX_DEFAULT, dstcount, dstlist, rank, srccount,
                                   srclist, flags);
}

/* Indexed: dstcount addresses of dstlen bytes each, srccount of srclen
 * (lists may be NULL only with a count of 0), equal totals. */
static inline tern_status_t tern_ctx_put_indexed(tern_ctx_t ctx, int rank,
                                                 size_t dstcount, void *const dstlist[],
                                                 size_t dstlen, size_t srccount,
                                                 const void *const srclist[],
                                                 size_t srclen, tern_flags_t flags)
{
    return tern_vis_indexed_(ctx, TERN_RMA_PUT_, rank, dstcount, dstlist, dstlen,
                             srccount, srclist, srclen, 0, 0, flags);
}
static inline tern_status_t tern_put_indexed(int rank, size_t dstcount,
                                             void *const dstlist[], size_t dstlen,
                                             size_t srccount, const void *const srclist[],
                                             size_t srclen, tern_flags_t flags)
{
    return tern_ctx_put_indexed(TERN_CTX_DEFAULT, rank, dstcount, dstlist, dstlen,
                                srccount, srclist, srclen, flags);
}
static inline tern_status_t tern_ctx_get_indexed(tern_ctx_t ctx, size_t dstcount,
                                                 void *const dstlist[], size_t dstlen,
                                                 int rank, size_t srccount,
                                                 const void *const srclist[],
                                                 size_t srclen, tern_flags_t flags)
{
    return tern_vis_indexed_(ctx, TERN_RMA_GET_, rank, dstcount, dstlist, dstlen,
                             srccount, srclist, srclen, 0, 0, flags);
}
static inline tern_status_t tern_get_indexed(size_t dstcount, void *const dstlist[],
                                             size_t dstlen, int rank, size_t srccount,
                                             const void *const srclist[], size_t srclen,
                                             tern_flags_t flags)
{
    return tern_ctx_get_indexed(TERN_CTX_DEFAULT, dstcount, dstlist, dstlen, rank,
                                srccount, srclist, srclen, flags);
}
static inline tern_status_t
tern_ctx_put_indexed_nb(tern_ctx_t ctx, int rank, size_t dstcount, void *const dstlist[],
                        size_t dstlen, size_t srccount, const void *const srclist[],
                        size_t srclen, tern_event_t *lc, tern_event_t *rc,
                        tern_flags_t flags)
{
    return tern_vis_indexed_(ctx, TERN_RMA_PUT_NB_, rank, dstcount, dstlist, dstlen,
                             srccount, srclist, srclen, lc, rc, flags);
}
static inline tern_status_t
tern_put_indexed_nb(int rank, size_t dstcount, void *const dstlist[], size_t dstlen,
                    size_t srccount, const void *const srclist[], size_t srclen,
                    tern_event_t *lc, tern_event_t *rc, tern_flags_t flags)
{
    return tern_ctx_put_indexed_nb(TERN_CTX_DEFAULT, rank, dstcount, dstlist, dstlen,
                                   srccount, srclist, srclen, lc, rc, flags);
}
static inline tern_status_t tern_ctx_get_indexed_nb(tern_ctx_t ctx, size_t dstcount,
                                                    void *const dstlist[], size_t dstlen,
                                                    int rank, size_t srccount,
                                                    const void *const srclist[],
                                                    size_t srclen, tern_event_t *done,
                                                    tern_flags_t flags)
{
    return tern_vis_indexed_(ctx, TERN_RMA_GET_NB_, rank, dstcount, dstlist, dstlen,
                             srccount, srclist, srclen, 0, done, flags);
}
static inline tern_status_t tern_get_indexed_nb(size_t dstcount, void *const dstlist[],
                                                size_t dstlen, int rank, size_t srccount,
                                                const void *const srclist[],
                                                size_t srclen, tern_event_t *done,
                                                tern_flags_t flags)
{
    return tern_ctx_get_indexed_nb(TERN_CTX_DEFAULT, dstcount, dstlist, dstlen, rank,
                                   srccount, srclist, srclen, done, flags);
}
static inline tern_status_t
tern_ctx_put_indexed_nbi(tern_ctx_t ctx, int rank, size_t dstcount, void *const dstlist[],
                         size_t dstlen, size_t srccount, const void *const srclist[],
                         size_t srclen, tern_flags_t flags)
{
    return tern_vis_indexed_(ctx, TERN_RMA_PUT_NBI_, rank, dstcount, dstlist, dstlen,
                             srccount, srclist, srclen, 0, 0, flags);
}
static inline tern_status_t tern_put_indexed_nbi(int rank, size_t dstcount,
                                                 void *const dstlist[], size_t dstlen,
                                                 size_t srccount,
                                                 const void *const srclist[],
                                                 size_t srclen, tern_flags_t flags)
{
    return tern_ctx_put_indexed_nbi(TERN_CTX_DEFAULT, rank, dstcount, dstlist, dstlen,
                                    srccount, srclist, srclen, flags);
}
static inline tern_status_t tern_ctx_get_indexed_nbi(tern_ctx_t ctx, size_t dstcount,
                                                     void *const dstlist[], size_t dstlen,
                                                     int rank, size_t srccount,
                                                     const void *const srclist[],
                                                     size_t srclen, tern_flags_t flags)
{
    return tern_vis_indexed_(ctx, TERN_RMA_GET_NBI_, rank, dstcount, dstlist, dstlen,
                             srccount, srclist, srclen, 0, 0, flags);
}
static inline tern_status_t tern_get_indexed_nbi(size_t dstcount, void *const dstlist[],
                                                 size_t dstlen, int rank, size_t srccount,
                                                 const void *const srclist[],
                                                 size_t srclen, tern_flags_t flags)
{
    return tern_ctx_get_indexed_nbi(TERN_CTX_DEFAULT, dstcount, dstlist, dstlen, rank,
                                    srccount, srclist, srclen, flags);
}

/* Strided: stridelevels (0..TERN_VIS_MAX_DIMS) entries in count,
 * dststrides and srcstrides (which may be NULL when it is 0); dimension 0
 * varies fastest. dst and src are the addresses of the element with every
 * index 0. */
static inline tern_status_t
tern_ctx_put_strided(tern_ctx_t ctx, int rank, void *dst, const ptrdiff_t dststrides[],
                     const void *src, const ptrdiff_t srcstrides[], size_t elemsz,
                     const size_t count[], size_t stridelevels, tern_flags_t flags)
{
    return tern_vis_strided_(ctx, TERN_RMA_PUT_, rank, dst, dststrides, src, srcstrides,
                             elemsz, count, stridelevels, 0, 0, flags);
}
static inline tern_status_t
tern_put_strided(int rank, void *dst, const ptrdiff_t dststrides[], const void *src,
                 const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                 size_t stridelevels, tern_flags_t flags)
{
    return tern_ctx_put_strided(TERN_CTX_DEFAULT, rank, dst, dststrides, src, srcstrides,
                                elemsz, count, stridelevels, flags);
}
static inline tern_status_t
tern_ctx_get_strided(tern_ctx_t ctx, void *dst, const ptrdiff_t dststrides[], int rank,
                     const void *src, const ptrdiff_t srcstrides[], size_t elemsz,
                     const size_t count[], size_t stridelevels, tern_flags_t flags)
{
    return tern_vis_strided_(ctx, TERN_RMA_GET_, rank, dst, dststrides, src, srcstrides,
                             elemsz, count, stridelevels, 0, 0, flags);
}
static inline tern_status_t tern_get_strided(void *dst, const ptrdiff_t dststrides[],
                                             int rank, const void *src,
                                             const ptrdiff_t srcstrides[], size_t elemsz,
                                             const size_t count[], size_t stridelevels,
                                             tern_flags_t flags)
{
    return tern_ctx_get_strided(TERN_CTX_DEFAULT, dst, dststrides, rank, src, srcstrides,
                                elemsz, count, stridelevels, flags);
}
static inline tern_status_t
tern_ctx_put_strided_nb(tern_ctx_t ctx, int rank, void *dst, const ptrdiff_t dststrides[],
                        const void *src, const ptrdiff_t srcstrides[], size_t elemsz,
                        const size_t count[], size_t stridelevels, tern_event_t *lc,
                        tern_event_t *rc, tern_flags_t flags)
{
    return tern_vis_strided_(ctx, TERN_RMA_PUT_NB_, rank, dst, dststrides, src,
                             srcstrides, elemsz, count, stridelevels, lc, rc, flags);
}
static inline tern_status_t
tern_put_strided_nb(int rank, void *dst, const ptrdiff_t dststrides[], const void *src,
                    const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                    size_t stridelevels, tern_event_t *lc, tern_event_t *rc,
                    tern_flags_t flags)
{
    return tern_ctx_put_strided_nb(TERN_CTX_DEFAULT, rank, dst, dststrides, src,
                                   srcstrides, elemsz, count, stridelevels, lc, rc,
                                   flags);
}
static inline tern_status_t
tern_ctx_get_strided_nb(tern_ctx_t ctx, void *dst, const ptrdiff_t dststrides[], int rank,
                        const void *src, const ptrdiff_t srcstrides[], size_t elemsz,
                        const size_t count[], size_t stridelevels, tern_event_t *done,
                        tern_flags_t flags)
{
    return tern_vis_strided_(ctx, TERN_RMA_GET_NB_, rank, dst, dststrides, src,
                             srcstrides, elemsz, count, stridelevels, 0, done, flags);
}
static inline tern_status_t
tern_get_strided_nb(void *dst, const ptrdiff_t dststrides[], int rank, const void *src,
                    const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                    size_t stridelevels, tern_event_t *done, tern_flags_t flags)
{
    return tern_ctx_get_strided_nb(TERN_CTX_DEFAULT, dst, dststrides, rank, src,
                                   srcstrides, elemsz, count, stridelevels, done, flags);
}
static inline tern_status_t
tern_ctx_put_strided_nbi(tern_ctx_t ctx, int rank, void *dst,
                         const ptrdiff_t dststrides[], const void *src,
                         const ptrdiff_t srcstrides[], size_t elemsz,
                         const size_t count[], size_t stridelevels, tern_flags_t flags)
{
    return tern_vis_strided_(ctx, TERN_RMA_PUT_NBI_, rank, dst, dststrides, src,
                             srcstrides, elemsz, count, stridelevels, 0, 0, flags);
}
static inline tern_status_t
tern_put_strided_nbi(int rank, void *dst, const ptrdiff_t dststrides[], const void *src,
                     const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                     size_t stridelevels, tern_flags_t flags)
{
    return tern_ctx_put_strided_nbi(TERN_CTX_DEFAULT, rank, dst, dststrides, src,
                                    srcstrides, elemsz, count, stridelevels, flags);
}
static inline tern_status_t
tern_ctx_get_strided_nbi(tern_ctx_t ctx, void *dst, const ptrdiff_t dststrides[],
                         int rank, const void *src, const ptrdiff_t srcstrides[],
                         size_t elemsz, const size_t count[], size_t stridelevels,
                         tern_flags_t flags)
{
    return tern_vis_strided_(ctx, TERN_RMA_GET_NBI_, rank, dst, dststrides, src,
                             srcstrides, elemsz, count, stridelevels, 0, 0, flags);
}
static inline tern_status_t tern_get_strided_nbi(void *dst, const ptrdiff_t dststrides[],
                                                 int rank, const void *src,
                                                 const ptrdiff_t srcstrides[],
                                                 size_t elemsz, const size_t count[],
                                                 size_t stridelevels, tern_flags_t flags)
{
    return tern_ctx_get_strided_nbi(TERN_CTX_DEFAULT, dst, dststrides, rank, src,
                                    srcstrides, elemsz, count, stridelevels, flags);
}

#ifdef __cplusplus
}
#endif
#endif
