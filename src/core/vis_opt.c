/* The stride optimizer (a pure rewrite of a strided description) and the
 * loops that walk and copy an optimized description. See vis_opt.h and
 * docs/design/non-contiguous.md. */
#include "core/vis_opt.h"

#include "base/compiler.h"

#include <stdatomic.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static void set_empty(tn_vis_desc_t *d)
{
    d->elem = 0;
    d->ndims = 0;
    d->soff = d->doff = 0;
}

static int is_empty(const tn_vis_desc_t *d)
{
    if (d->elem == 0)
        return 1;
    for (int k = 0; k < d->ndims; k++)
        if (d->count[k] == 0)
            return 1;
    return 0;
}

static size_t absz(ptrdiff_t v)
{
    return v < 0 ? (size_t)0 - (size_t)v : (size_t)v;
}

/* Dimension a sorts before b: nearer source bytes first, then nearer
 * destination bytes (the order in which folding finds continuations). */
static int before(const tn_vis_desc_t *d, int a, int b)
{
    if (d->sstride[a] != d->sstride[b])
        return d->sstride[a] < d->sstride[b];
    return absz(d->dstride[a]) < absz(d->dstride[b]);
}

/* count * stride == next, without overflow. */
static int continues(size_t count, ptrdiff_t stride, ptrdiff_t next)
{
    ptrdiff_t p;
    if (count > (size_t)PTRDIFF_MAX ||
        __builtin_mul_overflow((ptrdiff_t)count, stride, &p))
        return 0;
    return p == next;
}

/* The first level at or after k whose count is not 1 (levels when none
 * is): what a many-level description of a simple motion mostly holds.
 * Four levels a step with SSE2 (part of x86-64: no dispatch), about 8
 * instructions per four levels, then one by one. */
static TN_ALWAYS_INLINE size_t skip_ones(const size_t *count, size_t k, size_t levels)
{
    if (k < levels && count[k] != 1) /* dense levels: one compare */
        return k;
#if defined(__SSE2__) && SIZE_MAX == UINT64_MAX
    /* a count is 1 when both of its 32-bit halves match (1, 0) */
    const __m128i one = _mm_set1_epi64x(1);
    for (; k + 4 <= levels; k += 4) {
        __m128i a = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(count + k)), one);
        __m128i b =
            _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(count + k + 2)), one);
        if (_mm_movemask_epi8(_mm_and_si128(a, b)) != 0xffff)
            break;
    }
#endif
    while (k < levels && count[k] == 1)
        k++;
    return k;
}

