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

/* A strided description of several levels as one dimension: count (>= 1)
 * elements, element i at i * dstride and i * sstride from dst and src. */
typedef struct tern_vis_fold {
    size_t count;
    ptrdiff_t dstride, sstride;
} tern_vis_fold_t;

/* Behind the inline path: 0 and *out when the levels whose count is not 1
 * form one dimension (each continues the one before it on both sides:
 * its strides are the previous strides times the previous count), none
 * has a count of 0 or one negative as a signed value, the first of them
 * does not have both strides 0, and count times either stride does not
 * overflow; every count 1: one element (count 1, strides 0). -1 otherwise
 * (the library's general path then takes the call). levels 1 to
 * TERN_VIS_MAX_DIMS. Checks nothing else. Not to be called directly. */
TERN_API int tern_vis_fold_(const size_t *count, const ptrdiff_t *dststrides,
                            const ptrdiff_t *srcstrides, size_t levels,
                            tern_vis_fold_t *out);

/* ---- inline fast paths ------------------------------------------------
 * A strided transfer of one level (or of up to TERN_VIS_MAX_DIMS levels
 * that fold into one: the levels whose count is not 1 continue each other
 * on both sides, found inline: a level count the compiler sees of at most
 * TERN_VIS_INLINE_LEVELS_ by tern_vis_fold_i_, unrolled; any other by
 * tern_vis_fold_r_ for levels of count 1, a run, levels of count 1, and
 * for other shapes by tern_vis_fold_i_'s loop up to
 * TERN_VIS_INLINE_LEVELS_ levels, tern_vis_fold_ out of line above), or
 * an indexed one
 * of at most TERN_VIS_INLINE_PIECES_ pieces, with a rank whose segment is
 * mapped here (self, shared-memory peer), from the default context, whose
 * element size is a constant the compiler sees (as in
 * tern_put_strided(.., 8, ..)) of at most TERN_VIS_INLINE_ELEM_ bytes, is
 * done in the caller's code: the
 * library's checks reduced to a few compares on tern_fast_ (rank mapped,
 * every remote byte inside the segment, no wrap-around, a positive count,
 * no NULL pointer), then the copy loop with the element's size constant,
 * so that a call costs about what the hand-written loop does. Anything
 * else, including every argument the library would refuse, goes to the
 * library, which checks again and names what is wrong; the inline path
 * refuses nothing itself. The result is the library's (the same bytes to
 * the same places; completion as for contiguous fast-path copies). */
#if defined(__GNUC__)
#define TERN_VIS_CONST_(x) __builtin_constant_p(x)
/* p computed into a register here: a store through it then has a base
 * address only, which Intel cores send to the store's own address port;
 * folded into base + index addressing it takes a load's port, and a copy
 * loop over address lists (three loads and a store a piece) slows by a
 * quarter. */
#define TERN_VIS_REG_(p) __asm__("" : "+r"(p))
/* v held in a vector register: the compiler would fold its load into
 * each operation that uses it, loading it once an operation, and a
 * check that does little more than load is bound by the load ports. */
#if defined(__x86_64__)
#define TERN_VIS_VREG_(v) __asm__("" : "+x"(v))
#else
#define TERN_VIS_VREG_(v) ((void)0)
#endif
/* Inlined even where the compiler would not: the element size is only a
 * constant inside the caller. */
#define TERN_VIS_INLINE_ static inline __attribute__((always_inline))
#else
#define TERN_VIS_CONST_(x) 0
#define TERN_VIS_REG_(p)   ((void)0)
#define TERN_VIS_VREG_(v)  ((void)0)
#define TERN_VIS_INLINE_   static inline
#endif
#define TERN_VIS_INLINE_ELEM_   64u /* element sizes copied inline, at most */
#define TERN_VIS_INLINE_LEVELS_ 8u  /* level counts folded inline, at most */
#define TERN_VIS_INLINE_PIECES_ \
    64u /* indexed pieces checked inline, at most:
                                       longer lists go to the library's
                                       vectorised check */

#if defined(__GNUC__)
/* Two 8-byte elements in a vector register (SSE2 on x86-64). */
typedef uint64_t tern_vis_q2_ __attribute__((vector_size(2 * sizeof(uint64_t))));

/* c >= 1 elements of n bytes (a constant once inlined) from s, stride ss,
 * to d, stride ds; four a step (a loop of one a step runs at about two
 * thirds of the speed for 8-byte elements). Written as pointer steps:
 * GCC then reaches the second and third element with scaled addressing
 * (d + 2 * ds as (d, ds, 2)), where the form d + k * ds kept 2ds, 3ds and
 * 4ds of each side in registers; in a caller's loop with state of its
 * own (tern-bench vis's) those eleven registers did not fit, and the
 * copy loop reloaded two spilled strides every four elements. The c % 4
 * odd elements go first: after the main loop nothing is live (with them
 * last, GCC kept the count across the loop and advanced the pointers by
 * multiplication after it, two stack stores a call in that caller, and
 * a copy of 32 elements is bound by its stores). */
