/* The stride optimizer: chosen shapes fold as they should (contiguous
 * blocks, reflections, broadcasts, transposes that must not fold), and a
 * property test: for thousands of random shapes (transposes, reflections,
 * source strides of 0, up to 32 dimensions, counts of 0 and 1) the
 * optimized description moves exactly the bytes the naive loop nest moves
 * to exactly the same places, walked (whole and in ranges) and copied. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vis_opt.h"
#include "unit_check.h"

#define MAXBYTES (1u << 14) /* bytes moved per random shape at most */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static size_t below(size_t n)
{
    return n ? (size_t)(rnd() % n) : 0;
}

static tn_vis_desc_t make(size_t elem, int n, const size_t *count, const ptrdiff_t *ss,
                          const ptrdiff_t *ds)
{
    tn_vis_desc_t d = {.elem = elem, .ndims = n};
    for (int k = 0; k < n; k++) {
        d.count[k] = count[k];
        d.sstride[k] = ss[k];
        d.dstride[k] = ds[k];
    }
    return d;
}

static int test_chosen(void)
{
    /* a contiguous 3-d block: one piece */
    size_t c3[] = {4, 5, 6};
    ptrdiff_t s3[] = {8, 32, 160};
    tn_vis_desc_t d = make(8, 3, c3, s3, s3);
    tn_vis_optimize(&d);
    CHECK(d.ndims == 0 && d.elem == 8 * 4 * 5 * 6 && d.soff == 0 && d.doff == 0);

    /* 32 dimensions of count 2, contiguous: one piece of 2^32 * 1 bytes
     * is too big to copy, but the description must fold */
    size_t c32[32];
    ptrdiff_t s32[32];
    for (int k = 0; k < 32; k++) {
        c32[k] = 2;
        s32[k] = (ptrdiff_t)1 << k;
    }
    d = make(1, 32, c32, s32, s32);
    tn_vis_optimize(&d);
    CHECK(d.ndims == 0 && d.elem == (size_t)1 << 32);

    /* the same in reverse order of dimensions: the sort restores it */
    for (int k = 0; k < 32; k++)
        s32[k] = (ptrdiff_t)1 << (31 - k);
    d = make(1, 32, c32, s32, s32);
    tn_vis_optimize(&d);
    CHECK(d.ndims == 0 && d.elem == (size_t)1 << 32);

    /* both sides reflected: one forward piece starting at the far end */
    size_t c1[] = {10};
    ptrdiff_t neg[] = {-4};
    d = make(4, 1, c1, neg, neg);
    tn_vis_optimize(&d);
    CHECK(d.ndims == 0 && d.elem == 40 && d.soff == -36 && d.doff == -36);

    /* one side reflected: 10 pieces, source forward, destination backward */
    ptrdiff_t pos[] = {4};
    d = make(4, 1, c1, neg, pos);
    tn_vis_optimize(&d);
    CHECK(d.ndims == 1 && d.elem == 4 && d.sstride[0] == 4 && d.dstride[0] == -4 &&
          d.soff == -36 && d.doff == 36);

    /* a 2-d transpose does not fold */
    size_t c2[] = {3, 7};
    ptrdiff_t st[] = {8, 24}, dt[] = {56, 8};
    d = make(8, 2, c2, st, dt);
    tn_vis_optimize(&d);
    CHECK(d.ndims == 2 && d.elem == 8 && d.sstride[0] == 8 && d.dstride[0] == 56);

    /* broadcast of one element over a contiguous 2-d destination */
    ptrdiff_t zero2[] = {0, 0}, dd[] = {8, 24};
    d = make(8, 2, c2, zero2, dd);
    tn_vis_optimize(&d);
    CHECK(d.ndims == 1 && d.count[0] == 21 && d.sstride[0] == 0 && d.dstride[0] == 8);

    /* counts of 1 vanish; both strides 0 is a repeat; a count of 0 empties */
    size_t c4[] = {1, 5, 3, 1};
    ptrdiff_t s4[] = {1000, 16, 0, -7}, d4[] = {-99, 16, 0, 5};
    d = make(16, 4, c4, s4, d4);
    tn_vis_optimize(&d);
    CHECK(d.ndims == 0 && d.elem == 80);
    c4[3] = 0;
    d = make(16, 4, c4, s4, d4);
    tn_vis_optimize(&d);
    CHECK(d.elem == 0 && d.ndims == 0 && tn_vis_pieces(&d) == 0);
    d = make(0, 4, c4, s4, d4);
    tn_vis_optimize(&d);
    CHECK(d.elem == 0 && tn_vis_pieces(&d) == 0);

    /* tn_vis_describe: the 32-level description of tern-bench vis (512
     * 8-byte elements at 25% density, factors of 2, then counts of 1)
     * leaves with one dimension */
    size_t cb[32], rep;
    ptrdiff_t ext[4];
    ptrdiff_t sb[32], db[32];
    size_t left = 512, se = 8, de = 32;
    for (int k = 0; k < 32; k++) {
        size_t f = k == 31 ? left : left % 2 == 0 ? 2 : 1;
        cb[k] = f, sb[k] = (ptrdiff_t)se, db[k] = (ptrdiff_t)de;
        se *= f, de *= f, left /= f;
    }
    CHECK(tn_vis_describe(&d, 8, cb, sb, db, 32, &rep, ext) == 0);
    CHECK(d.ndims == 1 && d.count[0] == 512 && d.sstride[0] == 8 && d.dstride[0] == 32 &&
          rep == 1 && d.elem == 8);
    CHECK(ext[0] == 0 && ext[1] == 512 * 8 && ext[2] == 0 && ext[3] == 511 * 32 + 8);
    /* a repeated level (both strides 0) goes to rep, between two that merge */
    size_t cr[] = {4, 3, 5};
    ptrdiff_t sr[] = {8, 0, 32}, dr[] = {16, 0, 64};
    CHECK(tn_vis_describe(&d, 8, cr, sr, dr, 3, &rep, ext) == 0);
    CHECK(d.ndims == 1 && d.count[0] == 20 && rep == 3);
    /* what the level-by-level checks must report: a count of 0 or one
     * negative as a signed value, a total over SIZE_MAX, an extent that
     * wraps (also when only the merged product would) */
    size_t cz[] = {4, 0}, cn[] = {4, (size_t)-2},
           cbig[] = {(size_t)1 << 40, (size_t)1 << 40};
    ptrdiff_t s2[] = {8, 32}, huge[] = {8, PTRDIFF_MAX / 2};
    CHECK(tn_vis_describe(&d, 8, cz, s2, s2, 2, &rep, ext) == -1);
    CHECK(tn_vis_describe(&d, 8, cn, s2, s2, 2, &rep, ext) == -1);
    CHECK(tn_vis_describe(&d, 1 << 20, cbig, s2, s2, 2, &rep, ext) == -1);
    size_t cw[] = {4, 4};
    CHECK(tn_vis_describe(&d, 8, cw, huge, s2, 2, &rep, ext) == -1);
    size_t cm[] = {(size_t)1 << 31, (size_t)1 << 31};
    ptrdiff_t sm[] = {4, (ptrdiff_t)4 << 31};
    CHECK(tn_vis_describe(&d, 1, cm, sm, sm, 2, &rep, ext) == -1);
    return 0;
}

