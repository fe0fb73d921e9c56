/* Combined nbi puts and gets: a thread's small nbi puts to one network
 * peer collect in a buffer, in the packed-put list format of
 * core/vis_wire.h, that leaves as one Medium Request; the target writes the
 * pieces in order (tn_vis_unpack_put) and answers with one Short Reply,
 * which completes them. Its small nbi gets from one peer collect as a list
 * of pieces that leaves as the packed list get of the non-contiguous
 * transfers (tn_vis_pack_list_get: one Request of {address, length}, one
 * Reply of the bytes). docs/design/nbi-aggregation.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "base/log.h"
#include "base/spin.h"
#include "base/wait.h"
#include "core/am.h"
#include "core/core.h"
#include "core/event.h"
#include "core/vis.h"
#include "core/vis_wire.h"

#define SLOTS   4    /* buffers per thread: peer rank % SLOTS */
#define AGG_CAP 8192 /* bytes per message at most (and the peer's Medium limit) */
#define HEAD    sizeof(tn_vis_head_t)
#define ENTRY   TN_VIS_ENTRY_BYTES /* address and length before each piece */

enum { KIND_PUT, KIND_GET };
#define GET_PIECES (AGG_CAP / sizeof(tn_vis_lpiece_t)) /* gets per buffer at most */

/* One peer's puts, in the order issued: a tn_vis_head_t, then per put
 * {address, length, the bytes}; or its gets: a tn_vis_lpiece_t each. */
typedef struct pbatch {
    int rank;              /* the peer, while n > 0 */
    int kind;              /* KIND_*: of the buffered operations and of the
                              messages in flight (a switch waits for those) */
    uint32_t n;            /* puts or gets */
    size_t len, cap;       /* Request bytes (head included); limit for this peer */
    size_t data;           /* gets: bytes their Reply carries */
    tn_comp_t *comp;       /* the context's remote completion: one part per message */
    uint32_t stamp, seen;  /* operations appended; stamp at another thread's last look */
    _Atomic long inflight; /* messages of this slot whose Reply has not come */
    struct pagg *agg;      /* the set this slot is in */
    char *buf;
} pbatch_t;

/* A thread's buffers. The owner appends; any thread may flush (a sync of
 * a shared context, a barrier, the progress thread): both under the lock,
 * and a flush sends before it empties, so whoever takes the lock next
 * finds the puts either still here or handed to the transport. */
typedef struct pagg {
    tn_pagg_head_t h; /* busy: open buffers + messages in flight (core.h) */
    _Atomic int lock;
    struct pagg *next; /* the registry: every thread's, until finalize */
    pbatch_t b[SLOTS];
} pagg_t;

TN_TLS_FAST _Thread_local tn_pagg_head_t *tn_pagg_mine;
_Atomic int tn_pagg_open;
static _Atomic(pagg_t *) registry;
static size_t agg_max; /* TERN_NBI_AGG_MAX; 0: off */
/* This thread is sending a buffer, or waiting for one's Reply: a flush
 * from inside that send's or wait's progress must not start another. */
static TN_TLS_FAST _Thread_local int flushing;
/* TERN_TEST_FAULT=pagg:N: every N-th message fails as a send to a peer
 * gone would (tests/mp/nbi_agg.c --fault). */
static unsigned long fault_every;
static _Atomic unsigned long fault_count;

size_t tn_pagg_max(void)
{
    return agg_max;
}

static TN_NOINLINE pagg_t *pagg_new(const char *call)
{
    pagg_t *a = calloc(1, sizeof(*a) + SLOTS * (size_t)AGG_CAP);
    if (!a) {
        tn_core_fail(TERN_ERR_NOMEM, call,
                     "no memory for this thread's buffers of combined nbi puts (%zu "
                     "bytes; TERN_NBI_AGG_MAX=0 turns combining off)",
                     sizeof(*a) + SLOTS * (size_t)AGG_CAP);
        return NULL;
    }
    char *mem = (char *)(a + 1);
    for (int i = 0; i < SLOTS; i++) {
        a->b[i].buf = mem + (size_t)i * AGG_CAP;
        a->b[i].agg = a;
    }
    a->next = atomic_load_explicit(&registry, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(
        &registry, &a->next, a, memory_order_release, memory_order_relaxed))
        ;
    tn_pagg_mine = &a->h;
    return a;
}

