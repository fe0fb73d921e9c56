/* am_sched: what TERN_FLAG_IMMEDIATE buys a sender facing slow receivers
 * (the experiment of GASNet-EX's testimm). Rank 0 sends M Medium Requests
 * of 4 KiB to every other rank; the receivers alternate 500 us sleeps with
 * one poll each. Static schedule: for each block of b messages, each
 * receiver in turn gets its b messages with blocking sends (a send waits
 * while that receiver's queue or credits are full). Dynamic schedule:
 * the same blocks and order, but sends are IMMEDIATE; on a refusal the
 * sender polls once and retries once, then moves on to the next receiver
 * and comes back to this one later. Block sizes 1, 5 and M. The row is the
 * time of one whole schedule until every receiver has handled its M
 * messages: dynamic in the Tern column, static in the baseline column, so
 * 1 - tern/raw is the reduction. */
#include "bench.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tern.h>

enum { H_DATA = 230, H_DONE = 231 };
#define SCHED_MSG   4096u
#define SCHED_SLEEP 500000L /* ns between a receiver's polls */

typedef struct sched_ctx {
    int me, n;
    long m;            /* messages per receiver */
    long block;        /* messages per receiver per turn */
    int dynamic;       /* the schedule being run */
    uint64_t *counts;  /* symmetric: [0] handled here, [8] receivers done */
    uint64_t handled0; /* receiver: count at the start of the schedule */
    char *payload;
    int rc;
} sched_ctx_t;

static sched_ctx_t sc;

static void on_data(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                    int na)
{
    (void)t, (void)buf, (void)len, (void)a, (void)na;
    __atomic_fetch_add(&sc.counts[0], 1, __ATOMIC_RELEASE);
}

static void on_done(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                    int na)
{
    (void)t, (void)buf, (void)len, (void)a, (void)na;
    __atomic_fetch_add(&sc.counts[8], 1, __ATOMIC_RELEASE);
}

static int send_data(int rank, unsigned flags)
{
    tern_am_arg_t arg = (tern_am_arg_t)rank;
    return tern_am_request_medium(rank, H_DATA, sc.payload, SCHED_MSG, &arg, 1, flags);
}

/* One turn of receiver r in the dynamic schedule: up to want messages; a
 * refusal gets one poll and one retry, then the turn ends. Returns the
 * number sent. */
static long dynamic_turn(int r, long want)
{
    long sent = 0;
    while (sent < want) {
        int rc = send_data(r, TERN_FLAG_IMMEDIATE);
        if (rc == TERN_ERR_AGAIN) {
            sc.rc |= tern_poll();
            rc = send_data(r, TERN_FLAG_IMMEDIATE);
        }
        if (rc == TERN_ERR_AGAIN)
            break;
        sc.rc |= rc;
        sent++;
    }
    return sent;
}

static void send_all(void)
{
    long block = sc.block;
    for (long start = 0; start < sc.m; start += block) {
        long quota = sc.m - start < block ? sc.m - start : block;
        if (!sc.dynamic) {
            for (int r = 1; r < sc.n; r++)
                for (long k = 0; k < quota; k++)
                    sc.rc |= send_data(r, 0);
            continue;
        }
        /* This block's quota for every receiver, coming back to those that
         * refused until each has had it. */
        long *owed = calloc((size_t)sc.n, sizeof(*owed));
        if (!owed)
            tb_die("am_sched: out of memory");
        long total = 0;
        for (int r = 1; r < sc.n; r++)
            total += owed[r] = quota;
        while (total > 0) {
            long progress = 0;
            for (int r = 1; r < sc.n; r++) {
                if (!owed[r])
                    continue;
                long sent = dynamic_turn(r, owed[r]);
                owed[r] -= sent;
                total -= sent;
                progress += sent;
            }
            if (!progress) { /* every receiver is asleep: let them have the core */
                sc.rc |= tern_poll();
                sched_yield();
            }
        }
        free(owed);
    }
}

