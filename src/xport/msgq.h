/* A one-way message queue in shared memory, written by one sender process
 * and read in place by one receiver process: the mechanism of the shm
 * transport's message queues, inline, so that core can write a small
 * message straight into the queue and drain incoming queues without an
 * indirect call (see xport.h, msg_queue). */
#ifndef TN_XPORT_MSGQ_H
#define TN_XPORT_MSGQ_H

#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/compiler.h"

/* A queue is a ring of slots of one cache line each and a ring of data
 * bytes. A message of n bytes lives in one slot: its first `inl` bytes in
 * the slot's line (all of them when n <= TN_MSGQ_INLINE), the other n - inl
 * in the data ring, from a line boundary. The slot is published last, by a
 * release store of seq (the slot's absolute index), so the receiver polls
 * one line and finds a message there exactly when seq equals its own count:
 * a small message moves one cache line, as a raw flag does. Slots only ever
 * hold slot headers, so an old slot can never pass for a new one (its seq
 * is a lap behind) and nothing has to be marked invalid ahead of the
 * writer. The data ring is filled in order and wraps to its start when a
 * message's data would not fit before its end, or, for data of 1 KiB and
 * more, when the receiver has drained it (TN_MSGQ_ACK_MIN, TN_MSGQ_REUSE_MIN,
 * tn_msgq_restart_skip; the slot says so: WRAP), so
 * the receiver finds the data where the sender put it without an offset in
 * the slot; it reads the data only when its handler does, and the sender's
 * payload lines therefore stay in the sender's cache, as a raw ping-pong's
 * payload does (measured: a byte ring where the receiver polled the record
 * that followed each payload pulled the payload lines to the receiver's
 * cache, and 1 KiB messages cost 1.8x a raw ping-pong; see
 * docs/design/active-messages.md). */
typedef struct tn_msgq_slot {
    _Alignas(64) _Atomic uint64_t seq; /* absolute index when valid */
    uint32_t len;                      /* message bytes */
    uint16_t inl;                      /* of which in the slot (the first) */
    uint16_t kind;                     /* TN_MSGQ_MSG | TN_MSGQ_WRAP */
    char bytes[48];
} tn_msgq_slot_t;
_Static_assert(sizeof(tn_msgq_slot_t) == 64, "one line per slot");
#define TN_MSGQ_INLINE ((size_t)sizeof(((tn_msgq_slot_t *)0)->bytes))
enum { TN_MSGQ_MSG = 1, TN_MSGQ_WRAP = 2, TN_MSGQ_ACK = 4 };
/* ACK: the slot's last 8 bytes (TN_MSGQ_ACK_AT; the message keeps at most
 * that many bytes in the slot) hold the writer's count of data bytes
 * consumed from the queue in the other direction, the reader's queue to
 * the writer, counted after the message this one answers was consumed
 * (tn_msgq_publish_held). The reader then knows its own ring drained
 * without reading the counts' line (tn_msgq_note_ack). */
#define TN_MSGQ_ACK_AT    (TN_MSGQ_INLINE - 8)
#define TN_MSGQ_INVALID   UINT64_MAX
#define TN_MSGQ_DRAIN_MAX 64 /* messages handled per queue per poll, for fairness */
#define TN_MSGQ_LINE(n)   (((size_t)(n) + 63u) & ~(size_t)63u)

/* Data parts of at least this many bytes go back to the data ring's start
 * whenever the receiver has drained the ring (tn_msgq_restart_skip), so
 * that a ping-pong of large messages writes the same lines every time, as
 * a raw ping-pong does, instead of walking through the whole ring (with
 * TERN_AM_MEDIUM_MAX=64K a 256 KiB ring: out of the first-level cache, and
 * 16 KiB Mediums cost 2.3-2.9x the raw ping-pong). Knowing it costs the
 * sender a read of the receiver's counts, a line the receiver writes once
 * per drain; measured (docs/design/active-messages.md), that pays from
 * 16 KiB and costs at 4-8 KiB, where the prefetch of the next message's
 * lines (tn_msgq_prefetch_next) does as well. */
#define TN_MSGQ_REUSE_MIN 16384

/* Data parts of at least this many bytes (and less than TN_MSGQ_REUSE_MIN)
 * go back to the data ring's start too, but only when an ACK says the ring
 * is drained (tn_msgq_restart_skip never reads the counts' line for them:
 * a flood, which brings no ACK, walks the ring as before and pays no
 * read). They are the messages that carry ACKs (tn_msgq_can_ack) and whose
 * fast Replies are held (core's tn_am_drain_large): a ping-pong of 1 KiB
 * Mediums then writes the same lines every time, as the raw ping-pong
 * does (docs/design/active-messages.md, eighth pass). */
