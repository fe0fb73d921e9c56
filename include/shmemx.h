/* Tern's extensions to OpenSHMEM (libtshmem), with the shmemx_ prefix the
 * specification asks extensions to use. C99 and C++ includable. */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* *finalized is nonzero once the last shmem_finalize of the program has
 * returned (the library was initialized and is not any more), zero
 * before the first initialization and while initialized. Like
 * shmem_query_initialized, callable at any time (OpenSHMEM 1.6 has no
 * such query; MPI has MPI_Finalized). */
TSHMEM_API void shmemx_query_finalized(int *finalized);

#ifdef __cplusplus
}
#endif
#endif
