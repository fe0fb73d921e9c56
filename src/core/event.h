/* Completion in the native API: events (explicit), contexts (implicit,
 * nbi) and the waits on them. Every one is a tn_comp_t (base/comp.h) that
 * transports end parts of, with their status. Copies to mapped peers
 * complete in the call and never get here. */
#ifndef TN_EVENT_H
#define TN_EVENT_H

#include "base/cfg.h"
#include "base/comp.h"
#include "core/core.h"

/* A context: the completion objects of its nbi operations. The default
 * context is one per thread (thread-local). */
struct tern_ctx_s {
    /* 64 bytes, 64-aligned: contexts of different threads share no cache
     * line, and a handle's place in the pool is checked with a mask. */
    _Alignas(64) uint32_t magic; /* TN_CTX_LIVE while created, TN_CTX_DEAD after */
    int order; /* TERN_ORDER_*, or 0: TERN_ORDER's (the default context) */
    tn_comp_t lc, rc;
    /* 1 once a blocking operation returned early into rc, until a remote
     * sync (quiet, fence, barrier) completes rc: what barriers look for.
     * Set by any thread issuing on c (tn_ctx_mark_early), cleared by the
     * one that syncs. */
    _Atomic(int) early;
};
_Static_assert(sizeof(struct tern_ctx_s) == 64, "a context is one cache line");

/* Contexts whose early flag is set (a barrier with 0 here and in its own
 * default context has nothing to complete). */
extern _Atomic(int) tn_ctx_early_n;

/* c's ordering mode (TERN_ORDER_*). */
static inline int tn_ctx_mode(const struct tern_ctx_s *c)
{
    return c->order ? c->order : TERN_ORDER_STRICT + tn_cfg.order;
}

/* 1 when a blocking operation of kind (TN_XCAP_ORDER_PUT or _AMO) through
 * x on context c may return before it is complete at its target: always
 * with TERN_ORDER_NONE; with TERN_ORDER_PARTIAL where x keeps the order of
 * that kind to one peer (docs/design/ordering.md). Its remote part is then
 * counted in c, for fence and quiet. */
static inline int tn_ctx_early(const struct tern_ctx_s *c, const tn_core_xport_t *x,
                               unsigned kind)
{
    int m = tn_ctx_mode(c);
    return m == TERN_ORDER_NONE || (m == TERN_ORDER_PARTIAL && (x->caps.flags & kind));
}

/* A blocking operation on c returned early (its remote part counted in
 * c->rc): a barrier must complete c. Cost: one load when already marked,
 * else two atomics (network operations only, microseconds each). */
static inline void tn_ctx_mark_early(struct tern_ctx_s *c)
{
    if (!atomic_load_explicit(&c->early, memory_order_relaxed) &&
        !atomic_exchange_explicit(&c->early, 1, memory_order_relaxed))
        atomic_fetch_add_explicit(&tn_ctx_early_n, 1, memory_order_relaxed);
}

/* Completes (as tern_ctx_quiet does) every context holding blocking
 * operations that returned early: the calling thread's default context
 * and every created one; called by the barriers before they start.
 * Returns the first error of those operations (logged for call), once. */
int tn_ctx_complete_early(const char *call);

/* A new event with one part outstanding: its completion object, with the
 * handle in *out; NULL when no memory is left. */
tn_comp_t *tn_event_new(tern_event_t *out);
/* Release an event that was never handed to the caller (error paths). */
void tn_event_drop(tern_event_t ev);
/* Private bytes of the event slabs allocated so far (memory accounting). */
size_t tn_event_bytes(void);
/* Free every event (tern_finalize). */
void tn_event_fini(void);

/* The context ctx stands for (the calling thread's own for
 * TERN_CTX_DEFAULT), or NULL after logging TERN_ERR_INVALID for call. */
struct tern_ctx_s *tn_ctx_get(tern_ctx_t ctx, const char *call);
/* Quiet every created context and the caller's default one, and mark the
 * contexts dead (tern_finalize). Returns the first error. */
int tn_ctx_fini(void);
/* The progress thread says it starts (1) or ends (0) polling: its default
 * context, where the operations of the handlers it runs are counted, is
 * covered by every other thread's syncs of its default context while it
 * polls, so that a sleeping thread adds nothing to their quiets. Ending
 * leaves it covered while it still has operations outstanding or an error
 * to return (a later end, once idle, drops it); at exit (tn_ctx_progress_thread_exit)
 * it is dropped in any case. */
void tn_ctx_progress_thread(int start);
void tn_ctx_progress_thread_exit(void);

/* Wait until c has no part outstanding (driving progress, yielding per
 * TERN_WAIT_MODE); returns its status. */
int tn_comp_wait(tn_comp_t *c);

#endif
