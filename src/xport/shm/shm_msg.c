/* Messages between the ranks of a node: one queue per ordered pair of
 * ranks, in the receiver's control area (so that the receiver reads a
 * message in place, where the sender wrote it). A queue is a ring of
 * one-line slots and a ring of data bytes (xport/msgq.h), written by one
 * sender process (its threads take turns through a lock of the sender's)
 * and read by the receiver (its polling threads take turns likewise). The
 * receiver's counts are the only shared indexes; the sender keeps its own
 * to itself. A message is assembled between prepare and commit and
 * published by commit. Core also uses the queues inline for small messages
 * and for draining (msg_queue, msg_inqueues). Memory per rank: node_ranks x
 * (64 + slots x 64 + data bytes) shared, and node_ranks x 256 bytes private
 * (this process's side of each queue). */
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

/* The shared part of a queue, in the receiver's control area: the
 * receiver's counts on a line of their own, the slots, then the data. */
typedef struct shm_ring {
    tn_msgq_heads_t heads;
    tn_msgq_slot_t slots[];
} shm_ring_t;

/* The data ring: two of the largest messages, and at least what
 * TERN_AM_SHM_QUEUE asks: a power of two. */
size_t tn_shm_queue_bytes(void)
{
    size_t need = 2 * TN_MSGQ_LINE(TN_XPORT_MSG_OVERHEAD + tn_cfg.am_medium_max);
    size_t want = tn_cfg.am_shm_queue > need ? tn_cfg.am_shm_queue : need;
    size_t r = 4096;
    while (r < want)
        r <<= 1;
    return r;
}

/* Slots: one per 256 data bytes (a message in flight per 256 bytes of
 * data), at least 64 and at most 128. A ping-pong walks through every
 * slot line of its two queues: 128 of them (16 KiB) stay in the
 * first-level cache, the 1024 that a 256 KiB ring would have
 * (TERN_AM_MEDIUM_MAX=64K) do not, and a slot line that comes back from
 * further away costs about 30 ns per message (measured;
 * docs/design/active-messages.md, sixth pass). */
size_t tn_shm_queue_slots(size_t ring)
{
    size_t n = ring / 256;
    return n < 64 ? 64 : n > 128 ? 128 : n;
}

/* A message of at most half the data ring always fits once the ring is
 * empty, whatever the skip to its start. */
size_t tn_shm_queue_msg_max(size_t ring)
{
    return ring / 2;
}

size_t tn_shm_queue_private_bytes(void)
{
    return 2 * sizeof(tn_msgq_t);
}

static size_t queue_shared_bytes(size_t ring)
{
    return sizeof(tn_msgq_heads_t) + tn_shm_queue_slots(ring) * sizeof(tn_msgq_slot_t) +
           ring;
}

size_t tn_shm_ctrl_bytes(int node_ranks)
{
    return (size_t)node_ranks * queue_shared_bytes(tn_shm_queue_bytes());
}

/* The queue from local rank `from` to local rank `to`, in to's area. */
static shm_ring_t *ring_of(const tn_shm_t *s, int to, int from)
{
    return (shm_ring_t *)((char *)s->maps[to] + s->ring_off +
                          (size_t)from * queue_shared_bytes(s->ring_bytes));
}

