/* Events and contexts. An event is a slot in a table of slabs, named by
 * its index and a generation, so that a stale handle (a second wait, a
 * wait after release) is recognized instead of disturbing whichever
 * operation owns the slot now. Free slots sit in per-thread caches: taking
 * and releasing an event needs no lock and no malloc except when a cache
 * runs empty or full. */
#include "core/coll.h"
#include "core/event.h"

#include <pthread.h>
#include <stdlib.h>

#include "base/stats.h"
#include "base/time.h"
#include "base/wait.h"

_Static_assert(sizeof(void *) == 8, "event handles pack index and generation in 64 bits");

#define SLAB_EVENTS 1024u /* events per slab */
#define MAX_SLABS   4096u /* 4 Mi events in flight at most */
#define CACHE_MAX   64    /* per-thread free slots; half spill when full */

typedef struct tn_event {
    tn_comp_t comp;
    uint32_t gen;  /* bumped at every release: old handles stop matching */
    uint32_t live; /* 1 from tn_event_new to release */
    uint32_t next; /* global free list: index + 1, 0 ends */
} tn_event_t;

static tn_event_t *slabs[MAX_SLABS];
static _Atomic uint32_t nslabs; /* slabs[0..nslabs) are allocated */
static uint32_t free_head;      /* global free list (index + 1), under lock */
static pthread_mutex_t slab_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;

static _Thread_local uint32_t cache[CACHE_MAX];
static _Thread_local int ncache;

static inline tn_event_t *slot(uint32_t idx)
{
    return &slabs[idx / SLAB_EVENTS][idx % SLAB_EVENTS];
}

static inline tern_event_t handle(uint32_t idx, uint32_t gen)
{
    return (tern_event_t)(uintptr_t)(((uint64_t)gen << 32) | (idx + 1u));
}

/* Move n slots of this thread's cache to the global list (lock held). */
static void spill_locked(int n)
{
    while (n-- > 0 && ncache > 0) {
        uint32_t idx = cache[--ncache];
        slot(idx)->next = free_head;
        free_head = idx + 1;
    }
}

/* A thread that ends gives its cached slots back. */
static void cache_exit(void *unused)
{
    pthread_mutex_lock(&slab_lock);
    spill_locked(ncache);
    pthread_mutex_unlock(&slab_lock);
}

static void cache_key_make(void)
{
    pthread_key_create(&cache_key, cache_exit);
}

size_t tn_event_bytes(void)
{
    return (size_t)atomic_load_explicit(&nslabs, memory_order_acquire) * SLAB_EVENTS *
           sizeof(tn_event_t);
}

/* Refill this thread's cache from the global list, or from a new slab. */
static __attribute__((noinline, cold)) int refill(void)
{
    pthread_once(&cache_once, cache_key_make);
    pthread_setspecific(cache_key, cache); /* any non-NULL value: run cache_exit */
    pthread_mutex_lock(&slab_lock);
    if (!free_head) {
        uint32_t s = atomic_load_explicit(&nslabs, memory_order_relaxed);
        tn_event_t *slab = s < MAX_SLABS ? calloc(SLAB_EVENTS, sizeof(*slab)) : NULL;
        if (!slab) {
            pthread_mutex_unlock(&slab_lock);
            return 0;
        }
        slabs[s] = slab;
        for (uint32_t i = SLAB_EVENTS; i-- > 0;) {
            slab[i].next = free_head;
            free_head = s * SLAB_EVENTS + i + 1;
        }
        atomic_store_explicit(&nslabs, s + 1, memory_order_release);
    }
    while (free_head && ncache < CACHE_MAX / 2) {
        uint32_t idx = free_head - 1;
        free_head = slot(idx)->next;
        cache[ncache++] = idx;
    }
    pthread_mutex_unlock(&slab_lock);
    return ncache;
}

tn_comp_t *tn_event_new(tern_event_t *out)
{
    if (__builtin_expect(ncache == 0, 0) && !refill())
        return NULL;
    uint32_t idx = cache[--ncache];
    tn_event_t *e = slot(idx);
    tn_comp_init(&e->comp, 1);
    e->live = 1;
    TN_STAT_ADD(events, 1);
    *out = handle(idx, e->gen);
    return &e->comp;
}

static void release(uint32_t idx, tn_event_t *e)
{
    e->gen++;
    e->live = 0;
    if (__builtin_expect(ncache == CACHE_MAX, 0)) {
        pthread_mutex_lock(&slab_lock);
        spill_locked(CACHE_MAX / 2);
        pthread_mutex_unlock(&slab_lock);
    }
    cache[ncache++] = idx;
}

