/* Active messages inside core: the wire header every message starts with,
 * the handler table and the token, shared by the receive side (am.c) and
 * the send side (am_send.c). */
#ifndef TN_CORE_AM_H
#define TN_CORE_AM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tern.h>

#include "core/core.h"
#include "xport/msgq.h"

/* Categories on the wire; TN_AM_REPLY marks a Reply. LONG: the payload is
 * in the target's segment already; LONG_INLINE: it follows the arguments
 * and the receiver copies it to dest before the handler runs (Long over
 * the network up to the Medium size, so one message instead of two). */
enum { TN_AM_SHORT = 0, TN_AM_MEDIUM = 1, TN_AM_LONG = 2, TN_AM_LONG_INLINE = 3 };
#define TN_AM_REPLY 0x10u
#define TN_AM_VOID  0xffu /* a refused Commit's message: skipped */
#define TN_AM_CAT   0x0fu
_Static_assert(TN_AM_REPLY == TN_AM_TOK_REPLY, "a token's state holds the kind byte");

typedef struct tn_am_hdr {
    uint16_t handler;
    uint8_t kind; /* TN_AM_* | TN_AM_REPLY */
    uint8_t nargs;
    uint32_t len;  /* payload bytes (Medium, Long) */
    uint64_t dest; /* Long: the address in the target's segment */
} tn_am_hdr_t;
_Static_assert(sizeof(tn_am_hdr_t) + TERN_AM_MAX_ARGS * 8 == TN_XPORT_MSG_OVERHEAD,
               "transports size their buffers for this");

/* Message bytes before the payload. */
static inline size_t tn_am_head_bytes(int nargs)
{
    return sizeof(tn_am_hdr_t) + (size_t)nargs * sizeof(tern_am_arg_t);
}

/* A Reply by a direct queue, written but held back until its Request has
 * been consumed (tn_am_drain_large): the slot and its sequence number, or
 * slot NULL (always, outside that function's handlers: it publishes the
 * slot and clears it). One per thread: handlers never run inside
 * handlers. */
typedef struct tn_am_held {
    tn_msgq_slot_t *slot;
    uint64_t seq;
} tn_am_held_t;
extern TN_TLS_FAST _Thread_local tn_am_held_t tn_am_held;

/* Tern's own handlers (atomics, VIS packing, collectives, OpenSHMEM) live
 * past the client's indexes, in blocks of 8 per module, so that a client
 * can never take or call them. */
enum {
    TN_AMH_ATOMIC = TERN_AM_MAX_HANDLERS,
    TN_AMH_VIS = TN_AMH_ATOMIC + 8,
    TN_AMH_COLL = TN_AMH_VIS + 8,
    TN_AMH_SHMEM = TN_AMH_COLL + 8,
    TN_AMH_SIGNAL = TN_AMH_SHMEM + 8,
    TN_AMH_CORE = TN_AMH_SIGNAL + 8,
    TN_AMH_DONE = TN_AMH_CORE, /* tn_am_reply_done */
    TN_AMH_FIN,                /* tn_am_quiesce: a rank's last Request */
    TN_AMH_FIN_ACK,            /* its Reply */
    TN_AMH_PAGG,               /* combined nbi puts (core/put_agg.c) */
    TN_AMH_PAGG_ACK,           /* their Reply */
    TN_AM_HANDLER_SLOTS = TN_AMH_CORE + 8
};

/* The Reply that ends a Request sent for a completion object (accumulate,
 * put with signal, packed puts): a Short to TN_AMH_DONE with [0] status,
 * [1] comp, the initiator's tn_comp_t (0: nothing to complete, then no
 * Reply is sent). Its handler completes comp with the status. */
int tn_am_reply_done(const char *call, tern_am_token_t token, int status,
                     tern_am_arg_t comp);
/* Registers the TN_AMH_DONE and TN_AMH_FIN handlers (with the modules'
 * handlers, in a job with network peers) and starts noting the ranks this
 * one sends Requests to (tn_am_note_request). TERN_OK or TERN_ERR_NOMEM. */
int tn_am_done_init(void);

/* Per rank, 1 when this rank sent it a Request by a transport's messages
 * (not a direct queue) since tn_am_quiesce last ran; NULL in a job without
 * network peers (nothing noted). */
extern _Atomic unsigned char *tn_am_requested;

/* A Request to rank went by a transport's messages (am_send.c's general
 * path): tern_finalize waits for it to be handled (tn_am_quiesce). */
static inline void tn_am_note_request(int rank)
{
    _Atomic unsigned char *q = tn_am_requested;
    if (q && !atomic_load_explicit(&q[rank], memory_order_relaxed))
        atomic_store_explicit(&q[rank], 1, memory_order_relaxed);
}

