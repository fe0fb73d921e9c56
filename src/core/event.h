/* Completion in the native API: events (explicit), contexts (implicit,
 * nbi) and the waits on them. Every one is a tn_comp_t (base/comp.h) that
 * transports end parts of, with their status. Copies to mapped peers
 * complete in the call and never get here. */
#ifndef TN_EVENT_H
#define TN_EVENT_H

#include "base/comp.h"
#include "core/core.h"

/* A context: the completion objects of its nbi operations. The default
 * context is one per thread (thread-local). */
struct tern_ctx_s {
    uint32_t magic; /* TN_CTX_LIVE while created, TN_CTX_DEAD after */
    tn_comp_t lc, rc;
};

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
