/* Non-contiguous put and get (vector, indexed, strided) to every rank,
 * in every form (blocking, events, nbi, a created context), every byte
 * checked against the naive loop nest: transposes, reflections, source
 * strides of 0, counts of 1 in every one of 32 dimensions, 32 contiguous
 * dimensions, zero counts, zero-length pieces, random shapes. Then IMMEDIATE
 * (all or nothing) and overlapping destinations (one of the sources). */
#include <stdint.h>
#include <string.h>

#include "mp_util.h"

#define W       (64 * 1024) /* window per (target, writer) */
#define MAXMOVE 8192        /* byte moves per case at most */

enum { BLOCKING, EVENTS, NBI, CTX, NMODES };
static const char *const mode_names[] = {"blocking", "events", "nbi", "ctx"};

/* One contiguous piece of the naive description: n bytes from src offset
 * so to dst offset do (offsets from the window starts). */
typedef struct move {
    size_t doff, soff, n;
} move_t;

typedef struct vis_case {
    int form; /* 0 vector, 1 indexed, 2 strided */
    const char *name;
    /* strided */
    size_t elem, levels, count[TERN_VIS_MAX_DIMS];
    ptrdiff_t sst[TERN_VIS_MAX_DIMS], dst[TERN_VIS_MAX_DIMS];
    size_t sbase, dbase; /* offsets of element 0 in the windows */
    /* vector / indexed: offsets and lengths of the pieces */
    size_t nd, ns, dlen, slen;
    size_t doffs[512], soffs[512], dlens[512], slens[512];
    /* what the naive loop moves */
    move_t moves[MAXMOVE];
    size_t nmoves;
} vis_case_t;

static uint64_t rng = 88172645463325252ull;
static size_t below(size_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return n ? (size_t)(rng % n) : 0;
}

/* The naive loop nest of a strided case into moves; 0 if too many. */
static int strided_moves(vis_case_t *c)
{
    c->nmoves = 0;
    if (c->elem == 0)
        return 1;
    for (size_t k = 0; k < c->levels; k++)
        if (c->count[k] == 0)
            return 1;
    size_t idx[TERN_VIS_MAX_DIMS] = {0};
    for (;;) {
        ptrdiff_t so = (ptrdiff_t)c->sbase, dof = (ptrdiff_t)c->dbase;
        for (size_t k = 0; k < c->levels; k++) {
            so += (ptrdiff_t)idx[k] * c->sst[k];
            dof += (ptrdiff_t)idx[k] * c->dst[k];
        }
        if (c->nmoves == MAXMOVE)
            return 0;
        c->moves[c->nmoves++] = (move_t){(size_t)dof, (size_t)so, c->elem};
        size_t k = 0;
        while (k < c->levels && ++idx[k] == c->count[k])
            idx[k++] = 0;
        if (k == c->levels)
            return 1;
    }
}

/* Places a strided case in the windows: element 0 where the extents start
 * at 0; 0 if it does not fit or if destinations overlap. */
static int strided_place(vis_case_t *c)
{
    ptrdiff_t slo = 0, shi = (ptrdiff_t)c->elem, dlo = 0, dhi = (ptrdiff_t)c->elem;
    for (size_t k = 0; k < c->levels; k++) {
        ptrdiff_t m = c->count[k] ? (ptrdiff_t)c->count[k] - 1 : 0;
        ptrdiff_t s = m * c->sst[k], d = m * c->dst[k];
        *(s < 0 ? &slo : &shi) += s;
        *(d < 0 ? &dlo : &dhi) += d;
    }
    if (shi - slo > W || dhi - dlo > W)
        return 0;
    c->sbase = (size_t)-slo;
    c->dbase = (size_t)-dlo;
    if (!strided_moves(c))
        return 0;
    static unsigned char used[W];
    memset(used, 0, sizeof used);
    for (size_t i = 0; i < c->nmoves; i++)
        for (size_t b = 0; b < c->moves[i].n; b++)
            if (used[c->moves[i].doff + b]++)
                return 0;
    return 1;
}

