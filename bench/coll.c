/* coll: latency of the world team's collectives (barrier, broadcast from
 * rank 0, allreduce of doubles with sum, fcollect, alltoall), OSU-style:
 * a timed loop of back-to-back calls, time per call on rank 0. The
 * broadcast_all row, only when named in --rows, is the broadcast timed
 * until every rank has finished its loop (the loop, then a barrier of the
 * same library, inside the timed span): rank 0 is the root, and a root
 * that returns once its sends are buffered (MPI's) measures its own sends
 * only in the broadcast row (docs/design/collectives.md, "The 8-rank
 * rows").
 *
 * Built twice. In tern-bench the baseline is raw: the flag round trip of
 * put_pingpong between rank 0 and its peer (for the barrier) and a memcpy
 * of the bytes one rank receives (for the others). In tern-bench-mpi
 * (bench/CMakeLists.txt, when MPI is found; started with mpirun, Tern
 * boots through PMIx) the baseline is the same collective through MPI on
 * MPI_COMM_WORLD, on the same ranks and the same buffers, interleaved
 * trial by trial with Tern's. */
#include "bench.h"
#include "raw_ofi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>

#ifdef TB_MPI
#include <mpi.h>
#endif

/* The receive buffer of fcollect and alltoall is size times ranks. The
 * segment is sized before tern_init, when the job's size is not known,
 * for COLL_SIZED_RANKS ranks at the largest size (issue 11's largest
 * job: 1 MiB rows at 16 ranks; 2 x 16 MiB of buffers per rank) and at
 * least COLL_BLOCK_TOTAL; rows of a larger job that do not fit are
 * skipped with a note naming them. Until 2026-11-28 the bound was 4 MiB
 * whatever the sizes: the 1 MiB fcollect and alltoall rows at 8 ranks
 * were dropped without a word. */
#define COLL_BLOCK_TOTAL ((size_t)4 << 20)
#define COLL_SIZED_RANKS 16

/* Bytes of each of the two symmetric buffers for sizes up to m. */
static size_t coll_buf(size_t m)
{
    size_t b = m * COLL_SIZED_RANKS;
    return b > COLL_BLOCK_TOTAL ? b : COLL_BLOCK_TOTAL;
}

enum { C_BARRIER, C_BCAST, C_BCAST_ALL, C_ALLREDUCE, C_FCOLLECT, C_ALLTOALL, C_COUNT };
static const char *const c_name[C_COUNT] = {"barrier",   "broadcast", "broadcast_all",
                                            "allreduce", "fcollect",  "alltoall"};

typedef struct coll_ctx {
    int kind;
    size_t n; /* bytes per rank (per block for alltoall) */
    int nranks;
    char *a, *b;       /* symmetric, src and dest */
    char *priv;        /* private source of the memcpy baseline */
    tb_pingpong_t *pp; /* barrier baseline (tern-bench only) */
    tb_raw_ofi_t *raw; /* barrier baseline, network peer: rank 0 and peer */
    int raw_net;       /* every rank: the barrier's baseline is c->raw's */
    int rc;
} coll_ctx_t;

static uint64_t c_tern(void *ctx, long ops)
{
    coll_ctx_t *c = ctx;
    int rc = 0;
    size_t n = c->n;
    uint64_t t0 = tb_now_ns();
    for (long i = 0; i < ops; i++) {
        switch (c->kind) {
        case C_BARRIER: rc |= tern_team_barrier(TERN_TEAM_WORLD); break;
        case C_BCAST:
        case C_BCAST_ALL:
            /* In place: the root's b is the source, as MPI_Bcast's buffer
             * is (the same bytes move on both sides). */
            rc |= tern_broadcast(TERN_TEAM_WORLD, c->b, c->b, n, 0);
            break;
        case C_ALLREDUCE:
            rc |= tern_allreduce(TERN_TEAM_WORLD, c->b, c->a, n / sizeof(double),
                                 TERN_TYPE_DOUBLE, TERN_RED_SUM);
            break;
        case C_FCOLLECT: rc |= tern_fcollect(TERN_TEAM_WORLD, c->b, c->a, n); break;
        default: rc |= tern_alltoall(TERN_TEAM_WORLD, c->b, c->a, n); break;
        }
        TB_COMPILER_BARRIER();
    }
    if (c->kind == C_BCAST_ALL)
        rc |= tern_team_barrier(TERN_TEAM_WORLD);
    uint64_t ns = tb_now_ns() - t0;
    c->rc |= rc;
    return ns;
}

