/* tern-bench net: Tern's network path against raw libfabric in the same
 * run - 8 B put and get latency, put bandwidth at 64 KiB and 4 MiB, 8 B
 * message rate, u64 fetch-add latency and nbi rate (an atomic domain
 * against fi_fetch_atomicmsg). Run across nodes (TERN_SHM=off, ternrun --nodes 2, or a
 * real cluster); the baseline opens the same provider directly
 * (raw_ofi.c) with the same completion semantics. The latency rows (put,
 * get, fadd_u64) interleave Tern and raw in batches of NET_PAIR_OPS inside
 * each trial and report the median of the paired differences too. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>

#include "bench.h"
#include "raw_ofi.h"

#define NET_MAX (4u << 20)
/* Latency rows: operations per batch; a trial alternates Tern and raw
 * batches of this many (which goes first alternates too), so both sides
 * see the same state of the machine within a few milliseconds. */
#define NET_PAIR_OPS 50

typedef struct net_case {
    const char *op;
    int kind; /* 0 latency put, 1 latency get, 2 bandwidth put, 3 rate,
                 4 fetch-add latency, 5 fetch-add rate (nbi, one sync) */
    size_t size;
    long ops;
} net_case_t;

static const net_case_t cases[] = {
    {"put", 0, 8, 2000},           {"get", 1, 8, 2000},      {"put_nbi", 2, 65536, 2000},
    {"put_nbi", 2, NET_MAX, 60},   {"put_nbi", 3, 8, 20000}, {"fadd_u64", 4, 8, 2000},
    {"fadd_nbi_u64", 5, 8, 20000},
};

static tern_ad_t net_ad; /* u64 {fadd} on every rank */

/* One Tern trial on rank 0: returns the value in the row's unit. */
static double tern_trial(const net_case_t *c, long ops, int window, int peer,
                         char *remote, char *local)
{
    uint64_t t0 = tb_now_ns();
    if (c->kind == 0) {
        for (long i = 0; i < ops; i++)
            TB_CHECK(tern_put(peer, remote, local, c->size, 0));
    } else if (c->kind == 1) {
        for (long i = 0; i < ops; i++)
            TB_CHECK(tern_get(local, peer, remote, c->size, 0));
    } else if (c->kind == 4) {
        uint64_t v;
        for (long i = 0; i < ops; i++)
            TB_CHECK(tern_ad_op_u64(net_ad, peer, remote, TERN_OP_FADD, 1, 0, &v, 0));
    } else if (c->kind == 5) {
        uint64_t *v = (uint64_t *)local;
        for (long i = 0; i < ops; i++)
            TB_CHECK(tern_ad_op_nbi_u64(net_ad, peer, remote, TERN_OP_FADD, 1, 0, v, 0));
        TB_CHECK(tern_nbi_sync(TERN_SYNC_REMOTE));
    } else {
        int w = c->kind == 3 ? (int)ops : window;
        for (long i = 0; i < ops;) {
            for (int k = 0; k < w && i < ops; k++, i++)
                TB_CHECK(tern_put_nbi(peer, remote, local, c->size, 0));
            TB_CHECK(tern_nbi_sync(TERN_SYNC_REMOTE));
        }
    }
    double s = (double)(tb_now_ns() - t0) * 1e-9;
    if (c->kind <= 1 || c->kind == 4)
        return s / (double)ops * 1e9; /* ns per op */
    if (c->kind == 5)
        return (double)ops / s / 1e6; /* Mops/s */
    if (c->kind == 2)
        return (double)c->size * (double)ops / s / 1e6; /* MB/s */
    return (double)ops / s / 1e6;                       /* Mmsg/s */
}

static double raw_trial(tb_raw_ofi_t *r, const net_case_t *c, long ops, int window)
{
    double v;
    if (c->kind <= 1)
        v = tb_raw_ofi_lat(r, c->kind, c->size, ops);
    else if (c->kind >= 4) {
        v = tb_raw_ofi_fadd(r, ops, c->kind == 4 ? 1 : (int)ops);
        if (v == 0)
            v = NAN; /* the provider has no fetch-add */
        else if (c->kind == 5)
            v = 1e3 / v; /* Mops/s */
    } else if (c->kind == 2)
        v = tb_raw_ofi_bw(r, 0, c->size, ops, window);
    else
        v = tb_raw_ofi_bw(r, 0, c->size, ops, (int)ops) / (double)c->size;
    tb_raw_ofi_release(r);
    return v;
}

