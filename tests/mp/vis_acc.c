/* Strided accumulate (tern_acc_strided): every accumulate type, shapes
 * that fold, transposes, reflections, a destination stride of 0 (many
 * additions into one element), both strides 0 (the description
 * repeated), a source stride of 0, 32 dimensions, pieces larger than a
 * packed message; blocking, nbi and a created context, with and without
 * scale, to every rank, every byte checked against the naive loop nest.
 * Then every rank accumulating into the same elements of rank 0 at once
 * (element-wise atomicity), and bad input: a clear error naming the
 * argument, nothing added; IMMEDIATE: each call applied whole or refused
 * whole. Values are small integers (times 0.5 or 3) so
 * that floating-point sums are exact in any order. */
#include <stdint.h>
#include <string.h>

#include "mp_util.h"

#define W     (64 * 1024) /* bytes of window per (target, writer) */
#define NTYPE 4

static const int types[NTYPE] = {TERN_AT_I64, TERN_AT_DOUBLE, TERN_AT_I32, TERN_AT_FLOAT};
static const char *const tnames[NTYPE] = {"i64", "double", "i32", "float"};
static const size_t tsize[NTYPE] = {8, 8, 4, 4};

static int64_t s_global[16]; /* a global variable: refused as for tern_acc */

/* Element i of a buffer of type t as a double (all values are exact). */
static double get(int t, const void *b, size_t i)
{
    switch (t) {
    case 0: return (double)((const int64_t *)b)[i];
    case 1: return ((const double *)b)[i];
    case 2: return (double)((const int32_t *)b)[i];
    default: return (double)((const float *)b)[i];
    }
}
static void set(int t, void *b, size_t i, double v)
{
    switch (t) {
    case 0: ((int64_t *)b)[i] = (int64_t)v; break;
    case 1: ((double *)b)[i] = v; break;
    case 2: ((int32_t *)b)[i] = (int32_t)v; break;
    default: ((float *)b)[i] = (float)v; break;
    }
}

/* A shape in elements: strides in elements, base offsets chosen so that
 * the extents start at 0. */
typedef struct shape {
    const char *name;
    size_t levels, count[32];
    ptrdiff_t ss[32], ds[32];
} shape_t;

static shape_t shapes[16];
static int nshapes;

static shape_t *add(const char *name, size_t levels, const size_t *c, const ptrdiff_t *ss,
                    const ptrdiff_t *ds)
{
    shape_t *s = &shapes[nshapes++];
    s->name = name;
    s->levels = levels;
    for (size_t k = 0; k < levels; k++) {
        s->count[k] = c[k];
        s->ss[k] = ss[k];
        s->ds[k] = ds[k];
    }
    return s;
}

static void make_shapes(void)
{
    size_t c3[] = {5, 4, 3};
    ptrdiff_t s3[] = {1, 6, 30}, d3[] = {1, 5, 22};
    add("3-d subarray", 3, c3, s3, d3);
    size_t c2[] = {7, 5};
    ptrdiff_t st[] = {1, 7}, dt[] = {5, 1};
    add("transpose", 2, c2, st, dt);
    size_t c1[] = {300};
    ptrdiff_t p1[] = {1}, n1[] = {-1}, z1[] = {0};
    add("reflect dst", 1, c1, p1, n1);
    size_t c16[] = {16};
    add("dst stride 0: 16 additions into one", 1, c16, p1, z1);
    add("src stride 0: one element to 16", 1, c16, z1, p1);
    size_t cr[] = {4, 3};
    ptrdiff_t sr[] = {1, 0};
    add("both strides 0: repeated 3 times", 2, cr, sr, sr);
    add("0 levels: one element", 0, NULL, NULL, NULL);
    size_t cbig[] = {4096};
    add("4096 contiguous (larger than a packed message)", 1, cbig, p1, p1);
    size_t crow[] = {64, 40};
    ptrdiff_t srow[] = {1, 64}, drow[] = {1, 80};
    add("40 rows of 64", 2, crow, srow, drow);
    size_t c32[32];
    ptrdiff_t s32[32], d32[32];
    for (int k = 0; k < 32; k++) {
        c32[k] = k % 4 == 0 ? 2 : 1;
        s32[k] = (ptrdiff_t)1 << (k / 4);
        d32[k] =
            (k / 4) % 2 ? -((ptrdiff_t)2 << (7 - k / 4)) : (ptrdiff_t)2 << (7 - k / 4);
    }
    add("32 dims, transposed and reflected", 32, c32, s32, d32);
    size_t cz[] = {3, 0};
    add("a count of 0", 2, cz, s3, d3);
}

