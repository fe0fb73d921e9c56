/* The inline fast path of strided (one level) and indexed transfers
 * (tern/vis.h), which a call takes when its element size is a constant:
 * element sizes of 1 to 64 bytes, every form, random 1-d shapes
 * (reflections, source strides of 0, contiguous rows, a destination
 * stride of 0), indexed lists of 1 to 65 pieces (65: the library's path),
 * byte for byte against the naive loop; then the bad input the inline
 * path must leave to the library (an element past either end of the
 * segment, a local extent that wraps, a negative count, NULL pointers, an
 * indexed address outside), each refused with its message and nothing
 * moved. To a network peer the same calls take the library's path. */
#include <stdio.h>
#include <string.h>

#include "mp_util.h"

#define ZONE   16384 /* bytes of each rank's zone, written by the previous rank */
#define MID    (ZONE / 2)
#define LOCAL  16384 /* local buffers */
#define LMID   (LOCAL / 2)
#define SLOTS  (ZONE / 64)
#define ROUNDS 40

static int me, peer;
static char *rz;       /* the peer's zone */
static char img[ZONE]; /* what the peer's zone must hold */
static char got[ZONE]; /* read back */
static char lsrc[LOCAL], ldst[LOCAL], lexp[LOCAL];
static unsigned long long rng;

static size_t rnd(size_t n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (size_t)(rng >> 33) % n;
}

/* The peer's zone and the local destination set to fresh patterns. */
static void reset(unsigned salt)
{
    for (size_t i = 0; i < ZONE; i++)
        img[i] = (char)mp_pattern(me, i, salt);
    MP_OK(tern_put(peer, rz, img, ZONE, 0));
    memset(ldst, 0x11, LOCAL);
    memset(lexp, 0x11, LOCAL);
}

static void verify_zone(const char *what, size_t e, size_t c, ptrdiff_t ds, ptrdiff_t ss)
{
    MP_OK(tern_get(got, peer, rz, ZONE, 0));
    for (size_t i = 0; i < ZONE; i++)
        MP_CHECK(got[i] == img[i],
                 "%s, elemsz %zu, count %zu, dst stride %td, src stride %td: byte %zu of "
                 "the peer's zone is %d, not %d",
                 what, e, c, ds, ss, i, got[i], img[i]);
}

static void verify_local(const char *what, size_t e, size_t c, ptrdiff_t ds, ptrdiff_t ss)
{
    for (size_t i = 0; i < LOCAL; i++)
        MP_CHECK(ldst[i] == lexp[i],
                 "%s, elemsz %zu, count %zu, dst stride %td, src stride %td: local byte "
                 "%zu is %d, not %d",
                 what, e, c, ds, ss, i, ldst[i], lexp[i]);
}

/* A destination stride: non-overlapping (|stride| >= e), sometimes
 * contiguous, either sign; a source stride: anything from -2e to 2e. */
static ptrdiff_t dst_stride(size_t e, int t)
{
    ptrdiff_t s = t % 5 == 0 ? (ptrdiff_t)e : (ptrdiff_t)(e + rnd((e < 16 ? e : 16) + 6));
    return rnd(3) == 0 ? -s : s;
}
static ptrdiff_t src_stride(size_t e, int t)
{
    if (t % 5 == 0)
        return (ptrdiff_t)e;
    return (ptrdiff_t)rnd(4 * e + 1) - 2 * (ptrdiff_t)e;
}

/* Random 1-d strided puts and gets of elements of E bytes, E a constant
 * in every call (the inline path's condition), in the three forms. */
