/* Combined nbi gets (core/put_agg.c): every rank gets, from every rank, a
 * few hundred pieces of 1 to 256 bytes at random offsets of an area the
 * owner filled (with 255-, 256- and 257-byte pieces around the limit and
 * longer ones that go alone), each into its own place of a local buffer,
 * then syncs (quiet, nbi sync, ctx quiet, nbi test until done, or a
 * blocking get from the same peer and then quiet); checked byte for byte.
 * Then put-then-get: nbi puts and nbi gets of the same words interleaved
 * with no sync between them; each get must return the value of the
 * thread's latest put before it, not an older one and not a later one.
 * Then lone gets: one nbi get and a quiet (an RMA read,
 * tn_pagg_sync_lone), and two.
 * With --threads, 3 threads per rank (TERN_THREAD_MULTIPLE) do the
 * rounds, two on their default contexts (each quiets), one on a shared
 * context that the main thread quiets after it exited.
 * With --fault (TERN_TEST_FAULT=pagg:1): a combined get message that fails
 * makes the quiet fail, with the peer named. */
#include <stdint.h>
#include <string.h>

#include "mp_util.h"

enum { AREA = 8192, K = 300, ROUNDS = 5, THREADS = 3, WORDS = 64, PG = 200 };

static unsigned char *area; /* symmetric, AREA bytes: the owner's pattern */
static uint64_t *words;     /* symmetric: per source rank WORDS words */
static int n, me;

static unsigned char pattern(int owner, int r, size_t i)
{
    return (unsigned char)(i * 131 + (size_t)owner * 17 + (size_t)r * 71 + (i >> 8));
}

static void fill(int r)
{
    for (size_t i = 0; i < AREA; i++)
        area[i] = pattern(me, r, i);
}

/* The pieces of source src (slot u) from target tgt in round r, in issue
 * order: offset at the target and length; returns the count. */
typedef struct piece {
    size_t off, len;
} piece_t;
static int pieces(int src, int tgt, int u, int r, piece_t *p)
{
    mp_rng_t g = {((uint64_t)src << 40) ^ ((uint64_t)tgt << 24) ^ ((uint64_t)u << 16) ^
                  (uint64_t)r ^ 0x9e3779b97f4a7c15ull};
    for (int i = 0; i < K; i++) {
        size_t len;
        if (i % 97 == 50) /* alone: above the limit */
            len = 300 + mp_rng_next(&g) % 700;
        else if (i % 53 == 7) /* around the default limit */
            len = 255 + mp_rng_next(&g) % 3;
        else
            len = mp_rng_next(&g) % 10 ? 1 + mp_rng_next(&g) % 64
                                       : 65 + mp_rng_next(&g) % 192;
        p[i].len = len;
        p[i].off = mp_rng_next(&g) % (AREA - len + 1);
    }
    return K;
}

/* One target's gets into dst (K * 1000 bytes at most), then the sync of
 * round r (not for the shared context: its quiet comes later). */
static void get_all(tern_ctx_t ctx, int t, int u, int r, unsigned char *dst, int sync)
{
    static _Thread_local piece_t p[K];
    int np = pieces(me, t, u, r, p);
    unsigned char *rem = tern_sym_addr(t, area);
    size_t at = 0;
    for (int i = 0; i < np; i++) {
        MP_OK(tern_ctx_get_nbi(ctx, dst + at, t, rem + p[i].off, p[i].len, 0));
        at += p[i].len;
    }
    if (!sync)
        return;
    switch (r % 5) {
    case 0: MP_OK(tern_ctx_quiet(ctx)); break;
    case 1: MP_OK(tern_ctx_nbi_sync(ctx, TERN_SYNC_REMOTE)); break;
    case 2:
        MP_OK(tern_ctx_fence(ctx));
        MP_OK(tern_ctx_quiet(ctx));
        break;
    case 3: {
        tern_status_t st;
        while ((st = tern_ctx_nbi_test(ctx, TERN_SYNC_REMOTE)) == TERN_INPROGRESS)
            ;
        MP_OK(st);
        break;
    }
    default: { /* a blocking get from the same peer goes after them */
        unsigned char b[8];
        MP_OK(tern_get(b, t, rem, 8, 0));
        MP_OK(tern_ctx_quiet(ctx));
    }
    }
}

