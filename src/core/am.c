/* Active messages, receive side: the handler table, the dispatch of every
 * message a transport delivers, the Replies queued for later, and the
 * limits (see include/tern/am.h for the contract). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "base/compiler.h"
#include "base/log.h"
#include "base/wait.h"
#include "core/am.h"

_Atomic(tern_am_handler_t) tn_am_fn[TN_AM_HANDLER_TABLE];
char tn_am_names[TN_AM_HANDLER_SLOTS][32];
TN_TLS_FAST _Thread_local struct tern_am_token_s tn_am_tok;
TN_TLS_FAST _Thread_local tn_am_held_t tn_am_held;
TN_TLS_FAST _Thread_local tn_msgq_t *tn_am_last_in;

/* Replies waiting for room: a list under a lock, taken with trylock by
 * progress so that no poller ever waits for another. */
typedef struct deferred {
    struct deferred *next;
    int rank;
    size_t n;
    _Alignas(8) char msg[];
} deferred_t;
static deferred_t *defer_head, **defer_tail = &defer_head;
_Atomic long tn_am_ndeferred;
static pthread_mutex_t defer_lock = PTHREAD_MUTEX_INITIALIZER;

int tern_am_register(int index, tern_am_handler_t fn, const char *name)
{
    TN_CHECK_INIT("tern_am_register");
    TN_NOT_IN_HANDLER("tern_am_register");
    if (index < 0 || index >= TERN_AM_MAX_HANDLERS)
        return tn_core_fail(TERN_ERR_INVALID, "tern_am_register",
                            "handler index %d is not in [0, %d)", index,
                            TERN_AM_MAX_HANDLERS);
    if (!fn)
        return tn_core_fail(TERN_ERR_INVALID, "tern_am_register",
                            "handler %d ('%s'): the function is NULL", index,
                            name ? name : "");
    tern_am_handler_t old = atomic_load(&tn_am_fn[index]);
    if (old && old != fn)
        return tn_core_fail(TERN_ERR_INVALID, "tern_am_register",
                            "handler index %d is taken by '%s'", index,
                            tn_am_names[index]);
    snprintf(tn_am_names[index], sizeof(tn_am_names[index]), "%s",
             name && *name ? name : "(unnamed)");
    atomic_store_explicit(&tn_am_fn[index], fn, memory_order_release);
    /* From now on every waiting call runs handlers (through progress). */
    tn_core_lock();
    tn_wait_progress_hook = tn_core_progress;
    tn_core_direct_wait_update();
    tn_core_unlock();
    return TERN_OK;
}

void tn_am_register_internal(int id, tern_am_handler_t fn, const char *name)
{
    snprintf(tn_am_names[id], sizeof(tn_am_names[id]), "%s", name);
    atomic_store_explicit(&tn_am_fn[id], fn, memory_order_release);
    tn_core_lock();
    tn_wait_progress_hook = tn_core_progress;
    tn_core_direct_wait_update();
    tn_core_unlock();
}

static void on_done(tern_am_token_t token, void *buf, size_t len, const tern_am_arg_t *a,
                    int nargs)
{
    (void)token;
    (void)buf;
    (void)len;
    if (nargs == 2 && a[1])
        tn_comp_done((tn_comp_t *)(uintptr_t)a[1], (int)(uint32_t)a[0]);
}

_Atomic unsigned char *tn_am_requested;
/* TN_AMH_FIN Replies handled by this rank in its tn_am_quiesce. */
static _Atomic long fin_acks;

/* A rank's last Request before its barrier in tern_finalize: handled
 * after every earlier one from it. The Reply goes behind the Replies
 * queued for room (tn_am_progress_deferred sends them in order), so that
 * it does not overtake one to the same rank. */
