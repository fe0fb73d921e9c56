/* stream: STREAM triad (a = b + s*c) over arrays in each rank's segment,
 * with 1 and 2 ranks, after the segment was faulted in three ways:
 * interleaved (TERN_SEGMENT_NUMA=interleave, parallel fault-in: Tern's
 * default), serial (firsttouch, one thread touches everything: the pages
 * follow it) and local (each rank's own domain, parallel) - with the
 * start-up time each way costs and the page placement read back. Each
 * case is its own ternrun job; the cases take turns round after round. */
#include "topo_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <tern.h>

#define NWAYS 3
static const char *const ways[NWAYS] = {"interleaved", "serial", "local"};
static const char *const way_numa[NWAYS] = {"interleave", "firsttouch", "local"};
static const char *const way_faultin[NWAYS] = {"parallel", "serial", "parallel"};
#define TRIAD_ITERS 10
#define SLOT        256

/* ---- the child: every rank runs the triad on its own segment ------------- */

int tb_stream_child(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    int rc = tern_init(NULL, NULL, TERN_THREAD_SINGLE);
    if (rc != TERN_OK) {
        printf(TBT_TAG " error=%d\n", rc);
        return 3;
    }
    tern_startup_report_t rep;
    TB_CHECK(tern_startup_report(&rep));
    /* three arrays filling the segment (less the harness's slot) */
    size_t bytes = (rep.segment_size - (2u << 20)) / 3 & ~(size_t)4095;
    size_t n = bytes / sizeof(double);
    char *slot;
    TB_CHECK(tern_alloc_sym(SLOT, (void **)&slot));
    double *a = tern_alloc(bytes), *b = tern_alloc(bytes), *c = tern_alloc(bytes);
    if (!a || !b || !c)
        tb_die("cannot place three arrays of %zu bytes in a %zu-byte segment", bytes,
               rep.segment_size);
    /* Stores do not move pages: where the fault-in put them, they stay. */
    for (size_t i = 0; i < n; i++) {
        a[i] = 1.0;
        b[i] = 2.0;
        c[i] = 0.5;
    }
    char where[160];
    tbt_placement(a, 3 * bytes, where, sizeof where);
    double best = 1e30;
    const double s = 3.0;
    for (int it = 0; it < TRIAD_ITERS; it++) {
        TB_CHECK(tern_barrier()); /* every rank streams at the same time */
        uint64_t t0 = tb_now_ns();
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];
        double t = (double)(tb_now_ns() - t0) * 1e-9;
        if (it > 0 && t < best) /* as STREAM: the first is a warm-up */
            best = t;
    }
    if (a[n / 2] != 2.0 + 3.0 * 0.5)
        tb_die("triad result is wrong: %g", a[n / 2]);
    snprintf(slot, SLOT, "gbps=%.4f init=%.5f faultin=%.5f threads=%d bytes=%zu numa=%s",
             3.0 * (double)bytes / best * 1e-9, rep.t_total, rep.t_faultin,
             rep.faultin_threads, bytes, where);
    for (char *p = strstr(slot, "numa="); p && *p; p++)
        if (*p == ' ')
            *p = '_'; /* one token */
    TB_CHECK(tern_barrier());
    if (tern_rank() == 0) {
        for (int r = 0; r < tern_size(); r++) {
            char theirs[SLOT];
            TB_CHECK(tern_get(theirs, r, tern_sym_addr(r, slot), SLOT, 0));
            theirs[SLOT - 1] = '\0';
            printf(TBT_TAG " rank=%d %s\n", r, theirs);
        }
        fflush(stdout);
    }
    TB_CHECK(tern_barrier());
    tern_free(a);
    tern_free(b);
    tern_free(c);
    TB_CHECK(tern_free_sym(slot));
    tern_finalize();
    return 0;
}

/* ---- the parent ------------------------------------------------------------------ */

typedef struct st_case {
    int way, ranks;
    double *gbps, *init, *faultin;
    int n, threads;
    char where[160];
    char fail[300];
} st_case_t;

