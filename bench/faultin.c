/* faultin: segment fault-in time, serial/parallel x 4 KiB/huge pages, each
 * trial a fresh single-rank tern-bench (_faultin_child) reporting
 * tern_startup_report(); baseline: serial 4 KiB from the same run. */
#include "bench.h"
#include "topo_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <tern.h>

#define FI_TAG "TB_FAULTIN"

int tb_faultin_child(int argc, char **argv)
{
    tern_startup_report_t rep;
    int rc = tern_init(NULL, NULL, TERN_THREAD_SINGLE);
    if (rc != TERN_OK) {
        printf(FI_TAG " error=%d %s\n", rc, tern_strerror(rc));
        return 3;
    }
    rc = tern_startup_report(&rep);
    if (rc != TERN_OK) {
        printf(FI_TAG " error=%d tern_startup_report: %s\n", rc, tern_strerror(rc));
        tern_finalize();
        return 3;
    }
    /* Where the segment's pages are, read back from the kernel (one
     * token: spaces become '_'). */
    void *base;
    size_t size;
    char where[160] = "?";
    if (tern_segment_query(tern_rank(), &base, &size) == TERN_OK)
        tbt_placement(base, size, where, sizeof where);
    for (char *p = where; *p; p++)
        if (*p == ' ')
            *p = '_';
    /* The note goes last: it is free text. */
    printf(FI_TAG " t_faultin=%.9f t_total=%.9f segment=%zu page_size=%zu "
                  "threads=%d mode=%s numa=%s note=%s\n",
           rep.t_faultin, rep.t_total, rep.segment_size, rep.page_size,
           rep.faultin_threads, rep.faultin_mode[0] ? rep.faultin_mode : "?", where,
           rep.page_note);
    fflush(stdout);
    tern_finalize();
    return 0;
}

typedef struct fi_mode {
    const char *faultin; /* TERN_SEGMENT_FAULTIN */
    const char *huge;    /* TERN_HUGEPAGES */
    double *t;           /* seconds per trial */
    int nt;
    size_t page_size;
    int threads;
    char mode[16];
    char note[256];
    char skip[512];  /* why this mode has no figures */
    char where[160]; /* pages per NUMA domain, read back */
} fi_mode_t;

/* The last line of the child's output that is not the result: the
 * library's own message about why init failed. */
static void last_log_line(const char *out, char *buf, size_t len)
{
    const char *best = NULL, *p = out;
    size_t best_len = 0;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l > 0 && strncmp(p, FI_TAG, strlen(FI_TAG))) {
            best = p;
            best_len = l;
        }
        p += l + (e ? 1 : 0);
    }
    if (best)
        snprintf(buf, len, "%.*s", (int)best_len, best);
    else
        buf[0] = '\0';
}

static void run_trial(const tb_opts_t *o, fi_mode_t *m)
{
    char seg[64], fi[64], hp[64];
    snprintf(seg, sizeof seg, "TERN_SEGMENT_SIZE=%zu", o->size);
    snprintf(fi, sizeof fi, "TERN_SEGMENT_FAULTIN=%s", m->faultin);
    snprintf(hp, sizeof hp, "TERN_HUGEPAGES=%s", m->huge);
    const char *sets[] = {seg, fi, hp};
    char **env = tb_env_with(sets, 3);
    char *argv[] = {(char *)tb_self_exe(), "_faultin_child", NULL};
    static char out[16384];
    int st = tb_run_child(argv, env, out, sizeof out, NULL);
    tb_env_free(env);

    const char *line = strstr(out, FI_TAG " ");
    double t = NAN, total;
    size_t segsz, pg;
    int thr, pos = 0;
    char mode[16] = "", where[160] = "";
    if (line &&
        sscanf(line,
               FI_TAG " t_faultin=%lf t_total=%lf segment=%zu "
                      "page_size=%zu threads=%d mode=%15s numa=%159s note=%n",
               &t, &total, &segsz, &pg, &thr, mode, where, &pos) >= 7 &&
        WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        m->t[m->nt++] = t;
        m->page_size = pg;
        m->threads = thr;
        snprintf(m->mode, sizeof m->mode, "%s", mode);
        for (char *p = where; *p; p++)
            if (*p == '_')
                *p = ' ';
        snprintf(m->where, sizeof m->where, "%s", where);
        if (pos > 0) {
            const char *note = line + pos;
            snprintf(m->note, sizeof m->note, "%.*s", (int)strcspn(note, "\n"), note);
        }
        return;
    }
    char why[400];
    last_log_line(out, why, sizeof why);
    if (line && !strncmp(line, FI_TAG " error=", strlen(FI_TAG " error=")))
        snprintf(m->skip, sizeof m->skip, "tern_init failed (%.*s)%s%s",
                 (int)strcspn(line + strlen(FI_TAG " error="), "\n"),
                 line + strlen(FI_TAG " error="), why[0] ? ": " : "", why);
    else
        snprintf(m->skip, sizeof m->skip, "child %s %d%s%s",
                 WIFSIGNALED(st) ? "killed by signal" : "exited with",
                 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), why[0] ? ": " : "",
                 why);
}

