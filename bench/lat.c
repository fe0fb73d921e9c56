/* put_lat, get_lat: time per blocking and non-blocking (explicit event)
 * put or get from rank 0 to rank 1, against a raw memcpy through the
 * cross-mapped pointer tern_ptr() in the same process and the same run. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>

/* Bytes moved per trial: keeps large rows short and small rows long
 * enough (capped by --iters) that clock reads vanish in the loop. */
#define LAT_BUDGET (32u << 20)

typedef struct lat_ctx {
    int peer;
    char *remote; /* address in the peer's segment, as the peer sees it */
    char *mapped; /* the same bytes through tern_ptr, or NULL */
    char *local;  /* private memory: the other side of the copy */
    size_t n;
    int rc; /* OR of every status the loops saw */
} lat_ctx_t;

/* The loops below are written twice on purpose, once with a size known at
 * compile time (8 B, the way `tern_put(r, &x, sizeof x, 0)` compiles: a
 * single load and store) and once with a run-time size (a memcpy call).
 * Each iteration ends with the same compiler barrier in the Tern and raw
 * loops, so neither can be merged, hoisted or vectorized across
 * iterations; the Tern loop re-reads the peer table every time, as a real
 * caller would. */
#define LAT_LOOP(body)                   \
    do {                                 \
        uint64_t t0 = tb_now_ns();       \
        for (long i = 0; i < ops; i++) { \
            body;                        \
            TB_COMPILER_BARRIER();       \
        }                                \
        ns = tb_now_ns() - t0;           \
    } while (0)

static inline __attribute__((always_inline)) uint64_t put_loop(lat_ctx_t *c, size_t n,
                                                               long ops)
{
    int peer = c->peer, rc = 0;
    char *dst = c->remote;
    const char *src = c->local;
    uint64_t ns;
    LAT_LOOP(rc |= tern_put(peer, dst, src, n, 0));
    c->rc |= rc;
    return ns;
}

static inline __attribute__((always_inline)) uint64_t get_loop(lat_ctx_t *c, size_t n,
                                                               long ops)
{
    int peer = c->peer, rc = 0;
    const char *src = c->remote;
    char *dst = c->local;
    uint64_t ns;
    LAT_LOOP(rc |= tern_get(dst, peer, src, n, 0));
    c->rc |= rc;
    return ns;
}

static inline __attribute__((always_inline)) uint64_t raw_loop(char *dst, const char *src,
                                                               size_t n, long ops)
{
    uint64_t ns;
    LAT_LOOP(memcpy(dst, src, n));
    return ns;
}

static uint64_t put_tern(void *ctx, long ops)
{
    lat_ctx_t *c = ctx;
    return c->n == 8 ? put_loop(c, 8, ops) : put_loop(c, c->n, ops);
}

static uint64_t get_tern(void *ctx, long ops)
{
    lat_ctx_t *c = ctx;
    return c->n == 8 ? get_loop(c, 8, ops) : get_loop(c, c->n, ops);
}

static uint64_t put_raw(void *ctx, long ops)
{
    lat_ctx_t *c = ctx;
    return c->n == 8 ? raw_loop(c->mapped, c->local, 8, ops)
                     : raw_loop(c->mapped, c->local, c->n, ops);
}

static uint64_t get_raw(void *ctx, long ops)
{
    lat_ctx_t *c = ctx;
    return c->n == 8 ? raw_loop(c->local, c->mapped, 8, ops)
                     : raw_loop(c->local, c->mapped, c->n, ops);
}

/* Non-blocking: issue with a remote-completion event and wait for it, one
 * operation at a time, so the figure is the latency of the nb path. */
static uint64_t put_nb_tern(void *ctx, long ops)
{
    lat_ctx_t *c = ctx;
    int peer = c->peer, rc = 0;
    size_t n = c->n;
    char *dst = c->remote;
    const char *src = c->local;
    uint64_t ns;
    LAT_LOOP({
        tern_event_t ev;
        int s = tern_put_nb(peer, dst, src, n, NULL, &ev, 0);
        if (s == TERN_OK)
            s = tern_event_wait(ev);
        rc |= s;
    });
    c->rc |= rc;
    return ns;
}

