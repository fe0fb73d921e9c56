/* am_rate: active-message rate from rank 0 to its peer (one to one) and
 * from every other rank to rank 0 (all to one): Short Requests with one
 * argument and 8 B Medium Requests, sent back to back; a trial ends when
 * the receiver has handled them all (its last handler answers). On shared
 * memory the baseline is a raw single-producer ring in the receiver's
 * segment carrying the same 16 bytes per message (sequence number and
 * value), written and polled through tern_ptr in the same run. */
#include "bench.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>

enum { H_MSG = 210, H_ACK = 211 };
#define RAW_SLOTS 1024 /* raw ring: 16-byte slots */

typedef struct rate_ctx {
    int me, n, peer, medium, all_to_one;
    int sending;                /* this rank sends in this row */
    uint64_t target;            /* receiver: messages to handle by now */
    uint64_t *counts;           /* in the segment: [0] handled (receiver), [8]
                                   acks (senders), waited on with
                                   tern_wait_until_u64, which runs handlers and
                                   yields when the node is oversubscribed */
    uint64_t *ring;             /* symmetric raw ring: [RAW_SLOTS][2] */
    uint64_t *peer_ring;        /* the receiver's ring through tern_ptr */
    uint64_t raw_seq, raw_seen; /* sender's and receiver's positions */
    int rc;
} rate_ctx_t;

static rate_ctx_t rc_;

static void on_msg(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                   int na)
{
    (void)buf, (void)len, (void)na;
    __atomic_fetch_add(&rc_.counts[0], 1, __ATOMIC_RELEASE);
    if (a[0]) /* the last of the trial's messages from this sender answers it */
        rc_.rc |= tern_am_reply_short(t, H_ACK, NULL, 0, 0);
}

static void on_ack(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                   int na)
{
    (void)t, (void)buf, (void)len, (void)a, (void)na;
    __atomic_fetch_add(&rc_.counts[8], 1, __ATOMIC_RELEASE);
}

static int receiver_of(const rate_ctx_t *c)
{
    return c->all_to_one ? 0 : c->peer;
}

static uint64_t am_loop(void *arg, long ops)
{
    rate_ctx_t *c = arg;
    uint64_t t0 = tb_now_ns();
    if (c->sending) {
        uint64_t want = __atomic_load_n(&c->counts[8], __ATOMIC_ACQUIRE) + 1;
        static const char payload[8] = "payload";
        for (long i = 0; i < ops; i++) {
            tern_am_arg_t last = i == ops - 1;
            c->rc |= c->medium
                         ? tern_am_request_medium(receiver_of(c), H_MSG, payload, 8,
                                                  &last, 1, 0)
                         : tern_am_request_short(receiver_of(c), H_MSG, &last, 1, 0);
        }
        c->rc |= tern_wait_until_u64(&c->counts[8], TERN_CMP_GE, want);
    } else if (c->me == receiver_of(c)) {
        int senders = c->all_to_one ? c->n - 1 : 1;
        c->target += (uint64_t)ops * (uint64_t)senders;
        c->rc |= tern_wait_until_u64(&c->counts[0], TERN_CMP_GE, c->target);
    }
    return tb_now_ns() - t0;
}

/* The raw ring (one to one only): slot i holds {seq, value}; the sender
 * writes value then seq (release), the receiver polls seq (acquire). The
 * ring never overruns: the sender waits for the receiver's echo of its
 * position in the first slot of its own ring every RAW_SLOTS/2. */
static uint64_t raw_loop(void *arg, long ops)
{
    rate_ctx_t *c = arg;
    uint64_t t0 = tb_now_ns();
    if (c->sending) {
        _Atomic uint64_t *echo = (_Atomic uint64_t *)&c->ring[2 * RAW_SLOTS];
        for (long i = 0; i < ops; i++) {
            uint64_t s = ++c->raw_seq;
            while (s - atomic_load_explicit(echo, memory_order_acquire) >= RAW_SLOTS)
                ;
            uint64_t *slot = &c->peer_ring[2 * (s % RAW_SLOTS)];
            slot[1] = s * 3;
            atomic_store_explicit((_Atomic uint64_t *)&slot[0], s, memory_order_release);
        }
        while (atomic_load_explicit(echo, memory_order_acquire) < c->raw_seq)
            ;
    } else if (c->me == c->peer) {
        _Atomic uint64_t *echo =
            (_Atomic uint64_t *)tern_ptr(0, tern_sym_addr(0, &c->ring[2 * RAW_SLOTS]));
        uint64_t end = c->raw_seen + (uint64_t)ops, sum = 0;
        while (c->raw_seen < end) {
            uint64_t s = c->raw_seen + 1;
            _Atomic uint64_t *slot = (_Atomic uint64_t *)&c->ring[2 * (s % RAW_SLOTS)];
            if (atomic_load_explicit(slot, memory_order_acquire) != s)
                continue;
            sum += c->ring[2 * (s % RAW_SLOTS) + 1];
            c->raw_seen = s;
            if (s % (RAW_SLOTS / 2) == 0 || s == end)
                atomic_store_explicit(echo, s, memory_order_release);
        }
        c->rc |= sum == 0; /* the values were read */
    }
    return tb_now_ns() - t0;
}