/* Offsets (elements) of index tuple 0 so that both extents start at 0;
 * 0 when the shape does not fit the window. */
static int place(const shape_t *s, size_t esz, size_t *sbase, size_t *dbase)
{
    ptrdiff_t slo = 0, shi = 1, dlo = 0, dhi = 1;
    for (size_t k = 0; k < s->levels; k++) {
        ptrdiff_t m = s->count[k] ? (ptrdiff_t)s->count[k] - 1 : 0;
        ptrdiff_t a = m * s->ss[k], b = m * s->ds[k];
        *(a < 0 ? &slo : &shi) += a;
        *(b < 0 ? &dlo : &dhi) += b;
    }
    *sbase = (size_t)-slo;
    *dbase = (size_t)-dlo;
    return (size_t)(shi - slo) * esz <= W && (size_t)(dhi - dlo) * esz <= W;
}

/* The naive loop nest: expect[d] += scale * src[s] for every tuple. */
static void naive(int t, const shape_t *s, size_t sbase, size_t dbase, void *expect,
                  const void *src, double scale)
{
    for (size_t k = 0; k < s->levels; k++)
        if (s->count[k] == 0)
            return;
    size_t idx[32] = {0};
    for (;;) {
        ptrdiff_t so = (ptrdiff_t)sbase, dof = (ptrdiff_t)dbase;
        for (size_t k = 0; k < s->levels; k++) {
            so += (ptrdiff_t)idx[k] * s->ss[k];
            dof += (ptrdiff_t)idx[k] * s->ds[k];
        }
        set(t, expect, (size_t)dof,
            get(t, expect, (size_t)dof) + scale * get(t, src, (size_t)so));
        size_t k = 0;
        while (k < s->levels && ++idx[k] == s->count[k])
            idx[k++] = 0;
        if (k == s->levels)
            return;
    }
}

static tern_ctx_t ctx;