/* ---- property test ------------------------------------------------------ */

typedef struct sim {
    uint32_t *buf;   /* destination "bytes": id of the source byte + 1 */
    uint64_t *pairs; /* (dst byte, src byte) of every byte moved */
    size_t npairs, cap;
    const char *sbase, *dbase; /* what offsets are relative to */
} sim_t;

static int record(void *arg, char *dst, const char *src, size_t n)
{
    sim_t *s = arg;
    size_t dp = (size_t)(dst - s->dbase), sp = (size_t)(src - s->sbase);
    for (size_t b = 0; b < n; b++) {
        if (s->npairs == s->cap)
            return 1;
        s->buf[dp + b] = (uint32_t)(sp + b + 1);
        s->pairs[s->npairs++] = ((uint64_t)(dp + b) << 32) | (sp + b);
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t sort_unique(uint64_t *v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp_u64);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[m - 1] != v[i])
            v[m++] = v[i];
    return m;
}

/* The naive loop nest of d over index tuples, for reference. */
static int naive(const tn_vis_desc_t *d, char *dst, const char *src, tn_vis_piece_fn fn,
                 void *arg)
{
    for (int k = 0; k < d->ndims; k++)
        if (d->count[k] == 0)
            return 0;
    if (d->elem == 0)
        return 0;
    size_t idx[TN_VIS_MAXDIM] = {0};
    for (;;) {
        ptrdiff_t so = d->soff, dof = d->doff;
        for (int k = 0; k < d->ndims; k++) {
            so += (ptrdiff_t)idx[k] * d->sstride[k];
            dof += (ptrdiff_t)idx[k] * d->dstride[k];
        }
        int rc = fn(arg, dst + dof, src + so, d->elem);
        if (rc)
            return rc;
        int k = 0;
        while (k < d->ndims && ++idx[k] == d->count[k])
            idx[k++] = 0;
        if (k == d->ndims)
            return 0;
    }
}

