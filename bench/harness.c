/* Harness core: option parsing, size lists, statistics, and the trial
 * runner that interleaves Tern loops with their raw baselines. */
#include "harness.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tern.h>

const tb_stats_t tb_stats_none = {NAN, NAN, NAN};

int tb_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || v < 0)
        return -1;
    double mul = 1;
    switch (toupper((unsigned char)*end)) {
    case 'K':
        mul = 1024.0;
        end++;
        break;
    case 'M':
        mul = 1024.0 * 1024;
        end++;
        break;
    case 'G':
        mul = 1024.0 * 1024 * 1024;
        end++;
        break;
    case 'T':
        mul = 1024.0 * 1024 * 1024 * 1024;
        end++;
        break;
    default: break;
    }
    if (toupper((unsigned char)*end) == 'I') /* accept KiB, MiB */
        end++;
    if (toupper((unsigned char)*end) == 'B')
        end++;
    if (*end != '\0')
        return -1;
    *out = (size_t)(v * mul + 0.5);
    return 0;
}

const char *tb_size_str(size_t n, char *buf, size_t len)
{
    static const char units[] = "KMGT";
    int u = -1;
    size_t v = n;
    while (v >= 1024 && v % 1024 == 0 && u < 3) {
        v /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, len, "%zu", n);
    else
        snprintf(buf, len, "%zu%c", v, units[u]);
    return buf;
}

static int parse_sizes(tb_opts_t *o, const char *arg)
{
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", arg);
    char *colon = strchr(tmp, ':');
    o->nsizes = 0;
    if (colon) {
        size_t a, b;
        *colon = '\0';
        if (tb_parse_size(tmp, &a) || tb_parse_size(colon + 1, &b) || a == 0 || b < a)
            return -1;
        for (size_t s = a; s <= b && o->nsizes < TB_MAX_SIZES; s *= 2)
            o->sizes[o->nsizes++] = s;
        return 0;
    }
    for (char *tok = strtok(tmp, ","); tok; tok = strtok(NULL, ",")) {
        size_t s;
        if (tb_parse_size(tok, &s) || s == 0 || o->nsizes >= TB_MAX_SIZES)
            return -1;
        o->sizes[o->nsizes++] = s;
    }
    return o->nsizes > 0 ? 0 : -1;
}

static int parse_ranks(tb_opts_t *o, const char *arg)
{
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", arg);
    o->nranks = 0;
    for (char *tok = strtok(tmp, ","); tok; tok = strtok(NULL, ",")) {
        char *end;
        long n = strtol(tok, &end, 10);
        if (*end || n < 1 || n > 4096 || o->nranks >= TB_MAX_RANKS_LIST)
            return -1;
        o->ranks[o->nranks++] = (int)n;
    }
    return o->nranks > 0 ? 0 : -1;
}

static int parse_long(const char *s, long min, long *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end); /* accepts 1e6 */
    if (end == s || *end || errno || v < (double)min || v > 1e15)
        return -1;
    *out = (long)v;
    return 0;
}

volatile uint64_t tb_read_sink;

int tb_opts_parse(tb_opts_t *o, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        int bad = 0;
        if (!strcmp(a, "--json")) {
            o->json = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "tern-bench: unknown option or missing value: %s\n", a);
            return -1;
        }
        if (!strcmp(a, "--sizes")) {
            bad = parse_sizes(o, v);
        } else if (!strcmp(a, "--iters")) {
            bad = parse_long(v, 1, &o->iters);
            o->iters_given = 1;
        } else if (!strcmp(a, "--trials")) {
            bad = parse_long(v, 1, &n);
            o->trials = (int)n;
            o->trials_given = 1;
        } else if (!strcmp(a, "--warmup")) {
            bad = parse_long(v, 0, &n);
            o->warmup = (int)n;
            o->warmup_given = 1;
        } else if (!strcmp(a, "--window")) {
            bad = parse_long(v, 1, &n);
            o->window = (int)n;
            o->window_given = 1;
        } else if (!strcmp(a, "--row-time")) {
            char *end;
            o->row_time = strtod(v, &end);
            bad = end == v || *end || !(o->row_time > 0 && o->row_time <= 3600);
        } else if (!strcmp(a, "--size")) {
            bad = tb_parse_size(v, &o->size) || o->size == 0;
            o->size_given = 1;
        } else if (!strcmp(a, "--nodes")) {
            bad = parse_long(v, 1, &n) || n > 4096;
            o->nodes = (int)n;
        } else if (!strcmp(a, "--peer")) {
            bad = parse_long(v, 1, &n) || n > 4095;
            o->peer = (int)n;
        } else if (!strcmp(a, "--ranks")) {
            bad = parse_ranks(o, v);
            o->ranks_given = 1;
        } else if (!strcmp(a, "--rows")) {
            o->rows = v;
            bad = !*v;
        } else {
            fprintf(stderr, "tern-bench: unknown option %s (see tern-bench --help)\n", a);
            return -1;
        }
        if (bad) {
            fprintf(stderr, "tern-bench: bad value for %s: '%s'\n", a, v);
            return -1;
        }
        i++;
    }
    return 0;
}

