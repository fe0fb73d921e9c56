/* Messages between the ranks of a node: one queue per ordered pair of
 * ranks, in the receiver's control area (so that the receiver reads a
 * message in place, where the sender wrote it). A queue is a byte ring of
 * variable-size records, written by one sender process (its threads take
 * turns through a lock of the sender's) and read by the receiver (its
 * polling threads take turns likewise). The receiver's head is the only
 * shared index; the sender keeps its tail to itself. A message is
 * assembled in the ring between prepare and commit and published by
 * commit. Memory per rank: node_ranks x (64 + ring bytes) shared, and
 * node_ranks x 128 bytes private (this process's side of each queue). */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>

#include "base/cfg.h"
#include "base/compiler.h"
#include "base/log.h"
#include "base/wait.h"
#include "xport/shm/shm.h"

/* A record: header (16 bytes), then the message, padded to 16 bytes. The
 * header is published last, by a release store of pos (the record's
 * absolute offset in the queue), so the receiver polls the header where
 * the next record must start and finds it valid exactly when pos equals
 * its head: one cache line moves per small message, and the sender reads
 * the receiver's head only when its cached copy says the ring is full.
 * Before publishing a header, the sender marks the place right after the
 * record invalid (pos = ~0), so the receiver never mistakes old bytes for
 * a header. */
typedef struct rec_hdr {
    _Atomic uint64_t pos;
    uint32_t len;
    uint32_t kind;
} rec_hdr_t;
#define REC_HDR ((size_t)sizeof(rec_hdr_t))
enum { REC_MSG = 1, REC_PAD = 2 };
#define REC_BYTES(n)  (((size_t)(n) + REC_HDR + 15u) & ~(size_t)15u)
#define INVALID       UINT64_MAX
#define POLL_PER_RING 64 /* messages handled per queue per poll, for fairness */

typedef struct shm_ring {
    _Alignas(64) _Atomic uint64_t head; /* bytes ever consumed (receiver) */
    _Alignas(64) char data[];
} shm_ring_t;
#define RING_HDR offsetof(shm_ring_t, data)

/* This process's side of one queue, private: where the queue lies here,
 * the sender's tail (out) or the receiver's own copy of head (in), and the
 * turn among this process's threads. A line each, so that threads using
 * different queues do not share one. */
typedef struct tn_shm_queue {
    _Alignas(64) shm_ring_t *ring;
    uint64_t pos;       /* out: where the next record goes; in: head */
    uint64_t head_seen; /* out: the receiver's head when last read */
    _Atomic int turn;
} shm_queue_t;

/* The ring that must hold two of the largest messages, and at least what
 * TERN_AM_SHM_QUEUE asks: a power of two. */
size_t tn_shm_queue_bytes(void)
{
    size_t need = 2 * (REC_BYTES(TN_XPORT_MSG_OVERHEAD + tn_cfg.am_medium_max) + REC_HDR);
    size_t want = tn_cfg.am_shm_queue > need ? tn_cfg.am_shm_queue : need;
    size_t r = 4096;
    while (r < want)
        r <<= 1;
    return r;
}

size_t tn_shm_queue_msg_max(size_t ring)
{
    return ring / 2 - 2 * REC_HDR - 15;
}

size_t tn_shm_queue_private_bytes(void)
{
    return 2 * sizeof(shm_queue_t);
}

size_t tn_shm_ctrl_bytes(int node_ranks)
{
    return (size_t)node_ranks * (RING_HDR + tn_shm_queue_bytes());
}

/* The queue from local rank `from` to local rank `to`, in to's area. */
static shm_ring_t *ring_of(const tn_shm_t *s, int to, int from)
{
    return (shm_ring_t *)((char *)s->maps[to] + s->ring_off +
                          (size_t)from * (RING_HDR + s->ring_bytes));
}

static rec_hdr_t *rec_at(const tn_shm_t *s, shm_ring_t *r, uint64_t pos)
{
    return (rec_hdr_t *)(r->data + (size_t)(pos & (s->ring_bytes - 1)));
}

/* The sender's and receiver's turns are taken only when several threads
 * of this process may use the transport at once (s->threads). */
static void lock(const tn_shm_t *s, _Atomic int *l)
{
    if (!s->threads)
        return;
    for (uint64_t i = 0; atomic_exchange_explicit(l, 1, memory_order_acquire); i++)
        if (i > 64)
            sched_yield();
}

static int trylock(const tn_shm_t *s, _Atomic int *l)
{
    return !s->threads || !atomic_exchange_explicit(l, 1, memory_order_acquire);
}

static void unlock(const tn_shm_t *s, _Atomic int *l)
{
    if (s->threads)
        atomic_store_explicit(l, 0, memory_order_release);
}

