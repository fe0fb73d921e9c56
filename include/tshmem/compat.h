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

#endif
