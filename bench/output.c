/* Harness output: the configuration header (gathered from every rank),
 * the OSU-style table and the JSON lines. Only rank 0 prints. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "harness.h"

#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tern.h>

extern char **environ;

static FILE *note_stream(const tb_opts_t *o)
{
    return o->json ? stderr : stdout;
}

void tb_note(const tb_opts_t *o, const char *fmt, ...)
{
    FILE *f = note_stream(o);
    va_list ap;
    fputs("# ", f);
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fflush(f);
}

void tb_warn(const char *fmt, ...)
{
    va_list ap;
    fputs("# WARNING: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* ---- configuration -------------------------------------------------------- */

/* "0-3,8" from an affinity mask; returns the number of CPUs in it. */
static int cpu_list(char *buf, size_t len, int *bound)
{
    cpu_set_t set;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    buf[0] = '\0';
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        snprintf(buf, len, "?");
        *bound = 0;
        return 0;
    }
    size_t off = 0;
    int count = CPU_COUNT(&set);
    for (int c = 0; c < CPU_SETSIZE && off + 16 < len; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set))
            e++;
        off += (size_t)snprintf(buf + off, len - off, "%s%d", off ? "," : "", c);
        if (e > c)
            off += (size_t)snprintf(buf + off, len - off, "-%d", e);
        c = e;
    }
    /* A process allowed on every online CPU of a multi-CPU node is not
     * bound: the scheduler may move it between trials. */
    *bound = !(online > 1 && count >= online);
    return count;
}

static void cpu_model(char *buf, size_t len)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(buf, len, "unknown CPU");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10)) {
            char *c = strchr(line, ':');
            if (c) {
                c++;
                while (*c == ' ')
                    c++;
                c[strcspn(c, "\n")] = '\0';
                snprintf(buf, len, "%s", c);
            }
            break;
        }
    }
    fclose(f);
}

#ifndef TB_COMMIT
#define TB_COMMIT "unknown"
#endif

/* TERN_* settings of this process, space-separated, without the
 * launcher's TERN_BOOT_* variables; "" when none. A segment size that
 * tern-bench chose says so. */
static void tern_env_line(const tb_opts_t *o, char *line, size_t len)
{
    size_t off = 0;
    line[0] = '\0';
    for (char **e = environ; *e; e++) {
        if (strncmp(*e, "TERN_", 5) || !strncmp(*e, "TERN_BOOT_", 10))
            continue;
        const char *mark = o->seg_chosen && !strncmp(*e, "TERN_SEGMENT_SIZE=", 18)
                               ? " (chosen by tern-bench)"
                               : "";
        if (off + strlen(*e) + strlen(mark) + 2 < len)
            off += (size_t)snprintf(line + off, len - off, "%s%s%s", off ? " " : "", *e,
                                    mark);
    }
}

/* With --json, the first line: where and from what the rows came, so that
 * a saved file keeps its provenance. */
static void provenance_json(const tb_opts_t *o, const char *host, const char *cpu,
                            const char *when)
{
    char env[1024], ver[32];
    tern_env_line(o, env, sizeof env);
    snprintf(ver, sizeof ver, "%d.%d.%d", TERN_VERSION_MAJOR, TERN_VERSION_MINOR,
             TERN_VERSION_PATCH);
    tb_json_t j;
    tb_json_begin(&j);
    tb_json_str(&j, "bench", o->sub);
    tb_json_str(&j, "record", "provenance");
    tb_json_str(&j, "host", host);
    tb_json_str(&j, "cpu", cpu);
    tb_json_int(&j, "online_cpus", sysconf(_SC_NPROCESSORS_ONLN));
    tb_json_str(&j, "tern_version", ver);
    tb_json_str(&j, "commit", TB_COMMIT);
    tb_json_str(&j, "date", when);
    tb_json_str(&j, "tern_env", env);
    tb_json_end(&j);
    fflush(stdout);
}