TERN_VIS_INLINE_ void tern_vis_row_(char *d, ptrdiff_t ds, const char *s, ptrdiff_t ss,
                                    size_t c, size_t n)
{
    for (size_t r = c & 3; r; r--, d += ds, s += ss)
        memcpy(d, s, n);
    if (n == 8 && ss == 8) {
        /* a packed source (a put from a packed buffer): two elements a
         * 16-byte load, each stored from its half of the vector register
         * (movq, movhps), in order. The halves are taken by value: clang
         * refuses the address of a vector element (GCC's code is the
         * same either way) */
        for (c >>= 2; c; c--, s += 32) {
            tern_vis_q2_ a, b;
            memcpy(&a, s, sizeof a);
            memcpy(&b, s + 16, sizeof b);
            TERN_VIS_VREG_(a);
            TERN_VIS_VREG_(b);
            uint64_t e0 = a[0], e1 = a[1], e2 = b[0], e3 = b[1];
            memcpy(d, &e0, 8);
            d += ds;
            memcpy(d, &e1, 8);
            d += ds;
            memcpy(d, &e2, 8);
            d += ds;
            memcpy(d, &e3, 8);
            d += ds;
        }
        return;
    }
    for (c >>= 2; c; c--) {
        memcpy(d, s, n);
        d += ds, s += ss;
        memcpy(d, s, n);
        d += ds, s += ss;
        memcpy(d, s, n);
        d += ds, s += ss;
        memcpy(d, s, n);
        d += ds, s += ss;
    }
}

/* c elements of the constant size elemsz, element i from src + i*ss to
 * dst + i*ds, with a mapped rank (p): 1 when checked and copied here, 0
 * when the library is to do it. get: src is remote. */
TERN_VIS_INLINE_ int tern_vis_row_go_(int get, int rank, const tern_peer_fast_t *p,
                                      void *dst, const void *src, size_t c, ptrdiff_t ds,
                                      ptrdiff_t ss, ptrdiff_t rspan, size_t elemsz);

TERN_VIS_INLINE_ int tern_vis_row_fast_(int get, int rank, const tern_peer_fast_t *p,
                                        void *dst, const void *src, size_t c,
                                        ptrdiff_t ds, ptrdiff_t ss, size_t elemsz)
{
    ptrdiff_t rs = get ? ss : ds;
    ptrdiff_t rspan, lspan;
    /* A count of 0 (nothing to do) or negative as a signed value, a
     * remote stride of 0 (the same bytes written c times), a NULL local
     * pointer, an extent that wraps: the library's. */
    if ((ptrdiff_t)c <= 0 || rs == 0 ||
        __builtin_mul_overflow((ptrdiff_t)(c - 1), rs, &rspan) ||
        __builtin_mul_overflow((ptrdiff_t)(c - 1), get ? ds : ss, &lspan))
        return 0;
    (void)lspan;
    return tern_vis_row_go_(get, rank, p, dst, src, c, ds, ss, rspan, elemsz);
}

/* The same for a row a fold gave: c >= 1 and c times either stride fit
 * (what every fold checks), so the spans (c - 1) * stride fit too and are
 * not tested again; the remote stride of 0 and the NULL local pointer
 * are. */
TERN_VIS_INLINE_ int tern_vis_row_folded_(int get, int rank, const tern_peer_fast_t *p,
                                          void *dst, const void *src,
                                          const tern_vis_fold_t *f, size_t elemsz)
{
    ptrdiff_t rs = get ? f->sstride : f->dstride;
    if (rs == 0)
        return 0;
    ptrdiff_t rspan = (ptrdiff_t)((f->count - 1) * (size_t)rs);
    return tern_vis_row_go_(get, rank, p, dst, src, f->count, f->dstride, f->sstride,
                            rspan, elemsz);
}

/* tern_vis_row_fast_ once the count and the spans are checked: the range
 * test and the copy. */
TERN_VIS_INLINE_ int tern_vis_row_go_(int get, int rank, const tern_peer_fast_t *p,
                                      void *dst, const void *src, size_t c, ptrdiff_t ds,
                                      ptrdiff_t ss, ptrdiff_t rspan, size_t elemsz)
{
    /* The remote bytes [r + min(rspan, 0), r + max(rspan, 0) + elemsz):
     * |rspan| <= 2^63 and elemsz <= 64, so the length does not wrap. */
    uintptr_t off =
        (uintptr_t)(get ? src : dst) + (uintptr_t)(rspan < 0 ? rspan : 0) - p->base;
    /* off in a register: GCC otherwise compared len with (base + size) -
     * (r + min(rspan, 0)), keeping that sum live across the compares, and
     * in a caller's loop with state of its own (tern-bench vis's) it went
     * to the stack: a store a call, where a copy of 32 elements is bound
     * by its 32 stores */
    TERN_VIS_REG_(off);
    uintptr_t len =
        (rspan < 0 ? (uintptr_t)0 - (uintptr_t)rspan : (uintptr_t)rspan) + elemsz;
    if (!(off <= p->size && len <= p->size - off && elemsz < p->copy_min))
        return 0;
    char *d = (char *)dst + (get ? 0 : p->delta);
    const char *s = (const char *)src + (get ? p->delta : 0);
    if (ss == ds && ss == (ptrdiff_t)elemsz)
        tern_fast_copy_(rank, d, s, c * elemsz); /* one contiguous piece */
    else
        tern_vis_row_(d, ds, s, ss, c, elemsz);
    return 1;
}