int tn_vis_describe(tn_vis_desc_t *d, size_t elemsz, const size_t *count,
                    const ptrdiff_t *sstride, const ptrdiff_t *dstride, size_t levels,
                    size_t *rep, ptrdiff_t ext[4])
{
    size_t r = 1;
    int nd = 0;
    /* What a level that continues the last dimension kept multiplies (at
     * first the element: a level contiguous with it on both sides folds
     * into it), and the strides that continue it: that count times its
     * strides (the element's are its size). An element of 0 bytes moves
     * nothing; its strides are set so that levels rarely match. */
    size_t *cur = &d->elem;
    ptrdiff_t ns = elemsz ? (ptrdiff_t)elemsz : PTRDIFF_MIN, nt = ns;
    d->elem = elemsz;
    d->soff = d->doff = 0;
    if (elemsz > PTRDIFF_MAX)
        return -1;
    /* A level of count 1: skip_ones. Any other: the range of the count,
     * two loads, two compares, and for one that continues two or three
     * multiplications with their overflow tests. Any overflow sends the
     * call to the level-by-level checks (a product that overflows there
     * is an extent or a total that does). */
    for (size_t k = 0;; k++) {
        k = skip_ones(count, k, levels);
        if (k == levels)
            break;
        size_t c = count[k];
        if (c - 2 >= (size_t)PTRDIFF_MAX - 1)
            return -1; /* 0, or negative as a signed value */
        ptrdiff_t s = sstride[k], t = dstride[k];
        if (s == ns && t == nt) {
            /* continues the element or the last dimension kept on both
             * sides: the pair moves what one of the product count does */
            if (__builtin_mul_overflow(*cur, c, cur))
                return -1;
        } else if ((s | t) == 0) {
            if (__builtin_mul_overflow(r, c, &r))
                return -1;
            continue;
        } else {
            d->count[nd] = c;
            d->sstride[nd] = ns = s;
            d->dstride[nd] = nt = t;
            cur = &d->count[nd++];
        }
        if (__builtin_mul_overflow(ns, (ptrdiff_t)c, &ns) ||
            __builtin_mul_overflow(nt, (ptrdiff_t)c, &nt))
            return -1;
    }
    d->ndims = nd;
    *rep = r;
    ext[0] = ext[1] = ext[2] = ext[3] = 0;
    if (elemsz == 0) {
        d->elem = 0;
        d->ndims = 0;
        return 0;
    }
    /* The total and the extents on the merged dimensions: a merged span
     * is the sum of its parts' spans, which have one sign, so it wraps
     * exactly when the level-by-level sums would. */
    size_t total = d->elem;
    if (__builtin_mul_overflow(total, r, &total))
        return -1;
    for (int k = 0; k < nd; k++)
        if (d->count[k] > (size_t)PTRDIFF_MAX ||
            __builtin_mul_overflow(total, d->count[k], &total) ||
            tn_vis_span_wraps(ext, d->count[k], d->sstride[k]) ||
            tn_vis_span_wraps(ext + 2, d->count[k], d->dstride[k]))
            return -1;
    if (__builtin_add_overflow(ext[1], (ptrdiff_t)d->elem, &ext[1]) ||
        __builtin_add_overflow(ext[3], (ptrdiff_t)d->elem, &ext[3]))
        return -1;
    return 0;
}

int tn_vis_describe_row(tn_vis_row_t *row, size_t elemsz, const size_t *count,
                        const ptrdiff_t *sstride, const ptrdiff_t *dstride, size_t levels)
{
    /* tn_vis_describe's pass with the element (e), the one dimension kept
     * (c, s, t) and the strides that continue it (ns, nt) in registers.
     * A merged count times its stride is ns or nt times the level's
     * count, whose overflow is tested: the counts' products need no test
     * of their own. The next strides are computed from the level's
     * strides just loaded (equal to ns and nt), not from ns and nt, so
     * that the only chain of multiplications from level to level is c. */
    size_t e = elemsz, c = 1, k = 0, ck;
    ptrdiff_t s = 0, t = 0, ns = (ptrdiff_t)elemsz, nt = ns, a, b;
    if (elemsz - 1 >= (size_t)PTRDIFF_MAX)
        return -1; /* 0: nothing moves; or negative */
    /* until a dimension is kept, levels contiguous with the element on
     * both sides fold into it */
    for (;; k++) {
        if ((k = skip_ones(count, k, levels)) == levels)
            goto done;
        if ((ck = count[k]) - 2 >= (size_t)PTRDIFF_MAX - 1)
            return -1; /* 0, or negative as a signed value */
        a = sstride[k];
        b = dstride[k];
        if (a != ns || b != nt)
            break;
        e *= ck;
        if (__builtin_mul_overflow(a, (ptrdiff_t)ck, &ns) ||
            __builtin_mul_overflow(b, (ptrdiff_t)ck, &nt))
            return -1;
    }
    if ((a | b) == 0)
        return -1; /* a repeat */
    c = ck;
    s = a;
    t = b;
    if (__builtin_mul_overflow(a, (ptrdiff_t)ck, &ns) ||
        __builtin_mul_overflow(b, (ptrdiff_t)ck, &nt))
        return -1;
    /* then every other level must continue that dimension: about 15
     * instructions a level */
    for (k++;; k++) {
        if ((k = skip_ones(count, k, levels)) == levels)
            break;
        if ((ck = count[k]) - 2 >= (size_t)PTRDIFF_MAX - 1 || (a = sstride[k]) != ns ||
            (b = dstride[k]) != nt)
            return -1;
        c *= ck;
        if (__builtin_mul_overflow(a, (ptrdiff_t)ck, &ns) ||
            __builtin_mul_overflow(b, (ptrdiff_t)ck, &nt))
            return -1;
    }
done:;
    /* the spans (c-1)*s and (c-1)*t are ns - s and nt - t (of the sign
     * of s and t, smaller than ns and nt, which did not overflow); the
     * total e*c must fit in size_t and the ends of the extents in
     * ptrdiff_t. c is 1 only when no dimension was kept. */
    size_t total;
    ptrdiff_t sspan = c == 1 ? 0 : ns - s, dspan = c == 1 ? 0 : nt - t;
    if (__builtin_mul_overflow(e, c, &total) ||
        __builtin_add_overflow(sspan > 0 ? sspan : 0, (ptrdiff_t)e, &row->ext[1]) ||
        __builtin_add_overflow(dspan > 0 ? dspan : 0, (ptrdiff_t)e, &row->ext[3]))
        return -1;
    row->ext[0] = sspan < 0 ? sspan : 0;
    row->ext[2] = dspan < 0 ? dspan : 0;
    row->elem = e;
    row->count = c;
    row->sstride = s;
    row->dstride = t;
    return 0;
}