int tn_shm_msg_setup(tn_shm_t *s, const tn_xport_job_t *job)
{
    s->ring_off = job->ctrl_off;
    s->threads = job->threads;
    s->ring_bytes = tn_shm_queue_bytes();
    s->msg_max = tn_shm_queue_msg_max(s->ring_bytes);
    size_t nslots = tn_shm_queue_slots(s->ring_bytes);
    s->out = aligned_alloc(64, (size_t)s->nlocal * sizeof(tn_msgq_t));
    s->in = aligned_alloc(64, (size_t)s->nlocal * sizeof(tn_msgq_t));
    if (!s->out || !s->in)
        return TERN_ERR_NOMEM;
    memset(s->out, 0, (size_t)s->nlocal * sizeof(tn_msgq_t));
    memset(s->in, 0, (size_t)s->nlocal * sizeof(tn_msgq_t));
    /* Every queue into this rank starts empty: counts 0, no slot valid
     * (senders write only after start-up's closing barrier). */
    for (int i = 0; i < s->nlocal; i++) {
        shm_ring_t *ro = ring_of(s, i, s->me), *ri = ring_of(s, s->me, i);
        tn_msgq_t *qs[2] = {&s->out[i], &s->in[i]};
        shm_ring_t *rs[2] = {ro, ri};
        for (int k = 0; k < 2; k++) {
            qs[k]->slots = rs[k]->slots;
            qs[k]->data = (char *)(rs[k]->slots + nslots);
            qs[k]->heads = &rs[k]->heads;
            qs[k]->smask = (uint32_t)(nslots - 1);
            qs[k]->dmask = (uint32_t)(s->ring_bytes - 1);
            qs[k]->peer = s->ranks[i];
            qs[k]->threads = s->threads;
        }
        s->out[i].back = s->threads ? NULL : &s->in[i];
        s->in[i].answer = s->threads ? NULL : &s->out[i];
        atomic_store(&ri->heads.slots, 0);
        atomic_store(&ri->heads.data, 0);
        for (size_t j = 0; j < nslots; j++)
            atomic_store_explicit(&ri->slots[j].seq, TN_MSGQ_INVALID,
                                  memory_order_relaxed);
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

/* Room for n bytes toward rank, contiguous: in the slot when they fit
 * there, else all in the data ring. The queue (its turn taken), the slot
 * and where the message goes, or an error (TERN_ERR_AGAIN under
 * IMMEDIATE). */
static TN_ALWAYS_INLINE int room(tn_shm_t *s, int rank, size_t n, unsigned flags,
                                 tn_msgq_t **qp, tn_msgq_slot_t **sp, char **bufp)
{
    int li = local_index(s, rank);
    if (li < 0)
        return TERN_ERR_RANK;
    if (n > s->msg_max)
        return TERN_ERR_RANGE;
    tn_msgq_t *q = &s->out[li];
    size_t dlen = n > TN_MSGQ_INLINE ? n : 0;
    tn_msgq_slot_t *r;
    char *data = NULL;
    tn_wait_t w = TN_WAIT_FRESH;
    tn_msgq_lock(q);
    while (__builtin_expect((r = tn_msgq_reserve(q, dlen, &data)) == NULL, 0)) {
        /* Full: the receiver has not caught up. Run this rank's own
         * handlers meanwhile (the receiver may be waiting on us). */
        tn_msgq_unlock(q);
        if ((flags & TERN_FLAG_IMMEDIATE) && (flags & TN_XPORT_FLAG_NOPOLL))
            return TERN_ERR_AGAIN;
        int done =
            tn_wait_progress_hook ? tn_wait_progress_hook() : tn_shm_poll(&s->base);
        if (flags & TERN_FLAG_IMMEDIATE) {
            tn_msgq_lock(q);
            if (done > 0 && (r = tn_msgq_reserve(q, dlen, &data)) != NULL)
                break;
            tn_msgq_unlock(q);
            tn_wait_refused();
            return TERN_ERR_AGAIN;
        }
        if (done == 0)
            tn_wait_next(&w);
        else
            tn_wait_progressed(&w);
        tn_msgq_lock(q);
    }
    *qp = q;
    *sp = r;
    *bufp = dlen ? data : r->bytes;
    return TERN_OK; /* the sender's turn stays taken until publish */
}

int tn_shm_msg_prepare(tn_xport_t *x, int rank, size_t n, unsigned flags,
                       tn_xport_msg_t *m)
{
    tn_shm_t *s = (tn_shm_t *)x;
    tn_msgq_t *q;
    tn_msgq_slot_t *r;
    char *buf;
    int rc = room(s, rank, n, flags, &q, &r, &buf);
    if (rc != TERN_OK)
        return rc;
    m->buf = buf;
    m->cap = n;
    m->slot = q;
    m->aux = buf == r->bytes ? UINT64_MAX : 0; /* bytes in the slot: all, or none */
    return TERN_OK;
}

int tn_shm_msg_commit(tn_xport_t *x, tn_xport_msg_t *m, size_t n)
{
    (void)x;
    tn_msgq_t *q = m->slot;
    /* aux: the bytes in the slot (core's fast Prepare may have put the
     * header there and the payload in the data ring), or all of them. */
    tn_msgq_publish(q, &q->slots[q->seq & q->smask], n,
                    m->aux == UINT64_MAX || m->aux > n ? n : (size_t)m->aux);
    return TERN_OK;
}

/* The slot, which the receiver polls, is written last and in one burst:
 * the data part first, then the slot's bytes, then its header with
 * release. */
int tn_shm_msg_send(tn_xport_t *x, int rank, const void *head, size_t hn,
                    const void *payload, size_t len, unsigned flags)
{
    tn_shm_t *s = (tn_shm_t *)x;
    tn_msgq_t *q;
    tn_msgq_slot_t *r;
    char *msg;
    size_t n = hn + len;
    int rc = room(s, rank, n, flags, &q, &r, &msg);
    if (rc != TERN_OK)
        return rc;
    uint64_t *dst = (uint64_t *)msg;
    const uint64_t *src = head;
    for (size_t i = 0; i < hn / 8; i++) /* a few words: no memcpy call */
        dst[i] = src[i];
    if (len)
        memcpy(msg + hn, payload, len);
    tn_msgq_publish(q, r, n, msg == r->bytes ? n : 0);
    return TERN_OK;
}

/* Hands the message of slot r to fn, contiguous (len bytes, inl of them in
 * the slot, the rest in the data ring from offset off, as checked by
 * drain): in place, or (a message that core's fast path split between
 * slot and data, which core drains itself: this is only the transport's
 * own poll) assembled in a copy. */
static void deliver(tn_msgq_t *q, tn_msgq_slot_t *r, size_t len, size_t inl, uint64_t off,
                    tn_xport_recv_fn fn, void *arg)
{
    if (inl == len) {
        fn(arg, q->peer, r->bytes, len);
        return;
    }
    char *data = q->data + off;
    if (inl == 0) {
        fn(arg, q->peer, data, len);
        return;
    }
    char *copy = malloc(len);
    if (!copy) {
        tn_error("no memory for a message of %zu bytes from rank %d: dropped", len,
                 q->peer);
        return;
    }
    memcpy(copy, r->bytes, inl);
    memcpy(copy + inl, data, len - inl);
    fn(arg, q->peer, copy, len);
    free(copy);
}

/* Handles what queue `from` holds (up to TN_MSGQ_DRAIN_MAX messages), each
 * read in place and consumed after its handler returns. This poll runs
 * only where core does not drain the queues itself (core/am.h,
 * tn_am_drain): the transport used alone (mp.xport_contract), and in a job
 * a send that finds its queue full before core has set its progress hook
 * (tern_init, between the transports' start and the first handler's
 * registration). The slot is the writer's: its counts are read once, and
 * a message whose parts lie outside the slot or the ring is dropped with
 * core's bound (tn_msgq_parts_ok), its slot alone consumed. */
static int drain(tn_msgq_t *q, tn_xport_recv_fn fn, void *arg)
{
    if (!tn_msgq_trylock(q))
        return 0; /* another thread of this rank is at it */
    int n = 0;
    tn_msgq_slot_t *r;
    while (n < TN_MSGQ_DRAIN_MAX && (r = tn_msgq_peek(q)) != NULL) {
        size_t len = r->len, inl = r->inl;
        uint64_t d = tn_msgq_data_pos(q, r), off = d & q->dmask;
        if (tn_unlikely(!tn_msgq_parts_ok(q, off, len, inl))) {
            tn_error("message from rank %d is malformed: its slot says %zu bytes, %zu of "
                     "them in the slot (at most %zu) and the rest in a data ring of %llu "
                     "bytes from offset %llu, past its end: dropped",
                     q->peer, len, inl, TN_MSGQ_INLINE, (unsigned long long)q->dmask + 1,
                     (unsigned long long)off);
            tn_msgq_consume_slot(q);
        } else {
            deliver(q, r, len, inl, off, fn, arg);
            if (len == inl)
                tn_msgq_consume_slot(q);
            else
                tn_msgq_consume_to(q, d + TN_MSGQ_LINE(len - inl));
        }
        n++;
    }
    if (n)
        tn_msgq_release(q);
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