/* A random shape whose total stays under MAXBYTES. Layout kinds: the
 * dimensions of a (padded) row-major array on each side, permuted
 * independently (transposes) and reflected at random; or strides drawn at
 * random (overlaps included); source strides of 0 sprinkled in. */
static void random_shape(tn_vis_desc_t *d)
{
    memset(d, 0, sizeof(*d));
    static const size_t elems[] = {1, 2, 3, 4, 8, 16, 32, 5, 12, 24};
    d->elem = elems[below(sizeof(elems) / sizeof(elems[0]))];
    int r = (int)below(10);
    d->ndims = r < 2 ? 32 : r < 3 ? 0 : 1 + (int)below(r < 6 ? 4 : 10);
    size_t budget = MAXBYTES / d->elem, total = 1;
    for (int k = 0; k < d->ndims; k++) {
        size_t c = 1;
        if (below(3) != 0 && total * 2 <= budget)
            c = 1 + below(d->ndims > 8 ? 3 : 9);
        while (total * c > budget)
            c--;
        if (below(200) == 0)
            c = 0;
        d->count[k] = c;
        total *= c ? c : 1;
    }
    int layout = (int)below(3);
    for (int side = 0; side < 2; side++) {
        ptrdiff_t *st = side ? d->dstride : d->sstride;
        if (layout == 2) {
            for (int k = 0; k < d->ndims; k++)
                st[k] = (ptrdiff_t)below(80) - 40;
        } else {
            int perm[TN_VIS_MAXDIM];
            for (int k = 0; k < d->ndims; k++)
                perm[k] = k;
            if (layout == 1 || side == 1)
                for (int k = d->ndims - 1; k > 0; k--) {
                    int j = (int)below((size_t)k + 1), t = perm[k];
                    perm[k] = perm[j];
                    perm[j] = t;
                }
            ptrdiff_t next =
                (ptrdiff_t)d->elem + (below(4) == 0 ? (ptrdiff_t)below(5) : 0);
            for (int k = 0; k < d->ndims; k++) {
                int dim = perm[k];
                st[dim] = below(6) == 0 ? -next : next;
                size_t c = d->count[dim] ? d->count[dim] : 1;
                next = next * (ptrdiff_t)c + (below(5) == 0 ? (ptrdiff_t)below(9) : 0);
            }
        }
    }
    for (int k = 0; k < d->ndims; k++)
        if (below(12) == 0)
            d->sstride[k] = 0;
    if (below(20) == 0)
        for (int k = 0; k < d->ndims; k++)
            d->sstride[k] = 0; /* broadcast of one element */
}

/* Offsets that put the extents of d at 0 on both sides; the sizes. */
static void place(tn_vis_desc_t *d, size_t *ssize, size_t *dsize)
{
    ptrdiff_t lo, hi;
    d->soff = d->doff = 0;
    tn_vis_extent(d, 0, &lo, &hi);
    d->soff = -lo;
    *ssize = (size_t)(hi - lo);
    tn_vis_extent(d, 1, &lo, &hi);
    d->doff = -lo;
    *dsize = (size_t)(hi - lo);
}

static size_t big_calls;
static void big_copy(int arg, void *dst, const void *src, size_t n)
{
    big_calls += arg == 7;
    memcpy(dst, src, n);
}