/* Sends b (lock held) as one Request. Under TERN_FLAG_IMMEDIATE without
 * room: TERN_ERR_AGAIN, b kept. Any other failure is logged naming the
 * peer and ends the message's part of the context with it (its sync
 * returns it); b is emptied either way. */
static int flush_put(const char *call, pagg_t *a, pbatch_t *b, unsigned flags)
{
    tn_vis_head_t h = {TN_VISM_LIST, 0, 0, 0, b->n, 0};
    memcpy(b->buf, &h, HEAD);
    int rc = TERN_ERR_PEER;
    if (fault_every && ++fault_count % fault_every == 0) { /* TERN_TEST_FAULT=pagg:N */
        tn_comp_done(b->comp, TERN_ERR_PEER);
        tn_error("%s: %u combined nbi puts (%zu bytes) to rank %d were not sent: fault "
                 "injected (TERN_TEST_FAULT=pagg:%lu); the sync of their context returns "
                 "the error",
                 call, b->n, b->len - HEAD, b->rank, fault_every);
        goto emptied;
    }
    tern_am_arg_t args[3] = {(uint64_t)(uintptr_t)b->comp, (uint64_t)(uintptr_t)a,
                             (uint64_t)(b - a->b)};
    /* Counted in flight before the send: its Reply may come on another
     * thread before the send returns. */
    atomic_fetch_add_explicit(&b->inflight, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&a->h.busy, 1, memory_order_relaxed);
    flushing++;
    rc = tn_am_request_internal(call, b->rank, TN_AMH_PAGG, TN_AM_MEDIUM, b->buf, b->len,
                                NULL, args, 3, flags & TERN_FLAG_IMMEDIATE);
    flushing--;
    if (rc != TERN_OK) {
        atomic_fetch_sub_explicit(&b->inflight, 1, memory_order_relaxed);
        atomic_fetch_sub_explicit(&a->h.busy, 1, memory_order_relaxed);
        if (rc == TERN_ERR_AGAIN && (flags & TERN_FLAG_IMMEDIATE))
            return rc;
        tn_error("%s: %u combined nbi puts (%zu bytes) to rank %d were not sent: %s; "
                 "the sync of their context returns the error",
                 call, b->n, b->len - HEAD, b->rank, tern_strerror(rc));
        tn_comp_done(b->comp, rc);
    }
emptied:
    b->n = 0;
    b->len = 0;
    atomic_fetch_sub_explicit(&a->h.busy, 1, memory_order_release);
    atomic_fetch_sub_explicit(&tn_pagg_open, 1, memory_order_relaxed);
    return rc;
}

/* The last Reply of a get message has written its pieces and ended its
 * part of the context (or it failed): the slot's message is done. */
static void got_done(void *arg)
{
    pbatch_t *b = arg;
    atomic_fetch_sub_explicit(&b->inflight, 1, memory_order_release);
    atomic_fetch_sub_explicit(&b->agg->h.busy, 1, memory_order_release);
}

/* Sends b's gets (lock held) as the packed list get, whose Replies write
 * the destinations and end their own parts of the context; the buffer's
 * part ends here, with the error when nothing could be sent. Statuses as
 * flush_put's. */