static void on_fin(tern_am_token_t token, void *buf, size_t len, const tern_am_arg_t *a,
                   int nargs)
{
    (void)buf, (void)len, (void)a, (void)nargs;
    if (!atomic_load(&tn_am_ndeferred)) {
        (void)tn_am_reply_internal("tern_finalize", token, TN_AMH_FIN_ACK, TN_AM_SHORT,
                                   NULL, 0, NULL, NULL, 0, 0); /* queued if no room */
        return;
    }
    tn_am_hdr_t h = {.handler = TN_AMH_FIN_ACK, .kind = TN_AM_SHORT | TN_AM_REPLY};
    if (tn_am_defer(tn_am_tok.src, &h, sizeof(h), NULL, 0) != TERN_OK)
        tn_error("tern_finalize: no memory to queue the Reply to rank %d's last "
                 "Request: it waits for ever",
                 tn_am_tok.src);
    tn_am_tok.state |= TN_AM_TOK_REPLIED;
}

static void on_fin_ack(tern_am_token_t token, void *buf, size_t len,
                       const tern_am_arg_t *a, int nargs)
{
    (void)token, (void)buf, (void)len, (void)a, (void)nargs;
    atomic_fetch_add_explicit(&fin_acks, 1, memory_order_release);
}

int tn_am_done_init(void)
{
    tn_am_register_internal(TN_AMH_DONE, on_done, "tern request done");
    tn_am_register_internal(TN_AMH_FIN, on_fin, "tern finalize");
    tn_am_register_internal(TN_AMH_FIN_ACK, on_fin_ack, "tern finalize reply");
    if (!tn_am_requested)
        tn_am_requested = calloc((size_t)tn_core.size, sizeof(*tn_am_requested));
    return tn_am_requested ? TERN_OK : TERN_ERR_NOMEM;
}

int tn_am_quiesce(const char *call)
{
    if (!tn_am_requested)
        return TERN_OK;
    int first = TERN_OK;
    long want = 0;
    atomic_store(&fin_acks, 0);
    for (int r = 0; r < tn_core.size; r++) {
        if (!atomic_load_explicit(&tn_am_requested[r], memory_order_relaxed))
            continue;
        atomic_store_explicit(&tn_am_requested[r], 0, memory_order_relaxed);
        int rc = tn_am_request_internal(call, r, TN_AMH_FIN, TN_AM_SHORT, NULL, 0, NULL,
                                        NULL, 0, 0);
        if (rc == TERN_OK)
            want++;
        else if (first == TERN_OK)
            first = rc;
    }
    tn_wait_t w = TN_WAIT_NET; /* the Replies come over the network */
    while (atomic_load_explicit(&fin_acks, memory_order_acquire) < want)
        tn_wait_next(&w);
    return first;
}

int tn_am_reply_done(const char *call, tern_am_token_t token, int status,
                     tern_am_arg_t comp)
{
    if (!comp)
        return TERN_OK;
    tern_am_arg_t r[2] = {(uint64_t)(uint32_t)status, comp};
    return tn_am_reply_internal(call, token, TN_AMH_DONE, TN_AM_SHORT, NULL, 0, NULL, r,
                                2, 0);
}

int tn_am_refuse(const char *call, const char *what)
{
    if (tn_am_tok.state & TN_AM_TOK_PREPARED)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "called between tern_am_prepare_%s_medium (to rank %d) and "
                            "its Commit, where this thread may neither send nor wait: "
                            "commit the prepared message first",
                            tn_am_tok.prep_reply ? "reply" : "request",
                            tn_am_tok.prep_rank);
    return tn_core_fail(TERN_ERR_INVALID, call,
                        "called from inside an active-message handler, which must not %s",
                        what);
}

int tern_am_source(tern_am_token_t token, int *rank)
{
    if (!tn_am_token_live(token) || !rank)
        return tn_core_fail(TERN_ERR_INVALID, "tern_am_source", "%s",
                            !rank ? "rank is NULL"
                                  : "the token is not that of the handler running "
                                    "on this thread");
    *rank = tn_am_tok.src;
    return TERN_OK;
}