/* Bit 2k set when count[k] is not 1, for k < levels (at most 32): the
 * levels a description's fold must look at. Two bits a level because
 * both vector forms produce them that way, and compressing them to one
 * cost about 16 instructions more than the fold spends on its address
 * arithmetic (byte offset 4 * bit index instead of 8 * level). With SSE2
 * (part of x86-64) eight levels a step: each count compared as two 32-bit
 * halves with (1, 0), the halves packed to bytes, one byte mask (a level
 * is 1 when both of its bits are), about 14 instructions per eight
 * levels; with AVX2 sixteen levels a step, about 9 instructions. */
uint64_t tn_vis_nonone_sse2(const size_t *count, size_t levels)
{
    uint64_t m = 0, x;
    size_t k = 0;
#if defined(__SSE2__) && SIZE_MAX == UINT64_MAX
    const __m128i one = _mm_set1_epi64x(1);
#pragma GCC unroll 4
    for (; k + 8 <= levels; k += 8) {
        const __m128i *p = (const __m128i *)(count + k);
        __m128i a = _mm_cmpeq_epi32(_mm_loadu_si128(p), one);
        __m128i b = _mm_cmpeq_epi32(_mm_loadu_si128(p + 1), one);
        __m128i c = _mm_cmpeq_epi32(_mm_loadu_si128(p + 2), one);
        __m128i d = _mm_cmpeq_epi32(_mm_loadu_si128(p + 3), one);
        __m128i w = _mm_packs_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d));
        m |= (uint64_t)(unsigned)_mm_movemask_epi8(w) << (2 * k);
    }
#endif
    x = m & (m >> 1) & 0x5555555555555555ull; /* bit 2k: count[k] is 1 */
    for (; k < levels; k++)
        x |= (uint64_t)(count[k] == 1) << (2 * k);
    return ~x & 0x5555555555555555ull & ((2ull << (2 * levels - 1)) - 1);
}

/* The fold's result, one 8-byte store a field. GCC would pair the two
 * strides into one 16-byte vector store; the caller then reads each field
 * with an 8-byte load, and a load that starts inside a wider store, not
 * at its first byte, is not forwarded from it on some cores (it waits for
 * the store to reach the cache). The empty asm keeps the stores apart. */
static TN_ALWAYS_INLINE int put_fold(tern_vis_fold_t *out, size_t c, ptrdiff_t s,
                                     ptrdiff_t t)
{
    out->count = c;
    __asm__("" ::: "memory");
    out->sstride = s;
    __asm__("" ::: "memory");
    out->dstride = t;
    return 0;
}

