/* amo: remote atomics through atomic domains (the measurements of
 * GASNet-EX's testfaddperf): fetch-add latency (one blocking op at a time)
 * and rate (nbi ops back to back, one sync), 32- and 64-bit unsigned;
 * compare-swap latency; hot-spot (every rank fetch-adds one word of rank
 * 0, aggregate rate, blocking and nbi). Baseline on one node: the same operation as a raw
 * CPU atomic on the same cross-mapped word, in the same run; across nodes
 * there is no raw baseline here (n/a). The domain's implementation is in
 * the header. In tern-bench-mpi (started with mpirun) the baseline of
 * every row is MPI-3 RMA instead: MPI_Fetch_and_op / MPI_Compare_and_swap
 * on a window allocated with MPI_Win_allocate under a passive-target
 * MPI_Win_lock_all, each op completed by MPI_Win_flush (latency) or all
 * by one flush (rate), in the same run. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>
#ifdef TB_MPI
#include <mpi.h>
#endif

/* K_HOTSPOT_NBI: the hot-spot with nbi fetch-adds, one sync per rank at
 * the end (what combining on the active-message path serves). */
enum { K_FADD_LAT, K_FADD_RATE, K_CSWAP_LAT, K_HOTSPOT, K_VS_AM, K_HOTSPOT_NBI, K_COUNT };

/* The client's own active-message fetch-add (the baseline of K_VS_AM). */
#define H_CLIENT_FADD  200
#define H_CLIENT_REPLY 201

typedef struct amo_ctx {
    tern_ad_t ad64, ad32;
    int me, size, peer, is64, kind;
    uint64_t *word; /* symmetric: [0] u64 target, [1] u32 target, [8] done flag,
                     [10] K_VS_AM replies received */
    uint64_t epoch;
    int rc;
    volatile uint64_t reply; /* K_VS_AM: the old value replied (word[10] counts) */
#ifdef TB_MPI
    MPI_Win win; /* [0] u64 target, [1] u32 target (disp unit 8) */
#endif
} amo_ctx_t;

static amo_ctx_t ctx;

/* What a client without atomic domains writes: a Short Request whose
 * handler fetch-adds the word in place and Replies with the old value. */
static void client_fadd(tern_am_token_t token, void *buf, size_t len,
                        const tern_am_arg_t *args, int nargs)
{
    (void)buf;
    (void)len;
    (void)args;
    (void)nargs;
    tern_am_arg_t old = __atomic_fetch_add(&ctx.word[0], 1, __ATOMIC_SEQ_CST);
    ctx.rc |= tern_am_reply_short(token, H_CLIENT_REPLY, &old, 1, 0);
}

static void client_reply(tern_am_token_t token, void *buf, size_t len,
                         const tern_am_arg_t *args, int nargs)
{
    (void)token;
    (void)buf;
    (void)len;
    (void)nargs;
    ctx.reply = args[0];
    __atomic_fetch_add(&ctx.word[10], 1, __ATOMIC_RELEASE);
}

/* The peer waits (serving the network) until rank 0 says its loop ended. */
static void finish_loop(amo_ctx_t *c)
{
    c->epoch++;
    if (c->me == 0 && c->peer != 0)
        c->rc |= tern_put(c->peer, tern_sym_addr(c->peer, &c->word[8]), &c->epoch, 8, 0);
    else if (c->me == c->peer && c->me != 0)
        c->rc |= tern_wait_until_u64(&c->word[8], TERN_CMP_GE, c->epoch);
}

/* Both loops keep their bookkeeping (statuses, the row's parameters) in
 * locals: a store to memory in the loop (c->rc |= ...) would make every
 * locked instruction wait for it to drain, a cost of the benchmark and
 * not of the call; the fetched value is kept as the raw loop keeps its
 * own (TB_KEEP). */
#define TB_KEEP(x) __asm__ __volatile__("" ::"r"(x))

