/* Communication contexts (shmem_ctx_create/destroy), memory ordering
 * (fence, quiet, pe_quiet), barrier_all and sync_all, and the wait step of
 * the point-to-point routines.
 *
 * Every OpenSHMEM context is a Tern context: Tern counts its nbi
 * operations and completes them at its quiet. The default context uses
 * TERN_CTX_DEFAULT (per-thread tracking, no shared counters) when the
 * program is single-threaded or funneled; with SERIALIZED or MULTIPLE
 * threads it is a created Tern context, because the specification's quiet
 * on the default context completes the operations of every thread of the
 * PE, not only the caller's. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "tshmem.h"

#define TSHMEM_CTX_MAX 1024 /* created contexts alive at once (Tern's limit) */

TSHMEM_API struct tshmem_ctx_s tshmem_ctx_default_ = {.magic = TSHMEM_CTX_DEAD};

/* Created contexts live in one table, so that a handle is checked by its
 * address and a destroyed one is recognized until its slot is reused. */
static struct tshmem_ctx_s ctx_pool[TSHMEM_CTX_MAX];
static int ctx_used; /* ctx_pool[0..ctx_used) were handed out once */
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;

static int in_pool(shmem_ctx_t ctx)
{
    uintptr_t off = (uintptr_t)ctx - (uintptr_t)ctx_pool;
    return off < sizeof(ctx_pool) && off % sizeof(ctx_pool[0]) == 0;
}

void tshmem_ctx_fail(const char *call, shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        tshmem_fatal("%s: the context is SHMEM_CTX_INVALID: pass a context made by "
                     "shmem_ctx_create or SHMEM_CTX_DEFAULT",
                     call);
    if (ctx == SHMEM_CTX_DEFAULT)
        tshmem_fatal("%s: called %s", call,
                     tshmem_g.ever_finalized ? "after the last shmem_finalize"
                                             : "before shmem_init");
    if (in_pool(ctx))
        tshmem_fatal("%s: context %p was destroyed by shmem_ctx_destroy and may not be "
                     "used any more",
                     call, (void *)ctx);
    tshmem_fatal("%s: %p is not a context (neither SHMEM_CTX_DEFAULT nor made by "
                 "shmem_ctx_create)",
                 call, (void *)ctx);
}

void tshmem_ctx_debug_check(const char *call, shmem_ctx_t ctx)
{
    if (ctx != SHMEM_CTX_DEFAULT && !in_pool(ctx))
        tshmem_ctx_fail(call, ctx);
}

int tshmem_ctx_init(void)
{
    tern_ctx_t t = TERN_CTX_DEFAULT;
    /* libtshmem's contract (blocking puts complete remotely, AMOs in
     * program order: docs/shmem.md) is the strict mode; TERN_ORDER sets
     * only the native default context's mode, so another one needs a
     * strict context of its own. */
    int order = TERN_ORDER_STRICT;
    (void)tern_ctx_order(TERN_CTX_DEFAULT, &order);
    if (tshmem_g.thread_level >= SHMEM_THREAD_SERIALIZED || order != TERN_ORDER_STRICT) {
        int rc = tern_ctx_create(TERN_ORDER_STRICT, &t);
        if (rc != TERN_OK) {
            tshmem_error("cannot create the default context: %s", tern_strerror(rc));
            return -1;
        }
    }
    tern_ctx_t amo;
    int rc = tern_ctx_create(TERN_ORDER_PARTIAL, &amo);
    if (rc != TERN_OK) {
        tshmem_error("cannot create the default context's AMO context: %s",
                     tern_strerror(rc));
        if (t != TERN_CTX_DEFAULT)
            tern_ctx_destroy(t);
        return -1;
    }
    tshmem_ctx_default_.tctx = t;
    tshmem_ctx_default_.amo = amo;
    tshmem_ctx_default_.amo_pending = 0;
    tshmem_ctx_default_.options = 0;
    tshmem_ctx_default_.magic = TSHMEM_CTX_LIVE;
    return 0;
}

/* The last finalize destroys every context (shareable ones by the
 * specification; private ones the program should have destroyed). */
