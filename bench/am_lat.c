/* am_lat: active-message round trips between rank 0 and its peer, a
 * Request answered by a Reply of the same category and payload: Short,
 * Medium (fixed payload assembled beforehand; the same with handlers that
 * read their payload; fixed payload generated into the client's buffer,
 * then sent; negotiated payload generated in the buffer Prepare returns)
 * and Long. Half a round trip, against the raw flag ping-pong of
 * put_pingpong carrying the same payload in the same run on shared memory;
 * over the network, a raw libfabric fi_send/fi_recv ping-pong of the same
 * payload between endpoints of the same provider. Only the medium_read
 * rows' handlers read the payload, and only their baselines' receivers
 * (tb_read_payload, the same function on both sides); in every other row
 * neither does, so on shared memory no payload line leaves the sender's
 * cache in either (docs/design/active-messages.md, twelfth pass). */
#include "bench.h"
#include "raw_ofi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>

enum { H_REQ = 200, H_REP = 201 };
enum { K_SHORT, K_MEDIUM, K_MEDIUM_READ, K_MEDIUM_GEN, K_NEG_GEN, K_LONG, K_COUNT };
static const char *const kind_name[K_COUNT] = {"short",      "medium",  "medium_read",
                                               "medium_gen", "neg_gen", "long"};

typedef struct am_ctx {
    tb_pingpong_t *pp;
    tb_raw_ofi_t *raw_ofi; /* network baseline, or NULL */
    int me, peer, active;
    int kind;
    size_t n;
    char *src;     /* private payload */
    char *landing; /* symmetric: Long payloads land here */
    volatile uint64_t replies, handled;
    uint64_t handled_target;
    int have_raw_ofi; /* every rank: the network baseline runs */
    int rc;
} am_ctx_t;

static am_ctx_t ctx;

/* The payload a client produces on the fly (what negotiated payload is
 * for: GASNet-EX's testam -src-generate). */
static void generate(char *dst, size_t n, uint64_t seed)
{
    uint64_t *w = (uint64_t *)dst;
    for (size_t i = 0; i < n / 8; i++)
        w[i] = seed + i;
    for (size_t i = n & ~(size_t)7; i < n; i++)
        dst[i] = (char)(seed + i);
}

static void on_req(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                   int na)
{
    (void)na;
    int src = 0;
    int rc = tern_am_source(t, &src);
    ctx.handled++;
    switch (a[0]) {
    case K_SHORT: rc = tern_am_reply_short(t, H_REP, a, 1, 0); break;
    case K_LONG:
        rc = tern_am_reply_long(t, H_REP, buf, len, tern_sym_addr(src, ctx.landing), a, 1,
                                0);
        break;
    case K_NEG_GEN: {
        tern_am_sd_t sd;
        rc = tern_am_prepare_reply_medium(t, NULL, len, len, 1, 0, &sd);
        if (rc == TERN_OK) {
            generate(sd.buf, len, ctx.handled);
            rc = tern_am_commit_reply_medium(&sd, H_REP, len, a);
        }
        break;
    }
    case K_MEDIUM_READ: /* the handler uses the payload before it answers */
        tb_read_payload(buf, len);
        rc = tern_am_reply_medium(t, H_REP, ctx.src, len, a, 1, 0);
        break;
    case K_MEDIUM_GEN: generate(ctx.src, len, ctx.handled); /* fall through */
    default: rc = tern_am_reply_medium(t, H_REP, ctx.src, len, a, 1, 0); break;
    }
    ctx.rc |= rc;
}

static void on_rep(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                   int na)
{
    (void)t, (void)na;
    if (a[0] == K_MEDIUM_READ)
        tb_read_payload(buf, len);
    ctx.replies++;
}

/* Rank 0 sends a Request and waits until its Reply has run, ops times;
 * the peer waits until it has handled ops Requests; others idle. Both wait
 * as a client would, in tern_wait_until_u64 on the count their handler
 * raises (it runs handlers and pauses between empty polls, as the raw
 * ping-pong's spin pauses between reads of its flag), not in a loop of
 * back-to-back tern_poll calls. */
static uint64_t am_loop(void *arg, long ops)
{
    am_ctx_t *c = arg;
    if (!c->active)
        return 1;
    uint64_t t0 = tb_now_ns();
    if (c->me != 0) {
        c->handled_target += (uint64_t)ops;
        c->rc |= tern_wait_until_u64(&c->handled, TERN_CMP_GE, c->handled_target);
        return tb_now_ns() - t0;
    }
    tern_am_arg_t a = (tern_am_arg_t)c->kind;
    void *dest = tern_sym_addr(c->peer, c->landing);
    for (long i = 0; i < ops; i++) {
        uint64_t want = c->replies + 1;
        switch (c->kind) {
        case K_SHORT: c->rc |= tern_am_request_short(c->peer, H_REQ, &a, 1, 0); break;
        case K_LONG:
            c->rc |= tern_am_request_long(c->peer, H_REQ, c->src, c->n, dest, &a, 1, 0);
            break;
        case K_NEG_GEN: {
            tern_am_sd_t sd;
            int rc = tern_am_prepare_request_medium(c->peer, NULL, c->n, c->n, 1, 0, &sd);
            if (rc == TERN_OK) {
                generate(sd.buf, c->n, want);
                rc = tern_am_commit_request_medium(&sd, H_REQ, c->n, &a);
            }
            c->rc |= rc;
            break;
        }
        case K_MEDIUM_GEN: generate(c->src, c->n, want); /* fall through */
        default:
            c->rc |= tern_am_request_medium(c->peer, H_REQ, c->src, c->n, &a, 1, 0);
            break;
        }
        c->rc |= tern_wait_until_u64(&c->replies, TERN_CMP_GE, want);
        TB_COMPILER_BARRIER();
    }
    return tb_now_ns() - t0;
}

