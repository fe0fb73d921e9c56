/* acc: accumulate bandwidth (tern_acc of doubles, dst += 0.5 * src, one
 * blocking call at a time from rank 0 to its peer), 8 B to 4 MiB, against
 * a raw loop doing the same arithmetic on local memory in the same run
 * (what the accumulate would cost if the target's array were private and
 * nobody else wrote it). The header says which path the peer takes: CPU
 * atomics in place (mapped) or pipelined active messages. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>

typedef struct acc_ctx {
    int me, peer;
    size_t n; /* bytes per accumulate */
    double *sym, *src, *local;
    uint64_t *flag, epoch;
    int rc;
} acc_ctx_t;

static acc_ctx_t ctx;

/* The peer waits (serving its handlers) until rank 0 says its loop ended. */
static void finish_loop(acc_ctx_t *c)
{
    c->epoch++;
    if (c->me == 0 && c->peer != 0)
        c->rc |= tern_put(c->peer, tern_sym_addr(c->peer, c->flag), &c->epoch, 8, 0);
    else if (c->me == c->peer && c->me != 0)
        c->rc |= tern_wait_until_u64(c->flag, TERN_CMP_GE, c->epoch);
}

static uint64_t tern_loop(void *arg, long ops)
{
    acc_ctx_t *c = arg;
    uint64_t t0 = tb_now_ns();
    if (c->me == 0) {
        double half = 0.5;
        void *dst = tern_sym_addr(c->peer, c->sym);
        for (long i = 0; i < ops; i++) {
            c->rc |= tern_acc(c->peer, dst, c->src, c->n / 8, TERN_AT_DOUBLE, &half, 0);
            TB_COMPILER_BARRIER();
        }
    }
    uint64_t dt = tb_now_ns() - t0;
    finish_loop(c);
    return dt;
}

/* The same arithmetic on private memory, plain loads and stores. */
static uint64_t raw_loop(void *arg, long ops)
{
    acc_ctx_t *c = arg;
    uint64_t t0 = tb_now_ns();
    if (c->me == 0) {
        size_t k = c->n / 8;
        for (long i = 0; i < ops; i++) {
            double *d = c->local;
            const double *s = c->src;
            for (size_t j = 0; j < k; j++)
                d[j] += 0.5 * s[j];
            TB_COMPILER_BARRIER();
        }
    }
    return tb_now_ns() - t0;
}

static void acc_defaults(tb_opts_t *o)
{
    o->iters = 100000;
    o->trials = 7;
    o->warmup = 1;
}

static size_t acc_need(const tb_opts_t *o)
{
    return tb_sizes_max(o) + 4096;
}

static int acc_run(tb_opts_t *o, tb_job_t *job)
{
    memset(&ctx, 0, sizeof(ctx));
    ctx.me = job->rank;
    ctx.peer = job->size > 1 ? job->peer : 0;
    size_t max = tb_sizes_max(o);
    TB_CHECK(tern_alloc_sym(max, (void **)&ctx.sym));
    TB_CHECK(tern_alloc_sym(64, (void **)&ctx.flag));
    memset(ctx.sym, 0, max);
    *ctx.flag = 0;
    ctx.src = tb_alloc_local(max);
    ctx.local = tb_alloc_local(max);
    for (size_t i = 0; i < max / 8; i++)
        ctx.src[i] = (double)(i % 1000);
    if (job->rank == 0) {
        tb_note(o,
                "acc: tern_acc of doubles (dst += 0.5 * src), one blocking call at a "
                "time, rank 0 to rank %d, %s",
                ctx.peer,
                job->peer_mapped || ctx.peer == 0
                    ? "mapped: CPU atomics in place (lock-free CAS per element)"
                    : "not mapped: Medium active messages of up to tern_am_max_medium, "
                      "pipelined, applied at the target with the same CPU atomics");
        tb_table_head(o, TB_UNIT_MBPS);
    }
    for (int s = 0; s < o->nsizes; s++) {
        size_t n = o->sizes[s] < 8 ? 8 : o->sizes[s] & ~(size_t)7;
        ctx.n = n;
        TB_CHECK(tern_barrier());
        long ops = tb_ops_bounded(o, tern_loop, &ctx, tb_ops_for(o, n, 256u << 20), 2, 1);
        tb_row_t row;
        tb_measure_pair(o, tern_loop, raw_loop, &ctx, ops, TB_UNIT_MBPS, (double)n, 1,
                        &row.tern, &row.raw);
        if (ctx.rc != TERN_OK)
            tb_die("accumulate of %zu bytes failed: %d (%s)", n, ctx.rc,
                   tern_strerror(ctx.rc));
        row.bench = "acc";
        row.op = "acc_double";
        row.size = n;
        row.unit = TB_UNIT_MBPS;
        row.ops = ops;
        if (job->rank == 0)
            tb_row_print(o, job, &row);
    }
    TB_CHECK(tern_barrier());
    return 0;
}

const tb_bench_t tb_bench_acc = {
    .name = "acc",
    .help = "accumulate bandwidth (double, dst += scale * src), 8 B..4 MiB, vs the same "
            "arithmetic on local memory",
    .with_tern = 1,
    .min_size = 8,
    .max_size = 4u << 20,
    .min_ranks = 1,
    .baseline = "the same arithmetic (dst += 0.5 * src) as a plain loop on local memory, "
                "same run",
    .defaults = acc_defaults,
    .segment_need = acc_need,
    .run = acc_run,
};