static int property(int shapes)
{
    size_t cap = MAXBYTES * 2;
    sim_t a = {.pairs = malloc(cap * 8), .cap = cap};
    sim_t b = {.pairs = malloc(cap * 8), .cap = cap};
    int stats_folded = 0, stats_overlap = 0, stats_32 = 0, stats_short = 0;
    for (int it = 0; it < shapes; it++) {
        tn_vis_desc_t d;
        size_t ssize, dsize;
        random_shape(&d);
        place(&d, &ssize, &dsize);
        tn_vis_desc_t o = d;
        tn_vis_optimize(&o);
        stats_32 += d.ndims == 32;

        /* the extents do not change */
        ptrdiff_t l0, h0, l1, h1;
        for (int side = 0; side < 2; side++) {
            tn_vis_extent(&d, side, &l0, &h0);
            tn_vis_extent(&o, side, &l1, &h1);
            if (l0 != l1 || h0 != h1) {
                fprintf(stderr, "shape %d: extent of side %d changed\n", it, side);
                return 1;
            }
        }
        CHECK(o.ndims <= d.ndims && o.ndims >= 0);
        for (int k = 0; k < o.ndims; k++)
            CHECK(o.sstride[k] >= 0 && o.count[k] > 1);
        stats_folded += tn_vis_pieces(&o) < tn_vis_pieces(&d);

        /* walk both into id buffers, record every (dst, src) byte pair */
        a.buf = calloc(dsize + 1, 4);
        b.buf = calloc(dsize + 1, 4);
        char *sb = malloc(ssize + 1), *db = malloc(dsize + 1), *db2 = malloc(dsize + 1);
        a.npairs = b.npairs = 0;
        a.sbase = b.sbase = sb;
        a.dbase = b.dbase = db;
        CHECK(naive(&d, db, sb, record, &a) == 0);
        CHECK(tn_vis_walk(&o, db, sb, record, &b) == 0);
        /* the walk in ranges (as packed messages carry it) is the walk */
        sim_t r = {.pairs = malloc(cap * 8), .cap = cap, .buf = calloc(dsize + 1, 4)};
        r.sbase = sb;
        r.dbase = db;
        size_t np = tn_vis_pieces(&o);
        for (size_t first = 0; first < np;) {
            size_t n = 1 + below(np - first < 50 ? np - first : 50);
            CHECK(tn_vis_walk_range(&o, db, sb, first, n, record, &r) == 0);
            first += n;
        }
        CHECK(r.npairs == b.npairs && memcmp(r.pairs, b.pairs, r.npairs * 8) == 0);
        free(r.pairs);
        free(r.buf);
        size_t na = sort_unique(a.pairs, a.npairs), nb = sort_unique(b.pairs, b.npairs);
        if (na != nb || memcmp(a.pairs, b.pairs, na * 8) != 0) {
            fprintf(stderr,
                    "shape %d (%d dims, elem %zu): %zu vs %zu byte moves differ\n", it,
                    d.ndims, d.elem, na, nb);
            return 1;
        }
        /* the calls' fast path: tn_vis_describe of the same arguments
         * (levels merged as they come), then optimized, moves the same
         * bytes; a count of 0 goes to the level-by-level checks */
        tn_vis_desc_t m;
        size_t rep = 0, zero = 0, want_rep = 1;
        ptrdiff_t ext[4];
        for (int k = 0; k < d.ndims; k++) {
            zero |= d.count[k] == 0;
            if (d.count[k] > 1 && d.sstride[k] == 0 && d.dstride[k] == 0)
                want_rep *= d.count[k];
        }
        int rc = tn_vis_describe(&m, d.elem, d.count, d.sstride, d.dstride, d.ndims, &rep,
                                 ext);
        if (zero) {
            CHECK(rc == -1);
        } else {
            CHECK(rc == 0 && rep == want_rep && m.ndims <= d.ndims);
            /* its extents are those of the loop nest (what the range
             * check of the calls' fast path uses) */
            if (d.elem) {
                ptrdiff_t l0, h0, l1, h1;
                tn_vis_extent(&d, 0, &l0, &h0);
                tn_vis_extent(&d, 1, &l1, &h1);
                CHECK(l0 == d.soff + ext[0] && h0 == d.soff + ext[1] &&
                      l1 == d.doff + ext[2] && h1 == d.doff + ext[3]);
            }
            stats_short += m.ndims < d.ndims - (int)(want_rep > 1);
            m.soff = d.soff;
            m.doff = d.doff;
            tn_vis_optimize(&m);
            sim_t c = {.pairs = malloc(cap * 8), .cap = cap, .buf = calloc(dsize + 1, 4)};
            c.sbase = sb;
            c.dbase = db;
            CHECK(tn_vis_walk(&m, db, sb, record, &c) == 0);
            size_t nc = sort_unique(c.pairs, c.npairs);
            if (nc != na || memcmp(a.pairs, c.pairs, na * 8) != 0) {
                fprintf(stderr, "shape %d: tn_vis_describe moves other bytes\n", it);
                return 1;
            }
            free(c.pairs);
            free(c.buf);
        }
        /* destinations written once: the buffers and a real copy agree */
        int overlap = 0;
        for (size_t i = 1; i < na && !overlap; i++)
            overlap = (a.pairs[i] >> 32) == (a.pairs[i - 1] >> 32);
        stats_overlap += overlap;
        if (!overlap) {
            CHECK(memcmp(a.buf, b.buf, dsize * 4) == 0);
            for (size_t i = 0; i < ssize; i++)
                sb[i] = (char)(rnd() >> 24);
            memset(db, 0x5a, dsize);
            memset(db2, 0x5a, dsize);
            for (size_t i = 0; i < na; i++)
                db[a.pairs[i] >> 32] = sb[(uint32_t)a.pairs[i]];
            if (below(2))
                tn_vis_copy(&o, db2, sb, 16, big_copy, 7);
            else
                tn_vis_copy(&o, db2, sb, 0, NULL, 0);
            if (memcmp(db, db2, dsize) != 0) {
                fprintf(stderr, "shape %d: tn_vis_copy differs from the loop nest\n", it);
                return 1;
            }
        }
        free(a.buf);
        free(b.buf);
        free(sb);
        free(db);
        free(db2);
    }
    printf("%d shapes (%d of 32 dims): %d folded into fewer pieces, %d with overlapping "
           "destinations, %d shortened by tn_vis_describe\n",
           shapes, stats_32, stats_folded, stats_overlap, stats_short);
    CHECK(stats_folded > shapes / 20 && stats_32 > shapes / 10 && big_calls > 0 &&
          stats_short > shapes / 50);
    free(a.pairs);
    free(b.pairs);
    return 0;
}

