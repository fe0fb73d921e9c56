/* RMA and atomics that must not wait: an operation started from inside an
 * active-message handler (TN_XPORT_FLAG_HANDLER) that cannot be issued at
 * once (no free descriptor, the provider's queue full) is queued and
 * issued by later polls, in order, reporting into the caller's completion
 * objects as if it had gone at once (docs/design/active-messages.md,
 * "RMA from handlers"; docs/design/atomics.md, "Atomics from handlers"). */
#include <stdlib.h>

#include <tern.h>

#include "base/log.h"
#include "base/stats.h"
#include "base/wait.h"
#include "xport/ofi/ofi.h"

/* One queued operation: the fragments from off on are still to issue.
 * Its parts (one per fragment in lc and rc) were counted when it started;
 * each is ended by the fragment's completion, or with the error. An
 * atomic (is_amo) is one fragment (n 1) with its operands copied in amo
 * and no lc; its fetched value lands in amo.result when it completes. */
struct tn_ofi_defer {
    tn_ofi_defer_t *next;
    int is_get, rank, is_amo;
    unsigned flags;
    union {
        struct {
            char *local; /* the caller's buffer: a put's source stays the
                            caller's until local completion, as for any
                            non-blocking put */
            uint64_t raddr, key;
        };
        tn_amo_t amo;
    };
    size_t n, off;
    tn_comp_t *lc, *rc;
};

_Static_assert(sizeof(tn_ofi_defer_t) <= 112, "design note: a 112-byte record");

TN_TLS_FAST _Thread_local int tn_ofi_no_handlers;

/* Fragments of d from off on. */
static size_t frags_left(const tn_ofi_t *o, const tn_ofi_defer_t *d)
{
    size_t left = d->n - d->off;
    return left / o->max_msg + (left % o->max_msg != 0); /* max_msg may be SIZE_MAX */
}

/* Ends the parts of d's fragments not issued with status. */
static void end_parts(tn_ofi_t *o, tn_ofi_defer_t *d, int status)
{
    for (size_t i = frags_left(o, d); i > 0; i--) {
        if (d->lc)
            tn_comp_done(d->lc, status);
        if (d->rc)
            tn_comp_done(d->rc, status);
    }
    d->off = d->n;
}

/* Issues d's fragments from d->off on, each with IMMEDIATE (nothing
 * waits; tn_ofi_no_handlers is set, so the one poll a refusal makes runs
 * no handler): TERN_OK when all went, TERN_ERR_AGAIN when one was refused
 * (d->off says how far it got), or the error of a fragment that failed
 * (the parts not issued are ended with it; fail_first: unless it was the
 * first fragment of all, which the caller takes back). */
static int issue_from(tn_ofi_t *o, tn_ofi_defer_t *d, int fail_first)
{
    if (d->is_amo && d->off < d->n) {
        int st = tn_ofi_amo_issue(o, &d->amo, d->rc, d->flags | TERN_FLAG_IMMEDIATE);
        if (st == TERN_ERR_AGAIN)
            return st;
        if (st != TERN_OK) {
            if (!fail_first)
                end_parts(o, d, st);
            return st;
        }
        d->off = d->n;
    }
    while (d->off < d->n) {
        size_t len = d->n - d->off < o->max_msg ? d->n - d->off : o->max_msg;
        int st = tn_ofi_issue(o, d->is_get, d->rank, d->local + d->off, d->raddr + d->off,
                              d->key, len, d->lc, d->rc, d->flags | TERN_FLAG_IMMEDIATE);
        if (st == TERN_ERR_AGAIN)
            return st;
        if (st != TERN_OK) {
            if (d->off > 0 || !fail_first)
                end_parts(o, d, st);
            return st;
        }
        d->off += len;
    }
    return TERN_OK;
}

/* One try, running no handler, when nothing is queued before it (the
 * queue keeps order); TERN_ERR_AGAIN when it must be queued. */
static int try_now(tn_ofi_t *o, tn_ofi_defer_t *one)
{
    if (atomic_load_explicit(&o->ndefer, memory_order_acquire))
        return TERN_ERR_AGAIN;
    int saved = tn_ofi_no_handlers;
    tn_ofi_no_handlers = 1;
    int st = issue_from(o, one, 1);
    tn_ofi_no_handlers = saved;
    return st;
}

