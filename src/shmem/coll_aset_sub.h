/* The deprecated active-set collectives on a set that is not every PE
 * (coll_aset_sub.c): synchronization on the caller's pSync, data moved
 * with puts. Called by coll_aset.c once it knows the set is a subset. */
#ifndef TSHMEM_COLL_ASET_SUB_H
#define TSHMEM_COLL_ASET_SUB_H

#include "tshmem.h"

/* An active set: world PEs start + i * stride for 0 <= i < size; this PE
 * is set PE idx. */
typedef struct {
    int start, stride, size, idx;
    long *pSync;
} tshmem_aset_t;

/* Checks the set (within the PEs, this PE a member) and pSync (symmetric,
 * aligned) and fills *a; a bad one ends the job with a message naming
 * call. Returns 0. */
int tshmem_aset_make(tshmem_aset_t *a, const char *call, int PE_start, int logPE_stride,
                     int PE_size, long *pSync);
/* Returns once every PE of the set has called (no quiet). */
void tshmem_aset_sync(const tshmem_aset_t *a);
/* bytes from the set PE root's source into every other member's dest (the
 * root's dest untouched). */
void tshmem_aset_broadcast(const tshmem_aset_t *a, void *dest, const void *source,
                           size_t bytes, int root);
/* Concatenation of every member's bytes in set order into every dest;
 * fixed: every member gives the same count. */
void tshmem_aset_collect(const tshmem_aset_t *a, void *dest, const void *source,
                         size_t bytes, int fixed);
/* Block i of bytes of source goes to block idx of member i's dest. */
void tshmem_aset_alltoall(const tshmem_aset_t *a, void *dest, const void *source,
                          size_t bytes);
/* Strided form, elements of bits 32 or 64 (shmem_alltoalls32/64). */
void tshmem_aset_alltoalls(const tshmem_aset_t *a, void *dest, const void *source,
                           ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int bits);
/* acc[i] = acc[i] OP mine[i] for i < n. */
typedef void (*tshmem_aset_combine_fn)(void *acc, const void *mine, size_t n);
/* dest = the combination of every member's nelems elements of es bytes
 * (dest may be source). */
void tshmem_aset_reduce(const tshmem_aset_t *a, const char *call, void *dest,
                        const void *source, size_t nelems, size_t es,
                        tshmem_aset_combine_fn combine);

#endif