void tshmem_ctx_fini(void)
{
    pthread_mutex_lock(&ctx_lock);
    for (int i = 0; i < ctx_used; i++) {
        if (ctx_pool[i].magic == TSHMEM_CTX_LIVE) {
            tern_ctx_destroy(ctx_pool[i].amo);
            tern_ctx_destroy(ctx_pool[i].tctx);
        }
        ctx_pool[i].magic = TSHMEM_CTX_DEAD;
    }
    pthread_mutex_unlock(&ctx_lock);
    if (tshmem_ctx_default_.magic == TSHMEM_CTX_LIVE)
        tern_ctx_destroy(tshmem_ctx_default_.amo);
    if (tshmem_ctx_default_.tctx != TERN_CTX_DEFAULT)
        tern_ctx_destroy(tshmem_ctx_default_.tctx);
    tshmem_ctx_default_.magic = TSHMEM_CTX_DEAD;
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    static const long known =
        SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE;
    if (!ctx) {
        tshmem_error("shmem_ctx_create: ctx is NULL: pass the address of a shmem_ctx_t");
        return 1;
    }
    *ctx = SHMEM_CTX_INVALID;
    if (tshmem_g.init_count == 0) {
        tshmem_error("shmem_ctx_create: called %s", tshmem_g.ever_finalized
                                                        ? "after the last shmem_finalize"
                                                        : "before shmem_init");
        return 1;
    }
    if (options & ~known) {
        tshmem_error("shmem_ctx_create: options 0x%lx: bits 0x%lx are not "
                     "SHMEM_CTX_SERIALIZED, SHMEM_CTX_PRIVATE or SHMEM_CTX_NOSTORE",
                     (unsigned long)options, (unsigned long)(options & ~known));
        return 1;
    }
    pthread_mutex_lock(&ctx_lock);
    struct tshmem_ctx_s *c = NULL;
    for (int i = 0; i < ctx_used && !c; i++)
        if (ctx_pool[i].magic != TSHMEM_CTX_LIVE)
            c = &ctx_pool[i];
    if (!c && ctx_used < TSHMEM_CTX_MAX)
        c = &ctx_pool[ctx_used++];
    int rc = c ? tern_ctx_create(TERN_ORDER_STRICT, &c->tctx) : TERN_ERR_NOMEM;
    if (rc == TERN_OK) {
        rc = tern_ctx_create(TERN_ORDER_PARTIAL, &c->amo);
        if (rc != TERN_OK)
            tern_ctx_destroy(c->tctx);
    }
    if (rc == TERN_OK) {
        c->amo_pending = 0;
        c->options = options;
        c->magic = TSHMEM_CTX_LIVE;
    }
    pthread_mutex_unlock(&ctx_lock);
    if (rc != TERN_OK) {
        /* Not an error by the specification: the program may retry. */
        tshmem_debug_note("shmem_ctx_create: no context: %s (at most %d exist at once)",
                          tern_strerror(rc), TSHMEM_CTX_MAX);
        return 1;
    }
    *ctx = c;
    return 0;
}

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    if (ctx == SHMEM_CTX_DEFAULT) {
        tshmem_error("shmem_ctx_destroy: SHMEM_CTX_DEFAULT cannot be destroyed; ignored");
        return;
    }
    tern_ctx_t t = tshmem_tctx(ctx, "shmem_ctx_destroy");
    int rc = tern_ctx_destroy(ctx->amo); /* each quiets itself first */
    int rc2 = tern_ctx_destroy(t);
    rc = rc != TERN_OK ? rc : rc2;
    atomic_thread_fence(memory_order_seq_cst);
    pthread_mutex_lock(&ctx_lock);
    ctx->magic = TSHMEM_CTX_DEAD;
    pthread_mutex_unlock(&ctx_lock);
    if (rc != TERN_OK)
        tshmem_fatal("shmem_ctx_destroy: an operation on the context failed: %s (the "
                     "cause is logged above)",
                     tern_strerror(rc));
}

/* ---- memory ordering ------------------------------------------------------------ */

/* Quiet also orders the PE's own stores (through shmem_ptr, or into its
 * heap) unless the context is NOSTORE. */
/* Completes the AMOs of ctx that may be outstanding (amo_pending); a
 * status. */
static int amo_quiet(shmem_ctx_t ctx)
{
    if (!__atomic_load_n(&ctx->amo_pending, __ATOMIC_RELAXED))
        return TERN_OK;
    __atomic_store_n(&ctx->amo_pending, 0, __ATOMIC_RELAXED);
    return tern_ctx_quiet(ctx->amo);
}

/* Completes the live context ctx's AMOs and RMA; ends the job naming call
 * on a failure. */
static inline void quiet_ops(shmem_ctx_t ctx, tern_ctx_t t, const char *call)
{
    int rc = amo_quiet(ctx);
    int rc2 = tern_ctx_quiet(t);
    rc = rc != TERN_OK ? rc : rc2;
    if (TSHMEM_UNLIKELY(rc != TERN_OK))
        tshmem_fatal("%s: an operation on this context failed: %s (the cause is logged "
                     "above)",
                     call, tern_strerror(rc));
}