static void print_common(const tb_opts_t *o)
{
    char host[128] = "?", cpu[160];
    char when[64];
    time_t now = time(NULL);
    gethostname(host, sizeof host);
    host[sizeof host - 1] = '\0';
    cpu_model(cpu, sizeof cpu);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime(&now));
    tb_note(o, "tern-bench %s  (Tern %d.%d.%d, %s)", o->sub, TERN_VERSION_MAJOR,
            TERN_VERSION_MINOR, TERN_VERSION_PATCH, when);
    tb_note(o, "host %s: %s, %ld online CPUs", host, cpu, sysconf(_SC_NPROCESSORS_ONLN));
    if (o->json) {
        char iso[64];
        strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
        provenance_json(o, host, cpu, iso);
    }
}

static void print_tern_env(const tb_opts_t *o)
{
    char line[1024];
    tern_env_line(o, line, sizeof line);
    tb_note(o, "TERN_* in effect: %s", line[0] ? line : "(none: library defaults)");
}

static void print_method(const tb_opts_t *o, const char *baseline)
{
    tb_note(o,
            "method: %d trials after %d warm-up, median with p10..p90 over "
            "trials; Tern and baseline trials interleaved in the same run",
            o->trials, o->warmup);
    if (baseline)
        tb_note(o, "baseline (raw): %s", baseline);
}

#define TB_BIND_LEN 192

void tb_job_header(const tb_opts_t *o, tb_job_t *job, const char *baseline)
{
    void *base;
    size_t size;
    tern_startup_report_t rep;

    memset(job, 0, sizeof *job);
    job->rank = tern_rank();
    job->size = tern_size();
    job->nodes = tern_node_count();
    job->peer = job->size > 1 ? 1 : 0;
    if (o->peer > 0 && o->peer < job->size)
        job->peer = o->peer; /* --peer: e.g. a network peer of a mixed job */
    else if (o->peer > 0)
        tb_die("--peer %d: the job has %d ranks", o->peer, job->size);
    TB_CHECK(tern_segment_query(job->rank, &base, &size));
    job->seg_size = size;
    TB_CHECK(tern_segment_query(job->peer, &base, &size));
    job->peer_mapped = tern_ptr(job->peer, base) != NULL;
    if (tern_startup_report(&rep) == TERN_OK) {
        job->page_size = rep.page_size;
        snprintf(job->page_note, sizeof job->page_note, "%s", rep.page_note);
        snprintf(job->faultin_mode, sizeof job->faultin_mode, "%s", rep.faultin_mode);
    }

    /* Every rank publishes its binding in a symmetric slot; rank 0 reads
     * them with tern_get, so the header shows what each rank really has. */
    char mine[TB_BIND_LEN], cpus[TB_BIND_LEN - 32];
    int bound;
    int ncpu = cpu_list(cpus, sizeof cpus, &bound);
    snprintf(mine, sizeof mine, "%d %d %s", bound, ncpu, cpus);
    char *slot;
    TB_CHECK(tern_alloc_sym(TB_BIND_LEN, (void **)&slot));
    memcpy(slot, mine, sizeof mine);
    TB_CHECK(tern_barrier());

    job->all_bound = 1;
    if (job->rank == 0) {
        print_common(o);
        tb_note(o, "job: %d ranks on %d node%s; peer of rank 0 is rank %d (%s)",
                job->size, job->nodes, job->nodes == 1 ? "" : "s", job->peer,
                job->peer == 0     ? "self"
                : job->peer_mapped ? "shared memory, cross-mapped"
                                   : "not mapped");
        if (!job->peer_mapped && job->peer != 0)
            tb_note(o, "the peer is reached through the network: rows have no raw "
                       "baseline (n/a); tern-bench net compares it with raw libfabric");
        char line[1024];
        size_t off = 0;
        int single_cpu_owner[1024];
        for (int c = 0; c < 1024; c++)
            single_cpu_owner[c] = -1;
        int shared_cpu = 0;
        for (int r = 0; r < job->size; r++) {
            char theirs[TB_BIND_LEN];
            int b = 0, n = 0, pos = 0;
            TB_CHECK(tern_get(theirs, r, tern_sym_addr(r, slot), sizeof theirs, 0));
            theirs[sizeof theirs - 1] = '\0';
            sscanf(theirs, "%d %d %n", &b, &n, &pos);
            if (!b)
                job->all_bound = 0;
            if (n == 1) {
                int c = atoi(theirs + pos);
                if (c >= 0 && c < 1024) {
                    if (single_cpu_owner[c] >= 0)
                        shared_cpu = 1;
                    single_cpu_owner[c] = r;
                }
            }
            if (r < 16 && off + 64 < sizeof line)
                off += (size_t)snprintf(line + off, sizeof line - off,
                                        "%srank %d -> cpu %s%s", r ? "; " : "", r,
                                        theirs + pos, b ? "" : " (unbound)");
        }
        tb_note(o, "binding (sched_getaffinity): %s%s", line,
                job->size > 16 ? "; ..." : "");
        char sz[32], pg[32];
        tb_note(o, "segment: %s per rank (%s), page size %s%s%s, fault-in %s",
                tb_size_str(job->seg_size, sz, sizeof sz),
                o->seg_origin ? o->seg_origin : "library default",
                job->page_size ? tb_size_str(job->page_size, pg, sizeof pg) : "?",
                job->page_note[0] ? ": " : "", job->page_note,
                job->faultin_mode[0] ? job->faultin_mode : "?");
        print_tern_env(o);
        print_method(o, baseline);
        if (!job->all_bound)
            tb_warn("some ranks are not bound to CPUs: the scheduler may move "
                    "them between or during trials, so figures will be noisy. "
                    "Bind them (ternrun binding options) for stable numbers.");
        if (shared_cpu)
            tb_warn("two ranks are bound to the same CPU: they time-share it, "
                    "so ping-pong and latency figures include scheduling.");
    }
    TB_CHECK(tern_barrier());
    TB_CHECK(tern_free_sym(slot));
}