static int flush_get(const char *call, pagg_t *a, pbatch_t *b, unsigned flags)
{
    const tn_vis_lpiece_t *pc = (const tn_vis_lpiece_t *)b->buf;
    int rc = TERN_ERR_PEER;
    tn_vis_lpiece_t *to;
    tn_vis_lget_t *g;
    if (fault_every && ++fault_count % fault_every == 0) { /* TERN_TEST_FAULT=pagg:N */
        tn_error("%s: %u combined nbi gets (%zu bytes) from rank %d were not sent: fault "
                 "injected (TERN_TEST_FAULT=pagg:%lu); the sync of their context returns "
                 "the error, their destinations are not written",
                 call, b->n, b->data, b->rank, fault_every);
    } else if (!(g = tn_vis_lget_new(b->n, &to))) {
        rc = TERN_ERR_NOMEM;
        tn_error("%s: %u combined nbi gets (%zu bytes) from rank %d were not sent: no "
                 "memory for their record; the sync of their context returns the error",
                 call, b->n, b->data, b->rank);
    } else {
        memcpy(to, pc, b->n * sizeof(*pc));
        tn_vis_issue_t is = {
            TN_RMA_GET, b->rank, {NULL, b->comp}, flags & TERN_FLAG_IMMEDIATE,
            0,          TERN_OK};
        /* Counted in flight before the send: got_done may run on another
         * thread (or in the call, when it sends nothing) before it returns. */
        atomic_fetch_add_explicit(&b->inflight, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&a->h.busy, 1, memory_order_relaxed);
        tn_vis_lget_on_done(g, got_done, b);
        flushing++;
        tn_vis_pack_list_get(g, b->n, &is); /* takes g */
        flushing--;
        rc = is.err;
        if (rc == TERN_ERR_AGAIN && (flags & TERN_FLAG_IMMEDIATE) && !is.started)
            return rc; /* kept for the next get or sync */
        if (rc != TERN_OK)
            tn_error("%s: %u combined nbi gets (%zu bytes) from rank %d were not all "
                     "sent: %s; the sync of their context returns the error",
                     call, b->n, b->data, b->rank, tern_strerror(rc));
    }
    tn_comp_done(b->comp, rc); /* the buffer's part; each message counted its own */
    b->n = 0;
    b->len = 0;
    b->data = 0;
    atomic_fetch_sub_explicit(&a->h.busy, 1, memory_order_release);
    atomic_fetch_sub_explicit(&tn_pagg_open, 1, memory_order_relaxed);
    return rc;
}

static int flush(const char *call, pagg_t *a, pbatch_t *b, unsigned flags)
{
    return b->kind == KIND_GET ? flush_get(call, a, b, flags)
                               : flush_put(call, a, b, flags);
}

/* Waits for the Replies of b's messages in flight (b's lock not held). */
static void drain(pbatch_t *b)
{
    if (!atomic_load_explicit(&b->inflight, memory_order_acquire))
        return;
    tn_wait_t w = TN_WAIT_NET;
    flushing++;
    while (atomic_load_explicit(&b->inflight, memory_order_acquire))
        tn_wait_next(&w);
    flushing--;
}

/* Takes b (locked) for an operation of kind to rank in context c that
 * needs need more Request bytes and data more Reply bytes: another
 * peer's, context's or kind's operations leave first; when the kind
 * changes, their Replies are awaited (unlocked; only the owner appends,
 * so b is still empty after): a get never passes this thread's earlier
 * put, nor a put its earlier get (nbi-aggregation.md). TERN_OK, or
 * TERN_ERR_AGAIN under IMMEDIATE (nothing changed). */
