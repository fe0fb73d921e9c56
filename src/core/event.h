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
    uint32_t magic; /* TN_CTX_LIVE while created, TN_CTX_DEAD after */
    int order;      /* TERN_ORDER_*, or 0: TERN_ORDER's (the default context) */
    tn_comp_t lc, rc;
};

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

/* Wait until c has no part outstanding (driving progress, yielding per
 * TERN_WAIT_MODE); returns its status. */
int tn_comp_wait(tn_comp_t *c);

#endif