void tb_plain_header(const tb_opts_t *o, const char *baseline)
{
    char cpus[256];
    int bound;
    print_common(o);
    cpu_list(cpus, sizeof cpus, &bound);
    tb_note(o, "this process: cpus %s%s (children inherit it)", cpus,
            bound ? "" : " (unbound)");
    print_tern_env(o);
    print_method(o, baseline);
}

/* ---- table ------------------------------------------------------------------ */

static const char *fmt_val(double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "n/a");
    else if (fabs(v) < 100)
        snprintf(buf, len, "%.2f", v);
    else if (fabs(v) < 10000)
        snprintf(buf, len, "%.1f", v);
    else
        snprintf(buf, len, "%.0f", v);
    return buf;
}

static const char *fmt_range(const tb_stats_t *s, char *buf, size_t len)
{
    char a[32], b[32];
    if (isnan(s->med))
        snprintf(buf, len, " ");
    else
        snprintf(buf, len, "(%s..%s)", fmt_val(s->p10, a, sizeof a),
                 fmt_val(s->p90, b, sizeof b));
    return buf;
}

void tb_table_head(const tb_opts_t *o, tb_unit_t unit)
{
    if (o->json)
        return;
    char t[32], r[32];
    snprintf(t, sizeof t, "tern %s", tb_unit_name(unit));
    snprintf(r, sizeof r, "raw %s", tb_unit_name(unit));
    printf("# %9s %-8s %10s %-21s %10s %-21s %10s %8s\n", "size", "op", t, "  p10..p90",
           r, "  p10..p90", "tern-raw", "tern/raw");
    fflush(stdout);
}

/* With --json the rows go to a file: after a few seconds, say on stderr
 * which row is done so that a long run shows it is moving. */
static void json_progress(const tb_row_t *r)
{
    static uint64_t start;
    uint64_t now = tb_now_ns();
    if (!start)
        start = now;
    if (now - start > 3000000000ull)
        fprintf(stderr, "# %.0f s: %s %s %zu B done\n", (double)(now - start) / 1e9,
                r->bench, r->op, r->size);
}