#define DEFINE_ROWS(E)                                                                   \
    static void rows_##E(void)                                                           \
    {                                                                                    \
        for (int t = 0; t < ROUNDS; t++) {                                               \
            size_t c = t == 0 ? 1 : t == 1 ? 0 : 1 + rnd(t < 20 ? 8 : 64);               \
            size_t cnt[1] = {c};                                                         \
            ptrdiff_t ds = dst_stride(E, t), ss = src_stride(E, t);                      \
            ptrdiff_t dst_st[1] = {ds}, src_st[1] = {ss};                                \
            int form = t % 3;                                                            \
            /* put: lsrc + LMID to rz + MID */                                           \
            reset((unsigned)t + 100 * (E));                                              \
            for (size_t i = 0; i < LOCAL; i++)                                           \
                lsrc[i] = (char)mp_pattern(me, i, (unsigned)t + 7);                      \
            char *d0 = rz + MID;                                                         \
            const char *s0 = lsrc + LMID;                                                \
            if (form == 0) {                                                             \
                MP_OK(tern_put_strided(peer, d0, dst_st, s0, src_st, E, cnt, 1, 0));     \
            } else if (form == 1) {                                                      \
                tern_event_t lc, rc;                                                     \
                MP_OK(tern_put_strided_nb(peer, d0, dst_st, s0, src_st, E, cnt, 1, &lc,  \
                                          &rc, 0));                                      \
                MP_OK(tern_event_wait(lc));                                              \
                MP_OK(tern_event_wait(rc));                                              \
            } else {                                                                     \
                MP_OK(tern_put_strided_nbi(peer, d0, dst_st, s0, src_st, E, cnt, 1, 0)); \
                MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));                                  \
            }                                                                            \
            for (size_t i = 0; i < c; i++)                                               \
                memcpy(img + MID + (ptrdiff_t)i * ds, s0 + (ptrdiff_t)i * ss, E);        \
            verify_zone("put", E, c, ds, ss);                                            \
            /* get: rz + MID (stride ss, now remote) to ldst + LMID (ds) */              \
            char *g0 = ldst + LMID;                                                      \
            const char *r0 = rz + MID;                                                   \
            if (form == 0) {                                                             \
                MP_OK(tern_get_strided(g0, dst_st, peer, r0, src_st, E, cnt, 1, 0));     \
            } else if (form == 1) {                                                      \
                tern_event_t done;                                                       \
                MP_OK(tern_get_strided_nb(g0, dst_st, peer, r0, src_st, E, cnt, 1,       \
                                          &done, 0));                                    \
                MP_OK(tern_event_wait(done));                                            \
            } else {                                                                     \
                MP_OK(tern_get_strided_nbi(g0, dst_st, peer, r0, src_st, E, cnt, 1, 0)); \
                MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));                                  \
            }                                                                            \
            for (size_t i = 0; i < c; i++)                                               \
                memcpy(lexp + LMID + (ptrdiff_t)i * ds, img + MID + (ptrdiff_t)i * ss,   \
                       E);                                                               \
            verify_local("get", E, c, ds, ss);                                           \
        }                                                                                \
    }

/* Indexed puts and gets of k pieces of E bytes, k from 1 to 65: distinct
 * 64-byte slots of the zone, each piece at a random place in its slot. */