#ifdef TB_MPI
static uint64_t c_base(void *ctx, long ops)
{
    coll_ctx_t *c = ctx;
    int rc = 0;
    int n = (int)c->n;
    uint64_t t0 = tb_now_ns();
    for (long i = 0; i < ops; i++) {
        switch (c->kind) {
        case C_BARRIER: rc |= MPI_Barrier(MPI_COMM_WORLD); break;
        case C_BCAST:
        case C_BCAST_ALL: rc |= MPI_Bcast(c->b, n, MPI_BYTE, 0, MPI_COMM_WORLD); break;
        case C_ALLREDUCE:
            rc |= MPI_Allreduce(c->a, c->b, n / (int)sizeof(double), MPI_DOUBLE, MPI_SUM,
                                MPI_COMM_WORLD);
            break;
        case C_FCOLLECT:
            rc |= MPI_Allgather(c->a, n, MPI_BYTE, c->b, n, MPI_BYTE, MPI_COMM_WORLD);
            break;
        default:
            rc |= MPI_Alltoall(c->a, n, MPI_BYTE, c->b, n, MPI_BYTE, MPI_COMM_WORLD);
            break;
        }
        TB_COMPILER_BARRIER();
    }
    if (c->kind == C_BCAST_ALL)
        rc |= MPI_Barrier(MPI_COMM_WORLD);
    uint64_t ns = tb_now_ns() - t0;
    c->rc |= rc;
    return ns;
}
#else
/* The floor of receiving the bytes: one copy of them from private memory
 * into the segment buffer. */
static uint64_t c_base(void *ctx, long ops)
{
    coll_ctx_t *c = ctx;
    if (c->kind == C_BARRIER && c->raw_net) {
        if (!c->raw)
            return 1; /* not rank 0 or its peer */
        uint64_t t0 = tb_now_ns();
        tb_raw_ofi_flags(c->raw, ops);
        return tb_now_ns() - t0;
    }
    if (c->kind == C_BARRIER)
        return tb_pingpong_raw(c->pp, 0, ops);
    size_t bytes = c->kind >= C_FCOLLECT ? c->n * (size_t)c->nranks : c->n;
    uint64_t t0 = tb_now_ns();
    for (long i = 0; i < ops; i++) {
        memcpy(c->b, c->priv, bytes);
        TB_COMPILER_BARRIER();
    }
    return tb_now_ns() - t0;
}
#endif

static void coll_row(const tb_opts_t *o, coll_ctx_t *c, int have_base, tb_row_t *row)
{
    size_t bytes = c->kind >= C_FCOLLECT ? c->n * (size_t)c->nranks : c->n;
    long cap = tb_ops_for(o, bytes ? bytes : 8, 64u << 20);
    long ops = tb_ops_bounded(o, c_tern, c, cap, have_base ? 2 : 1, 1);
    tb_measure_pair(o, c_tern, have_base ? c_base : NULL, c, ops, TB_UNIT_NS, 0, 1,
                    &row->tern, &row->raw);
    if (c->rc != 0)
        tb_die("%s of %zu B failed: %d", c_name[c->kind], c->n, c->rc);
    row->bench = "coll";
    row->op = c_name[c->kind];
    row->size = c->n;
    row->unit = TB_UNIT_NS;
    row->ops = ops;
}

static void coll_defaults(tb_opts_t *o)
{
    o->iters = 100000;
    o->trials = 7;
    o->warmup = 1;
}

static size_t coll_need(const tb_opts_t *o)
{
    return 2 * coll_buf(tb_sizes_max(o)) + 4096;
}

