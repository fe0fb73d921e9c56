/* startup: wall time of `ternrun -n N tern-bench _noop` (tern_init and
 * tern_finalize on every rank) against the same ternrun starting N copies
 * of /bin/true; the difference is what Tern adds to a job's start. The
 * floor, measured in the same trials, is the time to fault in the job's N
 * segments' bytes of shared memory with every core of this machine and to
 * give them back (the job releases its segments before ternrun returns):
 * what no job of that size can beat (bench/floor.c). */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <tern.h>

#define NOOP_TAG "TB_NOOP"

int tb_noop_child(int argc, char **argv)
{
    tern_startup_report_t rep;
    int rc = tern_init(&argc, &argv, TERN_THREAD_SINGLE);
    if (rc != TERN_OK) {
        fprintf(stderr, "tern-bench _noop: tern_init failed: %s\n", tern_strerror(rc));
        return 1;
    }
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
                     double *all_s, size_t *segment)
{
    static char out[65536];
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
    }
    s->t[s->nt++] = el;
}

static int startup_run(tb_opts_t *o, tb_job_t *job)
{
    char ternrun[4096], nbuf[16];
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
    tb_note(o, "ternrun: %s; segment size per rank: %s", ternrun,
            getenv("TERN_SEGMENT_SIZE") ? getenv("TERN_SEGMENT_SIZE")
                                        : "library default");
    if (!o->json)
        printf("# %6s %10s %-19s %10s %-19s %10s %8s %12s %10s %10s %9s %10s %13s\n",
               "ranks", "tern s", "  p10..p90", "raw s", "  p10..p90", "tern-raw",
               "tern/raw", "rank0 init s", "all init s", "fault-in s", "floor s",
               "tern/floor", "init/fault-in");
    /* ternrun reports when the last rank finished tern_init (level 1). */
    static const char *const verbose[] = {"TERN_VERBOSE=1"};
    char **verbose_env = tb_env_with(verbose, 1);
    if (!verbose_env)
        tb_die("out of memory");
    int rc = 0;
    for (int k = 0; k < o->nranks; k++) {
        int n = o->ranks[k];
        snprintf(nbuf, sizeof nbuf, "%d", n);
        char *tern_argv[] = {ternrun, "-n", nbuf, (char *)tb_self_exe(), "_noop", NULL};
        char *raw_argv[] = {ternrun, "-n", nbuf, "/bin/true", NULL};
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
        size_t segment = 0; /* per rank, as rank 0 reports it */
        for (int tr = -o->warmup; tr < o->trials; tr++) {
            /* Alternate which side goes first, as in every other bench. */
            for (int side = 0; side < 2; side++) {
                int is_raw = side ^ (tr & 1);
                int before = is_raw ? r.nt : t.nt;
                double i0 = NAN, a0 = NAN;
                if (is_raw)
                    su_trial(&r, raw_argv, NULL, NULL, NULL, NULL);
                else
                    su_trial(&t, tern_argv, verbose_env, &i0, &a0, &segment);
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
            printf("%8d %10s %-19s %10s %-19s %10s %8s %12s %10s %10s %9s %10s %13s\n", n,
                   v[0], a, v[1], b, v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]);
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