static uint64_t tern_loop(void *arg, long ops)
{
    amo_ctx_t *c = arg;
    const int kind = c->kind, is64 = c->is64, peer = c->peer;
    const tern_ad_t ad64 = c->ad64, ad32 = c->ad32;
    int hot = kind == K_HOTSPOT || kind == K_HOTSPOT_NBI;
    int target = hot ? 0 : peer, rc = 0;
    void *w64 = tern_sym_addr(target, &c->word[0]);
    void *w32 = tern_sym_addr(target, &c->word[1]);
    uint64_t t0 = tb_now_ns();
    if (kind == K_HOTSPOT) {
        uint64_t v;
        for (long i = 0; i < ops; i++) {
            rc |= tern_ad_op_u64(ad64, 0, w64, TERN_OP_FADD, 1, 0, &v, 0);
            TB_COMPILER_BARRIER();
        }
        c->rc |= rc | tern_barrier();
        /* Every rank did ops: the aggregate rate is size times rank 0's. */
        return (tb_now_ns() - t0) / (uint64_t)c->size;
    }
    if (kind == K_HOTSPOT_NBI) {
        uint64_t v;
        for (long i = 0; i < ops; i++) {
            rc |= tern_ad_op_nbi_u64(ad64, 0, w64, TERN_OP_FADD, 1, 0, &v, 0);
            TB_COMPILER_BARRIER();
        }
        c->rc |= rc | tern_nbi_sync(TERN_SYNC_REMOTE) | tern_barrier();
        /* Every rank did ops: the aggregate rate is size times rank 0's. */
        return (tb_now_ns() - t0) / (uint64_t)c->size;
    }
    if (c->me == 0) {
        /* One loop per row, chosen outside it: a row parameter tested
         * inside the loop is reloaded from the stack on every iteration
         * where registers run short, and a load between two locked
         * instructions moved either loop between ~5.9 and ~8.1 ns on this
         * CPU whatever the call did (docs/design/atomics.md). */
        uint64_t v = 0;
        uint32_t v32 = 0;
        if (kind == K_CSWAP_LAT) {
            for (long i = 0; i < ops; i++) { /* v follows the word: every swap succeeds */
                rc |= tern_ad_op_u64(ad64, peer, w64, TERN_OP_CSWAP, v, v + 1, &v, 0);
                v++;
                TB_COMPILER_BARRIER();
            }
        } else if (kind == K_FADD_RATE && is64) {
            for (long i = 0; i < ops; i++) {
                rc |= tern_ad_op_nbi_u64(ad64, peer, w64, TERN_OP_FADD, 1, 0, &v, 0);
                TB_COMPILER_BARRIER();
            }
        } else if (kind == K_FADD_RATE) {
            for (long i = 0; i < ops; i++) {
                rc |= tern_ad_op_nbi_u32(ad32, peer, w32, TERN_OP_FADD, 1, 0, &v32, 0);
                TB_COMPILER_BARRIER();
            }
        } else if (is64) { /* K_FADD_LAT, K_VS_AM */
            for (long i = 0; i < ops; i++) {
                rc |= tern_ad_op_u64(ad64, peer, w64, TERN_OP_FADD, 1, 0, &v, 0);
                TB_COMPILER_BARRIER();
            }
        } else {
            for (long i = 0; i < ops; i++) {
                rc |= tern_ad_op_u32(ad32, peer, w32, TERN_OP_FADD, 1, 0, &v32, 0);
                TB_COMPILER_BARRIER();
            }
        }
        if (kind == K_FADD_RATE)
            rc |= tern_nbi_sync(TERN_SYNC_REMOTE);
        c->rc |= rc;
    }
    uint64_t dt = tb_now_ns() - t0;
    finish_loop(c);
    return dt;
}

/* K_VS_AM's baseline: the client's Short AM round trip, one at a time. */
static uint64_t client_am_loop(void *arg, long ops)
{
    amo_ctx_t *c = arg;
    uint64_t t0 = tb_now_ns();
    if (c->me == 0)
        for (long i = 0; i < ops; i++) {
            uint64_t seq = c->word[10] + 1;
            c->rc |= tern_am_request_short(c->peer, H_CLIENT_FADD, NULL, 0, 0);
            /* Waits as Tern's own blocking calls do (polls, yields). */
            c->rc |= tern_wait_until_u64(&c->word[10], TERN_CMP_GE, seq);
        }
    uint64_t dt = tb_now_ns() - t0;
    finish_loop(c);
    return dt;
}

