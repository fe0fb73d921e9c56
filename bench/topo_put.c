/* topo_put: put bandwidth and latency between two ranks with
 * TERN_SHM_TOPO=off, on and auto in the same run, for each placement of
 * the pair this machine has - two cores of one NUMA domain (intra-NUMA)
 * and, where there are several domains, cores of two (inter-NUMA) - laid
 * out as MPICH's topology-aware shared-memory results were: one column
 * group per placement. Each mode and placement runs as its own
 * `ternrun -n 2` job; the modes take turns round after round. */
#include "topo_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <tern.h>
#include <tern/topo.h>

#define TP_BUDGET (64u << 20) /* bytes per timed sample at least */
#define TP_WINDOW 64
#define NMODES    3
#define MAXPL     2
static const char *const modes[NMODES] = {"off", "on", "auto"};

/* ---- the child (ternrun -n 2): rank 0 puts to rank 1 ------------------------ */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The best of a process's samples: other jobs on the machine only ever
 * slow a sample down. hi: the highest (bandwidth), else the lowest. */
static double best_of(double *v, int n, int hi)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return hi ? v[n - 1] : v[0];
}

int tb_topo_put_child(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: ternrun -n 2 tern-bench _topo_put SIZES REPEATS\n");
        return 2;
    }
    size_t sizes[TB_MAX_SIZES], max = 0;
    int ns = 0, reps = atoi(argv[2]);
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", argv[1]);
    for (char *t = strtok(tmp, ","); t && ns < TB_MAX_SIZES; t = strtok(NULL, ","))
        sizes[ns++] = (size_t)strtoull(t, NULL, 10);
    for (int i = 0; i < ns; i++)
        max = sizes[i] > max ? sizes[i] : max;
    int rc = tern_init(&argc, &argv, TERN_THREAD_SINGLE);
    if (rc != TERN_OK) {
        printf(TBT_TAG " error=%d\n", rc);
        return 3;
    }
    if (tern_size() != 2)
        tb_die("_topo_put runs on 2 ranks");
    char *sym;
    TB_CHECK(tern_alloc_sym(max, (void **)&sym));
    memset(sym, 0, max);
    TB_CHECK(tern_barrier());
    if (tern_rank() == 0) {
        char *src = tb_alloc_local(max);
        char *dst = tern_sym_addr(1, sym);
        tern_copy_info_t ci;
        TB_CHECK(tern_copy_info(1, &ci));
        printf(TBT_TAG " info mode=%s class=%d nt_put=%zu isa=%s islands=%llu\n", ci.mode,
               ci.distance, ci.nt_put, ci.isa, ci.nt_islands);
        double bw[8], lat[8];
        for (int i = 0; i < ns; i++) {
            size_t n = sizes[i];
            long msgs = (long)(TP_BUDGET / n);
            if (msgs < 2)
                msgs = 2;
            if (msgs > 200000)
                msgs = 200000;
            int w = msgs < TP_WINDOW ? (int)msgs : TP_WINDOW;
            long windows = msgs / w;
            for (int r = -1; r < reps && r < 8; r++) { /* r = -1: warm-up */
                uint64_t t0 = tb_now_ns();
                for (long k = 0; k < windows; k++) {
                    for (int j = 0; j < w; j++) {
                        TB_CHECK(tern_put_nbi(1, dst, src, n, 0));
                        TB_COMPILER_BARRIER();
                    }
                    TB_CHECK(tern_nbi_sync(TERN_SYNC_REMOTE));
                }
                uint64_t t = tb_now_ns() - t0;
                long lops = msgs < 20000 ? msgs : 20000;
                uint64_t t1 = tb_now_ns();
                for (long k = 0; k < lops; k++) {
                    TB_CHECK(tern_put(1, dst, src, n, 0));
                    TB_COMPILER_BARRIER();
                }
                uint64_t tl = tb_now_ns() - t1;
                if (r >= 0) {
                    bw[r] = (double)n * (double)(windows * w) / (double)(t ? t : 1) * 1e3;
                    lat[r] = (double)tl / (double)lops; /* ns, as put_lat */
                }
            }
            int k = reps < 8 ? reps : 8;
            printf(TBT_TAG " put size=%zu bw=%.3f lat=%.5f\n", n, best_of(bw, k, 1),
                   best_of(lat, k, 0));
            fflush(stdout);
        }
        free(src);
    }
    TB_CHECK(tern_barrier());
    TB_CHECK(tern_free_sym(sym));
    tern_finalize();
    return 0;
}