void tb_row_print(const tb_opts_t *o, const tb_job_t *job, const tb_row_t *r)
{
    if (o->json) {
        tb_row_json(o, job, r, NULL);
        fflush(stdout);
        json_progress(r);
        return;
    }
    char a[32], b[64], c[32], d[64], e[32], f[32];
    double diff = r->tern.med - r->raw.med;
    double ratio = r->tern.med / r->raw.med;
    printf("%11zu %-8s %10s %-21s %10s %-21s %10s %8s\n", r->size, r->op,
           fmt_val(r->tern.med, a, sizeof a), fmt_range(&r->tern, b, sizeof b),
           fmt_val(r->raw.med, c, sizeof c), fmt_range(&r->raw, d, sizeof d),
           fmt_val(diff, e, sizeof e),
           isnan(ratio) ? "n/a" : (snprintf(f, sizeof f, "%.3f", ratio), f));
    fflush(stdout);
}

/* ---- JSON --------------------------------------------------------------------- */

static void json_raw(tb_json_t *j, const char *key, const char *text)
{
    if (j->len + strlen(key) + strlen(text) + 8 >= sizeof j->buf)
        return; /* rows are small; an overlong extra key is dropped */
    j->len += (size_t)snprintf(j->buf + j->len, sizeof j->buf - j->len, "%s\"%s\":%s",
                               j->n++ ? "," : "", key, text);
}

void tb_json_begin(tb_json_t *j)
{
    j->len = 0;
    j->n = 0;
    j->buf[0] = '\0';
}

void tb_json_str(tb_json_t *j, const char *key, const char *val)
{
    char esc[1200];
    size_t o = 0;
    esc[o++] = '"';
    for (const char *p = val; *p && o + 8 < sizeof esc; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '"' || ch == '\\') {
            esc[o++] = '\\';
            esc[o++] = (char)ch;
        } else if (ch < 0x20) {
            o += (size_t)snprintf(esc + o, sizeof esc - o, "\\u%04x", ch);
        } else {
            esc[o++] = (char)ch;
        }
    }
    esc[o++] = '"';
    esc[o] = '\0';
    json_raw(j, key, esc);
}

void tb_json_num(tb_json_t *j, const char *key, double val)
{
    char t[40];
    if (isnan(val) || isinf(val))
        snprintf(t, sizeof t, "null");
    else
        snprintf(t, sizeof t, "%.6g", val);
    json_raw(j, key, t);
}

void tb_json_int(tb_json_t *j, const char *key, long long val)
{
    char t[32];
    snprintf(t, sizeof t, "%lld", val);
    json_raw(j, key, t);
}

void tb_json_end(tb_json_t *j)
{
    printf("{%s}\n", j->buf);
    fflush(stdout);
}

void tb_row_json(const tb_opts_t *o, const tb_job_t *job, const tb_row_t *r,
                 tb_json_t *extra)
{
    tb_json_t j;
    tb_json_begin(&j);
    tb_json_str(&j, "bench", r->bench);
    tb_json_str(&j, "op", r->op);
    tb_json_int(&j, "size", (long long)r->size);
    tb_json_num(&j, "value", r->tern.med);
    tb_json_str(&j, "unit", tb_unit_name(r->unit));
    tb_json_num(&j, "p10", r->tern.p10);
    tb_json_num(&j, "p90", r->tern.p90);
    tb_json_num(&j, "baseline", r->raw.med);
    tb_json_num(&j, "baseline_p10", r->raw.p10);
    tb_json_num(&j, "baseline_p90", r->raw.p90);
    tb_json_num(&j, "overhead", r->tern.med - r->raw.med);
    tb_json_num(&j, "ratio", r->tern.med / r->raw.med);
    tb_json_str(&j, "better", tb_unit_higher_better(r->unit) ? "higher" : "lower");
    tb_json_int(&j, "ops", r->ops);
    tb_json_int(&j, "trials", o->trials);
    if (job) {
        tb_json_int(&j, "ranks", job->size);
        tb_json_int(&j, "nodes", job->nodes);
        json_raw(&j, "bound", job->all_bound ? "true" : "false");
    }
    if (extra && extra->len && j.len + extra->len + 2 < sizeof j.buf)
        j.len += (size_t)snprintf(j.buf + j.len, sizeof j.buf - j.len, ",%s", extra->buf);
    tb_json_end(&j);
}
