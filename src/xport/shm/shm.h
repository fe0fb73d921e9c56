/* Shared-memory transport: the segments of every rank on this node are
 * mapped into this process, so a transfer is a copy; it owns the copy
 * policy of every mapped copy, self's included (shm_copy.h). */
#ifndef TN_SHM_H
#define TN_SHM_H

#include <stddef.h>
#include <stdint.h>

#include "xport/registry.h"

typedef struct tn_shm {
    tn_xport_t base;
    int nlocal;       /* ranks on this node */
    int me;           /* my index among them */
    const int *ranks; /* global rank of each local index, ascending */
    void **maps;      /* per local index: mapping of its segment here */
    size_t *map_sizes;
    uint64_t *ctrl_bases; /* per local index: its mapping's start in its
                             own address space (data_base - ctrl_size) */
    int copy_setup;       /* tn_shm_copy_setup done: teardown at destroy */
} tn_shm_t;

#endif