/* The fold of tern_vis_fold_ once m (bit 2k: count[k] is not 1) is
 * known. About 13 instructions a level whose count is not 1: the first
 * is the dimension (count c, strides s and t), every other must continue
 * it on both sides (its strides are ns and nt, the strides so far times
 * the count so far). The products ns and nt are not tested for overflow
 * level by level: c is (imul and jo, signed), and at the end s*c and t*c are.
 * If those fit, every s*C_k and t*C_k (C_k the counts before level k, at
 * most c) fits too, so each ns and nt was computed exactly and a level
 * matched the true continuation. A count 0 (c is 0) is tested once at the
 * end, a count negative as a signed value level by level. Level k is read
 * at byte 8k = 4 * (bit index 2k) of each array.
 *
 * Few values live in the loop (the three arrays, out, m, c, ns, nt and
 * a level's count), so that it fits in the registers a call may clobber
 * and the function saves none: s and t go to *out before the loop and
 * are read back from there at the end (with eight values more live, the
 * function pushed and popped five registers a call). */
#define TN_VIS_AT(a, b) (*(const __typeof__(*(a)) *)((const char *)(a) + 4 * (b)))
static TN_ALWAYS_INLINE int fold_levels(uint64_t m, const size_t *count,
                                        const ptrdiff_t *dststrides,
                                        const ptrdiff_t *srcstrides, tern_vis_fold_t *out)
{
    if (!m) /* every count is 1: one piece */
        return put_fold(out, 1, 0, 0);
    uint64_t b = (uint64_t)(unsigned)__builtin_ctzll(m);
    ptrdiff_t c = (ptrdiff_t)TN_VIS_AT(count, b), ck, e;
    ptrdiff_t ns = TN_VIS_AT(srcstrides, b), nt = TN_VIS_AT(dststrides, b);
    if ((ns | nt) == 0 || c < 0)
        return -1;     /* a repeat (the library's), or a negative count */
    out->sstride = ns; /* one 8-byte store a field, as put_fold */
    __asm__("" ::: "memory");
    out->dstride = nt;
    __asm__("" ::: "memory");                 /* read back at the end, not kept */
    ns = (ptrdiff_t)((size_t)ns * (size_t)c); /* wraps only where the final test fails */
    nt = (ptrdiff_t)((size_t)nt * (size_t)c);
    for (m &= m - 1; m; m &= m - 1) {
        b = (uint64_t)(unsigned)__builtin_ctzll(m);
        ck = (ptrdiff_t)TN_VIS_AT(count, b);
        if (TN_VIS_AT(srcstrides, b) != ns || TN_VIS_AT(dststrides, b) != nt || ck < 0 ||
            __builtin_mul_overflow(c, ck, &c))
            return -1;
        ns = (ptrdiff_t)((size_t)ns * (size_t)ck); /* as above */
        nt = (ptrdiff_t)((size_t)nt * (size_t)ck);
    }
    if ((size_t)c - 1 >= (size_t)PTRDIFF_MAX ||
        __builtin_mul_overflow(out->sstride, c, &e) ||
        __builtin_mul_overflow(out->dstride, c, &e))
        return -1;
    out->count = (size_t)c;
    return 0;
}
#undef TN_VIS_AT

int tn_vis_fold_sse2(const size_t *count, const ptrdiff_t *dststrides,
                     const ptrdiff_t *srcstrides, size_t levels, tern_vis_fold_t *out)
{
    return fold_levels(tn_vis_nonone_sse2(count, levels), count, dststrides, srcstrides,
                       out);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TN_VIS_HAVE_AVX2 1
/* Sixteen levels a step: four compares (the load folded in), the
 * 64-bit results packed to 32-, 16- then 8-bit lanes inside each 128-bit
 * half (two packs), the dwords put back in level order (one vpermd: after
 * the packs, the dwords hold levels 0-1, 4-5, 8-9, 12-13 | 2-3, 6-7,
 * 10-11, 14-15), one byte mask: two bits a level, about 9 instructions.
 * The rest four at a time (the same packs on one compare: bits 0-3 and
 * 16-19 of its byte mask), then one by one. */
__attribute__((target("avx2"))) static TN_ALWAYS_INLINE uint64_t
nonone_avx2(const size_t *count, size_t levels)
{
    const __m256i one = _mm256_set1_epi64x(1);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    uint64_t x = 0; /* bits 2k and 2k+1: count[k] is 1 */
    size_t k = 0;
#define TN_VIS_EQ1(i) \
    _mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i *)(count + (i))), one)
    /* levels <= 32: at most two steps of sixteen, written out (a loop
     * cost about 15 instructions of set-up) */
    if (levels >= 16) {
        __m256i lo = _mm256_packs_epi32(TN_VIS_EQ1(0), TN_VIS_EQ1(4));
        __m256i hi = _mm256_packs_epi32(TN_VIS_EQ1(8), TN_VIS_EQ1(12));
        __m256i w = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(lo, hi), order);
        x = (unsigned)_mm256_movemask_epi8(w);
        k = 16;
        if (levels == 32) {
            lo = _mm256_packs_epi32(TN_VIS_EQ1(16), TN_VIS_EQ1(20));
            hi = _mm256_packs_epi32(TN_VIS_EQ1(24), TN_VIS_EQ1(28));
            w = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(lo, hi), order);
            x |= (uint64_t)(unsigned)_mm256_movemask_epi8(w) << 32;
            k = 32;
        }
    }
    for (; k + 4 <= levels; k += 4) {
        __m256i e = TN_VIS_EQ1(k);
        e = _mm256_packs_epi32(e, e);
        unsigned b = (unsigned)_mm256_movemask_epi8(_mm256_packs_epi16(e, e));
        x |= (uint64_t)((b & 0xf) | (b >> 12 & 0xf0)) << (2 * k);
    }
