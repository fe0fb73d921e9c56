/* Active messages, send side: Requests and Replies of every category with
 * fixed payload, and the negotiated-payload Medium (prepare, commit). Each
 * message is assembled straight into the buffer its transport prepares (on
 * shared memory, the receiver's queue). */
#include <string.h>

#include "base/copy.h"
#include "base/log.h"
#include "core/am.h"

/* What a send is about, checked before anything is reserved. */
typedef struct am_send {
    const char *call;
    int rank;
    int is_reply;
    int cat; /* TN_AM_SHORT .. TN_AM_LONG_INLINE */
    int handler;
    const void *payload;
    size_t len;
    void *dest;
    const tern_am_arg_t *args;
    int nargs;
    unsigned flags;
    int internal; /* one of Tern's own handlers (tn_am_request_internal) */
} am_send_t;

/* The handler indexes a send may name: the client's, or Tern's own. */
static TN_ALWAYS_INLINE int handler_ok(int handler, int internal)
{
    int lo = internal ? TERN_AM_MAX_HANDLERS : 0;
    int hi = internal ? TN_AM_HANDLER_SLOTS : TERN_AM_MAX_HANDLERS;
    return handler >= lo && handler < hi;
}

static int check_common(const am_send_t *s)
{
    if (s->flags & ~TERN_FLAGS_KNOWN_)
        return tn_core_fail(TERN_ERR_INVALID, s->call,
                            "flags 0x%x: bits 0x%x are not TERN_FLAG_* values", s->flags,
                            s->flags & ~TERN_FLAGS_KNOWN_);
    if (s->rank < 0 || s->rank >= tn_core.size)
        return tn_core_fail(TERN_ERR_RANK, s->call, "rank %d is not in [0, %d)", s->rank,
                            tn_core.size);
    if (!handler_ok(s->handler, s->internal))
        return tn_core_fail(TERN_ERR_INVALID, s->call,
                            "handler index %d is not in [0, %d)", s->handler,
                            TERN_AM_MAX_HANDLERS);
    if (!atomic_load_explicit(&tn_am_fn[s->handler], memory_order_relaxed))
        return tn_core_fail(TERN_ERR_INVALID, s->call,
                            "handler index %d is not registered (every rank registers "
                            "its handlers with tern_am_register before they are used)",
                            s->handler);
    if (s->nargs < 0 || s->nargs > TERN_AM_MAX_ARGS || (s->nargs && !s->args))
        return tn_core_fail(
            TERN_ERR_INVALID, s->call,
            "%d arguments%s: at most %d, and args may be NULL only with 0", s->nargs,
            s->nargs && !s->args ? " with args NULL" : "", TERN_AM_MAX_ARGS);
    if (!tn_core_peer(s->rank)->msg)
        return tn_core_fail(TERN_ERR_UNSUPPORTED, s->call,
                            "no transport of this job carries messages to rank %d",
                            s->rank);
    return TERN_OK;
}

/* Every check of check_common at once: one rarely taken branch on the fast
 * path; check_common then says what is wrong. */
static TN_ALWAYS_INLINE int send_ok(const am_send_t *s)
{
    return !(s->flags & ~TERN_FLAGS_KNOWN_) &
               ((unsigned)s->rank < (unsigned)tn_core.size) &
               handler_ok(s->handler, s->internal) &
               ((unsigned)s->nargs <= TERN_AM_MAX_ARGS) &
               (s->nargs == 0 || s->args != NULL) &&
           atomic_load_explicit(&tn_am_fn[s->handler], memory_order_relaxed) &&
           tn_core_peer(s->rank)->msg;
}

/* The token of a Reply: the running Request handler's, once. */
static int check_token(const char *call, tern_am_token_t t, int *rank)
{
    if (tn_am_tok.state & TN_AM_TOK_PREPARED)
        return tn_am_refuse(call, "send");
    if (!tn_am_token_live(t))
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "not inside the handler the token belongs to (a Reply is "
                            "sent from its Request's handler)");
    if (tn_am_tok.state & TN_AM_TOK_REPLY)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "the token is a Reply's: a Reply handler cannot reply");
    if (tn_am_tok.state & TN_AM_TOK_REPLIED)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "this Request was answered already (one Reply per Request)");
    *rank = tn_am_tok.src;
    return TERN_OK;
}

static TN_ALWAYS_INLINE void write_head(void *buf, const am_send_t *s, int cat,
                                        size_t len, void *dest)
{
    tn_am_hdr_t *h = buf;
    h->handler = (uint16_t)s->handler;
    h->kind = (uint8_t)(cat | (s->is_reply ? TN_AM_REPLY : 0));
    h->nargs = (uint8_t)s->nargs;
    h->len = (uint32_t)len;
    h->dest = (uint64_t)(uintptr_t)dest;
    /* A few words, copied here: the empty asm keeps GCC from turning the
     * loop into a memcpy call, which costs more than the copy. */
    tern_am_arg_t *a = (tern_am_arg_t *)(h + 1);
    for (int i = 0; i < s->nargs; i++) {
        a[i] = s->args[i];
        __asm__("" ::: "memory");
    }
}

/* Reserves n bytes toward s->rank. A Reply never waits and never runs
 * other handlers: with no room it gets TERN_ERR_AGAIN (the caller's
 * IMMEDIATE) or is queued (*deferred set, m->buf a private buffer). */
static int reserve(const am_send_t *s, size_t n, tn_xport_msg_t *m, void **deferred)
{
    tn_core_xport_t *xp = tn_core_peer(s->rank)->msg;
    *deferred = NULL;
    if (!s->is_reply) { /* this thread's combined puts to the peer first */
        int rc = tn_pagg_before(s->rank, s->flags);
        if (rc != TERN_OK)
            return rc;
    }
    unsigned fl = s->is_reply ? TERN_FLAG_IMMEDIATE | TN_XPORT_FLAG_NOPOLL : s->flags;
    int rc = xp->ops.msg_prepare(xp->x, s->rank, n, fl, m);
    if (__builtin_expect(rc == TERN_OK, 1))
        return TERN_OK;
    if (rc != TERN_ERR_AGAIN || !s->is_reply || (s->flags & TERN_FLAG_IMMEDIATE))
        return rc == TERN_ERR_AGAIN ? rc
               : rc == TERN_OK      ? TERN_OK
                                    : tn_core_fail(rc, s->call,
                                                   "sending to rank %d "
                                                        "failed",
                                                   s->rank);
    *deferred = malloc(n);
    if (!*deferred)
        return tn_core_fail(TERN_ERR_NOMEM, s->call, "no memory to queue a Reply");
    m->buf = *deferred;
    m->cap = n;
    return TERN_OK;
}

static int finish(const am_send_t *s, tn_xport_msg_t *m, void *deferred, size_t n)
{
    if (__builtin_expect(deferred != NULL, 0)) {
        int rc = tn_am_defer(s->rank, deferred, n, NULL, 0);
        free(deferred);
        return rc == TERN_OK ? TERN_OK
                             : tn_core_fail(rc, s->call, "no memory to queue a Reply");
    }
    tn_core_xport_t *xp = tn_core_peer(s->rank)->msg;
    if (!s->is_reply)
        tn_am_note_request(s->rank);
    return xp->ops.msg_commit(xp->x, m, n);
}

/* One message with the payload inline (Short, Medium, small Long over the
 * network) or already in place (Long to a mapped peer): the header and
 * arguments assembled here, the whole message handed to the transport in
 * one call. A Reply that finds no room is queued (tn_am_defer). */