#define TN_MSGQ_ACK_MIN 1024

/* The receiver's counts, on a line of their own before the slots: written
 * by the receiver once per drain (not per message), read by the sender only
 * when its cached copy says the queue is full. */
typedef struct tn_msgq_heads {
    _Alignas(64) _Atomic uint64_t slots; /* slots ever consumed */
    _Atomic uint64_t data;               /* data-ring bytes ever consumed */
} tn_msgq_heads_t;

/* This process's side of one queue, private, two lines of its own: the
 * first holds all the receiver uses. Written at set-up by the transport;
 * afterwards by whoever holds the turn, which is taken only when several
 * threads may use the queue (threads). */
typedef struct tn_msgq {
    _Alignas(64) tn_msgq_slot_t *slots; /* the slot ring, mapped here */
    char *data;                         /* the data ring, mapped here */
    tn_msgq_heads_t *heads;             /* the receiver's counts, mapped here */
    uint64_t seq;                       /* next slot to write / to read */
    uint64_t dpos;                      /* next data byte to write / to read */
    uint32_t smask, dmask;              /* ring sizes - 1 (powers of two) */
    int peer;                           /* global rank at the other end */
    int threads;                        /* take the turn */
    _Atomic int turn;
    /* sender only */
    _Alignas(64) uint64_t slots_seen; /* the receiver's counts when last read */
    uint64_t data_seen;
    uint64_t wrap; /* reserve: data skipped to the ring's start */
    /* The receiver's count of data bytes consumed, as its last ACK said:
     * written by whichever thread of this process drains the queue from
     * that receiver (its turn held: one writer), read by the sender. */
    _Atomic uint64_t acked;
    /* The queue from the same peer into this process, whose consumed count
     * a large message carries as an ACK (tn_msgq_publish_ack); NULL when
     * several threads may drain it (its count is then not this sender's to
     * read). Set at set-up. */
    const struct tn_msgq *back;
    /* Receiver side: this process's queue back to the sender, whose next
     * slot tn_msgq_prefetch_answer asks for and where the ACKs of the
     * sender's messages are recorded (tn_msgq_note_ack); NULL when several
     * threads may send on it (its count is then not the drainer's to
     * read). Set at set-up. */
    struct tn_msgq *answer;
} tn_msgq_t;
_Static_assert(sizeof(tn_msgq_t) == 128, "two lines per queue side");

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

/* Sender: the receiver's count of data bytes consumed, read again (a line
 * the receiver writes once per drain). Kept monotonic: tn_msgq_restart_skip may
 * have counted skipped bytes as consumed before the receiver passed them. */
static TN_ALWAYS_INLINE void tn_msgq_seen_data(tn_msgq_t *q)
{
    uint64_t h = atomic_load_explicit(&q->heads->data, memory_order_acquire);
    if (h > q->data_seen)
        q->data_seen = h;
}

/* tn_msgq_reserve's skip for data of at least TN_MSGQ_ACK_MIN (dlen) bytes
 * that would fit before the ring's end (out of line, so that the ordinary
 * path keeps its registers): to_end, going back to the ring's start, when
 * the receiver has drained the ring (consumed every byte before d); 0
 * otherwise. The skipped bytes then hold nothing and count as consumed at
 * once, so the skip costs no room. Learnt from the cached count or an ACK;
 * the receiver's counts line is read only for data of at least
 * TN_MSGQ_REUSE_MIN bytes, and only when neither says the ring is
 * drained. */
static TN_NOINLINE __attribute__((unused)) uint64_t
tn_msgq_restart_skip(tn_msgq_t *q, uint64_t d, uint64_t to_end, size_t need, size_t dlen)
{
    uint64_t ring = (uint64_t)q->dmask + 1;
    /* Not at the start already, and the start's room is counted as free
     * by the room check once the ring is drained (need <= d's offset). */
    if (to_end == ring || to_end + need > ring)
        return 0;
    if (q->data_seen != d) {
        /* An ACK (a Reply's) usually says so: no read of the counts' line,
         * which the receiver has just written, on the critical path. */
        uint64_t a = atomic_load_explicit(&q->acked, memory_order_acquire);
        if (a > q->data_seen)
            q->data_seen = a;
    }
    if (q->data_seen != d && dlen >= TN_MSGQ_REUSE_MIN)
        tn_msgq_seen_data(q);
    if (q->data_seen != d)
        return 0;
    q->data_seen = d + to_end;
    return to_end;
}