static int take(const char *call, pagg_t *a, pbatch_t *b, int kind, int rank,
                tn_comp_t *c, size_t need, size_t data, unsigned flags)
{
    if (b->n && (b->rank != rank || b->comp != c || b->kind != kind ||
                 b->len + need > b->cap || b->data + data > b->cap)) {
        int rc = flush(call, a, b, flags);
        if (rc == TERN_ERR_AGAIN) /* a failure is the sync's of those operations */
            return rc;
    }
    if (b->kind != kind && atomic_load_explicit(&b->inflight, memory_order_acquire)) {
        tn_spin_unlock(&a->lock);
        drain(b);
        tn_spin_lock(&a->lock);
    }
    return TERN_OK;
}
int tn_pagg_put(const char *call, tn_comp_t *c, int rank, void *remote, const void *local,
                size_t n, unsigned flags)
{
    size_t cap = tn_core_peer(rank)->am_medium_max;
    cap = cap < AGG_CAP ? cap : AGG_CAP;
    size_t need = ENTRY + n;
    if (HEAD + need > cap)
        return TN_PAGG_DIRECT; /* this peer's messages are too small for it */
    pagg_t *a = tn_pagg_mine ? (pagg_t *)tn_pagg_mine : pagg_new(call);
    if (!a)
        return TERN_ERR_NOMEM;
    tn_spin_lock(&a->lock);
    pbatch_t *b = &a->b[(unsigned)rank % SLOTS];
    /* One peer, context and kind per buffer: another's leave first. */
    int rc = take(call, a, b, KIND_PUT, rank, c, need, 0, flags);
    if (rc == TERN_OK) {
        if (!b->n) {
            b->rank = rank;
            b->kind = KIND_PUT;
            b->comp = c;
            b->cap = cap;
            b->len = HEAD;
            tn_comp_add(c, 1); /* the message's part, ended by its Reply */
            atomic_fetch_add_explicit(&a->h.busy, 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&tn_pagg_open, 1, memory_order_relaxed);
        }
        uint64_t e[2] = {(uint64_t)(uintptr_t)remote, n};
        char *p = b->buf + b->len;
        memcpy(p, e, ENTRY);
        memcpy(p + ENTRY, local, n);
        b->len += need;
        b->n++;
        b->stamp++;
        /* No room for another put of the largest size: it leaves now (a
         * refusal under IMMEDIATE leaves it for the next put or sync). */
        if (b->len + ENTRY + agg_max > b->cap)
            (void)flush(call, a, b, flags);
    }
    tn_spin_unlock(&a->lock);
    return rc;
}

int tn_pagg_get(const char *call, tn_comp_t *c, int rank, const void *remote, void *local,
                size_t n, unsigned flags)
{
    size_t cap = tn_core_peer(rank)->am_medium_max;
    cap = cap < AGG_CAP ? cap : AGG_CAP;
    if (HEAD + ENTRY > cap || n > cap)
        return TN_PAGG_DIRECT;
    pagg_t *a = tn_pagg_mine ? (pagg_t *)tn_pagg_mine : pagg_new(call);
    if (!a)
        return TERN_ERR_NOMEM;
    tn_spin_lock(&a->lock);
    pbatch_t *b = &a->b[(unsigned)rank % SLOTS];
    int rc = take(call, a, b, KIND_GET, rank, c, ENTRY, n, flags);
    if (rc == TERN_OK) {
        if (!b->n) {
            b->rank = rank;
            b->kind = KIND_GET;
            b->comp = c;
            b->cap = cap;
            b->len = HEAD;
            b->data = 0;
            tn_comp_add(c, 1); /* the buffer's part, ended when it leaves */
            atomic_fetch_add_explicit(&a->h.busy, 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&tn_pagg_open, 1, memory_order_relaxed);
        }
        tn_vis_lpiece_t *pc = (tn_vis_lpiece_t *)b->buf;
        pc[b->n] = (tn_vis_lpiece_t){(char *)local, (const char *)remote, n};
        b->len += ENTRY;
        b->data += n;
        b->n++;
        b->stamp++;
        /* No room for another get of the largest size: it leaves now. */
        if (b->n == GET_PIECES || b->len + ENTRY > b->cap || b->data + agg_max > b->cap)
            (void)flush(call, a, b, flags);
    }
    tn_spin_unlock(&a->lock);
    return rc;
}

