/* copy: the copy curve of this machine through Tern - puts of 64 B to
 * 128 MiB from private memory into the rank's own segment with regular
 * copies (TERN_SHM_TOPO=off), non-temporal ones (on) and Tern's choice
 * (auto), each in its own single-rank process, the three taking turns
 * round after round; with the threshold Tern measured for them and where
 * the two curves measured here cross. */
#include "topo_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <tern.h>
#include <tern/topo.h>

#define COPY_BUDGET (64u << 20) /* bytes per timed sample at least */
#define NMODES      3
static const char *const modes[NMODES] = {"off", "on", "auto"};

/* ---- the child: one mode, every size ---------------------------------------- */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int tb_copy_child(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: tern-bench _copy SIZES REPEATS\n");
        return 2;
    }
    size_t sizes[TB_MAX_SIZES];
    int ns = 0, reps = atoi(argv[2]);
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", argv[1]);
    for (char *t = strtok(tmp, ","); t && ns < TB_MAX_SIZES; t = strtok(NULL, ","))
        sizes[ns++] = (size_t)strtoull(t, NULL, 10);
    size_t max = 0;
    for (int i = 0; i < ns; i++)
        max = sizes[i] > max ? sizes[i] : max;
    int rc = tern_init(NULL, NULL, TERN_THREAD_SINGLE);
    if (rc != TERN_OK) {
        printf(TBT_TAG " error=%d\n", rc);
        return 3;
    }
    char *dst;
    TB_CHECK(tern_alloc_sym(max, (void **)&dst));
    char *src = tb_alloc_local(max);
    memset(dst, 1, max);
    tern_copy_info_t ci;
    TB_CHECK(tern_copy_info(0, &ci));
    printf(TBT_TAG " info mode=%s isa=%s nt_put=%zu hot=%zu cold=%zu islands=%llu\n",
           ci.mode, ci.isa, ci.nt_put, ci.hot, ci.cold, ci.nt_islands);
    double *v = calloc((size_t)(reps > 0 ? reps : 1), sizeof *v);
    for (int i = 0; i < ns; i++) {
        size_t n = sizes[i];
        long ops = (long)(COPY_BUDGET / n);
        if (ops < 2)
            ops = 2;
        if (ops > 1000000)
            ops = 1000000;
        /* warm-up: the destination's state is this mode's steady state */
        for (long k = 0; k < (ops < 4 ? 1 : ops / 4); k++) {
            TB_CHECK(tern_put(0, dst, src, n, 0));
            TB_COMPILER_BARRIER();
        }
        for (int r = 0; r < reps; r++) {
            uint64_t t0 = tb_now_ns();
            for (long k = 0; k < ops; k++) {
                TB_CHECK(tern_put(0, dst, src, n, 0));
                TB_COMPILER_BARRIER();
            }
            uint64_t ns_ = tb_now_ns() - t0;
            v[r] = (double)n * (double)ops / (double)(ns_ ? ns_ : 1) * 1e3; /* MB/s */
        }
        qsort(v, (size_t)reps, sizeof *v, cmp_d);
        printf(TBT_TAG " copy size=%zu mbps=%.3f\n", n, v[reps - 1]); /* the best */
        fflush(stdout);
    }
    free(v);
    free(src);
    TB_CHECK(tern_free_sym(dst));
    tern_finalize();
    return 0;
}

/* ---- the parent ------------------------------------------------------------------ */

typedef struct copy_res {
    double *v[NMODES][TB_MAX_SIZES]; /* per round */
    int nv[NMODES][TB_MAX_SIZES];
    size_t nt_put, hot, cold;
    unsigned long long islands;
    char isa[16];
    char fail[400];
} copy_res_t;

static void sizes_csv(const tb_opts_t *o, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < o->nsizes && off + 24 < len; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%zu", i ? "," : "", o->sizes[i]);
}