static TN_ALWAYS_INLINE int send_one(const am_send_t *s, int cat,
                                     const void *inline_payload, size_t len, void *dest)
{
    uint64_t head[(TN_XPORT_MSG_OVERHEAD) / 8];
    write_head(head, s, cat, len, dest);
    size_t hn = tn_am_head_bytes(s->nargs), pn = inline_payload ? len : 0;
    tn_core_xport_t *xp = tn_core_peer(s->rank)->msg;
    unsigned fl = s->is_reply ? TERN_FLAG_IMMEDIATE | TN_XPORT_FLAG_NOPOLL : s->flags;
    int rc = xp->ops.msg_send(xp->x, s->rank, head, hn, inline_payload, pn, fl);
    if (__builtin_expect(rc == TERN_OK, 1)) {
        if (!s->is_reply)
            tn_am_note_request(s->rank);
        return TERN_OK;
    }
    if (rc == TERN_ERR_AGAIN && s->is_reply && !(s->flags & TERN_FLAG_IMMEDIATE)) {
        rc = tn_am_defer(s->rank, head, hn, inline_payload, pn);
        return rc == TERN_OK ? TERN_OK
                             : tn_core_fail(rc, s->call, "no memory to queue a Reply");
    }
    return rc == TERN_ERR_AGAIN
               ? rc
               : tn_core_fail(rc, s->call, "sending to rank %d failed", s->rank);
}

static TN_ALWAYS_INLINE int am_send(am_send_t *s)
{
    int rc = TERN_OK;
    if (__builtin_expect(!send_ok(s), 0) && (rc = check_common(s)) != TERN_OK)
        return rc;
    /* This thread's combined puts to the peer are written first. */
    if (!s->is_reply && (rc = tn_pagg_before(s->rank, s->flags)) != TERN_OK)
        return rc;
    if (s->len && !s->payload)
        return tn_core_fail(TERN_ERR_INVALID, s->call, "payload is NULL with %zu bytes",
                            s->len);
    if (s->cat == TN_AM_SHORT)
        return send_one(s, TN_AM_SHORT, NULL, 0, NULL);
    size_t max = tn_am_medium_max(s->rank);
    if (s->cat == TN_AM_MEDIUM) {
        if (s->len > max)
            return tn_core_fail(TERN_ERR_INVALID, s->call,
                                "Medium payload of %zu bytes to rank %d: at most %zu "
                                "(tern_am_max_medium; TERN_AM_MEDIUM_MAX)",
                                s->len, s->rank, max);
        return send_one(s, TN_AM_MEDIUM, s->payload, s->len, NULL);
    }
    /* Long: the destination lies in the target's segment. */
    rc = tn_core_check_seg(s->call, s->rank, s->dest, s->len);
    if (rc != TERN_OK)
        return rc;
    if (s->len > UINT32_MAX)
        return tn_core_fail(TERN_ERR_INVALID, s->call,
                            "Long payload of %zu bytes: at most 4 GiB - 1 per message",
                            s->len);
    void *mapped = tern_ptr(s->rank, s->dest);
    if (mapped || s->len == 0) { /* written in place, then announced */
        if (s->len)
            memcpy(mapped, s->payload, s->len);
        return send_one(s, TN_AM_LONG, NULL, s->len, s->dest);
    }
    if (s->len <= max) /* one message: the target copies it into place */
        return send_one(s, TN_AM_LONG_INLINE, s->payload, s->len, s->dest);
    if (s->is_reply)
        return tn_core_fail(TERN_ERR_INVALID, s->call,
                            "Long Reply of %zu bytes over the network: at most %zu "
                            "(tern_am_max_long_reply), since a Reply may not wait",
                            s->len, max);
    /* A network write with remote completion, then the announcement. With
     * IMMEDIATE the announcement's room is not known before the write:
     * the write is done anyway and the call waits for room. */
    tn_rma_t d = {TN_RMA_PUT, s->rank, (void *)s->payload, s->dest, s->len};
    rc = tn_core_rma_blocking(s->call, &d, 0);
    if (rc != TERN_OK)
        return rc;
    s->flags &= ~TERN_FLAG_IMMEDIATE;
    return send_one(s, TN_AM_LONG, NULL, s->len, s->dest);
}

/* ---- the fast path --------------------------------------------------------- */

/* A Short or fixed-payload Medium to a peer with a direct queue (a node
 * peer, or this rank, on shm) is written straight into the receiver's ring
 * (xport/msgq.h): no descriptor, no staging on the stack, no call through
 * the transport. Every check of check_common and the Medium limit is a
 * rarely taken branch of its own (fast_ok): a compare and a jump each,
 * with no register to hold its result. Folded into one branch (a flag
 * set and and-ed per check) the first seven were 33 instructions of the
 * Medium Request where these are 21, and took registers that the call
 * then saved on the stack (scripts/am-cost.sh: Medium 8 B 327.1 -> 316.1,
 * 1 KiB 701.0 -> 690.0, Short 282.1 -> 278.1; fast_prepare and the
 * Commits likewise, negotiated 8 B 367.1 -> 356.1;
 * docs/design/active-messages.md, twenty-first pass). A send that fails
 * one, or finds the ring full, takes the general path, which says what was
 * wrong or waits for room (or queues a Reply) exactly as before. */
static TN_ALWAYS_INLINE tn_msgq_t *fast_ok(int rank, int handler, int lo, int hi,
                                           const void *payload, size_t len,
                                           const tern_am_arg_t *args, int nargs,
                                           unsigned flags, int small)
{
    /* Direct queues go to this node's ranks only: the index in the span
     * (out of it for any other rank, a bad one included) checks the rank. */
    unsigned i = (unsigned)(rank - tn_core.span_first);
    if (tn_unlikely(!tn_core.initialized))
        return NULL;
    if (tn_unlikely(flags & ~TERN_FLAGS_KNOWN_))
        return NULL;
    if (tn_unlikely(i >= (unsigned)tn_core.span))
        return NULL;
    if (tn_unlikely((unsigned)handler - (unsigned)lo >= (unsigned)(hi - lo)))
        return NULL;
    /* small: the caller's slot_fits passed, which bounds nargs to 4. */
    if (!small && tn_unlikely((unsigned)nargs > TERN_AM_MAX_ARGS))
        return NULL;
    if (tn_unlikely(nargs != 0 && args == NULL))
        return NULL;
    if (tn_unlikely(len != 0 && payload == NULL))
        return NULL;
    tn_msgq_t *q = tn_core.peers[i].msgq;
    return q && len <= tn_core.peers[i].am_medium_max &&
                   atomic_load_explicit(&tn_am_fn[handler], memory_order_relaxed)
               ? q
               : NULL;
}

/* Where a message of head bytes of header and arguments and len of
 * payload lies in a direct queue: all in the slot's line when it fits
 * there; else header and arguments in the slot and the payload in the data
 * ring (the receiver reads the payload only when its handler does); else
 * (more than 4 arguments) all in the data ring. */
enum { AM_IN_SLOT, AM_SPLIT, AM_IN_DATA };
static TN_ALWAYS_INLINE int am_layout(size_t head, size_t len)
{
    return head + len <= TN_MSGQ_INLINE ? AM_IN_SLOT
           : head <= TN_MSGQ_INLINE     ? AM_SPLIT
                                        : AM_IN_DATA;
}

