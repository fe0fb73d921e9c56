/* The stride optimizer of non-contiguous transfers: a pure function that
 * rewrites a strided description into an equivalent one with fewer, larger
 * pieces and fewer loops, and the copy loop that runs a description
 * between two mapped address ranges. */
#ifndef TN_VIS_OPT_H
#define TN_VIS_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/compiler.h"
#include "tern.h"

#define TN_VIS_MAXDIM 32 /* stride levels a description may have */

/* elem contiguous bytes copied for each index tuple (i[0], .., i[n-1]),
 * 0 <= i[k] < count[k], from src + soff + sum i[k]*sstride[k] to
 * dst + doff + sum i[k]*dstride[k]; dimension 0 varies fastest. Strides
 * and offsets are in bytes and may be negative. elem == 0 is an empty
 * transfer (so is any count of 0 before optimizing). */
typedef struct tn_vis_desc {
    size_t elem;
    int ndims;
    ptrdiff_t soff, doff;
    size_t count[TN_VIS_MAXDIM];
    ptrdiff_t sstride[TN_VIS_MAXDIM];
    ptrdiff_t dstride[TN_VIS_MAXDIM];
} tn_vis_desc_t;

/* Rewrites d in place into the equivalent description (the same set of
 * (source byte, destination byte) pairs) that a copy loop runs fastest:
 *  1. empty transfer (a count of 0, elem 0): elem = 0, no dimension;
 *  2. null dimensions removed: a count of 1, or both strides 0 (the same
 *     copy repeated);
 *  3. stride inversion: a dimension with a negative source stride (or a
 *     source stride of 0 and a negative destination stride) is walked
 *     backwards, both sides reflected, so that every source stride is >= 0;
 *  4. dimensional sort: by source stride, then |destination stride|, so
 *     that the innermost loop reads the nearest bytes;
 *  5. dimensional folding: dimension 0 contiguous with elem on both sides
 *     becomes part of elem, and dimension k+1 that continues dimension k on
 *     both sides (stride[k+1] == count[k]*stride[k]) merges into it.
 * Order of copies within the transfer is not kept (destinations that
 * overlap receive one of their sources, unspecified which). The caller
 * has checked that elem * prod(count) does not overflow. Cost: O(n^2) for
 * n <= 32 dimensions, no allocation. */
void tn_vis_optimize(tn_vis_desc_t *d);

/* Builds d from a strided call's arguments: elemsz bytes per index tuple,
 * levels (<= TN_VIS_MAXDIM) counts and signed strides per side. The fast
 * path of the call's checks: one pass that leaves null dimensions out
 * (count 1, skipped four at a time), multiplies the counts of dimensions
 * whose two strides are 0 into *rep (the description repeats), folds a
 * level contiguous with the element on both sides into the element and
 * merges a level into the previous one kept when it continues it on both
 * sides (the folding of tn_vis_optimize, done early: a 32-level
 * description of a 1-d motion leaves here with one dimension). Returns 0
 * when the arguments are sound (no count negative as a signed value or
 * 0, elemsz times the counts fits in size_t, no extent wraps around;
 * d->elem 0 when elemsz is 0), with ext the bytes touched relative to
 * src and dst: source [ext[0], ext[1]), destination [ext[2], ext[3])
 * (all 0 when elemsz is 0); -1 otherwise (also on an overflow that
 * sound arguments could reach only at the very edge of the address
 * space): the caller then examines the arguments level by level to name
 * the bad one (and handles a count of 0). d is set-equivalent to the
 * arguments, not yet optimized. */
int tn_vis_describe(tn_vis_desc_t *d, size_t elemsz, const size_t *count,
                    const ptrdiff_t *sstride, const ptrdiff_t *dstride, size_t levels,
                    size_t *rep, ptrdiff_t ext[4]);

/* A description of at most one dimension: count pieces of elem bytes,
 * piece i from src + i*sstride to dst + i*dstride (count 1, strides 0:
 * one piece); ext as for tn_vis_describe. */
typedef struct tn_vis_row {
    size_t elem, count;
    ptrdiff_t sstride, dstride;
    ptrdiff_t ext[4];
} tn_vis_row_t;

/* tn_vis_describe for what most calls describe, everything in registers:
 * 0 and *row when the levels fold into one dimension at most, with
 * elemsz > 0 and nothing repeated (no level whose two strides are 0);
 * -1 otherwise (more dimensions, a repeat, anything tn_vis_describe
 * rejects): the caller then runs tn_vis_describe. row is not optimized
 * (strides may be negative). */
int tn_vis_describe_row(tn_vis_row_t *row, size_t elemsz, const size_t *count,
                        const ptrdiff_t *sstride, const ptrdiff_t *dstride,
                        size_t levels);

/* Bit 2k set when count[k] is not 1 (k < levels <= 32), every other bit
 * clear: the levels that tern_vis_fold_ (tern/vis.h) looks at. SSE2 (any
 * x86-64) or portable C; AVX2 (x86-64 with AVX2 only). */
uint64_t tn_vis_nonone_sse2(const size_t *count, size_t levels);
/* tern_vis_fold_ with that mask (1 <= levels <= 32); tern_vis_fold_
 * calls the one the CPU runs best, chosen at its first call. */
int tn_vis_fold_sse2(const size_t *count, const ptrdiff_t *dststrides,
                     const ptrdiff_t *srcstrides, size_t levels, tern_vis_fold_t *out);