#define DEFINE_LISTS(E)                                                                 \
    static void lists_##E(void)                                                         \
    {                                                                                   \
        static size_t slot[SLOTS];                                                      \
        void *rl_at[66];                                                                \
        const void *ll_at[66];                                                          \
        for (int t = 0; t < ROUNDS; t++) {                                              \
            /* lists at either alignment mod 16 (the check loads two at once) */        \
            void **rl = rl_at + (t & 1);                                                \
            const void **ll = ll_at + ((t >> 1) & 1);                                   \
            size_t k = t == 0 ? 65 : t == 1 ? 64 : 1 + rnd(t < 20 ? 8 : 65);            \
            for (size_t i = 0; i < SLOTS; i++)                                          \
                slot[i] = i;                                                            \
            for (size_t i = 0; i < k; i++) { /* a partial shuffle */                    \
                size_t j = i + rnd(SLOTS - i), x = slot[i];                             \
                slot[i] = slot[j];                                                      \
                slot[j] = x;                                                            \
            }                                                                           \
            reset((unsigned)t + 1000 + 100 * (E));                                      \
            for (size_t i = 0; i < k; i++) {                                            \
                rl[i] = rz + slot[i] * 64 + rnd(64 - (E) + 1);                          \
                ll[i] = lsrc + rnd(LOCAL - (E) + 1);                                    \
            }                                                                           \
            if (t % 2 == 0) {                                                           \
                MP_OK(tern_put_indexed(peer, k, rl, E, k, ll, E, 0));                   \
            } else {                                                                    \
                MP_OK(tern_put_indexed_nbi(peer, k, rl, E, k, ll, E, 0));               \
                MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));                                 \
            }                                                                           \
            for (size_t i = 0; i < k; i++)                                              \
                memcpy(img + ((char *)rl[i] - rz), ll[i], E);                           \
            verify_zone("indexed put", E, k, 0, 0);                                     \
            /* get: the same remote pieces into distinct local slots */                 \
            for (size_t i = 0; i < k; i++)                                              \
                ll[i] = ldst + i * 64 + rnd(64 - (E) + 1);                              \
            if (t % 2 == 0) {                                                           \
                MP_OK(tern_get_indexed(k, (void *const *)ll, E, peer, k,                \
                                       (const void *const *)rl, E, 0));                 \
            } else {                                                                    \
                tern_event_t done;                                                      \
                MP_OK(tern_get_indexed_nb(k, (void *const *)ll, E, peer, k,             \
                                          (const void *const *)rl, E, &done, 0));       \
                MP_OK(tern_event_wait(done));                                           \
            }                                                                           \
            for (size_t i = 0; i < k; i++)                                              \
                memcpy(lexp + ((const char *)ll[i] - ldst), img + ((char *)rl[i] - rz), \
                       E);                                                              \
            verify_local("indexed get", E, k, 0, 0);                                    \
        }                                                                               \
    }

/* The loop nest of a strided transfer (what every call must equal). */
static void nest_copy(char *dst, const ptrdiff_t *dsts, const char *src,
                      const ptrdiff_t *srcs, size_t e, const size_t *cnt, size_t levels)
{
    size_t idx[32] = {0};
    for (size_t k = 0; k < levels; k++)
        if (cnt[k] == 0)
            return;
    for (;;) {
        ptrdiff_t d = 0, s = 0;
        for (size_t k = 0; k < levels; k++) {
            d += (ptrdiff_t)idx[k] * dsts[k];
            s += (ptrdiff_t)idx[k] * srcs[k];
        }
        memcpy(dst + d, src + s, e);
        size_t k = 0;
        for (; k < levels && ++idx[k] == cnt[k]; k++)
            idx[k] = 0;
        if (k == levels)
            return;
    }
}

/* A 1-d motion of c elements (strides ds, ss) described in levels
 * levels: its factors at random levels in order, the other levels of
 * count 1 with strides that must not matter (0, huge), level one_at among
 * them (every position over the rounds). With run, the factors are at
 * consecutive levels from a random one, levels of count 1 before and
 * after them (the shape tern_vis_fold_r_ folds inline above 8 levels;
 * one_at is then ignored). */