static int fold_r_taken; /* shapes tern_vis_fold_r_ folded */
static int fold_u_taken; /* shapes tern_vis_fold_u_ folded */

/* An inline fold's answer c (0 from it) against tern_vis_fold_'s (r,
 * *out): the same, or a repeat, which the inline folds leave to the
 * inline path's remote-stride test: tern_vis_fold_ declined, the first
 * level whose count is not 1 has both strides 0, and so has c. */
static int fold_same(int r, const tern_vis_fold_t *out, const tern_vis_fold_t *c,
                     const size_t *count, const ptrdiff_t *ds, const ptrdiff_t *ss,
                     size_t levels)
{
    if (r == 0)
        return memcmp(c, out, sizeof *c) == 0;
    size_t k = 0;
    while (k < levels && count[k] == 1)
        k++;
    return k < levels && ss[k] == 0 && ds[k] == 0 && c->sstride == 0 && c->dstride == 0;
}

/* tern_vis_fold_ and each implementation it may choose: the same answer
 * from all (-2 when they differ), the result and *out those of the first.
 * The inline folds of the header's common shapes (tern_vis_fold_r_,
 * tern_vis_fold_u_) may decline (-1) where tern_vis_fold_ folds, never
 * fold differently (fold_same). */
static int fold_all(const size_t *count, const ptrdiff_t *ds, const ptrdiff_t *ss,
                    size_t levels, tern_vis_fold_t *out)
{
    tern_vis_fold_t a = {0}, b = {0}, c = {0};
    int r = tern_vis_fold_(count, ds, ss, levels, out);
    if (tn_vis_fold_sse2(count, ds, ss, levels, &a) != r)
        return -2;
    if (r == 0 && memcmp(&a, out, sizeof a) != 0)
        return -2;
    if (levels >= 1 && levels <= 32 && tern_vis_fold_r_(count, ds, ss, levels, &c) == 0) {
        if (!fold_same(r, out, &c, count, ds, ss, levels))
            return -2;
        fold_r_taken++;
    }
    if (levels >= 2 && levels <= 4 && tern_vis_fold_u_(count, ds, ss, levels, &c) == 0) {
        if (!fold_same(r, out, &c, count, ds, ss, levels))
            return -2;
        fold_u_taken++;
    }
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("avx2")) {
        if (tn_vis_fold_avx2(count, ds, ss, levels, &b) != r)
            return -2;
        if (r == 0 && memcmp(&b, out, sizeof b) != 0)
            return -2;
    }
#endif
    (void)b;
    return r;
}

/* tern_vis_fold_ (the inline path's fold of many levels into one
 * dimension) and its masks of the levels whose count is not 1. */