/* tern_vis_fold_ in the caller's code, for at most
 * TERN_VIS_INLINE_LEVELS_ levels: a few compares a level and no call (the
 * out-of-line fold costs about 100 instructions before its first level:
 * the call, saved registers, the vector mask, and the copy waits for the
 * mask's chain of vector steps, where here each level's test is a branch
 * the CPU predicts); the loop unrolled when the level count is a
 * constant. The same result and the same refusals:
 * the first level whose count is not 1 is the dimension (not both
 * strides 0), every later one must continue it on both sides, no count
 * is 0 or negative as a signed value, and the count times either stride
 * fits (tested level by level: every product is at most the last). */
TERN_VIS_INLINE_ int tern_vis_fold_i_(const size_t *count, const ptrdiff_t *dststrides,
                                      const ptrdiff_t *srcstrides, size_t levels,
                                      tern_vis_fold_t *out)
{
    ptrdiff_t c = 1, s = 0, t = 0, ns = 0, nt = 0;
    for (size_t k = 0; k < levels; k++) {
        size_t ck = count[k];
        if (ck == 1)
            continue;
        if (ck - 2 >= (size_t)PTRDIFF_MAX - 1)
            return -1; /* 0, or negative as a signed value */
        if (c == 1) {  /* the dimension: c becomes at least 2 */
            s = srcstrides[k];
            t = dststrides[k];
            if ((s | t) == 0)
                return -1; /* a repeat: the library's */
            c = (ptrdiff_t)ck;
        } else if (srcstrides[k] != ns || dststrides[k] != nt ||
                   __builtin_mul_overflow(c, (ptrdiff_t)ck, &c))
            return -1;
        if (__builtin_mul_overflow(s, c, &ns) || __builtin_mul_overflow(t, c, &nt))
            return -1;
    }
    out->count = (size_t)c;
    out->sstride = s;
    out->dstride = t;
    return 0;
}

/* Two counts in a vector register (SSE2 on x86-64). */
typedef size_t tern_vis_c2_ __attribute__((vector_size(2 * sizeof(size_t))));

/* 1 when count[0, m) (m >= 1) are all 1: the OR of count ^ 1, two counts
 * a vector operation and eight a step, the last step overlapping the one
 * before it (no loop over a tail); about one instruction a level, and a
 * quarter of the loads a level-by-level scan makes. */
TERN_VIS_INLINE_ int tern_vis_ones_(const size_t *count, size_t m)
{
    const tern_vis_c2_ one = {1, 1};
    tern_vis_c2_ a = {0, 0}, b = {0, 0}, v, w;
    const size_t *e = count + m;
    if (m < 4) /* levels 0, m / 2 and m - 1 cover 1 to 3 levels, no loop */
        return ((count[0] ^ 1) | (count[m / 2] ^ 1) | (e[-1] ^ 1)) == 0;
    if (m <= 8) { /* the first four and the last four, no loop, no test of m & 4 */
        memcpy(&v, count, sizeof v);
        memcpy(&w, count + 2, sizeof w);
        a = (v ^ one) | (w ^ one);
        memcpy(&v, e - 4, sizeof v);
        memcpy(&w, e - 2, sizeof w);
        a |= (v ^ one) | (w ^ one);
        return (a[0] | a[1]) == 0;
    }
    /* pointers only: with an index and m, GCC kept one of them on the
     * stack in a caller's loop with state of its own */
    for (const size_t *e8 = count + (m & ~(size_t)7); count != e8; count += 8) {
        memcpy(&v, count, sizeof v);
        memcpy(&w, count + 2, sizeof w);
        a |= v ^ one;
        b |= w ^ one;
        memcpy(&v, count + 4, sizeof v);
        memcpy(&w, count + 6, sizeof w);
        a |= v ^ one;
        b |= w ^ one;
    }
    if (m & 4) {
        memcpy(&v, count, sizeof v);
        memcpy(&w, count + 2, sizeof w);
        a |= v ^ one;
        b |= w ^ one;
    }
    /* the last four, whatever was covered already */
    memcpy(&v, e - 4, sizeof v);
    memcpy(&w, e - 2, sizeof w);
    a |= (v ^ one) | b;
    a |= w ^ one;
    return (a[0] | a[1]) == 0;
}

/* The end of tern_vis_fold_r_ and tern_vis_fold_u_: orc, the counts or-ed,
 * has its sign bit set when one was negative; c - 1 wraps when the product
 * is 0. Then each stride times the count must fit. 0 and *out, else -1. */
TERN_VIS_INLINE_ int tern_vis_fold_end_(size_t orc, ptrdiff_t c, ptrdiff_t s, ptrdiff_t t,
                                        tern_vis_fold_t *out)
{
    ptrdiff_t ns, nt;
    if ((ptrdiff_t)(orc | ((size_t)c - 1)) < 0 || __builtin_mul_overflow(s, c, &ns) ||
        __builtin_mul_overflow(t, c, &nt))
        return -1;
    out->count = (size_t)c;
    out->sstride = s;
    out->dstride = t;
    return 0;
}