#undef TN_VIS_EQ1
    for (; k < levels; k++)
        x |= (uint64_t)(count[k] == 1) << (2 * k);
    return ~x & 0x5555555555555555ull & ((2ull << (2 * levels - 1)) - 1);
}

__attribute__((target("avx2"))) uint64_t tn_vis_nonone_avx2(const size_t *count,
                                                            size_t levels)
{
    return nonone_avx2(count, levels);
}

__attribute__((target("avx2,bmi"))) int
tn_vis_fold_avx2(const size_t *count, const ptrdiff_t *dststrides,
                 const ptrdiff_t *srcstrides, size_t levels, tern_vis_fold_t *out)
{
    return fold_levels(nonone_avx2(count, levels), count, dststrides, srcstrides, out);
}
#endif

/* The fold for this CPU, through a pointer so that tern_vis_fold_ is one
 * indirect jump with no frame (a flag tested inside it cost a frame of
 * five saved registers, about 15 instructions a call). The pointer starts
 * at fold_first, which chooses (AVX2 where the CPU and the kernel offer
 * it: __builtin_cpu_supports, no ifunc, so TSan builds are not affected)
 * and stores its choice; racing first calls store the same value. */
typedef int (*fold_fn)(const size_t *, const ptrdiff_t *, const ptrdiff_t *, size_t,
                       tern_vis_fold_t *);
static int fold_first(const size_t *count, const ptrdiff_t *dststrides,
                      const ptrdiff_t *srcstrides, size_t levels, tern_vis_fold_t *out);
static _Atomic(fold_fn) fold_impl = fold_first;

static TN_NOINLINE int fold_first(const size_t *count, const ptrdiff_t *dststrides,
                                  const ptrdiff_t *srcstrides, size_t levels,
                                  tern_vis_fold_t *out)
{
    fold_fn f = tn_vis_fold_sse2;
#ifdef TN_VIS_HAVE_AVX2
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi"))
        f = tn_vis_fold_avx2;
#endif
    atomic_store_explicit(&fold_impl, f, memory_order_relaxed);
    return f(count, dststrides, srcstrides, levels, out);
}

int tern_vis_fold_(const size_t *count, const ptrdiff_t *dststrides,
                   const ptrdiff_t *srcstrides, size_t levels, tern_vis_fold_t *out)
{
    if (levels - 1 >= TERN_VIS_MAX_DIMS)
        return -1;
    return atomic_load_explicit(&fold_impl, memory_order_relaxed)(
        count, dststrides, srcstrides, levels, out);
}

/* tn_vis_optimize of one dimension, the common result of tn_vis_describe:
 * the same steps without the loops. */
