/* Events and nbi tracking. An event is a counter that the transport
 * decrements on completion; nbi operations count into per-thread counters
 * (thread-local, so THREAD_MULTIPLE needs no lock here). */
#include "core/event.h"

#include <stdlib.h>

#include "base/wait.h"

struct tern_event_s {
    _Atomic(int64_t) pending;
    struct tern_event_s *next_free;
};

static struct tern_event_s *free_events;
static pthread_mutex_t event_lock = PTHREAD_MUTEX_INITIALIZER;

static struct tern_event_s *event_new(void)
{
    pthread_mutex_lock(&event_lock);
    struct tern_event_s *e = free_events;
    if (e)
        free_events = e->next_free;
    pthread_mutex_unlock(&event_lock);
    if (!e && !(e = malloc(sizeof(*e))))
        return NULL;
    atomic_store_explicit(&e->pending, 1, memory_order_relaxed);
    return e;
}

static void event_release(struct tern_event_s *e)
{
    pthread_mutex_lock(&event_lock);
    e->next_free = free_events;
    free_events = e;
    pthread_mutex_unlock(&event_lock);
}

/* Per-thread nbi completion counters. */
typedef struct tn_nbi {
    _Atomic(int64_t) lc, rc;
} tn_nbi_t;
static _Thread_local tn_nbi_t nbi;

int tn_core_progress(void)
{
    int done = 0;
    for (int i = 0; i < tn_core.nxports; i++)
        done += tn_core.xports[i]->ops->poll(tn_core.xports[i]);
    return done;
}

int tern_poll(void)
{
    TN_CHECK_INIT("tern_poll");
    tn_core_progress();
    return TERN_OK;
}

static void wait_counter(_Atomic(int64_t) *c)
{
    uint64_t iter = 0;
    /* tn_wait_step drives the transports' progress (its hook); polling
     * here as well would double the network polls per check. */
    while (atomic_load_explicit(c, memory_order_acquire) > 0)
        tn_wait_step(iter++);
}

int tn_event_run_blocking_put(int rank, void *dst, const void *src, size_t n,
                              unsigned flags, tn_put_fn put)
{
    _Atomic(int64_t) rc_count = 1;
    tn_xport_done_t done = {NULL, &rc_count};
    int rc = put(rank, dst, src, n, &done, flags);
    if (rc == TERN_OK)
        wait_counter(&rc_count);
    return rc;
}

int tn_event_run_blocking_get(void *dst, int rank, const void *src, size_t n,
                              unsigned flags, tn_get_fn get)
{
    _Atomic(int64_t) rc_count = 1;
    tn_xport_done_t done = {NULL, &rc_count};
    int rc = get(dst, rank, src, n, &done, flags);
    if (rc == TERN_OK)
        wait_counter(&rc_count);
    return rc;
}

int tn_event_start_put(int rank, void *dst, const void *src, size_t n, tern_event_t *lc,
                       tern_event_t *rc_ev, unsigned flags, tn_put_fn put)
{
    struct tern_event_s *l = lc ? event_new() : NULL;
    struct tern_event_s *r = rc_ev ? event_new() : NULL;
    if ((lc && !l) || (rc_ev && !r)) {
        if (l)
            event_release(l);
        if (r)
            event_release(r);
        return tn_core_fail(TERN_ERR_NOMEM, "tern_put_nb", "no memory for an event");
    }
    /* With rc NULL the caller has no way to learn of completion later, so
     * completion is tracked on a private counter and awaited here. */
    _Atomic(int64_t) own = 1;
    tn_xport_done_t done = {l ? &l->pending : NULL, r ? &r->pending : &own};
    int rc = put(rank, dst, src, n, &done, flags);
    if (rc != TERN_OK) {
        if (l)
            event_release(l);
        if (r)
            event_release(r);
        return rc;
    }
    if (!r)
        wait_counter(&own);
    if (lc)
        *lc = l;
    if (rc_ev)
        *rc_ev = r;
    return TERN_OK;
}