/* Bytes of such a message in the data ring, and in the slot. */
static TN_ALWAYS_INLINE size_t am_data_bytes(int layout, size_t head, size_t len)
{
    return layout == AM_IN_SLOT ? 0 : layout == AM_SPLIT ? len : head + len;
}

/* Publishes a message with a payload of at least TN_MSGQ_ACK_MIN bytes
 * (n bytes, inl in the slot, its data part at data), the only ones that
 * carry an ACK, so that tn_am_drain looks for one with the length compare
 * it makes anyway. hold: a Reply to a Request that tn_am_drain_large holds
 * it for (one of at least TN_MSGQ_ACK_MIN bytes): the slot is published
 * when the Request has been consumed, with an ACK. Otherwise the message
 * carries an ACK of what this rank consumed from the peer (when one thread
 * alone drains that queue: q->back), so that the peer's next one goes back
 * to its ring's start with no read of our counts. A message that went back
 * to the ring's start (its successor likely does too: the lines are hot)
 * or that is large does not prefetch the next lines; one that walks on (no
 * ACK came: a flood) does, as a smaller one. Inline in fast_send's large
 * branch (it was out of line: 80 instructions more per 1 KiB round trip,
 * scripts/am-cost.sh); small messages' counts are the same either way. */
static TN_ALWAYS_INLINE void publish_large(tn_msgq_t *q, tn_msgq_slot_t *r, size_t n,
                                           size_t inl, int hold, const char *data,
                                           size_t len)
{
    uint64_t next = (uint64_t)(data - q->data) + TN_MSGQ_LINE(n - inl);
    if (hold && tn_msgq_can_ack(n, inl)) {
        tn_am_held.seq = tn_msgq_publish_hold(q, r, n, inl);
        tn_am_held.slot = r;
    } else if (q->back && tn_msgq_can_ack(n, inl)) {
        tn_msgq_publish_ack(q, r, n, inl);
    } else {
        tn_msgq_publish(q, r, n, inl);
    }
    if (data != q->data && len < TN_MSGQ_REUSE_MIN)
        tn_msgq_prefetch_next(q, next, len);
}

/* Whether header, nargs arguments and len payload bytes fit in a slot's
 * line, nargs taken as unsigned: true only for nargs in [0, 4] (a negative
 * count is a huge one here), unless len is so large that the sum wraps,
 * which fast_ok's Medium limit then refuses. So fast_ok need not bound
 * nargs again after it. */
static TN_ALWAYS_INLINE int slot_fits(int nargs, size_t len)
{
    return sizeof(tn_am_hdr_t) + (uint64_t)(unsigned)nargs * sizeof(tern_am_arg_t) +
               len <=
           TN_MSGQ_INLINE;
}

/* fast_send of a message that fits in its slot's line (header, at most 4
 * arguments, a payload of at most 32 bytes): no data part, so the queue's
 * reserve and publish fold to their slot-only form; the header is
 * assembled in registers. 0, or 1 when the queue is full (nothing written). */
static TN_ALWAYS_INLINE int slot_send(tn_msgq_t *q, int handler, unsigned kind,
                                      const void *payload, size_t len, uint32_t hlen,
                                      const tern_am_arg_t *args, int nargs, int small)
{
    char *data;
    tn_msgq_slot_t *r;
    if (small) {
        /* The turn held by another thread: 1, and the caller's _rest
         * function waits for it (no call here). */
        if (tn_unlikely(!tn_msgq_trylock(q)))
            return 1;
        r = tn_msgq_reserve(q, 0, &data);
        if (tn_unlikely(!r)) {
            tn_msgq_unlock(q);
            return 1;
        }
    } else {
        r = tn_msgq_try_begin(q, 0, &data);
        if (tn_unlikely(!r))
            return 1;
    }
    /* The header's first word only: a Short or a Medium has no destination,
     * and no receiver reads the second (tn_am_dispatch_slot). */
    tn_am_hdr_t h = {(uint16_t)handler, (uint8_t)kind, (uint8_t)nargs, hlen, 0};
    memcpy(r->bytes, &h, 8);
    tern_am_arg_t *a = (tern_am_arg_t *)(r->bytes + sizeof(tn_am_hdr_t));
    for (int i = 0; i < nargs; i++) {
        a[i] = args[i];
        __asm__("" ::: "memory"); /* a few words: no memcpy call */
    }
    size_t n = tn_am_head_bytes(nargs) + len;
    tn_msgq_copy_small((char *)(a + nargs), payload, len);
    tn_msgq_publish(q, r, n, n);
    return 0;
}

/* Writes the message into rank's queue and publishes it: 0, or 1 when the
 * queue is full (nothing written). The payload goes first, then the slot's
 * line, which the receiver polls: header, arguments and a small payload,
 * then the slot's header with release, so that the line changes hands
 * once. Its cost, with the call's checks: a Short Request is about 82
 * instructions (scripts/am-cost.sh, callgrind). hold: a Reply whose Request
 * tn_am_drain_large holds it for (it is published there, with an ACK); a
 * message with a large payload carries an ACK of what this rank consumed
 * from the peer, so that the peer's next large one needs no read of our
 * counts either (docs/design/active-messages.md). */
static TN_ALWAYS_INLINE int fast_send(tn_msgq_t *q, int handler, unsigned kind,
                                      const void *payload, size_t len, uint32_t hlen,
                                      void *dest, const tern_am_arg_t *args, int nargs,
                                      int hold, int small)
{
    size_t hn = tn_am_head_bytes(nargs), n = hn + len;
    /* small: the caller's test again (folded with it); otherwise fast_ok
     * bounded nargs, and the layout's tests below fold with this one. */
    if (tn_likely(small ? slot_fits(nargs, len) : n <= TN_MSGQ_INLINE))
        return slot_send(q, handler, kind, payload, len, hlen, args, nargs, small);
    if (small)
        return 1;
    int layout = am_layout(hn, len);
    char *data = NULL;
    tn_msgq_slot_t *r = layout == AM_SPLIT && len >= TN_MSGQ_ACK_MIN
                            ? tn_msgq_try_begin_ack(q, len, &data)
                            : tn_msgq_try_begin(q, am_data_bytes(layout, hn, len), &data);
    if (tn_unlikely(!r))
        return 1;
    tn_am_hdr_t *h = (tn_am_hdr_t *)r->bytes;
    if (layout == AM_SPLIT)
        tn_copy_msg(data, payload, len);
    else if (tn_unlikely(layout == AM_IN_DATA)) {
        if (len) /* a Short with many arguments has no payload (NULL) */
            tn_copy_msg(data + hn, payload, len);
        h = (tn_am_hdr_t *)data;
    }
    h->handler = (uint16_t)handler;
    h->kind = (uint8_t)kind;
    h->nargs = (uint8_t)nargs;
    h->len = hlen;
    h->dest = (uint64_t)(uintptr_t)dest;
    tern_am_arg_t *a = (tern_am_arg_t *)(h + 1);
    for (int i = 0; i < nargs; i++) {
        a[i] = args[i];
        __asm__("" ::: "memory"); /* a few words: no memcpy call */
    }
    if (layout == AM_IN_SLOT) {
        tn_msgq_copy_small((char *)(a + nargs), payload, len);
        tn_msgq_publish(q, r, n, n);
        return 0;
    }
    size_t inl = layout == AM_SPLIT ? hn : 0;
    if (len >= TN_MSGQ_ACK_MIN) {
        publish_large(q, r, n, inl, hold, data, len);
        return 0;
    }
    /* Where the next message's data goes: known before publish gives the
     * turn back. */
    uint64_t next = (uint64_t)(data - q->data) + TN_MSGQ_LINE(n - inl);
    tn_msgq_publish(q, r, n, inl);
    tn_msgq_prefetch_next(q, next, len);
    return 0;
}

