/* OpenSHMEM 1.6 sessions: shmem_ctx_session_start/stop. The only option,
 * SHMEM_CTX_SESSION_BATCH, lets an implementation delay and combine small
 * RMA and AMO calls on the context. Tern has no such mechanism to switch
 * on (its nbi operations are already issued without waiting, and it does
 * not coalesce operations), so a session is the hint the specification
 * allows an implementation to ignore: the calls check their arguments and
 * change nothing else; operations inside a session complete and are
 * ordered exactly as outside. */
#include "tshmem.h"

static const long known_options = SHMEM_CTX_SESSION_BATCH;
static const long known_mask = SHMEM_CTX_SESSION_TOTAL_OPS;

void shmem_ctx_session_start(shmem_ctx_t ctx, long options,
                             const shmem_ctx_session_config_t *config, long config_mask)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    if (tshmem_g.init_count == 0)
        tshmem_fatal("shmem_ctx_session_start: called %s",
                     tshmem_g.ever_finalized ? "after the last shmem_finalize"
                                             : "before shmem_init");
    (void)tshmem_tctx(ctx, "shmem_ctx_session_start"); /* a live context */
    if ((config_mask & known_mask) && !config)
        tshmem_fatal("shmem_ctx_session_start: config is NULL but config_mask 0x%lx "
                     "asks for its fields: pass a shmem_ctx_session_config_t or mask 0",
                     config_mask);
    if (options & ~known_options)
        tshmem_debug_note("shmem_ctx_session_start: options 0x%lx: bits 0x%lx are not "
                          "SHMEM_CTX_SESSION_* options; ignored",
                          options, options & ~known_options);
    if (config_mask & ~known_mask)
        tshmem_debug_note(
            "shmem_ctx_session_start: config_mask 0x%lx: bits 0x%lx are not "
            "SHMEM_CTX_SESSION_* fields; ignored",
            config_mask, config_mask & ~known_mask);
}

void shmem_ctx_session_stop(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    if (tshmem_g.init_count == 0)
        tshmem_fatal("shmem_ctx_session_stop: called %s",
                     tshmem_g.ever_finalized ? "after the last shmem_finalize"
                                             : "before shmem_init");
    (void)tshmem_tctx(ctx, "shmem_ctx_session_stop");
}