/* The queue back to q's sender, where the ACKs of its messages are
 * recorded: q->answer, set up with the queue; when several threads may
 * send on it (answer NULL), the peer's in core's table. */
static TN_NOINLINE tn_msgq_t *ack_queue_threads(const tn_msgq_t *q)
{
    unsigned i = (unsigned)(q->peer - tn_core.span_first);
    return i < (unsigned)tn_core.span ? tn_core.peers[i].msgq : NULL;
}

int tn_am_drain_large(tn_msgq_t *q, tn_msgq_slot_t *r, int n)
{
    tn_msgq_t *out = q->answer ? q->answer : ack_queue_threads(q);
    do {
        size_t len = r->len, inl = r->inl;
        if (len == inl) {
            tn_am_dispatch_slot(q->peer, r->bytes);
            tn_msgq_consume_slot(q);
        } else {
            /* The data part's place found once, for the checks, the
             * dispatch and the consume. */
            uint64_t d = tn_msgq_data_pos(q, r), off = d & q->dmask;
            size_t dn = len - inl;
            if (tn_unlikely(!tn_msgq_parts_ok(q, off, len, inl))) {
                tn_am_recv_bad_parts(q, r);
            } else {
                if ((r->kind & TN_MSGQ_ACK) && out)
                    tn_msgq_note_ack(out, r);
                int hold = dn >= TN_MSGQ_ACK_MIN;
                if (inl)
                    tn_am_dispatch_at(q->peer, r->bytes, inl, q->data + off, dn, hold);
                else
                    tn_am_dispatch_at(q->peer, q->data + off, len, NULL, 0, hold);
                tn_msgq_consume_to(q, d + TN_MSGQ_LINE(dn));
            }
        }
        /* The handler is done with the payload: the count includes it. A
         * held Reply (only ever set by this message's handler) is published
         * and the slot cleared, so that it is NULL outside this loop. */
        if (tn_am_held.slot) {
            tn_msgq_publish_held(tn_am_held.slot, tn_am_held.seq, q->dpos);
            tn_am_held.slot = NULL;
        }
        n++;
    } while (n < TN_MSGQ_DRAIN_MAX && (r = tn_msgq_peek(q)) != NULL);
    tn_msgq_release(q);
    tn_msgq_unlock(q);
    return n;
}

void tn_am_recv_bad_parts(tn_msgq_t *q, tn_msgq_slot_t *r)
{
    tn_error("active message from rank %d is malformed: its slot says %u bytes, %u of "
             "them in the slot (at most %zu) and the rest in a data ring of %u bytes "
             "from offset %llu, past its end: dropped",
             q->peer, (unsigned)r->len, (unsigned)r->inl, TN_MSGQ_INLINE,
             (unsigned)q->dmask + 1,
             (unsigned long long)(tn_msgq_data_pos(q, r) & q->dmask));
    tn_msgq_consume_slot(q);
}

void tn_am_recv_slot_other(int src, void *buf)
{
    /* A Long (the usual case here): its arguments within the slot, its
     * destination within this rank's segment, as the sender checked. */
    tn_am_hdr_t *h = buf;
    unsigned nargs = h->nargs, handler = h->handler;
    tern_am_handler_t fn;
    if ((h->kind & ~TN_AM_REPLY) == TN_AM_LONG &&
        tn_am_head_bytes((int)nargs) <= TN_MSGQ_INLINE && handler < TN_AM_HANDLER_SLOTS &&
        tn_core_region(tn_core.rank, (uintptr_t)h->dest, h->len) == TN_REGION_SEG &&
        (fn = atomic_load_explicit(&tn_am_fn[handler], memory_order_acquire))) {
        tern_am_token_t tok = tn_am_tok_next(src, h->kind | TN_AM_TOK_RUN);
        fn(tok, (void *)(uintptr_t)h->dest, h->len, (tern_am_arg_t *)(h + 1), (int)nargs);
        tn_am_tok.state = 0;
        return;
    }
    tn_am_recv_slow(src, buf, TN_MSGQ_INLINE);
}

