/* A one-way byte ring of variable-size message records in shared memory,
 * written by one sender process and read in place by one receiver
 * process: the mechanism of the shm transport's message queues, inline,
 * so that core can write a small message straight into the ring and drain
 * incoming rings without an indirect call (see xport.h, msg_queue). */
#ifndef TN_XPORT_MSGQ_H
#define TN_XPORT_MSGQ_H

#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/compiler.h"

/* A record: header (16 bytes), then the message, padded to 16 bytes. The
 * header is published last, by a release store of pos (the record's
 * absolute offset in the queue), so the receiver polls the header where
 * the next record must start and finds it valid exactly when pos equals
 * its head: one cache line moves per small message, and the sender reads
 * the receiver's head only when its cached copy says the ring is full.
 * Before publishing a header, the sender marks the place right after the
 * record invalid (pos = ~0), so the receiver never mistakes old bytes for
 * a header. */
typedef struct tn_msgq_rec {
    _Atomic uint64_t pos;
    uint32_t len;
    uint32_t kind;
} tn_msgq_rec_t;
#define TN_MSGQ_HDR ((size_t)sizeof(tn_msgq_rec_t))
enum { TN_MSGQ_MSG = 1, TN_MSGQ_PAD = 2 };
#define TN_MSGQ_BYTES(n)  (((size_t)(n) + TN_MSGQ_HDR + 15u) & ~(size_t)15u)
#define TN_MSGQ_INVALID   UINT64_MAX
#define TN_MSGQ_DRAIN_MAX 64 /* messages handled per queue per poll, for fairness */

/* This process's side of one queue, private, a line of its own (threads
 * using different queues do not share one): where the ring lies here, the
 * sender's tail (out) or the receiver's own copy of head (in), and the turn
 * among this process's threads, taken only when several threads may use
 * the queue (threads). Written at set-up by the transport; afterwards pos,
 * head_seen and turn by whoever holds the turn. */
typedef struct tn_msgq {
    _Alignas(64) char *data; /* the ring's bytes, mapped here */
    _Atomic uint64_t *head;  /* bytes ever consumed: written by the receiver */
    uint64_t mask;           /* ring bytes - 1 (a power of two) */
    uint64_t pos;            /* out: where the next record goes; in: head */
    uint64_t head_seen;      /* out: *head when last read */
    int peer;                /* global rank at the other end */
    int threads;             /* take the turn */
    _Atomic int turn;
} tn_msgq_t;
_Static_assert(sizeof(tn_msgq_t) == 64, "one line per queue side");

static TN_ALWAYS_INLINE tn_msgq_rec_t *tn_msgq_rec(const tn_msgq_t *q, uint64_t pos)
{
    return (tn_msgq_rec_t *)(q->data + (size_t)(pos & q->mask));
}

/* The turn when another thread of this process holds it: out of line, so
 * that the fast path keeps its registers. */
static TN_NOINLINE __attribute__((unused)) void tn_msgq_lock_wait(tn_msgq_t *q)
{
    for (uint64_t i = 0; atomic_exchange_explicit(&q->turn, 1, memory_order_acquire); i++)
        if (i > 64)
            sched_yield();
}

static TN_ALWAYS_INLINE void tn_msgq_lock(tn_msgq_t *q)
{
    if (q->threads && atomic_exchange_explicit(&q->turn, 1, memory_order_acquire))
        tn_msgq_lock_wait(q);
}

static TN_ALWAYS_INLINE int tn_msgq_trylock(tn_msgq_t *q)
{
    return !q->threads || !atomic_exchange_explicit(&q->turn, 1, memory_order_acquire);
}

static TN_ALWAYS_INLINE void tn_msgq_unlock(tn_msgq_t *q)
{
    if (q->threads)
        atomic_store_explicit(&q->turn, 0, memory_order_release);
}

/* Room for a record of need bytes (and the invalid mark after it) at the
 * tail, skipping the ring's end with a pad record when it would not fit
 * before it. With the turn held. Returns the record (q->pos is its offset)
 * or NULL when the receiver has not freed enough yet. About 15
 * instructions when there is room. */