void tshmem_ctx_quiet_(shmem_ctx_t ctx, const char *call)
{
    tern_ctx_t t = tshmem_tctx(ctx, call);
    quiet_ops(ctx, t, call);
    if (!(ctx->options & SHMEM_CTX_NOSTORE))
        atomic_thread_fence(memory_order_seq_cst);
}

void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    if (ctx != SHMEM_CTX_INVALID)
        tshmem_ctx_quiet_(ctx, "shmem_ctx_quiet");
}

void shmem_quiet(void)
{
    tshmem_ctx_quiet_(SHMEM_CTX_DEFAULT, "shmem_quiet");
}

/* Tern completes a context as a whole; a quiet of some PEs is a quiet of
 * the context (allowed by the specification's notes). */
static void pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes,
                     const char *call)
{
    if (npes == 0 || ctx == SHMEM_CTX_INVALID)
        return;
    if (TSHMEM_UNLIKELY(tshmem_g.debug)) {
        for (size_t i = 0; i < npes; i++)
            if ((unsigned)target_pes[i] >= tshmem_g.npes)
                tshmem_bad_pe(call, target_pes[i]);
    }
    tshmem_ctx_quiet_(ctx, call);
}

void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    pe_quiet(ctx, target_pes, npes, "shmem_ctx_pe_quiet");
}

void shmem_pe_quiet(const int *target_pes, size_t npes)
{
    pe_quiet(SHMEM_CTX_DEFAULT, target_pes, npes, "shmem_pe_quiet");
}

/* Fence: Tern orders the context's puts (free to mapped PEs, a completion
 * of network puts in flight) and the AMOs in flight are completed; the
 * release fence orders the PE's own stores
 * too unless the context is NOSTORE. */
static void fence(shmem_ctx_t ctx, const char *call)
{
    tern_ctx_t t = tshmem_tctx(ctx, call);
    /* AMOs that returned early are completed: they are on a context of
     * their own, which a fence of the puts' context would not order. */
    int rc = amo_quiet(ctx);
    int rc2 = tern_ctx_fence(t);
    rc = rc != TERN_OK ? rc : rc2;
    if (!(ctx->options & SHMEM_CTX_NOSTORE))
        atomic_thread_fence(memory_order_release);
    if (TSHMEM_UNLIKELY(rc != TERN_OK))
        tshmem_fatal("%s: an operation on this context failed: %s (the cause is logged "
                     "above)",
                     call, tern_strerror(rc));
}

void shmem_ctx_fence(shmem_ctx_t ctx)
{
    if (ctx != SHMEM_CTX_INVALID)
        fence(ctx, "shmem_ctx_fence");
}

void shmem_fence(void)
{
    fence(SHMEM_CTX_DEFAULT, "shmem_fence");
}

/* ---- barrier_all, sync_all ------------------------------------------------------- */

static void world_sync(const char *call)
{
    int rc = tern_barrier();
    if (TSHMEM_UNLIKELY(rc != TERN_OK))
        tshmem_fatal("%s: %s (the cause is logged above)", call, tern_strerror(rc));
}

/* A quiet of the default context, then a sync of all PEs. The quiet's
 * store fence is left out: Tern's barrier orders this PE's stores before
 * its exit on every other PE itself (a seq_cst store of each flag to a
 * mapped PE; a network write issued after the stores to another node), so
 * it cost an mfence and nothing else (shm barrier_all 0.151 against
 * tern_barrier's 0.129 us, docs/design/shmem-collectives.md). */
void shmem_barrier_all(void)
{
    shmem_ctx_t c = SHMEM_CTX_DEFAULT;
    quiet_ops(c, tshmem_tctx(c, "shmem_barrier_all"), "shmem_barrier_all");
    world_sync("shmem_barrier_all");
}

/* Tern's barrier also makes this PE's earlier stores visible to all. */
void shmem_sync_all(void)
{
    if (TSHMEM_UNLIKELY(tshmem_g.init_count == 0))
        tshmem_ctx_fail("shmem_sync_all", SHMEM_CTX_DEFAULT);
    world_sync("shmem_sync_all");
}

/* ---- waiting ------------------------------------------------------------------ */

#define TSHMEM_SPIN 2000 /* checks before yielding, as TERN_SPIN_COUNT's default */

void tshmem_wait_step(uint64_t iter)
{
    if (iter < TSHMEM_SPIN) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ __volatile__("yield");
#endif
        if ((iter & 63) == 63)
            tern_poll();
        return;
    }
    tern_poll();
    sched_yield();
}