void tn_am_recv_slow(int src, void *buf, size_t n)
{
    tn_am_hdr_t *h = buf;
    if (n >= sizeof(*h) && h->kind == TN_AM_VOID)
        return;
    if (n < sizeof(*h)) {
        tn_error("active message of %zu bytes from rank %d is malformed (shorter than "
                 "its %zu-byte header): dropped",
                 n, src, sizeof(*h));
        return;
    }
    unsigned cat = h->kind & ~TN_AM_REPLY;
    const char *bad = NULL;
    if (cat > TN_AM_LONG_INLINE)
        bad = "unknown kind";
    else if (h->nargs > TERN_AM_MAX_ARGS)
        bad = "too many arguments";
    else if (n < tn_am_head_bytes(h->nargs))
        bad = "arguments past its end";
    else if (h->handler >= TN_AM_HANDLER_SLOTS)
        bad = "handler index out of range";
    else if ((cat == TN_AM_MEDIUM || cat == TN_AM_LONG_INLINE) &&
             h->len > n - tn_am_head_bytes(h->nargs))
        bad = "payload length past its end";
    else if ((cat == TN_AM_LONG || cat == TN_AM_LONG_INLINE) &&
             tn_core_region(tn_core.rank, (uintptr_t)h->dest, h->len) != TN_REGION_SEG)
        bad = "Long destination outside this rank's segment";
    if (bad) {
        tn_error("active message of %zu bytes from rank %d is malformed (%s: kind %#x, "
                 "handler %u, %u arguments, length %u): dropped",
                 n, src, bad, h->kind, h->handler, h->nargs, h->len);
        return;
    }
    tern_am_handler_t fn =
        atomic_load_explicit(&tn_am_fn[h->handler], memory_order_acquire);
    if (!fn) {
        tn_error("rank %d sent an active message for handler %u, which this rank has "
                 "not registered (tern_am_register): dropped",
                 src, h->handler);
        return;
    }
    tern_am_arg_t *args = (tern_am_arg_t *)(h + 1);
    char *payload = (char *)(args + h->nargs);
    void *b = NULL;
    size_t len = h->len;
    switch (cat) {
    case TN_AM_SHORT: len = 0; break;
    case TN_AM_MEDIUM: b = payload; break;
    case TN_AM_LONG: b = (void *)(uintptr_t)h->dest; break;
    default: /* LONG_INLINE: the payload goes into place before the handler */
        b = (void *)(uintptr_t)h->dest;
        TN_PEER_WRITES_BEGIN(); /* the sender's write, as a NIC's */
        memcpy(b, payload, len);
        TN_PEER_WRITES_END();
        break;
    }
    tern_am_token_t tok = tn_am_tok_next(src, h->kind | TN_AM_TOK_RUN);
    fn(tok, b, len, args, h->nargs);
    tn_am_tok.state = 0;
}

void tn_am_recv_split(int src, void *buf, size_t room, void *pay, size_t n)
{
    if (!pay) {
        tn_am_recv_slow(src, buf, n);
        return;
    }
    /* Header and arguments in a queue's slot (room bytes), payload in its
     * data ring (n - room): in one piece for the checks (rare: a void or
     * malformed message). */
    char *one = malloc(n ? n : 1);
    if (!one) {
        tn_error("no memory for an active message of %zu bytes from rank %d: dropped", n,
                 src);
        return;
    }
    memcpy(one, buf, room);
    memcpy(one + room, pay, n - room);
    tn_am_recv_slow(src, one, n);
    free(one);
}

void tn_am_recv(void *arg, int src, void *buf, size_t n)
{
    (void)arg;
    if (n < sizeof(tn_am_hdr_t))
        tn_am_recv_slow(src, buf, n);
    else
        tn_am_dispatch(src, buf, n);
    /* A handler that answers nothing (combined atomics without a fetch)
     * run on the progress thread: its effects are released for the wait
     * or barrier that later sees what followed it (core.h). */
    tn_core_effects_release();
}