int tn_pagg_before_slow(int rank, unsigned flags)
{
    if (flushing || tn_am_in_handler || (unsigned)rank >= (unsigned)tn_core.size ||
        tn_core_peer(rank)->kind != TN_PEER_NET)
        return TERN_OK;
    pagg_t *a = (pagg_t *)tn_pagg_mine;
    pbatch_t *b = &a->b[(unsigned)rank % SLOTS];
    int rc = TERN_OK;
    tn_spin_lock(&a->lock);
    if (b->n && b->rank == rank)
        rc = flush(b->kind == KIND_GET
                       ? "tern_get_nbi (combined, before another operation)"
                       : "tern_put_nbi (combined, before another operation)",
                   a, b, flags);
    tn_spin_unlock(&a->lock);
    if (rc == TERN_ERR_AGAIN && (flags & TERN_FLAG_IMMEDIATE))
        return rc;
    if (flags & TN_XPORT_FLAG_CTRL)
        return TERN_OK; /* control traffic: sent first is enough */
    /* The Reply says the handler has written the puts (or read the gets'
     * sources): a later RMA, atomic or message sees them and lands after
     * them, and no later write lands before a get has read. */
    drain(b);
    return TERN_OK;
}

/* A lone put in c's buffer of this thread goes as a plain RMA write when
 * the sync about to wait for c's remote completion is this thread's: one
 * write whose completion the sync's wait gives (the transport's flush
 * read) costs less than a message and its Reply (net put_nbi + quiet,
 * nbi-aggregation.md). Only here: the sync waits for it before returning,
 * and no message of this slot is in flight, so neither an older message
 * nor a later one of this thread to the peer can pass it (a lone put sent
 * this way at any other flush broke last-one-wins: mp.nbi_agg_small). */
void tn_pagg_sync_lone_slow(tn_comp_t *c)
{
    pagg_t *a = (pagg_t *)tn_pagg_mine;
    if (flushing || tn_am_in_handler)
        return;
    tn_spin_lock(&a->lock);
    for (int i = 0; i < SLOTS; i++) {
        pbatch_t *b = &a->b[i];
        if (b->n != 1 || b->comp != c ||
            atomic_load_explicit(&b->inflight, memory_order_acquire))
            continue;
        if (b->kind == KIND_GET) {
            /* an RMA read straight into the destination, counted in c */
            const tn_vis_lpiece_t *pc = (const tn_vis_lpiece_t *)b->buf;
            tn_rma_t d = {TN_RMA_GET, b->rank, pc->dst, (void *)pc->src, pc->n};
            tn_xport_done_t done = {NULL, c};
            flushing++;
            int rc = tn_core_rma_start(&d, &done, 0);
            flushing--;
            if (rc != TERN_OK)
                tn_error(
                    "tern_get_nbi (combined): a get of %zu bytes from rank %d was not "
                    "sent: %s; the sync of its context returns the error",
                    pc->n, b->rank, tern_strerror(rc));
            tn_comp_done(c, rc); /* the buffer's part; the read counted its own */
            b->n = 0;
            b->len = 0;
            b->data = 0;
            atomic_fetch_sub_explicit(&a->h.busy, 1, memory_order_release);
            atomic_fetch_sub_explicit(&tn_pagg_open, 1, memory_order_relaxed);
            continue;
        }
        uint64_t e[2];
        memcpy(e, b->buf + HEAD, ENTRY);
        char bytes[TN_NBI_AGG_LIMIT];
        memcpy(bytes, b->buf + HEAD + ENTRY, e[1]);
        tn_rma_t d = {TN_RMA_PUT, b->rank, bytes, (void *)(uintptr_t)e[0], e[1]};
        tn_comp_t lc;
        tn_comp_init(&lc, 0);
        tn_xport_done_t done = {&lc, c};
        flushing++; /* the start and the wait below must not flush this slot */
        int rc = tn_core_rma_start(&d, &done, 0);
        if (rc == TERN_OK)
            rc = tn_comp_wait(&lc); /* bytes live on this stack */
        flushing--;
        if (rc != TERN_OK)
            tn_error("tern_put_nbi (combined): a put of %zu bytes to rank %d was not "
                     "sent: %s; the sync of its context returns the error",
                     (size_t)e[1], b->rank, tern_strerror(rc));
        tn_comp_done(c, rc); /* the buffer's part; the write counted its own */
        b->n = 0;
        b->len = 0;
        atomic_fetch_sub_explicit(&a->h.busy, 1, memory_order_release);
        atomic_fetch_sub_explicit(&tn_pagg_open, 1, memory_order_relaxed);
    }
    tn_spin_unlock(&a->lock);
}