#ifndef TB_MPI
/* The same operations as CPU atomics on the cross-mapped word (one node). */
static uint64_t raw_loop(void *arg, long ops)
{
    amo_ctx_t *c = arg;
    const int kind = c->kind, is64 = c->is64;
    int hot = kind == K_HOTSPOT || kind == K_HOTSPOT_NBI;
    int target = hot ? 0 : c->peer;
    uint64_t *w64 = tern_ptr(target, tern_sym_addr(target, &c->word[0]));
    uint32_t *w32 = tern_ptr(target, tern_sym_addr(target, &c->word[1]));
    uint64_t t0 = tb_now_ns();
    if (hot) {
        for (long i = 0; i < ops; i++) {
            TB_KEEP(__atomic_fetch_add(w64, 1, __ATOMIC_SEQ_CST));
            TB_COMPILER_BARRIER();
        }
        c->rc |= tern_barrier();
        return (tb_now_ns() - t0) / (uint64_t)c->size;
    }
    if (c->me == 0) {
        /* One loop per row, as in tern_loop. The fetched value is kept
         * (TB_KEEP): a fetch-add whose value is dropped compiles to a
         * plain locked add. */
        uint64_t v = __atomic_load_n(w64, __ATOMIC_RELAXED);
        if (kind == K_CSWAP_LAT) {
            for (long i = 0; i < ops; i++) {
                uint64_t e = v;
                __atomic_compare_exchange_n(w64, &e, v + 1, 0, __ATOMIC_SEQ_CST,
                                            __ATOMIC_SEQ_CST);
                v = e + 1;
                TB_COMPILER_BARRIER();
            }
        } else if (is64) {
            for (long i = 0; i < ops; i++) {
                TB_KEEP(__atomic_fetch_add(w64, 1, __ATOMIC_SEQ_CST));
                TB_COMPILER_BARRIER();
            }
        } else {
            for (long i = 0; i < ops; i++) {
                TB_KEEP(__atomic_fetch_add(w32, 1, __ATOMIC_SEQ_CST));
                TB_COMPILER_BARRIER();
            }
        }
    }
    uint64_t dt = tb_now_ns() - t0;
    finish_loop(c);
    return dt;
}
#endif

#ifdef TB_MPI
/* The baseline in tern-bench-mpi: the same operations through MPI-3 RMA
 * (passive target, the window locked by every rank once). The peer
 * waits in MPI_Barrier, which drives MPI's progress as Tern's waits drive
 * Tern's. */
static uint64_t mpi_loop(void *arg, long ops)
{
    amo_ctx_t *c = arg;
    int hot = c->kind == K_HOTSPOT || c->kind == K_HOTSPOT_NBI;
    int target = hot ? 0 : c->peer;
    uint64_t one = 1, v = 0, nv, res;
    uint32_t one32 = 1, res32;
    int rc = MPI_SUCCESS;
    uint64_t t0 = tb_now_ns(), dt = 0;
    int once = c->kind == K_FADD_RATE || c->kind == K_HOTSPOT_NBI; /* one flush */
    if (hot || c->me == 0) {
        for (long i = 0; i < ops; i++) {
            switch (c->kind) {
            case K_FADD_LAT:
            case K_HOTSPOT:
            case K_FADD_RATE: /* the rate rows flush once, after the loop */
            case K_HOTSPOT_NBI:
                if (c->is64)
                    rc |= MPI_Fetch_and_op(&one, &res, MPI_UINT64_T, target, 0, MPI_SUM,
                                           c->win);
                else
                    rc |= MPI_Fetch_and_op(&one32, &res32, MPI_UINT32_T, target, 1,
                                           MPI_SUM, c->win);
                if (!once)
                    rc |= MPI_Win_flush(target, c->win);
                break;
            default: /* K_CSWAP_LAT: v follows the word, as in tern_loop */
                nv = v + 1;
                rc |=
                    MPI_Compare_and_swap(&nv, &v, &res, MPI_UINT64_T, target, 0, c->win);
                rc |= MPI_Win_flush(target, c->win);
                v = res == v ? v + 1 : res;
                break;
            }
            TB_COMPILER_BARRIER();
        }
        if (once)
            rc |= MPI_Win_flush(target, c->win);
    }
    if (!hot)
        dt = tb_now_ns() - t0;
    rc |= MPI_Barrier(MPI_COMM_WORLD);
    if (hot) /* aggregate, as tern_loop */
        dt = (tb_now_ns() - t0) / (uint64_t)c->size;
    if (rc != MPI_SUCCESS)
        c->rc |= TERN_ERR_SYS;
    return dt;
}
#endif

