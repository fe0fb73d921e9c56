/* order: what the ordering modes (tern.h, TERN_ORDER_*) cost. Rank 0
 * issues back-to-back blocking puts of each size, blocking non-fetching
 * atomic adds and blocking 8 B accumulates (one double), to its peer on a context of each mode,
 * then one quiet; time per operation including that quiet. The baseline of
 * every row is the same loop on a TERN_ORDER_STRICT context, in the same
 * run, so a row's ratio is what the mode saves. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>
#include <tern/atomic.h>

typedef struct order_ctx {
    tern_ctx_t ctx[4]; /* by TERN_ORDER_* */
    tern_ad_t ad;
    int me, peer, mode, amo; /* amo: 0 puts, 1 adds, 2 accumulates */
    size_t n;
    char *src;      /* private source */
    uint64_t *word; /* symmetric: [0] the added word, [8] loop-end flag */
    char *dst;      /* symmetric destination */
    uint64_t epoch;
    int rc;
} order_ctx_t;

/* The peer serves the network (manual progress) until rank 0's loop ends. */
static void finish(order_ctx_t *c)
{
    c->epoch++;
    if (c->me == 0 && c->peer != 0)
        c->rc |= tern_put(c->peer, tern_sym_addr(c->peer, &c->word[8]), &c->epoch, 8, 0);
    else if (c->me == c->peer && c->me != 0)
        c->rc |= tern_wait_until_u64(&c->word[8], TERN_CMP_GE, c->epoch);
}

static uint64_t loop_mode(order_ctx_t *c, int mode, long ops)
{
    tern_ctx_t ctx = c->ctx[mode];
    void *dst = tern_sym_addr(c->peer, c->dst);
    void *w = tern_sym_addr(c->peer, &c->word[0]);
    uint64_t t0 = tb_now_ns();
    if (c->me == 0) {
        for (long i = 0; i < ops; i++) {
            if (c->amo == 1)
                c->rc |= tern_ctx_ad_op_u64(ctx, c->ad, c->peer, w, TERN_OP_ADD, 1, 0,
                                            NULL, 0);
            else if (c->amo == 2)
                c->rc |=
                    tern_ctx_acc(ctx, c->peer, w, c->src, 1, TERN_AT_DOUBLE, NULL, 0);
            else
                c->rc |= tern_ctx_put(ctx, c->peer, dst, c->src, c->n, 0);
            TB_COMPILER_BARRIER();
        }
        c->rc |= tern_ctx_quiet(ctx);
    }
    uint64_t dt = tb_now_ns() - t0;
    finish(c);
    return dt;
}

static uint64_t loop_tern(void *arg, long ops)
{
    order_ctx_t *c = arg;
    return loop_mode(c, c->mode, ops);
}

static uint64_t loop_strict(void *arg, long ops)
{
    return loop_mode(arg, TERN_ORDER_STRICT, ops);
}

static void order_row(const tb_opts_t *o, order_ctx_t *c, tb_row_t *row)
{
    static const char *const names[3][4] = {
        {"", "put_strict", "put_partial", "put_none"},
        {"", "add_strict", "add_partial", "add_none"},
        {"", "acc_strict", "acc_partial", "acc_none"}};
    long ops = tb_ops_bounded(o, loop_tern, c, o->iters, 2, 1);
    tb_measure_pair(o, loop_tern, loop_strict, c, ops, TB_UNIT_NS, 0, 1, &row->tern,
                    &row->raw);
    if (c->rc != TERN_OK)
        tb_die("order (%s) failed: %d (%s)", names[c->amo][c->mode], c->rc,
               tern_strerror(c->rc));
    row->bench = "order";
    row->op = names[c->amo][c->mode];
    row->size = c->amo ? 8 : c->n;
    row->unit = TB_UNIT_NS;
    row->ops = ops;
}

static void order_defaults(tb_opts_t *o)
{
    o->iters = 100000;
    o->trials = 7;
    o->warmup = 1;
    /* Below and above tcp's 64-byte inject size (a larger put is locally
     * complete only when delivered). */
    o->nsizes = 2;
    o->sizes[0] = 8;
    o->sizes[1] = 4096;
}

static size_t order_need(const tb_opts_t *o)
{
    return tb_sizes_max(o) + 4096;
}

static int order_run(tb_opts_t *o, tb_job_t *job)
{
    order_ctx_t c = {.me = job->rank, .peer = job->size > 1 ? job->peer : 0};
    size_t m = tb_sizes_max(o);
    c.src = tb_alloc_local(m ? m : 8);
    memset(c.src, 7, m ? m : 8);
    TB_CHECK(tern_alloc_sym(m ? m : 8, (void **)&c.dst));
    TB_CHECK(tern_alloc_sym(16 * sizeof(uint64_t), (void **)&c.word));
    memset(c.word, 0, 16 * sizeof(uint64_t));
    TB_CHECK(tern_ad_create(TERN_AT_U64, TERN_OP_ADD, 0, &c.ad));
    for (int mode = TERN_ORDER_STRICT; mode <= TERN_ORDER_NONE; mode++)
        TB_CHECK(tern_ctx_create((tern_flags_t)mode, &c.ctx[mode]));
    int impl;
    char why[640];
    TB_CHECK(tern_ad_info(c.ad, &impl, why, sizeof(why)));
    if (job->rank == 0) {
        tb_note(o,
                "blocking puts, non-fetching atomic adds (domain: %s) and 8 B "
                "accumulates (double) back to back to rank %d on a context of each "
                "mode, then one quiet; time per op; baseline: the same loop on a "
                "TERN_ORDER_STRICT context, same run",
                why, c.peer);
        tb_table_head(o, TB_UNIT_NS);
    }
    TB_CHECK(tern_barrier());
    for (c.amo = 0; c.amo <= 2; c.amo++)
        for (int i = 0; i < (c.amo ? 1 : o->nsizes); i++)
            for (c.mode = TERN_ORDER_PARTIAL; c.mode <= TERN_ORDER_NONE; c.mode++) {
                c.n = c.amo ? 8 : o->sizes[i];
                tb_row_t row;
                order_row(o, &c, &row);
                if (job->rank == 0)
                    tb_row_print(o, job, &row);
            }
    TB_CHECK(tern_barrier());
    for (int mode = TERN_ORDER_STRICT; mode <= TERN_ORDER_NONE; mode++)
        TB_CHECK(tern_ctx_destroy(c.ctx[mode]));
    TB_CHECK(tern_ad_destroy(c.ad));
    TB_CHECK(tern_free_sym(c.word));
    TB_CHECK(tern_free_sym(c.dst));
    free(c.src);
    return 0;
}

const tb_bench_t tb_bench_order = {
    .name = "order",
    .help = "ordering modes: blocking puts, atomic adds and accumulates on partial "
            "and none contexts vs a strict one",
    .with_tern = 1,
    .min_ranks = 1,
    .baseline = "the same loop on a TERN_ORDER_STRICT context, same run",
    .defaults = order_defaults,
    .segment_need = order_need,
    .run = order_run,
};