static int test_fold(int shapes)
{
    size_t count[32];
    ptrdiff_t ss[32], ds[32];
    int folded = 0;
    /* the masks, against the plain loop: counts of 1 mostly, 0, 2, huge,
     * and values whose one 32-bit half is that of 1 */
    static const size_t odd[] = {0,
                                 2,
                                 3,
                                 (size_t)1 << 32,
                                 ((size_t)1 << 32) | 1,
                                 SIZE_MAX,
                                 (size_t)PTRDIFF_MAX + 2};
    for (int it = 0; it < shapes; it++) {
        size_t levels = 1 + below(32);
        uint64_t want = 0;
        for (size_t k = 0; k < levels; k++) {
            count[k] = below(3) ? 1 : odd[below(sizeof odd / sizeof odd[0])];
            want |= (uint64_t)(count[k] != 1) << (2 * k);
        }
        CHECK(tn_vis_nonone_sse2(count, levels) == want);
#if defined(__x86_64__) && defined(__GNUC__)
        if (__builtin_cpu_supports("avx2"))
            CHECK(tn_vis_nonone_avx2(count, levels) == want);
#endif
    }
    /* a 1-d motion (c elements, strides t and s) split over 2 to 32
     * levels: its factors at random levels in order, every other level of
     * count 1 with any strides; the fold gives back (c, t, s). Broken
     * chains, a count of 0 or negative, a repeat and an overflow: -1. */
    /* tern_vis_ones_ against the plain test: 1 to 40 counts, all 1, then
     * one other value at every position */
    size_t ones[40];
    for (size_t m = 1; m <= 40; m++) {
        for (size_t k = 0; k < m; k++)
            ones[k] = 1;
        CHECK(tern_vis_ones_(ones, m) == 1);
        for (size_t k = 0; k < m; k++) {
            ones[k] = odd[below(sizeof odd / sizeof odd[0])];
            CHECK(tern_vis_ones_(ones, m) == 0);
            ones[k] = 1;
        }
    }
    /* a third of the shapes as tern_vis_fold_r_ takes them: levels of
     * count 1, the factors at consecutive levels from a random one, levels
     * of count 1 */
    for (int it = 0; it < shapes; it++) {
        size_t levels = 2 + below(31), c = 1 + below(64), left = c, kept = 0;
        size_t run = below(3) == 0 ? below(levels) : levels;
        ptrdiff_t s = (ptrdiff_t)below(200) - 100, t = (ptrdiff_t)below(200) - 100;
        if (s == 0 && t == 0)
            t = 8;
        ptrdiff_t ns = s, nt = t;
        for (size_t k = 0; k < levels; k++) {
            size_t f = 1;
            if (k + 1 == levels)
                f = left;
            else if (k >= run ? left > 1 : below(3) == 0)
                for (f = 2; f <= left && left % f; f++)
                    ;
            if (f > left)
                f = 1;
            count[k] = f;
            if (f == 1) { /* anything: the fold must not look */
                ss[k] = (ptrdiff_t)rnd();
                ds[k] = below(2) ? 0 : (ptrdiff_t)rnd();
                continue;
            }
            ss[k] = ns;
            ds[k] = nt;
            ns *= (ptrdiff_t)f;
            nt *= (ptrdiff_t)f;
            left /= f;
            kept++;
        }
        tern_vis_fold_t f;
        CHECK(fold_all(count, ds, ss, levels, &f) == 0);
        if (kept == 0) {
            CHECK(f.count == 1);
            continue;
        }
        CHECK(f.count == c && f.sstride == s && f.dstride == t);
        folded += kept > 1;
        /* now break it: one level of count > 1 changed */
        size_t k = below(levels);
        while (count[k] == 1)
            k = (k + 1) % levels;
        int how = (int)below(5);
        if (how == 0 && kept > 1) {
            size_t first = 0;
            while (count[first] == 1)
                first++;
            if (k == first) /* the first kept level sets the chain */
                continue;
            if (below(2))
                ss[k] += 1;
            else
                ds[k] -= 1;
        } else if (how == 1) {
            count[k] = 0;
        } else if (how == 2) {
            count[k] = (size_t)-2;
        } else if (how == 3 && kept == 1) {
            ss[k] = ds[k] = 0; /* a repeat */
        } else {
            continue;
        }
        CHECK(fold_all(count, ds, ss, levels, &f) == -1);
    }
    /* counts whose product overflows; a stride times the count that does */
    size_t big[2] = {(size_t)1 << 40, (size_t)1 << 40};
    ptrdiff_t bs[2] = {1, (ptrdiff_t)1 << 40}, bt[2] = {-1, -((ptrdiff_t)1 << 40)};
    tern_vis_fold_t bf;
    CHECK(fold_all(big, bt, bs, 2, &bf) == -1);
    big[1] = (size_t)1 << 22; /* 2^62 elements: fits */
    CHECK(fold_all(big, bt, bs, 2, &bf) == 0 && bf.count == (size_t)1 << 62);
    bs[0] = 2, bs[1] = (ptrdiff_t)1 << 41; /* 2 * 2^62 does not */
    CHECK(fold_all(big, bt, bs, 2, &bf) == -1);
    CHECK(tern_vis_fold_(count, ds, ss, 0, &(tern_vis_fold_t){0}) == -1);
    CHECK(tern_vis_fold_(count, ds, ss, 33, &(tern_vis_fold_t){0}) == -1);
    /* tern_vis_fold_r_ at 32 levels: every count 1 (one element); a
     * count of 0 or negative among the last levels, at every position
     * (tern_vis_ones_ reads them two at a time); one level of count 2
     * among them (declined: tern_vis_fold_ takes such shapes) */
    for (size_t k = 0; k < 32; k++) {
        count[k] = 1;
        ss[k] = k % 2 ? PTRDIFF_MIN : 0;
        ds[k] = k % 3 ? PTRDIFF_MAX : -8;
    }
    CHECK(fold_all(count, ds, ss, 32, &bf) == 0 && bf.count == 1);
    count[2] = 4, ss[2] = 8, ds[2] = -8;
    count[3] = 2, ss[3] = 32, ds[3] = -32;
    CHECK(fold_all(count, ds, ss, 32, &bf) == 0 && bf.count == 8 && bf.sstride == 8 &&
          bf.dstride == -8);
    CHECK(tern_vis_fold_r_(count, ds, ss, 32, &bf) == 0);
    for (size_t k = 4; k < 32; k++) {
        static const size_t bad[] = {0, (size_t)-2, (size_t)PTRDIFF_MAX + 2};
        for (size_t b = 0; b < 3; b++) {
            count[k] = bad[b];
            CHECK(fold_all(count, ds, ss, 32, &bf) == -1);
            CHECK(tern_vis_fold_r_(count, ds, ss, 32, &bf) == -1);
        }
        count[k] = 2; /* off the run: tern_vis_fold_'s, which refuses it
                         too, its strides not continuing the run's */
        CHECK(tern_vis_fold_r_(count, ds, ss, 32, &bf) == -1);
        count[k] = 1;
    }
    /* a repeat (both strides 0), and strides 0 on one side (a broadcast) */
    ss[2] = ds[2] = 0, ss[3] = ds[3] = 0;
    CHECK(fold_all(count, ds, ss, 32, &bf) == -1); /* tern_vis_fold_'s answer */
    CHECK(tern_vis_fold_r_(count, ds, ss, 32, &bf) == 0 && bf.count == 8 &&
          bf.sstride == 0 && bf.dstride == 0);
    ds[2] = 8, ds[3] = 32;
    CHECK(fold_all(count, ds, ss, 32, &bf) == 0 && bf.count == 8 && bf.sstride == 0 &&
          bf.dstride == 8);
    CHECK(tern_vis_fold_r_(count, ds, ss, 32, &bf) == 0);
    /* tern_vis_fold_u_: 2 to 4 levels, all kept: folded, and declined
     * for a count of 1, 0 or negative, a broken chain, an overflow at
     * each level; a repeat folded with strides 0 */
    for (size_t n = 2; n <= 4; n++) {
        size_t uc[4] = {3, 2, 5, 2};
        ptrdiff_t us[4] = {8, 24, 48, 240}, ud[4] = {-32, -96, -192, -960};
        CHECK(fold_all(uc, ud, us, n, &bf) == 0 &&
              tern_vis_fold_u_(uc, ud, us, n, &bf) == 0);
        for (size_t k = 0; k < n; k++) {
            static const size_t bad[] = {1, 0, (size_t)-2, (size_t)PTRDIFF_MAX + 2,
                                         (size_t)1 << 62};
            for (size_t b = 0; b < 5; b++) {
                size_t keep = uc[k];
                uc[k] = bad[b];
                CHECK(fold_all(uc, ud, us, n, &bf) != -2);
                CHECK(tern_vis_fold_u_(uc, ud, us, n, &bf) == -1);
                uc[k] = keep;
            }
            if (k > 0) {
                us[k]++;
                CHECK(tern_vis_fold_u_(uc, ud, us, n, &bf) == -1);
                us[k]--, ud[k]--;
                CHECK(tern_vis_fold_u_(uc, ud, us, n, &bf) == -1);
                ud[k]++;
            }
        }
        /* two counts negative as signed values: their product is
         * positive and fits, the chain (wrapped) continues, and only the
         * counts' sign bits tell */
        size_t nc[4] = {(size_t)-2, (size_t)-3, 5, 2};
        ptrdiff_t ns[4], nd[4];
        for (size_t k = 0, ps = 8, pd = (size_t)-32; k < 4; k++) {
            ns[k] = (ptrdiff_t)ps, nd[k] = (ptrdiff_t)pd;
            ps *= nc[k], pd *= nc[k];
        }
        CHECK(fold_all(nc, nd, ns, n, &bf) == -1);
        CHECK(tern_vis_fold_u_(nc, nd, ns, n, &bf) == -1);
        CHECK(tern_vis_fold_r_(nc, nd, ns, n, &bf) == -1);
        ptrdiff_t z[4] = {0, 0, 0, 0};
        CHECK(tern_vis_fold_u_(uc, z, z, n, &bf) == 0 && bf.sstride == 0 &&
              bf.dstride == 0);
        CHECK(fold_all(uc, z, z, n, &bf) == -1);
    }
    printf("fold: %d shapes, %d of several levels folded, %d calls folded by "
           "tern_vis_fold_r_, %d by tern_vis_fold_u_\n",
           shapes, folded, fold_r_taken, fold_u_taken);
    CHECK(folded > shapes / 10 && fold_r_taken > shapes / 10 &&
          fold_u_taken > shapes / 100);
    return 0;
}