/* The live event ev names, or NULL after logging why it is not one. */
static tn_event_t *lookup(tern_event_t ev, const char *call, uint32_t *idx_out)
{
    uint64_t h = (uint64_t)(uintptr_t)ev;
    uint32_t idx = (uint32_t)h - 1u, gen = (uint32_t)(h >> 32);
    uint32_t n = atomic_load_explicit(&nslabs, memory_order_acquire);
    if ((uint32_t)h == 0 || idx / SLAB_EVENTS >= n) {
        tn_core_fail(TERN_ERR_INVALID, call, "%p is not an event", (void *)ev);
        return NULL;
    }
    tn_event_t *e = slot(idx);
    if (!e->live || e->gen != gen) {
        tn_core_fail(TERN_ERR_INVALID, call,
                     "event %p was already completed and released (a second wait "
                     "or test after it returned a final status?)",
                     (void *)ev);
        return NULL;
    }
    *idx_out = idx;
    return e;
}

void tn_event_drop(tern_event_t ev)
{
    uint64_t h = (uint64_t)(uintptr_t)ev;
    uint32_t idx = (uint32_t)h - 1u;
    release(idx, slot(idx));
}

void tn_event_fini(void)
{
    pthread_mutex_lock(&slab_lock);
    uint32_t n = atomic_load_explicit(&nslabs, memory_order_relaxed);
    for (uint32_t s = 0; s < n; s++) {
        free(slabs[s]);
        slabs[s] = NULL;
    }
    atomic_store_explicit(&nslabs, 0, memory_order_release);
    free_head = 0;
    ncache = 0; /* other threads' caches are void too: no re-init */
    pthread_mutex_unlock(&slab_lock);
}

/* ---- waiting --------------------------------------------------------------- */

int tn_comp_wait(tn_comp_t *c)
{
    tn_ad_agg_kick(1); /* c may count combined atomics still queued */
    tn_pagg_kick(1);   /* or combined puts */
    if (!tn_comp_busy(c))
        return tn_comp_status(c);
    uint64_t t0 = tn_stats_on ? tn_time_ns() : 0;
    /* A completion that has not come at once is a network operation's
     * (or a reply's): each step polls the network (TN_WAIT_NET). */
    tn_wait_t w = TN_WAIT_NET;
    /* tn_wait_next drives the transports' progress (its hook); polling
     * here as well would double the network polls per check. */
    while (tn_comp_busy(c)) {
        /* A non-blocking barrier's event is ended by advancing it, which
         * the hook does not do when there is none. */
        if (atomic_load_explicit(&tn_coll_nb, memory_order_relaxed))
            tn_coll_progress();
        tn_wait_next(&w);
    }
    if (__builtin_expect(tn_stats_on, 0)) {
        tn_stats_t *s = tn_stats_mine();
        s->waits++;
        s->wait_ns += tn_time_ns() - t0;
    }
    return tn_comp_status(c);
}

/* A failed operation's status as the caller gets it: logged with the
 * call's name (the transport logged the cause), or the job ends. */
static int op_failed(const char *call, int status)
{
    return tn_core_fail(status, call,
                        "the operation failed after it started (cause logged above)");
}

static int event_finish(tn_event_t *e, uint32_t idx, const char *call)
{
    int st = tn_comp_status(&e->comp);
    release(idx, e);
    return st == TERN_OK ? TERN_OK : op_failed(call, st);
}

tern_status_t tern_event_test_slow_(tern_event_t ev)
{
    TN_CHECK_INIT("tern_event_test");
    uint32_t idx;
    tn_event_t *e = lookup(ev, "tern_event_test", &idx);
    if (!e)
        return TERN_ERR_INVALID;
    if (tn_comp_busy(&e->comp)) {
        tn_core_progress();
        if (tn_comp_busy(&e->comp))
            return TERN_INPROGRESS;
    }
    return event_finish(e, idx, "tern_event_test");
}

tern_status_t tern_event_wait_slow_(tern_event_t ev)
{
    TN_CHECK_INIT("tern_event_wait");
    TN_NOT_IN_HANDLER("tern_event_wait");
    uint32_t idx;
    tn_event_t *e = lookup(ev, "tern_event_wait", &idx);
    if (!e)
        return TERN_ERR_INVALID;
    tn_comp_wait(&e->comp);
    return event_finish(e, idx, "tern_event_wait");
}

