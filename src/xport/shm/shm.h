/* Shared-memory transport: the segments of every rank on this node are
 * mapped into this process, so put/get are copies and a barrier is a
 * dissemination over flags in each rank's control area. */
#ifndef TN_SHM_H
#define TN_SHM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mem/ctrl.h"
#include "xport/xport.h"

/* What a rank publishes about its segment (exchanged by allgather). */
typedef struct tn_seg_info {
    uint64_t data_base; /* user segment address in the owner's space */
    uint64_t size;      /* user segment bytes */
    uint64_t map_size;  /* control area + data */
    uint64_t ctrl_size;
    int32_t pid;
    int32_t fd;
} tn_seg_info_t;
_Static_assert(sizeof(tn_seg_info_t) == 40,
               "tn_seg_info_t is exchanged between processes");

typedef struct tn_shm {
    tn_xport_t base;
    int nlocal;       /* ranks on this node */
    int me;           /* my index among them */
    const int *ranks; /* global rank of each local index */
    void **maps;      /* per local index: mapping of its segment */
    size_t *map_sizes;
    tn_ctrl_t **ctrl; /* per local index: its control area */
    uint64_t *bases;  /* per local index: its data_base (its own address) */
    uint64_t *ctrl_sizes;
    uint32_t epoch; /* barriers completed by this rank */
    int wait_mode;  /* TERN_WAIT_MODE index */
    int oversubscribed;
    long spin_count;
} tn_shm_t;

/* Map the segments of the other local ranks (infos indexed by local index;
 * my_map is this rank's own mapping). Returns TERN_OK or an error. */
int tn_shm_create(int nlocal, int me, const int *ranks, const tn_seg_info_t *infos,
                  void *my_map, int wait_mode, int oversubscribed, long spin_count,
                  tn_shm_t **out);
void tn_shm_destroy(tn_shm_t *shm);

/* Node barrier over the local ranks (dissemination, ceil(log2 n) rounds).
 * Acquire/release: stores before it are visible to every local rank after. */
void tn_shm_barrier(tn_shm_t *shm);

#endif
