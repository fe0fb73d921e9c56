/* tern-bench: one executable, one subcommand per benchmark. Chooses the
 * subcommand, applies its defaults and the options, sizes the segment for
 * the run, starts Tern for the subcommands that run under ternrun. */
#include "bench.h"
#include "topo_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>

static const tb_bench_t *const benches[] = {
    &tb_bench_put_lat,      &tb_bench_get_lat,  &tb_bench_put_bw,  &tb_bench_get_bw,
    &tb_bench_put_pingpong, &tb_bench_put_rate, &tb_bench_faultin, &tb_bench_startup,
    &tb_bench_summary,      &tb_bench_net,      &tb_bench_copy,    &tb_bench_topo_put,
    &tb_bench_stream,       &tb_bench_alloc,    &tb_bench_am_lat,  &tb_bench_am_rate,
    &tb_bench_am_bw,        &tb_bench_am_sched, &tb_bench_amo,     &tb_bench_acc,
    &tb_bench_gups,         &tb_bench_coll,     &tb_bench_vis,     &tb_bench_vis_elem,
    &tb_bench_order,
};
#define NBENCH (sizeof benches / sizeof benches[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: ternrun -n 2 tern-bench SUBCOMMAND [options]\n"
               "       tern-bench faultin|startup|copy|topo_put|stream [options]\n"
               "                                  (these start their own processes)\n"
               "       tern-bench --version\n"
               "\nsubcommands:\n");
    for (size_t i = 0; i < NBENCH; i++)
        fprintf(f, "  %-13s %s\n", benches[i]->name, benches[i]->help);
    fprintf(
        f,
        "\noptions:\n"
        "  --json          one JSON object per row on stdout (header on stderr)\n"
        "  --sizes a:b     sizes from a to b, doubling (units K M G); or a,b,c\n"
        "  --iters N       at most N operations per trial\n"
        "  --trials N      measured trials per row (median, p10, p90 over them)\n"
        "  --warmup N      unmeasured trials before them\n"
        "  --row-time S    seconds one row may take (default 0.5): operations\n"
        "                  per trial come from a short calibration, --iters caps them\n"
        "  --window N      put_bw/get_bw: nbi operations between syncs\n"
        "  --rows a,b      amo, vis, coll: run only the rows of these names (op column)\n"
        "  --size S        faultin: segment size (default 1G)\n"
        "  --ranks a,b     startup: rank counts (default 2,16)\n"
        "  --nodes K       startup: ternrun --nodes K (simulated nodes: the mixed\n"
        "                  configuration; TERN_SHM=off for network only)\n"
        "  --peer R        rank 0's peer in two-rank rows (default 1): e.g. a rank\n"
        "                  of another simulated node in a mixed job\n"
        "\nEvery row shows Tern's figure and the raw baseline measured in the same\n"
        "run; see docs/bench.md. With --json the first line records host, CPU,\n"
        "version, commit, date and TERN_* settings. Plots (matplotlib): tern-bench\n"
        "SUB --json > f.jsonl; tern-bench-plot f.jsonl (bench/plot.py in the sources)\n");
}

/* Room for the heap's own bookkeeping and the harness's small symmetric
 * objects, on top of what a family allocates. */
#define SEG_SLACK (8u << 20)

static void size_segment(tb_opts_t *o, size_t need)
{
    static char value[64];
    if (getenv("TERN_SEGMENT_SIZE")) {
        o->seg_origin = "TERN_SEGMENT_SIZE";
        return;
    }
    /* Each rank derives the same value from the same options, so the
     * ranks of a job agree without talking. */
    size_t mib = (need + SEG_SLACK + (1u << 20) - 1) >> 20;
    snprintf(value, sizeof value, "%zuM", mib);
    setenv("TERN_SEGMENT_SIZE", value, 1);
    o->seg_origin =
        "chosen by tern-bench for these sizes, as TERN_SEGMENT_SIZE was not given";
    o->seg_chosen = 1;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "_faultin_child"))
        return tb_faultin_child(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "_noop"))
        return tb_noop_child(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "_copy"))
        return tb_copy_child(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "_topo_put"))
        return tb_topo_put_child(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "_stream"))
        return tb_stream_child(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "--version")) {
        printf("tern-bench (Tern) %d.%d.%d\n", TERN_VERSION_MAJOR, TERN_VERSION_MINOR,
               TERN_VERSION_PATCH);
        return 0;
    }
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const tb_bench_t *b = NULL;
    for (size_t i = 0; i < NBENCH; i++)
        if (!strcmp(argv[1], benches[i]->name))
            b = benches[i];
    if (!b) {
        fprintf(stderr, "tern-bench: unknown subcommand '%s'\n\n", argv[1]);
        usage(stderr);
        return 2;
    }

    tb_opts_t o = {.sub = b->name,
                   .iters = 1000000,
                   .trials = 11,
                   .warmup = 1,
                   .window = 64,
                   .row_time = 0.5};
    if (b->defaults)
        b->defaults(&o);
    if (tb_opts_parse(&o, argc - 2, argv + 2))
        return 2;
    if (b->max_size)
        tb_sizes_default(&o, b->min_size, b->max_size);
    if (!b->with_tern)
        return b->run(&o, NULL);

    size_t need = b->segment_need ? b->segment_need(&o) : 0;
    size_segment(&o, need);
    int rc = tern_init(&argc, &argv, TERN_THREAD_SINGLE);
    if (rc != TERN_OK) {
        fprintf(stderr, "tern-bench %s: tern_init failed: %d (%s)\n", b->name, rc,
                tern_strerror(rc));
        return 1;
    }
    if (tern_size() < b->min_ranks) {
        if (tern_rank() == 0)
            fprintf(stderr,
                    "tern-bench %s needs at least %d ranks: run it as "
                    "ternrun -n %d tern-bench %s\n",
                    b->name, b->min_ranks, b->min_ranks, b->name);
        tern_finalize();
        return 2;
    }
    tb_job_t job;
    tb_job_header(&o, &job, b->baseline);
    if (job.seg_size < need + 4096) {
        char have[32], want[32];
        tb_die("the segment (%s per rank) is too small for this run, which "
               "needs %s: raise TERN_SEGMENT_SIZE or lower --sizes",
               tb_size_str(job.seg_size, have, sizeof have),
               tb_size_str(need + SEG_SLACK, want, sizeof want));
    }
    rc = b->run(&o, &job);
    TB_CHECK(tern_barrier());
    TB_CHECK(tern_finalize());
    return rc;
}
