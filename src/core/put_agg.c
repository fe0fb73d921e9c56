/* Combined nbi puts: a thread's small nbi puts to one network peer collect
 * in a buffer, in the packed-put list format of core/vis_wire.h, that
 * leaves as one Medium Request; the target writes the pieces in order
 * (tn_vis_unpack_put) and answers with one Short Reply, which completes
 * them. docs/design/nbi-aggregation.md. */
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

/* One peer's puts, in the order issued: a tn_vis_head_t, then per put
 * {address, length, the bytes}. */
typedef struct pbatch {
    int rank;              /* the peer, while n > 0 */
    uint32_t n;            /* puts */
    size_t len, cap;       /* bytes used (head included); limit for this peer */
    tn_comp_t *comp;       /* the context's remote completion: one part per message */
    uint32_t stamp, seen;  /* puts appended; stamp at another thread's last look */
    _Atomic long inflight; /* messages of this slot whose Reply has not come */
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
    for (int i = 0; i < SLOTS; i++)
        a->b[i].buf = mem + (size_t)i * AGG_CAP;
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
static int flush(const char *call, pagg_t *a, pbatch_t *b, unsigned flags)
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
    int rc = TERN_OK;
    /* One peer and one context per buffer: another's puts leave first. */
    if (b->n && (b->rank != rank || b->comp != c || b->len + need > b->cap)) {
        rc = flush(call, a, b, flags);
        if (rc != TERN_ERR_AGAIN) /* a failure is the sync's of those puts */
            rc = TERN_OK;
    }
    if (rc == TERN_OK) {
        if (!b->n) {
            b->rank = rank;
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
        rc = flush("tern_put_nbi (combined, before another operation)", a, b, flags);
    tn_spin_unlock(&a->lock);
    if (rc == TERN_ERR_AGAIN && (flags & TERN_FLAG_IMMEDIATE))
        return rc;
    if (flags & TN_XPORT_FLAG_CTRL)
        return TERN_OK; /* control traffic: sent first is enough */
    /* The Reply says the handler has written them: a later RMA, atomic or
     * message sees them and lands after them. */
    if (atomic_load_explicit(&b->inflight, memory_order_acquire)) {
        tn_wait_t w = TN_WAIT_NET;
        flushing++;
        while (atomic_load_explicit(&b->inflight, memory_order_acquire))
            tn_wait_next(&w);
        flushing--;
    }
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
            (void)flush("tern_put_nbi (combined)", a, b, 0);
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
