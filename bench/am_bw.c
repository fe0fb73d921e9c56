/* am_bw: active-message flood bandwidth, one way from rank 0 to its peer,
 * many messages in flight: Medium with fixed payload (assembled
 * beforehand), fixed payload generated into the client's buffer and then
 * sent, negotiated payload generated in the buffer Prepare returns (what
 * negotiated payload is for: GASNet-EX's testam -src-generate), and Long
 * into one landing area of the receiver's segment. A trial ends when the
 * receiver has handled every message (the last one answers).
 *
 * Baselines in the same run. Shared memory: a raw single-producer ring of
 * payload slots in the receiver's segment, written through tern_ptr (the
 * payload copied, or generated in place for the generated rows, or for
 * Long copied to the landing area, then a sequence word released in the
 * slot), the receiver polling the sequence and echoing
 * its position so the ring never overruns. Network: a raw libfabric
 * fi_send stream of the same payload in batches (Medium rows), raw
 * fi_writemsg windows with delivery completion (Long rows). */
#include "bench.h"
#include "raw_ofi.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>

enum { H_DATA = 220, H_ACK = 221 };
enum { K_MEDIUM, K_MEDIUM_GEN, K_NEG_GEN, K_LONG, K_COUNT };
static const char *const kind_name[K_COUNT] = {"medium", "medium_gen", "neg_gen", "long"};
#define RAW_RING_BYTES ((size_t)4 << 20) /* raw ring: at most 4 MiB of slots */
#define RAW_WINDOW     64                /* network baselines: batch/window */

typedef struct bw_ctx {
    int me, peer, active, kind;
    size_t n;
    char *src;          /* private payload */
    char *landing;      /* symmetric: Long payloads land here */
    uint64_t *counts;   /* symmetric: [0] handled (receiver), [8] acks (sender) */
    uint64_t target;    /* receiver: messages to handle by now */
    char *ring;         /* symmetric raw ring: slots, then the echo word */
    char *peer_ring;    /* the receiver's ring through tern_ptr (rank 0) */
    char *peer_landing; /* the receiver's landing area through tern_ptr */
    _Atomic uint64_t *echo, *peer_echo;
    size_t slot, nslots; /* raw ring geometry for the current size */
    uint64_t raw_seq, raw_seen;
    tb_raw_ofi_t *raw_ofi;
    int have_raw_ofi;
    int rc;
} bw_ctx_t;

static bw_ctx_t bc;

/* The payload a client produces on the fly. */
static void generate(char *dst, size_t n, uint64_t seed)
{
    uint64_t *w = (uint64_t *)dst;
    for (size_t i = 0; i < n / 8; i++)
        w[i] = seed + i;
}

static void on_data(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                    int na)
{
    (void)buf, (void)len, (void)na;
    __atomic_fetch_add(&bc.counts[0], 1, __ATOMIC_RELEASE);
    if (a[0]) /* the trial's last message answers it */
        bc.rc |= tern_am_reply_short(t, H_ACK, NULL, 0, 0);
}

static void on_ack(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                   int na)
{
    (void)t, (void)buf, (void)len, (void)a, (void)na;
    __atomic_fetch_add(&bc.counts[8], 1, __ATOMIC_RELEASE);
}

static int send_one(bw_ctx_t *c, tern_am_arg_t last, void *dest, uint64_t seed)
{
    switch (c->kind) {
    case K_LONG:
        return tern_am_request_long(c->peer, H_DATA, c->src, c->n, dest, &last, 1, 0);
    case K_NEG_GEN: {
        tern_am_sd_t sd;
        int rc = tern_am_prepare_request_medium(c->peer, NULL, c->n, c->n, 1, 0, &sd);
        if (rc != TERN_OK)
            return rc;
        generate(sd.buf, c->n, seed);
        return tern_am_commit_request_medium(&sd, H_DATA, c->n, &last);
    }
    case K_MEDIUM_GEN: generate(c->src, c->n, seed); /* fall through */
    default: return tern_am_request_medium(c->peer, H_DATA, c->src, c->n, &last, 1, 0);
    }
}

