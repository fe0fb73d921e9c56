/* vis: flood bandwidth of non-contiguous puts, as GASNet-EX's testvisperf
 * measures it: 8-byte elements spread at 25% density in the target (8
 * bytes of payload, 24 skipped) from a packed local buffer, the payload of
 * one operation from 16 B up. The same data motion is described as 1-d,
 * 3-d, 8-d and 32-d strided metadata, as an indexed list, and as a loop of
 * contiguous 8-byte puts; gets of the same elements as 1-d strided,
 * indexed and vector descriptions and as a loop of 8-byte gets; and a
 * strided accumulate of doubles (1-d) against one contiguous accumulate
 * per element. Windows of nbi operations closed by
 * tern_nbi_sync(TERN_SYNC_REMOTE). Baseline, same run: to a mapped peer a
 * hand-written copy loop over the same elements through tern_ptr (for
 * indexed, over the same address lists); to a network peer a loop of
 * tern_put_nbi (tern_get_nbi) of the same pieces; for the accumulate, on
 * any peer, the loop of tern_acc_nbi. */
#include "bench.h"
#include "vis_raw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>

#define VIS_BUDGET  (16u << 20) /* payload bytes per trial */
#define VIS_MAXELEM ((size_t)1 << 20)

enum {
    OP_S1,
    OP_S3,
    OP_S8,
    OP_S32,
    OP_INDEXED,
    OP_LOOP,
    OP_GET1,
    OP_GETLOOP,
    OP_GETIDX,
    OP_GETVEC,
    OP_ACC1,
    OP_ACCLOOP,
    NOPS
};
static const char *const op_names[NOPS] = {
    "strided_1d",  "strided_3d", "strided_8d",     "strided_32d",
    "indexed",     "put_loop",   "get_strided_1d", "get_loop",
    "get_indexed", "get_vector", "acc_strided_1d", "acc_loop"};

typedef struct vis_ctx {
    int peer, op, window;
    char *remote, *mapped, *local;
    size_t k;    /* elements per operation */
    size_t elem; /* vis_elem: bytes per element (stride 4 elem) */
    size_t levels, count[TERN_VIS_MAX_DIMS];
    ptrdiff_t ss[TERN_VIS_MAX_DIMS], ds[TERN_VIS_MAX_DIMS];
    void **dl, **ml; /* indexed: remote addresses, and as mapped here */
    const void **sl;
    tern_memvec_t *rv, *lv; /* vector gets: remote and local pieces */
    double *acc;            /* accumulate rows: the source elements */
    int rc;
} vis_ctx_t;

/* k elements (a power of two) described in levels dimensions: the element
 * index split into factors, the strides following on both sides. */
static void describe(vis_ctx_t *c, size_t levels)
{
    size_t left = c->k, se = VIS_ELEM, de = VIS_STRIDE;
    c->levels = levels;
    for (size_t d = 0; d < levels; d++) {
        /* factors of 2 spread over the dimensions; the last takes the rest */
        size_t f = d + 1 == levels ? left : left % 2 == 0 ? 2 : 1;
        if (levels <= 8 && d + 1 < levels) /* fewer levels: larger factors */
            for (f = 1; f * f * 2 <= left && f < 64 && left % (f * 2) == 0; f *= 2)
                ;
        c->count[d] = f;
        c->ss[d] = (ptrdiff_t)se;
        c->ds[d] = (ptrdiff_t)de;
        se *= f;
        de *= f;
        left /= f;
    }
}

/* The per-element loops of the network baselines and of acc_loop: one
 * contiguous call per piece. */
static inline int put_loop(const vis_ctx_t *c)
{
    int rc = 0;
    for (size_t j = 0; j < c->k; j++)
        rc |= tern_put_nbi(c->peer, c->remote + j * VIS_STRIDE, c->local + j * VIS_ELEM,
                           VIS_ELEM, 0);
    return rc;
}

static inline int get_loop(const vis_ctx_t *c)
{
    int rc = 0;
    for (size_t j = 0; j < c->k; j++)
        rc |= tern_get_nbi(c->local + j * VIS_ELEM, c->peer, c->remote + j * VIS_STRIDE,
                           VIS_ELEM, 0);
    return rc;
}