/* Sender, with the turn held: whether the next slot is free (the
 * receiver's head re-read only when the last one seen says full). */
static TN_ALWAYS_INLINE int tn_msgq_slot_free(tn_msgq_t *q)
{
    if (tn_unlikely(q->seq - q->slots_seen > q->smask)) {
        q->slots_seen = atomic_load_explicit(&q->heads->slots, memory_order_acquire);
        if (q->seq - q->slots_seen > q->smask)
            return 0;
    }
    return 1;
}

/* Sender: whether the data ring has room up to position end (the
 * receiver's consumed position re-read only when the last one seen says
 * no). */
static TN_ALWAYS_INLINE int tn_msgq_data_room(tn_msgq_t *q, uint64_t end)
{
    uint64_t ring = (uint64_t)q->dmask + 1;
    if (tn_unlikely(end - q->data_seen > ring)) {
        tn_msgq_seen_data(q);
        if (end - q->data_seen > ring)
            return 0;
    }
    return 1;
}

/* Sender: where need bytes of a dlen-byte message go in the data ring
 * from position d (to_end bytes before its end): *skip bytes skipped
 * first (to the ring's start when they do not fit before its end, or by
 * tn_msgq_restart_skip from restart_min bytes on); whether there is room. */
static TN_ALWAYS_INLINE int tn_msgq_place(tn_msgq_t *q, uint64_t d, uint64_t to_end,
                                          size_t need, size_t dlen, size_t restart_min,
                                          uint64_t *skip)
{
    uint64_t k = need > to_end ? to_end : 0;
    if (!k && dlen >= restart_min)
        k = tn_msgq_restart_skip(q, d, to_end, need, dlen);
    *skip = k;
    return tn_msgq_data_room(q, d + k + need);
}

/* Sender, with the turn held: a slot, and room for dlen bytes in the data
 * ring (*data, line-aligned; skipping to the ring's start when they would
 * not fit before its end). NULL when the receiver has not freed enough yet.
 * About 15 instructions when there is room. */
static TN_ALWAYS_INLINE tn_msgq_slot_t *tn_msgq_reserve(tn_msgq_t *q, size_t dlen,
                                                        char **data)
{
    if (!tn_msgq_slot_free(q))
        return NULL;
    /* wrap is read only for a message with a data part (tn_msgq_fill_slot),
     * which reserves one: a slot-only reserve leaves it. */
    if (dlen) {
        uint64_t d = q->dpos, ring = (uint64_t)q->dmask + 1,
                 to_end = ring - (d & q->dmask);
        size_t need = TN_MSGQ_LINE(dlen);
        uint64_t skip;
        if (!tn_msgq_place(q, d, to_end, need, dlen, TN_MSGQ_ACK_MIN, &skip))
            return NULL;
        q->wrap = skip;
        *data = q->data + ((d + skip) & q->dmask);
    }
    return &q->slots[q->seq & q->smask];
}

/* tn_msgq_reserve for data of at least TN_MSGQ_ACK_MIN bytes, with
 * tn_msgq_restart_skip inline: the ACK is looked at first (a word of this
 * side's own line), and when the receiver has drained the ring and the
 * data fits at its start, they go there with no room check (a drained
 * ring has room for all of it); the skipped bytes count as consumed at
 * once, as there. Otherwise as tn_msgq_reserve: the same answer in every
 * case, with one call fewer. */
static TN_ALWAYS_INLINE tn_msgq_slot_t *tn_msgq_reserve_ack(tn_msgq_t *q, size_t dlen,
                                                            char **data)
{
    if (!tn_msgq_slot_free(q))
        return NULL;
    uint64_t d = q->dpos, ring = (uint64_t)q->dmask + 1, off = d & q->dmask,
             to_end = ring - off, need = TN_MSGQ_LINE(dlen), skip;
    uint64_t a = atomic_load_explicit(&q->acked, memory_order_acquire);
    if (a > q->data_seen)
        q->data_seen = a;
    if (tn_likely(q->data_seen == d && need <= (off ? off : ring))) {
        skip = off ? to_end : 0;
        q->data_seen = d + skip;
    } else {
        if (!tn_msgq_place(q, d, to_end, need, dlen, TN_MSGQ_REUSE_MIN, &skip))
            return NULL;
    }
    q->wrap = skip;
    *data = q->data + ((d + skip) & q->dmask);
    return &q->slots[q->seq & q->smask];
}