int tn_shm_msg_setup(tn_shm_t *s, const tn_xport_job_t *job)
{
    s->ring_off = job->ctrl_off;
    s->threads = job->threads;
    s->ring_bytes = tn_shm_queue_bytes();
    s->msg_max = tn_shm_queue_msg_max(s->ring_bytes);
    s->out = aligned_alloc(64, (size_t)s->nlocal * sizeof(shm_queue_t));
    s->in = aligned_alloc(64, (size_t)s->nlocal * sizeof(shm_queue_t));
    if (!s->out || !s->in)
        return TERN_ERR_NOMEM;
    memset(s->out, 0, (size_t)s->nlocal * sizeof(shm_queue_t));
    memset(s->in, 0, (size_t)s->nlocal * sizeof(shm_queue_t));
    /* Every queue into this rank starts empty: head 0, no valid header at
     * 0 (senders write only after start-up's closing barrier). */
    for (int i = 0; i < s->nlocal; i++) {
        s->out[i].ring = ring_of(s, i, s->me);
        shm_ring_t *r = s->in[i].ring = ring_of(s, s->me, i);
        atomic_store(&r->head, 0);
        atomic_store(&rec_at(s, r, 0)->pos, INVALID);
    }
    return TERN_OK;
}

void tn_shm_msg_teardown(tn_shm_t *s)
{
    free(s->out);
    free(s->in);
}

int tn_shm_set_recv(tn_xport_t *x, tn_xport_recv_fn fn, void *arg)
{
    tn_shm_t *s = (tn_shm_t *)x;
    s->recv_arg = arg;
    atomic_store_explicit(&s->recv_fn, fn, memory_order_release);
    return TERN_OK;
}

/* Room for a record of need bytes (and the invalid mark after it) at the
 * sender's tail toward local rank li, skipping the ring's end with a pad
 * record when it would not fit before it: the record's offset, or
 * INVALID when the receiver has not freed enough yet. */
static TN_ALWAYS_INLINE uint64_t reserve(const tn_shm_t *s, shm_queue_t *q, size_t need)
{
    shm_ring_t *r = q->ring;
    uint64_t tail = q->pos;
    size_t pos = (size_t)(tail & (s->ring_bytes - 1)), to_end = s->ring_bytes - pos;
    size_t skip = need > to_end ? to_end : 0;
    uint64_t end = tail + skip + need + REC_HDR;
    if (end - q->head_seen > s->ring_bytes) {
        q->head_seen = atomic_load_explicit(&r->head, memory_order_acquire);
        if (end - q->head_seen > s->ring_bytes)
            return INVALID;
    }
    if (skip) { /* the pad record to the ring's end, published at once */
        atomic_store_explicit(&rec_at(s, r, tail + skip)->pos, INVALID,
                              memory_order_relaxed);
        rec_hdr_t *pad = rec_at(s, r, tail);
        pad->len = (uint32_t)(to_end - REC_HDR);
        pad->kind = REC_PAD;
        atomic_store_explicit(&pad->pos, tail, memory_order_release);
        q->pos = tail + skip;
    }
    return tail + skip;
}

/* Local index of rank: ranks are ascending, and on most nodes they are
 * consecutive, which a subtraction finds. */
static TN_ALWAYS_INLINE int local_index(const tn_shm_t *s, int rank)
{
    unsigned i = (unsigned)(rank - s->ranks[0]);
    if (i < (unsigned)s->nlocal && s->ranks[i] == rank)
        return (int)i;
    return tn_shm_local_index(s, rank);
}

/* Room for n bytes toward rank: the queue (its turn taken) and the
 * record's offset, or an error (TERN_ERR_AGAIN under IMMEDIATE). */
static TN_ALWAYS_INLINE int room(tn_shm_t *s, int rank, size_t n, unsigned flags,
                                 shm_queue_t **qp, uint64_t *atp)
{
    int li = local_index(s, rank);
    if (li < 0)
        return TERN_ERR_RANK;
    if (n > s->msg_max)
        return TERN_ERR_RANGE;
    shm_queue_t *q = &s->out[li];
    size_t need = REC_BYTES(n);
    uint64_t at, iter = 0;
    lock(s, &q->turn);
    while (__builtin_expect((at = reserve(s, q, need)) == INVALID, 0)) {
        /* Full: the receiver has not caught up. Run this rank's own
         * handlers meanwhile (the receiver may be waiting on us). */
        unlock(s, &q->turn);
        if ((flags & TERN_FLAG_IMMEDIATE) && (flags & TN_XPORT_FLAG_NOPOLL))
            return TERN_ERR_AGAIN;
        int done =
            tn_wait_progress_hook ? tn_wait_progress_hook() : tn_shm_poll(&s->base);
        if (flags & TERN_FLAG_IMMEDIATE) {
            lock(s, &q->turn);
            if (done > 0 && (at = reserve(s, q, need)) != INVALID)
                break;
            unlock(s, &q->turn);
            return TERN_ERR_AGAIN;
        }
        if (done == 0)
            tn_wait_step(iter++);
        lock(s, &q->turn);
    }
    *qp = q;
    *atp = at;
    return TERN_OK; /* the sender's turn stays taken until publish */
}