static inline int acc_loop(const vis_ctx_t *c)
{
    int rc = 0;
    for (size_t j = 0; j < c->k; j++)
        rc |= tern_acc_nbi(c->peer, c->remote + j * VIS_STRIDE, c->acc + j, 1,
                           TERN_AT_DOUBLE, NULL, 0);
    return rc;
}

/* One timed "op" is one VIS operation; every window of them, and the
 * last, ends with a sync, so that a row of huge operations can run few.
 * One loop function per operation, the call written in the loop as a
 * program writes it: a single loop calling a dispatch function per
 * operation (one_op, before) paid that function's call and its six saved
 * registers (seven stores) per operation, which the hand loop does not,
 * and a copy of 32 elements is bound by its 32 stores (about one a cycle
 * here): see docs/design/non-contiguous.md, "The bench's dispatch". The
 * window is a countdown: (i + 1) % window was a 64-bit division a call,
 * ~11 ns, which only this side paid. */
#define VIS_LOOP(name, call)                                               \
    static __attribute__((noinline)) uint64_t name(vis_ctx_t *c, long ops) \
    {                                                                      \
        int rc = 0;                                                        \
        long left = c->window;                                             \
        uint64_t t0 = tb_now_ns();                                         \
        for (long i = 0; i < ops; i++) {                                   \
            rc |= (call);                                                  \
            TB_COMPILER_BARRIER();                                         \
            if (--left == 0 || i + 1 == ops) {                             \
                rc |= tern_nbi_sync(TERN_SYNC_REMOTE);                     \
                left = c->window;                                          \
            }                                                              \
        }                                                                  \
        uint64_t ns = tb_now_ns() - t0;                                    \
        c->rc |= rc;                                                       \
        return ns;                                                         \
    }
VIS_LOOP(loop_strided, tern_put_strided_nbi(c->peer, c->remote, c->ds, c->local, c->ss,
                                            VIS_ELEM, c->count, c->levels, 0))
VIS_LOOP(loop_indexed,
         tern_put_indexed_nbi(c->peer, c->k, c->dl, VIS_ELEM, c->k, c->sl, VIS_ELEM, 0))
VIS_LOOP(loop_put, put_loop(c))
VIS_LOOP(loop_get_strided, tern_get_strided_nbi(c->local, c->ss, c->peer, c->remote,
                                                c->ds, VIS_ELEM, c->count, c->levels, 0))
VIS_LOOP(loop_get, get_loop(c))
VIS_LOOP(loop_get_indexed,
         tern_get_indexed_nbi(c->k, (void *const *)c->sl, VIS_ELEM, c->peer, c->k,
                              (const void *const *)c->dl, VIS_ELEM, 0))
VIS_LOOP(loop_get_vector, tern_get_vector_nbi(c->k, c->lv, c->peer, c->k, c->rv, 0))
VIS_LOOP(loop_acc_strided,
         tern_acc_strided_nbi(c->peer, c->remote, c->ds, c->acc, c->ss, c->count,
                              c->levels, TERN_AT_DOUBLE, NULL, 0))
VIS_LOOP(loop_acc, acc_loop(c))
#undef VIS_LOOP

static uint64_t vis_tern(void *ctx, long ops)
{
    vis_ctx_t *c = ctx;
    switch (c->op) {
    case OP_INDEXED: return loop_indexed(c, ops);
    case OP_LOOP: return loop_put(c, ops);
    case OP_GETIDX: return loop_get_indexed(c, ops);
    case OP_GETVEC: return loop_get_vector(c, ops);
    case OP_ACC1: return loop_acc_strided(c, ops);
    case OP_ACCLOOP: return loop_acc(c, ops);
    case OP_GET1: return loop_get_strided(c, ops);
    case OP_GETLOOP: return loop_get(c, ops);
    default: return loop_strided(c, ops);
    }
}

/* The hand-written loops a program would write with tern_ptr
 * (bench/vis_raw.c, compiled on its own: see there). */
static uint64_t vis_raw_copy(void *ctx, long ops)
{
    vis_ctx_t *c = ctx;
    return tb_vis_raw_put(c->mapped, c->local, c->k, ops);
}

/* A get from a mapped peer: the same loop the other way. */
static uint64_t vis_raw_copy_get(void *ctx, long ops)
{
    vis_ctx_t *c = ctx;
    return tb_vis_raw_get(c->local, c->mapped, c->k, ops);
}