/* tern_vis_fold_ in the caller's code for the common shape of a
 * description whose level count the compiler does not see, or of more
 * than TERN_VIS_INLINE_LEVELS_ levels: levels
 * of count 1, then a run of levels whose count is not 1, each continuing
 * the one before it on both sides, then levels of count 1 only, which
 * are tested together (tern_vis_ones_: their strides are not read). The
 * run is walked level by level (a few compares and two multiplications a
 * level, each test a branch the CPU predicts); no call, no stores. 0 and
 * *out exactly as tern_vis_fold_ would give them, except a repeat (the
 * first level kept has both strides 0), which tern_vis_fold_ declines and
 * this folds with both strides 0: the caller's remote-stride test
 * (tern_vis_row_folded_) refuses it, so it is not tested twice; -1 for
 * anything else (a shape with levels of count 1 between levels kept, a
 * broken chain, a count of 0 or negative, an overflow), which the caller
 * then gives to tern_vis_fold_. The chain is compared on wrapped products
 * (s * c as unsigned); they are exact when s and t times the final count
 * fit, which is tested at the end, every partial count being at most the
 * final one once no count is 0 or negative. */
TERN_VIS_INLINE_ int tern_vis_fold_r_(const size_t *count, const ptrdiff_t *dststrides,
                                      const ptrdiff_t *srcstrides, size_t levels,
                                      tern_vis_fold_t *out)
{
    size_t k = 0, orc = count[0];
    if (orc == 1)
        do
            if (++k == levels) {
                out->count = 1;
                out->sstride = 0;
                out->dstride = 0;
                return 0;
            }
        while ((orc = count[k]) == 1);
    ptrdiff_t c = (ptrdiff_t)orc, s = srcstrides[k], t = dststrides[k];
    /* the strides the next level must have, s * c and t * c (wrapped),
     * carried: two multiplications in place a level, no copies */
    size_t es = (size_t)s * orc, et = (size_t)t * orc;
    while (++k < levels) {
        size_t ck = count[k];
        if (ck == 1)
            break;
        if ((size_t)srcstrides[k] != es || (size_t)dststrides[k] != et)
            return -1;
        es *= ck;
        et *= ck;
        orc |= ck;
        if (__builtin_mul_overflow(c, (ptrdiff_t)ck, &c))
            return -1;
    }
    if (k < levels && !tern_vis_ones_(count + k, levels - k))
        return -1;
    return tern_vis_fold_end_(orc, c, s, t, out);
}

/* tern_vis_fold_r_ unrolled for 2 to 4 levels (a level count the
 * compiler does not see) every one of which is kept: the run starts at
 * level 0 and ends at the last level. A level: its count loaded and
 * tested against 1, its two strides compared with the ones it must have,
 * the count product with an overflow test, and only when a level follows
 * the two strides the next one must have; no loop counter, and no
 * product for the strides after the last level. The same answers as
 * tern_vis_fold_r_ (a repeat folded with strides 0, as there); -1 for any
 * other shape, which the caller gives to tern_vis_fold_i_'s loop. With
 * tern_vis_fold_r_'s loop instead, tern-bench vis 3-d: 197 -> 186
 * instructions a call (RT=1 K=32 scripts/vis-cost.sh). */
TERN_VIS_INLINE_ int tern_vis_fold_u_(const size_t *count, const ptrdiff_t *dststrides,
                                      const ptrdiff_t *srcstrides, size_t levels,
                                      tern_vis_fold_t *out)
{
    size_t orc = count[0], ck;
    if (orc == 1)
        return -1;
    ptrdiff_t c = (ptrdiff_t)orc, s = srcstrides[0], t = dststrides[0];
    size_t es = (size_t)s * orc, et = (size_t)t * orc;
#define TERN_VIS_LEVEL_(k)                                                         \
    do {                                                                           \
        ck = count[k];                                                             \
        if (ck == 1 || (size_t)srcstrides[k] != es || (size_t)dststrides[k] != et) \
            return -1;                                                             \
        orc |= ck;                                                                 \
        if (__builtin_mul_overflow(c, (ptrdiff_t)ck, &c))                          \
            return -1;                                                             \
    } while (0)
    TERN_VIS_LEVEL_(1);
    if (levels > 2) {
        es *= ck;
        et *= ck;
        TERN_VIS_LEVEL_(2);
        if (levels > 3) {
            es *= ck;
            et *= ck;
            TERN_VIS_LEVEL_(3);
        }
    }
#undef TERN_VIS_LEVEL_
    return tern_vis_fold_end_(orc, c, s, t, out);
}

/* 1 when the strided transfer is done here; 0: the library does it. get:
 * src is remote. One level: about 30 instructions before the copy loop,
 * with no call (scripts/vis-cost.sh). 2 to TERN_VIS_MAX_DIMS levels that
 * fold into one dimension (tern_vis_fold_i_ unrolled for a constant
 * level count up to TERN_VIS_INLINE_LEVELS_; otherwise, for 2 to 4
 * levels all kept, tern_vis_fold_u_ (about 12 instructions a level), and
 * for more levels tern_vis_fold_r_, about 45 instructions for 27
 * trailing levels of count 1 plus 14 a level whose count is not 1; for
 * the shapes they decline
 * tern_vis_fold_i_'s loop up to TERN_VIS_INLINE_LEVELS_ levels,
 * tern_vis_fold_ out of line above; tern_vis_fold_r_ before the loop:
 * tern-bench vis 3-d and 8-d at 256 B 12-16% faster), then the same
 * checks and copy loop. */