static int run_round(const tb_opts_t *o, int round, copy_res_t *res, int keep)
{
    char csv[1024], seg[64], reps[16];
    sizes_csv(o, csv, sizeof csv);
    size_t max = tb_sizes_max(o);
    snprintf(seg, sizeof seg, "TERN_SEGMENT_SIZE=%zu", max + (8u << 20));
    snprintf(reps, sizeof reps, "3");
    static char out[1 << 16];
    for (int k = 0; k < NMODES; k++) {
        int m = (k + round) % NMODES; /* each mode goes first in turn */
        char mode[32];
        snprintf(mode, sizeof mode, "TERN_SHM_TOPO=%s", modes[m]);
        const char *sets[] = {seg, mode};
        char *argv[] = {(char *)tb_self_exe(), "_copy", csv, reps, NULL};
        int st = tbt_run(argv, sets, 2, NULL, out, sizeof out);
        if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            char why[300];
            tbt_why(out, why, sizeof why);
            snprintf(res->fail, sizeof res->fail, "TERN_SHM_TOPO=%s: %s", modes[m], why);
            return -1;
        }
        char line[512];
        size_t pos = 0;
        if (m == 2 && tbt_next(out, " info ", &pos, line, sizeof line)) {
            res->nt_put = (size_t)tbt_num(line, "nt_put");
            res->hot = (size_t)tbt_num(line, "hot");
            res->cold = (size_t)tbt_num(line, "cold");
            res->islands = (unsigned long long)tbt_num(line, "islands");
            tbt_str(line, "isa", res->isa, sizeof res->isa);
        }
        pos = 0;
        while (tbt_next(out, " copy ", &pos, line, sizeof line)) {
            size_t n = (size_t)tbt_num(line, "size");
            for (int i = 0; i < o->nsizes; i++)
                if (o->sizes[i] == n && keep)
                    res->v[m][i][res->nv[m][i]++] = tbt_num(line, "mbps");
        }
    }
    return 0;
}

static const char *thr_str(size_t v, char *buf, size_t len)
{
    if (v == (size_t)-1)
        snprintf(buf, len, "never");
    else
        tb_size_str(v, buf, len);
    return buf;
}