/* Indexed to a mapped peer: the copy loop a program holding the same
 * address lists would write (lists translated through tern_ptr once). */
static uint64_t vis_raw_lists(void *ctx, long ops)
{
    vis_ctx_t *c = ctx;
    return tb_vis_raw_lists(c->ml, c->sl, c->k, ops);
}

static int is_get(int op)
{
    return op == OP_GET1 || op == OP_GETLOOP || op == OP_GETIDX || op == OP_GETVEC;
}

/* Network peers: the same pieces as contiguous nbi puts (gets); for
 * accumulate, on any peer, one contiguous tern_acc_nbi per element. */
static uint64_t vis_raw_loop(void *ctx, long ops)
{
    vis_ctx_t *c = ctx;
    int op = c->op;
    c->op = op == OP_ACC1 ? OP_ACCLOOP : is_get(op) ? OP_GETLOOP : OP_LOOP;
    uint64_t ns = vis_tern(ctx, ops);
    c->op = op;
    return ns;
}

static void vis_row(const tb_opts_t *o, const tb_job_t *job, void *sym, int op,
                    size_t payload, tb_row_t *row)
{
    static char *local;
    static void **dl, **ml;
    static const void **sl;
    static tern_memvec_t *rv, *lv;
    static double *acc;
    if (!local) {
        local = tb_alloc_local(VIS_MAXELEM * VIS_ELEM);
        dl = malloc(VIS_MAXELEM * sizeof(*dl));
        ml = malloc(VIS_MAXELEM * sizeof(*ml));
        sl = malloc(VIS_MAXELEM * sizeof(*sl));
        rv = malloc(VIS_MAXELEM * sizeof(*rv));
        lv = malloc(VIS_MAXELEM * sizeof(*lv));
        acc = malloc(VIS_MAXELEM * sizeof(*acc));
        if (!dl || !ml || !sl || !rv || !lv || !acc)
            tb_die("no memory for the address lists");
        for (size_t j = 0; j < VIS_MAXELEM; j++)
            acc[j] = 0.5; /* sums stay normal numbers */
        for (size_t j = 0; j < VIS_MAXELEM * VIS_ELEM; j++)
            local[j] = (char)j;
    }
    vis_ctx_t c = {.peer = job->peer,
                   .op = op,
                   .remote = tern_sym_addr(job->peer, sym),
                   .local = local,
                   .k = payload / VIS_ELEM,
                   .dl = dl,
                   .ml = ml,
                   .sl = sl,
                   .rv = rv,
                   .lv = lv,
                   .acc = acc};
    if (!c.remote)
        tb_die("tern_sym_addr(%d) returned NULL", job->peer);
    if (c.k < 1 || c.k > VIS_MAXELEM)
        tb_die("vis: payload %zu is not in [%d, %zu]", payload, VIS_ELEM,
               VIS_MAXELEM * VIS_ELEM);
    c.mapped = tern_ptr(job->peer, c.remote);
    static const size_t levels[] = {[OP_S1] = 1, [OP_S3] = 3, [OP_S8] = 8, [OP_S32] = 32};
    if (op <= OP_S32)
        describe(&c, levels[op]);
    if (op == OP_GET1 || op == OP_ACC1)
        describe(&c, 1);
    if (op == OP_INDEXED || op == OP_GETIDX || op == OP_GETVEC)
        for (size_t j = 0; j < c.k; j++) {
            dl[j] = c.remote + j * VIS_STRIDE;
            ml[j] = c.mapped ? c.mapped + j * VIS_STRIDE : NULL;
            sl[j] = local + j * VIS_ELEM;
            rv[j] = (tern_memvec_t){dl[j], VIS_ELEM};
            lv[j] = (tern_memvec_t){local + j * VIS_ELEM, VIS_ELEM};
        }
    long ops = tb_ops_for(o, payload, VIS_BUDGET);
    c.window = o->window;
    tb_loop_fn raw = !c.mapped || op == OP_ACC1 ? vis_raw_loop
                     : op == OP_INDEXED         ? vis_raw_lists
                     : is_get(op)               ? vis_raw_copy_get
                                                : vis_raw_copy;
    /* One operation first: over the network one of 64 KiB is tens of
     * milliseconds, and the harness's calibration starts at 16. */
    double one = (double)vis_tern(&c, 1) + (double)raw(&c, 1);
    double fit = o->row_time * 1e9 / (o->warmup + o->trials) / (one > 1 ? one : 1);
    if (fit < (double)ops)
        ops = fit < 1 ? 1 : (long)fit;
    ops = tb_ops_bounded(o, vis_tern, &c, ops, 2, 0);
    tb_measure_pair(o, vis_tern, raw, &c, ops, TB_UNIT_MBPS, (double)payload, 0,
                    &row->tern, &row->raw);
    if (c.rc != TERN_OK)
        tb_die("vis %s of %zu bytes with rank %d failed: %d (%s)", op_names[op], payload,
               job->peer, c.rc, tern_strerror(c.rc));
    row->bench = "vis";
    row->op = op_names[op];
    row->size = payload;
    row->unit = TB_UNIT_MBPS;
    row->ops = ops;
}

