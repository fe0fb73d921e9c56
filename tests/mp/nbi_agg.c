/* Combined nbi puts (core/put_agg.c): every rank issues, toward every
 * rank, a few hundred nbi puts of 1 to 256 bytes at random offsets (so
 * many overlap: the last one must win) mixed with longer ones that go
 * alone, then, with no sync, one operation that must see them all: a
 * blocking get (round kind 0), a fetching atomic on a word just put (1), a
 * put with signal whose target then reads the data with plain loads (2),
 * an active message whose handler raises a flag the target waits for
 * before reading (3), or an nbi put of a flag in the same stream that the
 * target spins on with tern_wait_until_u64 while the initiator only waits
 * for the target's acknowledgement (4: a flush of waiting calls lost
 * hangs). Checked byte for byte against the same sequence replayed.
 * With --threads, 3 threads per rank do the same into their own areas on
 * the default context (each quiets), and on one shared context that the
 * main thread quiets after they joined.
 * Then lone puts: one nbi put and a quiet (the put leaves as a plain RMA
 * write, put_agg.c tn_pagg_sync_lone), then overlapping puts that are
 * combined, checked by a get after each quiet.
 * With --fault (TERN_TEST_FAULT=pagg:N): a message that fails must make
 * the quiet fail, with the peer named. */
#include <stdint.h>
#include <string.h>

#include "mp_util.h"

enum { AREA = 8192, SMALL_END = 4096, K = 400, ROUNDS = 10, KINDS = 5, THREADS = 3 };
enum { H_FLAG = 5 };

/* Symmetric: per source rank s (and thread slot u), an area of AREA
 * bytes; control words per source. */
static unsigned char *area;
static uint64_t *flag, *ack, *sig, *amflag;
static int n, me;

/* The writes of source src (slot u) to target tgt in round r: calls put
 * for each (offset, length, byte seed) in issue order. */
typedef void (*put_fn)(void *arg, size_t off, const unsigned char *data, size_t len);
static void sequence(int src, int tgt, int u, int r, put_fn put, void *arg)
{
    mp_rng_t g = {((uint64_t)src << 40) ^ ((uint64_t)tgt << 24) ^ ((uint64_t)u << 16) ^
                  (uint64_t)r ^ 0x9e3779b97f4a7c15ull};
    unsigned char data[1024];
    size_t big = SMALL_END;
    for (int i = 0; i < K; i++) {
        size_t len, off;
        if (i % 97 == 50 && big + 1024 <= AREA) { /* alone: above the limit */
            len = 300 + mp_rng_next(&g) % 700;
            off = big;
            big += 1024;
        } else {
            len = mp_rng_next(&g) % 10 ? 1 + mp_rng_next(&g) % 64
                                       : 65 + mp_rng_next(&g) % 192;
            off = mp_rng_next(&g) % (SMALL_END - len + 1);
        }
        for (size_t j = 0; j < len; j++)
            data[j] = (unsigned char)mp_rng_next(&g);
        put(arg, off, data, len);
    }
}

static void apply(void *arg, size_t off, const unsigned char *data, size_t len)
{
    memcpy((unsigned char *)arg + off, data, len);
}

typedef struct issue {
    tern_ctx_t ctx;
    int tgt;
    unsigned char *dst; /* the area at the target */
    unsigned char *src; /* sources, kept until the sync */
    size_t used;
} issue_t;

static void issue(void *arg, size_t off, const unsigned char *data, size_t len)
{
    issue_t *is = arg;
    unsigned char *s = is->src + is->used;
    memcpy(s, data, len);
    is->used += len;
    MP_OK(tern_ctx_put_nbi(is->ctx, is->tgt, is->dst + off, s, len, 0));
}

static unsigned char *slot(int src, int u)
{
    return area + ((size_t)src * (THREADS + 1) + (size_t)u) * AREA;
}

static void check_area(const unsigned char *got, int src, int tgt, int u, int r,
                       const char *how)
{
    static _Thread_local unsigned char want[AREA];
    memset(want, 0, AREA);
    sequence(src, tgt, u, r, apply, want);
    for (size_t i = 0; i < AREA; i++)
        MP_CHECK(got[i] == want[i],
                 "round %d (%s): byte %zu of the area of rank %d slot %d at rank %d is "
                 "0x%02x, not 0x%02x",
                 r, how, i, src, u, tgt, got[i], want[i]);
}

