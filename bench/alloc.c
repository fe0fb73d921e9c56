/* alloc: cost of tern_alloc and tern_free with N live objects (random
 * sizes, random free order), against glibc malloc and free running the
 * same sequence of calls in the same run. One process; no peer needed. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>

#define ALLOC_MIN      16u /* object sizes are uniform in [ALLOC_MIN, ALLOC_MAX] */
#define ALLOC_MAX      4096u
#define ALLOC_SEED     0x7e41a11c5eedull
#define ALLOC_TRIAL_NS 20000000ull /* aim of one trial (slower side): 20 ms */
#define ALLOC_CAL_OPS  256         /* operations per calibration call */

/* One side (Tern or glibc): its live objects and its own copy of the
 * random stream, so that both sides make exactly the same calls. */
typedef struct alloc_side {
    void **obj;    /* obj[i]: live object in slot i */
    uint32_t *len; /* len[i]: its size */
    uint32_t *idx; /* a permutation of the slots: victims are drawn from it */
    uint64_t rng;
    void *(*alloc)(size_t);
    void (*free)(void *);
} alloc_side_t;

typedef struct alloc_ctx {
    size_t live;  /* N: live objects between batches */
    size_t batch; /* most frees (then allocations) in one batch */
    uint32_t *victim;
    size_t *size;
    alloc_side_t tern, raw;
    int timed_free; /* the loops time the frees (1) or the allocations (0) */
} alloc_ctx_t;

static void *tern_alloc_fn(size_t n)
{
    return tern_alloc(n);
}

static void tern_free_fn(void *p)
{
    int rc = tern_free(p);
    if (rc != TERN_OK)
        tb_die("tern_free(%p) returned %d (%s)", p, rc, tern_strerror(rc));
}

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static size_t random_size(uint64_t *s)
{
    return ALLOC_MIN + (size_t)(xorshift(s) % (ALLOC_MAX - ALLOC_MIN + 1));
}

static void *must_alloc(alloc_side_t *d, size_t n)
{
    void *p = d->alloc(n);
    if (!p)
        tb_die("%s(%zu) failed: the segment is too small for this run (raise "
               "TERN_SEGMENT_SIZE or lower --sizes)",
               d->alloc == tern_alloc_fn ? "tern_alloc" : "malloc", n);
    return p;
}

static void side_fill(alloc_ctx_t *c, alloc_side_t *d, void *(*a)(size_t),
                      void (*f)(void *))
{
    d->alloc = a;
    d->free = f;
    d->rng = ALLOC_SEED;
    d->obj = malloc(c->live * sizeof *d->obj);
    d->idx = malloc(c->live * sizeof *d->idx);
    d->len = malloc(c->live * sizeof *d->len);
    if (!d->obj || !d->idx || !d->len)
        tb_die("out of memory for %zu live objects", c->live);
    for (size_t i = 0; i < c->live; i++) {
        d->idx[i] = (uint32_t)i;
        d->len[i] = (uint32_t)random_size(&d->rng);
        d->obj[i] = must_alloc(d, d->len[i]);
    }
}

static void side_empty(alloc_ctx_t *c, alloc_side_t *d)
{
    for (size_t i = 0; i < c->live; i++)
        d->free(d->obj[i]);
    free(d->obj);
    free(d->idx);
    free(d->len);
}

/* One batch: draw n distinct victims (a partial Fisher-Yates shuffle of
 * idx, so the free order is random) and the sizes of their replacements;
 * free the victims, then allocate the replacements. Only one of the two
 * phases is timed; drawing the pattern never is. */