/* Publishes the n-byte record at `at`: the mark after it first, then its
 * header with release. */
static inline void publish(tn_shm_t *s, shm_queue_t *q, uint64_t at, size_t n)
{
    uint64_t next = at + REC_BYTES(n);
    atomic_store_explicit(&rec_at(s, q->ring, next)->pos, INVALID, memory_order_relaxed);
    rec_hdr_t *h = rec_at(s, q->ring, at);
    h->len = (uint32_t)n;
    h->kind = REC_MSG;
    atomic_store_explicit(&h->pos, at, memory_order_release);
    q->pos = next;
    unlock(s, &q->turn);
}

int tn_shm_msg_prepare(tn_xport_t *x, int rank, size_t n, unsigned flags,
                       tn_xport_msg_t *m)
{
    tn_shm_t *s = (tn_shm_t *)x;
    shm_queue_t *q;
    uint64_t at;
    int rc = room(s, rank, n, flags, &q, &at);
    if (rc != TERN_OK)
        return rc;
    m->buf = (char *)rec_at(s, q->ring, at) + REC_HDR;
    m->cap = n;
    m->slot = q;
    m->aux = at;
    return TERN_OK;
}

int tn_shm_msg_commit(tn_xport_t *x, tn_xport_msg_t *m, size_t n)
{
    publish((tn_shm_t *)x, m->slot, m->aux, n);
    return TERN_OK;
}

/* The line the receiver polls (the record's first) is written last and in
 * one burst: the receiver spins reading it, so every earlier store to it
 * would have to take the line back (a cross-core transfer each). So: the
 * mark after the record first (its line's transfer overlaps the rest),
 * then the payload past the first line, then the first line's bytes, then
 * the header with release. */
int tn_shm_msg_send(tn_xport_t *x, int rank, const void *head, size_t hn,
                    const void *payload, size_t len, unsigned flags)
{
    tn_shm_t *s = (tn_shm_t *)x;
    shm_queue_t *q;
    uint64_t at;
    size_t n = hn + len;
    int rc = room(s, rank, n, flags, &q, &at);
    if (rc != TERN_OK)
        return rc;
    atomic_store_explicit(&rec_at(s, q->ring, at + REC_BYTES(n))->pos, INVALID,
                          memory_order_relaxed);
    rec_hdr_t *h = rec_at(s, q->ring, at);
    char *msg = (char *)(h + 1);
    /* Payload bytes in the first line: up to the next 64-byte boundary. */
    size_t in_first = (size_t)(-(uintptr_t)(msg + hn) & 63);
    if (in_first > len)
        in_first = len;
    if (len > in_first)
        memcpy(msg + hn + in_first, (const char *)payload + in_first, len - in_first);
    uint64_t *dst = (uint64_t *)msg;
    const uint64_t *src = head;
    for (size_t i = 0; i < hn / 8; i++) /* a few words: no memcpy call */
        dst[i] = src[i];
    for (size_t i = 0; i < in_first; i++)
        msg[hn + i] = ((const char *)payload)[i];
    h->len = (uint32_t)n;
    h->kind = REC_MSG;
    atomic_store_explicit(&h->pos, at, memory_order_release);
    q->pos = at + REC_BYTES(n);
    unlock(s, &q->turn);
    return TERN_OK;
}

/* Handles what queue `from` holds (up to POLL_PER_RING messages), each
 * read in place and consumed after its handler returns. The receiver's
 * own copy of head (q->pos) saves reading the shared line when the queue
 * is empty; the shared head is written only when something was consumed. */
static TN_ALWAYS_INLINE int drain(tn_shm_t *s, int from, tn_xport_recv_fn fn)
{
    shm_queue_t *q = &s->in[from];
    if (!trylock(s, &q->turn))
        return 0; /* another thread of this rank is at it */
    shm_ring_t *r = q->ring;
    uint64_t head = q->pos;
    int n = 0;
    while (n < POLL_PER_RING) {
        rec_hdr_t *h = rec_at(s, r, head);
        if (atomic_load_explicit(&h->pos, memory_order_acquire) != head)
            break;
        if (h->kind == REC_PAD) {
            head += REC_HDR + h->len;
        } else {
            fn(s->recv_arg, s->ranks[from], (char *)h + REC_HDR, h->len);
            head += REC_BYTES(h->len);
            n++;
        }
        q->pos = head;
        atomic_store_explicit(&r->head, head, memory_order_release);
    }
    unlock(s, &q->turn);
    return n;
}

int tn_shm_poll(tn_xport_t *x)
{
    tn_shm_t *s = (tn_shm_t *)x;
    tn_xport_recv_fn fn = atomic_load_explicit(&s->recv_fn, memory_order_acquire);
    if (!fn)
        return 0;
    int done = 0;
    for (int i = 0; i < s->nlocal; i++)
        done += drain(s, i, fn);
    return done;
}
