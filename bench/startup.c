/* startup: wall time of `ternrun -n N tern-bench _noop` (tern_init and
 * tern_finalize on every rank) against the same ternrun starting N copies
 * of /bin/true; the difference is what Tern adds to a job's start. The
 * floor, measured in the same trials, is the time to fault in the job's N
 * segments' bytes of shared memory with every core of this machine and to
 * give them back (the job releases its segments before ternrun returns):
 * what no job of that size can beat (bench/floor.c). Every rank also
 * reports its memory after tern_init (private RssAnon, shared RssShmem, and
 * the provider's share from tern_memory_report): the medians over ranks,
 * and the growth per added rank from the previous count, show how memory
 * scales with the job (issue 13; TERN_SHM=off or --nodes K for the network
 * and mixed configurations). */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <tern.h>

#define NOOP_TAG "TB_NOOP"
#define MEM_TAG  "TB_MEM"

/* A field of /proc/self/status in kB (0 when absent). */
static size_t status_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    size_t kb = 0, n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0)
            kb = (size_t)strtoull(line + n, NULL, 10);
    if (f)
        fclose(f);
    return kb;
}

/* The medians over the ranks of one job's MEM_TAG lines: private, shared,
 * provider bytes per rank (NaN when no rank said). */
static void job_memory(const char *out, double med[3])
{
    int cap = 0, nv = 0;
    for (const char *l = out; (l = strstr(l, MEM_TAG " ")); l++)
        cap++;
    double *v[3] = {NULL, NULL, NULL};
    for (int k = 0; k < 3 && cap; k++)
        if (!(v[k] = calloc((size_t)cap, sizeof(double))))
            tb_die("out of memory");
    for (const char *l = out; nv < cap && (l = strstr(l, MEM_TAG " ")); l++)
        if (sscanf(l, MEM_TAG " anon=%lf shmem=%lf provider=%lf", &v[0][nv], &v[1][nv],
                   &v[2][nv]) == 3)
            nv++;
    for (int k = 0; k < 3; k++) {
        tb_stats_t st;
        tb_stats_of(v[k], nv, &st); /* NaN when nv is 0 */
        med[k] = st.med;
        free(v[k]);
    }
}

int tb_noop_child(int argc, char **argv)
{
    tern_startup_report_t rep;
    int rc = tern_init(&argc, &argv, TERN_THREAD_SINGLE);
    if (rc != TERN_OK) {
        fprintf(stderr, "tern-bench _noop: tern_init failed: %s\n", tern_strerror(rc));
        return 1;
    }
    /* Every rank's memory, before anything else is allocated. */
    tern_memory_report_t mr;
    size_t prov = tern_memory_report(&mr) == TERN_OK ? mr.provider : 0;
    printf(MEM_TAG " anon=%zu shmem=%zu provider=%zu\n", status_kb("RssAnon:") * 1024,
           status_kb("RssShmem:") * 1024, prov);
    fflush(stdout);
    /* Rank 0's own view of where its start-up went. */
    if (tern_rank() == 0 && tern_startup_report(&rep) == TERN_OK) {
        printf(NOOP_TAG " t_total=%.6f t_boot=%.6f t_segment=%.6f "
                        "t_faultin=%.6f t_crossmap=%.6f segment=%zu\n",
               rep.t_total, rep.t_boot, rep.t_segment, rep.t_faultin, rep.t_crossmap,
               rep.segment_size);
        fflush(stdout);
    }
    rc = tern_finalize();
    return rc == TERN_OK ? 0 : 1;
}

typedef struct su_side {
    double *t;
    int nt;
    char fail[300];
} su_side_t;

/* One job; for Tern's, also rank 0's init time, the segment size and the
 * time from launch until every rank finished tern_init (ternrun says it
 * with TERN_VERBOSE=1: *all_s). */