static uint64_t side_batch(alloc_ctx_t *c, alloc_side_t *d, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t j = i + (size_t)(xorshift(&d->rng) % (c->live - i));
        uint32_t t = d->idx[i];
        d->idx[i] = d->idx[j];
        d->idx[j] = t;
        c->victim[i] = d->idx[i];
        c->size[i] = random_size(&d->rng);
    }
    void **obj = d->obj;
    const uint32_t *v = c->victim;
    const size_t *sz = c->size;
    uint64_t t0 = tb_now_ns(), t1;
    if (c->timed_free) {
        for (size_t i = 0; i < n; i++)
            d->free(obj[v[i]]);
        t1 = tb_now_ns();
        for (size_t i = 0; i < n; i++)
            obj[v[i]] = must_alloc(d, sz[i]);
        for (size_t i = 0; i < n; i++)
            d->len[v[i]] = (uint32_t)sz[i];
        return t1 - t0;
    }
    for (size_t i = 0; i < n; i++)
        d->free(obj[v[i]]);
    t0 = tb_now_ns();
    for (size_t i = 0; i < n; i++)
        obj[v[i]] = must_alloc(d, sz[i]);
    t1 = tb_now_ns();
    for (size_t i = 0; i < n; i++)
        d->len[v[i]] = (uint32_t)sz[i];
    return t1 - t0;
}

/* Footprint: the address range the live objects span over the bytes they
 * hold (1.0 would be perfect packing; glibc adds its 8 B header and 16 B
 * alignment, Tern rounds to 64 B). */
static double side_span(const alloc_ctx_t *c, const alloc_side_t *d)
{
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    double bytes = 0;
    for (size_t i = 0; i < c->live; i++) {
        uintptr_t p = (uintptr_t)d->obj[i];
        lo = p < lo ? p : lo;
        hi = p + d->len[i] > hi ? p + d->len[i] : hi;
        bytes += d->len[i];
    }
    return (double)(hi - lo) / bytes;
}

static uint64_t side_loop(alloc_ctx_t *c, alloc_side_t *d, long ops)
{
    uint64_t ns = 0;
    for (size_t left = (size_t)ops; left;) {
        size_t n = left < c->batch ? left : c->batch;
        ns += side_batch(c, d, n);
        left -= n;
    }
    return ns;
}

static uint64_t loop_tern(void *ctx, long ops)
{
    alloc_ctx_t *c = ctx;
    return side_loop(c, &c->tern, ops);
}

static uint64_t loop_raw(void *ctx, long ops)
{
    alloc_ctx_t *c = ctx;
    return side_loop(c, &c->raw, ops);
}

/* Operations per trial such that the slower side's trial takes about
 * ALLOC_TRIAL_NS, from the fastest of three calibration calls per side (a
 * call that another process interrupted would make the trials too short):
 * keeps every row time-bounded whatever the allocator's cost. */
static long ops_for_row(const tb_opts_t *o, alloc_ctx_t *c)
{
    long cal = ALLOC_CAL_OPS;
    uint64_t t = UINT64_MAX, r = UINT64_MAX;
    for (int k = 0; k < 3; k++) {
        uint64_t x = loop_tern(c, cal), y = loop_raw(c, cal);
        t = x < t ? x : t;
        r = y < r ? y : r;
    }
    double per_op = (double)(t > r ? t : r) / (double)cal;
    long ops = (long)((double)ALLOC_TRIAL_NS / (per_op > 1 ? per_op : 1));
    if (ops > o->iters)
        ops = o->iters;
    return ops < 16 ? 16 : ops;
}

static void alloc_row(const tb_opts_t *o, alloc_ctx_t *c, int timed_free, tb_row_t *row)
{
    c->timed_free = timed_free;
    long ops = ops_for_row(o, c);
    tb_measure_pair(o, loop_tern, loop_raw, c, ops, TB_UNIT_NS, 0, 0, &row->tern,
                    &row->raw);
    row->bench = "alloc";
    row->op = timed_free ? "free" : "alloc";
    row->size = ALLOC_MAX;
    row->unit = TB_UNIT_NS;
    row->ops = ops;
}