void tn_pagg_flush(int wait)
{
    if (flushing || tn_am_in_handler)
        return;
    pagg_t *own = (pagg_t *)tn_pagg_mine;
    for (pagg_t *a = atomic_load_explicit(&registry, memory_order_acquire); a;
         a = a->next) {
        if (!atomic_load_explicit(&a->h.busy, memory_order_acquire))
            continue;
        if (wait)
            tn_spin_lock(&a->lock);
        else if (!tn_spin_trylock(&a->lock))
            continue; /* its holder sends it, or the next flush will */
        for (int i = 0; i < SLOTS; i++) {
            pbatch_t *b = &a->b[i];
            if (!b->n)
                continue;
            /* Progress on another thread (the progress thread, a waiting
             * thread) sends a buffer once it took no put since that
             * thread's last look: the owner still filling it keeps it. */
            if (!wait && a != own && b->seen != b->stamp) {
                b->seen = b->stamp;
                continue;
            }
            (void)flush(b->kind == KIND_GET ? "tern_get_nbi (combined)"
                                            : "tern_put_nbi (combined)",
                        a, b, 0);
        }
        tn_spin_unlock(&a->lock);
    }
}

/* Request args: [0] the initiator's completion object, [1] its buffers,
 * [2] the slot. Reply args: [0] status, then the Request's three. */
static void on_put(tern_am_token_t token, void *buf, size_t len, const tern_am_arg_t *a,
                   int nargs)
{
    const char *why =
        nargs == 3 ? tn_vis_unpack_put(buf, len) : "its argument count is not 3";
    int st = TERN_OK;
    if (why) {
        int src = -1;
        tern_am_source(token, &src);
        tn_error("combined nbi puts from rank %d are malformed (%zu bytes): %s; refused, "
                 "nothing written",
                 src, len, why);
        st = TERN_ERR_INVALID;
    }
    if (nargs != 3)
        return; /* nothing to answer to */
    tern_am_arg_t r[4] = {(uint64_t)(uint32_t)st, a[0], a[1], a[2]};
    tn_am_reply_internal("tern_put_nbi (combined)", token, TN_AMH_PAGG_ACK, TN_AM_SHORT,
                         NULL, 0, NULL, r, 4, 0);
}

static void on_ack(tern_am_token_t token, void *buf, size_t len, const tern_am_arg_t *a,
                   int nargs)
{
    (void)token, (void)buf, (void)len;
    if (nargs != 4 || !a[1] || !a[2] || a[3] >= SLOTS)
        return;
    pagg_t *g = (pagg_t *)(uintptr_t)a[2];
    pbatch_t *b = &g->b[a[3]];
    tn_comp_t *c = (tn_comp_t *)(uintptr_t)a[1];
    /* The context's part first: a sync that sees the slot empty may
     * return, and must then see the puts completed too. */
    tn_comp_done(c, (int)(uint32_t)a[0]);
    atomic_fetch_sub_explicit(&b->inflight, 1, memory_order_release);
    atomic_fetch_sub_explicit(&g->h.busy, 1, memory_order_release);
}

void tn_pagg_init(void)
{
    agg_max = tn_cfg.nbi_agg_max;
    char end;
    if (sscanf(tn_cfg.test_fault, "pagg:%lu%c", &fault_every, &end) != 1)
        fault_every = 0;
    tn_am_register_internal(TN_AMH_PAGG, on_put, "tern combined nbi puts");
    tn_am_register_internal(TN_AMH_PAGG_ACK, on_ack, "tern combined nbi puts reply");
}

void tn_pagg_fini(void)
{
    pagg_t *a = atomic_exchange_explicit(&registry, NULL, memory_order_acquire);
    while (a) {
        pagg_t *next = a->next;
        free(a);
        a = next;
    }
    tn_pagg_mine = NULL;
    agg_max = 0;
    atomic_store_explicit(&tn_pagg_open, 0, memory_order_relaxed);
}