static void vis_defaults(tb_opts_t *o)
{
    o->iters = 1000000;
    o->trials = 7;
    o->warmup = 1;
    o->window = 16;
}

static size_t vis_need(const tb_opts_t *o)
{
    return tb_sizes_max(o) / VIS_ELEM * VIS_STRIDE;
}

static int vis_run(tb_opts_t *o, tb_job_t *job)
{
    void *sym;
    size_t need = vis_need(o);
    tb_rows_check(o, "vis", op_names, NOPS);
    TB_CHECK(tern_alloc_sym(need, &sym));
    memset(sym, 0, need);
    TB_CHECK(tern_barrier());
    if (job->rank == 0) {
        tb_note(o,
                "8-byte elements at 25%% density in the target (8 B payload, 24 B "
                "skipped) from a packed buffer; size = payload per operation; window "
                "%d operations, then tern_nbi_sync(TERN_SYNC_REMOTE); MB/s of payload",
                o->window);
        tb_table_head(o, TB_UNIT_MBPS);
    }
    for (int i = 0; i < o->nsizes; i++) {
        for (int op = 0; op < NOPS; op++) {
            if (!tb_row_wanted(o, op_names[op])) /* --rows: the same on every rank */
                continue;
            if (job->rank == 0) {
                tb_row_t row;
                vis_row(o, job, sym, op, o->sizes[i], &row);
                tb_row_print(o, job, &row);
            }
            TB_CHECK(tern_barrier());
        }
    }
    TB_CHECK(tern_free_sym(sym));
    return 0;
}

const tb_bench_t tb_bench_vis = {
    .name = "vis",
    .help = "strided (1/3/8/32-d) and indexed put, gets, strided accumulate, 8 B at 25% "
            "density, vs copy loop or per-piece calls",
    .with_tern = 1,
    .min_size = 16,
    .max_size = 64u << 10,
    .baseline = "mapped peer: hand-written copy loop of the same elements through "
                "tern_ptr (indexed: over the same address lists, translated once); "
                "network peer: loop of 8-byte tern_put_nbi (gets: tern_get_nbi) of the "
                "same pieces; acc_strided_1d on any peer: one tern_acc_nbi per double",
    .defaults = vis_defaults,
    .segment_need = vis_need,
    .run = vis_run,
};

/* ---- vis_elem: the piece size at which packing stops paying ------------- */

#define ELEM_PAYLOAD (64u << 10) /* payload per operation */

static uint64_t elem_tern(void *ctx, long ops)
{
    vis_ctx_t *c = ctx;
    size_t cnt[1] = {c->k};
    ptrdiff_t ss[1] = {(ptrdiff_t)c->elem}, ds[1] = {(ptrdiff_t)(4 * c->elem)};
    int rc = 0;
    long left = c->window; /* countdown, as in vis_tern */
    uint64_t t0 = tb_now_ns();
    for (long i = 0; i < ops; i++) {
        rc |= tern_put_strided_nbi(c->peer, c->remote, ds, c->local, ss, c->elem, cnt, 1,
                                   0);
        TB_COMPILER_BARRIER();
        if (--left == 0 || i + 1 == ops) {
            rc |= tern_nbi_sync(TERN_SYNC_REMOTE);
            left = c->window;
        }
    }
    uint64_t ns = tb_now_ns() - t0;
    c->rc |= rc;
    return ns;
}