static int faultin_run(tb_opts_t *o, tb_job_t *job)
{
    fi_mode_t modes[] = {
        {.faultin = "serial", .huge = "off"},
        {.faultin = "parallel", .huge = "off"},
        {.faultin = "serial", .huge = "on"},
        {.faultin = "parallel", .huge = "on"},
    };
    const int nm = (int)(sizeof modes / sizeof modes[0]);
    char sz[32];
    tb_plain_header(o, "serial fault-in with TERN_HUGEPAGES=off (4 KiB pages), "
                       "same run; speedup = baseline seconds / seconds");
    tb_note(o,
            "segment %s (%zu bytes), one fresh single-rank process per "
            "trial, modes interleaved within each trial",
            tb_size_str(o->size, sz, sizeof sz), o->size);
    for (int i = 0; i < nm; i++) {
        modes[i].t = calloc((size_t)o->trials, sizeof(double));
        if (!modes[i].t)
            tb_die("out of memory");
    }
    for (int tr = -o->warmup; tr < o->trials; tr++) {
        for (int i = 0; i < nm; i++) {
            fi_mode_t *m = &modes[i];
            if (m->skip[0])
                continue; /* failed once: the reason will not change */
            int before = m->nt;
            run_trial(o, m);
            if (tr < 0 && m->nt > before)
                m->nt--; /* warm-up: keep nothing */
        }
    }

    tb_stats_t st[4];
    for (int i = 0; i < nm; i++)
        tb_stats_of(modes[i].t, modes[i].nt, &st[i]);
    double base = modes[0].nt ? st[0].med : NAN;
    if (!o->json)
        printf("# %-9s %-8s %9s %7s %10s %-21s %8s %8s  %s\n", "faultin", "hugepg",
               "page", "threads", "seconds", "  p10..p90", "GB/s", "speedup",
               "pages (TERN_SEGMENT_NUMA)");
    for (int i = 0; i < nm; i++) {
        fi_mode_t *m = &modes[i];
        double gbps = (double)o->size / st[i].med * 1e-9;
        double speedup = base / st[i].med;
        if (o->json) {
            tb_json_t j;
            char op[32];
            snprintf(op, sizeof op, "%s/%s", m->faultin, m->huge);
            tb_json_begin(&j);
            tb_json_str(&j, "bench", "faultin");
            tb_json_str(&j, "op", op);
            tb_json_int(&j, "size", (long long)o->size);
            tb_json_num(&j, "value", m->nt ? st[i].med : NAN);
            tb_json_str(&j, "unit", "s");
            tb_json_num(&j, "p10", m->nt ? st[i].p10 : NAN);
            tb_json_num(&j, "p90", m->nt ? st[i].p90 : NAN);
            tb_json_num(&j, "baseline", base);
            tb_json_num(&j, "ratio", m->nt ? st[i].med / base : NAN);
            tb_json_num(&j, "speedup", m->nt ? speedup : NAN);
            tb_json_num(&j, "gbps", m->nt ? gbps : NAN);
            tb_json_str(&j, "better", "lower");
            tb_json_int(&j, "page_size", (long long)m->page_size);
            tb_json_int(&j, "threads", m->threads);
            tb_json_int(&j, "trials", m->nt);
            tb_json_str(&j, "note", m->note);
            tb_json_str(&j, "placement", m->where);
            if (!m->nt)
                tb_json_str(&j, "skipped", m->skip);
            tb_json_end(&j);
            continue;
        }
        if (!m->nt) {
            printf("%11s %-8s   skipped: %s\n", m->faultin, m->huge, m->skip);
            continue;
        }
        char pg[32], a[32], b[32];
        snprintf(a, sizeof a, "(%.3f..%.3f)", st[i].p10, st[i].p90);
        snprintf(b, sizeof b, "%.2f", speedup);
        printf("%11s %-8s %9s %7d %10.3f %-21s %8.2f %8s  %s\n", m->faultin, m->huge,
               tb_size_str(m->page_size, pg, sizeof pg), m->threads, st[i].med, a, gbps,
               isnan(speedup) ? "n/a" : b, m->where);
    }
    if (!o->json)
        for (int i = 0; i < nm; i++)
            if (modes[i].nt && modes[i].note[0])
                tb_note(o, "%s/%s pages: %s", modes[i].faultin, modes[i].huge,
                        modes[i].note);
    int ok = modes[0].nt > 0 && modes[1].nt > 0;
    for (int i = 0; i < nm; i++)
        free(modes[i].t);
    if (!ok)
        fprintf(stderr, "tern-bench faultin: the 4 KiB modes must run: %s\n",
                modes[0].nt ? modes[1].skip : modes[0].skip);
    return ok ? 0 : 1;
}

static void faultin_defaults(tb_opts_t *o)
{
    o->size = 1ull << 30;
    o->trials = 3;
    o->warmup = 1; /* the first process to touch the memory pays extra */
}

const tb_bench_t tb_bench_faultin = {
    .name = "faultin",
    .help = "segment fault-in time, serial/parallel x 4 KiB/huge pages (--size, default "
            "1G; no ternrun)",
    .with_tern = 0,
    .defaults = faultin_defaults,
    .run = faultin_run,
};