static void fold_shape(size_t levels, size_t c, ptrdiff_t ds, ptrdiff_t ss, size_t one_at,
                       int run, size_t *cnt, ptrdiff_t *dsts, ptrdiff_t *srcs)
{
    size_t fac[32], nf = 0, left = c, pos[32], np = 0;
    while (left > 1 && nf + 1 < levels) { /* smallest factors first */
        size_t f = 2;
        while (left % f)
            f++;
        fac[nf++] = f;
        left /= f;
    }
    if (left > 1) {
        if (nf)
            fac[nf - 1] *= left;
        else
            fac[nf++] = left;
    }
    for (size_t k = 0; k < levels; k++) /* the free positions */
        if (k != one_at)
            pos[np++] = k;
    for (size_t i = 0; i < nf; i++) { /* nf of them, kept in order */
        size_t j = i + rnd(np - i), x = pos[i];
        pos[i] = pos[j];
        pos[j] = x;
    }
    if (run) {
        size_t at = rnd(levels - nf + 1);
        for (size_t i = 0; i < nf; i++)
            pos[i] = at + i;
    }
    for (size_t i = 1; i < nf; i++)
        for (size_t j = i; j > 0 && pos[j] < pos[j - 1]; j--) {
            size_t x = pos[j];
            pos[j] = pos[j - 1];
            pos[j - 1] = x;
        }
    static const ptrdiff_t junk[] = {0, 1, -8, PTRDIFF_MAX, PTRDIFF_MIN, 12345};
    for (size_t k = 0; k < levels; k++) {
        cnt[k] = 1;
        dsts[k] = junk[rnd(6)];
        srcs[k] = junk[rnd(6)];
    }
    ptrdiff_t nd = ds, ns = ss;
    for (size_t i = 0; i < nf; i++) {
        cnt[pos[i]] = fac[i];
        dsts[pos[i]] = nd;
        srcs[pos[i]] = ns;
        nd *= (ptrdiff_t)fac[i];
        ns *= (ptrdiff_t)fac[i];
    }
}

/* The calls of DEFINE_FOLDED. In rounds t with (t / 4) even, a level
 * count of 2 to 4 or 8 is given as a constant the compiler sees, so that
 * the header folds it inline with the loop unrolled (tern_vis_fold_i_);
 * otherwise as a variable (tern_vis_fold_r_ inline for the shapes of
 * fold_shape's run, drawn in two rounds of five; for the others
 * tern_vis_fold_i_'s loop up to 8 levels, tern_vis_fold_ out of line
 * above). */
#define BY_LEVELS(X)                          \
    ((t / 4) % 2 == 0 && levels == 2   ? X(2) \
     : (t / 4) % 2 == 0 && levels == 3 ? X(3) \
     : (t / 4) % 2 == 0 && levels == 4 ? X(4) \
     : (t / 4) % 2 == 0 && levels == 8 ? X(8) \
                                       : X(levels))
#define F_PUT(L)     tern_put_strided(peer, d0, dsts, s0, srcs, E_, cnt, L, 0)
#define F_PUT_NB(L)  tern_put_strided_nb(peer, d0, dsts, s0, srcs, E_, cnt, L, &lc, &rc, 0)
#define F_PUT_NBI(L) tern_put_strided_nbi(peer, d0, dsts, s0, srcs, E_, cnt, L, 0)
#define F_GET(L)     tern_get_strided(g0, dsts, peer, r0, srcs, E_, cnt, L, 0)
#define F_GET_NB(L)  tern_get_strided_nb(g0, dsts, peer, r0, srcs, E_, cnt, L, &done, 0)
#define F_GET_NBI(L) tern_get_strided_nbi(g0, dsts, peer, r0, srcs, E_, cnt, L, 0)

/* Strided puts and gets of 2 to 32 levels that fold into one dimension
 * (the inline path through tern_vis_fold_i_ up to 8 levels, tern_vis_fold_
 * above: BY_LEVELS), elements of E bytes; every
 * fourth round one level of count > 1 is moved off the chain (the
 * library's path, several dimensions). Against the loop nest. */