static int coll_run(tb_opts_t *o, tb_job_t *job)
{
    coll_ctx_t c = {.nranks = job->size};
    size_t buf = coll_buf(tb_sizes_max(o));
    TB_CHECK(tern_alloc_sym(buf, (void **)&c.a));
    TB_CHECK(tern_alloc_sym(buf, (void **)&c.b));
    memset(c.a, 1, buf);
    memset(c.b, 0, buf);
    int have_base = 1;
#ifdef TB_MPI
    int provided;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        tb_die("MPI_Init_thread failed");
    int msize;
    MPI_Comm_size(MPI_COMM_WORLD, &msize);
    if (msize != job->size)
        tb_die("MPI sees %d ranks and Tern %d: start tern-bench-mpi with mpirun", msize,
               job->size);
    const char *what = "the same collective through MPI (MPI_COMM_WORLD, same buffers)";
#else
    c.priv = tb_alloc_local(buf);
    c.pp = job->size >= 2 ? tb_pingpong_setup(job, 64) : NULL;
    int pp_ok = c.pp && tb_pingpong_raw_ok(c.pp);
    if (c.pp && !pp_ok) { /* the peer is not mapped: libfabric's flags */
        int active = job->rank == 0 || job->rank == job->peer;
        c.raw = tb_raw_ofi_setup(job->peer, 64);
        pp_ok = c.raw_net = (int)tb_agree_min(c.raw != NULL || !active);
    }
    const char *what = "barrier: raw flag round trip of rank 0 and its peer (a network "
                       "peer: 4-byte fi_inject_write both ways, tb_raw_ofi_flags); "
                       "others: memcpy of the bytes one rank receives";
#endif
    tb_rows_check(o, "coll", c_name, C_COUNT);
    if (job->rank == 0) {
        tb_note(o,
                "time per call on rank 0 of back-to-back calls on TERN_TEAM_WORLD; "
                "allreduce: doubles, sum; fcollect/alltoall: size per rank, rows up "
                "to %zu B received per rank; baseline: %s",
                buf, what);
        tb_table_head(o, TB_UNIT_NS);
    }
    for (int kind = 0; kind < C_COUNT; kind++) {
        if (!tb_row_wanted(o, c_name[kind]) || (kind == C_BCAST_ALL && !o->rows))
            continue;
        for (int i = 0; i < (kind == C_BARRIER ? 1 : o->nsizes); i++) {
            c.kind = kind;
            c.n = kind == C_BARRIER ? 0 : o->sizes[i];
            if (kind >= C_FCOLLECT && c.n * (size_t)job->size > buf) {
                if (job->rank == 0)
                    tb_note(o,
                            "skipped: %s of %zu B at %d ranks would receive %zu B "
                            "per rank, more than the %zu B buffer sized for %d "
                            "ranks at these sizes",
                            c_name[kind], c.n, job->size, c.n * (size_t)job->size, buf,
                            COLL_SIZED_RANKS);
                continue;
            }
            if (kind == C_ALLREDUCE && c.n < sizeof(double))
                continue;
#ifndef TB_MPI
            have_base = kind == C_BARRIER ? pp_ok : 1;
#endif
            tb_row_t row;
            coll_row(o, &c, have_base, &row);
            if (job->rank == 0)
                tb_row_print(o, job, &row);
        }
    }
#ifdef TB_MPI
    MPI_Finalize();
#else
    tb_raw_ofi_teardown(c.raw);
    if (c.pp)
        tb_pingpong_teardown(c.pp);
    free(c.priv);
#endif
    TB_CHECK(tern_free_sym(c.b));
    TB_CHECK(tern_free_sym(c.a));
    return 0;
}

const tb_bench_t tb_bench_coll = {
    .name = "coll",
#ifdef TB_MPI
    .help = "collectives on the world team vs MPI's (run with mpirun)",
    .baseline = "the same collective through MPI on MPI_COMM_WORLD, same ranks and "
                "buffers, interleaved by trial",
#else
    .help = "barrier, broadcast, allreduce, fcollect, alltoall on the world team",
    .baseline = "barrier: raw flag round trip (put_pingpong's); data collectives: "
                "memcpy of the bytes one rank receives",
#endif
    .with_tern = 1,
    .min_ranks = 1,
    .min_size = 8,
    .max_size = 1u << 20,
    .defaults = coll_defaults,
    .segment_need = coll_need,
    .run = coll_run,
};
