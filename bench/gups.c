/* gups: random access in the manner of HPCC RandomAccess. Every rank
 * XORs 64-bit values into random words of a table spread over all ranks
 * (2^tablebits words per rank, the word and its rank chosen by the HPCC
 * random stream), through an atomic domain u64 {xor} with nbi ops and one
 * sync per trial; the figure is the job's aggregate updates per second.
 * Baseline: the same loop on a private table of the same size per rank,
 * plain XOR (HPCC's local variant), in the same run. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>

#define POLY   0x0000000000000007ull
#define LOG_TW 20 /* 2^20 words (8 MiB) per rank */
#define TW     (1ull << LOG_TW)

typedef struct gups_ctx {
    tern_ad_t ad;
    int me, size;
    uint64_t *table; /* symmetric, TW words */
    uint64_t *local; /* private, TW words */
    uint64_t ran;    /* the random stream, continued from trial to trial */
    int rc;
} gups_ctx_t;

static gups_ctx_t ctx;

static inline uint64_t next(uint64_t r)
{
    return (r << 1) ^ ((int64_t)r < 0 ? POLY : 0);
}

static uint64_t tern_loop(void *arg, long ops)
{
    gups_ctx_t *c = arg;
    uint64_t r = c->ran, n = (uint64_t)c->size;
    uint64_t t0 = tb_now_ns();
    for (long i = 0; i < ops; i++) {
        r = next(r);
        uint64_t g = r >> (64 - LOG_TW - 8); /* word and rank bits */
        int rank = (int)((g >> LOG_TW) % n);
        void *w = tern_sym_addr(rank, &c->table[g & (TW - 1)]);
        c->rc |= tern_ad_op_nbi_u64(c->ad, rank, w, TERN_OP_XOR, r, 0, NULL, 0);
        TB_COMPILER_BARRIER();
    }
    c->rc |= tern_nbi_sync(TERN_SYNC_REMOTE);
    c->rc |= tern_barrier(); /* the job's updates are all done */
    c->ran = r;
    /* Every rank did ops: the aggregate rate is size times one rank's. */
    return (tb_now_ns() - t0) / n;
}

static uint64_t raw_loop(void *arg, long ops)
{
    gups_ctx_t *c = arg;
    uint64_t r = c->ran;
    uint64_t t0 = tb_now_ns();
    for (long i = 0; i < ops; i++) {
        r = next(r);
        c->local[(r >> (64 - LOG_TW - 8)) & (TW - 1)] ^= r;
        TB_COMPILER_BARRIER();
    }
    c->rc |= tern_barrier();
    c->ran = r;
    return (tb_now_ns() - t0) / (uint64_t)c->size;
}

static void gups_defaults(tb_opts_t *o)
{
    o->iters = 1 << 22;
    o->trials = 7;
    o->warmup = 1;
}

static size_t gups_need(const tb_opts_t *o)
{
    (void)o;
    return TW * 8 + 4096;
}

static int gups_run(tb_opts_t *o, tb_job_t *job)
{
    memset(&ctx, 0, sizeof(ctx));
    ctx.me = job->rank;
    ctx.size = job->size;
    ctx.ran = 0x9e3779b97f4a7c15ull * (uint64_t)(job->rank + 1);
    TB_CHECK(tern_alloc_sym(TW * 8, (void **)&ctx.table));
    memset(ctx.table, 0, TW * 8);
    ctx.local = tb_alloc_local(TW * 8);
    TB_CHECK(tern_ad_create(TERN_AT_U64, TERN_OP_XOR, 0, &ctx.ad));
    if (job->rank == 0) {
        char why[640];
        TB_CHECK(tern_ad_info(ctx.ad, NULL, why, sizeof(why)));
        tb_note(o, "atomic domain (u64 {xor}): %s", why);
        tb_note(o,
                "gups_xor_u64: every rank XORs into random words of a table of %d x "
                "2^%d words (nbi, one sync per trial); aggregate Mupdates/s",
                job->size, LOG_TW);
        tb_table_head(o, TB_UNIT_MMSGS);
    }
    TB_CHECK(tern_barrier());
    long ops = tb_ops_bounded(o, tern_loop, &ctx, o->iters, 2, 1);
    tb_row_t row;
    tb_measure_pair(o, tern_loop, raw_loop, &ctx, ops, TB_UNIT_MMSGS, 0, 1, &row.tern,
                    &row.raw);
    if (ctx.rc != TERN_OK)
        tb_die("random updates failed: %d (%s)", ctx.rc, tern_strerror(ctx.rc));
    row.bench = "gups";
    row.op = "gups_xor_u64";
    row.size = 8;
    row.unit = TB_UNIT_MMSGS;
    row.ops = ops;
    if (job->rank == 0)
        tb_row_print(o, job, &row);
    TB_CHECK(tern_barrier());
    TB_CHECK(tern_ad_destroy(ctx.ad));
    return 0;
}

const tb_bench_t tb_bench_gups = {
    .name = "gups",
    .help = "random access (GUPS): random 64-bit XOR updates to a table spread over all "
            "ranks, aggregate, vs the same loop on a private table",
    .with_tern = 1,
    .min_ranks = 1,
    .baseline = "the same random XOR loop on a private table of the same size per rank "
                "(plain XOR), same run",
    .defaults = gups_defaults,
    .segment_need = gups_need,
    .run = gups_run,
};