tern_status_t tern_event_wait_all(tern_event_t *evs, size_t n)
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

/* ---- contexts ---------------------------------------------------------------- */

#define TN_CTX_LIVE 0x74637821u
#define TN_CTX_DEAD 0x64656164u
#define TN_CTX_MAX  1024 /* created contexts alive at once */

/* Initial-exec: the default context is found with one load from the
 * thread pointer, not a __tls_get_addr call (64 bytes of static TLS). */
static TN_TLS_FAST _Thread_local struct tern_ctx_s default_ctx = {.magic = TN_CTX_LIVE};
/* Created contexts live in one table, so a handle is checked by its
 * address alone; a destroyed one is marked dead and reused. */
static struct tern_ctx_s ctx_pool[TN_CTX_MAX];
static int ctx_used; /* ctx_pool[0..ctx_used) were handed out once */
_Atomic(int) tn_ctx_early_n;
/* The progress thread's default context (TERN_PROGRESS_THREAD=1), where
 * the nbi operations and early-returned ones of the handlers it runs are
 * counted. No application code runs on that thread to sync it, so every
 * sync of a default context (quiet, fence, nbi sync and test, a barrier's
 * early completion, finalize) covers it too, and takes its errors. NULL
 * without a progress thread, and while it sleeps with nothing outstanding
 * (the application's quiets then keep their fast path). */
static _Atomic(struct tern_ctx_s *) progress_ctx;

/* The context ctx stands for, or NULL. Cost: a thread-pointer load for
 * the default context; a subtraction, a compare, a mask and the magic's
 * load for a created one. */
static TN_ALWAYS_INLINE struct tern_ctx_s *ctx_find(tern_ctx_t ctx)
{
    if (ctx == TERN_CTX_DEFAULT)
        return &default_ctx;
    uintptr_t off = (uintptr_t)ctx - (uintptr_t)ctx_pool;
    if (tn_unlikely(off >= sizeof(ctx_pool) || off % sizeof(*ctx) ||
                    ctx->magic != TN_CTX_LIVE))
        return NULL;
    return ctx;
}

static TN_NOINLINE struct tern_ctx_s *ctx_bad(tern_ctx_t ctx, const char *call)
{
    uintptr_t off = (uintptr_t)ctx - (uintptr_t)ctx_pool;
    int known = off < sizeof(ctx_pool) && off % sizeof(*ctx) == 0;
    tn_core_fail(TERN_ERR_INVALID, call, "context %p %s", (void *)ctx,
                 known ? "was destroyed" : "is not a context");
    return NULL;
}

static inline struct tern_ctx_s *ctx_get(tern_ctx_t ctx, const char *call)
{
    struct tern_ctx_s *c = ctx_find(ctx);
    return tn_likely(c != NULL) ? c : ctx_bad(ctx, call);
}

struct tern_ctx_s *tn_ctx_get(tern_ctx_t ctx, const char *call)
{
    return ctx_get(ctx, call);
}

tern_status_t tern_ctx_create(tern_flags_t options, tern_ctx_t *out)
{
    TN_CHECK_INIT("tern_ctx_create");
    if (!out)
        return tn_core_fail(TERN_ERR_INVALID, "tern_ctx_create", "out is NULL");
    if (options > TERN_ORDER_NONE)
        return tn_core_fail(TERN_ERR_INVALID, "tern_ctx_create",
                            "options 0x%x: not 0 (TERN_ORDER's mode) or one of "
                            "TERN_ORDER_STRICT (%d), TERN_ORDER_PARTIAL (%d), "
                            "TERN_ORDER_NONE (%d)",
                            options, TERN_ORDER_STRICT, TERN_ORDER_PARTIAL,
                            TERN_ORDER_NONE);
    tn_core_lock();
    struct tern_ctx_s *c = NULL;
    for (int i = 0; i < ctx_used && !c; i++)
        if (ctx_pool[i].magic == TN_CTX_DEAD)
            c = &ctx_pool[i];
    if (!c && ctx_used < TN_CTX_MAX) {
        c = &ctx_pool[ctx_used];
        /* Read without the lock by barriers (tn_ctx_complete_early). */
        __atomic_store_n(&ctx_used, ctx_used + 1, __ATOMIC_RELEASE);
    }
    if (c) {
        tn_comp_init(&c->lc, 0);
        tn_comp_init(&c->rc, 0);
        atomic_store_explicit(&c->early, 0, memory_order_relaxed);
        c->order = options ? (int)options : TERN_ORDER_STRICT + tn_cfg.order;
        c->magic = TN_CTX_LIVE;
    }
    tn_core_unlock();
    if (!c)
        return tn_core_fail(TERN_ERR_NOMEM, "tern_ctx_create",
                            "%d contexts exist already, the most there can be: destroy "
                            "one first",
                            TN_CTX_MAX);
    *out = c;
    return TERN_OK;
}

