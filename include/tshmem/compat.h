/* OpenSHMEM 1.6 profiling control and sessions (included by shmem.h; do
 * not include it directly). The name-shifted pshmem_ routines of the
 * profiling interface are declared in pshmem.h. */
#ifndef TSHMEM_COMPAT_H
#define TSHMEM_COMPAT_H

#ifndef SHMEM_H
#error "include <shmem.h>, not <tshmem/compat.h>"
#endif

/* ---- profiling interface ------------------------------------------------------ */

/* Sets the profiling level (<= 0 off, 1 on, 2 on and flush, > 2 tool
 * defined, with tool-defined further arguments). The library itself
 * returns at once: the call exists for a profiling tool to interpose
 * (every shmem_ routine is weak and has its pshmem_ twin, pshmem.h). */
TSHMEM_API void shmem_pcontrol(int level, ...);

/* ---- sessions (OpenSHMEM 1.6) -------------------------------------------------- */

/* Options of shmem_ctx_session_start. */
#define SHMEM_CTX_SESSION_BATCH (1L << 0)
/* Configuration mask bits of shmem_ctx_session_start. */
#define SHMEM_CTX_SESSION_TOTAL_OPS (1L << 0)

typedef struct {
    size_t total_ops; /* expected RMA calls in the session; SIZE_MAX: not said */
} shmem_ctx_session_config_t;

/* Starts (or, if started, adds options to) a session on ctx; nothing for
 * SHMEM_CTX_INVALID. Sessions are hints: Tern applies no batching, so
 * operations inside a session behave exactly as outside (docs/shmem.md).
 * The arguments are checked: a destroyed context, or config NULL while
 * config_mask asks for a field, end the job with a message; unknown
 * option or mask bits are noted under SHMEM_DEBUG. */
TSHMEM_API void shmem_ctx_session_start(shmem_ctx_t ctx, long options,
                                        const shmem_ctx_session_config_t *config,
                                        long config_mask);
/* Ends the session on ctx; no effect if none is started. */
TSHMEM_API void shmem_ctx_session_stop(shmem_ctx_t ctx);

#endif