static void on_flag(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                    int nargs)
{
    (void)buf, (void)len, (void)nargs;
    int src = -1;
    tern_am_source(t, &src);
    __atomic_store_n(&amflag[src], a[0], __ATOMIC_RELEASE);
}

static unsigned char *srcbuf;

static void rounds(void)
{
    tern_ad_t ad;
    MP_OK(tern_ad_create(TERN_AT_U64, TERN_OP_FADD, 0, &ad));
    unsigned char *got = malloc(AREA);
    MP_CHECK(got != NULL, "no memory");
    for (int r = 0; r < ROUNDS; r++) {
        int kind = r % KINDS;
        memset(slot(0, 0), 0, (size_t)n * (THREADS + 1) * AREA);
        MP_OK(tern_barrier());
        for (int k = 1; k <= n; k++) {
            int t = (me + k) % n; /* self last */
            issue_t is = {TERN_CTX_DEFAULT, t, tern_sym_addr(t, slot(me, 0)), srcbuf, 0};
            sequence(me, t, 0, r, issue, &is);
            uint64_t v = (uint64_t)r + 1;
            if (kind == 0) { /* a blocking get sees them */
                MP_OK(tern_get(got, t, is.dst, AREA, 0));
                check_area(got, me, t, 0, r, "get");
            } else if (kind == 1) { /* a fetching atomic on a word just put */
                uint64_t w, old = 0;
                unsigned char want[AREA];
                memset(want, 0, AREA);
                sequence(me, t, 0, r, apply, want);
                memcpy(&w, want + 64, 8);
                MP_OK(tern_ad_op_u64(ad, t, is.dst + 64, TERN_OP_FADD, 1, 0, &old, 0));
                MP_CHECK(old == w, "round %d: fetch-add at rank %d saw %llx, not %llx", r,
                         t, (unsigned long long)old, (unsigned long long)w);
                MP_OK(tern_ad_op_u64(ad, t, is.dst + 64, TERN_OP_FADD, (uint64_t)-1, 0,
                                     &old, 0));
            } else if (kind == 2) {
                MP_OK(tern_put_signal(t, tern_sym_addr(t, &flag[me]), &v, 8,
                                      tern_sym_addr(t, &sig[me]), v, TERN_SIGNAL_SET, 0));
            } else if (kind == 3) {
                tern_am_arg_t a = v;
                MP_OK(tern_am_request_short(t, H_FLAG, &a, 1, 0));
            } else {
                MP_OK(tern_put_nbi(t, tern_sym_addr(t, &flag[me]), &v, 8, 0));
            }
        }
        if (kind >= 2) { /* the target side: wait for each source, read */
            for (int s = 0; s < n; s++) {
                uint64_t v = (uint64_t)r + 1;
                const volatile uint64_t *w = kind == 2   ? &sig[s]
                                             : kind == 3 ? &amflag[s]
                                                         : &flag[s];
                MP_OK(tern_wait_until_u64(w, TERN_CMP_EQ, v));
                check_area(slot(s, 0), s, me, 0, r,
                           kind == 2   ? "put with signal"
                           : kind == 3 ? "am"
                                       : "flag");
                if (kind == 4) /* the source waits for this without a sync */
                    MP_OK(tern_put(s, tern_sym_addr(s, &ack[me]), &v, 8, 0));
            }
            if (kind == 4)
                for (int t = 0; t < n; t++)
                    MP_OK(tern_wait_until_u64(&ack[t], TERN_CMP_EQ, (uint64_t)r + 1));
        }
        MP_OK(tern_quiet());
        MP_OK(tern_barrier());
        for (int s = 0; s < n; s++) /* everything landed at the end too */
            check_area(slot(s, 0), s, me, 0, r, "after the barrier");
    }
    free(got);
    MP_OK(tern_ad_destroy(ad));
}

/* ---- threads ------------------------------------------------------------- */

static tern_ctx_t shared;
static int thread_round;

static void *thread_main(void *arg)
{
    int u = 1 + (int)(intptr_t)arg;
    unsigned char *src = malloc((size_t)K * 1024);
    MP_CHECK(src != NULL, "no memory");
    for (int k = 1; k <= n; k++) {
        int t = (me + k) % n;
        issue_t is = {u == THREADS ? shared : TERN_CTX_DEFAULT, t,
                      tern_sym_addr(t, slot(me, u)), src, 0};
        sequence(me, t, u, thread_round, issue, &is);
        if (u != THREADS) /* the shared context is quieted by the main thread */
            MP_OK(tern_quiet());
        else
            MP_OK(tern_ctx_fence(TERN_CTX_DEFAULT)); /* nothing of its own */
    }
    /* the shared context's sources must outlive its quiet: kept */
    return u == THREADS ? src : (free(src), NULL);
}