static void optimize_1d(tn_vis_desc_t *d)
{
    size_t c = d->count[0];
    ptrdiff_t s = d->sstride[0], t = d->dstride[0];
    if (c == 1 || (s | t) == 0) {
        d->ndims = 0;
        return;
    }
    if (s < 0 || (s == 0 && t < 0)) {
        d->soff += (ptrdiff_t)(c - 1) * s;
        d->doff += (ptrdiff_t)(c - 1) * t;
        d->sstride[0] = s = -s;
        d->dstride[0] = t = -t;
    }
    if ((size_t)s == d->elem && t == s) {
        d->elem *= c;
        d->ndims = 0;
    }
}

void tn_vis_optimize(tn_vis_desc_t *d)
{
    if (is_empty(d)) {
        set_empty(d);
        return;
    }
    if (d->ndims == 1) {
        optimize_1d(d);
        return;
    }
    /* 2. null dimensions: they add no offset, or repeat the same copy */
    int n = 0;
    for (int k = 0; k < d->ndims; k++) {
        if (d->count[k] == 1 || (d->sstride[k] == 0 && d->dstride[k] == 0))
            continue;
        d->count[n] = d->count[k];
        d->sstride[n] = d->sstride[k];
        d->dstride[n] = d->dstride[k];
        n++;
    }
    d->ndims = n;
    /* 3. inversion: walking dimension k backwards starts both sides at
     * (count-1)*stride and negates the strides */
    for (int k = 0; k < d->ndims; k++) {
        if (d->sstride[k] < 0 || (d->sstride[k] == 0 && d->dstride[k] < 0)) {
            ptrdiff_t last = (ptrdiff_t)(d->count[k] - 1);
            d->soff += last * d->sstride[k];
            d->doff += last * d->dstride[k];
            d->sstride[k] = -d->sstride[k];
            d->dstride[k] = -d->dstride[k];
        }
    }
    /* 4. sort: insertion sort (n <= 32, usually a handful) */
    for (int i = 1; i < d->ndims; i++) {
        for (int j = i; j > 0 && before(d, j, j - 1); j--) {
            size_t c = d->count[j];
            ptrdiff_t s = d->sstride[j], t = d->dstride[j];
            d->count[j] = d->count[j - 1];
            d->sstride[j] = d->sstride[j - 1];
            d->dstride[j] = d->dstride[j - 1];
            d->count[j - 1] = c;
            d->sstride[j - 1] = s;
            d->dstride[j - 1] = t;
        }
    }
    /* 5. folding: into the element, then neighbouring dimensions; one
     * compacting pass each (dimension w absorbs k while k continues it) */
    int first = 0;
    while (first < d->ndims && d->sstride[first] >= 0 &&
           (size_t)d->sstride[first] == d->elem && d->dstride[first] == d->sstride[first])
        d->elem *= d->count[first++];
    int w = -1;
    for (int k = first; k < d->ndims; k++) {
        if (w >= 0 && continues(d->count[w], d->sstride[w], d->sstride[k]) &&
            continues(d->count[w], d->dstride[w], d->dstride[k])) {
            d->count[w] *= d->count[k];
            continue;
        }
        w++;
        d->count[w] = d->count[k];
        d->sstride[w] = d->sstride[k];
        d->dstride[w] = d->dstride[k];
    }
    d->ndims = w + 1;
}

void tn_vis_extent(const tn_vis_desc_t *d, int side, ptrdiff_t *lo, ptrdiff_t *hi)
{
    if (is_empty(d)) {
        *lo = *hi = 0;
        return;
    }
    ptrdiff_t l = side ? d->doff : d->soff, h = l + (ptrdiff_t)d->elem;
    for (int k = 0; k < d->ndims; k++) {
        ptrdiff_t span =
            (ptrdiff_t)(d->count[k] - 1) * (side ? d->dstride[k] : d->sstride[k]);
        if (span < 0)
            l += span;
        else
            h += span;
    }
    *lo = l;
    *hi = h;
}

size_t tn_vis_pieces(const tn_vis_desc_t *d)
{
    if (is_empty(d))
        return 0;
    size_t n = 1;
    for (int k = 0; k < d->ndims; k++)
        n *= d->count[k];
    return n;
}

/* The odometer over dimensions 1..n-1 shared by the walk and the copy:
 * moves *dp and *sp to the next row; 0 when every row was done. */