/* Mapped peer: a copy loop; network peer: one tern_put_nbi per piece (the
 * per-piece RMA that packing replaces). */
static uint64_t elem_raw(void *ctx, long ops)
{
    vis_ctx_t *c = ctx;
    size_t k = c->k, e = c->elem;
    int rc = 0;
    long left = c->window;
    uint64_t t0 = tb_now_ns();
    for (long i = 0; i < ops; i++) {
        for (size_t j = 0; j < k; j++) {
            if (c->mapped)
                memcpy(c->mapped + j * 4 * e, c->local + j * e, e);
            else
                rc |=
                    tern_put_nbi(c->peer, c->remote + j * 4 * e, c->local + j * e, e, 0);
        }
        TB_COMPILER_BARRIER();
        if (!c->mapped && (--left == 0 || i + 1 == ops)) {
            rc |= tern_nbi_sync(TERN_SYNC_REMOTE);
            left = c->window;
        }
    }
    uint64_t ns = tb_now_ns() - t0;
    c->rc |= rc;
    return ns;
}

static size_t elem_payload(size_t elem)
{
    return elem > ELEM_PAYLOAD ? elem : ELEM_PAYLOAD / elem * elem;
}

static size_t elem_need(const tb_opts_t *o)
{
    return 4 * elem_payload(tb_sizes_max(o));
}

static int elem_run(tb_opts_t *o, tb_job_t *job)
{
    void *sym;
    size_t need = elem_need(o);
    char *local = tb_alloc_local(need / 4);
    TB_CHECK(tern_alloc_sym(need, &sym));
    memset(sym, 0, need);
    TB_CHECK(tern_barrier());
    if (job->rank == 0) {
        tb_note(o,
                "size = bytes per piece; pieces at 25%% density (stride 4 x size), "
                "%u KiB of payload per tern_put_strided_nbi; window %d operations, then "
                "tern_nbi_sync(TERN_SYNC_REMOTE); MB/s of payload",
                ELEM_PAYLOAD >> 10, o->window);
        tb_table_head(o, TB_UNIT_MBPS);
    }
    for (int i = 0; i < o->nsizes; i++) {
        if (job->rank == 0) {
            size_t e = o->sizes[i], payload = elem_payload(e);
            vis_ctx_t c = {.peer = job->peer,
                           .remote = tern_sym_addr(job->peer, sym),
                           .local = local,
                           .elem = e,
                           .k = payload / e,
                           .window = o->window};
            c.mapped = tern_ptr(job->peer, c.remote);
            double one = (double)elem_tern(&c, 1) + (double)elem_raw(&c, 1);
            double fit =
                o->row_time * 1e9 / (o->warmup + o->trials) / (one > 1 ? one : 1);
            long ops = tb_ops_for(o, payload, VIS_BUDGET);
            if (fit < (double)ops)
                ops = fit < 1 ? 1 : (long)fit;
            ops = tb_ops_bounded(o, elem_tern, &c, ops, 2, 0);
            tb_row_t row = {.bench = "vis_elem",
                            .op = "strided_put",
                            .size = e,
                            .unit = TB_UNIT_MBPS,
                            .ops = ops};
            tb_measure_pair(o, elem_tern, elem_raw, &c, ops, TB_UNIT_MBPS,
                            (double)payload, 0, &row.tern, &row.raw);
            if (c.rc != TERN_OK)
                tb_die("vis_elem: pieces of %zu bytes with rank %d failed: %d (%s)", e,
                       job->peer, c.rc, tern_strerror(c.rc));
            tb_row_print(o, job, &row);
        }
        TB_CHECK(tern_barrier());
    }
    TB_CHECK(tern_free_sym(sym));
    free(local);
    return 0;
}

const tb_bench_t tb_bench_vis_elem = {
    .name = "vis_elem",
    .help = "strided put by piece size (25% density): packing/choice vs per-piece puts",
    .with_tern = 1,
    .min_size = 8,
    .max_size = 16u << 10,
    .baseline = "network peer: one tern_put_nbi per piece (per-piece RMA); mapped peer: "
                "a copy loop of the same pieces through tern_ptr",
    .defaults = vis_defaults,
    .segment_need = elem_need,
    .run = elem_run,
};