/* ---- the parent -------------------------------------------------------------------- */

typedef struct placement {
    char name[16]; /* "intra-NUMA", "inter-NUMA" */
    char cpus[64]; /* "0,1" */
    int cls;       /* distance class the ranks got */
    size_t nt_put; /* auto's threshold for the pair */
    unsigned long long islands;
    double *bw[NMODES][TB_MAX_SIZES], *lat[NMODES][TB_MAX_SIZES];
    int n[NMODES][TB_MAX_SIZES];
} placement_t;

/* The first two CPUs of a list ("0-3,8" -> 0 and 1). */
static int first_cpus(const char *list, int *a, int *b)
{
    int got = 0, lo, hi;
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", list);
    for (char *t = strtok(tmp, ","); t && got < 2; t = strtok(NULL, ",")) {
        if (sscanf(t, "%d-%d", &lo, &hi) != 2) {
            if (sscanf(t, "%d", &lo) != 1)
                continue;
            hi = lo;
        }
        for (int c = lo; c <= hi && got < 2; c++)
            *(got++ ? b : a) = c;
    }
    return got;
}

static int find_placements(placement_t *pl)
{
    int np = 0, a, b, a1, b1;
    char l0[256], l1[256];
    if (tbt_numa_cpus(0, l0, sizeof l0) == 0 && first_cpus(l0, &a, &b) == 2) {
        snprintf(pl[np].name, sizeof pl[np].name, "intra-NUMA");
        snprintf(pl[np].cpus, sizeof pl[np].cpus, "%d,%d", a, b);
        np++;
    }
    if (tbt_numa_count() > 1 && tbt_numa_cpus(0, l0, sizeof l0) == 0 &&
        tbt_numa_cpus(1, l1, sizeof l1) == 0 && first_cpus(l0, &a, &b) >= 1 &&
        first_cpus(l1, &a1, &b1) >= 1) {
        snprintf(pl[np].name, sizeof pl[np].name, "inter-NUMA");
        snprintf(pl[np].cpus, sizeof pl[np].cpus, "%d,%d", a, a1);
        np++;
    }
    return np;
}

