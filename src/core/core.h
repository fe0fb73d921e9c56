/* State of the native API in this process, shared by the core/ files. */
#ifndef TN_CORE_H
#define TN_CORE_H

#include <pthread.h>
#include <stdatomic.h>

#include <tern.h>

#include "base/comp.h"
#include "boot/boot.h"
#include "mem/heap.h"
#include "mem/segment.h"
#include "xport/shm/shm.h"
#include "xport/xport.h"

enum { TN_PEER_SELF = 0, TN_PEER_SHM = 1, TN_PEER_NET = 2 };

typedef struct tn_peer {
    int kind;          /* TN_PEER_* */
    int node;          /* node number */
    int local_index;   /* index among its node's ranks */
    tn_xport_t *xport; /* transport serving it */
    tn_seg_info_t seg; /* its segment as it published it */
    /* Topology-aware copies (core/topo_peers.c, core/copy.c): */
    int dist;            /* TN_DIST_* of a rank on this node; -1 otherwise */
    size_t nt_put;       /* puts to it of this many bytes or more, and gets */
    size_t nt_get;       /* from it, use non-temporal stores (SIZE_MAX: never) */
    uint64_t nt_islands; /* bit b: also for sizes in [2^b, 2^(b+1)) */
} tn_peer_t;

typedef struct tn_core {
    int initialized;
    int rank, size;
    int thread_level;
    int error_abort; /* TERN_ERROR_MODE=abort */
    tn_boot_t *boot;
    tn_peer_t *peers;       /* [size] */
    tern_peer_fast_t *fast; /* [size], published through tern_fast_ */
    int node, nnodes;
    int local_rank, local_size; /* among the ranks sharing memory */
    int host_ranks;             /* ranks on this host (shm or not) */
    int *local_ranks;           /* [local_size] global ranks of this node */
    tn_seg_t seg;
    tn_shm_t *shm;
    tn_xport_t *net;       /* network transport (ofi), or NULL */
    int *node_leaders;     /* [nnodes] lowest rank of each node */
    uint32_t net_epoch;    /* barriers across nodes completed */
    uint32_t net_vals[32]; /* sources of the barrier's flag writes */
    tn_comp_t net_comp;    /* the barrier's flag writes in flight */
    char net_summary[256]; /* provider and domain, for reports */
    tn_xport_t *xports[4]; /* every transport in use, polled by progress */
    int nxports;
    tn_heap_t heap;       /* tern_alloc/tern_alloc_sym space */
    pthread_mutex_t lock; /* barrier, allocation, boot calls */
    tern_startup_report_t report;
} tn_core_t;

extern tn_core_t tn_core;

/* Logs msg as an error of the named call and returns status, or ends the
 * job when TERN_ERROR_MODE=abort. */
int tn_core_fail(int status, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold, noinline));

/* TERN_ERR_NOT_INIT (with a message naming the call) unless initialized. */
#define TN_CHECK_INIT(call)                                                \
    do {                                                                   \
        if (__builtin_expect(!tn_core.initialized, 0))                     \
            return tn_core_fail(TERN_ERR_NOT_INIT, call, "called %s",      \
                                tn_core.rank == -2 ? "after tern_finalize" \
                                                   : "before tern_init");  \
    } while (0)

/* Exchanges the ranks' CPU sets, sets each local peer's distance class
 * and copy thresholds (peers[].dist, nt_put, nt_get, fast[].copy_min).
 * Collective; once, after crossmap (core/topo_peers.c). */
int tn_topo_peers_init(void);

/* Progress on every transport; returns completions handled. */
int tn_core_progress(void);
/* Poll until this rank's own barrier writes have all completed; returns
 * the first error among them. */
int tn_core_drain(void);

/* Node map: fills node, nnodes, local_* and peers[].node/local_index from
 * every rank's node key. */
int tn_core_build_node_map(void);

/* Lock for calls that are not lock-free: a no-op below THREAD_MULTIPLE. */
static inline void tn_core_lock(void)
{
    if (tn_core.thread_level == TERN_THREAD_MULTIPLE)
        pthread_mutex_lock(&tn_core.lock);
}
static inline void tn_core_unlock(void)
{
    if (tn_core.thread_level == TERN_THREAD_MULTIPLE)
        pthread_mutex_unlock(&tn_core.lock);
}

#endif