/* tern_finalize, before its barrier: sends a Request (TN_AMH_FIN) to every
 * rank this one sent Requests to by a transport's messages and waits for
 * each one's Reply. Requests from one rank to another are handled in the
 * order sent, and the Reply is queued behind the Replies that wait for
 * room there, so once all have come back every Request this rank sent
 * has been handled and every Reply to it has arrived: what was still
 * packed or in flight is not lost when the peer leaves the barrier and
 * closes its endpoint. Returns the first error of a send (the others
 * still wait). */
int tn_am_quiesce(const char *call);

/* Put with signal across nodes (core/signal.c): registers its handlers. */
void tn_signal_am_init(void);

/* The handler table, indexed by the header's handler field: the client's
 * handlers, then Tern's own (TN_AMH_*), then NULL up to TN_AM_HANDLER_TABLE
 * entries, so that an index the slot check lets through (below 512,
 * tn_am_slot_need) always lies in the table and one past the handlers is
 * refused as an unregistered one is. Function pointers alone (8 bytes a
 * row: one scaled load), names apart. */
#define TN_AM_HANDLER_TABLE 512
_Static_assert(TN_AM_HANDLER_SLOTS <= TN_AM_HANDLER_TABLE,
               "the table holds every handler");
extern _Atomic(tern_am_handler_t) tn_am_fn[TN_AM_HANDLER_TABLE];
extern char tn_am_names[TN_AM_HANDLER_SLOTS][32];

/* Registers one of Tern's own handlers (id in [TERN_AM_MAX_HANDLERS,
 * TN_AM_HANDLER_SLOTS)). Called by a module during tern_init, on every
 * rank, before any peer can send (tn_core_am_internal_init); idempotent,
 * kept across finalize. Also makes every waiting call run handlers. */
void tn_am_register_internal(int id, tern_am_handler_t fn, const char *name);

/* Messages to Tern's own handlers: as the public calls, for an id of
 * tn_am_register_internal. cat is TN_AM_SHORT, TN_AM_MEDIUM or TN_AM_LONG
 * (buf/len/dest as for the public call of that category). A Request may
 * not be sent from a handler; a Reply only from the Request's handler. */
int tn_am_request_internal(const char *call, int rank, int id, int cat, const void *buf,
                           size_t len, void *dest, const tern_am_arg_t *args, int nargs,
                           unsigned flags);
int tn_am_reply_internal(const char *call, tern_am_token_t token, int id, int cat,
                         const void *buf, size_t len, void *dest,
                         const tern_am_arg_t *args, int nargs, unsigned flags);
/* Negotiated-payload Medium Request to one of Tern's own handlers (a packer
 * writes straight into sd->buf): tern_am_prepare_request_medium, then
 * tn_am_commit_request_internal with the id. */
int tn_am_commit_request_internal(tern_am_sd_t *sd, int id, size_t len,
                                  const tern_am_arg_t *args);
/* The same for a negotiated-payload Medium Reply (tern_am_prepare_reply_medium
 * from the Request's handler, then this with the id). */
int tn_am_commit_reply_internal(tern_am_sd_t *sd, int id, size_t len,
                                const tern_am_arg_t *args);

/* The direct queue in which this thread last found a message
 * (tn_am_drain), or NULL: the queue a waiting call watches first, where
 * the answer to what this thread just sent comes in a ping-pong
 * (core/sync.c, watch_direct). */
extern TN_TLS_FAST _Thread_local tn_msgq_t *tn_am_last_in;

/* Largest Medium payload to rank (its message transport's limit and
 * TERN_AM_MEDIUM_MAX); 0 when no transport carries messages to it. */
size_t tn_am_medium_max(int rank);

/* A Reply that found no room: a copy of the whole message (head, hn bytes,
 * then payload, len bytes), sent by later progress (tn_am_progress).
 * TERN_OK or TERN_ERR_NOMEM. */
int tn_am_defer(int rank, const void *head, size_t hn, const void *payload, size_t len);

/* ---- the fast path of a small message ------------------------------------ */

/* A message the fast dispatch does not take (a Long, a void, a Long-inline,
 * or a bad one): checked and handled as tn_am_recv does. A Long's
 * destination must lie in this rank's segment. */
void tn_am_recv_slow(int src, void *buf, size_t n);
/* The same for a message of n bytes whose first room are at buf and the
 * rest at pay (NULL: all at buf). */
void tn_am_recv_split(int src, void *buf, size_t room, void *pay, size_t n);

/* Runs the handler of the message from src whose header and arguments are
 * at buf (room bytes readable there) and whose Medium payload is at pay
 * (plen bytes there), or right after the arguments when pay is NULL (then
 * within room); the token is the thread's (core.h, tn_am_tok). A Short or a
 * Medium; any other kind goes to tn_am_recv_split. Every check of a
 * well-formed message is one rarely taken branch; the header's claims are
 * checked against what the message holds: its arguments within room, a
 * Medium's payload within plen (or room). About 50 instructions around the
 * handler (callgrind). */