static void row_print(const tb_opts_t *o, const tb_job_t *job, const alloc_ctx_t *c,
                      const tb_row_t *r)
{
    double span = side_span(c, &c->tern), raw_span = side_span(c, &c->raw);
    if (o->json) {
        tb_json_t extra;
        tb_json_begin(&extra);
        tb_json_int(&extra, "live", (long long)c->live);
        tb_json_int(&extra, "min_size", ALLOC_MIN);
        tb_json_int(&extra, "batch", (long long)c->batch);
        tb_json_num(&extra, "span", span);
        tb_json_num(&extra, "baseline_span", raw_span);
        tb_row_json(o, job, r, &extra);
        return;
    }
    printf("%9zu %-6s %9.1f (%7.1f..%7.1f) %9.1f (%7.1f..%7.1f) %9.2f %9ld %6.2f %6.2f\n",
           c->live, r->op, r->tern.med, r->tern.p10, r->tern.p90, r->raw.med, r->raw.p10,
           r->raw.p90, r->tern.med / r->raw.med, r->ops, span, raw_span);
    fflush(stdout);
}

static void alloc_defaults(tb_opts_t *o)
{
    o->sizes[0] = 1000;
    o->sizes[1] = 10000;
    o->sizes[2] = 100000;
    o->nsizes = 3;
    o->iters = 1000000;
    o->trials = 11;
    o->warmup = 1;
}

/* The worst case: every live object of the largest size, 64-byte rounded,
 * plus what one batch may hold while it is being replaced. */
static size_t alloc_need(const tb_opts_t *o)
{
    return tb_sizes_max(o) * (ALLOC_MAX + 64) * 5 / 4;
}

static int alloc_run(tb_opts_t *o, tb_job_t *job)
{
    if (job->rank != 0)
        return 0; /* one process measures; others have nothing to do */
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] < 16 || o->sizes[i] > UINT32_MAX)
            tb_die("--sizes gives live object counts here; %zu is not in "
                   "[16, 2^32)",
                   o->sizes[i]);
    tb_note(o,
            "live objects N from --sizes; sizes uniform in %u..%u B; per trial, "
            "batches of at most N/8 random victims are freed then replaced by "
            "new random sizes (only the frees, or only the allocations, timed); "
            "ns per call, median over trials; span: address range of the live "
            "objects after the row over their bytes (footprint, 1.00 is perfect)",
            ALLOC_MIN, ALLOC_MAX);
    if (!o->json) {
        printf("# %7s %-6s %9s %-19s %9s %-19s %9s %9s %6s %6s\n", "live", "op",
               "tern ns", "  p10..p90", "glibc ns", "  p10..p90", "tern/raw", "ops",
               "span", "glibc");
        fflush(stdout);
    }
    for (int i = 0; i < o->nsizes; i++) {
        alloc_ctx_t c = {.live = o->sizes[i]};
        c.batch = c.live / 8;
        c.victim = malloc(c.batch * sizeof *c.victim);
        c.size = malloc(c.batch * sizeof *c.size);
        if (!c.victim || !c.size)
            tb_die("out of memory for a batch of %zu", c.batch);
        side_fill(&c, &c.tern, tern_alloc_fn, tern_free_fn);
        side_fill(&c, &c.raw, malloc, free);
        for (int timed_free = 1; timed_free >= 0; timed_free--) {
            tb_row_t row;
            alloc_row(o, &c, timed_free, &row);
            row_print(o, job, &c, &row);
        }
        side_empty(&c, &c.tern);
        side_empty(&c, &c.raw);
        free(c.victim);
        free(c.size);
    }
    return 0;
}

const tb_bench_t tb_bench_alloc = {
    .name = "alloc",
    .help = "tern_alloc/tern_free with 10^3..10^5 live objects vs glibc malloc/free",
    .with_tern = 1,
    .min_ranks = 1,
    .baseline = "glibc malloc/free making the same calls (same sizes, same free "
                "order) in the same process",
    .defaults = alloc_defaults,
    .segment_need = alloc_need,
    .run = alloc_run,
};