int tb_row_wanted(const tb_opts_t *o, const char *op)
{
    if (!o->rows)
        return 1;
    size_t n = strlen(op);
    for (const char *p = o->rows; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && !strncmp(p, op, n))
            return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

void tb_rows_check(const tb_opts_t *o, const char *bench, const char *const *names,
                   size_t n)
{
    for (const char *p = o->rows ? o->rows : ""; *p;) {
        size_t len = strcspn(p, ","), i = 0;
        while (i < n && (strlen(names[i]) != len || strncmp(p, names[i], len)))
            i++;
        if (i == n)
            tb_die("--rows: %s has no row '%.*s'", bench, (int)len, p);
        p += len + (p[len] == ',');
    }
}

void tb_sizes_default(tb_opts_t *o, size_t min, size_t max)
{
    if (o->nsizes > 0)
        return;
    for (size_t s = min; s <= max && o->nsizes < TB_MAX_SIZES; s *= 2)
        o->sizes[o->nsizes++] = s;
}

size_t tb_sizes_max(const tb_opts_t *o)
{
    size_t m = 0;
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] > m)
            m = o->sizes[i];
    return m;
}

long tb_ops_for(const tb_opts_t *o, size_t n, size_t budget_bytes)
{
    long ops = (long)(budget_bytes / (n ? n : 1));
    if (ops > o->iters)
        ops = o->iters;
    return ops < 1 ? 1 : ops;
}

