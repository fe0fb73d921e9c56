/* Messages between the ranks of a node: one queue per ordered pair of
 * ranks, in the receiver's control area (so that the receiver reads a
 * message in place, where the sender wrote it). A queue is a byte ring of
 * variable-size records, written by one sender process (its threads take
 * turns through a lock of the sender's) and read by the receiver (its
 * polling threads take turns likewise). The receiver's head is the only
 * shared index; the sender keeps its tail to itself. A message is
 * assembled in the ring between prepare and commit and published by
 * commit. The ring itself is xport/msgq.h, which core also uses inline for
 * small messages and for draining (msg_queue, msg_inqueues). Memory per
 * rank: node_ranks x (64 + ring bytes) shared, and node_ranks x 128 bytes
 * private (this process's side of each queue). */
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

#define REC_HDR      TN_MSGQ_HDR
#define REC_BYTES(n) TN_MSGQ_BYTES(n)
#define INVALID      TN_MSGQ_INVALID

/* The shared part of a queue, in the receiver's control area: the
 * receiver's head on a line of its own, then the records (msgq.h). */
typedef struct shm_ring {
    _Alignas(64) _Atomic uint64_t head; /* bytes ever consumed (receiver) */
    _Alignas(64) char data[];
} shm_ring_t;
#define RING_HDR offsetof(shm_ring_t, data)

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
    return 2 * sizeof(tn_msgq_t);
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

int tn_shm_msg_setup(tn_shm_t *s, const tn_xport_job_t *job)
{
    s->ring_off = job->ctrl_off;
    s->threads = job->threads;
    s->ring_bytes = tn_shm_queue_bytes();
    s->msg_max = tn_shm_queue_msg_max(s->ring_bytes);
    s->out = aligned_alloc(64, (size_t)s->nlocal * sizeof(tn_msgq_t));
    s->in = aligned_alloc(64, (size_t)s->nlocal * sizeof(tn_msgq_t));
    if (!s->out || !s->in)
        return TERN_ERR_NOMEM;
    memset(s->out, 0, (size_t)s->nlocal * sizeof(tn_msgq_t));
    memset(s->in, 0, (size_t)s->nlocal * sizeof(tn_msgq_t));
    /* Every queue into this rank starts empty: head 0, no valid header at
     * 0 (senders write only after start-up's closing barrier). */
    for (int i = 0; i < s->nlocal; i++) {
        shm_ring_t *ro = ring_of(s, i, s->me), *ri = ring_of(s, s->me, i);
        tn_msgq_t *qs[2] = {&s->out[i], &s->in[i]};
        shm_ring_t *rs[2] = {ro, ri};
        for (int k = 0; k < 2; k++) {
            qs[k]->data = rs[k]->data;
            qs[k]->head = &rs[k]->head;
            qs[k]->mask = s->ring_bytes - 1;
            qs[k]->peer = s->ranks[i];
            qs[k]->threads = s->threads;
        }
        atomic_store(&ri->head, 0);
        atomic_store(&tn_msgq_rec(&s->in[i], 0)->pos, INVALID);
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
 * record, or an error (TERN_ERR_AGAIN under IMMEDIATE). */
static TN_ALWAYS_INLINE int room(tn_shm_t *s, int rank, size_t n, unsigned flags,
                                 tn_msgq_t **qp, tn_msgq_rec_t **rp)
{
    int li = local_index(s, rank);
    if (li < 0)
        return TERN_ERR_RANK;
    if (n > s->msg_max)
        return TERN_ERR_RANGE;
    tn_msgq_t *q = &s->out[li];
    size_t need = REC_BYTES(n);
    tn_msgq_rec_t *r;
    uint64_t iter = 0;
    tn_msgq_lock(q);
    while (__builtin_expect((r = tn_msgq_reserve(q, need)) == NULL, 0)) {
        /* Full: the receiver has not caught up. Run this rank's own
         * handlers meanwhile (the receiver may be waiting on us). */
        tn_msgq_unlock(q);
        if ((flags & TERN_FLAG_IMMEDIATE) && (flags & TN_XPORT_FLAG_NOPOLL))
            return TERN_ERR_AGAIN;
        int done =
            tn_wait_progress_hook ? tn_wait_progress_hook() : tn_shm_poll(&s->base);
        if (flags & TERN_FLAG_IMMEDIATE) {
            tn_msgq_lock(q);
            if (done > 0 && (r = tn_msgq_reserve(q, need)) != NULL)
                break;
            tn_msgq_unlock(q);
            tn_wait_refused();
            return TERN_ERR_AGAIN;
        }
        if (done == 0)
            tn_wait_step(iter++);
        tn_msgq_lock(q);
    }
    *qp = q;
    *rp = r;
    return TERN_OK; /* the sender's turn stays taken until publish */
}

int tn_shm_msg_prepare(tn_xport_t *x, int rank, size_t n, unsigned flags,
                       tn_xport_msg_t *m)
{
    tn_shm_t *s = (tn_shm_t *)x;
    tn_msgq_t *q;
    tn_msgq_rec_t *r;
    int rc = room(s, rank, n, flags, &q, &r);
    if (rc != TERN_OK)
        return rc;
    m->buf = r + 1;
    m->cap = n;
    m->slot = q;
    m->aux = q->pos;
    return TERN_OK;
}

int tn_shm_msg_commit(tn_xport_t *x, tn_xport_msg_t *m, size_t n)
{
    (void)x;
    tn_msgq_t *q = m->slot;
    tn_msgq_mark_next(q, n);
    tn_msgq_publish(q, tn_msgq_rec(q, q->pos), n);
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
    tn_msgq_t *q;
    tn_msgq_rec_t *r;
    size_t n = hn + len;
    int rc = room(s, rank, n, flags, &q, &r);
    if (rc != TERN_OK)
        return rc;
    tn_msgq_mark_next(q, n);
    size_t in_first = len ? tn_msgq_payload_tail(r, hn, payload, len) : 0;
    char *msg = (char *)(r + 1);
    uint64_t *dst = (uint64_t *)msg;
    const uint64_t *src = head;
    for (size_t i = 0; i < hn / 8; i++) /* a few words: no memcpy call */
        dst[i] = src[i];
    tn_msgq_copy_small(msg + hn, payload, in_first);
    tn_msgq_publish(q, r, n);
    return TERN_OK;
}

/* Handles what queue `from` holds (up to TN_MSGQ_DRAIN_MAX messages), each
 * read in place and consumed after its handler returns. */
static TN_ALWAYS_INLINE int drain(tn_msgq_t *q, tn_xport_recv_fn fn, void *arg)
{
    if (!tn_msgq_trylock(q))
        return 0; /* another thread of this rank is at it */
    int n = 0;
    tn_msgq_rec_t *r;
    while (n < TN_MSGQ_DRAIN_MAX && (r = tn_msgq_peek(q)) != NULL) {
        fn(arg, q->peer, r + 1, r->len);
        tn_msgq_consume(q, r);
        n++;
    }
    tn_msgq_unlock(q);
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
        done += drain(&s->in[i], fn, s->recv_arg);
    return done;
}

tn_msgq_t *tn_shm_msg_queue(tn_xport_t *x, int rank)
{
    tn_shm_t *s = (tn_shm_t *)x;
    int li = local_index(s, rank);
    return li < 0 ? NULL : &s->out[li];
}

int tn_shm_msg_inqueues(tn_xport_t *x, tn_msgq_t **in)
{
    tn_shm_t *s = (tn_shm_t *)x;
    *in = s->in;
    return s->nlocal;
}