static int stream_run(tb_opts_t *o, tb_job_t *job)
{
    (void)job;
    char ternrun[4096];
    if (tb_find_ternrun(ternrun, sizeof ternrun) != 0)
        tb_die("cannot find ternrun next to %s or in PATH; set TB_TERNRUN",
               tb_self_exe());
    st_case_t cs[NWAYS * 2];
    int nc = 0;
    for (int rk = 1; rk <= 2; rk++)
        for (int w = 0; w < NWAYS; w++) {
            st_case_t *c = &cs[nc++];
            memset(c, 0, sizeof *c);
            c->way = w;
            c->ranks = rk;
            c->gbps = calloc((size_t)o->trials, sizeof(double));
            c->init = calloc((size_t)o->trials, sizeof(double));
            c->faultin = calloc((size_t)o->trials, sizeof(double));
        }
    char sz[32];
    tb_plain_header(o, "the interleaved (default) fault-in with the same rank count, "
                       "same run; ratio = GB/s / its GB/s");
    tb_note(o,
            "segment %s per rank holding three arrays; triad a = b + 3c, best of %d "
            "iterations after one, all ranks at once (GB/s summed over ranks, 24 bytes "
            "per element); %d rounds (+%d warm-up), cases in turn; start-up = "
            "tern_init of the slowest rank",
            tb_size_str(o->size, sz, sizeof sz), TRIAD_ITERS - 1, o->trials, o->warmup);
    if (tbt_numa_count() == 1)
        tb_note(o, "this machine has one NUMA domain: every way puts the pages on it, "
                   "and only the fault-in time can differ");
    static char out[1 << 16];
    char seg[64];
    snprintf(seg, sizeof seg, "TERN_SEGMENT_SIZE=%zu", o->size);
    for (int r = -o->warmup; r < o->trials; r++) {
        for (int k = 0; k < nc; k++) {
            st_case_t *c = &cs[(k + r + o->warmup) % nc];
            if (c->fail[0])
                continue;
            char numa[64], fi[64], nb[8];
            snprintf(numa, sizeof numa, "TERN_SEGMENT_NUMA=%s", way_numa[c->way]);
            snprintf(fi, sizeof fi, "TERN_SEGMENT_FAULTIN=%s", way_faultin[c->way]);
            snprintf(nb, sizeof nb, "%d", c->ranks);
            const char *sets[] = {seg, numa, fi};
            char *argv[] = {ternrun, "-n", nb, (char *)tb_self_exe(), "_stream", NULL};
            int st = tbt_run(argv, sets, 3, NULL, out, sizeof out);
            if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                tbt_why(out, c->fail, sizeof c->fail);
                continue;
            }
            char line[512];
            size_t pos = 0;
            double sum = 0, init = 0, fault = 0;
            while (tbt_next(out, "rank=", &pos, line, sizeof line)) {
                sum += tbt_num(line, "gbps");
                init = fmax(init, tbt_num(line, "init"));
                fault = fmax(fault, tbt_num(line, "faultin"));
                c->threads = (int)tbt_num(line, "threads");
                if (tbt_num(line, "rank") == 0) {
                    tbt_str(line, "numa", c->where, sizeof c->where);
                    for (char *p = c->where; *p; p++)
                        if (*p == '_')
                            *p = ' ';
                }
            }
            if (r >= 0) {
                c->gbps[c->n] = sum;
                c->init[c->n] = init;
                c->faultin[c->n++] = fault;
            }
        }
    }
    if (!o->json)
        printf("# %-11s %5s %9s %-17s %9s %9s %10s %7s  %s\n", "fault-in", "ranks",
               "GB/s", "  p10..p90", "ratio", "init s", "faultin s", "threads",
               "pages of rank 0");
    int rc = 0;
    for (int k = 0; k < nc; k++) {
        st_case_t *c = &cs[k];
        tb_stats_t g, in, fa, base;
        tb_stats_of(c->gbps, c->n, &g);
        tb_stats_of(c->init, c->n, &in);
        tb_stats_of(c->faultin, c->n, &fa);
        st_case_t *b = &cs[k - c->way]; /* interleaved, same ranks */
        double tmp[64];
        memcpy(tmp, b->gbps, sizeof(double) * (size_t)(b->n < 64 ? b->n : 64));
        tb_stats_of(tmp, b->n < 64 ? b->n : 64, &base);
        if (c->fail[0] && c->way == 0)
            rc = 1;
        if (o->json) {
            tb_json_t j;
            char op[32];
            snprintf(op, sizeof op, "triad/%s", ways[c->way]);
            tb_json_begin(&j);
            tb_json_str(&j, "bench", "stream");
            tb_json_str(&j, "op", op);
            tb_json_int(&j, "size", (long long)o->size);
            tb_json_int(&j, "ranks", c->ranks);
            tb_json_num(&j, "value", c->n ? g.med : NAN);
            tb_json_str(&j, "unit", "GB/s");
            tb_json_num(&j, "p10", g.p10);
            tb_json_num(&j, "p90", g.p90);
            tb_json_num(&j, "baseline", base.med);
            tb_json_num(&j, "ratio", g.med / base.med);
            tb_json_str(&j, "better", "higher");
            tb_json_num(&j, "init_s", in.med);
            tb_json_num(&j, "faultin_s", fa.med);
            tb_json_int(&j, "threads", c->threads);
            tb_json_str(&j, "placement", c->where);
            tb_json_int(&j, "trials", c->n);
            if (!c->n)
                tb_json_str(&j, "skipped", c->fail);
            tb_json_end(&j);
            continue;
        }
        if (!c->n) {
            printf("%13s %5d   failed: %s\n", ways[c->way], c->ranks, c->fail);
            continue;
        }
        char rg[48];
        snprintf(rg, sizeof rg, "(%.2f..%.2f)", g.p10, g.p90);
        printf("%13s %5d %9.2f %-17s %9.3f %9.3f %10.3f %7d  %s\n", ways[c->way],
               c->ranks, g.med, rg, g.med / base.med, in.med, fa.med, c->threads,
               c->where);
    }
    for (int k = 0; k < nc; k++) {
        free(cs[k].gbps);
        free(cs[k].init);
        free(cs[k].faultin);
    }
    return rc;
}

static void stream_defaults(tb_opts_t *o)
{
    o->size = 768u << 20;
    o->trials = 3;
    o->warmup = 1;
}

const tb_bench_t tb_bench_stream = {
    .name = "stream",
    .help =
        "STREAM triad over the segment, 1 and 2 ranks, after interleaved/serial/local "
        "fault-in, with start-up time (--size per rank, default 768M; no ternrun)",
    .with_tern = 0,
    .defaults = stream_defaults,
    .run = stream_run,
};