/* A Long to a node peer: the payload is copied into the target's segment
 * here, then announced by a message without payload. 0 when sent (the
 * destination checked by the inline segment test), 1 for the general path
 * (which names what is wrong). */
static TN_ALWAYS_INLINE int fast_long(int rank, int handler, int lo, int hi,
                                      unsigned kind, const void *payload, size_t len,
                                      void *dest, const tern_am_arg_t *args, int nargs,
                                      unsigned flags)
{
    intptr_t d;
    if (!((fast_ok(rank, handler, lo, hi, payload, 0, args, nargs, flags, 0) != NULL) &
              (len == 0 || payload != NULL) & (len <= UINT32_MAX) &&
          tern_fast_ok_(rank, dest, len, &d)))
        return 1;
    /* The room first, so that a full queue leaves nothing written. */
    tn_msgq_t *q = tn_core.peers[rank - tn_core.span_first].msgq;
    size_t hn = tn_am_head_bytes(nargs);
    if (tn_unlikely(hn > TN_MSGQ_INLINE))
        return 1;
    char *data;
    tn_msgq_slot_t *r = tn_msgq_try_begin(q, 0, &data);
    if (tn_unlikely(!r))
        return 1;
    if (len)
        memcpy((char *)dest + d, payload, len);
    tn_am_hdr_t *h = (tn_am_hdr_t *)r->bytes;
    h->handler = (uint16_t)handler;
    h->kind = (uint8_t)kind;
    h->nargs = (uint8_t)nargs;
    h->len = (uint32_t)len;
    h->dest = (uint64_t)(uintptr_t)dest;
    tern_am_arg_t *a = (tern_am_arg_t *)(h + 1);
    for (int i = 0; i < nargs; i++) {
        a[i] = args[i];
        __asm__("" ::: "memory");
    }
    tn_msgq_publish(q, r, hn, hn);
    return 0;
}

/* A Request by the fast path: 0 when sent. small (a constant): only a
 * message that fits in its slot's line (slot_send), 1 for any other, so
 * that the code has no call and keeps its values in the registers a call
 * may clobber (request_short_rest). */
static TN_ALWAYS_INLINE int fast_request(int rank, int handler, int internal, int cat,
                                         const void *payload, size_t len,
                                         const tern_am_arg_t *args, int nargs,
                                         unsigned flags, int small)
{
    int lo = internal ? TERN_AM_MAX_HANDLERS : 0;
    int hi = internal ? TN_AM_HANDLER_SLOTS : TERN_AM_MAX_HANDLERS;
    if (cat == TN_AM_SHORT) /* a Short carries no payload, whatever len says */
        payload = NULL, len = 0;
    if (small && !slot_fits(nargs, len))
        return 1; /* before any check: a larger message pays one compare */
    tn_msgq_t *q =
        fast_ok(rank, handler, lo, hi, payload, len, args, nargs, flags, small);
    return !(q && !tn_am_in_handler) ||
           fast_send(q, handler, (unsigned)cat, payload, len, (uint32_t)len, NULL, args,
                     nargs, 0, small);
}

/* A Reply by the fast path: 0 when sent (the token then marked); small
 * as for fast_request. */
static TN_ALWAYS_INLINE int fast_reply(tern_am_token_t t, int handler, int internal,
                                       int cat, const void *payload, size_t len,
                                       const tern_am_arg_t *args, int nargs,
                                       unsigned flags, int small)
{
    int lo = internal ? TERN_AM_MAX_HANDLERS : 0;
    int hi = internal ? TN_AM_HANDLER_SLOTS : TERN_AM_MAX_HANDLERS;
    if (cat == TN_AM_SHORT)
        payload = NULL, len = 0;
    if (small && !slot_fits(nargs, len))
        return 1;
    tn_core_effects_release();
    tn_msgq_t *q;
    if (!(tn_am_token_replyable(t) &&
          (q = fast_ok(tn_am_tok.src, handler, lo, hi, payload, len, args, nargs, flags,
                       small))) ||
        fast_send(q, handler, (unsigned)cat | TN_AM_REPLY, payload, len, (uint32_t)len,
                  NULL, args, nargs, (tn_am_tok.state & TN_AM_TOK_HELD) != 0, small))
        return 1;
    tn_am_tok.state |= TN_AM_TOK_REPLIED;
    return 0;
}

/* ---- fixed payload --------------------------------------------------------- */

/* The general path of a fixed-payload Request: every check, the wait for
 * room, Long. Out of line but not cold: every Long takes it. */
static __attribute__((noinline)) int request(const char *call, int rank, int handler,
                                             int cat, const void *buf, size_t len,
                                             void *dest, const tern_am_arg_t *args,
                                             int nargs, unsigned flags)
{
    TN_CHECK_INIT(call);
    TN_NOT_IN_HANDLER(call);
    am_send_t s = {call, rank, 0, cat, handler, buf, len, dest, args, nargs, flags};
    return am_send(&s);
}

/* The Short calls are in two parts. The call itself sends a Short that
 * fits in its slot's line (fast_request's small form: no call, so the
 * function saves few registers) and otherwise ends in a tail call, a
 * jump, to its _rest function, which has the call's own arguments: the
 * fast path of a Short with more arguments, then the general path. One
 * function for both saved and restored six registers for every Short,
 * which only the general path needs (19 instructions; scripts/am-cost.sh,
 * docs/design/active-messages.md, sixteenth pass). The Medium calls stay
 * in one piece: split the same way, a 1 KiB Medium paid 6 to 21
 * instructions more for 7 to 12 less at 8 bytes (sixteenth, twentieth
 * passes); split after the checks, so that none runs twice, 32 more; and
 * with fast_ok's checks as separate branches the whole call does as well
 * at 8 bytes as any split (twenty-first pass). */
static __attribute__((noinline)) int request_short_rest(int rank, int handler,
                                                        const tern_am_arg_t *args,
                                                        int nargs, unsigned flags)
{
    if (!fast_request(rank, handler, 0, TN_AM_SHORT, NULL, 0, args, nargs, flags, 0))
        return TERN_OK;
    return request("tern_am_request_short", rank, handler, TN_AM_SHORT, NULL, 0, NULL,
                   args, nargs, flags);
}

int tern_am_request_short(int rank, int handler, const tern_am_arg_t *args, int nargs,
                          unsigned flags)
{
    if (tn_likely(
            !fast_request(rank, handler, 0, TN_AM_SHORT, NULL, 0, args, nargs, flags, 1)))
        return TERN_OK;
    return request_short_rest(rank, handler, args, nargs, flags);
}

int tern_am_request_medium(int rank, int handler, const void *buf, size_t len,
                           const tern_am_arg_t *args, int nargs, unsigned flags)
{
    if (tn_likely(!fast_request(rank, handler, 0, TN_AM_MEDIUM, buf, len, args, nargs,
                                flags, 0)))
        return TERN_OK;
    return request("tern_am_request_medium", rank, handler, TN_AM_MEDIUM, buf, len, NULL,
                   args, nargs, flags);
}