static void check_all(int t, int u, int r, const unsigned char *dst, const char *how)
{
    static _Thread_local piece_t p[K];
    int np = pieces(me, t, u, r, p);
    size_t at = 0;
    for (int i = 0; i < np; i++) {
        for (size_t j = 0; j < p[i].len; j++) {
            unsigned char want = pattern(t, r, p[i].off + j);
            MP_CHECK(dst[at + j] == want,
                     "round %d (%s): get %d (%zu bytes at %zu) from rank %d, byte %zu is "
                     "0x%02x, not 0x%02x",
                     r, how, i, p[i].len, p[i].off, t, j, dst[at + j], want);
            if (dst[at + j] != want)
                return;
        }
        at += p[i].len;
    }
}

static unsigned char *dstbuf;

static void rounds(void)
{
    for (int r = 0; r < ROUNDS; r++) {
        fill(r);
        MP_OK(tern_barrier());
        for (int k = 1; k <= n; k++) {
            int t = (me + k) % n; /* self last */
            memset(dstbuf, 0xee, (size_t)K * 1000);
            get_all(TERN_CTX_DEFAULT, t, 0, r, dstbuf, 1);
            check_all(t, 0, r, dstbuf, "rounds");
        }
        MP_OK(tern_barrier());
    }
}

/* ---- put then get --------------------------------------------------------- */

/* nbi puts and gets of the words of this rank at t, interleaved: get i
 * of a word must return the value last put there before it. */
static void put_then_get(void)
{
    uint64_t *got = malloc(PG * sizeof(uint64_t)), *val = malloc(PG * sizeof(uint64_t));
    uint64_t want[PG], cur[WORDS];
    MP_CHECK(got && val, "no memory");
    for (int k = 1; k <= n; k++) {
        int t = (me + k) % n;
        uint64_t *w = tern_sym_addr(t, words + (size_t)me * WORDS);
        mp_rng_t g = {(uint64_t)me * 977 + (uint64_t)t};
        for (int i = 0; i < WORDS; i++)
            cur[i] = 0;
        MP_OK(tern_put(t, w, cur, sizeof cur, 0));
        int ng = 0;
        for (int i = 0; i < PG; i++) {
            int x = (int)(mp_rng_next(&g) % 8); /* few words: many repeats */
            if (mp_rng_next(&g) % 3) {
                val[i] = ((uint64_t)me << 48) | ((uint64_t)t << 32) | ((uint64_t)i + 1);
                cur[x] = val[i];
                MP_OK(tern_put_nbi(t, &w[x], &val[i], 8, 0));
            } else {
                want[ng] = cur[x];
                MP_OK(tern_get_nbi(&got[ng++], t, &w[x], 8, 0));
            }
        }
        MP_OK(tern_quiet());
        for (int i = 0; i < ng; i++)
            MP_CHECK(
                got[i] == want[i],
                "put then get at rank %d: get %d returned %llx, not %llx (the latest "
                "earlier put)",
                t, i, (unsigned long long)got[i], (unsigned long long)want[i]);
    }
    free(got);
    free(val);
    MP_OK(tern_barrier());
}

/* ---- lone gets ------------------------------------------------------------ */

