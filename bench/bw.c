/* put_bw, get_bw: bandwidth of windows of nbi puts/gets, each closed by
 * tern_nbi_sync(TERN_SYNC_REMOTE) so every byte counted has landed, against
 * a raw memcpy loop of the same sizes into the same destination. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>

#define BW_BUDGET (128u << 20) /* bytes per trial */
#define BW_WINDOW 64           /* default operations between syncs */

typedef struct bw_ctx {
    int peer;
    char *remote, *mapped, *local;
    size_t n;
    int window;
    int rc;
} bw_ctx_t;

/* One "op" of the timed loops is a whole window. */
static uint64_t put_tern(void *ctx, long ops)
{
    bw_ctx_t *c = ctx;
    int peer = c->peer, w = c->window, rc = 0;
    size_t n = c->n;
    char *dst = c->remote;
    const char *src = c->local;
    uint64_t t0 = tb_now_ns();
    for (long i = 0; i < ops; i++) {
        for (int k = 0; k < w; k++) {
            rc |= tern_put_nbi(peer, dst, src, n, 0);
            TB_COMPILER_BARRIER();
        }
        rc |= tern_nbi_sync(TERN_SYNC_REMOTE);
    }
    uint64_t ns = tb_now_ns() - t0;
    c->rc |= rc;
    return ns;
}

static uint64_t get_tern(void *ctx, long ops)
{
    bw_ctx_t *c = ctx;
    int peer = c->peer, w = c->window, rc = 0;
    size_t n = c->n;
    const char *src = c->remote;
    char *dst = c->local;
    uint64_t t0 = tb_now_ns();
    for (long i = 0; i < ops; i++) {
        for (int k = 0; k < w; k++) {
            rc |= tern_get_nbi(dst, peer, src, n, 0);
            TB_COMPILER_BARRIER();
        }
        rc |= tern_nbi_sync(TERN_SYNC_REMOTE);
    }
    uint64_t ns = tb_now_ns() - t0;
    c->rc |= rc;
    return ns;
}

static uint64_t raw_loop(char *dst, const char *src, size_t n, int w, long ops)
{
    uint64_t t0 = tb_now_ns();
    for (long i = 0; i < ops; i++)
        for (int k = 0; k < w; k++) {
            memcpy(dst, src, n);
            TB_COMPILER_BARRIER();
        }
    return tb_now_ns() - t0;
}

static uint64_t put_raw(void *ctx, long ops)
{
    bw_ctx_t *c = ctx;
    return raw_loop(c->mapped, c->local, c->n, c->window, ops);
}

static uint64_t get_raw(void *ctx, long ops)
{
    bw_ctx_t *c = ctx;
    return raw_loop(c->local, c->mapped, c->n, c->window, ops);
}

void tb_bw_row(const tb_opts_t *o, const tb_job_t *job, void *sym, int get, size_t n,
               tb_row_t *row)
{
    static char *local;
    static size_t local_len;
    if (local_len < n) {
        free(local);
        local = tb_alloc_local(n);
        local_len = n;
    }
    bw_ctx_t c = {
        .peer = job->peer,
        .remote = tern_sym_addr(job->peer, sym),
        .local = local,
        .n = n,
    };
    if (!c.remote)
        tb_die("tern_sym_addr(%d) returned NULL", job->peer);
    c.mapped = tern_ptr(job->peer, c.remote);

    /* A window never holds more than the trial's budget; --iters caps the
     * operations of a trial. */
    long msgs = tb_ops_for(o, n, BW_BUDGET);
    c.window = o->window < msgs ? o->window : (int)msgs;
    long windows = msgs / c.window;
    if (windows < 1)
        windows = 1;
    tb_loop_fn tern = get ? get_tern : put_tern;
    tb_loop_fn raw = c.mapped ? (get ? get_raw : put_raw) : NULL;
    windows = tb_ops_bounded(o, tern, &c, windows, raw ? 2 : 1, 0);

    tb_measure_pair(o, tern, raw, &c, windows, TB_UNIT_MBPS, (double)n * c.window, 0,
                    &row->tern, &row->raw);
    if (c.rc != TERN_OK)
        tb_die("%s of %zu bytes with rank %d failed: %d (%s)",
               get ? "tern_get_nbi" : "tern_put_nbi", n, job->peer, c.rc,
               tern_strerror(c.rc));
    row->bench = get ? "get_bw" : "put_bw";
    row->op = get ? "get_nbi" : "put_nbi";
    row->size = n;
    row->unit = TB_UNIT_MBPS;
    row->ops = windows * c.window;
}

static void bw_defaults(tb_opts_t *o)
{
    o->iters = 1000000;
    o->trials = 9;
    o->warmup = 1;
    o->window = BW_WINDOW;
}

static size_t bw_need(const tb_opts_t *o)
{
    return tb_sizes_max(o);
}

static int bw_run(tb_opts_t *o, tb_job_t *job, int get)
{
    void *sym;
    size_t max = tb_sizes_max(o);
    TB_CHECK(tern_alloc_sym(max, &sym));
    memset(sym, 0, max);
    TB_CHECK(tern_barrier());
    if (job->rank == 0) {
        tb_note(o,
                "window %d operations, then tern_nbi_sync(TERN_SYNC_REMOTE); "
                "MB/s = 1e6 bytes/s",
                o->window);
        tb_table_head(o, TB_UNIT_MBPS);
    }
    for (int i = 0; i < o->nsizes; i++) {
        if (job->rank == 0) {
            tb_row_t row;
            tb_bw_row(o, job, sym, get, o->sizes[i], &row);
            tb_row_print(o, job, &row);
        }
        TB_CHECK(tern_barrier());
    }
    TB_CHECK(tern_free_sym(sym));
    return 0;
}

static int put_bw_run(tb_opts_t *o, tb_job_t *job)
{
    return bw_run(o, job, 0);
}
static int get_bw_run(tb_opts_t *o, tb_job_t *job)
{
    return bw_run(o, job, 1);
}

const tb_bench_t tb_bench_put_bw = {
    .name = "put_bw",
    .help = "nbi put bandwidth to remote completion, 4 KiB..64 MiB, vs raw memcpy",
    .with_tern = 1,
    .min_size = 4096,
    .max_size = 64u << 20,
    .baseline = "memcpy loop of the same sizes from the same source into the "
                "same destination through tern_ptr(1, remote)",
    .defaults = bw_defaults,
    .segment_need = bw_need,
    .run = put_bw_run,
};

const tb_bench_t tb_bench_get_bw = {
    .name = "get_bw",
    .help = "nbi get bandwidth to completion, 4 KiB..64 MiB, vs raw memcpy",
    .with_tern = 1,
    .min_size = 4096,
    .max_size = 64u << 20,
    .baseline = "memcpy loop of the same sizes from the same remote source "
                "through tern_ptr(1, remote) into the same local destination",
    .defaults = bw_defaults,
    .segment_need = bw_need,
    .run = get_bw_run,
};