int tern_am_request_long(int rank, int handler, const void *buf, size_t len, void *dest,
                         const tern_am_arg_t *args, int nargs, unsigned flags)
{
    if (tn_likely(!tn_am_in_handler &&
                  !fast_long(rank, handler, 0, TERN_AM_MAX_HANDLERS, TN_AM_LONG, buf, len,
                             dest, args, nargs, flags)))
        return TERN_OK;
    return request("tern_am_request_long", rank, handler, TN_AM_LONG, buf, len, dest,
                   args, nargs, flags);
}

static int reply(am_send_t *s, tern_am_token_t token)
{
    TN_CHECK_INIT(s->call);
    tn_core_effects_release();
    int rc = check_token(s->call, token, &s->rank);
    if (rc != TERN_OK)
        return rc;
    rc = am_send(s);
    if (rc == TERN_OK)
        tn_am_tok.state |= TN_AM_TOK_REPLIED;
    return rc;
}

/* The general path of a fixed-payload Reply (every Long Reply). */
static __attribute__((noinline)) int
reply_slow(const char *call, tern_am_token_t token, int handler, int cat, const void *buf,
           size_t len, void *dest, const tern_am_arg_t *args, int nargs, unsigned flags)
{
    am_send_t s = {call, -1, 1, cat, handler, buf, len, dest, args, nargs, flags};
    return reply(&s, token);
}

/* The Short Reply in two parts, as the Request (request_short_rest). */
static __attribute__((noinline)) int reply_short_rest(tern_am_token_t token, int handler,
                                                      const tern_am_arg_t *args,
                                                      int nargs, unsigned flags)
{
    if (!fast_reply(token, handler, 0, TN_AM_SHORT, NULL, 0, args, nargs, flags, 0))
        return TERN_OK;
    return reply_slow("tern_am_reply_short", token, handler, TN_AM_SHORT, NULL, 0, NULL,
                      args, nargs, flags);
}

int tern_am_reply_short(tern_am_token_t token, int handler, const tern_am_arg_t *args,
                        int nargs, unsigned flags)
{
    if (tn_likely(
            !fast_reply(token, handler, 0, TN_AM_SHORT, NULL, 0, args, nargs, flags, 1)))
        return TERN_OK;
    return reply_short_rest(token, handler, args, nargs, flags);
}

int tern_am_reply_medium(tern_am_token_t token, int handler, const void *buf, size_t len,
                         const tern_am_arg_t *args, int nargs, unsigned flags)
{
    if (tn_likely(!fast_reply(token, handler, 0, TN_AM_MEDIUM, buf, len, args, nargs,
                              flags, 0)))
        return TERN_OK;
    return reply_slow("tern_am_reply_medium", token, handler, TN_AM_MEDIUM, buf, len,
                      NULL, args, nargs, flags);
}

int tern_am_reply_long(tern_am_token_t token, int handler, const void *buf, size_t len,
                       void *dest, const tern_am_arg_t *args, int nargs, unsigned flags)
{
    tn_core_effects_release();
    if (tn_likely(tn_am_token_replyable(token) &&
                  !fast_long(tn_am_tok.src, handler, 0, TERN_AM_MAX_HANDLERS,
                             TN_AM_LONG | TN_AM_REPLY, buf, len, dest, args, nargs,
                             flags))) {
        tn_am_tok.state |= TN_AM_TOK_REPLIED;
        return TERN_OK;
    }
    return reply_slow("tern_am_reply_long", token, handler, TN_AM_LONG, buf, len, dest,
                      args, nargs, flags);
}

/* ---- negotiated payload ---------------------------------------------------- */

/* What Prepare leaves in tern_am_sd_t for Commit. */
typedef struct am_sd_state {
    uint32_t magic;
    int rank, nargs, is_reply;
    size_t granted;
    const void *client_buf;
    void *deferred;
    tern_am_token_t token;
    void *payload; /* where the payload goes */
    tn_xport_msg_t m;
} am_sd_state_t;
_Static_assert(sizeof(am_sd_state_t) <= sizeof(((tern_am_sd_t *)0)->priv_),
               "tern_am_sd_t holds the prepared state");
/* SD_MAGIC: prepared by the general path, every field set. SD_FAST + 0
 * (Request) or + 1 (Reply): prepared by fast_prepare in a direct queue,
 * which leaves out what the magic says (is_reply, deferred NULL, m.cap);
 * Commit's general path fills them in (sd_general). */
#define SD_MAGIC 0x53445052u
#define SD_FAST  0x53444600u
/* SD_SLOT + 0 or + 1: a fast Prepare whose message fits in its slot's line
 * (header, arguments and the granted payload: tn_msgq_try_begin without
 * data), which leaves out m.buf, m.aux and payload too (they follow from
 * the queue's next slot and nargs; sd_general fills them in). */
#define SD_SLOT 0x53445300u

/* The fields of a fast Prepare's state that both of its kinds share. */
static TN_ALWAYS_INLINE void sd_fill(am_sd_state_t *st, unsigned magic, int rank,
                                     int nargs, size_t granted, const void *client_buf,
                                     tern_am_token_t token)
{
    st->magic = magic;
    st->rank = rank;
    st->nargs = nargs;
    st->granted = granted;
    st->client_buf = client_buf;
    st->token = token;
}

/* Prepare by the fast path (a peer with a direct queue, every check
 * passed, room in the ring): 0 when done, 1 for the general path. The
 * state is the general path's, so that either Commit takes it. slot_only:
 * the public call's slot path (prepare_request_slot, for a message that
 * fits_slot), which returns 1 rather than wait for the turn. */
static TN_ALWAYS_INLINE int fast_prepare(int rank, int is_reply, tern_am_token_t token,
                                         const void *client_buf, size_t min_len,
                                         size_t max_len, int nargs, unsigned flags,
                                         tern_am_sd_t *sd, int slot_only)
{
    unsigned i = (unsigned)(rank - tn_core.span_first); /* in span: a local rank */
    if (tn_unlikely(sd == NULL) || tn_unlikely(!tn_core.initialized) ||
        tn_unlikely(flags & ~TERN_FLAGS_KNOWN_) ||
        tn_unlikely(i >= (unsigned)tn_core.span) ||
        tn_unlikely((unsigned)nargs > TERN_AM_MAX_ARGS) ||
        tn_unlikely(min_len > max_len) || tn_unlikely(!tn_core.peers[i].msgq) ||
        tn_unlikely(min_len > tn_core.peers[i].am_medium_max))
        return 1;
    size_t max = tn_core.peers[i].am_medium_max;
    size_t granted = max_len < max ? max_len : max, head = tn_am_head_bytes(nargs);
    tn_msgq_t *q = tn_core.peers[i].msgq;
    am_sd_state_t *st = (am_sd_state_t *)sd->priv_;
    char *data = NULL;
    if (head + granted <= TN_MSGQ_INLINE) {
        /* All in the slot's line: the slot only, and a state that says so
         * (slot_commit). On the slot path (slot_only) the turn is only
         * tried, with no call to wait for it; the rest takes it. */
        if (slot_only && !tn_msgq_trylock(q))
            return 1;
        if (!slot_only)
            tn_msgq_lock(q);
        tn_msgq_slot_t *r = tn_msgq_reserve(q, 0, &data);
        if (tn_unlikely(!r)) {
            tn_msgq_unlock(q);
            return 1;
        }
        sd_fill(st, SD_SLOT + (unsigned)is_reply, rank, nargs, granted, client_buf,
                token);
        st->m.slot = q;
        sd->buf = client_buf ? (void *)client_buf : r->bytes + head;
        sd->len = granted;
        tn_am_prepared_set(rank, is_reply);
        return 0;
    }
    if (slot_only)
        return 1;
    int layout = am_layout(head, granted);
    tn_msgq_slot_t *r = tn_msgq_try_begin(q, am_data_bytes(layout, head, granted), &data);
    if (tn_unlikely(!r))
        return 1;
    sd_fill(st, SD_FAST + (unsigned)is_reply, rank, nargs, granted, client_buf, token);
    /* The header's place, the payload's, and (the shm transport's commit
     * takes it too) the bytes in the slot: all, the header's, or none. */
    st->m.buf = layout == AM_IN_DATA ? data : r->bytes;
    st->payload = layout == AM_IN_SLOT ? r->bytes + head
                  : layout == AM_SPLIT ? data
                                       : data + head;
    st->m.slot = q;
    st->m.aux = layout == AM_IN_SLOT ? UINT64_MAX : layout == AM_SPLIT ? head : 0;
    sd->buf = client_buf ? (void *)client_buf : st->payload;
    sd->len = granted;
    tn_am_prepared_set(rank, is_reply);
    return 0;
}