static TN_ALWAYS_INLINE void tn_am_dispatch_at(int src, void *buf, size_t room, void *pay,
                                               size_t plen, int hold)
{
    tn_am_hdr_t *h = buf;
    unsigned kind = h->kind, cat = kind & ~TN_AM_REPLY, nargs = h->nargs;
    unsigned handler = h->handler;
    size_t head = tn_am_head_bytes((int)nargs);
    size_t mlen = cat == TN_AM_MEDIUM ? h->len : 0;
    tern_am_handler_t fn = NULL;
    if (tn_unlikely(
            (cat > TN_AM_MEDIUM) | (nargs > TERN_AM_MAX_ARGS) |
                (handler >= TN_AM_HANDLER_SLOTS) ||
            (pay ? (head > room) | (mlen > plen) : head + mlen > room) ||
            !(fn = atomic_load_explicit(&tn_am_fn[handler], memory_order_acquire)))) {
        tn_am_recv_split(src, buf, room, pay, pay ? room + plen : room);
        return;
    }
    tern_am_arg_t *args = (tern_am_arg_t *)(h + 1);
    void *b = cat == TN_AM_MEDIUM ? (pay ? pay : (void *)(args + nargs)) : NULL;
    /* The token (core.h): the sender and the state in one store, cleared
     * after the call (handlers never run inside handlers). */
    tern_am_token_t tok =
        tn_am_tok_next(src, kind | TN_AM_TOK_RUN | (hold ? TN_AM_TOK_HELD : 0));
    fn(tok, b, mlen, args, (int)nargs);
    tn_am_tok.state = 0;
}

/* The same for a message in one piece. */
static TN_ALWAYS_INLINE void tn_am_dispatch(int src, void *buf, size_t n)
{
    tn_am_dispatch_at(src, buf, n, NULL, 0, 0);
}

/* The header's first 8 bytes read as one word (little-endian): handler in
 * bits 0-15, kind 16-23, nargs 24-31, len 32-63. TN_AM_SLOT_MASK: the bits
 * that are 0 in every Short and Medium whose header, arguments and payload
 * fit in a slot's TN_MSGQ_INLINE bytes: the handler's above 511 (the
 * table's size), the kind's other than TN_AM_MEDIUM and TN_AM_REPLY (so a
 * Long, a void or an unknown kind has one), nargs' above 7, len's above
 * 63. Each is worth 512 or more, so tn_am_slot_need is at most
 * TN_MSGQ_INLINE exactly when none is set and the header, nargs arguments
 * and len payload bytes fit in the slot: one compare for kind, handler
 * range, argument count and length; it cannot wrap (the word's bits 32-37
 * are not in the mask, so the sum stays below 2^64). */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "tn_am_slot_need reads the header as a little-endian word"
#endif
_Static_assert(offsetof(tn_am_hdr_t, handler) == 0 && offsetof(tn_am_hdr_t, kind) == 2 &&
                   offsetof(tn_am_hdr_t, nargs) == 3 && offsetof(tn_am_hdr_t, len) == 4,
               "the header's first word: handler, kind, nargs, len");
#define TN_AM_SLOT_MASK                                                            \
    ((uint64_t)0xfe00u | (uint64_t)(0xffu & ~(TN_AM_MEDIUM | TN_AM_REPLY)) << 16 | \
     (uint64_t)0xf8u << 24 | (uint64_t)0xffffffc0u << 32)
_Static_assert(TN_AM_HANDLER_TABLE == 512 && TN_MSGQ_INLINE < 512,
               "every bit of TN_AM_SLOT_MASK is worth more than a slot holds");
static TN_ALWAYS_INLINE uint64_t tn_am_slot_need(uint64_t w, unsigned nargs, uint32_t len)
{
    return (w & TN_AM_SLOT_MASK) + tn_am_head_bytes((int)nargs) + len;
}

/* A slot message the slot dispatch does not take (a Long, a void, a bad
 * one): checked and handled by the general dispatch, with the slot's bytes
 * as the message. Out of line, so that the drain keeps its registers. */
void tn_am_recv_slot_other(int src, void *buf);

/* Runs the handler of a message wholly in a slot's line (buf, the slot's
 * TN_MSGQ_INLINE bytes): a Short or a Medium whose header, arguments and
 * payload fit there (anything else goes to tn_am_recv_slot_other). The
 * header is one word, checked with one compare (tn_am_slot_need: kind,
 * handler range, argument count, length within the slot), then the
 * handler's entry; the slot's own length field is not needed: the slot is
 * the bound. About 16 instructions of checks where tn_am_dispatch_at made
 * about 23 (active-messages.md, twenty-third pass). */