static inline int next_row(const tn_vis_desc_t *d, size_t *idx, char **dp,
                           const char **sp)
{
    for (int k = 1; k < d->ndims; k++) {
        if (++idx[k] < d->count[k]) {
            *dp += d->dstride[k];
            *sp += d->sstride[k];
            return 1;
        }
        idx[k] = 0;
        *dp -= (ptrdiff_t)(d->count[k] - 1) * d->dstride[k];
        *sp -= (ptrdiff_t)(d->count[k] - 1) * d->sstride[k];
    }
    return 0;
}

/* tn_vis_walk's pieces, a row at a time from tn_vis_walk_rows. */
typedef struct {
    tn_vis_piece_fn fn;
    void *arg;
} piece_walk_t;

static int each_piece(void *a, char *dp, ptrdiff_t ds, const char *sp, ptrdiff_t ss,
                      size_t n, size_t elem)
{
    const piece_walk_t *w = a;
    for (size_t i = 0; i < n; i++) {
        int rc = w->fn(w->arg, dp + (ptrdiff_t)i * ds, sp + (ptrdiff_t)i * ss, elem);
        if (rc)
            return rc;
    }
    return 0;
}

int tn_vis_walk_rows(const tn_vis_desc_t *d, char *dst, const char *src, tn_vis_row_fn fn,
                     void *arg)
{
    if (is_empty(d))
        return 0;
    size_t idx[TN_VIS_MAXDIM];
    for (int k = 0; k < d->ndims; k++)
        idx[k] = 0;
    char *dp = dst + d->doff;
    const char *sp = src + d->soff;
    size_t c0 = d->ndims ? d->count[0] : 1;
    ptrdiff_t ds = d->ndims ? d->dstride[0] : 0, ss = d->ndims ? d->sstride[0] : 0;
    do {
        int rc = fn(arg, dp, ds, sp, ss, c0, d->elem);
        if (rc)
            return rc;
    } while (next_row(d, idx, &dp, &sp));
    return 0;
}

int tn_vis_walk(const tn_vis_desc_t *d, char *dst, const char *src, tn_vis_piece_fn fn,
                void *arg)
{
    piece_walk_t w = {fn, arg};
    return tn_vis_walk_rows(d, dst, src, each_piece, &w);
}

int tn_vis_walk_range(const tn_vis_desc_t *d, char *dst, const char *src, size_t first,
                      size_t n, tn_vis_piece_fn fn, void *arg)
{
    if (is_empty(d) || n == 0)
        return 0;
    size_t idx[TN_VIS_MAXDIM], rem = first;
    char *dp = dst + d->doff;
    const char *sp = src + d->soff;
    for (int k = 0; k < d->ndims; k++) { /* first as mixed-radix digits */
        idx[k] = rem % d->count[k];
        rem /= d->count[k];
        dp += (ptrdiff_t)idx[k] * d->dstride[k];
        sp += (ptrdiff_t)idx[k] * d->sstride[k];
    }
    for (;;) {
        int rc = fn(arg, dp, sp, d->elem);
        if (rc || --n == 0)
            return rc;
        int k = 0;
        for (; k < d->ndims; k++) {
            if (++idx[k] < d->count[k]) {
                dp += d->dstride[k];
                sp += d->sstride[k];
                break;
            }
            idx[k] = 0;
            dp -= (ptrdiff_t)(d->count[k] - 1) * d->dstride[k];
            sp -= (ptrdiff_t)(d->count[k] - 1) * d->sstride[k];
        }
        if (k == d->ndims)
            return 0; /* past the last piece */
    }
}