#define DEFINE_FOLDED(E)                                                             \
    static void folded_##E(void)                                                     \
    {                                                                                \
        enum { E_ = E };                                                             \
        size_t cnt[32];                                                              \
        ptrdiff_t dsts[32], srcs[32];                                                \
        for (int t = 0; t < ROUNDS; t++) {                                           \
            size_t levels = t < 8        ? 2 + (size_t)t                             \
                            : t % 3 == 0 ? 32                                        \
                            : t % 3 == 1 ? 2 + rnd(7)                                \
                                         : 2 + rnd(31);                              \
            size_t c = t == 1 ? 1 : 1 + rnd(t < 12 ? 8 : 40);                        \
            ptrdiff_t ds = dst_stride(E, t), ss = src_stride(E, t);                  \
            fold_shape(levels, c, ds, ss, (size_t)t % levels, t % 5 >= 3, cnt, dsts, \
                       srcs);                                                        \
            if (t % 4 == 3) { /* an outer level off the chain: spaced twice */       \
                size_t k = levels;                                                   \
                while (k-- > 0 && cnt[k] == 1)                                       \
                    ;                                                                \
                size_t j = k < levels ? k : 0;                                       \
                while (j-- > 0 && cnt[j] == 1)                                       \
                    ;                                                                \
                if (k < levels && j < levels &&                                      \
                    c * 2 * (size_t)(ds < 0 ? -ds : ds) < MID - 64)                  \
                    dsts[k] *= 2;                                                    \
            }                                                                        \
            int form = t % 3;                                                        \
            reset((unsigned)t + 3000 + 100 * (E));                                   \
            for (size_t i = 0; i < LOCAL; i++)                                       \
                lsrc[i] = (char)mp_pattern(me, i, (unsigned)t + 11);                 \
            char *d0 = rz + MID;                                                     \
            const char *s0 = lsrc + LMID;                                            \
            if (form == 0) {                                                         \
                MP_OK(BY_LEVELS(F_PUT));                                             \
            } else if (form == 1) {                                                  \
                tern_event_t lc, rc;                                                 \
                MP_OK(BY_LEVELS(F_PUT_NB));                                          \
                MP_OK(tern_event_wait(lc));                                          \
                MP_OK(tern_event_wait(rc));                                          \
            } else {                                                                 \
                MP_OK(BY_LEVELS(F_PUT_NBI));                                         \
                MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));                              \
            }                                                                        \
            nest_copy(img + MID, dsts, s0, srcs, E, cnt, levels);                    \
            verify_zone("folded put", E, c, ds, ss);                                 \
            char *g0 = ldst + LMID;                                                  \
            const char *r0 = rz + MID;                                               \
            if (form == 0) {                                                         \
                MP_OK(BY_LEVELS(F_GET));                                             \
            } else if (form == 1) {                                                  \
                tern_event_t done;                                                   \
                MP_OK(BY_LEVELS(F_GET_NB));                                          \
                MP_OK(tern_event_wait(done));                                        \
            } else {                                                                 \
                MP_OK(BY_LEVELS(F_GET_NBI));                                         \
                MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));                              \
            }                                                                        \
            nest_copy(lexp + LMID, dsts, img + MID, srcs, E, cnt, levels);           \
            verify_local("folded get", E, c, ds, ss);                                \
        }                                                                            \
    }

DEFINE_FOLDED(1)
DEFINE_FOLDED(2)
DEFINE_FOLDED(3)
DEFINE_FOLDED(8)
DEFINE_FOLDED(16)
DEFINE_FOLDED(40)
DEFINE_FOLDED(64)

DEFINE_ROWS(1)
DEFINE_ROWS(2)
DEFINE_ROWS(3)
DEFINE_ROWS(4)
DEFINE_ROWS(8)
DEFINE_ROWS(16)
DEFINE_ROWS(24)
DEFINE_ROWS(64)
DEFINE_LISTS(1)
DEFINE_LISTS(4)
DEFINE_LISTS(8)
DEFINE_LISTS(16)
DEFINE_LISTS(64)

/* What the inline path must not do itself: each refused by the library
 * with its message, nothing moved. */