static uint64_t raw_loop(void *arg, long ops)
{
    am_ctx_t *c = arg;
    size_t n = c->kind == K_SHORT ? 0 : c->n;
    int read = c->kind == K_MEDIUM_READ;
    if (!c->raw_ofi)
        return read ? tb_pingpong_raw_read(c->pp, n, ops)
                    : tb_pingpong_raw(c->pp, n, ops);
    if (!c->active)
        return 1;
    uint64_t t0 = tb_now_ns();
    if (read)
        tb_raw_ofi_pingpong_read(c->raw_ofi, n, ops);
    else
        tb_raw_ofi_pingpong(c->raw_ofi, n, ops);
    return tb_now_ns() - t0;
}

static void am_row(const tb_opts_t *o, const tb_job_t *job, int kind, size_t n,
                   tb_row_t *row)
{
    ctx.kind = kind;
    ctx.n = n;
    int raw = tb_pingpong_raw_ok(ctx.pp) || ctx.have_raw_ofi;
    long ops = tb_ops_bounded(o, am_loop, &ctx, o->iters, raw ? 2 : 1, 1);
    tb_measure_pair(o, am_loop, raw ? raw_loop : NULL, &ctx, ops, TB_UNIT_HALF_NS,
                    (double)n, 1, &row->tern, &row->raw);
    if (ctx.rc != TERN_OK)
        tb_die("active messages (%s, %zu bytes) with rank %d failed: %d (%s)",
               kind_name[kind], n, job->peer, ctx.rc, tern_strerror(ctx.rc));
    row->bench = "am_lat";
    row->op = kind_name[kind];
    row->size = n;
    row->unit = TB_UNIT_HALF_NS;
    row->ops = ops;
}

static void am_defaults(tb_opts_t *o)
{
    o->iters = 20000;
    o->trials = 11;
    o->warmup = 1;
}

static size_t am_need(const tb_opts_t *o)
{
    return 2 * tb_sizes_max(o) + 4096;
}

static int am_run(tb_opts_t *o, tb_job_t *job)
{
    size_t max = tb_sizes_max(o);
    memset(&ctx, 0, sizeof(ctx));
    ctx.me = job->rank;
    ctx.peer = job->rank == 0 ? job->peer : 0;
    ctx.active = job->rank == 0 || job->rank == job->peer;
    ctx.src = tb_alloc_local(max + 8);
    TB_CHECK(tern_alloc_sym(max + 64, (void **)&ctx.landing));
    TB_CHECK(tern_am_register(H_REQ, on_req, "am_lat request"));
    TB_CHECK(tern_am_register(H_REP, on_rep, "am_lat reply"));
    ctx.pp = tb_pingpong_setup(job, max);
    /* Every rank knows (rank 0 told it) whether the peer is mapped; when
     * not, the network baseline is set up, collectively. */
    if (!tb_pingpong_raw_ok(ctx.pp)) {
        ctx.raw_ofi = tb_raw_ofi_setup(job->peer, 2 * (max + 64));
        long have = ctx.raw_ofi != NULL || !ctx.active;
        ctx.have_raw_ofi = (int)tb_agree_min(have);
    }
    size_t mmax = tern_am_max_medium(job->peer);
    if (job->rank == 0) {
        tb_note(o,
                "half round trip: a Request answered by a Reply of the same category "
                "and payload; largest Medium to rank %d: %zu B",
                job->peer, mmax);
        tb_table_head(o, TB_UNIT_HALF_NS);
    }
    tb_row_t row;
    am_row(o, job, K_SHORT, 0, &row);
    if (job->rank == 0)
        tb_row_print(o, job, &row);
    for (int k = K_MEDIUM; k < K_COUNT; k++)
        for (int i = 0; i < o->nsizes; i++) {
            size_t n = o->sizes[i];
            if (k != K_LONG && n > mmax)
                continue;
            if (k == K_LONG && n > tern_am_max_long_reply(job->peer))
                continue;
            am_row(o, job, k, n, &row);
            if (job->rank == 0)
                tb_row_print(o, job, &row);
        }
    tb_pingpong_teardown(ctx.pp);
    tb_raw_ofi_teardown(ctx.raw_ofi);
    free(ctx.src);
    return 0;
}

const tb_bench_t tb_bench_am_lat = {
    .name = "am_lat",
    .help = "active-message round trips (Short, Medium fixed/read/generated/negotiated, "
            "Long), "
            "8 B..8 KiB, vs raw flag ping-pong",
    .with_tern = 1,
    .min_ranks = 2,
    .min_size = 8,
    .max_size = 8u << 10,
    .baseline = "raw flag ping-pong through tern_ptr carrying the same payload "
                "(put_pingpong's) on shared memory; raw libfabric fi_send/fi_recv "
                "ping-pong over the network; same run",
    .defaults = am_defaults,
    .segment_need = am_need,
    .run = am_run,
};