tern_status_t tern_ctx_order(tern_ctx_t ctx, int *mode)
{
    TN_CHECK_INIT("tern_ctx_order");
    if (!mode)
        return tn_core_fail(TERN_ERR_INVALID, "tern_ctx_order", "mode is NULL");
    struct tern_ctx_s *c = tn_ctx_get(ctx, "tern_ctx_order");
    if (!c)
        return TERN_ERR_INVALID;
    *mode = tn_ctx_mode(c);
    return TERN_OK;
}

static int nbi_check_level(const char *call, unsigned level)
{
    if (level == 0 || (level & ~(TERN_SYNC_LOCAL | TERN_SYNC_REMOTE)))
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "level 0x%x is not TERN_SYNC_LOCAL or TERN_SYNC_REMOTE",
                            level);
    return TERN_OK;
}

/* 1 when c has nothing outstanding at level, no error to return and (for
 * remote) no early-returned operation to unmark: a sync would neither wait
 * nor poll nor change anything, so quiet and nbi sync return at once. The
 * release fence orders the caller's earlier stores to mapped peers (done
 * in their calls) before its later ones, as quiet promises: free on x86.
 * Cost: five loads (two for a local level), their ors and one branch. */
static inline int ctx_idle(struct tern_ctx_s *c, unsigned level)
{
    uint64_t dirty = tn_comp_dirty(&c->lc);
    if (level & TERN_SYNC_REMOTE)
        dirty |= tn_comp_dirty(&c->rc) |
                 (unsigned)atomic_load_explicit(&c->early, memory_order_relaxed);
    if (dirty)
        return 0;
    __atomic_thread_fence(__ATOMIC_RELEASE);
    return 1;
}

void tn_ctx_progress_thread(int start)
{
    struct tern_ctx_s *c = &default_ctx;
    if (start) {
        if (atomic_load_explicit(&progress_ctx, memory_order_relaxed) != c)
            atomic_store_explicit(&progress_ctx, c, memory_order_release);
        return;
    }
    /* Idle and without an error to return: ops issued before this look
     * completed, and the next ones are issued after the next start. */
    if (ctx_idle(c, TERN_SYNC_LOCAL | TERN_SYNC_REMOTE)) /* errors count too */
        atomic_store_explicit(&progress_ctx, NULL, memory_order_release);
}

void tn_ctx_progress_thread_exit(void)
{
    atomic_store_explicit(&progress_ctx, NULL, memory_order_release);
}

/* The progress thread's context when ctx is a default context of another
 * thread (the one its syncs also cover), else NULL. */
static struct tern_ctx_s *ctx_also(tern_ctx_t ctx)
{
    struct tern_ctx_s *p = atomic_load_explicit(&progress_ctx, memory_order_acquire);
    return p && ctx == TERN_CTX_DEFAULT && p != &default_ctx ? p : NULL;
}

/* 1 when a sync of ctx covers no context but ctx itself: no progress
 * thread, or a created context. The fast paths below take the slow path
 * otherwise (ctx_sync syncs the progress thread's context too). Cost for
 * the default context: a load and a branch, the slow call staying a tail
 * call. */
static TN_ALWAYS_INLINE int ctx_alone(tern_ctx_t ctx)
{
    return ctx != TERN_CTX_DEFAULT ||
           tn_likely(!atomic_load_explicit(&progress_ctx, memory_order_relaxed));
}

static int ctx_sync_one(struct tern_ctx_s *c, unsigned level, const char *call);

/* Waits for c's operations at level and returns their first error since
 * the last sync (once); for this thread's default context, those of the
 * progress thread's too. Remote completion implies local: both errors are
 * taken then. */
static TN_NOINLINE int ctx_sync(struct tern_ctx_s *c, unsigned level, const char *call)
{
    int st = ctx_sync_one(c, level, call);
    struct tern_ctx_s *p = c == &default_ctx ? ctx_also(TERN_CTX_DEFAULT) : NULL;
    if (p) {
        int pst = ctx_sync_one(p, level, call);
        st = st != TERN_OK ? st : pst;
    }
    return st;
}