/* One batch of Tern operations between two barriers (the peer progresses
 * in the second): the row's value on rank 0, 0 elsewhere. Collective. */
static double net_tern_batch(const net_case_t *c, long ops, int window, int peer,
                             char *remote, char *local)
{
    TB_CHECK(tern_barrier());
    double v = tern_rank() == 0 ? tern_trial(c, ops, window, peer, remote, local) : 0;
    TB_CHECK(tern_barrier());
    return v;
}

/* One batch of raw operations: rank 0 runs them while the peer serves its
 * raw endpoint until released. The row's value on rank 0, NAN elsewhere. */
static double net_raw_batch(tb_raw_ofi_t *raw, const net_case_t *c, long ops, int window,
                            int me, int serve)
{
    if (me == 0)
        return raw_trial(raw, c, ops, window);
    if (serve)
        tb_raw_ofi_serve(raw);
    return NAN;
}

/* A latency row whose trials interleaved Tern and raw: the usual row
 * (medians of the trials, tern-raw their difference), then on a line of
 * its own the median and p10..p90 of the paired differences d, one per
 * batch of NET_PAIR_OPS (JSON: keys paired_overhead, paired_p10,
 * paired_p90, pairs, pair_ops added to the row). */
static void net_paired_print(const tb_opts_t *o, const tb_job_t *job, const tb_row_t *r,
                             const tb_stats_t *d, int nd)
{
    if (o->json) {
        tb_json_t x;
        tb_json_begin(&x);
        tb_json_num(&x, "paired_overhead", d->med);
        tb_json_num(&x, "paired_p10", d->p10);
        tb_json_num(&x, "paired_p90", d->p90);
        tb_json_int(&x, "pairs", nd);
        tb_json_int(&x, "pair_ops", NET_PAIR_OPS);
        tb_row_json(o, job, r, &x);
        return;
    }
    tb_row_print(o, job, r);
    printf("#   %s paired: tern-raw per batch of %d ops, median %.1f ns "
           "(p10..p90 %.1f..%.1f, %d pairs)\n",
           r->op, NET_PAIR_OPS, d->med, d->p10, d->p90, nd);
    fflush(stdout);
}