int tn_ofi_defer_issue(tn_ofi_t *o)
{
    if (atomic_load_explicit(&o->defer_busy, memory_order_relaxed) ||
        atomic_exchange_explicit(&o->defer_busy, 1, memory_order_acquire))
        return 0; /* another thread (or this one, further out) issues them */
    int saved = tn_ofi_no_handlers, done = 0;
    tn_ofi_no_handlers = 1;
    for (;;) {
        /* Appenders only touch the tail: the head is this thread's. */
        pthread_mutex_lock(&o->lock);
        tn_ofi_defer_t *d = o->defer_head;
        pthread_mutex_unlock(&o->lock);
        if (!d || issue_from(o, d, 0) == TERN_ERR_AGAIN)
            break;
        pthread_mutex_lock(&o->lock);
        o->defer_head = d->next;
        if (!o->defer_head)
            o->defer_tail = &o->defer_head;
        pthread_mutex_unlock(&o->lock);
        /* Released after the unlink: a caller that sees none queued (or
         * none of those queued before it) may issue its own at once,
         * behind this one. */
        atomic_fetch_add_explicit(&o->defer_retired, 1, memory_order_release);
        atomic_fetch_sub_explicit(&o->ndefer, 1, memory_order_release);
        free(d);
        done++;
    }
    tn_ofi_no_handlers = saved;
    atomic_store_explicit(&o->defer_busy, 0, memory_order_release);
    return done;
}

/* Queues d behind the others. */
static void append(tn_ofi_t *o, tn_ofi_defer_t *d)
{
    /* Read before d is queued: once the lock is released, a thread that
     * issues the queue may issue and free d. */
    int is_amo = d->is_amo;
    d->next = NULL;
    pthread_mutex_lock(&o->lock);
    *o->defer_tail = d;
    o->defer_tail = &d->next;
    long now = atomic_fetch_add_explicit(&o->ndefer, 1, memory_order_relaxed) + 1;
    atomic_fetch_add_explicit(&o->defer_appended, 1, memory_order_relaxed);
    if (now > o->defer_peak)
        o->defer_peak = now;
    pthread_mutex_unlock(&o->lock);
    if (is_amo)
        TN_STAT_ADD(net_deferred_amo, 1);
    else
        TN_STAT_ADD(net_deferred, 1);
}

/* A caller that may wait, with operations queued: those queued before it
 * go first (the order of one thread's operations to a peer holds across
 * a handler and the code that ran it). Polls, which issues them. TERN_OK
 * once every operation queued before the call has left the queue,
 * TERN_ERR_AGAIN under IMMEDIATE when one poll did not clear them.
 * The polls run handlers, which may queue more; those are not waited
 * for: they started after this call, which cannot depend on them, and a
 * wait for an empty queue is fed by the very polls that drain it (with
 * few descriptors and peers flooding, it outlasted the peers' whole
 * streams: active-messages.md, "am_hold"). Meanwhile no credits go back
 * (tn_ofi_msg_hold), so what peers send slows while the queue drains. */
static int wait_queue(tn_ofi_t *o, unsigned flags)
{
    if (atomic_load_explicit(&o->ndefer, memory_order_acquire) == 0)
        return TERN_OK;
    /* Appended under the lock before ndefer is seen: the count read here
     * covers every operation this thread can have seen queued. */
    uint64_t mine = atomic_load_explicit(&o->defer_appended, memory_order_acquire);
    tn_wait_t w = TN_WAIT_NET;
    int st = TERN_OK;
    tn_ofi_msg_hold(o, 1);
    while (atomic_load_explicit(&o->defer_retired, memory_order_acquire) < mine) {
        int done = tn_ofi_poll(&o->base);
        if (flags & TERN_FLAG_IMMEDIATE) {
            if (atomic_load_explicit(&o->defer_retired, memory_order_acquire) >= mine)
                break;
            if (done == 0)
                tn_wait_refused();
            st = TERN_ERR_AGAIN;
            break;
        }
        if (done == 0)
            tn_wait_next(&w);
    }
    tn_ofi_msg_hold(o, 0);
    return st;
}