static void threads(void)
{
    MP_OK(tern_ctx_create(TERN_ORDER_STRICT, &shared));
    for (int r = 0; r < 3; r++) {
        thread_round = r;
        memset(slot(0, 0), 0, (size_t)n * (THREADS + 1) * AREA);
        MP_OK(tern_barrier());
        void *keep[THREADS];
        mp_run_threads_keep(THREADS, thread_main, keep);
        MP_OK(tern_ctx_quiet(shared)); /* sends the exited thread's buffers */
        for (int i = 0; i < THREADS; i++)
            free(keep[i]);
        MP_OK(tern_barrier());
        for (int s = 0; s < n; s++)
            for (int u = 1; u <= THREADS; u++)
                check_area(slot(s, u), s, me, u, r, "threads");
    }
    MP_OK(tern_ctx_destroy(shared));
}

/* ---- lone puts ----------------------------------------------------------- */

static void lone(void)
{
    static const size_t sizes[] = {1, 8, 100, 256};
    unsigned char want[256], got[256];
    for (int k = 1; k < n; k++) {
        int t = (me + k) % n;
        unsigned char *dst = tern_sym_addr(t, slot(me, 1)); /* rounds() used 0 */
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            size_t len = sizes[i];
            memset(want, 0x40 + (int)i, len);
            MP_OK(tern_put_nbi(t, dst, want, len, 0));
            MP_OK(tern_quiet());
            MP_OK(tern_get(got, t, dst, len, 0));
            MP_CHECK(!memcmp(got, want, len), "lone %zu-byte put to rank %d: got 0x%02x",
                     len, t, got[0]);
            /* Then two combined puts over it: the later one wins. */
            unsigned char a = 0x11, b = 0x22;
            MP_OK(tern_put_nbi(t, dst, &a, 1, 0));
            MP_OK(tern_put_nbi(t, dst, &b, 1, 0));
            MP_OK(tern_quiet());
            MP_OK(tern_get(got, t, dst, 1, 0));
            MP_CHECK(got[0] == b, "after a lone put, rank %d holds 0x%02x, not 0x%02x", t,
                     got[0], b);
        }
    }
    MP_OK(tern_barrier());
}

/* ---- a failed message --------------------------------------------------- */

/* Round 0's puts to rank t, as rounds() issues them. */
static void fault_puts(int t, void *arg)
{
    (void)arg;
    issue_t is = {TERN_CTX_DEFAULT, t, tern_sym_addr(t, slot(me, 0)), srcbuf, 0};
    sequence(me, t, 0, 0, issue, &is);
}

static void fault(void)
{
    int t = mp_net_peer();
    if (t >= 0)
        mp_quiet_fails_once(t, fault_puts, NULL, "to rank %d were not sent", t);
    MP_OK(tern_barrier());
}

int main(int argc, char **argv)
{
    int mode = mp_mode(argc, argv);
    me = mp_init(&argc, &argv,
                 mode == MP_MODE_THREADS ? TERN_THREAD_MULTIPLE : TERN_THREAD_SINGLE);
    n = tern_size();
    MP_OK(tern_alloc_sym((size_t)n * (THREADS + 1) * AREA, (void **)&area));
    MP_OK(tern_alloc_sym((size_t)n * 4 * sizeof(uint64_t), (void **)&flag));
    ack = flag + n, sig = flag + 2 * n, amflag = flag + 3 * n;
    memset(flag, 0, (size_t)n * 4 * sizeof(uint64_t));
    MP_OK(tern_am_register(H_FLAG, on_flag, "nbi_agg flag"));
    srcbuf = malloc((size_t)K * 1024);
    MP_CHECK(srcbuf != NULL, "no memory");
    MP_OK(tern_barrier());
    if (mode == MP_MODE_PLAIN) {
        rounds();
        lone();
    } else if (mode == MP_MODE_THREADS)
        threads();
    else
        fault();
    free(srcbuf);
    return mp_finish("nbi_agg");
}