static TN_ALWAYS_INLINE void tn_am_dispatch_slot(int src, void *buf)
{
    const tn_am_hdr_t *h = buf;
    uint64_t w;
    memcpy(&w, buf, sizeof w);
    /* The fields read again from the line rather than shifted out of w:
     * one load each where a shift and a move are two. */
    unsigned nargs = h->nargs;
    uint32_t len = h->len;
    tern_am_handler_t fn;
    if (tn_unlikely(
            tn_am_slot_need(w, nargs, len) > TN_MSGQ_INLINE ||
            !(fn = atomic_load_explicit(&tn_am_fn[h->handler], memory_order_acquire)))) {
        tn_am_recv_slot_other(src, buf);
        return;
    }
    unsigned kind = h->kind;
    tern_am_arg_t *args = (tern_am_arg_t *)((char *)buf + sizeof(tn_am_hdr_t));
    void *b = NULL;
    if (kind & TN_AM_MEDIUM)
        b = args + nargs;
    else
        len = 0;
    tern_am_token_t tok = tn_am_tok_next(src, kind | TN_AM_TOK_RUN);
    fn(tok, b, len, args, (int)nargs);
    tn_am_tok.state = 0;
}

/* A message whose slot says its parts lie outside the slot or the data
 * ring (tn_msgq_parts_ok): logged and dropped, its slot consumed (a peer
 * that wrote it has broken its own queue; the others go on). */
void tn_am_recv_bad_parts(tn_msgq_t *q, tn_msgq_slot_t *r);

/* tn_am_drain from a message with a data part that carries an ACK (a
 * Reply to a Request of TN_MSGQ_ACK_MIN or more: recorded for the queue
 * back to its sender) or is that large (its fast Reply is held, then
 * published with an ACK once the message is consumed), n messages handled
 * before it: handles it and the rest as tn_am_drain does, gives the room
 * back and the turn. Out of line
 * and last, so that the ordinary drain keeps its registers. The messages
 * handled. */
int tn_am_drain_large(tn_msgq_t *q, tn_msgq_slot_t *r, int n);

/* Handles what the direct queue q holds (up to TN_MSGQ_DRAIN_MAX messages),
 * each read in place (header and arguments in the slot, a larger payload
 * in the data ring, where the sender wrote it) and consumed after its
 * handler returns; the room goes back to the sender once, at the end.
 * Threads of this rank take turns per queue (a try: a queue another
 * thread drains is skipped). The messages handled. A drain that finds a
 * message first asks for the slot line its answer will take in the queue
 * back to the sender (tn_msgq_prefetch_answer), so that the line's
 * transfer overlaps the dispatch and the handler.
 *
 * A Request whose data part is large enough to go back to the ring's
 * start (TN_MSGQ_ACK_MIN, 1 KiB) has its fast Reply held until the Request
 * is consumed, then published with an ACK of this queue's consumed bytes:
 * the sender's next such message then goes back to the start without
 * reading the counts' line this rank has just written (50-70 ns of a
 * 16 KiB round trip), and writes the same hot lines every time (1-8 KiB:
 * 5-16 ns of a half round trip; docs/design/active-messages.md). The
 * Reply becomes visible when the handler returns rather than when it is
 * sent, which a handler may not wait for anyway. */
static TN_ALWAYS_INLINE int tn_am_drain(tn_msgq_t *q)
{
    if (!tn_msgq_trylock(q))
        return 0;
    tn_msgq_slot_t *r = tn_msgq_head(q);
    if (!tn_msgq_ready(q, r)) {
        tn_msgq_unlock(q);
        return 0;
    }
    tn_msgq_prefetch_answer(q);
    tn_am_last_in = q;
    int n = 0;
    do {
        size_t len = r->len, inl = r->inl;
        if (tn_likely(inl == len)) {
            tn_am_dispatch_slot(q->peer, r->bytes);
            tn_msgq_consume_slot(q);
        } else {
            if (len >= TN_MSGQ_ACK_MIN) /* every ACK's message is */
                return tn_am_drain_large(q, r, n);
            uint64_t d = tn_msgq_data_pos(q, r), off = d & q->dmask;
            if (tn_unlikely(!tn_msgq_parts_ok(q, off, len, inl))) {
                tn_am_recv_bad_parts(q, r);
            } else {
                if (inl)
                    tn_am_dispatch_at(q->peer, r->bytes, inl, q->data + off, len - inl,
                                      0);
                else
                    tn_am_dispatch_at(q->peer, q->data + off, len, NULL, 0, 0);
                tn_msgq_consume_to(q, d + TN_MSGQ_LINE(len - inl));
            }
        }
        n++;
    } while (n < TN_MSGQ_DRAIN_MAX && tn_msgq_ready(q, r = tn_msgq_head(q)));
    tn_msgq_release(q);
    tn_msgq_unlock(q);
    return n;
}

#endif