int tn_ofi_defer_rma(tn_ofi_t *o, const tn_rma_t *op, const tn_xport_done_t *done,
                     unsigned flags)
{
    if (!(flags & TN_XPORT_FLAG_HANDLER)) {
        int st = wait_queue(o, flags);
        return st == TERN_OK ? TN_OFI_DEFER_GO_ON : st;
    }
    if (op->n == 0)
        return TN_OFI_DEFER_GO_ON;      /* nothing to issue */
    int pst = tn_ofi_peer(o, op->rank); /* first contact: its address */
    if (pst != TERN_OK)
        return pst;
    tn_ofi_defer_t one = {
        .is_get = op->kind == TN_RMA_GET,
        .rank = op->rank,
        .local = op->local,
        .raddr = tn_ofi_raddr(o, op->rank, op->remote, op->region),
        .key = tn_ofi_rkey(o, op->rank, op->region),
        .n = op->n,
        .lc = done->lc,
        .rc = done->rc,
        .flags = flags & (TN_XPORT_FLAG_CTRL | TN_XPORT_FLAG_NOREMOTE),
    };
    size_t nfrag = frags_left(o, &one);
    if (nfrag > 1) { /* one part per fragment */
        if (one.lc)
            tn_comp_add(one.lc, (int64_t)nfrag - 1);
        if (one.rc)
            tn_comp_add(one.rc, (int64_t)nfrag - 1);
    }
    int st = try_now(o, &one);
    if (st == TERN_OK)
        return TERN_OK;
    if (st != TERN_ERR_AGAIN) {
        if (one.off > 0)
            return TERN_OK; /* issue_from ended the parts with the error */
    } else if (one.off > 0 || !(flags & TERN_FLAG_IMMEDIATE)) {
        tn_ofi_defer_t *d = malloc(sizeof(*d));
        if (d) {
            *d = one;
            append(o, d);
            return TERN_OK;
        }
        tn_error("no memory to queue a %zu-byte %s from a handler to rank %d", op->n,
                 one.is_get ? "get" : "put", op->rank);
        st = TERN_ERR_NOMEM;
        if (one.off > 0) { /* reported as a fragment failing: through lc and rc */
            end_parts(o, &one, st);
            return TERN_OK;
        }
    } /* else IMMEDIATE asked for a refusal: nothing was issued */
    /* Nothing issued: the caller takes back its part, this takes back ours. */
    if (nfrag > 1) {
        if (one.lc)
            tn_comp_add(one.lc, -((int64_t)nfrag - 1));
        if (one.rc)
            tn_comp_add(one.rc, -((int64_t)nfrag - 1));
    }
    return st;
}

int tn_ofi_defer_amo(tn_ofi_t *o, const tn_amo_t *a, const tn_xport_done_t *done,
                     unsigned flags)
{
    if (!(flags & TN_XPORT_FLAG_HANDLER)) {
        int st = wait_queue(o, flags);
        return st == TERN_OK ? TN_OFI_DEFER_GO_ON : st;
    }
    int pst = tn_ofi_peer(o, a->rank); /* first contact: its address */
    if (pst != TERN_OK)
        return pst;
    tn_ofi_defer_t one = {
        .rank = a->rank,
        .is_amo = 1,
        .amo = *a,
        .n = 1,
        .rc = done->rc,
        .flags = flags & TN_XPORT_FLAG_CTRL,
    };
    int st = try_now(o, &one);
    if (st == TERN_ERR_AGAIN && !(flags & TERN_FLAG_IMMEDIATE)) {
        tn_ofi_defer_t *d = malloc(sizeof(*d));
        if (!d) {
            tn_error("no memory to queue an atomic %s from a handler to rank %d",
                     tn_aop_name(a->op), a->rank);
            return TERN_ERR_NOMEM;
        }
        *d = one;
        append(o, d);
        st = TERN_OK;
    }
    /* Issued or queued: the operands are copied, the source is free. An
     * error or a refusal under IMMEDIATE: nothing was issued, the caller
     * takes back its part. */
    if (st == TERN_OK && done->lc)
        tn_comp_done(done->lc, TERN_OK);
    return st;
}

void tn_ofi_defer_fini(tn_ofi_t *o)
{
    if (o->defer_peak)
        tn_debug(
            "ofi: RMA and atomics from handlers queued for later: at most %ld at once",
            o->defer_peak);
    while (o->defer_head) {
        tn_ofi_defer_t *d = o->defer_head;
        o->defer_head = d->next;
        if (d->is_amo)
            tn_error("an atomic %s queued from a handler to rank %d was never issued "
                     "(the transport closed first)",
                     tn_aop_name(d->amo.op), d->rank);
        else
            tn_error("a %zu-byte %s queued from a handler to rank %d was never issued "
                     "(the transport closed first)",
                     d->n, d->is_get ? "get" : "put", d->rank);
        end_parts(o, d, TERN_ERR_PEER);
        free(d);
    }
    o->defer_tail = &o->defer_head;
    atomic_store(&o->ndefer, 0);
}