static uint64_t am_loop(void *arg, long ops)
{
    bw_ctx_t *c = arg;
    if (!c->active)
        return 1;
    uint64_t t0 = tb_now_ns();
    if (c->me == 0) {
        uint64_t want = __atomic_load_n(&c->counts[8], __ATOMIC_ACQUIRE) + 1;
        void *dest = tern_sym_addr(c->peer, c->landing);
        for (long i = 0; i < ops; i++)
            c->rc |= send_one(c, i == ops - 1, dest, (uint64_t)i);
        c->rc |= tern_wait_until_u64(&c->counts[8], TERN_CMP_GE, want);
    } else {
        c->target += (uint64_t)ops;
        c->rc |= tern_wait_until_u64(&c->counts[0], TERN_CMP_GE, c->target);
    }
    return tb_now_ns() - t0;
}

/* The raw ring: slot i holds the payload, then its sequence word (written
 * last, with release); the receiver echoes its position into rank 0's
 * echo word every half ring and at the end. */
static uint64_t raw_ring_loop(bw_ctx_t *c, long ops)
{
    uint64_t t0 = tb_now_ns();
    size_t n = c->n, half = c->nslots / 2 ? c->nslots / 2 : 1;
    if (c->me == 0) {
        for (long i = 0; i < ops; i++) {
            uint64_t s = ++c->raw_seq;
            while (s - atomic_load_explicit(c->echo, memory_order_acquire) > c->nslots)
                ;
            char *slot = c->peer_ring + (s % c->nslots) * c->slot;
            if (c->kind == K_LONG) /* where Tern's Long writes it */
                memcpy(c->peer_landing, c->src, n);
            else if (c->kind == K_MEDIUM)
                memcpy(slot, c->src, n);
            else
                generate(slot, n, (uint64_t)i);
            atomic_store_explicit((_Atomic uint64_t *)(slot + c->slot - 8), s,
                                  memory_order_release);
        }
        while (atomic_load_explicit(c->echo, memory_order_acquire) < c->raw_seq)
            ;
    } else {
        uint64_t end = c->raw_seen + (uint64_t)ops;
        while (c->raw_seen < end) {
            uint64_t s = c->raw_seen + 1;
            char *slot = c->ring + (s % c->nslots) * c->slot;
            if (atomic_load_explicit((_Atomic uint64_t *)(slot + c->slot - 8),
                                     memory_order_acquire) != s)
                continue;
            c->raw_seen = s;
            if (s % half == 0 || s == end)
                atomic_store_explicit(c->peer_echo, s, memory_order_release);
        }
    }
    return tb_now_ns() - t0;
}

static uint64_t raw_loop(void *arg, long ops)
{
    bw_ctx_t *c = arg;
    if (!c->active)
        return 1;
    if (!c->raw_ofi)
        return raw_ring_loop(c, ops);
    uint64_t t0 = tb_now_ns();
    if (c->kind == K_LONG) {
        if (c->me == 0) {
            tb_raw_ofi_bw(c->raw_ofi, 0, c->n, ops, RAW_WINDOW);
            tb_raw_ofi_release(c->raw_ofi);
        } else {
            tb_raw_ofi_serve(c->raw_ofi);
        }
    } else {
        tb_raw_ofi_stream(c->raw_ofi, c->n, ops, RAW_WINDOW);
    }
    return tb_now_ns() - t0;
}

static void bw_row(const tb_opts_t *o, int kind, size_t n, int raw, tb_row_t *row)
{
    bc.kind = kind;
    bc.n = n;
    bc.slot = (n + 8 + 63) & ~(size_t)63;
    bc.nslots = RAW_RING_BYTES / bc.slot < 64 ? RAW_RING_BYTES / bc.slot : 64;
    long ops = tb_ops_bounded(o, am_loop, &bc, o->iters, raw ? 2 : 1, 1);
    tb_measure_pair(o, am_loop, raw ? raw_loop : NULL, &bc, ops, TB_UNIT_MBPS, (double)n,
                    1, &row->tern, &row->raw);
    if (bc.rc != TERN_OK)
        tb_die("active-message flood (%s, %zu bytes) failed: %d (%s)", kind_name[kind], n,
               bc.rc, tern_strerror(bc.rc));
    row->bench = "am_bw";
    row->op = kind_name[kind];
    row->size = n;
    row->unit = TB_UNIT_MBPS;
    row->ops = ops;
}

