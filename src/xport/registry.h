/* The registry of the transports built into this Tern: how core finds
 * them, creates them and learns which peers each can reach. core/ never
 * names a transport; it walks this table (core/xports.c). */
#ifndef TN_XPORT_REGISTRY_H
#define TN_XPORT_REGISTRY_H

#include <stddef.h>
#include <stdio.h>

#include "boot/boot.h"
#include "xport/xport.h"

/* Peer classes, as seen from this rank. */
enum {
    TN_REACH_SELF = 0x1u, /* this rank itself */
    TN_REACH_NODE = 0x2u, /* another rank sharing memory with it */
    TN_REACH_NET = 0x4u   /* a rank on another node */
};

/* Create a transport only where some rank of the job has a peer in its
 * reach (the same answer on every rank), or on every rank whatever the
 * job (shm: it owns the copy policy of every mapped copy, self's too). */
enum { TN_CREATE_WHEN_REACHED = 0, TN_CREATE_ALWAYS = 1 };

/* What a transport learns about the job when it is created. */
typedef struct tn_xport_job {
    tn_boot_t *boot; /* for exchanges during create */
    int rank, size;  /* this rank, ranks in the job */
    const int *node; /* [size] node of each rank (memory shared) */
    int nnodes;
    const int *local_ranks; /* [local_size] global ranks of this node */
    int local_size, local_rank;
    int span_first, span;      /* ranks [span_first, span_first + span): from this
                             node's lowest rank to its highest (tables of the
                             node's peers are indexed by rank - span_first) */
    const tn_seg_info_t *segs; /* [size] every rank's segment */
    void *map;                 /* this rank's mapping: control area + data */
    size_t map_size;
    size_t ctrl_off; /* where this transport's claim (ctrl_bytes) starts in
                        every node-local rank's control area */
    int threads;     /* several threads of this process may call the
                        transport at once (TERN_THREAD_MULTIPLE or the
                        progress thread): 0 lets it skip its own locks */
} tn_xport_job_t;

typedef struct tn_xport_entry {
    const char *name;
    const char *serves; /* which peers it serves and how (tern-info) */
    unsigned reach;     /* TN_REACH_* it can serve */
    int when;           /* TN_CREATE_* */
    /* Collective over the ranks that create it (every rank of the job, by
     * the rule above): TERN_OK with *out, or an error after logging the
     * cause and what to change. */
    int (*create)(const tn_xport_job_t *job, tn_xport_t **out);
    /* For tern-info: what it would open here with the current TERN_*
     * values, without opening anything; NULL when there is nothing to say. */
    int (*describe)(FILE *out);
    /* Start what needs no job yet (loading a library) as soon as core knows
     * the transport will be created, to overlap segment creation; create
     * waits for it. NULL: nothing to start. */
    void (*prepare)(void);
    /* Bytes of every rank's control area the transport needs when the
     * largest node has node_ranks ranks (claimed by core before the
     * segment exists, the offset given in job->ctrl_off). NULL: none. */
    size_t (*ctrl_bytes)(int node_ranks);
    /* The largest ordered unacknowledged write (TN_XPORT_FLAG_UNACKED with
     * TN_XCAP_ORDER_PUT, at least 4 bytes of caps.inject) the transport
     * will offer once created here, 0 for none: caps.unacked as create
     * will report it. Called before create (before the job-wide exchange
     * of segment descriptions, which carries it: core/xports.c), on every
     * rank that will create the transport; an error that create would
     * meet gives 0 (create then reports it). NULL: none. */
    size_t (*unacked_plan)(void);
    /* What the transport will use that every rank creating it must share
     * and no TN_CFG_JOB variable covers (the provider it chose, a user's
     * settings of the provider's own variables), as "NAME=value ..." into
     * buf, the values as in force. Called after unacked_plan, before the
     * job-wide exchange, which compares it (core/xports.c agree_job).
     * NULL: nothing. */
    void (*job_settings)(char *buf, size_t len);
} tn_xport_entry_t;

/* Calls prepare of every entry that serves a peer class in reach. */
void tn_xport_prepare(unsigned reach);

/* The built-in transports in order of preference, and their number. */
size_t tn_xport_count(void);
const tn_xport_entry_t *tn_xport_entry(size_t i);
/* The entry called name, or NULL. */
const tn_xport_entry_t *tn_xport_find(const char *name);

/* Entry points of the transports (each in its own directory). */
int tn_self_create(const tn_xport_job_t *job, tn_xport_t **out);
int tn_shm_create(const tn_xport_job_t *job, tn_xport_t **out);
size_t tn_shm_ctrl_bytes(int node_ranks);
int tn_ofi_create(const tn_xport_job_t *job, tn_xport_t **out);
int tn_ofi_describe(FILE *out);
void tn_ofi_prefetch(void);
size_t tn_ofi_unacked_plan(void);
void tn_ofi_job_settings(char *buf, size_t len);

#endif