static int net_run(tb_opts_t *o, tb_job_t *job)
{
    if (job->peer_mapped && job->rank == 0)
        tb_warn("rank %d shares memory with rank 0: run across nodes "
                "(TERN_SHM=off or ternrun --nodes 2) to measure the network",
                job->peer);
    char *sym;
    TB_CHECK(tern_alloc_sym(NET_MAX, (void **)&sym));
    char *local = tb_alloc_local(NET_MAX);
    char *remote = tern_sym_addr(job->peer, sym);
    TB_CHECK(tern_ad_create(TERN_AT_U64, TERN_OP_FADD, 0, &net_ad));
    tb_raw_ofi_t *raw = tb_raw_ofi_setup(job->peer, NET_MAX);
    int window = o->window_given ? o->window : 64;
    int me = job->rank, serve = me == job->peer;
    if (me == 0) {
        tb_note(o,
                "columns: Tern and raw libfabric in the same run; latency "
                "waits for each operation (remote completion), Tern and raw "
                "alternating in batches of %d inside each trial (\"paired\": "
                "median of the batch differences); bandwidth syncs "
                "every %d puts",
                NET_PAIR_OPS, window);
    }
    const size_t ncases = sizeof(cases) / sizeof(cases[0]);
    const char *names[sizeof(cases) / sizeof(cases[0])];
    for (size_t ci = 0; ci < ncases; ci++)
        names[ci] = cases[ci].op;
    tb_rows_check(o, "net", names, ncases);
    int head = -1;
    for (size_t ci = 0; ci < ncases; ci++) {
        const net_case_t *c = &cases[ci];
        if (!tb_row_wanted(o, c->op))
            continue;
        long ops = o->iters_given && o->iters < c->ops ? o->iters : c->ops;
        double vt[64], vr[64];
        int nt = o->trials < 64 ? o->trials : 64;
        /* Latency rows with a baseline: Tern and raw interleaved by batch. */
        int paired = raw && (c->kind <= 1 || c->kind == 4);
        long nb = paired ? (ops + NET_PAIR_OPS - 1) / NET_PAIR_OPS : 0;
        double *diff = paired ? malloc((size_t)(nt * nb) * sizeof(double)) : NULL;
        if (paired && !diff)
            tb_die("net: no memory for %ld paired differences of row %s", (long)nt * nb,
                   c->op);
        int nd = 0;
        for (int t = -o->warmup; t < nt; t++) {
            double a = 0, b = NAN;
            if (paired) {
                double st = 0, sr = 0;
                for (long k = 0; k < nb; k++) {
                    long n = ops - k * NET_PAIR_OPS < NET_PAIR_OPS
                                 ? ops - k * NET_PAIR_OPS
                                 : NET_PAIR_OPS;
                    double pt = 0, pr = 0;
                    for (int half = 0; half < 2; half++) {
                        if ((half == 0) == (k % 2 == 0)) /* even batches: Tern first */
                            pt = net_tern_batch(c, n, window, job->peer, remote, local);
                        else
                            pr = net_raw_batch(raw, c, n, window, me, serve);
                    }
                    st += pt * (double)n;
                    sr += pr * (double)n;
                    if (t >= 0 && me == 0)
                        diff[nd++] = pt - pr;
                }
                a = st / (double)ops;
                b = sr / (double)ops;
            } else {
                a = net_tern_batch(c, ops, window, job->peer, remote, local);
                if (raw)
                    b = net_raw_batch(raw, c, ops, window, me, serve);
            }
            if (t >= 0) {
                vt[t] = a;
                vr[t] = b;
            }
        }
        if (me == 0) {
            tb_row_t row = {.bench = "net", .op = c->op, .size = c->size, .ops = ops};
            row.unit = c->kind <= 1 || c->kind == 4 ? TB_UNIT_NS
                       : c->kind == 2               ? TB_UNIT_MBPS
                                                    : TB_UNIT_MMSGS;
            if ((int)row.unit != head) /* one table head per unit */
                tb_table_head(o, row.unit);
            head = (int)row.unit;
            tb_stats_of(vt, nt, &row.tern);
            if (raw)
                tb_stats_of(vr, nt, &row.raw);
            else
                row.raw = tb_stats_none;
            if (paired) {
                tb_stats_t d;
                tb_stats_of(diff, nd, &d);
                net_paired_print(o, job, &row, &d, nd);
            } else {
                tb_row_print(o, job, &row);
            }
        }
        free(diff);
    }
    TB_CHECK(tern_barrier());
    tb_raw_ofi_teardown(raw);
    TB_CHECK(tern_ad_destroy(net_ad));
    free(local);
    TB_CHECK(tern_free_sym(sym));
    return 0;
}

static void net_defaults(tb_opts_t *o)
{
    o->trials = 7;
    o->warmup = 1;
}

static size_t net_need(const tb_opts_t *o)
{
    return NET_MAX + (1u << 20);
}

const tb_bench_t tb_bench_net = {
    .name = "net",
    .help = "network path vs raw libfabric: 8 B put/get latency, put bandwidth "
            "64 KiB and 4 MiB, 8 B rate, u64 fetch-add latency and rate (run across "
            "nodes)",
    .with_tern = 1,
    .min_ranks = 2,
    .baseline = "raw libfabric: the same provider opened directly, fi_writemsg "
                "with FI_DELIVERY_COMPLETE (FI_INJECT up to the inject size) "
                "and fi_readmsg, fi_fetch_atomicmsg (FI_SUM), waited the same way",
    .defaults = net_defaults,
    .segment_need = net_need,
    .run = net_run,
};