#if defined(__x86_64__) && defined(__GNUC__)
uint64_t tn_vis_nonone_avx2(const size_t *count, size_t levels);
int tn_vis_fold_avx2(const size_t *count, const ptrdiff_t *dststrides,
                     const ptrdiff_t *srcstrides, size_t levels, tern_vis_fold_t *out);
#endif

/* 1 when some address of list[0..count) lies outside [base, base + room]
 * (room < 2^63), else 0: the check of an indexed transfer's remote list
 * before any byte moves. tn_vis_addrs_outside calls the form the CPU runs
 * best (AVX2 or SSE2), chosen at its first call. */
int tn_vis_addrs_outside(void *const *list, size_t count, uintptr_t base, uintptr_t room);
int tn_vis_outside_sse2(void *const *list, size_t count, uintptr_t base, uintptr_t room);
#if defined(__x86_64__) && defined(__GNUC__)
int tn_vis_outside_avx2(void *const *list, size_t count, uintptr_t base, uintptr_t room);
#endif

/* Adds a dimension's span (count-1)*stride to the low (span < 0) or high
 * end of ext[0..1]; 1 when that overflows. count >= 1. */
static inline int tn_vis_span_wraps(ptrdiff_t *ext, size_t count, ptrdiff_t stride)
{
    ptrdiff_t span;
    if (__builtin_mul_overflow((ptrdiff_t)(count - 1), stride, &span))
        return 1;
    return __builtin_add_overflow(ext[span >= 0], span, &ext[span >= 0]);
}

/* Byte range [*lo, *hi) relative to the base that d touches on its source
 * (side 0) or destination (side 1) side; both 0 for an empty transfer.
 * Exact: the extreme offsets are reached by some index tuple. */
void tn_vis_extent(const tn_vis_desc_t *d, int side, ptrdiff_t *lo, ptrdiff_t *hi);

/* Number of contiguous pieces of elem bytes d copies (0 when empty). */
size_t tn_vis_pieces(const tn_vis_desc_t *d);

/* Piece callback of tn_vis_walk: src and dst are the base pointers plus
 * the piece's offsets; returns 0 to go on, anything else stops the walk
 * and is returned by it. */
typedef int (*tn_vis_piece_fn)(void *arg, char *dst, const char *src, size_t n);

/* Calls fn for every piece of d in loop-nest order. */
int tn_vis_walk(const tn_vis_desc_t *d, char *dst, const char *src, tn_vis_piece_fn fn,
                void *arg);

/* Row callback of tn_vis_walk_rows: npieces pieces of n bytes, piece i
 * from src + i*sstride to dst + i*dstride (the innermost dimension). */
typedef int (*tn_vis_row_fn)(void *arg, char *dst, ptrdiff_t dstride, const char *src,
                             ptrdiff_t sstride, size_t npieces, size_t n);

/* As tn_vis_walk, one call per row of the innermost dimension: what a
 * caller whose per-piece work is small runs without a call per piece. */
int tn_vis_walk_rows(const tn_vis_desc_t *d, char *dst, const char *src, tn_vis_row_fn fn,
                     void *arg);

/* Calls fn for pieces first .. first+n-1 of d (in loop-nest order). */
int tn_vis_walk_range(const tn_vis_desc_t *d, char *dst, const char *src, size_t first,
                      size_t n, tn_vis_piece_fn fn, void *arg);

/* c pieces of n bytes, piece i from sp + i*ss to dp + i*ds: the loop of
 * the public inline path (tern_vis_row_ in tern/vis.h, four a step), so
 * the library and a program's inlined call copy alike. Inlined with n a
 * constant (tn_vis_copy_row), each memcpy is one to four moves: for 8-byte
 * pieces about 3 instructions a piece, against 6 for the plain loop of a
 * program (-O2 does not unroll it). */
static TN_ALWAYS_INLINE void tn_vis_copy_row_n(char *dp, ptrdiff_t ds, const char *sp,
                                               ptrdiff_t ss, size_t c, size_t n)
{
    tern_vis_row_(dp, ds, sp, ss, c, n);
}

/* tn_vis_copy_row_n with the size known at compile time for the common element
 * sizes (1 to 64 bytes, powers of two); memcpy calls for the others. */
static inline void tn_vis_copy_row(char *dp, ptrdiff_t ds, const char *sp, ptrdiff_t ss,
                                   size_t c, size_t n)
{
    switch (n) {
    case 1: tn_vis_copy_row_n(dp, ds, sp, ss, c, 1); break;
    case 2: tn_vis_copy_row_n(dp, ds, sp, ss, c, 2); break;
    case 4: tn_vis_copy_row_n(dp, ds, sp, ss, c, 4); break;
    case 8: tn_vis_copy_row_n(dp, ds, sp, ss, c, 8); break;
    case 16: tn_vis_copy_row_n(dp, ds, sp, ss, c, 16); break;
    case 32: tn_vis_copy_row_n(dp, ds, sp, ss, c, 32); break;
    case 64: tn_vis_copy_row_n(dp, ds, sp, ss, c, 64); break;
    default:
        for (; c; c--, dp += ds, sp += ss)
            memcpy(dp, sp, n);
    }
}

/* Copies every piece of d from src to dst (both mapped here) by rows of
 * the innermost dimension, four pieces a step, with memcpy of a constant
 * size for elements of 1 to 64 bytes (powers of two). Pieces of copy_min
 * bytes or more go through big(arg, dst, src, n) when big is not NULL. */
void tn_vis_copy(const tn_vis_desc_t *d, char *dst, const char *src, size_t copy_min,
                 void (*big)(int, void *, const void *, size_t), int arg);

#endif