static void lone(void)
{
    static const size_t sizes[] = {1, 8, 100, 256};
    unsigned char got[2][256];
    fill(99);
    MP_OK(tern_barrier());
    for (int k = 1; k <= n; k++) {
        int t = (me + k) % n;
        unsigned char *rem = tern_sym_addr(t, area);
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            size_t len = sizes[i], off = 1000 * i + 3;
            memset(got, 0, sizeof got);
            MP_OK(tern_get_nbi(got[0], t, rem + off, len, 0));
            MP_OK(tern_quiet());
            for (size_t j = 0; j < len; j++)
                MP_CHECK(got[0][j] == pattern(t, 99, off + j),
                         "lone %zu-byte get from rank %d: byte %zu is 0x%02x", len, t, j,
                         got[0][j]);
            MP_OK(tern_get_nbi(got[0], t, rem + off, len, 0));
            MP_OK(tern_get_nbi(got[1], t, rem + off + 7, len, 0));
            MP_OK(tern_quiet());
            for (size_t j = 0; j < len; j++)
                MP_CHECK(got[0][j] == pattern(t, 99, off + j) &&
                             got[1][j] == pattern(t, 99, off + 7 + j),
                         "two %zu-byte gets from rank %d: byte %zu wrong", len, t, j);
        }
    }
    MP_OK(tern_barrier());
}

/* ---- threads ------------------------------------------------------------- */

static tern_ctx_t shared;
static int thread_round;

static void *thread_main(void *arg)
{
    int u = 1 + (int)(intptr_t)arg;
    unsigned char *dst = malloc((size_t)n * K * 1000);
    MP_CHECK(dst != NULL, "no memory");
    memset(dst, 0xee, (size_t)n * K * 1000);
    for (int k = 1; k <= n; k++) {
        int t = (me + k) % n;
        get_all(u == THREADS ? shared : TERN_CTX_DEFAULT, t, u, thread_round,
                dst + (size_t)t * K * 1000, u != THREADS);
        if (u != THREADS)
            check_all(t, u, thread_round, dst + (size_t)t * K * 1000, "threads");
    }
    return u == THREADS ? dst : (free(dst), NULL); /* shared: checked after its quiet */
}

static void threads(void)
{
    MP_OK(tern_ctx_create(TERN_ORDER_STRICT, &shared));
    for (int r = 0; r < ROUNDS; r++) {
        thread_round = r;
        fill(r);
        MP_OK(tern_barrier());
        void *keep[THREADS];
        mp_run_threads_keep(THREADS, thread_main, keep);
        MP_OK(tern_ctx_quiet(shared)); /* sends the exited thread's buffers */
        for (int t = 0; t < n; t++)
            check_all(t, THREADS, r,
                      (unsigned char *)keep[THREADS - 1] + (size_t)t * K * 1000,
                      "shared context");
        for (int i = 0; i < THREADS; i++)
            free(keep[i]);
        MP_OK(tern_barrier());
    }
    MP_OK(tern_ctx_destroy(shared));
}

/* ---- a failed message --------------------------------------------------- */

/* 50 nbi gets of 8 bytes from rank t: combined into one message. */
static void fault_gets(int t, void *arg)
{
    (void)arg;
    unsigned char *rem = tern_sym_addr(t, area);
    for (int i = 0; i < 50; i++)
        MP_OK(tern_get_nbi(dstbuf + 8 * i, t, rem + 8 * i, 8, 0));
}

static void fault(void)
{
    int t = mp_net_peer();
    fill(0);
    MP_OK(tern_barrier());
    if (t >= 0)
        mp_quiet_fails_once(t, fault_gets, NULL, "from rank %d were not sent", t);
    MP_OK(tern_barrier());
}

int main(int argc, char **argv)
{
    int mode = mp_mode(argc, argv);
    me = mp_init(&argc, &argv,
                 mode == MP_MODE_THREADS ? TERN_THREAD_MULTIPLE : TERN_THREAD_SINGLE);
    n = tern_size();
    MP_OK(tern_alloc_sym(AREA, (void **)&area));
    MP_OK(tern_alloc_sym((size_t)n * WORDS * sizeof(uint64_t), (void **)&words));
    dstbuf = malloc((size_t)K * 1000);
    MP_CHECK(dstbuf != NULL, "no memory");
    MP_OK(tern_barrier());
    if (mode == MP_MODE_PLAIN) {
        rounds();
        put_then_get();
        lone();
    } else if (mode == MP_MODE_THREADS)
        threads();
    else
        fault();
    free(dstbuf);
    return mp_finish("get_agg");
}
