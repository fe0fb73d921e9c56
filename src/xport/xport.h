/* Transport interface: one ops table per transport. core/ picks a
 * transport per peer at start-up; for peers whose segment is mapped here
 * (self, shm) the RMA fast path in tern.h never reaches these ops - they
 * serve the out-of-line path and peers without a mapping. A transport
 * never calls core/: it reports completions into the tn_comp_t objects
 * core hands it. */
#ifndef TN_XPORT_H
#define TN_XPORT_H

#include <stddef.h>
#include <stdint.h>

#include "base/comp.h"

typedef struct tn_xport tn_xport_t;

/* Completion objects of one operation, created by core. Before calling an
 * op, core counts one part in each non-NULL object; see tn_xport_ops_t.rma
 * for who ends it. lc ends when the local buffer may be reused, rc when
 * the data is visible at the target (puts) or has landed here (gets). */
typedef struct tn_xport_done {
    tn_comp_t *lc; /* local completion, or NULL */
    tn_comp_t *rc; /* remote completion, or NULL */
} tn_xport_done_t;

enum { TN_RMA_PUT = 0, TN_RMA_GET = 1 };

/* Flag bit above the public TERN_FLAG_* ones: core's own traffic (barrier
 * flags), which TERN_TEST_FAULT never fails so that a test job can end. */
#define TN_XPORT_FLAG_CTRL 0x80000000u

/* One contiguous transfer between local memory and rank's segment. */
typedef struct tn_rma {
    int kind;     /* TN_RMA_PUT: local -> remote; TN_RMA_GET: remote -> local */
    int rank;     /* the peer (global rank) */
    void *local;  /* any memory of this process */
    void *remote; /* in the peer's segment, in the peer's own address space,
                     already bounds-checked by core */
    size_t n;
} tn_rma_t;

typedef struct tn_xport_ops {
    size_t size; /* sizeof(tn_xport_ops_t), so the table can grow */
    const char *name;
    /* Start op. TERN_OK: the transport owns the part core counted in each
     * of done's objects and ends it exactly once with tn_comp_done (with
     * the error, if the transfer fails later); it may add parts (one per
     * fragment). An error return (TERN_ERR_AGAIN only with
     * TERN_FLAG_IMMEDIATE): nothing was issued and the counted parts are
     * untouched, the caller takes them back. Once any fragment is issued
     * the op returns TERN_OK and reports later failures through done. */
    int (*rma)(tn_xport_t *x, const tn_rma_t *op, const tn_xport_done_t *done,
               unsigned flags);
    /* Progress; returns the number of completions handled (>= 0). */
    int (*poll)(tn_xport_t *x);
    void (*destroy)(tn_xport_t *x);
} tn_xport_ops_t;

struct tn_xport {
    const tn_xport_ops_t *ops;
};

#endif
