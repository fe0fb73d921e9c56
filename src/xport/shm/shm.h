/* Shared-memory transport: the segments of every rank on this node are
 * mapped into this process, so a transfer is a copy; it owns the copy
 * policy of every mapped copy, self's included (shm_copy.h). */
#ifndef TN_SHM_H
#define TN_SHM_H

#include <stddef.h>
#include <stdint.h>

#include "xport/msgq.h"
#include "xport/registry.h"

typedef struct tn_shm {
    tn_xport_t base;
    int nlocal;       /* ranks on this node */
    int me;           /* my index among them */
    const int *ranks; /* global rank of each local index, ascending */
    void **maps;      /* per local index: mapping of its segment here */
    size_t *map_sizes;
    uint64_t *ctrl_bases;   /* per local index: its mapping's start in its
                             own address space (data_base - ctrl_size) */
    void **static_maps;     /* per local index: its static region mapped here
                             (NULL: none, or this rank's own) */
    uint64_t *static_bases; /* per local index: its static region's start in
                               its own address space (0: none) */
    size_t static_size;     /* of every static region (the same on all ranks) */
    int copy_setup;         /* tn_shm_copy_setup done: teardown at destroy */
    /* messages (shm_msg.c) */
    size_t ring_off;     /* queues in every local rank's control area */
    size_t ring_bytes;   /* of one queue's data ring */
    size_t msg_max;      /* largest message */
    int threads;         /* job->threads: queue turns are taken */
    tn_msgq_t *out, *in; /* [nlocal] this process's side of the queue to /
                            from each local rank */
    _Atomic(tn_xport_recv_fn) recv_fn;
    void *recv_arg;
} tn_shm_t;

/* Local index of global rank, or -1. */
int tn_shm_local_index(const tn_shm_t *s, int rank);

/* Messages (shm_msg.c): ops, and setup from the job (ctrl_off); the size
 * of one queue and the largest message it takes (also for tern-info). */
size_t tn_shm_queue_bytes(void);
size_t tn_shm_queue_msg_max(size_t ring);
size_t tn_shm_queue_slots(size_t ring);
/* Private bytes per local rank for its two queues (to it and from it). */
size_t tn_shm_queue_private_bytes(void);
int tn_shm_msg_setup(tn_shm_t *s, const tn_xport_job_t *job);
void tn_shm_msg_teardown(tn_shm_t *s);
int tn_shm_set_recv(tn_xport_t *x, tn_xport_recv_fn fn, void *arg);
int tn_shm_msg_prepare(tn_xport_t *x, int rank, size_t n, unsigned flags,
                       tn_xport_msg_t *m);
int tn_shm_msg_commit(tn_xport_t *x, tn_xport_msg_t *m, size_t n);
int tn_shm_msg_send(tn_xport_t *x, int rank, const void *head, size_t hn,
                    const void *payload, size_t len, unsigned flags);
int tn_shm_poll(tn_xport_t *x);
tn_msgq_t *tn_shm_msg_queue(tn_xport_t *x, int rank);
int tn_shm_msg_inqueues(tn_xport_t *x, tn_msgq_t **in);

#endif