static uint64_t get_nb_tern(void *ctx, long ops)
{
    lat_ctx_t *c = ctx;
    int peer = c->peer, rc = 0;
    size_t n = c->n;
    const char *src = c->remote;
    char *dst = c->local;
    uint64_t ns;
    LAT_LOOP({
        tern_event_t ev;
        int s = tern_get_nb(dst, peer, src, n, &ev, 0);
        if (s == TERN_OK)
            s = tern_event_wait(ev);
        rc |= s;
    });
    c->rc |= rc;
    return ns;
}

void tb_lat_row(const tb_opts_t *o, const tb_job_t *job, void *sym, int get, int nb,
                size_t n, tb_row_t *row)
{
    static char *local;
    static size_t local_len;
    if (local_len < n) {
        free(local);
        local = tb_alloc_local(n);
        local_len = n;
    }
    lat_ctx_t c = {
        .peer = job->peer,
        .remote = tern_sym_addr(job->peer, sym),
        .local = local,
        .n = n,
    };
    if (!c.remote)
        tb_die("tern_sym_addr(%d) returned NULL", job->peer);
    c.mapped = tern_ptr(job->peer, c.remote);
    tb_loop_fn tern = get ? (nb ? get_nb_tern : get_tern) : (nb ? put_nb_tern : put_tern);
    tb_loop_fn raw = c.mapped ? (get ? get_raw : put_raw) : NULL;
    long ops = tb_ops_bounded(o, tern, &c, tb_ops_for(o, n, LAT_BUDGET), raw ? 2 : 1, 0);

    tb_measure_pair(o, tern, raw, &c, ops, TB_UNIT_NS, (double)n, 0, &row->tern,
                    &row->raw);
    if (c.rc != TERN_OK)
        tb_die("%s of %zu bytes to rank %d failed: %d (%s)",
               get ? (nb ? "tern_get_nb" : "tern_get")
                   : (nb ? "tern_put_nb" : "tern_put"),
               n, job->peer, c.rc, tern_strerror(c.rc));
    row->bench = get ? "get_lat" : "put_lat";
    row->op = get ? (nb ? "get_nb" : "get") : (nb ? "put_nb" : "put");
    row->size = n;
    row->unit = TB_UNIT_NS;
    row->ops = ops;
}

static void lat_defaults(tb_opts_t *o)
{
    o->iters = 1000000;
    o->trials = 11;
    o->warmup = 2;
}

static size_t lat_need(const tb_opts_t *o)
{
    return tb_sizes_max(o);
}

static int lat_run(tb_opts_t *o, tb_job_t *job, int get)
{
    void *sym;
    size_t max = tb_sizes_max(o);
    TB_CHECK(tern_alloc_sym(max, &sym));
    /* Fault in and warm the peer's buffer before any trial. */
    memset(sym, 0, max);
    TB_CHECK(tern_barrier());
    if (job->rank == 0) {
        tb_note(o, "columns: time per operation; tern-raw is Tern's overhead "
                   "per operation in ns");
        tb_table_head(o, TB_UNIT_NS);
    }
    for (int i = 0; i < o->nsizes; i++) {
        if (job->rank == 0) {
            for (int nb = 0; nb < 2; nb++) {
                tb_row_t row;
                tb_lat_row(o, job, sym, get, nb, o->sizes[i], &row);
                tb_row_print(o, job, &row);
            }
        }
        TB_CHECK(tern_barrier());
    }
    TB_CHECK(tern_free_sym(sym));
    return 0;
}

static int put_lat_run(tb_opts_t *o, tb_job_t *job)
{
    return lat_run(o, job, 0);
}
static int get_lat_run(tb_opts_t *o, tb_job_t *job)
{
    return lat_run(o, job, 1);
}

const tb_bench_t tb_bench_put_lat = {
    .name = "put_lat",
    .help = "blocking and non-blocking put latency, 8 B..4 MiB, vs raw memcpy",
    .with_tern = 1,
    .min_size = 8,
    .max_size = 4u << 20,
    .baseline = "memcpy of the same bytes from the same source to the same "
                "destination through tern_ptr(1, remote) in this process",
    .defaults = lat_defaults,
    .segment_need = lat_need,
    .run = put_lat_run,
};

const tb_bench_t tb_bench_get_lat = {
    .name = "get_lat",
    .help = "blocking and non-blocking get latency, 8 B..4 MiB, vs raw memcpy",
    .with_tern = 1,
    .min_size = 8,
    .max_size = 4u << 20,
    .baseline = "memcpy of the same bytes from the same source to the same "
                "destination through tern_ptr(1, remote) in this process",
    .defaults = lat_defaults,
    .segment_need = lat_need,
    .run = get_lat_run,
};