static TN_ALWAYS_INLINE tn_msgq_rec_t *tn_msgq_reserve(tn_msgq_t *q, size_t need)
{
    uint64_t tail = q->pos, ring = q->mask + 1;
    size_t to_end = (size_t)(ring - (tail & q->mask));
    size_t skip = need > to_end ? to_end : 0;
    uint64_t end = tail + skip + need + TN_MSGQ_HDR;
    if (tn_unlikely(end - q->head_seen > ring)) {
        q->head_seen = atomic_load_explicit(q->head, memory_order_acquire);
        if (end - q->head_seen > ring)
            return NULL;
    }
    if (tn_unlikely(skip)) { /* the pad record to the ring's end, published at once */
        atomic_store_explicit(&tn_msgq_rec(q, tail + skip)->pos, TN_MSGQ_INVALID,
                              memory_order_relaxed);
        tn_msgq_rec_t *pad = tn_msgq_rec(q, tail);
        pad->len = (uint32_t)(to_end - TN_MSGQ_HDR);
        pad->kind = TN_MSGQ_PAD;
        atomic_store_explicit(&pad->pos, tail, memory_order_release);
        q->pos = tail + skip;
    }
    return tn_msgq_rec(q, q->pos);
}

/* The turn and room for an n-byte message: the record, or NULL (turn not
 * held) when the ring is full. */
static TN_ALWAYS_INLINE tn_msgq_rec_t *tn_msgq_try_begin(tn_msgq_t *q, size_t n)
{
    tn_msgq_lock(q);
    tn_msgq_rec_t *r = tn_msgq_reserve(q, TN_MSGQ_BYTES(n));
    if (tn_unlikely(!r))
        tn_msgq_unlock(q);
    return r;
}

/* Marks the place after an n-byte record at q->pos invalid. Written first
 * by a sender that fills the record itself: that line's transfer then
 * overlaps the rest. */
static TN_ALWAYS_INLINE void tn_msgq_mark_next(tn_msgq_t *q, size_t n)
{
    atomic_store_explicit(&tn_msgq_rec(q, q->pos + TN_MSGQ_BYTES(n))->pos,
                          TN_MSGQ_INVALID, memory_order_relaxed);
}

/* Publishes the n-byte record r at q->pos (its message written, the mark
 * after it too) and gives the turn back. */
static TN_ALWAYS_INLINE void tn_msgq_publish(tn_msgq_t *q, tn_msgq_rec_t *r, size_t n)
{
    uint64_t at = q->pos;
    r->len = (uint32_t)n;
    r->kind = TN_MSGQ_MSG;
    atomic_store_explicit(&r->pos, at, memory_order_release);
    q->pos = at + TN_MSGQ_BYTES(n);
    tn_msgq_unlock(q);
}

/* Receiver, with the turn held: the next message's record, or NULL when
 * there is none yet (pad records are skipped and consumed). */
static TN_ALWAYS_INLINE tn_msgq_rec_t *tn_msgq_peek(tn_msgq_t *q)
{
    for (;;) {
        uint64_t head = q->pos;
        tn_msgq_rec_t *r = tn_msgq_rec(q, head);
        if (atomic_load_explicit(&r->pos, memory_order_acquire) != head)
            return NULL;
        if (tn_likely(r->kind != TN_MSGQ_PAD))
            return r;
        q->pos = head + TN_MSGQ_HDR + r->len;
        atomic_store_explicit(q->head, q->pos, memory_order_release);
    }
}

/* Receiver: gives r's room back to the sender (after its handler ran). */
static TN_ALWAYS_INLINE void tn_msgq_consume(tn_msgq_t *q, const tn_msgq_rec_t *r)
{
    q->pos += TN_MSGQ_BYTES(r->len);
    atomic_store_explicit(q->head, q->pos, memory_order_release);
}

/* Copies n bytes that fit in one line (n < 64) without a call: 8-byte words
 * then bytes. */
static TN_ALWAYS_INLINE void tn_msgq_copy_small(char *dst, const char *src, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, src + i, 8);
        memcpy(dst + i, &w, 8);
    }
    for (; i < n; i++)
        dst[i] = src[i];
}

/* Writes payload (len bytes) at msg + off of the record r, where off ends
 * the part core writes itself (header, arguments): the bytes past the
 * record's first line first, with one memcpy, and returns how many bytes
 * at the start of the payload share the first line (the caller writes
 * them last, with the header: the receiver spins reading that line, so
 * the line should change hands once). */
static TN_ALWAYS_INLINE size_t tn_msgq_payload_tail(tn_msgq_rec_t *r, size_t off,
                                                    const void *payload, size_t len)
{
    char *dst = (char *)(r + 1) + off;
    size_t in_first = (size_t)(-(uintptr_t)dst & 63);
    if (in_first >= len)
        return len;
    memcpy(dst + in_first, (const char *)payload + in_first, len - in_first);
    return in_first;
}

#endif