static int ctx_sync_one(struct tern_ctx_s *c, unsigned level, const char *call)
{
    int remote = level & TERN_SYNC_REMOTE;
    /* Cleared before the wait: an operation that returns early meanwhile
     * marks c again, so no barrier misses it. */
    if (remote && atomic_load_explicit(&c->early, memory_order_relaxed) &&
        atomic_exchange_explicit(&c->early, 0, memory_order_relaxed))
        atomic_fetch_sub_explicit(&tn_ctx_early_n, 1, memory_order_relaxed);
    if (remote)
        tn_pagg_sync_lone(&c->rc);
    tn_comp_wait(&c->lc);
    if (remote)
        tn_comp_wait(&c->rc);
    int st = tn_comp_take_status(&c->lc);
    if (remote) {
        int rst = tn_comp_take_status(&c->rc);
        st = st != TERN_OK ? st : rst;
    }
    return st == TERN_OK ? TERN_OK : op_failed(call, st);
}

/* The context of a quiet, fence or nbi sync that may take its fast path
 * (initialized, not inside a handler, a valid context), else NULL: the
 * slow path then checks again and says what was wrong. */
static TN_ALWAYS_INLINE struct tern_ctx_s *sync_ctx(tern_ctx_t ctx)
{
    if (tn_unlikely(!tn_core.initialized || tn_am_in_handler))
        return NULL;
    return ctx_find(ctx);
}

static TN_NOINLINE int nbi_sync_slow(tern_ctx_t ctx, unsigned level, const char *call)
{
    TN_CHECK_INIT(call);
    TN_NOT_IN_HANDLER(call);
    int rc = nbi_check_level(call, level);
    struct tern_ctx_s *c = rc == TERN_OK ? ctx_get(ctx, call) : NULL;
    return c ? ctx_sync(c, level, call) : rc ? rc : TERN_ERR_INVALID;
}

/* Cost with nothing outstanding: about twenty instructions, no call. */
static TN_ALWAYS_INLINE int nbi_sync(tern_ctx_t ctx, unsigned level, const char *call)
{
    struct tern_ctx_s *c = sync_ctx(ctx);
    if (tn_likely(c && level && !(level & ~(TERN_SYNC_LOCAL | TERN_SYNC_REMOTE)) &&
                  ctx_idle(c, level) && ctx_alone(ctx)))
        return TERN_OK;
    return nbi_sync_slow(ctx, level, call);
}

static int nbi_test(tern_ctx_t ctx, unsigned level, const char *call)
{
    TN_CHECK_INIT(call);
    int rc = nbi_check_level(call, level);
    struct tern_ctx_s *c = rc == TERN_OK ? ctx_get(ctx, call) : NULL;
    if (!c)
        return rc ? rc : TERN_ERR_INVALID;
    tn_ad_agg_kick(1);
    tn_pagg_kick(1);
    tn_core_progress();
    struct tern_ctx_s *p = ctx_also(ctx);
    for (int k = 0; k < 2; k++) {
        struct tern_ctx_s *x = k ? p : c;
        if (x && (tn_comp_busy(&x->lc) ||
                  ((level & TERN_SYNC_REMOTE) && tn_comp_busy(&x->rc))))
            return TERN_INPROGRESS;
    }
    return ctx_sync(c, level, call);
}

static TN_NOINLINE int quiet_slow(tern_ctx_t ctx, const char *call)
{
    TN_CHECK_INIT(call);
    TN_NOT_IN_HANDLER(call);
    struct tern_ctx_s *c = ctx_get(ctx, call);
    return c ? ctx_sync(c, TERN_SYNC_REMOTE, call) : TERN_ERR_INVALID;
}

/* Cost with nothing outstanding: about twenty instructions, no call. */
static TN_ALWAYS_INLINE int quiet(tern_ctx_t ctx, const char *call)
{
    struct tern_ctx_s *c = sync_ctx(ctx);
    if (tn_likely(c && ctx_idle(c, TERN_SYNC_REMOTE) && ctx_alone(ctx)))
        return TERN_OK;
    return quiet_slow(ctx, call);
}

static TN_NOINLINE int fence_slow(tern_ctx_t ctx, const char *call)
{
    TN_CHECK_INIT(call);
    TN_NOT_IN_HANDLER(call);
    struct tern_ctx_s *c = ctx_get(ctx, call);
    return c ? ctx_sync(c, TERN_SYNC_REMOTE, call) : TERN_ERR_INVALID;
}