/* The turn and room for a message with dlen bytes in the data ring: the
 * slot, or NULL (turn not held) when the queue is full; ack (a constant):
 * reserved by tn_msgq_reserve_ack (dlen >= TN_MSGQ_ACK_MIN). */
static TN_ALWAYS_INLINE tn_msgq_slot_t *tn_msgq_try_begin_as(tn_msgq_t *q, size_t dlen,
                                                             char **data, int ack)
{
    tn_msgq_lock(q);
    tn_msgq_slot_t *s =
        ack ? tn_msgq_reserve_ack(q, dlen, data) : tn_msgq_reserve(q, dlen, data);
    if (tn_unlikely(!s))
        tn_msgq_unlock(q);
    return s;
}

static TN_ALWAYS_INLINE tn_msgq_slot_t *tn_msgq_try_begin(tn_msgq_t *q, size_t dlen,
                                                          char **data)
{
    return tn_msgq_try_begin_as(q, dlen, data, 0);
}

/* tn_msgq_try_begin with tn_msgq_reserve_ack. */
static TN_ALWAYS_INLINE tn_msgq_slot_t *tn_msgq_try_begin_ack(tn_msgq_t *q, size_t dlen,
                                                              char **data)
{
    return tn_msgq_try_begin_as(q, dlen, data, 1);
}

/* The slot's fields for a message of n bytes (inl of them in the slot) of
 * this kind, its data part taken; its sequence number (not yet stored). */
static TN_ALWAYS_INLINE uint64_t tn_msgq_fill_slot(tn_msgq_t *q, tn_msgq_slot_t *s,
                                                   size_t n, size_t inl, unsigned kind)
{
    if (n > inl) {
        kind |= q->wrap ? TN_MSGQ_WRAP : 0;
        q->dpos += q->wrap + TN_MSGQ_LINE(n - inl);
    }
    s->len = (uint32_t)n;
    s->inl = (uint16_t)inl;
    s->kind = (uint16_t)kind;
    return q->seq;
}

/* Publishes the message of the reserved slot s: n bytes, the first inl in
 * the slot, the rest written to the data reserved (at most as many bytes
 * as reserved), and gives the turn back. */
static TN_ALWAYS_INLINE void tn_msgq_publish(tn_msgq_t *q, tn_msgq_slot_t *s, size_t n,
                                             size_t inl)
{
    uint64_t seq = tn_msgq_fill_slot(q, s, n, inl, TN_MSGQ_MSG);
    atomic_store_explicit(&s->seq, seq, memory_order_release);
    q->seq = seq + 1;
    tn_msgq_unlock(q);
}

/* As tn_msgq_publish, but the slot is not made visible yet: the message
 * is complete and its place taken (later messages may be written, and
 * even published, behind it: the receiver reads in order, so they wait
 * for it), and the turn is given back. tn_msgq_publish_held makes it
 * visible with an ACK; until then the receiver sees nothing from this
 * queue, so the caller must not wait for anything before that. Only for
 * messages that tn_msgq_can_ack. The slot's sequence number,
 * for tn_msgq_publish_held. */
static TN_ALWAYS_INLINE uint64_t tn_msgq_publish_hold(tn_msgq_t *q, tn_msgq_slot_t *s,
                                                      size_t n, size_t inl)
{
    uint64_t seq = tn_msgq_fill_slot(q, s, n, inl, TN_MSGQ_MSG | TN_MSGQ_ACK);
    q->seq = seq + 1;
    tn_msgq_unlock(q);
    return seq;
}

/* Whether a message of n bytes, inl of them in its slot, can carry an ACK:
 * it has a data part (a receiver looks for ACKs only in such messages)
 * and leaves the slot's last 8 bytes free. */
static TN_ALWAYS_INLINE int tn_msgq_can_ack(size_t n, size_t inl)
{
    return n > inl && inl <= TN_MSGQ_ACK_AT;
}

/* Makes the held slot s (sequence number seq) visible, with ack: this
 * process's count of data bytes consumed from the queue in the other
 * direction (that queue's receiver side's dpos, after consume). */