static const char *const names[K_COUNT][2] = {
    {"fadd_lat_u32", "fadd_lat_u64"},
    {"fadd_rate_u32", "fadd_rate_u64"},
    {"cswap_lat_u64", "cswap_lat_u64"},
    {"hotspot_u64", "hotspot_u64"},
    {"fadd_lat_u64_vs_am", "fadd_lat_u64_vs_am"},
    {"hotspot_nbi_u64", "hotspot_nbi_u64"}};

static void amo_row(const tb_opts_t *o, int kind, int is64, int raw, tb_row_t *row)
{
    ctx.kind = kind;
    ctx.is64 = is64;
    /* cswap follows the word from a known value. */
    TB_CHECK(tern_barrier());
    ctx.word[0] = 0;
    TB_CHECK(tern_barrier());
    tb_unit_t unit = kind == K_FADD_RATE || kind == K_HOTSPOT || kind == K_HOTSPOT_NBI
                         ? TB_UNIT_MMSGS
                         : TB_UNIT_NS;
#ifdef TB_MPI
    (void)raw;
    tb_loop_fn base = kind == K_VS_AM ? client_am_loop : mpi_loop;
#else
    tb_loop_fn base = kind == K_VS_AM ? client_am_loop : raw ? raw_loop : NULL;
#endif
    long ops = tb_ops_bounded(o, tern_loop, &ctx, o->iters, base ? 2 : 1, 1);
    tb_measure_pair(o, tern_loop, base, &ctx, ops, unit, 0, 1, &row->tern, &row->raw);
    if (ctx.rc != TERN_OK)
        tb_die("atomics (%s) failed: %d (%s)", names[kind][is64], ctx.rc,
               tern_strerror(ctx.rc));
    row->bench = "amo";
    row->op = names[kind][is64];
    row->size = is64 ? 8 : 4;
    row->unit = unit;
    row->ops = ops;
}

static void amo_defaults(tb_opts_t *o)
{
    o->iters = 200000;
    o->trials = 11;
    o->warmup = 1;
}

static size_t amo_need(const tb_opts_t *o)
{
    (void)o;
    return 4096;
}