/* ---- statistics ---------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between closest ranks (the "R-7" definition). */
static double quantile(const double *v, int n, double q)
{
    double pos = q * (n - 1);
    int lo = (int)pos;
    int hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

void tb_stats_of(double *v, int n, tb_stats_t *out)
{
    if (n <= 0) {
        *out = tb_stats_none;
        return;
    }
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    out->med = quantile(v, n, 0.5);
    out->p10 = quantile(v, n, 0.1);
    out->p90 = quantile(v, n, 0.9);
}

const char *tb_unit_name(tb_unit_t u)
{
    switch (u) {
    case TB_UNIT_NS: return "ns";
    case TB_UNIT_HALF_NS: return "ns";
    case TB_UNIT_MBPS: return "MB/s";
    case TB_UNIT_MMSGS: return "Mmsg/s";
    case TB_UNIT_MS: return "ms";
    }
    return "?";
}

int tb_unit_higher_better(tb_unit_t u)
{
    return u == TB_UNIT_MBPS || u == TB_UNIT_MMSGS;
}

static double convert(tb_unit_t u, uint64_t ns, long ops, double bytes)
{
    double per_op = (double)ns / (double)ops;
    switch (u) {
    case TB_UNIT_NS: return per_op;
    case TB_UNIT_HALF_NS: return per_op / 2;
    case TB_UNIT_MBPS: return bytes / per_op * 1e3; /* bytes/ns = GB/s */
    case TB_UNIT_MMSGS: return 1e3 / per_op;
    case TB_UNIT_MS: return per_op / 1e6;
    }
    return NAN;
}

/* ---- trial runner ---------------------------------------------------------- */

/* Rank 0's v, on every rank: rank 0 writes it into a symmetric word of
 * each rank between two barriers (the first keeps it from overwriting a
 * value not yet read). Collective. */
static long agree_long(long v)
{
    static long *word;
    if (!word)
        TB_CHECK(tern_alloc_sym(64, (void **)&word));
    TB_CHECK(tern_barrier());
    if (tern_rank() == 0)
        for (int r = 0; r < tern_size(); r++)
            TB_CHECK(tern_put(r, tern_sym_addr(r, word), &v, sizeof v, 0));
    TB_CHECK(tern_barrier());
    return *word;
}

long tb_agree_min(long v)
{
    long *all;
    int n = tern_size();
    TB_CHECK(tern_alloc_sym((size_t)n * sizeof(long), (void **)&all));
    TB_CHECK(tern_put(0, tern_sym_addr(0, &all[tern_rank()]), &v, sizeof v, 0));
    TB_CHECK(tern_barrier());
    long m = v;
    if (tern_rank() == 0)
        for (int r = 0; r < n; r++)
            m = all[r] < m ? all[r] : m;
    m = agree_long(m);
    TB_CHECK(tern_free_sym(all));
    return m;
}

#define TB_CAL_START 16
#define TB_CAL_NS    2000000.0 /* a calibration call this long is trusted */

long tb_ops_bounded(const tb_opts_t *o, tb_loop_fn loop, void *ctx, long cap, int nloops,
                    int collective)
{
    if (cap < 1)
        cap = 1;
    long n = cap < TB_CAL_START ? cap : TB_CAL_START;
    double ns;
    for (;;) {
        if (collective)
            TB_CHECK(tern_barrier());
        ns = (double)loop(ctx, n);
        long more = ns < TB_CAL_NS && n < cap;
        if (collective)
            more = agree_long(more);
        if (!more)
            break;
        n = n > cap / 4 ? cap : n * 4;
    }
    double per_op = ns / (double)n;
    double calls = (double)(o->warmup + o->trials) * (nloops > 0 ? nloops : 1);
    double fit = o->row_time * 1e9 / calls / (per_op > 1 ? per_op : 1);
    long ops = fit >= (double)cap ? cap : fit < 1 ? 1 : (long)fit;
    return collective ? agree_long(ops) : ops;
}

void tb_measure_pair(const tb_opts_t *o, tb_loop_fn tern, tb_loop_fn raw, void *ctx,
                     long ops, tb_unit_t unit, double bytes_per_op, int collective,
                     tb_stats_t *vt, tb_stats_t *vr)
{
    int n = o->trials;
    double *t = calloc((size_t)n, sizeof *t);
    double *r = calloc((size_t)n, sizeof *r);
    if (!t || !r)
        tb_die("out of memory for %d trials", n);
    for (int i = -o->warmup; i < n; i++) {
        /* Alternate the order so that neither side always runs on a cache
         * or frequency state the other one left behind. */
        for (int k = 0; k < 2; k++) {
            int is_raw = (k ^ (i & 1)) != 0;
            tb_loop_fn fn = is_raw ? raw : tern;
            if (!fn)
                continue;
            if (collective)
                TB_CHECK(tern_barrier());
            uint64_t ns = fn(ctx, ops);
            if (ns == 0)
                ns = 1;
            if (i >= 0)
                (is_raw ? r : t)[i] = convert(unit, ns, ops, bytes_per_op);
        }
    }
    tb_stats_of(t, n, vt);
    if (raw)
        tb_stats_of(r, n, vr);
    else
        *vr = tb_stats_none;
    free(t);
    free(r);
}

void *tb_alloc_local(size_t n)
{
    void *p = NULL;
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    if (posix_memalign(&p, pg, n ? n : 1))
        tb_die("cannot allocate %zu bytes of local memory", n);
    /* Touch every page now so that no trial pays the first-touch faults. */
    memset(p, 0x5a, n);
    return p;
}

void tb_die(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (tern_initialized()) {
        char full[600];
        snprintf(full, sizeof full, "tern-bench: %s", msg);
        tern_abort(2, full);
    }
    fprintf(stderr, "tern-bench: %s\n", msg);
    exit(2);
}