int tn_am_defer(int rank, const void *head, size_t hn, const void *payload, size_t len)
{
    deferred_t *d = malloc(sizeof(*d) + hn + len);
    if (!d)
        return TERN_ERR_NOMEM;
    d->next = NULL;
    d->rank = rank;
    d->n = hn + len;
    memcpy(d->msg, head, hn);
    if (len)
        memcpy(d->msg + hn, payload, len);
    pthread_mutex_lock(&defer_lock);
    *defer_tail = d;
    defer_tail = &d->next;
    atomic_fetch_add(&tn_am_ndeferred, 1);
    pthread_mutex_unlock(&defer_lock);
    return TERN_OK;
}

/* Sends what it can of the queued Replies, in order per list. */
int tn_am_progress_deferred(void)
{
    if (tn_am_in_handler)
        return 0;
    if (pthread_mutex_trylock(&defer_lock) != 0)
        return 0;
    int sent = 0;
    deferred_t **pp = &defer_head;
    while (*pp) {
        deferred_t *d = *pp;
        const tn_peer_t *peer = tn_core_peer(d->rank);
        tn_core_xport_t *xp = peer->msg;
        tn_xport_msg_t m;
        /* The progress thread sends on no shared-memory queue (progress.c):
         * those wait for an application thread's progress. */
        if ((tn_core_progress_self && peer->kind != TN_PEER_NET) ||
            xp->ops.msg_prepare(xp->x, d->rank, d->n,
                                TERN_FLAG_IMMEDIATE | TN_XPORT_FLAG_NOPOLL,
                                &m) != TERN_OK) {
            pp = &d->next;
            continue;
        }
        memcpy(m.buf, d->msg, d->n);
        xp->ops.msg_commit(xp->x, &m, d->n);
        *pp = d->next;
        free(d);
        atomic_fetch_sub(&tn_am_ndeferred, 1);
        sent++;
    }
    defer_tail = pp;
    pthread_mutex_unlock(&defer_lock);
    return sent;
}

void tn_am_fini(void)
{
    pthread_mutex_lock(&defer_lock);
    while (defer_head) {
        deferred_t *d = defer_head;
        defer_head = d->next;
        free(d);
    }
    defer_tail = &defer_head;
    atomic_store(&tn_am_ndeferred, 0);
    pthread_mutex_unlock(&defer_lock);
    free((void *)tn_am_requested);
    tn_am_requested = NULL;
    for (int i = 0; i < TERN_AM_MAX_HANDLERS; i++) { /* the client's; not Tern's */
        atomic_store(&tn_am_fn[i], NULL);
        tn_am_names[i][0] = '\0';
    }
}

size_t tn_am_medium_max(int rank)
{
    tn_core_xport_t *xp = tn_core_peer(rank)->msg;
    if (!xp || xp->caps.msg_max <= TN_XPORT_MSG_OVERHEAD)
        return 0;
    size_t room = xp->caps.msg_max - TN_XPORT_MSG_OVERHEAD;
    return room < tn_cfg.am_medium_max ? room : tn_cfg.am_medium_max;
}

size_t tern_am_max_medium(int rank)
{
    if (!tn_core.initialized || rank < -1 || rank >= tn_core.size)
        return 0;
    if (rank >= 0)
        return tn_am_medium_max(rank);
    size_t m = SIZE_MAX;
    for (int r = 0; r < tn_core.size; r++) {
        size_t x = tn_am_medium_max(r);
        m = x < m ? x : m;
    }
    return m;
}

size_t tern_am_max_long_reply(int rank)
{
    if (!tn_core.initialized || rank < -1 || rank >= tn_core.size)
        return 0;
    if (rank >= 0 && tn_core_fast(rank)->size) /* mapped: written in place */
        return tn_core_info(rank)->size;
    return tern_am_max_medium(rank);
}