TERN_VIS_INLINE_ int tern_vis_strided_fast_(int get, int rank, void *dst,
                                            const ptrdiff_t *dststrides, const void *src,
                                            const ptrdiff_t *srcstrides, size_t elemsz,
                                            const size_t *count, size_t levels,
                                            tern_flags_t flags)
{
    if (!(TERN_VIS_CONST_(elemsz) && elemsz - 1 < TERN_VIS_INLINE_ELEM_ &&
          levels - 1 < TERN_VIS_MAX_DIMS && !(flags & ~TERN_FLAGS_KNOWN_) &&
          (unsigned)rank < tern_fast_.npeers && count && dststrides && srcstrides &&
          (get ? dst : src)))
        return 0;
    /* the peer's entry found in each branch, not before them: live
     * across the out-of-line fold's call, it was kept on the stack */
    if (levels == 1)
        return tern_vis_row_fast_(get, rank, &tern_fast_.peer[rank], dst, src, count[0],
                                  dststrides[0], srcstrides[0], elemsz);
    tern_vis_fold_t f, g;
    if (TERN_VIS_CONST_(levels) && levels <= TERN_VIS_INLINE_LEVELS_) {
        if (tern_vis_fold_i_(count, dststrides, srcstrides, levels, &f))
            return 0;
    } else if (levels <= 4
                   ? tern_vis_fold_u_(count, dststrides, srcstrides, levels, &f)
                   : tern_vis_fold_r_(count, dststrides, srcstrides, levels, &f)) {
        /* count laundered: GCC otherwise threads the declined fold's
         * tests into tern_vis_fold_i_'s (the same loads), keeping their
         * overflow flags as values (seto) and spilling: 11 instructions
         * a 3-d call */
        TERN_VIS_REG_(count);
        if (levels <= TERN_VIS_INLINE_LEVELS_) {
            if (tern_vis_fold_i_(count, dststrides, srcstrides, levels, &f))
                return 0;
        } else {
            /* other shapes out of line, into g: f, whose address is not
             * taken, stays in registers (three stores a call otherwise) */
            if (tern_vis_fold_(count, dststrides, srcstrides, levels, &g))
                return 0;
            f = g;
        }
    }
    return tern_vis_row_folded_(get, rank, &tern_fast_.peer[rank], dst, src, &f, elemsz);
}

/* Two addresses in a vector register (SSE2 on x86-64, part of its base;
 * any target GCC and clang support). */
typedef uintptr_t tern_vis_v2_ __attribute__((vector_size(2 * sizeof(uintptr_t))));

/* 1 when an address of list[0, count) lies outside [base, base + room]
 * (room < 2^63), else 0. Two passes, the second only when the first
 * cannot decide:
 *  - bound: the OR of the offsets off = a - base. It is at least every
 *    offset, so at most room puts the whole list inside (an address below
 *    base wraps its offset past 2^63, above any room). Two addresses a
 *    vector subtract and OR, each list entry loaded once: about 1.5
 *    instructions an address. It decides every list whose offsets stay
 *    below the largest power of two at most room + 1 (the lower half of
 *    the segment at least), and fails, never wrongly passes, some lists
 *    above it.
 *  - exact: an address a lies inside exactly when the sign bit of off |
 *    (room - off) is clear (off above room, or a below base, sets it):
 *    an OR over the list, four addresses a step, about 3.5 instructions
 *    an address.
 * The inline indexed path below and the library's check without AVX2
 * (tn_vis_outside_sse2 in src/core/vis_opt.c) are this function. */
TERN_VIS_INLINE_ int tern_vis_outside_(const void *const *list, size_t count,
                                       uintptr_t base, uintptr_t room)
{
    tern_vis_v2_ h0 = {0, 0}, h1 = {0, 0};
    size_t i = 0;
    for (; i + 4 <= count; i += 4) {
        tern_vis_v2_ a, c;
        memcpy(&a, list + i, sizeof a);
        memcpy(&c, list + i + 2, sizeof c);
        TERN_VIS_VREG_(a); /* one load each, not one an operation */
        TERN_VIS_VREG_(c);
        h0 |= a - base;
        h1 |= c - base;
    }
    h0 |= h1;
    uintptr_t hi = h0[0] | h0[1];
    for (size_t j = i; j < count; j++)
        hi |= (uintptr_t)list[j] - base;
    if (hi <= room)
        return 0;
    tern_vis_v2_ b0 = {0, 0}, b1 = {0, 0};
    for (i = 0; i + 4 <= count; i += 4) {
        tern_vis_v2_ a, c;
        memcpy(&a, list + i, sizeof a);
        memcpy(&c, list + i + 2, sizeof c);
        TERN_VIS_VREG_(a);
        TERN_VIS_VREG_(c);
        a -= base;
        c -= base;
        b0 |= a | (room - a);
        b1 |= c | (room - c);
    }
    b0 |= b1;
    uintptr_t bad = b0[0] | b0[1];
    for (; i < count; i++) {
        uintptr_t off = (uintptr_t)list[i] - base;
        bad |= off | (room - off);
    }
    return (intptr_t)bad < 0;
}

/* The same for an indexed transfer of count pieces of n bytes on both
 * sides: the remote list checked first (every address a in [base, base +
 * size - n]: tern_vis_outside_), then copied four pieces a step (about 5
 * instructions a piece of 8 bytes; the loop a program writes is 7). */