static void cases(int me, int n, char *zone)
{
    static unsigned char lsrc[W], bg[W], expect[W], back[W];
    int done = 0;
    for (int si = 0; si < nshapes; si++) {
        const shape_t *s = &shapes[si];
        for (int ti = 0; ti < NTYPE; ti++) {
            size_t esz = tsize[ti], sbase, dbase;
            MP_CHECK(place(s, esz, &sbase, &dbase), "shape %s does not fit", s->name);
            int mode = (si + ti) % 3; /* blocking, nbi, created context */
            int scaled = (si + ti) % 2;
            double scale = ti % 2 ? 0.5 : 3; /* floating types: 0.5 */
            int64_t sc64 = 3;
            int32_t sc32 = 3;
            double scd = 0.5;
            float scf = 0.5f;
            const void *sp = !scaled   ? NULL
                             : ti == 0 ? (const void *)&sc64
                             : ti == 1 ? (const void *)&scd
                             : ti == 2 ? (const void *)&sc32
                                       : (const void *)&scf;
            size_t ptrd[32];
            ptrdiff_t ssb[32], dsb[32];
            for (size_t k = 0; k < s->levels; k++) {
                ptrd[k] = s->count[k];
                ssb[k] = s->ss[k] * (ptrdiff_t)esz;
                dsb[k] = s->ds[k] * (ptrdiff_t)esz;
            }
            for (int d = 0; d < n; d++) {
                int t = (me + d) % n;
                char *rwin = tern_sym_addr(t, zone + (size_t)me * W);
                size_t ne = W / esz;
                for (size_t i = 0; i < ne; i++) {
                    set(ti, bg, i, (double)((i * 7 + (size_t)si) % 101) - 50);
                    set(ti, lsrc, i, (double)((i * 13 + (size_t)me) % 61) - 30);
                }
                MP_OK(tern_put(t, rwin, bg, W, 0));
                char *dst = rwin + dbase * esz;
                const char *src = (const char *)lsrc + sbase * esz;
                const size_t *cp = s->levels ? ptrd : NULL;
                const ptrdiff_t *dp = s->levels ? dsb : NULL,
                                *spp = s->levels ? ssb : NULL;
                int rc;
                if (mode == 0)
                    rc = tern_acc_strided(t, dst, dp, src, spp, cp, s->levels, types[ti],
                                          sp, 0);
                else if (mode == 1)
                    rc = tern_acc_strided_nbi(t, dst, dp, src, spp, cp, s->levels,
                                              types[ti], sp, 0);
                else
                    rc = tern_ctx_acc_strided_nbi(ctx, t, dst, dp, src, spp, cp,
                                                  s->levels, types[ti], sp, 0);
                MP_CHECK(rc == TERN_OK, "%s (%s) to %d: %s", s->name, tnames[ti], t,
                         tern_strerror(rc));
                if (mode == 1)
                    MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));
                if (mode == 2)
                    MP_OK(tern_ctx_quiet(ctx));
                MP_OK(tern_get(back, t, rwin, W, 0));
                memcpy(expect, bg, W);
                naive(ti, s, sbase, dbase, expect, lsrc, scaled ? scale : 1);
                for (size_t i = 0; i < W; i++)
                    MP_CHECK(
                        back[i] == expect[i],
                        "%s (%s, mode %d, %s) with rank %d: byte %zu (element %zu) is "
                        "%d, expected %d",
                        s->name, tnames[ti], mode, scaled ? "scaled" : "scale NULL", t, i,
                        i / esz, back[i], expect[i]);
                done++;
            }
        }
    }
    if (me == 0)
        printf("vis_acc: %d shapes x %d types checked with every rank\n", nshapes, NTYPE);
    (void)done;
}

/* Every rank adds into the same elements of rank 0 at once: i64 and
 * double, every other element of 512, 20 times; the sum is exact. */
static void contend(int me, int n, char *hot)
{
    enum { K = 512, REPS = 20 };
    char *rh = tern_sym_addr(0, hot);
    static int64_t vi[K];
    static double vd[K];
    for (size_t i = 0; i < K; i++) {
        vi[i] = me + 1 + (int64_t)i;
        vd[i] = (double)(me + 1);
    }
    size_t cnt[] = {K / 2, REPS};
    ptrdiff_t ss[] = {16, 0}, ds[] = {16, 0}; /* the second dimension repeats */
    MP_OK(tern_barrier());
    for (int r = 0; r < 4; r++) {
        size_t c1[] = {K / 2};
        MP_OK(tern_acc_strided(0, rh, ds, vi, ss, c1, 1, TERN_AT_I64, NULL, 0));
        MP_OK(tern_acc_strided_nbi(0, rh + K * 8, ds, vd, ss, c1, 1, TERN_AT_DOUBLE, NULL,
                                   0));
    }
    MP_OK(tern_acc_strided(0, rh, ds, vi, ss, cnt, 2, TERN_AT_I64, NULL, 0));
    MP_OK(
        tern_acc_strided_nbi(0, rh + K * 8, ds, vd, ss, cnt, 2, TERN_AT_DOUBLE, NULL, 0));
    MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));
    MP_OK(tern_barrier());
    if (me == 0) {
        const int64_t *hi = (const int64_t *)hot;
        const double *hd = (const double *)(hot + K * 8);
        for (size_t i = 0; i < K; i++) {
            int64_t wi = 0;
            double wd = 0;
            if (i % 2 == 0)
                for (int r = 0; r < n; r++) {
                    wi += (REPS + 4) * (r + 1 + (int64_t)i);
                    wd += (REPS + 4) * (double)(r + 1);
                }
            MP_CHECK(hi[i] == wi, "contended i64 element %zu is %lld, expected %lld", i,
                     (long long)hi[i], (long long)wi);
            MP_CHECK(hd[i] == wd, "contended double element %zu is %g, expected %g", i,
                     hd[i], wd);
        }
    }
}