static TN_ALWAYS_INLINE void tn_msgq_publish_held(tn_msgq_slot_t *s, uint64_t seq,
                                                  uint64_t ack)
{
    memcpy(s->bytes + TN_MSGQ_ACK_AT, &ack, sizeof ack);
    atomic_store_explicit(&s->seq, seq, memory_order_release);
}

/* tn_msgq_publish with an ACK of what this process has consumed from
 * q->back (not NULL, and only one thread here drains it: no handler of it
 * runs now, or the one that runs has not had its message counted yet),
 * for a message that tn_msgq_can_ack. The peer's next large message then
 * goes back to its ring's start without reading this process's counts. */
static TN_ALWAYS_INLINE void tn_msgq_publish_ack(tn_msgq_t *q, tn_msgq_slot_t *s,
                                                 size_t n, size_t inl)
{
    uint64_t ack = q->back->dpos;
    tn_msgq_publish_held(s, tn_msgq_publish_hold(q, s, n, inl), ack);
}

/* Receiver, for a slot s with TN_MSGQ_ACK: records its ACK in out, this
 * process's queue back to s's writer (the drainer of the queue s is in
 * calls it, holding that queue's turn, so there is one writer at a time).
 * The count only grows. */
static TN_ALWAYS_INLINE void tn_msgq_note_ack(tn_msgq_t *out, const tn_msgq_slot_t *s)
{
    uint64_t ack;
    memcpy(&ack, s->bytes + TN_MSGQ_ACK_AT, sizeof ack);
    if (ack > atomic_load_explicit(&out->acked, memory_order_relaxed))
        atomic_store_explicit(&out->acked, ack, memory_order_release);
}

/* Sender, after publishing a message with fewer than TN_MSGQ_REUSE_MIN
 * bytes of data that did not go back to the ring's start (one that did,
 * or a larger one, likely has a successor that goes back there too, whose
 * lines this one wrote): asks for the lines from data-ring
 * offset next (where the next message's data will start, read while the
 * turn was held) that a message of n bytes will write, all of them, so
 * that they reach this core's first-level cache while it waits for an
 * answer rather than when it next sends. All, not the first 4 KiB: at
 * 8 KiB the copy then finds every line in the first-level cache, measured
 * about 30 ns less per half round trip (docs/design/active-messages.md).
 * Reads only what set-up wrote. */
static TN_ALWAYS_INLINE void tn_msgq_prefetch_next(const tn_msgq_t *q, uint64_t next,
                                                   size_t n)
{
    for (size_t o = 0; o < n; o += 64)
        __builtin_prefetch(q->data + ((next + o) & q->dmask), 1, 3);
}

/* Asks for the line at p for writing (x86: prefetchw; AMD since K8, Intel
 * since Broadwell). */
static TN_ALWAYS_INLINE void tn_msgq_prefetchw(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("prefetchw %0" ::"m"(*(const char *)p));
#else
    __builtin_prefetch(p, 1, 3);
#endif
}

/* Receiver, when a message has arrived (before its handler runs): asks
 * for the line of the next slot of the queue back to its sender, for
 * writing. A handler's answer (a Reply, or the sender's next Request after
 * a Reply) goes there, and the sender spins reading that line, so each
 * answer's first store waited for the line to be taken from the other
 * core; asked for now, that transfer overlaps the dispatch and the
 * handler, as in a raw ping-pong, whose one store follows the flag's
 * read at once (docs/design/active-messages.md, seventh pass). A hint: it
 * changes no value, and a line taken back by the sender's next read is
 * only fetched again. */
static TN_ALWAYS_INLINE void tn_msgq_prefetch_answer(const tn_msgq_t *q)
{
    const tn_msgq_t *a = q->answer;
    if (a)
        tn_msgq_prefetchw(&a->slots[a->seq & a->smask]);
}

/* Receiver, with the turn held: the slot where the next message appears,
 * and whether it has (a drain loop tests them apart, with no NULL). */
static TN_ALWAYS_INLINE tn_msgq_slot_t *tn_msgq_head(tn_msgq_t *q)
{
    return &q->slots[q->seq & q->smask];
}

static TN_ALWAYS_INLINE int tn_msgq_ready(const tn_msgq_t *q, const tn_msgq_slot_t *s)
{
    return atomic_load_explicit(&s->seq, memory_order_acquire) == q->seq;
}

/* Receiver, with the turn held: the next message's slot, or NULL when there
 * is none yet. */