static void bw_defaults(tb_opts_t *o)
{
    o->iters = 200000;
    o->trials = 7;
    o->warmup = 1;
}

static size_t bw_need(const tb_opts_t *o)
{
    return RAW_RING_BYTES + 64 + tb_sizes_max(o) + 64 + 16 * sizeof(uint64_t) + 4096;
}

static int bw_run(tb_opts_t *o, tb_job_t *job)
{
    size_t max = tb_sizes_max(o);
    memset(&bc, 0, sizeof(bc));
    bc.me = job->rank;
    bc.peer = job->rank == 0 ? job->peer : 0;
    bc.active = job->rank == 0 || job->rank == job->peer;
    bc.src = tb_alloc_local(max + 8);
    generate(bc.src, max, 1);
    TB_CHECK(tern_alloc_sym(max + 64, (void **)&bc.landing));
    TB_CHECK(tern_alloc_sym(RAW_RING_BYTES + 64, (void **)&bc.ring));
    TB_CHECK(tern_alloc_sym(16 * sizeof(uint64_t), (void **)&bc.counts));
    memset(bc.ring, 0, RAW_RING_BYTES + 64);
    memset(bc.counts, 0, 16 * sizeof(uint64_t));
    bc.echo = (_Atomic uint64_t *)(bc.ring + RAW_RING_BYTES);
    TB_CHECK(tern_am_register(H_DATA, on_data, "am_bw data"));
    TB_CHECK(tern_am_register(H_ACK, on_ack, "am_bw ack"));
    TB_CHECK(tern_barrier());
    /* The raw ring needs rank 0 and its peer mapped to each other; when
     * they are not, the network baseline is set up, collectively. */
    bc.peer_ring = tern_ptr(job->peer, tern_sym_addr(job->peer, bc.ring));
    bc.peer_landing = tern_ptr(job->peer, tern_sym_addr(job->peer, bc.landing));
    bc.peer_echo = tern_ptr(0, tern_sym_addr(0, (void *)bc.echo));
    long mapped = tb_agree_min(job->rank == 0 ? bc.peer_ring != NULL : 1);
    if (!mapped) {
        bc.raw_ofi = tb_raw_ofi_setup(job->peer, 2 * (max + 64));
        bc.have_raw_ofi = (int)tb_agree_min(bc.raw_ofi != NULL || !bc.active);
    }
    int raw = (int)mapped || bc.have_raw_ofi;
    size_t mmax = tern_am_max_medium(job->peer);
    if (job->rank == 0) {
        tb_note(o,
                "one-way flood from rank 0 to rank %d, payload MB/s at the receiver; "
                "largest Medium %zu B; Long lands in one area of the receiver's "
                "segment%s",
                job->peer, mmax, raw ? "" : "; no raw baseline here");
        tb_table_head(o, TB_UNIT_MBPS);
    }
    for (int k = 0; k < K_COUNT; k++)
        for (int i = 0; i < o->nsizes; i++) {
            size_t n = o->sizes[i];
            if ((k != K_LONG && n > mmax) || n < 8)
                continue;
            tb_row_t row;
            bw_row(o, k, n, raw, &row);
            if (job->rank == 0)
                tb_row_print(o, job, &row);
        }
    TB_CHECK(tern_barrier());
    tb_raw_ofi_teardown(bc.raw_ofi);
    TB_CHECK(tern_free_sym(bc.counts));
    TB_CHECK(tern_free_sym(bc.ring));
    TB_CHECK(tern_free_sym(bc.landing));
    free(bc.src);
    return 0;
}

const tb_bench_t tb_bench_am_bw = {
    .name = "am_bw",
    .help = "active-message flood bandwidth (Medium fixed/generated/negotiated, Long), "
            "256 B..1 MiB, vs a raw ring (shm) or raw fi_send/fi_write (network)",
    .with_tern = 1,
    .min_ranks = 2,
    .min_size = 256,
    .max_size = 1u << 20,
    .baseline = "shared memory: a raw single-producer ring of payload slots in the "
                "receiver's segment through tern_ptr; network: raw libfabric fi_send "
                "stream (Medium) or fi_writemsg windows (Long), same provider; same run",
    .defaults = bw_defaults,
    .segment_need = bw_need,
    .run = bw_run,
};