static uint64_t sched_loop(void *arg, long ops)
{
    (void)arg;
    uint64_t t0 = tb_now_ns();
    for (long i = 0; i < ops; i++) {
        if (sc.me == 0) {
            uint64_t want = __atomic_load_n(&sc.counts[8], __ATOMIC_ACQUIRE) + sc.n - 1;
            send_all();
            sc.rc |= tern_wait_until_u64(&sc.counts[8], TERN_CMP_GE, want);
        } else {
            uint64_t target = sc.handled0 + (uint64_t)sc.m;
            struct timespec nap = {0, SCHED_SLEEP};
            while (__atomic_load_n(&sc.counts[0], __ATOMIC_ACQUIRE) < target) {
                nanosleep(&nap, NULL);
                sc.rc |= tern_poll();
            }
            sc.handled0 = target;
            sc.rc |= tern_am_request_short(0, H_DONE, NULL, 0, 0);
        }
    }
    return tb_now_ns() - t0;
}

static uint64_t dynamic_loop(void *arg, long ops)
{
    sc.dynamic = 1;
    return sched_loop(arg, ops);
}

static uint64_t static_loop(void *arg, long ops)
{
    sc.dynamic = 0;
    return sched_loop(arg, ops);
}

static void sched_defaults(tb_opts_t *o)
{
    o->iters = 64;
    o->trials = 5;
    o->warmup = 1;
}

static size_t sched_need(const tb_opts_t *o)
{
    (void)o;
    return 16 * sizeof(uint64_t);
}

static int sched_run(tb_opts_t *o, tb_job_t *job)
{
    memset(&sc, 0, sizeof(sc));
    sc.me = job->rank;
    sc.n = job->size;
    sc.m = o->iters > 0 ? o->iters : 64;
    sc.payload = tb_alloc_local(SCHED_MSG);
    memset(sc.payload, 7, SCHED_MSG);
    TB_CHECK(tern_alloc_sym(16 * sizeof(uint64_t), (void **)&sc.counts));
    memset(sc.counts, 0, 16 * sizeof(uint64_t));
    TB_CHECK(tern_am_register(H_DATA, on_data, "am_sched data"));
    TB_CHECK(tern_am_register(H_DONE, on_done, "am_sched done"));
    if (tern_am_max_medium(-1) < SCHED_MSG)
        tb_die("am_sched needs Medium payloads of %u B (TERN_AM_MEDIUM_MAX)", SCHED_MSG);
    TB_CHECK(tern_barrier());
    if (job->rank == 0) {
        tb_note(o,
                "rank 0 sends %ld Medium Requests of %u B to each of %d receivers, which "
                "sleep 500 us between polls; ms for the whole schedule: dynamic "
                "(IMMEDIATE, poll and retry once, then the next receiver) as tern, "
                "static (blocking sends) as raw; reduction = 1 - tern/raw",
                sc.m, SCHED_MSG, sc.n - 1);
        tb_table_head(o, TB_UNIT_MS);
    }
    long blocks[3] = {1, 5, sc.m};
    for (int i = 0; i < 3; i++) {
        if (i == 2 && sc.m <= 5)
            break;
        sc.block = blocks[i];
        tb_row_t row = {.bench = "am_sched", .op = "block", .unit = TB_UNIT_MS};
        row.size = (size_t)sc.block;
        row.ops = 1;
        tb_measure_pair(o, dynamic_loop, static_loop, &sc, 1, TB_UNIT_MS, 0, 1, &row.tern,
                        &row.raw);
        if (sc.rc != TERN_OK)
            tb_die("am_sched (block %ld) failed: %d (%s)", sc.block, sc.rc,
                   tern_strerror(sc.rc));
        if (job->rank == 0)
            tb_row_print(o, job, &row);
    }
    TB_CHECK(tern_barrier());
    TB_CHECK(tern_free_sym(sc.counts));
    free(sc.payload);
    return 0;
}

const tb_bench_t tb_bench_am_sched = {
    .name = "am_sched",
    .help = "IMMEDIATE scheduling (testimm): 4 KiB Mediums to sleeping receivers, "
            "dynamic vs static schedule, blocks 1, 5, M (--iters M, default 64)",
    .with_tern = 1,
    .min_ranks = 2,
    .baseline = "the static schedule (blocking sends) of the same blocks, same run",
    .defaults = sched_defaults,
    .segment_need = sched_need,
    .run = sched_run,
};
