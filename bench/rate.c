/* put_rate: message rate of 8 B puts from rank 0 to rank 1, implicit
 * non-blocking (tern_put_nbi in a loop, one tern_nbi_sync at the end) and
 * blocking, against raw 8 B stores through tern_ptr() in the same run. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>

#define RATE_SLOTS       64 /* consecutive puts go to 64 different 8 B slots */
#define RATE_SLOT_OFF(i) (((size_t)(i) & (RATE_SLOTS - 1)) * 8)

typedef struct rate_ctx {
    int peer;
    char *remote, *mapped;
    const char *src;
    int rc;
} rate_ctx_t;

/* All three loops store 8 B (a compile-time size) to slot i % 64, with the
 * same compiler barrier per iteration, so the compiler emits one load and
 * one store per message in the raw loop and cannot merge them. */
static uint64_t nbi_tern(void *ctx, long ops)
{
    rate_ctx_t *c = ctx;
    int peer = c->peer, rc = 0;
    char *dst = c->remote;
    const char *src = c->src;
    uint64_t t0 = tb_now_ns();
    for (long i = 0; i < ops; i++) {
        rc |= tern_put_nbi(peer, dst + RATE_SLOT_OFF(i), src, 8, 0);
        TB_COMPILER_BARRIER();
    }
    rc |= tern_nbi_sync(TERN_SYNC_REMOTE);
    uint64_t ns = tb_now_ns() - t0;
    c->rc |= rc;
    return ns;
}

static uint64_t put_tern(void *ctx, long ops)
{
    rate_ctx_t *c = ctx;
    int peer = c->peer, rc = 0;
    char *dst = c->remote;
    const char *src = c->src;
    uint64_t t0 = tb_now_ns();
    for (long i = 0; i < ops; i++) {
        rc |= tern_put(peer, dst + RATE_SLOT_OFF(i), src, 8, 0);
        TB_COMPILER_BARRIER();
    }
    uint64_t ns = tb_now_ns() - t0;
    c->rc |= rc;
    return ns;
}

static uint64_t raw_store(void *ctx, long ops)
{
    rate_ctx_t *c = ctx;
    char *dst = c->mapped;
    const char *src = c->src;
    uint64_t t0 = tb_now_ns();
    for (long i = 0; i < ops; i++) {
        memcpy(dst + RATE_SLOT_OFF(i), src, 8);
        TB_COMPILER_BARRIER();
    }
    return tb_now_ns() - t0;
}

void tb_rate_row(const tb_opts_t *o, const tb_job_t *job, void *sym, int nbi,
                 tb_row_t *row)
{
    static uint64_t src[8] = {0x0123456789abcdefull};
    rate_ctx_t c = {
        .peer = job->peer,
        .remote = tern_sym_addr(job->peer, sym),
        .src = (const char *)src,
    };
    if (!c.remote)
        tb_die("tern_sym_addr(%d) returned NULL", job->peer);
    c.mapped = tern_ptr(job->peer, c.remote);
    tb_loop_fn tern = nbi ? nbi_tern : put_tern;
    long ops = tb_ops_bounded(o, tern, &c, o->iters, c.mapped ? 2 : 1, 0);
    tb_measure_pair(o, tern, c.mapped ? raw_store : NULL, &c, ops, TB_UNIT_MMSGS, 8, 0,
                    &row->tern, &row->raw);
    if (c.rc != TERN_OK)
        tb_die("%s of 8 B to rank %d failed: %d (%s)", nbi ? "tern_put_nbi" : "tern_put",
               job->peer, c.rc, tern_strerror(c.rc));
    row->bench = "put_rate";
    row->op = nbi ? "put_nbi" : "put";
    row->size = 8;
    row->unit = TB_UNIT_MMSGS;
    row->ops = ops;
}

static void rate_defaults(tb_opts_t *o)
{
    o->iters = 1000000;
    o->trials = 11;
    o->warmup = 2;
}

static size_t rate_need(const tb_opts_t *o)
{
    return RATE_SLOTS * 8;
}

static int rate_run(tb_opts_t *o, tb_job_t *job)
{
    void *sym;
    TB_CHECK(tern_alloc_sym(RATE_SLOTS * 8, &sym));
    memset(sym, 0, RATE_SLOTS * 8);
    TB_CHECK(tern_barrier());
    if (job->rank == 0) {
        tb_note(o,
                "up to %ld puts of 8 B per trial (as many as fit --row-time) to %d "
                "rotating slots; put_nbi "
                "includes one tern_nbi_sync(TERN_SYNC_REMOTE) per trial",
                o->iters, RATE_SLOTS);
        tb_table_head(o, TB_UNIT_MMSGS);
        for (int nbi = 1; nbi >= 0; nbi--) {
            tb_row_t row;
            tb_rate_row(o, job, sym, nbi, &row);
            tb_row_print(o, job, &row);
        }
    }
    TB_CHECK(tern_barrier());
    TB_CHECK(tern_free_sym(sym));
    return 0;
}

const tb_bench_t tb_bench_put_rate = {
    .name = "put_rate",
    .help = "message rate of 8 B puts (nbi and blocking) vs raw 8 B stores",
    .with_tern = 1,
    .baseline = "8 B stores (memcpy of a constant 8 B) to the same slots "
                "through tern_ptr(1, remote)",
    .defaults = rate_defaults,
    .segment_need = rate_need,
    .run = rate_run,
};