/* IMMEDIATE: a strided accumulate is applied whole or refused whole
 * (TERN_ERR_AGAIN, nothing added); to a mapped peer it never refuses. A
 * flood of nbi calls of 64 elements each (and blocking ones) into separate
 * places of the next rank, every element and gap checked after the sync.
 * Returns the calls refused. */
static int immediate(int me, int n, char *imm)
{
    enum { K = 48, P = 64 };
    int t = (me + 1) % n, mapped = tern_ptr(t, tern_sym_addr(t, imm)) != NULL;
    char *rw = tern_sym_addr(t, imm + (size_t)me * K * P * 16);
    static int64_t v[K][P];
    int status[K], again = 0;
    size_t cnt[] = {P};
    ptrdiff_t ss[] = {8}, ds[] = {16}; /* every other element */
    for (int k = 0; k < K; k++)
        for (int p = 0; p < P; p++)
            v[k][p] = 1000 * (me + 1) + 10 * k + p;
    for (int k = 0; k < K; k++) {
        char *dst = rw + (size_t)k * P * 16;
        status[k] = k % 8 == 7
                        ? tern_acc_strided(t, dst, ds, v[k], ss, cnt, 1, TERN_AT_I64,
                                           NULL, TERN_FLAG_IMMEDIATE)
                        : tern_acc_strided_nbi(t, dst, ds, v[k], ss, cnt, 1, TERN_AT_I64,
                                               NULL, TERN_FLAG_IMMEDIATE);
        MP_CHECK(status[k] == TERN_OK || status[k] == TERN_ERR_AGAIN,
                 "IMMEDIATE accumulate %d: %s", k, tern_strerror(status[k]));
        MP_CHECK(!mapped || status[k] == TERN_OK,
                 "IMMEDIATE accumulate %d to mapped rank %d refused", k, t);
        again += status[k] == TERN_ERR_AGAIN;
    }
    MP_OK(tern_quiet());
    static int64_t back[K * P * 2];
    MP_OK(tern_get(back, t, rw, sizeof back, 0));
    for (int k = 0; k < K; k++)
        for (int p = 0; p < P; p++) {
            int64_t want = status[k] == TERN_OK ? v[k][p] : 0;
            MP_CHECK(back[(k * P + p) * 2] == want,
                     "IMMEDIATE accumulate %d (%s): element %d is %lld, expected %lld", k,
                     tern_strerror(status[k]), p, (long long)back[(k * P + p) * 2],
                     (long long)want);
            MP_CHECK(back[(k * P + p) * 2 + 1] == 0, "IMMEDIATE accumulate %d: gap %d", k,
                     p);
        }
    return again;
}