TERN_VIS_INLINE_ int tern_vis_indexed_fast_(int get, int rank, size_t dstcount,
                                            void *const *dstlist, size_t dstlen,
                                            size_t srccount, const void *const *srclist,
                                            size_t srclen, tern_flags_t flags)
{
    size_t n = dstlen, count = dstcount, i;
    if (!(TERN_VIS_CONST_(dstlen) && TERN_VIS_CONST_(srclen) && dstlen == srclen &&
          n - 1 < TERN_VIS_INLINE_ELEM_ && count == srccount &&
          count - 1 < TERN_VIS_INLINE_PIECES_ && dstlist && srclist &&
          !(flags & ~TERN_FLAGS_KNOWN_) && (unsigned)rank < tern_fast_.npeers))
        return 0;
    const tern_peer_fast_t *p = &tern_fast_.peer[rank];
    /* size is 0 (not mapped) or a multiple of 64, so room does not wrap */
    if (!(p->size && n < p->copy_min))
        return 0;
    const void *const *rl = get ? srclist : (const void *const *)dstlist;
    /* the offset taken now: p was live across the check for it, and in
     * a caller's loop with state of its own went to the stack (a store a
     * call; see tern_vis_row_fast_) */
    intptr_t delta = p->delta;
    TERN_VIS_REG_(delta);
    if (tern_vis_outside_(rl, count, p->base, p->size - n))
        return 0;
    intptr_t dd = get ? 0 : delta, sd = get ? delta : 0;
#define TERN_VIS_ONE_(j)                              \
    do {                                              \
        char *d_ = (char *)dstlist[j] + dd;           \
        TERN_VIS_REG_(d_);                            \
        memcpy(d_, (const char *)srclist[j] + sd, n); \
    } while (0)
    for (i = 0; i + 4 <= count; i += 4) {
        TERN_VIS_ONE_(i);
        TERN_VIS_ONE_(i + 1);
        TERN_VIS_ONE_(i + 2);
        TERN_VIS_ONE_(i + 3);
    }
    for (; i < count; i++)
        TERN_VIS_ONE_(i);
#undef TERN_VIS_ONE_
    return 1;
}

/* The events and ordering of a transfer done inline, as the library's. */
#define TERN_VIS_DONE_(op, lc, rc)                             \
    do {                                                       \
        if ((op) == TERN_RMA_PUT_ || (op) == TERN_RMA_PUT_NB_) \
            TERN_PUT_FENCE_();                                 \
        if (lc)                                                \
            *(lc) = TERN_EVENT_DONE;                           \
        if (rc)                                                \
            *(rc) = TERN_EVENT_DONE;                           \
        return TERN_OK;                                        \
    } while (0)
#define TERN_VIS_STRIDED_FAST_(ctx, op, ...) \
    ((ctx) == TERN_CTX_DEFAULT && tern_vis_strided_fast_((op)&1, __VA_ARGS__))
#define TERN_VIS_INDEXED_FAST_(ctx, op, ...) \
    ((ctx) == TERN_CTX_DEFAULT && tern_vis_indexed_fast_((op)&1, __VA_ARGS__))
#else
#define TERN_VIS_DONE_(op, lc, rc)           return TERN_OK
#define TERN_VIS_STRIDED_FAST_(ctx, op, ...) 0
#define TERN_VIS_INDEXED_FAST_(ctx, op, ...) 0
#endif

/* Every strided and indexed call below: the inline fast path, else the
 * library. op, lc and rc are constants in each of them. */