static void su_trial(su_side_t *s, char *const argv[], char *const env[], double *init_s,
                     double *all_s, size_t *segment, double mem[3])
{
    static char out[1 << 20]; /* a line or two per rank, up to 4096 ranks */
    double el;
    if (s->fail[0])
        return;
    int st = tb_run_child(argv, env, out, sizeof out, &el);
    if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        char *nl;
        /* Keep the first lines of what it said: ternrun names the cause. */
        snprintf(s->fail, sizeof s->fail, "exit status %d: %.250s",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1, out);
        while ((nl = strchr(s->fail, '\n')))
            *nl = ' ';
        return;
    }
    if (init_s) {
        const char *l = strstr(out, NOOP_TAG " t_total=");
        *init_s = l ? atof(l + strlen(NOOP_TAG " t_total=")) : NAN;
        const char *g = l ? strstr(l, " segment=") : NULL;
        if (g)
            *segment = (size_t)strtoull(g + strlen(" segment="), NULL, 10);
        const char *a = strstr(out, "ranks finished start-up ");
        *all_s = a ? atof(a + strlen("ranks finished start-up ")) / 1e3 : NAN;
        job_memory(out, mem);
    }
    s->t[s->nt++] = el;
}

static int startup_run(tb_opts_t *o, tb_job_t *job)
{
    char ternrun[4096], nbuf[16], nodes_opt[] = "--nodes", nodes_arg[16];
    snprintf(nodes_arg, sizeof nodes_arg, "%d", o->nodes);
    double prev_n = NAN, prev_mem[3] = {NAN, NAN, NAN}; /* the previous count's row */
    if (tb_find_ternrun(ternrun, sizeof ternrun) != 0)
        tb_die("cannot find ternrun next to %s or in PATH; set "
               "TB_TERNRUN=/path/to/ternrun",
               tb_self_exe());
    char *canon = realpath(ternrun, NULL);
    if (canon) {
        snprintf(ternrun, sizeof ternrun, "%s", canon);
        free(canon);
    }
    tb_plain_header(o, "the same ternrun launching N copies of /bin/true "
                       "(processes without Tern); tern-raw is Tern's part");
    tb_note(o, "memory per rank after tern_init, median over ranks: private (RssAnon), "
               "shared (RssShmem), the provider's share (tern_memory_report); B/+rk: "
               "growth per rank added since the previous count");
    tb_note(o, "ternrun: %s; segment size per rank: %s", ternrun,
            getenv("TERN_SEGMENT_SIZE") ? getenv("TERN_SEGMENT_SIZE")
                                        : "library default");
    if (!o->json)
        printf(
            "# %6s %10s %-19s %10s %-19s %10s %8s %12s %10s %10s %9s %10s %13s %9s %9s "
            "%9s %11s %11s\n",
            "ranks", "tern s", "  p10..p90", "raw s", "  p10..p90", "tern-raw",
            "tern/raw", "rank0 init s", "all init s", "fault-in s", "floor s",
            "tern/floor", "init/fault-in", "priv KiB", "shm KiB", "prov KiB",
            "priv B/+rk", "shm B/+rk");
    /* ternrun reports when the last rank finished tern_init (level 1). */
    static const char *const verbose[] = {"TERN_VERBOSE=1"};
    char **verbose_env = tb_env_with(verbose, 1);
    if (!verbose_env)
        tb_die("out of memory");
    int rc = 0;
    for (int k = 0; k < o->nranks; k++) {
        int n = o->ranks[k];
        snprintf(nbuf, sizeof nbuf, "%d", n);
        /* --nodes K: the same ternrun option on both sides. */
        char *tern_argv[] = {ternrun,   "-n",      nbuf,
                             nodes_opt, nodes_arg, (char *)tb_self_exe(),
                             "_noop",   NULL};
        char *raw_argv[] = {ternrun, "-n", nbuf, nodes_opt, nodes_arg, "/bin/true", NULL};
        if (o->nodes <= 1) { /* drop the pair */
            memmove(tern_argv + 3, tern_argv + 5, 3 * sizeof *tern_argv);
            memmove(raw_argv + 3, raw_argv + 5, 2 * sizeof *raw_argv);
        }
        su_side_t t = {0}, r = {0};
        double *init = calloc((size_t)o->trials, sizeof(double));
        double *all_init = calloc((size_t)o->trials, sizeof(double));
        int nall = 0;
        /* Fault-in alone, and fault-in + release: the job gives its
         * segments back before ternrun returns. */
        double *fl_in = calloc((size_t)o->trials, sizeof(double));
        double *fl_all = calloc((size_t)o->trials, sizeof(double));
        int nfloor = 0, floor_threads = 0;
        t.t = calloc((size_t)o->trials, sizeof(double));
        r.t = calloc((size_t)o->trials, sizeof(double));
        if (!init || !all_init || !fl_in || !fl_all || !t.t || !r.t)
            tb_die("out of memory");
        int ninit = 0;
        /* Per trial, the medians over ranks of private, shared, provider. */
        double *mem[3];
        int nmem[3] = {0, 0, 0};
        for (int q = 0; q < 3; q++)
            if (!(mem[q] = calloc((size_t)o->trials, sizeof(double))))
                tb_die("out of memory");
        size_t segment = 0; /* per rank, as rank 0 reports it */
        for (int tr = -o->warmup; tr < o->trials; tr++) {
            /* Alternate which side goes first, as in every other bench. */
            for (int side = 0; side < 2; side++) {
                int is_raw = side ^ (tr & 1);
                int before = is_raw ? r.nt : t.nt;
                double i0 = NAN, a0 = NAN, m0[3] = {NAN, NAN, NAN};
                if (is_raw)
                    su_trial(&r, raw_argv, NULL, NULL, NULL, NULL, NULL);
                else
                    su_trial(&t, tern_argv, verbose_env, &i0, &a0, &segment, m0);
                if (tr < 0) { /* warm-up: forget it */
                    if (is_raw && r.nt > before)
                        r.nt--;
                    if (!is_raw && t.nt > before)
                        t.nt--;
                } else if (!is_raw && t.nt > before) {
                    if (!isnan(i0))
                        init[ninit++] = i0;
                    if (!isnan(a0))
                        all_init[nall++] = a0;
                    for (int q = 0; q < 3; q++)
                        if (!isnan(m0[q]))
                            mem[q][nmem[q]++] = m0[q];
                }
            }
            /* The segment size is known once a Tern trial has run. */
            if (tr >= 0 && segment) {
                tb_floor_t f;
                if (tb_faultin_floor((size_t)n * segment, &f) == 0) {
                    floor_threads = f.threads;
                    fl_in[nfloor] = f.faultin_s;
                    fl_all[nfloor++] = f.faultin_s + f.release_s;
                }
            }
        }
        tb_row_t row = {.bench = "startup", .op = "ternrun", .unit = TB_UNIT_NS};
        tb_stats_t si, sf, sfi, sa;
        tb_stats_of(all_init, nall, &sa);
        tb_stats_of(fl_in, nfloor, &sfi);
        tb_stats_of(fl_all, nfloor, &sf);
        tb_stats_of(t.t, t.nt, &row.tern);
        tb_stats_of(r.t, r.nt, &row.raw);
        tb_stats_of(init, ninit, &si);
        /* Memory per rank, and its growth per rank added since the
         * previous count (bytes). */
        double mm[3], slope[3];
        for (int q = 0; q < 3; q++) {
            tb_stats_t sm;
            tb_stats_of(mem[q], nmem[q], &sm);
            mm[q] = sm.med;
            slope[q] = (mm[q] - prev_mem[q]) / (n - prev_n);
            prev_mem[q] = mm[q];
            free(mem[q]);
        }
        prev_n = n;
        if (t.fail[0]) {
            fprintf(stderr,
                    "tern-bench startup: ternrun -n %d tern-bench _noop failed: %s\n", n,
                    t.fail);
            rc = 1;
        }
        if (r.fail[0])
            tb_warn("ternrun -n %d /bin/true failed, no baseline: %s", n, r.fail);
        if (o->json) {
            tb_json_t j;
            tb_json_begin(&j);
            tb_json_str(&j, "bench", "startup");
            tb_json_str(&j, "op", "ternrun");
            tb_json_int(&j, "size", (long long)segment); /* segment per rank */
            tb_json_int(&j, "ranks", n);
            tb_json_num(&j, "value", row.tern.med);
            tb_json_str(&j, "unit", "s");
            tb_json_num(&j, "p10", row.tern.p10);
            tb_json_num(&j, "p90", row.tern.p90);
            tb_json_num(&j, "baseline", row.raw.med);
            tb_json_num(&j, "baseline_p10", row.raw.p10);
            tb_json_num(&j, "baseline_p90", row.raw.p90);
            tb_json_num(&j, "overhead", row.tern.med - row.raw.med);
            tb_json_num(&j, "ratio", row.tern.med / row.raw.med);
            tb_json_num(&j, "rank0_init", si.med);
            tb_json_num(&j, "all_init", sa.med);
            tb_json_num(&j, "all_init_faultin_ratio", sa.med / sfi.med);
            tb_json_num(&j, "floor_faultin", sfi.med);
            tb_json_num(&j, "floor", sf.med);
            tb_json_num(&j, "floor_ratio", row.tern.med / sf.med);
            tb_json_int(&j, "floor_threads", floor_threads);
            tb_json_int(&j, "nodes", o->nodes > 1 ? o->nodes : 1);
            tb_json_num(&j, "mem_private", mm[0]);
            tb_json_num(&j, "mem_shared", mm[1]);
            tb_json_num(&j, "mem_provider", mm[2]);
            tb_json_num(&j, "mem_private_per_added_rank", slope[0]);
            tb_json_num(&j, "mem_shared_per_added_rank", slope[1]);
            tb_json_str(&j, "better", "lower");
            tb_json_int(&j, "trials", t.nt);
            tb_json_end(&j);
        } else {
            char a[40] = " ", b[40] = " ";
            if (t.nt)
                snprintf(a, sizeof a, "(%.3f..%.3f)", row.tern.p10, row.tern.p90);
            if (r.nt)
                snprintf(b, sizeof b, "(%.3f..%.3f)", row.raw.p10, row.raw.p90);
            char v[10][32];
            double f[10] = {row.tern.med,
                            row.raw.med,
                            row.tern.med - row.raw.med,
                            row.tern.med / row.raw.med,
                            si.med,
                            sa.med,
                            sfi.med,
                            sf.med,
                            row.tern.med / sf.med,
                            sa.med / sfi.med};
            for (int q = 0; q < 10; q++)
                snprintf(v[q], sizeof v[q], isnan(f[q]) ? "n/a" : "%.3f", f[q]);
            char w[5][32];
            double g[5] = {mm[0] / 1024, mm[1] / 1024, mm[2] / 1024, slope[0], slope[1]};
            for (int q = 0; q < 5; q++)
                snprintf(w[q], sizeof w[q], isnan(g[q]) ? "n/a" : "%.0f", g[q]);
            printf(
                "%8d %10s %-19s %10s %-19s %10s %8s %12s %10s %10s %9s %10s %13s %9s %9s "
                "%9s %11s %11s\n",
                n, v[0], a, v[1], b, v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], w[0],
                w[1], w[2], w[3], w[4]);
            fflush(stdout);
        }
        free(init);
        free(all_init);
        free(fl_in);
        free(fl_all);
        free(t.t);
        free(r.t);
    }
    tb_env_free(verbose_env);
    return rc;
}

static void startup_defaults(tb_opts_t *o)
{
    o->ranks[0] = 2;
    o->ranks[1] = 16;
    o->nranks = 2;
    o->trials = 5;
    o->warmup = 1;
}

const tb_bench_t tb_bench_startup = {
    .name = "startup",
    .help = "wall time of ternrun -n N with tern_init vs /bin/true (--ranks, default "
            "2,16; no ternrun)",
    .with_tern = 0,
    .defaults = startup_defaults,
    .run = startup_run,
};