/* A fast Commit's checks, each a rarely taken branch of its own (as
 * fast_ok's): the length within the grant, the handler in its range and
 * registered, the arguments present. 1 when every one passes; else the
 * general path says which failed. */
static TN_ALWAYS_INLINE int commit_ok(const am_sd_state_t *st, int handler, int internal,
                                      size_t len, const tern_am_arg_t *args)
{
    int lo = internal ? TERN_AM_MAX_HANDLERS : 0;
    int hi = internal ? TN_AM_HANDLER_SLOTS : TERN_AM_MAX_HANDLERS;
    if (tn_unlikely(len > st->granted) ||
        tn_unlikely((unsigned)handler - (unsigned)lo >= (unsigned)(hi - lo)) ||
        tn_unlikely(st->nargs != 0 && args == NULL))
        return 0;
    return atomic_load_explicit(&tn_am_fn[handler], memory_order_relaxed) != NULL;
}

/* Commit by the fast path, for a message fast_prepare reserved in a direct
 * queue (st->magic SD_FAST + is_reply, checked by the caller), with every
 * check passed: the payload is in place (or copied from the client's
 * buffer), header and arguments are written last, then published. 0 when
 * sent, 1 for the general path. */
static TN_ALWAYS_INLINE int fast_commit(am_sd_state_t *st, int is_reply, int handler,
                                        int internal, size_t len,
                                        const tern_am_arg_t *args)
{
    tn_msgq_t *q = st->m.slot;
    if (!commit_ok(st, handler, internal, len, args))
        return 1;
    st->magic = 0;
    tn_am_prepared_clear();
    int nargs = st->nargs;
    size_t head = tn_am_head_bytes(nargs), n = head + len;
    tn_am_hdr_t *h = st->m.buf;
    if (st->client_buf && len)
        tn_copy_msg(st->payload, st->client_buf, len);
    h->handler = (uint16_t)handler;
    h->kind = (uint8_t)(TN_AM_MEDIUM | (is_reply ? TN_AM_REPLY : 0));
    h->nargs = (uint8_t)nargs;
    h->len = (uint32_t)len;
    h->dest = 0;
    tern_am_arg_t *a = (tern_am_arg_t *)(h + 1);
    for (int i = 0; i < nargs; i++) {
        a[i] = args[i];
        __asm__("" ::: "memory");
    }
    tn_msgq_slot_t *r = &q->slots[q->seq & q->smask];
    if (st->m.aux == UINT64_MAX) { /* all in the slot */
        tn_msgq_publish(q, r, n, n);
    } else if (len >= TN_MSGQ_ACK_MIN) {
        size_t inl = (size_t)st->m.aux;
        publish_large(q, r, n, inl,
                      is_reply && (uintptr_t)st->token == tn_am_tok.id &&
                          (tn_am_tok.state & TN_AM_TOK_HELD),
                      inl == head ? st->payload : (char *)st->m.buf, len);
    } else { /* as fast_send */
        size_t inl = (size_t)st->m.aux;
        char *data = inl == head ? st->payload : (char *)st->m.buf;
        uint64_t next = (uint64_t)(data - q->data) + TN_MSGQ_LINE(n - inl);
        tn_msgq_publish(q, r, n, inl);
        tn_msgq_prefetch_next(q, next, len);
    }
    if (is_reply)
        tn_am_tok.state |= TN_AM_TOK_REPLIED;
    return 0;
}

/* Commit by the fast path for a state of SD_SLOT + is_reply with the
 * payload written in place (no client buffer; both checked by the
 * caller): as fast_commit, for a message in its slot's line only, whose
 * header is assembled as slot_send's. 0 when sent, 1 for the rest
 * (commit_rest). */
static TN_ALWAYS_INLINE int slot_commit(am_sd_state_t *st, int is_reply, int handler,
                                        int internal, size_t len,
                                        const tern_am_arg_t *args)
{
    int nargs = st->nargs;
    if (!commit_ok(st, handler, internal, len, args))
        return 1;
    st->magic = 0;
    tn_am_prepared_clear();
    tn_msgq_t *q = st->m.slot;
    tn_msgq_slot_t *r = &q->slots[q->seq & q->smask];
    size_t n = tn_am_head_bytes(nargs) + len;
    tn_am_hdr_t h = {(uint16_t)handler,
                     (uint8_t)(TN_AM_MEDIUM | (is_reply ? TN_AM_REPLY : 0)),
                     (uint8_t)nargs, (uint32_t)len, 0};
    memcpy(r->bytes, &h, sizeof h); /* two word stores */
    tern_am_arg_t *a = (tern_am_arg_t *)(r->bytes + sizeof(tn_am_hdr_t));
    for (int i = 0; i < nargs; i++) {
        a[i] = args[i];
        __asm__("" ::: "memory"); /* a few words: no memcpy call */
    }
    tn_msgq_publish(q, r, n, n);
    if (is_reply)
        tn_am_tok.state |= TN_AM_TOK_REPLIED;
    return 0;
}

/* An SD_SLOT state completed into an SD_FAST one (for fast_commit or the
 * general path); any other state is left as it is. */
static void slot_to_fast(am_sd_state_t *st)
{
    if ((st->magic & ~1u) != SD_SLOT)
        return;
    tn_msgq_t *q = st->m.slot; /* its turn held since Prepare */
    st->m.buf = q->slots[q->seq & q->smask].bytes;
    st->payload = (char *)st->m.buf + tn_am_head_bytes(st->nargs);
    st->m.aux = UINT64_MAX;
    st->magic = SD_FAST + (st->magic & 1u);
}

/* A fast Prepare's state completed into the general path's (for a Commit
 * the fast path refused: it says what is wrong, or sends a void message
 * to give the room back). */
static void sd_general(am_sd_state_t *st)
{
    slot_to_fast(st);
    if ((st->magic & ~1u) != SD_FAST)
        return;
    st->is_reply = (int)(st->magic & 1u);
    st->deferred = NULL;
    st->m.cap = tn_am_head_bytes(st->nargs) + st->granted;
    st->magic = SD_MAGIC;
}