static int copy_run(tb_opts_t *o, tb_job_t *job)
{
    (void)job;
    copy_res_t res;
    memset(&res, 0, sizeof res);
    for (int m = 0; m < NMODES; m++)
        for (int i = 0; i < o->nsizes; i++)
            res.v[m][i] = calloc((size_t)o->trials, sizeof(double));
    tb_plain_header(o, "regular copies (TERN_SHM_TOPO=off) of the same sizes, same run; "
                       "ratio = MB/s / regular MB/s");
    tb_note(o,
            "tern_put into the rank's own segment from private memory, one "
            "single-rank process per mode and round, %d rounds (+%d warm-up), modes "
            "in turn; each process: the best of 3 samples of >= 64 MiB per size (other "
            "jobs on the machine only ever slow a sample down)",
            o->trials, o->warmup);
    for (int r = -o->warmup; r < o->trials; r++)
        if (run_round(o, r + o->warmup, &res, r >= 0) != 0) {
            fprintf(stderr, "tern-bench copy: %s\n", res.fail);
            return 1;
        }
    tb_stats_t st[NMODES][TB_MAX_SIZES];
    for (int m = 0; m < NMODES; m++)
        for (int i = 0; i < o->nsizes; i++)
            tb_stats_of(res.v[m][i], res.nv[m][i], &st[m][i]);
    /* where the curves measured here cross: from there on nt is faster */
    int cross = o->nsizes;
    while (cross > 0 && st[1][cross - 1].med > st[0][cross - 1].med)
        cross--;
    char a[32], b[32], c[32];
    char isl[128] = "";
    for (int k = 0, off = 0; k < 64; k++)
        if (res.islands >> k & 1)
            off += snprintf(isl + off, sizeof isl - (size_t)off, "%s%s",
                            off ? ", " : "; and from ",
                            tb_size_str((size_t)1 << k, a, sizeof a));
    if (isl[0])
        snprintf(isl + strlen(isl), sizeof isl - strlen(isl), " to twice that");
    tb_note(o,
            "Tern's threshold for these copies (TERN_SHM_TOPO=auto, %s kernel): "
            "non-temporal from %s%s (calibration: %s with the destination in cache, %s "
            "with it elsewhere)",
            res.isa, thr_str(res.nt_put, a, sizeof a), isl, thr_str(res.hot, b, sizeof b),
            thr_str(res.cold, c, sizeof c));
    if (cross == o->nsizes)
        tb_note(o,
                "measured here: the non-temporal copy is not faster at the largest size");
    else if (cross == 0)
        tb_note(o, "measured here: the non-temporal copy is faster at every size");
    else
        tb_note(
            o, "measured here: the non-temporal copy is faster from %s on (slower at %s)",
            tb_size_str(o->sizes[cross], a, sizeof a),
            tb_size_str(o->sizes[cross - 1], b, sizeof b));
    if (!o->json)
        printf("# %9s %10s %-21s %10s %-21s %10s %-21s %5s %7s %9s\n", "size", "reg MB/s",
               "  p10..p90", "nt MB/s", "  p10..p90", "auto MB/s", "  p10..p90", "auto",
               "faster", "auto/best");
    int worst = -1;
    double worst_r = 2;
    for (int i = 0; i < o->nsizes; i++) {
        size_t n = o->sizes[i];
        double best = fmax(st[0][i].med, st[1][i].med);
        double vs = st[2][i].med / best;
        int island = (res.islands >> (63 - __builtin_clzll((unsigned long long)n))) & 1;
        const char *uses = n >= res.nt_put || island ? "nt" : "reg";
        const char *faster = st[1][i].med > st[0][i].med ? "nt" : "reg";
        if (vs < worst_r) {
            worst_r = vs;
            worst = i;
        }
        if (o->json) {
            for (int m = 0; m < NMODES; m++) {
                tb_json_t j;
                tb_json_begin(&j);
                tb_json_str(&j, "bench", "copy");
                tb_json_str(&j, "op", m == 0 ? "regular" : m == 1 ? "nt" : "auto");
                tb_json_int(&j, "size", (long long)n);
                tb_json_num(&j, "value", st[m][i].med);
                tb_json_str(&j, "unit", "MB/s");
                tb_json_num(&j, "p10", st[m][i].p10);
                tb_json_num(&j, "p90", st[m][i].p90);
                tb_json_num(&j, "baseline", st[0][i].med);
                tb_json_num(&j, "ratio", st[m][i].med / st[0][i].med);
                tb_json_str(&j, "better", "higher");
                tb_json_int(&j, "trials", res.nv[m][i]);
                if (m == 2) {
                    tb_json_str(&j, "uses", uses);
                    tb_json_num(&j, "vs_best", vs);
                    tb_json_int(&j, "threshold",
                                res.nt_put == (size_t)-1 ? -1 : (long long)res.nt_put);
                    tb_json_int(&j, "islands", (long long)res.islands);
                }
                tb_json_end(&j);
            }
            continue;
        }
        char v[3][32], rg[3][48];
        for (int m = 0; m < NMODES; m++) {
            snprintf(v[m], sizeof v[m], "%.0f", st[m][i].med);
            snprintf(rg[m], sizeof rg[m], "(%.0f..%.0f)", st[m][i].p10, st[m][i].p90);
        }
        int switch_here =
            (n >= res.nt_put && (i == 0 || o->sizes[i - 1] < res.nt_put)) || island;
        printf("%11s %10s %-21s %10s %-21s %10s %-21s %5s %7s %8.3f%s%s\n",
               tb_size_str(n, a, sizeof a), v[0], rg[0], v[1], rg[1], v[2], rg[2], uses,
               faster, vs, vs < 0.98 ? " <2%" : "", switch_here ? "  <- threshold" : "");
    }
    if (worst >= 0)
        tb_note(o,
                "auto vs the better of regular and non-temporal: worst %.3f at %s "
                "(goal: >= 0.98 at every size)",
                worst_r, tb_size_str(o->sizes[worst], a, sizeof a));
    for (int m = 0; m < NMODES; m++)
        for (int i = 0; i < o->nsizes; i++)
            free(res.v[m][i]);
    return 0;
}

static void copy_defaults(tb_opts_t *o)
{
    o->trials = 5;
    o->warmup = 1;
}

const tb_bench_t tb_bench_copy = {
    .name = "copy",
    .help = "copy curve: regular vs non-temporal vs auto puts to self, 64 B..128 MiB, "
            "with Tern's threshold (no ternrun)",
    .with_tern = 0,
    .min_size = 64,
    .max_size = 128u << 20,
    .defaults = copy_defaults,
    .run = copy_run,
};