static void bad_input(int me, int n, char *zone)
{
    int peer = (me + 1) % n;
    char *rz = tern_sym_addr(peer, zone + (size_t)me * W), *base;
    size_t size;
    MP_OK(tern_segment_query(peer, (void **)&base, &size));
    static unsigned char fill[W];
    memset(fill, 0x5a, W);
    MP_OK(tern_put(peer, rz, fill, W, 0));
    int64_t v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    size_t c4[] = {4};
    ptrdiff_t s8[] = {8}, s12[] = {12};
    MP_EXPECT(tern_acc_strided(peer, rz, s8, v, s8, c4, 1, TERN_AT_U64, NULL, 0),
              TERN_ERR_INVALID, "accumulate takes TERN_AT_I32, TERN_AT_I64");
    MP_EXPECT(tern_acc_strided(peer, rz + 4, s8, v, s8, c4, 1, TERN_AT_I64, NULL, 0),
              TERN_ERR_INVALID, "is not aligned to the 8 bytes of i64");
    MP_EXPECT(tern_acc_strided(peer, rz, s12, v, s8, c4, 1, TERN_AT_I64, NULL, 0),
              TERN_ERR_INVALID, "dststrides[0] = 12 is not a multiple of the 8 bytes");
    ptrdiff_t far[] = {(ptrdiff_t)(size / 2) & ~(ptrdiff_t)7};
    size_t c3[] = {3};
    MP_EXPECT(tern_acc_strided(peer, rz, far, v, s8, c3, 1, TERN_AT_DOUBLE, NULL, 0),
              TERN_ERR_RANGE, "the strided destination (dst and dststrides)");
    MP_EXPECT(tern_acc_strided_nbi(peer, base + size - 16, s8, v, s8, c4, 1, TERN_AT_I64,
                                   NULL, 0),
              TERN_ERR_RANGE, "is outside the segment of rank");
    MP_EXPECT(tern_acc_strided(peer, tern_sym_addr(peer, s_global), s8, v, s8, c4, 1,
                               TERN_AT_I64, NULL, 0),
              TERN_ERR_RANGE, "accepts addresses in the segment only");
    size_t c33[33];
    ptrdiff_t st33[33];
    for (int k = 0; k < 33; k++) {
        c33[k] = 1;
        st33[k] = 8;
    }
    MP_EXPECT(tern_acc_strided(peer, rz, st33, v, st33, c33, 33, TERN_AT_I64, NULL, 0),
              TERN_ERR_INVALID, "stridelevels 33");
    MP_EXPECT(tern_acc_strided(peer, rz, s8, NULL, s8, c4, 1, TERN_AT_I64, NULL, 0),
              TERN_ERR_INVALID, "src is NULL");
    MP_EXPECT(tern_acc_strided(peer, rz, s8, v, s8, NULL, 1, TERN_AT_I64, NULL, 0),
              TERN_ERR_INVALID, "count is NULL");
    size_t neg[] = {(size_t)-2};
    MP_EXPECT(tern_acc_strided(peer, rz, s8, v, s8, neg, 1, TERN_AT_I64, NULL, 0),
              TERN_ERR_INVALID, "count[0] = ");
    MP_EXPECT(tern_acc_strided(n, rz, s8, v, s8, c4, 1, TERN_AT_I64, NULL, 0),
              TERN_ERR_RANK, "rank");
    MP_EXPECT(tern_acc_strided(peer, rz, s8, v, s8, c4, 1, TERN_AT_I64, NULL, 0x100),
              TERN_ERR_INVALID, "flags 0x100");
    tern_ctx_t dead;
    MP_OK(tern_ctx_create(0, &dead));
    MP_OK(tern_ctx_destroy(dead));
    MP_EXPECT(
        tern_ctx_acc_strided_nbi(dead, peer, rz, s8, v, s8, c4, 1, TERN_AT_I64, NULL, 0),
        TERN_ERR_INVALID, "was destroyed");
    MP_OK(tern_barrier());
    MP_OK(tern_get(fill, peer, rz, W, 0));
    for (size_t i = 0; i < W; i++)
        MP_CHECK(fill[i] == 0x5a, "byte %zu was written by a refused accumulate", i);
    MP_CHECK(s_global[0] == 0, "the global was written");
    MP_OK(tern_barrier());
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    char *zone, *hot, *imm;
    MP_OK(tern_alloc_sym((size_t)n * W, (void **)&zone));
    MP_OK(tern_alloc_sym(8192, (void **)&hot));
    MP_OK(tern_alloc_sym((size_t)n * 48 * 64 * 16, (void **)&imm));
    memset(hot, 0, 8192);
    memset(imm, 0, (size_t)n * 48 * 64 * 16);
    MP_OK(tern_ctx_create(0, &ctx));
    MP_OK(tern_barrier());
    bad_input(me, n, zone);
    make_shapes();
    cases(me, n, zone);
    contend(me, n, hot);
    int again = immediate(me, n, imm);
    printf("vis_acc: rank %d: IMMEDIATE refused %d of 48 strided accumulates\n", me,
           again);
    MP_OK(tern_ctx_destroy(ctx));
    return mp_finish("vis_acc");
}