/* Vector/indexed moves: the source bytes in list order onto the
 * destination bytes in list order. */
static void list_moves(vis_case_t *c)
{
    c->nmoves = 0;
    size_t i = 0, j = 0, di = 0, sj = 0;
    for (;;) {
        while (i < c->nd && di == (c->form ? c->dlen : c->dlens[i]))
            i++, di = 0;
        while (j < c->ns && sj == (c->form ? c->slen : c->slens[j]))
            j++, sj = 0;
        if (i == c->nd || j == c->ns)
            return;
        size_t dn = (c->form ? c->dlen : c->dlens[i]) - di;
        size_t sn = (c->form ? c->slen : c->slens[j]) - sj;
        size_t n = dn < sn ? dn : sn;
        c->moves[c->nmoves++] = (move_t){c->doffs[i] + di, c->soffs[j] + sj, n};
        di += n;
        sj += n;
    }
}

/* Splits total bytes into k pieces (every fifth of length 0) placed in
 * slots of W/k bytes, in a shuffled order (pieces out of address order);
 * fills offs/lens. total must be at most k*W/k*4/5. */
static void split(size_t total, size_t k, size_t *offs, size_t *lens)
{
    size_t slot = W / k, left = total, perm[512];
    for (size_t i = 0; i < k; i++)
        lens[i] = 0;
    while (left) {
        size_t i = below(k);
        if (k >= 5 && i % 5 == 3)
            continue;
        size_t add = 1 + below(64);
        add = add < left ? add : left;
        add = add < slot - lens[i] ? add : slot - lens[i];
        lens[i] += add;
        left -= add;
    }
    for (size_t i = 0; i < k; i++)
        perm[i] = i;
    for (size_t i = k; i-- > 1;) {
        size_t j = below(i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (size_t i = 0; i < k; i++)
        offs[i] = perm[i] * slot + below(slot - lens[i] + 1);
}

/* ---- the cases ---------------------------------------------------------- */

static int ncases;
static vis_case_t cases[160];

static vis_case_t *add_strided(const char *name, size_t elem, size_t levels,
                               const size_t *count, const ptrdiff_t *sst,
                               const ptrdiff_t *dst)
{
    vis_case_t *c = &cases[ncases];
    memset(c, 0, sizeof(*c));
    c->form = 2;
    c->name = name;
    c->elem = elem;
    c->levels = levels;
    for (size_t k = 0; k < levels; k++) {
        c->count[k] = count[k];
        c->sst[k] = sst[k];
        c->dst[k] = dst[k];
    }
    MP_CHECK(strided_place(c), "case %s does not fit", name);
    ncases++;
    return c;
}

static void make_cases(void)
{
    /* 3-d block of a padded array, contiguous on neither side */
    size_t c3[] = {5, 4, 3};
    ptrdiff_t s3[] = {8, 48, 48 * 5}, d3[] = {8, 40, 40 * 4 + 16};
    add_strided("3-d subarray", 8, 3, c3, s3, d3);
    /* the same moves, contiguous on both sides: folds to one piece */
    ptrdiff_t cc[] = {8, 40, 160};
    add_strided("3-d contiguous", 8, 3, c3, cc, cc);
    /* transpose of a 7x5 matrix of doubles */
    size_t c2[] = {7, 5};
    ptrdiff_t st[] = {8, 56}, dt[] = {40, 8};
    add_strided("transpose", 8, 2, c2, st, dt);
    /* reflections: destination reversed; both reversed */
    size_t c1[] = {300};
    ptrdiff_t p4[] = {4}, n4[] = {-4};
    add_strided("reflect dst", 4, 1, c1, p4, n4);
    add_strided("reflect both", 4, 1, c1, n4, n4);
    size_t c2r[] = {6, 9};
    ptrdiff_t s2r[] = {-3, 30}, d2r[] = {27, -3};
    add_strided("reflected transpose, 3-byte elements", 3, 2, c2r, s2r, d2r);
    /* source stride 0: one element broadcast over a 2-d destination */
    size_t cb[] = {16, 8};
    ptrdiff_t zb[] = {0, 0}, db[] = {16, 400};
    add_strided("broadcast", 16, 2, cb, zb, db);
    /* 32 dimensions: counts of 1 everywhere; 32 contiguous dimensions of 2
     * bytes... and 32 dimensions of which 8 have count 2, transposed */
    size_t c32[32], c32b[32], c32c[32];
    ptrdiff_t s32[32], d32[32], s32c[32], d32c[32];
    for (int k = 0; k < 32; k++) {
        c32[k] = 1;
        s32[k] = 1000 * (k + 1);
        d32[k] = -77 * (k + 1);
        c32b[k] = k < 12 ? 2 : 1;
        c32c[k] = k % 4 == 0 ? 2 : 1;
    }
    add_strided("32 dims of count 1", 24, 32, c32, s32, d32);
    ptrdiff_t sb2[32], db2[32];
    for (int k = 0; k < 32; k++)
        sb2[k] = db2[k] = k < 12 ? (ptrdiff_t)2 << k : 0;
    add_strided("32 dims, 12 contiguous of count 2", 2, 32, c32b, sb2, db2);
    for (int k = 0; k < 32; k++) {
        int j = k / 4; /* dims 0,4,..,28 have count 2: bit j on each side */
        s32c[k] = (ptrdiff_t)8 << j;
        d32c[k] = (ptrdiff_t)8 << (7 - j);
        if (j % 2)
            d32c[k] = -d32c[k];
    }
    add_strided("32 dims, transposed and reflected", 8, 32, c32c, s32c, d32c);
    /* zero counts and zero elements: nothing moves */
    size_t cz[] = {4, 0, 3};
    add_strided("a count of 0", 8, 3, cz, s3, d3);
    add_strided("elemsz 0", 0, 3, c3, s3, d3);
    add_strided("0 levels", 40, 0, NULL, NULL, NULL);

    /* random shapes: padded arrays permuted and reflected on each side */
    while (ncases < 100) {
        size_t elem = (size_t[]){1, 2, 4, 8, 3, 12, 16}[below(7)];
        size_t levels = below(5) == 0 ? 32 : 1 + below(5);
        size_t count[32];
        ptrdiff_t st2[2][32];
        size_t total = 1;
        for (size_t k = 0; k < levels; k++) {
            count[k] = levels > 8 ? (below(6) == 0 ? 2 : 1) : 1 + below(7);
            total *= count[k];
        }
        if (total * elem > 4096)
            continue;
        for (int side = 0; side < 2; side++) {
            size_t perm[32];
            for (size_t k = 0; k < levels; k++)
                perm[k] = k;
            for (size_t k = levels; k-- > 1;) {
                size_t j = below(k + 1), t = perm[k];
                perm[k] = perm[j];
                perm[j] = t;
            }
            ptrdiff_t next = (ptrdiff_t)(elem + (below(3) == 0 ? below(4) : 0));
            for (size_t k = 0; k < levels; k++) {
                size_t d = perm[k];
                st2[side][d] = below(5) == 0 ? -next : next;
                if (side == 0 && below(10) == 0)
                    st2[side][d] = 0;
                next = next * (ptrdiff_t)count[d] +
                       (below(4) == 0 ? (ptrdiff_t)below(7) : 0);
            }
        }
        vis_case_t *c = &cases[ncases];
        memset(c, 0, sizeof(*c));
        c->form = 2;
        c->name = "random strided";
        c->elem = elem;
        c->levels = levels;
        memcpy(c->count, count, levels * sizeof(size_t));
        memcpy(c->sst, st2[0], levels * sizeof(ptrdiff_t));
        memcpy(c->dst, st2[1], levels * sizeof(ptrdiff_t));
        if (strided_place(c))
            ncases++;
    }

    /* vector: different counts on each side, zero-length pieces */
    for (int v = 0; v < 20; v++) {
        vis_case_t *c = &cases[ncases++];
        memset(c, 0, sizeof(*c));
        c->form = 0;
        c->name = v == 0 ? "vector, empty" : "vector";
        size_t total = v == 0 ? 0 : v == 1 ? 1 : below(6000);
        c->nd = 1 + below(v % 3 == 0 ? 300 : 20);
        c->ns = 1 + below(v % 2 == 0 ? 300 : 20);
        split(total, c->nd, c->doffs, c->dlens);
        split(total, c->ns, c->soffs, c->slens);
        list_moves(c);
    }
    /* indexed: elements of different sizes on the two sides */
    for (int v = 0; v < 12; v++) {
        vis_case_t *c = &cases[ncases++];
        memset(c, 0, sizeof(*c));
        c->form = 1;
        c->name = "indexed";
        size_t e = (size_t[]){8, 8, 1, 4, 16, 64}[v % 6];
        c->nd = 1 + below(256);
        c->dlen = e;
        c->slen = v % 3 == 0 ? e * 2 : v % 3 == 1 ? e : e / 2 ? e / 2 : e;
        if (c->nd * c->dlen % c->slen)
            c->slen = e;
        c->ns = c->nd * c->dlen / c->slen;
        /* destinations scattered, 25% density where they fit */
        size_t step = c->nd * 4 * e <= W ? 4 * e : W / c->nd / e * e;
        for (size_t i = 0; i < c->nd; i++)
            c->doffs[i] = i * step;
        for (size_t i = c->nd; i-- > 1;) {
            size_t j = below(i + 1), t = c->doffs[i];
            c->doffs[i] = c->doffs[j];
            c->doffs[j] = t;
        }
        for (size_t i = 0; i < c->ns; i++) /* sources anywhere, may overlap */
            c->soffs[i] = below((W - c->slen) / 8) * 8;
        list_moves(c);
    }
}

/* ---- running them --------------------------------------------------------- */

static tern_ctx_t ctx;

static int complete(int mode, tern_event_t *evs, int nev)
{
    if (mode == EVENTS)
        return tern_event_wait_all(evs, (size_t)nev);
    if (mode == NBI)
        return tern_nbi_sync(TERN_SYNC_REMOTE);
    if (mode == CTX)
        return tern_ctx_quiet(ctx);
    return TERN_OK;
}

/* The VIS call of case c in mode: put (to rank, remote window rwin, local
 * window lwin) or get. */
static int run_case(const vis_case_t *c, int get, int mode, int rank, char *rwin,
                    char *lwin)
{
    char *dwin = get ? lwin : rwin, *swin = get ? rwin : lwin;
    tern_event_t ev[2] = {TERN_EVENT_DONE, TERN_EVENT_DONE};
    tern_ctx_t cx = mode == CTX ? ctx : TERN_CTX_DEFAULT;
    int rc;
    if (c->form == 2) {
        char *d = dwin + c->dbase, *s = swin + c->sbase;
        const size_t *cnt = c->levels ? c->count : NULL;
        const ptrdiff_t *ds = c->levels ? c->dst : NULL, *ss = c->levels ? c->sst : NULL;
        if (mode == EVENTS)
            rc = get ? tern_get_strided_nb(d, ds, rank, s, ss, c->elem, cnt, c->levels,
                                           &ev[0], 0)
                     : tern_put_strided_nb(rank, d, ds, s, ss, c->elem, cnt, c->levels,
                                           &ev[0], &ev[1], 0);
        else if (mode == NBI || mode == CTX)
            rc = get ? tern_ctx_get_strided_nbi(cx, d, ds, rank, s, ss, c->elem, cnt,
                                                c->levels, 0)
                     : tern_ctx_put_strided_nbi(cx, rank, d, ds, s, ss, c->elem, cnt,
                                                c->levels, 0);
        else
            rc = get ? tern_get_strided(d, ds, rank, s, ss, c->elem, cnt, c->levels, 0)
                     : tern_put_strided(rank, d, ds, s, ss, c->elem, cnt, c->levels, 0);
    } else if (c->form == 0) {
        tern_memvec_t dv[512], sv[512];
        for (size_t i = 0; i < c->nd; i++)
            dv[i] = (tern_memvec_t){dwin + c->doffs[i], c->dlens[i]};
        for (size_t i = 0; i < c->ns; i++)
            sv[i] = (tern_memvec_t){swin + c->soffs[i], c->slens[i]};
        if (mode == EVENTS)
            rc = get ? tern_get_vector_nb(c->nd, dv, rank, c->ns, sv, &ev[0], 0)
                     : tern_put_vector_nb(rank, c->nd, dv, c->ns, sv, &ev[0], &ev[1], 0);
        else if (mode == NBI || mode == CTX)
            rc = get ? tern_ctx_get_vector_nbi(cx, c->nd, dv, rank, c->ns, sv, 0)
                     : tern_ctx_put_vector_nbi(cx, rank, c->nd, dv, c->ns, sv, 0);
        else
            rc = get ? tern_get_vector(c->nd, dv, rank, c->ns, sv, 0)
                     : tern_put_vector(rank, c->nd, dv, c->ns, sv, 0);
    } else {
        void *da[512];
        const void *sa[512];
        for (size_t i = 0; i < c->nd; i++)
            da[i] = dwin + c->doffs[i];
        for (size_t i = 0; i < c->ns; i++)
            sa[i] = swin + c->soffs[i];
        if (mode == EVENTS)
            rc = get ? tern_get_indexed_nb(c->nd, da, c->dlen, rank, c->ns, sa, c->slen,
                                           &ev[0], 0)
                     : tern_put_indexed_nb(rank, c->nd, da, c->dlen, c->ns, sa, c->slen,
                                           &ev[0], &ev[1], 0);
        else if (mode == NBI || mode == CTX)
            rc = get ? tern_ctx_get_indexed_nbi(cx, c->nd, da, c->dlen, rank, c->ns, sa,
                                                c->slen, 0)
                     : tern_ctx_put_indexed_nbi(cx, rank, c->nd, da, c->dlen, c->ns, sa,
                                                c->slen, 0);
        else
            rc = get ? tern_get_indexed(c->nd, da, c->dlen, rank, c->ns, sa, c->slen, 0)
                     : tern_put_indexed(rank, c->nd, da, c->dlen, c->ns, sa, c->slen, 0);
    }
    if (rc != TERN_OK)
        return rc;
    return complete(mode, ev, get ? 1 : 2);
}

static void apply(unsigned char *e, const unsigned char *s, const vis_case_t *c)
{
    for (size_t i = 0; i < c->nmoves; i++)
        memcpy(e + c->moves[i].doff, s + c->moves[i].soff, c->moves[i].n);
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    char *putzone, *getzone;
    MP_OK(tern_alloc_sym((size_t)n * W, (void **)&putzone));
    MP_OK(tern_alloc_sym(W, (void **)&getzone));
    for (size_t i = 0; i < W; i++)
        getzone[i] = (char)mp_pattern(me, i, 7);
    MP_OK(tern_ctx_create(0, &ctx));
    MP_OK(tern_barrier());
    make_cases();
    static unsigned char lwin[W], expect[W], back[W], bg[W], remote_src[W];

    size_t checked = 0;
    for (int ci = 0; ci < ncases; ci++) {
        const vis_case_t *c = &cases[ci];
        for (int get = 0; get < 2; get++) {
            int mode = (ci + get) % NMODES;
            for (int d = 0; d < n; d++) {
                int t = (me + d) % n;
                unsigned salt = (unsigned)(ci * 2 + get);
                for (size_t i = 0; i < W; i++)
                    bg[i] = (unsigned char)mp_pattern(me + 17, i, salt);
                if (!get) {
                    /* background on the target, then the put, then read back */
                    char *rwin = tern_sym_addr(t, putzone + (size_t)me * W);
                    MP_OK(tern_put(t, rwin, bg, W, 0));
                    for (size_t i = 0; i < W; i++)
                        lwin[i] = (unsigned char)mp_pattern(me, i, salt + 1000);
                    int rc = run_case(c, 0, mode, t, rwin, (char *)lwin);
                    MP_CHECK(rc == TERN_OK, "put case %d (%s) %s to %d: %s", ci, c->name,
                             mode_names[mode], t, tern_strerror(rc));
                    MP_OK(tern_get(back, t, rwin, W, 0));
                    memcpy(expect, bg, W);
                    apply(expect, lwin, c);
                } else {
                    memcpy(back, bg, W);
                    for (size_t i = 0; i < W; i++)
                        remote_src[i] = (unsigned char)mp_pattern(t, i, 7);
                    int rc =
                        run_case(c, 1, mode, t, tern_sym_addr(t, getzone), (char *)back);
                    MP_CHECK(rc == TERN_OK, "get case %d (%s) %s from %d: %s", ci,
                             c->name, mode_names[mode], t, tern_strerror(rc));
                    memcpy(expect, bg, W);
                    apply(expect, remote_src, c);
                }
                for (size_t i = 0; i < W; i++)
                    MP_CHECK(
                        back[i] == expect[i],
                        "%s case %d (%s, %s) with rank %d: byte %zu is %d, expected %d",
                        get ? "get" : "put", ci, c->name, mode_names[mode], t, i, back[i],
                        expect[i]);
                checked += c->nmoves;
            }
        }
    }
    MP_OK(tern_barrier());

    /* Overlapping destinations (documented: each receives one of its
     * sources): 4 elements of 8 bytes onto one place. */
    for (int d = 0; d < n; d++) {
        int t = (me + d) % n;
        uint64_t srcv[4] = {11, 22, 33, 44}, got = 0;
        size_t cnt[] = {4};
        ptrdiff_t ss[] = {8}, ds[] = {0};
        char *rwin = tern_sym_addr(t, putzone + (size_t)me * W);
        MP_OK(tern_put_strided(t, rwin, ds, srcv, ss, 8, cnt, 1, 0));
        MP_OK(tern_get(&got, t, rwin, 8, 0));
        MP_CHECK(got == 11 || got == 22 || got == 33 || got == 44,
                 "overlapping destination holds %llu", (unsigned long long)got);
    }

    /* IMMEDIATE: a call succeeds whole or refuses with nothing moved. A
     * flood of nbi strided puts of 64 pieces each, into separate places. */
    enum { K = 48, PIECES = 64 };
    int t = (me + 1) % n;
    char *rwin = tern_sym_addr(t, putzone + (size_t)me * W);
    memset(bg, 0xEE, W);
    MP_OK(tern_put(t, rwin, bg, W, 0));
    for (size_t i = 0; i < W; i++)
        lwin[i] = (unsigned char)mp_pattern(me, i, 99);
    int status[K], again = 0;
    for (int k = 0; k < K; k++) {
        size_t cnt[] = {PIECES};
        ptrdiff_t ss[] = {8}, ds[] = {16};
        status[k] = tern_put_strided_nbi(t, rwin + (size_t)k * PIECES * 16, ds,
                                         lwin + (size_t)k * PIECES * 8, ss, 8, cnt, 1,
                                         TERN_FLAG_IMMEDIATE);
        MP_CHECK(status[k] == TERN_OK || status[k] == TERN_ERR_AGAIN,
                 "IMMEDIATE put %d: %s", k, tern_strerror(status[k]));
        again += status[k] == TERN_ERR_AGAIN;
    }
    MP_OK(tern_quiet());
    MP_OK(tern_get(back, t, rwin, (size_t)K * PIECES * 16, 0));
    for (int k = 0; k < K; k++)
        for (size_t p = 0; p < PIECES; p++)
            for (size_t b = 0; b < 16; b++) {
                unsigned char want = status[k] == TERN_OK && b < 8
                                         ? lwin[(size_t)k * PIECES * 8 + p * 8 + b]
                                         : 0xEE;
                MP_CHECK(back[(size_t)k * PIECES * 16 + p * 16 + b] == want,
                         "IMMEDIATE put %d (%s): piece %zu byte %zu", k,
                         tern_strerror(status[k]), p, b);
            }
    MP_OK(tern_ctx_destroy(ctx));
    if (me == 0)
        printf("vis: %d cases, %zu pieces checked per rank; IMMEDIATE refused %d of %d\n",
               ncases, checked, again, K);
    return mp_finish("vis");
}