void tn_vis_copy(const tn_vis_desc_t *d, char *dst, const char *src, size_t copy_min,
                 void (*big)(int, void *, const void *, size_t), int arg)
{
    if (d->elem == 0)
        return;
    char *dp = dst + d->doff;
    const char *sp = src + d->soff;
    size_t n = d->elem;
    int use_big = big && n >= copy_min;
    if (d->ndims == 0) { /* one piece */
        if (use_big)
            big(arg, dp, sp, n);
        else
            memcpy(dp, sp, n);
        return;
    }
    if (is_empty(d))
        return;
    size_t c0 = d->count[0], idx[TN_VIS_MAXDIM];
    ptrdiff_t ds = d->dstride[0], ss = d->sstride[0];
    for (int k = 1; k < d->ndims; k++) /* the odometer; none for one row */
        idx[k] = 0;
    do {
        if (use_big)
            for (size_t i = 0; i < c0; i++)
                big(arg, dp + (ptrdiff_t)i * ds, sp + (ptrdiff_t)i * ss, n);
        else
            tn_vis_copy_row(dp, ds, sp, ss, c0, n);
    } while (next_row(d, idx, &dp, &sp));
}

/* ---- the remote address lists of indexed transfers ---------------------- */

/* The OR test of the inline indexed path (tern_vis_outside_ in
 * tern/vis.h, one copy of the code for both): any x86-64 has SSE2. */
int tn_vis_outside_sse2(void *const *list, size_t count, uintptr_t base, uintptr_t room)
{
    return tern_vis_outside_((const void *const *)list, count, base, room);
}

#ifdef TN_VIS_HAVE_AVX2
/* With AVX2 the unsigned compare off > room as a signed one, both sides
 * moved by 2^63: (a + (2^63 - base)) > (room + 2^63), three instructions
 * for four addresses (the add with the load folded in, vpcmpgtq, vpor)
 * against four with the OR form; sixteen a step in four chains. About
 * 0.25 cycles an address on a Cascade Lake (vpcmpgtq, one port), half the
 * OR form's, which ran a third of a 512-piece put to a mapped peer. */
__attribute__((target("avx2"))) int tn_vis_outside_avx2(void *const *list, size_t count,
                                                        uintptr_t base, uintptr_t room)
{
    const uint64_t bias = (uint64_t)1 << 63;
    const __m256i c = _mm256_set1_epi64x((long long)(bias - base));
    const __m256i r = _mm256_set1_epi64x((long long)(room ^ bias));
    __m256i b0 = _mm256_setzero_si256(), b1 = b0, b2 = b0, b3 = b0;
    size_t i = 0;
#define TN_VIS_OUT(j)   \
    _mm256_cmpgt_epi64( \
        _mm256_add_epi64(_mm256_loadu_si256((const __m256i *)(list + i + (j))), c), r)
    for (; i + 16 <= count; i += 16) {
        b0 = _mm256_or_si256(b0, TN_VIS_OUT(0));
        b1 = _mm256_or_si256(b1, TN_VIS_OUT(4));
        b2 = _mm256_or_si256(b2, TN_VIS_OUT(8));
        b3 = _mm256_or_si256(b3, TN_VIS_OUT(12));
    }
    for (; i + 4 <= count; i += 4)
        b0 = _mm256_or_si256(b0, TN_VIS_OUT(0));
#undef TN_VIS_OUT
    b0 = _mm256_or_si256(_mm256_or_si256(b0, b1), _mm256_or_si256(b2, b3));
    int bad = !_mm256_testz_si256(b0, b0);
    for (; i < count; i++)
        bad |= (uintptr_t)list[i] - base > room;
    return bad;
}
#endif

/* Chosen at the first call, as the fold is (no ifunc: TSan builds run the
 * same code). */
typedef int (*outside_fn)(void *const *, size_t, uintptr_t, uintptr_t);
static int outside_first(void *const *list, size_t count, uintptr_t base, uintptr_t room);
static _Atomic(outside_fn) outside_impl = outside_first;

static TN_NOINLINE int outside_first(void *const *list, size_t count, uintptr_t base,
                                     uintptr_t room)
{
    outside_fn f = tn_vis_outside_sse2;
#ifdef TN_VIS_HAVE_AVX2
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        f = tn_vis_outside_avx2;
#endif
    atomic_store_explicit(&outside_impl, f, memory_order_relaxed);
    return f(list, count, base, room);
}

int tn_vis_addrs_outside(void *const *list, size_t count, uintptr_t base, uintptr_t room)
{
    return atomic_load_explicit(&outside_impl, memory_order_relaxed)(list, count, base,
                                                                     room);
}