/* Mapped peers' puts are visible when issued, so only network puts in
 * flight can pass each other: completing them orders them. Nothing in
 * flight: a release fence (free on x86), about fifteen instructions. */
static TN_ALWAYS_INLINE int fence(tern_ctx_t ctx, const char *call)
{
    struct tern_ctx_s *c = sync_ctx(ctx);
    if (tn_likely(c && !tn_comp_busy(&c->rc) && ctx_alone(ctx))) {
        __atomic_thread_fence(__ATOMIC_RELEASE);
        return TERN_OK;
    }
    return fence_slow(ctx, call);
}

tern_status_t tern_ctx_destroy(tern_ctx_t ctx)
{
    TN_CHECK_INIT("tern_ctx_destroy");
    TN_NOT_IN_HANDLER("tern_ctx_destroy"); /* it completes the operations */
    if (ctx == TERN_CTX_DEFAULT)
        return tn_core_fail(TERN_ERR_INVALID, "tern_ctx_destroy",
                            "TERN_CTX_DEFAULT cannot be destroyed");
    struct tern_ctx_s *c = tn_ctx_get(ctx, "tern_ctx_destroy");
    if (!c)
        return TERN_ERR_INVALID;
    int st = ctx_sync(c, TERN_SYNC_REMOTE, "tern_ctx_destroy");
    tn_core_lock();
    c->magic = TN_CTX_DEAD;
    tn_core_unlock();
    return st;
}

int tn_ctx_complete_early(const char *call)
{
    int first = TERN_OK;
    tn_ad_agg_kick(1); /* a barrier sends what waits to be combined */
    tn_pagg_kick(1);
    struct tern_ctx_s *p = ctx_also(TERN_CTX_DEFAULT);
    if (atomic_load_explicit(&default_ctx.early, memory_order_relaxed) ||
        (p && atomic_load_explicit(&p->early, memory_order_relaxed)))
        first = ctx_sync(&default_ctx, TERN_SYNC_REMOTE, call);
    if (!atomic_load_explicit(&tn_ctx_early_n, memory_order_relaxed))
        return first;
    /* Other threads' default contexts are theirs to complete (their own
     * quiet); created contexts are shared, so the barrier completes them. */
    int used = __atomic_load_n(&ctx_used, __ATOMIC_ACQUIRE);
    for (int i = 0; i < used; i++) {
        struct tern_ctx_s *c = &ctx_pool[i];
        if (c->magic == TN_CTX_LIVE &&
            atomic_load_explicit(&c->early, memory_order_relaxed)) {
            int st = ctx_sync(c, TERN_SYNC_REMOTE, call);
            first = first != TERN_OK ? first : st;
        }
    }
    return first;
}

int tn_ctx_fini(void)
{
    int first = ctx_sync(&default_ctx, TERN_SYNC_REMOTE, "tern_finalize");
    for (int i = 0; i < ctx_used; i++) {
        struct tern_ctx_s *c = &ctx_pool[i];
        if (c->magic == TN_CTX_LIVE) {
            int st = ctx_sync(c, TERN_SYNC_REMOTE, "tern_finalize");
            first = first != TERN_OK ? first : st;
        }
        c->magic = TN_CTX_DEAD;
    }
    return first;
}

tern_status_t tern_ctx_nbi_sync(tern_ctx_t ctx, unsigned level)
{
    return nbi_sync(ctx, level, "tern_ctx_nbi_sync");
}
tern_status_t tern_ctx_nbi_test(tern_ctx_t ctx, unsigned level)
{
    return nbi_test(ctx, level, "tern_ctx_nbi_test");
}
tern_status_t tern_ctx_quiet(tern_ctx_t ctx)
{
    return quiet(ctx, "tern_ctx_quiet");
}
tern_status_t tern_ctx_fence(tern_ctx_t ctx)
{
    return fence(ctx, "tern_ctx_fence");
}
tern_status_t tern_nbi_sync(unsigned level)
{
    return nbi_sync(TERN_CTX_DEFAULT, level, "tern_nbi_sync");
}
tern_status_t tern_nbi_test(unsigned level)
{
    return nbi_test(TERN_CTX_DEFAULT, level, "tern_nbi_test");
}
tern_status_t tern_quiet(void)
{
    return quiet(TERN_CTX_DEFAULT, "tern_quiet");
}
tern_status_t tern_fence(void)
{
    return fence(TERN_CTX_DEFAULT, "tern_fence");
}