static void bad_input(void)
{
    char *base;
    size_t size;
    MP_OK(tern_segment_query(peer, (void **)&base, &size));
    reset(5);
    size_t c1[1] = {1}, c2[1] = {2}, c4[1] = {4}, cneg[1] = {(size_t)-3};
    ptrdiff_t s8[1] = {8}, sneg[1] = {-16}, shuge[1] = {PTRDIFF_MAX / 2};
    /* the second element past the end; one straddling it; one below */
    MP_EXPECT(tern_put_strided(peer, base + size - 8, s8, lsrc, s8, 8, c2, 1, 0),
              TERN_ERR_RANGE, "the strided destination");
    MP_EXPECT(tern_put_strided_nbi(peer, base + size - 7, s8, lsrc, s8, 8, c1, 1, 0),
              TERN_ERR_RANGE, "outside the segment of rank");
    MP_EXPECT(tern_put_strided(peer, base + 8, sneg, lsrc, s8, 8, c2, 1, 0),
              TERN_ERR_RANGE, "the strided destination");
    MP_EXPECT(tern_get_strided(ldst, s8, peer, base + size - 8, s8, 8, c2, 1, 0),
              TERN_ERR_RANGE, "the strided source");
    MP_EXPECT(tern_get_strided(ldst, s8, peer, base + 8, sneg, 8, c2, 1, 0),
              TERN_ERR_RANGE, "the strided source");
    /* a local extent that wraps around, a negative count, NULL pointers */
    MP_EXPECT(tern_put_strided(peer, rz, s8, lsrc, shuge, 8, c4, 1, 0), TERN_ERR_OVERFLOW,
              "wraps around");
    MP_EXPECT(tern_put_strided(peer, rz, s8, lsrc, s8, 8, cneg, 1, 0), TERN_ERR_INVALID,
              "negative");
    MP_EXPECT(tern_put_strided(peer, rz, s8, NULL, s8, 8, c2, 1, 0), TERN_ERR_INVALID,
              "src is NULL");
    MP_EXPECT(tern_get_strided(NULL, s8, peer, rz, s8, 8, c2, 1, 0), TERN_ERR_INVALID,
              "dst is NULL");
    MP_EXPECT(tern_put_strided(peer, rz, s8, lsrc, s8, 8, NULL, 1, 0), TERN_ERR_INVALID,
              "count is NULL");
    MP_EXPECT(tern_put_strided(peer, rz, NULL, lsrc, s8, 8, c2, 1, 0), TERN_ERR_INVALID,
              "dststrides is NULL");
    MP_EXPECT(tern_put_strided(peer, rz, s8, lsrc, s8, 8, c2, 1, 0x100), TERN_ERR_INVALID,
              "flags 0x100");
    MP_EXPECT(tern_put_strided(tern_size(), rz, s8, lsrc, s8, 8, c2, 1, 0), TERN_ERR_RANK,
              "rank");
    /* indexed: the bad address last (after good ones), or just below */
    void *rl[8];
    const void *ll[8];
    for (int i = 0; i < 8; i++) {
        rl[i] = rz + 64 * i;
        ll[i] = lsrc + 8 * i;
    }
    /* the bad address at every position of the inline check's blocks */
    for (int b = 0; b < 8; b++) {
        char what[24]; /* "dstlist[" and any int */
        snprintf(what, sizeof what, "dstlist[%d]", b);
        rl[b] = base + size - 4;
        MP_EXPECT(tern_put_indexed(peer, 8, rl, 8, 8, ll, 8, 0), TERN_ERR_RANGE, what);
        rl[b] = rz + 64 * b;
    }
    rl[7] = base + size - 4;
    rl[7] = base - 8;
    MP_EXPECT(tern_put_indexed_nbi(peer, 8, rl, 8, 8, ll, 8, 0), TERN_ERR_RANGE,
              "dstlist[7]");
    MP_EXPECT(
        tern_get_indexed(8, (void *const *)ll, 8, peer, 8, (const void *const *)rl, 8, 0),
        TERN_ERR_RANGE, "srclist[7]");
    MP_EXPECT(tern_put_indexed(peer, 8, NULL, 8, 8, ll, 8, 0), TERN_ERR_INVALID,
              "dstlist is NULL");
    /* folded shapes (levels of count 1 around, with strides that must not
     * matter): the last element past the end; a negative count; a count
     * of 0 (nothing to do) */
    size_t f3[3] = {1, 2, 1}, f4[4] = {2, 1, (size_t)-2, 1}, f0[4] = {2, 1, 0, 3};
    ptrdiff_t fd[4] = {PTRDIFF_MAX, 8, 0, 16}, fs[4] = {-8, 8, 12345, 16};
    MP_EXPECT(tern_put_strided(peer, base + size - 8, fd, lsrc, fs, 8, f3, 3, 0),
              TERN_ERR_RANGE, "the strided destination");
    MP_EXPECT(tern_get_strided_nbi(ldst, fd, peer, base + size - 8, fs, 8, f3, 3, 0),
              TERN_ERR_RANGE, "the strided source");
    ptrdiff_t gd[4] = {8, 0, 12345, 16}, gs[4] = {8, 7, 0, 16};
    MP_EXPECT(tern_put_strided(peer, rz, gd, lsrc, gs, 8, f4, 4, 0), TERN_ERR_INVALID,
              "negative");
    MP_OK(tern_put_strided(peer, rz, gd, lsrc, gs, 8, f0, 4, 0));
    /* 32 levels, the shape tern_vis_fold_r_ folds inline (levels of count
     * 1, a run, levels of count 1): a count of 0 or a negative one among
     * the last levels of count 1 (where only the counts are read, two at
     * a time), at an odd and an even level; the run past the end */
    size_t h[32];
    ptrdiff_t hd[32], hs[32];
    for (int k = 0; k < 32; k++) {
        h[k] = 1;
        hd[k] = k % 3 ? PTRDIFF_MIN : 0;
        hs[k] = k % 2 ? -1 : PTRDIFF_MAX;
    }
    h[3] = 4, hd[3] = 8, hs[3] = 8;
    h[4] = 2, hd[4] = 32, hs[4] = 32;
    for (int k = 5; k < 32; k += 13) {
        h[k] = 0;
        MP_OK(tern_put_strided(peer, rz, hd, lsrc, hs, 8, h, 32, 0));
        h[k] = (size_t)-2;
        MP_EXPECT(tern_put_strided(peer, rz, hd, lsrc, hs, 8, h, 32, 0), TERN_ERR_INVALID,
                  "negative");
        MP_EXPECT(tern_get_strided_nbi(ldst, hs, peer, rz, hd, 8, h, 32, 0),
                  TERN_ERR_INVALID, "negative");
        h[k] = 1;
    }
    MP_EXPECT(tern_put_strided(peer, base + size - 56, hd, lsrc, hs, 8, h, 32, 0),
              TERN_ERR_RANGE, "the strided destination");
    MP_EXPECT(tern_get_strided(ldst, hs, peer, base + size - 56, hd, 8, h, 32, 0),
              TERN_ERR_RANGE, "the strided source");
    verify_zone("refused calls", 8, 0, 0, 0);
    /* a destination stride of 0: the element receives one of its sources */
    ptrdiff_t s0[1] = {0};
    size_t c3[1] = {3};
    MP_OK(tern_put_strided(peer, rz, s0, lsrc, s8, 8, c3, 1, 0));
    MP_OK(tern_get(got, peer, rz, 8, 0));
    int one = 0;
    for (int i = 0; i < 3; i++)
        one |= memcmp(got, lsrc + 8 * i, 8) == 0;
    MP_CHECK(one, "a destination stride of 0: the element holds none of its sources");
}

int main(int argc, char **argv)
{
    me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    peer = (me + 1) % tern_size();
    rng = 0x9e3779b97f4a7c15ull ^ (unsigned long long)me;
    char *zone;
    MP_OK(tern_alloc_sym(ZONE, (void **)&zone));
    rz = tern_sym_addr(peer, zone);
    MP_CHECK(rz != NULL, "tern_sym_addr(%d)", peer);
    rows_1();
    rows_2();
    rows_3();
    rows_4();
    rows_8();
    rows_16();
    rows_24();
    rows_64();
    lists_1();
    lists_4();
    lists_8();
    lists_16();
    lists_64();
    folded_1();
    folded_2();
    folded_3();
    folded_8();
    folded_16();
    folded_40();
    folded_64();
    bad_input();
    MP_OK(tern_barrier());
    MP_OK(tern_free_sym(zone));
    return mp_finish("vis_inline");
}