TERN_VIS_INLINE_ tern_status_t tern_vis_strided_i_(
    tern_ctx_t ctx, int op, int rank, void *dst, const ptrdiff_t *dststrides,
    const void *src, const ptrdiff_t *srcstrides, size_t elemsz, const size_t *count,
    size_t stridelevels, tern_event_t *lc, tern_event_t *rc, tern_flags_t flags)
{
    if (TERN_VIS_STRIDED_FAST_(ctx, op, rank, dst, dststrides, src, srcstrides, elemsz,
                               count, stridelevels, flags))
        TERN_VIS_DONE_(op, lc, rc);
    return tern_vis_strided_(ctx, op, rank, dst, dststrides, src, srcstrides, elemsz,
                             count, stridelevels, lc, rc, flags);
}
TERN_VIS_INLINE_ tern_status_t tern_vis_indexed_i_(tern_ctx_t ctx, int op, int rank,
                                                   size_t dstcount, void *const *dstlist,
                                                   size_t dstlen, size_t srccount,
                                                   const void *const *srclist,
                                                   size_t srclen, tern_event_t *lc,
                                                   tern_event_t *rc, tern_flags_t flags)
{
    if (TERN_VIS_INDEXED_FAST_(ctx, op, rank, dstcount, dstlist, dstlen, srccount,
                               srclist, srclen, flags))
        TERN_VIS_DONE_(op, lc, rc);
    return tern_vis_indexed_(ctx, op, rank, dstcount, dstlist, dstlen, srccount, srclist,
                             srclen, lc, rc, flags);
}

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
TERN_VIS_INLINE_ tern_status_t tern_ctx_put_indexed(
    tern_ctx_t ctx, int rank, size_t dstcount, void *const dstlist[], size_t dstlen,
    size_t srccount, const void *const srclist[], size_t srclen, tern_flags_t flags)
{
    return tern_vis_indexed_i_(ctx, TERN_RMA_PUT_, rank, dstcount, dstlist, dstlen,
                               srccount, srclist, srclen, 0, 0, flags);
}
TERN_VIS_INLINE_ tern_status_t tern_put_indexed(int rank, size_t dstcount,
                                                void *const dstlist[], size_t dstlen,
                                                size_t srccount,
                                                const void *const srclist[],
                                                size_t srclen, tern_flags_t flags)
{
    return tern_ctx_put_indexed(TERN_CTX_DEFAULT, rank, dstcount, dstlist, dstlen,
                                srccount, srclist, srclen, flags);
}
TERN_VIS_INLINE_ tern_status_t tern_ctx_get_indexed(tern_ctx_t ctx, size_t dstcount,
                                                    void *const dstlist[], size_t dstlen,
                                                    int rank, size_t srccount,
                                                    const void *const srclist[],
                                                    size_t srclen, tern_flags_t flags)
{
    return tern_vis_indexed_i_(ctx, TERN_RMA_GET_, rank, dstcount, dstlist, dstlen,
                               srccount, srclist, srclen, 0, 0, flags);
}
TERN_VIS_INLINE_ tern_status_t tern_get_indexed(size_t dstcount, void *const dstlist[],
                                                size_t dstlen, int rank, size_t srccount,
                                                const void *const srclist[],
                                                size_t srclen, tern_flags_t flags)
{
    return tern_ctx_get_indexed(TERN_CTX_DEFAULT, dstcount, dstlist, dstlen, rank,
                                srccount, srclist, srclen, flags);
}
TERN_VIS_INLINE_ tern_status_t tern_ctx_put_indexed_nb(
    tern_ctx_t ctx, int rank, size_t dstcount, void *const dstlist[], size_t dstlen,
    size_t srccount, const void *const srclist[], size_t srclen, tern_event_t *lc,
    tern_event_t *rc, tern_flags_t flags)
{
    return tern_vis_indexed_i_(ctx, TERN_RMA_PUT_NB_, rank, dstcount, dstlist, dstlen,
                               srccount, srclist, srclen, lc, rc, flags);
}
TERN_VIS_INLINE_ tern_status_t tern_put_indexed_nb(int rank, size_t dstcount,
                                                   void *const dstlist[], size_t dstlen,
                                                   size_t srccount,
                                                   const void *const srclist[],
                                                   size_t srclen, tern_event_t *lc,
                                                   tern_event_t *rc, tern_flags_t flags)
{
    return tern_ctx_put_indexed_nb(TERN_CTX_DEFAULT, rank, dstcount, dstlist, dstlen,
                                   srccount, srclist, srclen, lc, rc, flags);
}
TERN_VIS_INLINE_ tern_status_t tern_ctx_get_indexed_nb(
    tern_ctx_t ctx, size_t dstcount, void *const dstlist[], size_t dstlen, int rank,
    size_t srccount, const void *const srclist[], size_t srclen, tern_event_t *done,
    tern_flags_t flags)
{
    return tern_vis_indexed_i_(ctx, TERN_RMA_GET_NB_, rank, dstcount, dstlist, dstlen,
                               srccount, srclist, srclen, 0, done, flags);
}
TERN_VIS_INLINE_ tern_status_t tern_get_indexed_nb(
    size_t dstcount, void *const dstlist[], size_t dstlen, int rank, size_t srccount,
    const void *const srclist[], size_t srclen, tern_event_t *done, tern_flags_t flags)
{
    return tern_ctx_get_indexed_nb(TERN_CTX_DEFAULT, dstcount, dstlist, dstlen, rank,
                                   srccount, srclist, srclen, done, flags);
}
TERN_VIS_INLINE_ tern_status_t tern_ctx_put_indexed_nbi(
    tern_ctx_t ctx, int rank, size_t dstcount, void *const dstlist[], size_t dstlen,
    size_t srccount, const void *const srclist[], size_t srclen, tern_flags_t flags)
{
    return tern_vis_indexed_i_(ctx, TERN_RMA_PUT_NBI_, rank, dstcount, dstlist, dstlen,
                               srccount, srclist, srclen, 0, 0, flags);
}
TERN_VIS_INLINE_ tern_status_t tern_put_indexed_nbi(int rank, size_t dstcount,
                                                    void *const dstlist[], size_t dstlen,
                                                    size_t srccount,
                                                    const void *const srclist[],
                                                    size_t srclen, tern_flags_t flags)
{
    return tern_ctx_put_indexed_nbi(TERN_CTX_DEFAULT, rank, dstcount, dstlist, dstlen,
                                    srccount, srclist, srclen, flags);
}
TERN_VIS_INLINE_ tern_status_t tern_ctx_get_indexed_nbi(
    tern_ctx_t ctx, size_t dstcount, void *const dstlist[], size_t dstlen, int rank,
    size_t srccount, const void *const srclist[], size_t srclen, tern_flags_t flags)
{
    return tern_vis_indexed_i_(ctx, TERN_RMA_GET_NBI_, rank, dstcount, dstlist, dstlen,
                               srccount, srclist, srclen, 0, 0, flags);
}
TERN_VIS_INLINE_ tern_status_t tern_get_indexed_nbi(size_t dstcount,
                                                    void *const dstlist[], size_t dstlen,
                                                    int rank, size_t srccount,
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
TERN_VIS_INLINE_ tern_status_t
tern_ctx_put_strided(tern_ctx_t ctx, int rank, void *dst, const ptrdiff_t dststrides[],
                     const void *src, const ptrdiff_t srcstrides[], size_t elemsz,
                     const size_t count[], size_t stridelevels, tern_flags_t flags)
{
    return tern_vis_strided_i_(ctx, TERN_RMA_PUT_, rank, dst, dststrides, src, srcstrides,
                               elemsz, count, stridelevels, 0, 0, flags);
}
TERN_VIS_INLINE_ tern_status_t tern_put_strided(int rank, void *dst,
                                                const ptrdiff_t dststrides[],
                                                const void *src,
                                                const ptrdiff_t srcstrides[],
                                                size_t elemsz, const size_t count[],
                                                size_t stridelevels, tern_flags_t flags)
{
    return tern_ctx_put_strided(TERN_CTX_DEFAULT, rank, dst, dststrides, src, srcstrides,
                                elemsz, count, stridelevels, flags);
}
TERN_VIS_INLINE_ tern_status_t
tern_ctx_get_strided(tern_ctx_t ctx, void *dst, const ptrdiff_t dststrides[], int rank,
                     const void *src, const ptrdiff_t srcstrides[], size_t elemsz,
                     const size_t count[], size_t stridelevels, tern_flags_t flags)
{
    return tern_vis_strided_i_(ctx, TERN_RMA_GET_, rank, dst, dststrides, src, srcstrides,
                               elemsz, count, stridelevels, 0, 0, flags);
}
TERN_VIS_INLINE_ tern_status_t tern_get_strided(void *dst, const ptrdiff_t dststrides[],
                                                int rank, const void *src,
                                                const ptrdiff_t srcstrides[],
                                                size_t elemsz, const size_t count[],
                                                size_t stridelevels, tern_flags_t flags)
{
    return tern_ctx_get_strided(TERN_CTX_DEFAULT, dst, dststrides, rank, src, srcstrides,
                                elemsz, count, stridelevels, flags);
}
TERN_VIS_INLINE_ tern_status_t tern_ctx_put_strided_nb(
    tern_ctx_t ctx, int rank, void *dst, const ptrdiff_t dststrides[], const void *src,
    const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
    size_t stridelevels, tern_event_t *lc, tern_event_t *rc, tern_flags_t flags)
{
    return tern_vis_strided_i_(ctx, TERN_RMA_PUT_NB_, rank, dst, dststrides, src,
                               srcstrides, elemsz, count, stridelevels, lc, rc, flags);
}
TERN_VIS_INLINE_ tern_status_t tern_put_strided_nb(
    int rank, void *dst, const ptrdiff_t dststrides[], const void *src,
    const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
    size_t stridelevels, tern_event_t *lc, tern_event_t *rc, tern_flags_t flags)
{
    return tern_ctx_put_strided_nb(TERN_CTX_DEFAULT, rank, dst, dststrides, src,
                                   srcstrides, elemsz, count, stridelevels, lc, rc,
                                   flags);
}
TERN_VIS_INLINE_ tern_status_t tern_ctx_get_strided_nb(
    tern_ctx_t ctx, void *dst, const ptrdiff_t dststrides[], int rank, const void *src,
    const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
    size_t stridelevels, tern_event_t *done, tern_flags_t flags)
{
    return tern_vis_strided_i_(ctx, TERN_RMA_GET_NB_, rank, dst, dststrides, src,
                               srcstrides, elemsz, count, stridelevels, 0, done, flags);
}
TERN_VIS_INLINE_ tern_status_t
tern_get_strided_nb(void *dst, const ptrdiff_t dststrides[], int rank, const void *src,
                    const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                    size_t stridelevels, tern_event_t *done, tern_flags_t flags)
{
    return tern_ctx_get_strided_nb(TERN_CTX_DEFAULT, dst, dststrides, rank, src,
                                   srcstrides, elemsz, count, stridelevels, done, flags);
}
TERN_VIS_INLINE_ tern_status_t tern_ctx_put_strided_nbi(
    tern_ctx_t ctx, int rank, void *dst, const ptrdiff_t dststrides[], const void *src,
    const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
    size_t stridelevels, tern_flags_t flags)
{
    return tern_vis_strided_i_(ctx, TERN_RMA_PUT_NBI_, rank, dst, dststrides, src,
                               srcstrides, elemsz, count, stridelevels, 0, 0, flags);
}
TERN_VIS_INLINE_ tern_status_t
tern_put_strided_nbi(int rank, void *dst, const ptrdiff_t dststrides[], const void *src,
                     const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                     size_t stridelevels, tern_flags_t flags)
{
    return tern_ctx_put_strided_nbi(TERN_CTX_DEFAULT, rank, dst, dststrides, src,
                                    srcstrides, elemsz, count, stridelevels, flags);
}
TERN_VIS_INLINE_ tern_status_t tern_ctx_get_strided_nbi(
    tern_ctx_t ctx, void *dst, const ptrdiff_t dststrides[], int rank, const void *src,
    const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
    size_t stridelevels, tern_flags_t flags)
{
    return tern_vis_strided_i_(ctx, TERN_RMA_GET_NBI_, rank, dst, dststrides, src,
                               srcstrides, elemsz, count, stridelevels, 0, 0, flags);
}
TERN_VIS_INLINE_ tern_status_t
tern_get_strided_nbi(void *dst, const ptrdiff_t dststrides[], int rank, const void *src,
                     const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                     size_t stridelevels, tern_flags_t flags)
{
    return tern_ctx_get_strided_nbi(TERN_CTX_DEFAULT, dst, dststrides, rank, src,
                                    srcstrides, elemsz, count, stridelevels, flags);
}

#ifdef __cplusplus
}
#endif
#endif