static int amo_run(tb_opts_t *o, tb_job_t *job)
{
    memset(&ctx, 0, sizeof(ctx));
    ctx.me = job->rank;
    ctx.size = job->size;
    ctx.peer = job->size > 1 ? job->peer : 0;
    TB_CHECK(tern_alloc_sym(16 * sizeof(uint64_t), (void **)&ctx.word));
    memset(ctx.word, 0, 16 * sizeof(uint64_t));
    TB_CHECK(tern_ad_create(TERN_AT_U64, TERN_OP_FADD | TERN_OP_CSWAP, 0, &ctx.ad64));
    TB_CHECK(tern_ad_create(TERN_AT_U32, TERN_OP_FADD, 0, &ctx.ad32));
    int impl;
    char why[640];
    TB_CHECK(tern_ad_info(ctx.ad64, &impl, why, sizeof(why)));
    /* A cpu domain means every segment is mapped: the raw baseline runs. */
    int raw = impl == TERN_AD_IMPL_CPU;
#ifdef TB_MPI
    int provided, msize;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        tb_die("MPI_Init_thread failed");
    MPI_Comm_size(MPI_COMM_WORLD, &msize);
    if (msize != job->size)
        tb_die("MPI sees %d ranks and Tern %d: start tern-bench-mpi with mpirun", msize,
               job->size);
    uint64_t *mbase;
    if (MPI_Win_allocate(16 * sizeof(uint64_t), sizeof(uint64_t), MPI_INFO_NULL,
                         MPI_COMM_WORLD, &mbase, &ctx.win) != MPI_SUCCESS ||
        MPI_Win_lock_all(0, ctx.win) != MPI_SUCCESS)
        tb_die("MPI_Win_allocate or MPI_Win_lock_all failed");
    if (job->rank == 0)
        tb_note(o,
                "baseline (MPI): the same op through MPI-3 RMA: MPI_Fetch_and_op (sum) "
                "/ MPI_Compare_and_swap on an MPI_Win_allocate window under "
                "MPI_Win_lock_all, MPI_Win_flush after each op (rate rows: one "
                "flush after all), interleaved by trial");
#endif
    if (job->rank == 0) {
        tb_note(o, "atomic domain (u64 {fadd, cswap}): %s", why);
        tb_note(o,
                "fadd_lat/cswap_lat: one blocking op at a time to rank %d; fadd_rate: "
                "nbi ops back to back, one sync; hotspot: every rank fetch-adds one word "
                "of rank 0 (aggregate; hotspot_nbi: nbi, one sync each)",
                ctx.peer);
        tb_table_head(o, TB_UNIT_NS);
    }
    /* Across nodes: the domain's fetch-add against a client's own Short AM
     * round trip doing the same (the handlers are registered everywhere
     * before the barrier that precedes any use). */
    int vs_am = impl != TERN_AD_IMPL_CPU; /* the same on every rank */
    if (vs_am) {
        TB_CHECK(tern_am_register(H_CLIENT_FADD, client_fadd, "bench client fadd"));
        TB_CHECK(tern_am_register(H_CLIENT_REPLY, client_reply, "bench client reply"));
        if (job->rank == 0)
            tb_note(o, "fadd_lat_u64_vs_am: the same fetch-add latency, against a "
                       "client's own Short AM round trip (handler: fetch-add in place, "
                       "Reply with the old value) as the baseline");
    }
    TB_CHECK(tern_barrier());
    static const struct {
        int kind, is64;
    } rows[] = {{K_FADD_LAT, 0},  {K_FADD_LAT, 1}, {K_CSWAP_LAT, 1},   {K_FADD_RATE, 0},
                {K_FADD_RATE, 1}, {K_HOTSPOT, 1},  {K_HOTSPOT_NBI, 1}, {K_VS_AM, 1}};
    const size_t nrows = sizeof(rows) / sizeof(rows[0]);
    const char *row_names[sizeof(rows) / sizeof(rows[0])];
    for (size_t i = 0; i < nrows; i++)
        row_names[i] = names[rows[i].kind][rows[i].is64];
    tb_rows_check(o, "amo", row_names, nrows);
    for (size_t i = 0; i < nrows; i++) {
        if (rows[i].kind == K_VS_AM && !vs_am)
            continue;
        if (!tb_row_wanted(o, names[rows[i].kind][rows[i].is64]))
            continue;
        tb_row_t row;
        amo_row(o, rows[i].kind, rows[i].is64, raw, &row);
        if (job->rank == 0)
            tb_row_print(o, job, &row);
    }
    TB_CHECK(tern_barrier());
#ifdef TB_MPI
    MPI_Win_unlock_all(ctx.win);
    MPI_Win_free(&ctx.win);
    MPI_Finalize();
#endif
    TB_CHECK(tern_ad_destroy(ctx.ad32));
    TB_CHECK(tern_ad_destroy(ctx.ad64));
    return 0;
}

const tb_bench_t tb_bench_amo = {
    .name = "amo",
    .help = "remote atomics: fetch-add latency and rate (u32, u64), compare-swap "
            "latency, hot-spot on rank 0, vs raw CPU atomics on the same word",
    .with_tern = 1,
    .min_ranks = 1,
#ifdef TB_MPI
    .baseline = "the same operation through MPI-3 RMA (MPI_Fetch_and_op, "
                "MPI_Compare_and_swap, passive target), interleaved by trial",
#else
    .baseline = "the same operation as a CPU atomic on the same cross-mapped word "
                "(one node), same run",
#endif
    .defaults = amo_defaults,
    .segment_need = amo_need,
    .run = amo_run,
};