int tn_event_start_get(void *dst, int rank, const void *src, size_t n,
                       tern_event_t *done_ev, unsigned flags, tn_get_fn get)
{
    struct tern_event_s *e = done_ev ? event_new() : NULL;
    if (done_ev && !e)
        return tn_core_fail(TERN_ERR_NOMEM, "tern_get_nb", "no memory for an event");
    _Atomic(int64_t) own = 1;
    tn_xport_done_t done = {NULL, e ? &e->pending : &own};
    int rc = get(dst, rank, src, n, &done, flags);
    if (rc != TERN_OK) {
        if (e)
            event_release(e);
        return rc;
    }
    if (!e)
        wait_counter(&own);
    else
        *done_ev = e;
    return TERN_OK;
}

int tn_nbi_start_put(int rank, void *dst, const void *src, size_t n, unsigned flags,
                     tn_put_fn put)
{
    atomic_fetch_add_explicit(&nbi.lc, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&nbi.rc, 1, memory_order_relaxed);
    tn_xport_done_t done = {&nbi.lc, &nbi.rc};
    int rc = put(rank, dst, src, n, &done, flags);
    if (rc != TERN_OK) {
        atomic_fetch_sub_explicit(&nbi.lc, 1, memory_order_relaxed);
        atomic_fetch_sub_explicit(&nbi.rc, 1, memory_order_relaxed);
    }
    return rc;
}

int tn_nbi_start_get(void *dst, int rank, const void *src, size_t n, unsigned flags,
                     tn_get_fn get)
{
    atomic_fetch_add_explicit(&nbi.rc, 1, memory_order_relaxed);
    tn_xport_done_t done = {NULL, &nbi.rc};
    int rc = get(dst, rank, src, n, &done, flags);
    if (rc != TERN_OK)
        atomic_fetch_sub_explicit(&nbi.rc, 1, memory_order_relaxed);
    return rc;
}

int tern_event_test_slow_(tern_event_t ev)
{
    if (ev == TERN_EVENT_DONE)
        return TERN_OK;
    TN_CHECK_INIT("tern_event_test");
    if (atomic_load_explicit(&ev->pending, memory_order_acquire) > 0) {
        tn_core_progress();
        if (atomic_load_explicit(&ev->pending, memory_order_acquire) > 0)
            return TERN_INPROGRESS;
    }
    event_release(ev);
    return TERN_OK;
}

int tern_event_wait_slow_(tern_event_t ev)
{
    if (ev == TERN_EVENT_DONE)
        return TERN_OK;
    TN_CHECK_INIT("tern_event_wait");
    wait_counter(&ev->pending);
    event_release(ev);
    return TERN_OK;
}

int tern_event_wait_all(tern_event_t *evs, size_t n)
{
    if (!evs && n)
        return tn_core_fail(TERN_ERR_INVALID, "tern_event_wait_all", "evs is NULL");
    int first = TERN_OK;
    for (size_t i = 0; i < n; i++) {
        int rc = tern_event_wait(evs[i]);
        if (rc != TERN_OK && first == TERN_OK)
            first = rc;
        evs[i] = TERN_EVENT_DONE;
    }
    return first;
}

static int nbi_check_level(const char *call, unsigned level)
{
    if (level == 0 || (level & ~(TERN_SYNC_LOCAL | TERN_SYNC_REMOTE)))
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "level 0x%x is not TERN_SYNC_LOCAL or TERN_SYNC_REMOTE",
                            level);
    return TERN_OK;
}

int tern_nbi_sync(unsigned level)
{
    TN_CHECK_INIT("tern_nbi_sync");
    int rc = nbi_check_level("tern_nbi_sync", level);
    if (rc != TERN_OK)
        return rc;
    wait_counter(level & TERN_SYNC_REMOTE ? &nbi.rc : &nbi.lc);
    return TERN_OK;
}

int tern_nbi_test(unsigned level)
{
    TN_CHECK_INIT("tern_nbi_test");
    int rc = nbi_check_level("tern_nbi_test", level);
    if (rc != TERN_OK)
        return rc;
    tn_core_progress();
    _Atomic(int64_t) *c = level & TERN_SYNC_REMOTE ? &nbi.rc : &nbi.lc;
    return atomic_load_explicit(c, memory_order_acquire) > 0 ? TERN_INPROGRESS : TERN_OK;
}