/* The remote-list check of indexed transfers, each form against the
 * plain loop: lists of 0 to 70 addresses (every tail length of the
 * vector steps), in range, and one address moved just outside (one byte
 * past room, one byte below base, far away) at every position. */
static int plain_outside(void *const *l, size_t n, uintptr_t base, uintptr_t room)
{
    for (size_t i = 0; i < n; i++)
        if ((uintptr_t)l[i] < base || (uintptr_t)l[i] - base > room)
            return 1;
    return 0;
}

static int outside_all(void *const *l, size_t n, uintptr_t base, uintptr_t room)
{
    int r = plain_outside(l, n, base, room);
    if (tn_vis_addrs_outside(l, n, base, room) != r ||
        tn_vis_outside_sse2(l, n, base, room) != r)
        return -1;
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("avx2") && tn_vis_outside_avx2(l, n, base, room) != r)
        return -1;
#endif
    return r;
}

/* 1 when the first pass of tern_vis_outside_ (the OR of the offsets
 * from base at most room) decides a list that lies inside. */
static int bounds_inside(void *const *l, size_t n, uintptr_t base, uintptr_t room)
{
    uintptr_t hi = 0;
    for (size_t i = 0; i < n; i++)
        hi |= (uintptr_t)l[i] - base;
    return hi <= room;
}