static int prepare(am_send_t *s, const void *client_buf, size_t min_len, size_t max_len,
                   tern_am_token_t token, tern_am_sd_t *sd)
{
    if (!sd)
        return tn_core_fail(TERN_ERR_INVALID, s->call, "sd is NULL");
    am_sd_state_t *st = (am_sd_state_t *)sd->priv_;
    st->magic = 0;
    s->handler = 0; /* the handler comes with Commit: check the rest */
    int rc = TERN_OK;
    if (s->flags & ~TERN_FLAGS_KNOWN_)
        rc =
            tn_core_fail(TERN_ERR_INVALID, s->call, "flags 0x%x: unknown bits", s->flags);
    else if (s->rank < 0 || s->rank >= tn_core.size)
        rc = tn_core_fail(TERN_ERR_RANK, s->call, "rank %d is not in [0, %d)", s->rank,
                          tn_core.size);
    else if (s->nargs < 0 || s->nargs > TERN_AM_MAX_ARGS)
        rc = tn_core_fail(TERN_ERR_INVALID, s->call, "%d arguments: at most %d", s->nargs,
                          TERN_AM_MAX_ARGS);
    else if (!tn_core_peer(s->rank)->msg)
        rc =
            tn_core_fail(TERN_ERR_UNSUPPORTED, s->call,
                         "no transport of this job carries messages to rank %d", s->rank);
    if (rc != TERN_OK)
        return rc;
    size_t max = tn_am_medium_max(s->rank);
    if (min_len > max_len || min_len > max)
        return tn_core_fail(TERN_ERR_INVALID, s->call,
                            "payload of %zu..%zu bytes to rank %d: the most is %zu "
                            "(tern_am_max_medium)",
                            min_len, max_len, s->rank, max);
    size_t granted = max_len < max ? max_len : max;
    size_t head = tn_am_head_bytes(s->nargs);
    rc = reserve(s, head + granted, &st->m, &st->deferred);
    if (rc != TERN_OK)
        return rc;
    st->magic = SD_MAGIC;
    st->rank = s->rank;
    st->nargs = s->nargs;
    st->is_reply = s->is_reply;
    st->granted = granted;
    st->client_buf = client_buf;
    st->token = token;
    st->payload = (char *)st->m.buf + head;
    sd->buf = client_buf ? (void *)client_buf : st->payload;
    sd->len = granted;
    tn_am_prepared_set(s->rank, s->is_reply);
    return TERN_OK;
}

static __attribute__((noinline)) int commit(const char *call, tern_am_sd_t *sd,
                                            int is_reply, int handler, int internal,
                                            size_t len, const tern_am_arg_t *args)
{
    TN_CHECK_INIT(call);
    am_sd_state_t *st = sd ? (am_sd_state_t *)sd->priv_ : NULL;
    if (st)
        sd_general(st);
    if (!st || st->magic != SD_MAGIC || st->is_reply != is_reply)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "no %s prepared in sd (or committed already)",
                            is_reply ? "Reply" : "Request");
    tn_am_prepared_clear(); /* before the send, which may wait for room */
    am_send_t s = {call, st->rank, is_reply, TN_AM_MEDIUM, handler, NULL,
                   len,  NULL,     args,     st->nargs,    0};
    int rc = TERN_OK;
    if (len > st->granted)
        rc = tn_core_fail(TERN_ERR_INVALID, call,
                          "length %zu is over the %zu bytes Prepare granted", len,
                          st->granted);
    else if (!handler_ok(handler, internal) || !atomic_load(&tn_am_fn[handler]))
        rc = tn_core_fail(TERN_ERR_INVALID, call,
                          "handler index %d is not registered (tern_am_register)",
                          handler);
    else if (st->nargs && !args)
        rc = tn_core_fail(TERN_ERR_INVALID, call, "args is NULL with %d arguments",
                          st->nargs);
    /* A refused Commit still has to give back the room Prepare reserved
     * (on shm the queue stays locked until a commit): it sends a void
     * message, which the target skips, and returns the error. Its head
     * carries no arguments (args may be the NULL refused above); its
     * length is still the head Prepare reserved. */
    size_t head = tn_am_head_bytes(st->nargs);
    if (rc != TERN_OK) {
        len = 0;
        s.handler = TERN_AM_MAX_HANDLERS - 1;
        s.nargs = 0;
    }
    st->magic = 0;
    write_head(st->m.buf, &s, TN_AM_MEDIUM, len, NULL);
    if (rc != TERN_OK)
        ((tn_am_hdr_t *)st->m.buf)->kind = TN_AM_VOID;
    else if (st->client_buf && len)
        memcpy(st->payload, st->client_buf, len);
    int frc = finish(&s, &st->m, st->deferred, head + len);
    if (rc == TERN_OK && is_reply)
        tn_am_tok.state |= TN_AM_TOK_REPLIED;
    return rc != TERN_OK ? rc : frc;
}

static __attribute__((noinline)) int
prepare_request_rest(int rank, const void *client_buf, size_t min_len, size_t max_len,
                     int nargs, unsigned flags, tern_am_sd_t *sd);

/* Whether a message of nargs arguments and up to max_len bytes of payload
 * fits in a queue slot's line whatever is granted (fast_prepare's
 * slot_only path). */
static TN_ALWAYS_INLINE int fits_slot(int nargs, size_t max_len)
{
    return (unsigned)nargs <= TERN_AM_MAX_ARGS &&
           max_len <= TN_MSGQ_INLINE - tn_am_head_bytes(nargs);
}

/* tern_am_prepare_request_medium for a message that fits_slot: out of
 * line, as the rest, so that the public call is two tail calls and
 * neither path pays the other's frame. */
static __attribute__((noinline)) int
prepare_request_slot(int rank, const void *client_buf, size_t min_len, size_t max_len,
                     int nargs, unsigned flags, tern_am_sd_t *sd)
{
    if (tn_likely(!tn_am_in_handler && !fast_prepare(rank, 0, NULL, client_buf, min_len,
                                                     max_len, nargs, flags, sd, 1)))
        return TERN_OK;
    return prepare_request_rest(rank, client_buf, min_len, max_len, nargs, flags, sd);
}

int tern_am_prepare_request_medium(int rank, const void *client_buf, size_t min_len,
                                   size_t max_len, int nargs, unsigned flags,
                                   tern_am_sd_t *sd)
{
    if (fits_slot(nargs, max_len))
        return prepare_request_slot(rank, client_buf, min_len, max_len, nargs, flags, sd);
    return prepare_request_rest(rank, client_buf, min_len, max_len, nargs, flags, sd);
}

/* The rest of tern_am_prepare_request_medium (a message with a data part,
 * then the general path): out of line, so that the call's own path, a
 * message in its slot's line, needs no frame. */
static __attribute__((noinline)) int
prepare_request_rest(int rank, const void *client_buf, size_t min_len, size_t max_len,
                     int nargs, unsigned flags, tern_am_sd_t *sd)
{
    if (tn_likely(!tn_am_in_handler && !fast_prepare(rank, 0, NULL, client_buf, min_len,
                                                     max_len, nargs, flags, sd, 0)))
        return TERN_OK;
    TN_CHECK_INIT("tern_am_prepare_request_medium");
    TN_NOT_IN_HANDLER("tern_am_prepare_request_medium");
    am_send_t s = {"tern_am_prepare_request_medium",
                   rank,
                   0,
                   TN_AM_MEDIUM,
                   0,
                   NULL,
                   0,
                   NULL,
                   NULL,
                   nargs,
                   flags};
    return prepare(&s, client_buf, min_len, max_len, NULL, sd);
}

/* A Commit's fast path: sd holds a fast Prepare of this kind (is_reply).
 * A general Prepare's message (one that waited for room) is committed by
 * the general path. */