static void rate_row(const tb_opts_t *o, const tb_job_t *job, int medium, int all,
                     int raw_ok, tb_row_t *row)
{
    rc_.medium = medium;
    rc_.all_to_one = all;
    rc_.sending = all ? job->rank != 0 : job->rank == 0;
    int raw = raw_ok && !all;
    long ops = tb_ops_bounded(o, am_loop, &rc_, o->iters, raw ? 2 : 1, 1);
    tb_measure_pair(o, am_loop, raw ? raw_loop : NULL, &rc_, ops, TB_UNIT_MMSGS, 0, 1,
                    &row->tern, &row->raw);
    if (rc_.rc != TERN_OK)
        tb_die("active-message rate (%s, %s) failed: %d (%s)",
               medium ? "medium" : "short", all ? "all to one" : "one to one", rc_.rc,
               tern_strerror(rc_.rc));
    if (all) { /* every sender's ops arrive in one trial */
        row->tern.med *= job->size - 1;
        row->tern.p10 *= job->size - 1;
        row->tern.p90 *= job->size - 1;
    }
    row->bench = "am_rate";
    row->op = medium ? (all ? "medium_all" : "medium") : (all ? "short_all" : "short");
    row->size = medium ? 8 : 0;
    row->unit = TB_UNIT_MMSGS;
    row->ops = ops;
}

static void rate_defaults(tb_opts_t *o)
{
    o->iters = 100000;
    o->trials = 9;
    o->warmup = 1;
}

static size_t rate_need(const tb_opts_t *o)
{
    (void)o;
    return (2 * RAW_SLOTS + 8) * sizeof(uint64_t);
}

static int rate_run(tb_opts_t *o, tb_job_t *job)
{
    memset(&rc_, 0, sizeof(rc_));
    rc_.me = job->rank;
    rc_.n = job->size;
    rc_.peer = job->peer;
    TB_CHECK(tern_alloc_sym(rate_need(o), (void **)&rc_.ring));
    TB_CHECK(tern_alloc_sym(16 * sizeof(uint64_t), (void **)&rc_.counts));
    memset(rc_.ring, 0, rate_need(o));
    memset(rc_.counts, 0, 16 * sizeof(uint64_t));
    TB_CHECK(tern_am_register(H_MSG, on_msg, "am_rate message"));
    TB_CHECK(tern_am_register(H_ACK, on_ack, "am_rate ack"));
    TB_CHECK(tern_barrier());
    /* The raw ring needs both ranks mapped to each other: rank 0 decides. */
    rc_.peer_ring = tern_ptr(job->peer, tern_sym_addr(job->peer, rc_.ring));
    long raw_ok = tb_agree_min(job->rank == 0 ? rc_.peer_ring != NULL : 1);
    if (job->rank == 0) {
        tb_note(o,
                "messages per second handled at the receiver: Short (one argument) and "
                "8 B Medium Requests sent back to back; one to one (rank 0 to rank %d) "
                "and all to one (every other rank to rank 0)%s",
                job->peer, raw_ok ? "" : "; no raw baseline: the peer is not mapped");
        tb_table_head(o, TB_UNIT_MMSGS);
    }
    for (int all = 0; all <= (job->size > 2); all++)
        for (int medium = 0; medium <= 1; medium++) {
            tb_row_t row;
            rate_row(o, job, medium, all, (int)raw_ok, &row);
            if (job->rank == 0)
                tb_row_print(o, job, &row);
        }
    TB_CHECK(tern_barrier());
    TB_CHECK(tern_free_sym(rc_.counts));
    TB_CHECK(tern_free_sym(rc_.ring));
    return 0;
}

const tb_bench_t tb_bench_am_rate = {
    .name = "am_rate",
    .help = "active-message rate, Short and 8 B Medium, one to one and all to one, vs a "
            "raw shared-memory ring",
    .with_tern = 1,
    .min_ranks = 2,
    .baseline = "a raw single-producer ring of 16-byte slots in the receiver's segment "
                "through tern_ptr (one to one, shared memory), same run",
    .defaults = rate_defaults,
    .segment_need = rate_need,
    .run = rate_run,
};