static int test_outside(void)
{
    void *l[70];
    int bad = 0, by_bounds = 0, exact = 0;
    for (size_t n = 0; n <= 70; n++) {
        /* a segment at an address with the sign bit set and one low, the
         * addresses anywhere in them (the OR of the offsets is mostly
         * above room: the exact pass decides); and one at an odd address,
         * the addresses in its first half (the bound decides) */
        for (int hi = 0; hi < 3; hi++) {
            uintptr_t base = hi == 1   ? (uintptr_t)0xffff800000001000ull
                             : hi == 2 ? (uintptr_t)0x1ff008
                                       : (uintptr_t)0x10000;
            uintptr_t room = (hi == 2 ? 8192 : 4096) - 8;
            for (size_t i = 0; i < n; i++)
                l[i] = (void *)(base + below(hi == 2 ? 4096 : room + 1));
            CHECK(outside_all(l, n, base, room) == 0);
            if (n) {
                by_bounds += bounds_inside(l, n, base, room);
                exact += !bounds_inside(l, n, base, room);
            }
            for (size_t i = 0; i < n; i++) {
                void *keep = l[i];
                uintptr_t wrong[3] = {base + room + 1, base - 1,
                                      base ^ ((uintptr_t)1 << 62)};
                for (int w = 0; w < 3; w++) {
                    l[i] = (void *)wrong[w];
                    CHECK(outside_all(l, n, base, room) == 1);
                    bad++;
                }
                l[i] = (void *)(base + room); /* the last address allowed */
                CHECK(outside_all(l, n, base, room) == 0);
                l[i] = keep;
            }
        }
    }
    /* both passes decided lists that lie inside */
    CHECK(by_bounds > 0 && exact > 0);
    printf("outside: %d bad lists found by every form; lists inside decided by the "
           "bounds %d, by the exact pass %d\n",
           bad, by_bounds, exact);
    return 0;
}

int main(void)
{
    if (test_chosen())
        return 1;
    if (property(5000))
        return 1;
    if (test_fold(20000))
        return 1;
    if (test_outside())
        return 1;
    printf("vis_opt: ok\n");
    return 0;
}