static TN_ALWAYS_INLINE int fast_commit_sd(tern_am_sd_t *sd, int is_reply, int handler,
                                           int internal, size_t len,
                                           const tern_am_arg_t *args)
{
    am_sd_state_t *st = sd ? (am_sd_state_t *)sd->priv_ : NULL;
    if (st && tn_unlikely(st->magic == SD_SLOT + (unsigned)is_reply))
        slot_to_fast(st); /* a client's buffer, or a Commit slot_commit refused */
    return !(st && st->magic == SD_FAST + (unsigned)is_reply && tn_core.initialized) ||
           fast_commit(st, is_reply, handler, internal, len, args);
}

/* The public Commit's own path: a state of SD_SLOT + is_reply whose
 * payload was written in place (slot_commit). 0 when sent, 1 for
 * commit_rest. */
static TN_ALWAYS_INLINE int slot_commit_sd(tern_am_sd_t *sd, int is_reply, int handler,
                                           size_t len, const tern_am_arg_t *args)
{
    am_sd_state_t *st = sd ? (am_sd_state_t *)sd->priv_ : NULL;
    return !(st && st->magic == SD_SLOT + (unsigned)is_reply && !st->client_buf &&
             tn_core.initialized) ||
           slot_commit(st, is_reply, handler, 0, len, args);
}

/* The rest of a public Commit (out of line, so that slot_commit_sd's path
 * needs no frame): fast_commit, else the general path; one per kind, so
 * that is_reply stays a constant. The public call's arguments in its
 * order: its tail call moves no register. */
static TN_ALWAYS_INLINE int commit_rest(tern_am_sd_t *sd, int handler, size_t len,
                                        const tern_am_arg_t *args, int is_reply,
                                        const char *call)
{
    if (tn_likely(!fast_commit_sd(sd, is_reply, handler, 0, len, args)))
        return TERN_OK;
    return commit(call, sd, is_reply, handler, 0, len, args);
}

static __attribute__((noinline)) int
commit_request_rest(tern_am_sd_t *sd, int handler, size_t len, const tern_am_arg_t *args)
{
    return commit_rest(sd, handler, len, args, 0, "tern_am_commit_request_medium");
}

static __attribute__((noinline)) int
commit_reply_rest(tern_am_sd_t *sd, int handler, size_t len, const tern_am_arg_t *args)
{
    return commit_rest(sd, handler, len, args, 1, "tern_am_commit_reply_medium");
}

int tern_am_commit_request_medium(tern_am_sd_t *sd, int handler, size_t len,
                                  const tern_am_arg_t *args)
{
    if (tn_likely(!slot_commit_sd(sd, 0, handler, len, args)))
        return TERN_OK;
    return commit_request_rest(sd, handler, len, args);
}

static __attribute__((noinline)) int
prepare_reply_rest(tern_am_token_t token, const void *client_buf, size_t min_len,
                   size_t max_len, int nargs, unsigned flags, tern_am_sd_t *sd);

/* A Reply's Prepare by the fast path (slot_only as fast_prepare's), for
 * the token of the Request being handled that has not replied yet: 1 when
 * done. */
static TN_ALWAYS_INLINE int reply_fast_prepare(tern_am_token_t token,
                                               const void *client_buf, size_t min_len,
                                               size_t max_len, int nargs, unsigned flags,
                                               tern_am_sd_t *sd, int slot_only)
{
    return tn_am_token_replyable(token) &&
           !fast_prepare(tn_am_tok.src, 1, token, client_buf, min_len, max_len, nargs,
                         flags, sd, slot_only);
}

/* tern_am_prepare_reply_medium for a message that fits_slot (out of
 * line, as prepare_request_slot). */
static __attribute__((noinline)) int
prepare_reply_slot(tern_am_token_t token, const void *client_buf, size_t min_len,
                   size_t max_len, int nargs, unsigned flags, tern_am_sd_t *sd)
{
    if (tn_likely(
            reply_fast_prepare(token, client_buf, min_len, max_len, nargs, flags, sd, 1)))
        return TERN_OK;
    return prepare_reply_rest(token, client_buf, min_len, max_len, nargs, flags, sd);
}

int tern_am_prepare_reply_medium(tern_am_token_t token, const void *client_buf,
                                 size_t min_len, size_t max_len, int nargs,
                                 unsigned flags, tern_am_sd_t *sd)
{
    if (fits_slot(nargs, max_len))
        return prepare_reply_slot(token, client_buf, min_len, max_len, nargs, flags, sd);
    return prepare_reply_rest(token, client_buf, min_len, max_len, nargs, flags, sd);
}

/* The rest of tern_am_prepare_reply_medium, as prepare_request_rest. */
static __attribute__((noinline)) int
prepare_reply_rest(tern_am_token_t token, const void *client_buf, size_t min_len,
                   size_t max_len, int nargs, unsigned flags, tern_am_sd_t *sd)
{
    if (tn_likely(
            reply_fast_prepare(token, client_buf, min_len, max_len, nargs, flags, sd, 0)))
        return TERN_OK;
    const char *call = "tern_am_prepare_reply_medium";
    TN_CHECK_INIT(call);
    tn_core_effects_release();
    int rank = -1;
    int rc = check_token(call, token, &rank);
    if (rc != TERN_OK)
        return rc;
    am_send_t s = {call, rank, 1, TN_AM_MEDIUM, 0, NULL, 0, NULL, NULL, nargs, flags};
    return prepare(&s, client_buf, min_len, max_len, token, sd);
}

int tern_am_commit_reply_medium(tern_am_sd_t *sd, int handler, size_t len,
                                const tern_am_arg_t *args)
{
    if (tn_likely(!slot_commit_sd(sd, 1, handler, len, args)))
        return TERN_OK;
    return commit_reply_rest(sd, handler, len, args);
}

/* ---- Tern's own handlers --------------------------------------------------- */

int tn_am_request_internal(const char *call, int rank, int id, int cat, const void *buf,
                           size_t len, void *dest, const tern_am_arg_t *args, int nargs,
                           unsigned flags)
{
    if (cat != TN_AM_LONG &&
        tn_likely(!fast_request(rank, id, 1, cat, buf, len, args, nargs, flags, 0)))
        return TERN_OK;
    TN_NOT_IN_HANDLER(call);
    am_send_t s = {call, rank, 0, cat, id, buf, len, dest, args, nargs, flags, 1};
    return am_send(&s);
}

int tn_am_reply_internal(const char *call, tern_am_token_t token, int id, int cat,
                         const void *buf, size_t len, void *dest,
                         const tern_am_arg_t *args, int nargs, unsigned flags)
{
    if (cat != TN_AM_LONG &&
        tn_likely(!fast_reply(token, id, 1, cat, buf, len, args, nargs, flags, 0)))
        return TERN_OK;
    am_send_t s = {call, -1, 1, cat, id, buf, len, dest, args, nargs, flags, 1};
    return reply(&s, token);
}

int tn_am_commit_request_internal(tern_am_sd_t *sd, int id, size_t len,
                                  const tern_am_arg_t *args)
{
    if (tn_likely(!fast_commit_sd(sd, 0, id, 1, len, args)))
        return TERN_OK;
    return commit("tn_am_commit_request_internal", sd, 0, id, 1, len, args);
}

int tn_am_commit_reply_internal(tern_am_sd_t *sd, int id, size_t len,
                                const tern_am_arg_t *args)
{
    return commit("tn_am_commit_reply_internal", sd, 1, id, 1, len, args);
}