static TN_ALWAYS_INLINE tn_msgq_slot_t *tn_msgq_peek(tn_msgq_t *q)
{
    tn_msgq_slot_t *s = tn_msgq_head(q);
    return tn_msgq_ready(q, s) ? s : NULL;
}

/* Receiver: the data-ring position (a count, as dpos) where the data part
 * of s's message starts (meaningful when s->len > s->inl). */
static TN_ALWAYS_INLINE uint64_t tn_msgq_data_pos(const tn_msgq_t *q,
                                                  const tn_msgq_slot_t *s)
{
    uint64_t d = q->dpos;
    if (tn_unlikely(s->kind & TN_MSGQ_WRAP))
        d += (uint64_t)q->dmask + 1 - (d & q->dmask);
    return d;
}

/* Receiver: where the data-ring part of s's message starts (meaningful
 * when s->len > s->inl). */
static TN_ALWAYS_INLINE char *tn_msgq_data(const tn_msgq_t *q, const tn_msgq_slot_t *s)
{
    return q->data + (tn_msgq_data_pos(q, s) & q->dmask);
}

/* Receiver: whether a message of len bytes, inl of them in its slot and
 * the rest in the data ring from offset off (tn_msgq_data_pos), lies
 * where a slot and the ring can hold it: at most TN_MSGQ_INLINE bytes in
 * the slot, and a data part that ends before the ring's end (a writer
 * skips to the ring's start rather than wrap one). Any counts: a slot-only
 * message (len == inl) is bound by the slot, inl > len fails. The slot is
 * the writer's: a message that fails is not read. Core's drain and the
 * transport's own poll (shm_msg.c) both check with it. */
static TN_ALWAYS_INLINE int tn_msgq_parts_ok(const tn_msgq_t *q, uint64_t off, size_t len,
                                             size_t inl)
{
    /* len - inl: a huge count when inl > len, and off < ring: no wrap. */
    return (inl <= TN_MSGQ_INLINE) & (len - inl <= (uint64_t)q->dmask + 1 - off);
}

/* Receiver: the data bytes consumed once s's message is. */
static TN_ALWAYS_INLINE uint64_t tn_msgq_dpos_after(const tn_msgq_t *q,
                                                    const tn_msgq_slot_t *s)
{
    if (s->len > s->inl)
        return tn_msgq_data_pos(q, s) + TN_MSGQ_LINE(s->len - s->inl);
    return q->dpos;
}

/* Receiver: the message at the head is done with, the data ring consumed
 * up to position dpos (tn_msgq_dpos_after); its room is given back to the
 * sender by tn_msgq_release. */
static TN_ALWAYS_INLINE void tn_msgq_consume_to(tn_msgq_t *q, uint64_t dpos)
{
    q->dpos = dpos;
    q->seq++;
}

/* Receiver: s's message is done with (after its handler ran). */
static TN_ALWAYS_INLINE void tn_msgq_consume(tn_msgq_t *q, const tn_msgq_slot_t *s)
{
    tn_msgq_consume_to(q, tn_msgq_dpos_after(q, s));
}

/* tn_msgq_consume of a message that lies in its slot only (len == inl,
 * known to the caller): no data bytes, so the slot's fields are not read
 * again after the handler. */
static TN_ALWAYS_INLINE void tn_msgq_consume_slot(tn_msgq_t *q)
{
    q->seq++;
}

/* Receiver: gives the room of every consumed message back (once per
 * drain: the counts' line changes hands only when the sender reads it). */
static TN_ALWAYS_INLINE void tn_msgq_release(tn_msgq_t *q)
{
    atomic_store_explicit(&q->heads->data, q->dpos, memory_order_release);
    atomic_store_explicit(&q->heads->slots, q->seq, memory_order_release);
}

/* Copies n bytes that fit in one line (n < 64) without a call: 8-byte words,
 * the last ending at n, or bytes when n < 8. */
static TN_ALWAYS_INLINE void tn_msgq_copy_small(char *dst, const char *src, size_t n)
{
    uint64_t w;
    if (n >= 8) {
        /* Whole words, the last one ending at n (it may overlap the one
         * before): 8 bytes are one load and one store, no loop. */
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&w, src + i, 8);
            memcpy(dst + i, &w, 8);
        }
        memcpy(&w, src + n - 8, 8);
        memcpy(dst + n - 8, &w, 8);
        return;
    }
    for (size_t i = 0; i < n; i++)
        dst[i] = src[i];
}

#endif