static int topo_put_run(tb_opts_t *o, tb_job_t *job)
{
    (void)job;
    char ternrun[4096];
    if (tb_find_ternrun(ternrun, sizeof ternrun) != 0)
        tb_die("cannot find ternrun next to %s or in PATH; set TB_TERNRUN",
               tb_self_exe());
    placement_t pl[MAXPL];
    memset(pl, 0, sizeof pl);
    int np = find_placements(pl);
    if (np == 0)
        tb_die("this machine has no NUMA domain with two CPUs: nothing to place two "
               "ranks on");
    for (int p = 0; p < np; p++)
        for (int m = 0; m < NMODES; m++)
            for (int i = 0; i < o->nsizes; i++) {
                pl[p].bw[m][i] = calloc((size_t)o->trials, sizeof(double));
                pl[p].lat[m][i] = calloc((size_t)o->trials, sizeof(double));
            }
    tb_plain_header(o, "TERN_SHM_TOPO=off (regular copies) in the same run; ratio = "
                       "MB/s / off MB/s; auto/best = auto / max(off, on)");
    tb_note(o,
            "rank 0 puts to rank 1: bandwidth of windows of %d nbi puts to remote "
            "completion, latency of blocking puts; each mode and placement its own "
            "ternrun -n 2 job (ranks bound to the placement's cores), %d rounds (+%d "
            "warm-up) with the modes in turn; per job the best of 3 samples",
            TP_WINDOW, o->trials, o->warmup);
    if (np == 1)
        tb_note(o, "this machine has one NUMA domain: no inter-NUMA placement");
    char csv[1024], seg[64], reps[8] = "3";
    size_t off = 0;
    for (int i = 0; i < o->nsizes && off + 24 < sizeof csv; i++)
        off += (size_t)snprintf(csv + off, sizeof csv - off, "%s%zu", i ? "," : "",
                                o->sizes[i]);
    snprintf(seg, sizeof seg, "TERN_SEGMENT_SIZE=%zu", tb_sizes_max(o) + (8u << 20));
    static char out[1 << 16];
    for (int r = -o->warmup; r < o->trials; r++) {
        for (int p = 0; p < np; p++) {
            for (int k = 0; k < NMODES; k++) {
                int m = (k + r + o->warmup) % NMODES;
                char mode[32];
                snprintf(mode, sizeof mode, "TERN_SHM_TOPO=%s", modes[m]);
                const char *sets[] = {seg, mode};
                char *argv[] = {
                    ternrun,     "-n", "2",  "--bind-to", "core", (char *)tb_self_exe(),
                    "_topo_put", csv,  reps, NULL};
                int st = tbt_run(argv, sets, 2, pl[p].cpus, out, sizeof out);
                if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                    char why[300];
                    tbt_why(out, why, sizeof why);
                    fprintf(stderr, "tern-bench topo_put: %s, cpus %s: %s\n", modes[m],
                            pl[p].cpus, why);
                    return 1;
                }
                char line[512];
                size_t pos = 0;
                if (m == 2 && tbt_next(out, " info ", &pos, line, sizeof line)) {
                    pl[p].cls = (int)tbt_num(line, "class");
                    pl[p].nt_put = (size_t)tbt_num(line, "nt_put");
                    pl[p].islands = (unsigned long long)tbt_num(line, "islands");
                }
                pos = 0;
                while (r >= 0 && tbt_next(out, " put ", &pos, line, sizeof line)) {
                    size_t n = (size_t)tbt_num(line, "size");
                    for (int i = 0; i < o->nsizes; i++)
                        if (o->sizes[i] == n) {
                            pl[p].bw[m][i][pl[p].n[m][i]] = tbt_num(line, "bw");
                            pl[p].lat[m][i][pl[p].n[m][i]++] = tbt_num(line, "lat");
                        }
                }
            }
        }
    }
    static const char *const cls[] = {"self", "same-l3", "same-numa", "other-numa",
                                      "other-package"};
    for (int p = 0; p < np; p++) {
        char a[32];
        tb_note(o,
                "%s: cpus %s, distance class %s, auto uses non-temporal stores from %s",
                pl[p].name, pl[p].cpus,
                pl[p].cls >= 0 && pl[p].cls < 5 ? cls[pl[p].cls] : "?",
                pl[p].nt_put == (size_t)-1 ? "never"
                                           : tb_size_str(pl[p].nt_put, a, sizeof a));
    }
    for (int metric = 0; metric < 2; metric++) {
        if (!o->json) {
            printf("# %s\n# %9s",
                   metric == 0 ? "put bandwidth, MB/s (median; p10..p90 in --json)"
                               : "put latency, ns (median)",
                   "");
            for (int p = 0; p < np; p++)
                printf(" | %-42s", pl[p].name);
            printf("\n# %9s", "size");
            for (int p = 0; p < np; p++)
                printf(" | %9s %9s %9s %10s", "off", "on", "auto", "auto/best");
            printf("\n");
        }
        double worst = 2;
        size_t worst_n = 0;
        for (int i = 0; i < o->nsizes; i++) {
            size_t n = o->sizes[i];
            char a[32];
            if (!o->json)
                printf("%11s", tb_size_str(n, a, sizeof a));
            for (int p = 0; p < np; p++) {
                tb_stats_t st[NMODES];
                int island =
                    (pl[p].islands >> (63 - __builtin_clzll((unsigned long long)n))) & 1;
                for (int m = 0; m < NMODES; m++)
                    tb_stats_of(metric == 0 ? pl[p].bw[m][i] : pl[p].lat[m][i],
                                pl[p].n[m][i], &st[m]);
                double best =
                    metric == 0 ? fmax(st[0].med, st[1].med) : fmin(st[0].med, st[1].med);
                /* > 1 when auto is better; < 0.98: more than 2% worse */
                double vs = metric == 0 ? st[2].med / best : best / st[2].med;
                if (vs < worst) {
                    worst = vs;
                    worst_n = n;
                }
                if (o->json) {
                    for (int m = 0; m < NMODES; m++) {
                        tb_json_t j;
                        char op[48];
                        snprintf(op, sizeof op, "%s/%s",
                                 metric == 0 ? "put_bw" : "put_lat", modes[m]);
                        tb_json_begin(&j);
                        tb_json_str(&j, "bench", "topo_put");
                        tb_json_str(&j, "op", op);
                        tb_json_str(&j, "placement", pl[p].name);
                        tb_json_str(&j, "mode", modes[m]);
                        tb_json_int(&j, "size", (long long)n);
                        tb_json_num(&j, "value", st[m].med);
                        tb_json_str(&j, "unit", metric == 0 ? "MB/s" : "ns");
                        tb_json_num(&j, "p10", st[m].p10);
                        tb_json_num(&j, "p90", st[m].p90);
                        tb_json_num(&j, "baseline", st[0].med);
                        tb_json_num(&j, "ratio", st[m].med / st[0].med);
                        tb_json_str(&j, "better", metric == 0 ? "higher" : "lower");
                        tb_json_int(&j, "trials", pl[p].n[m][i]);
                        if (m == 2) {
                            tb_json_num(&j, "vs_best", vs);
                            tb_json_str(&j, "uses",
                                        n >= pl[p].nt_put || island ? "nt" : "regular");
                        }
                        tb_json_end(&j);
                    }
                } else {
                    char v[3][32];
                    for (int m = 0; m < NMODES; m++)
                        snprintf(v[m], sizeof v[m], metric == 0 ? "%.0f" : "%.1f",
                                 st[m].med);
                    printf(" | %9s %9s %9s %9.3f%s", v[0], v[1], v[2], vs,
                           vs < 0.98                     ? "!"
                           : n >= pl[p].nt_put || island ? "*"
                                                         : " ");
                }
            }
            if (!o->json)
                printf("\n");
        }
        char a[32];
        tb_note(o,
                "%s: auto vs the better of off and on, worst %.3f at %s (goal: >= 0.98; "
                "* auto uses non-temporal stores, ! more than 2%% worse)",
                metric == 0 ? "bandwidth" : "latency", worst,
                tb_size_str(worst_n, a, sizeof a));
    }
    for (int p = 0; p < np; p++)
        for (int m = 0; m < NMODES; m++)
            for (int i = 0; i < o->nsizes; i++) {
                free(pl[p].bw[m][i]);
                free(pl[p].lat[m][i]);
            }
    return 0;
}

static void topo_put_defaults(tb_opts_t *o)
{
    o->trials = 5;
    o->warmup = 1;
}

const tb_bench_t tb_bench_topo_put = {
    .name = "topo_put",
    .help = "put bandwidth/latency between 2 ranks, TERN_SHM_TOPO=off/on/auto, per "
            "placement, 64 B..128 MiB (no ternrun)",
    .with_tern = 0,
    .min_size = 64,
    .max_size = 128u << 20,
    .defaults = topo_put_defaults,
    .run = topo_put_run,
};
