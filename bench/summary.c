/* summary: the README figures in a few seconds (8 B put overhead, put bw
 * at 64 KiB and 4 MiB, ping-pong ratio, 8 B put rate), each against its
 * raw baseline from the same run. */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <tern.h>

#define SUM_BW_LARGE (4u << 20)

typedef struct sum_line {
    const char *label;
    const char *measure;
    const char *goal; /* the project's goal, as text; never a test */
    int goal_kind;    /* 0: overhead <= goal_val, 1: ratio <=, 2: ratio >=,
                           -1: no goal */
    double goal_val;
    tb_row_t row;
} sum_line_t;

static void sum_print(const tb_opts_t *o, const tb_job_t *job, sum_line_t *l)
{
    double diff = l->row.tern.med - l->row.raw.med;
    double ratio = l->row.tern.med / l->row.raw.med;
    const char *met = "n/a";
    if (l->goal_kind < 0) {
        met = "";
    } else if (!isnan(ratio)) {
        int ok = l->goal_kind == 0   ? diff <= l->goal_val
                 : l->goal_kind == 1 ? ratio <= l->goal_val
                                     : ratio >= l->goal_val;
        met = ok ? "met" : "short";
    }
    if (o->json) {
        tb_json_t x;
        tb_json_begin(&x);
        tb_json_str(&x, "measure", l->measure);
        tb_json_str(&x, "goal", l->goal);
        tb_json_str(&x, "goal_status", met);
        l->row.bench = "summary";
        tb_row_json(o, job, &l->row, &x);
        return;
    }
    char t[32], r[32] = "n/a", d[32] = "n/a", q[32] = "n/a";
    snprintf(t, sizeof t, "%.2f", l->row.tern.med);
    if (!isnan(l->row.raw.med)) {
        snprintf(r, sizeof r, "%.2f", l->row.raw.med);
        snprintf(d, sizeof d, "%.2f", diff);
        snprintf(q, sizeof q, "%.3f", ratio);
    }
    printf("%-34s %10s %10s %9s %8s  %-18s %s\n", l->label, t, r, d, q, l->goal, met);
    fflush(stdout);
}

static int summary_run(tb_opts_t *o, tb_job_t *job)
{
    void *sym;
    TB_CHECK(tern_alloc_sym(SUM_BW_LARGE, &sym));
    memset(sym, 0, SUM_BW_LARGE);
    tb_pingpong_t *pp = tb_pingpong_setup(job, 8);
    sum_line_t lines[] = {
        {"put 8 B latency (ns)", "put_lat", "tern-raw <= 2 ns", 0, 2.0},
        {"put_nbi bandwidth 64 KiB (MB/s)", "put_bw", "tern/raw >= 0.95", 2, 0.95},
        {"put_nbi bandwidth 4 MiB (MB/s)", "put_bw", "tern/raw >= 0.95", 2, 0.95},
        {"put ping-pong 8 B, half RTT (ns)", "put_pingpong", "tern/raw <= 1.15", 1, 1.15},
        {"put_nbi rate 8 B (Mmsg/s)", "put_rate", "(no goal)", -1, 0.0},
    };
    if (job->rank == 0 && !o->json)
        printf("# %-32s %10s %10s %9s %8s  %-18s %s\n", "measure", "tern", "raw",
               "tern-raw", "tern/raw", "goal", "");
    /* Each measure keeps its family's own operation counts unless --iters
     * caps them all (smoke tests). */
    tb_opts_t lo = *o;
    if (job->rank == 0) {
        lo.iters = o->iters_given ? o->iters : 1000000;
        tb_lat_row(&lo, job, sym, 0, 0, 8, &lines[0].row);
        sum_print(o, job, &lines[0]);
        tb_bw_row(&lo, job, sym, 0, 64u << 10, &lines[1].row);
        sum_print(o, job, &lines[1]);
        tb_bw_row(&lo, job, sym, 0, SUM_BW_LARGE, &lines[2].row);
        sum_print(o, job, &lines[2]);
    }
    TB_CHECK(tern_barrier());
    lo.iters = o->iters_given ? o->iters : 20000;
    tb_pingpong_row(&lo, job, pp, 8, &lines[3].row);
    if (job->rank == 0) {
        sum_print(o, job, &lines[3]);
        lo.iters = o->iters_given ? o->iters : 1000000;
        tb_rate_row(&lo, job, sym, 1, &lines[4].row);
        sum_print(o, job, &lines[4]);
    }
    tb_pingpong_teardown(pp);
    TB_CHECK(tern_free_sym(sym));
    return 0;
}

static void summary_defaults(tb_opts_t *o)
{
    o->trials = 7;
    o->warmup = 1;
    o->iters = 1000000;
}

static size_t summary_need(const tb_opts_t *o)
{
    return SUM_BW_LARGE + 4096;
}

const tb_bench_t tb_bench_summary = {
    .name = "summary",
    .help =
        "a few seconds: 8 B put overhead, put bw 64 KiB/4 MiB, ping-pong ratio, put rate",
    .with_tern = 1,
    .min_ranks = 2,
    .baseline = "per line, the raw baseline of its family (memcpy, stores and "
                "flag ping-pong through tern_ptr) from this run",
    .defaults = summary_defaults,
    .segment_need = summary_need,
    .run = summary_run,
};
