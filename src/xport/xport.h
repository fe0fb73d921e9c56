/* Transport interface: one ops table per transport (self, shm, later ofi).
 * core/ picks a transport per peer at start-up; for peers whose segment is
 * mapped here (self, shm) the RMA fast path never reaches these ops - they
 * serve the out-of-line path and transports without a mapping. A transport
 * never calls core/. */
#ifndef TN_XPORT_H
#define TN_XPORT_H

#include <stddef.h>
#include <stdint.h>

typedef struct tn_xport tn_xport_t;

/* Completion tracking handed to a transport by core: the transport
 * decrements the counters when the operation completes locally/remotely.
 * NULL when the caller waits in the call (blocking). */
typedef struct tn_xport_done {
    _Atomic(int64_t) *lc; /* local completion counter, or NULL */
    _Atomic(int64_t) *rc; /* remote completion counter, or NULL */
} tn_xport_done_t;

typedef struct tn_xport_ops {
    size_t size; /* sizeof(tn_xport_ops_t), so the table can grow */
    const char *name;
    /* dst/src remote addresses are in the peer's own address space and
     * already bounds-checked by core. Return TERN_OK (complete, or counted
     * in done), TERN_ERR_AGAIN (only with TERN_FLAG_IMMEDIATE) or an error. */
    int (*put)(tn_xport_t *x, int rank, void *dst, const void *src, size_t n,
               const tn_xport_done_t *done, unsigned flags);
    int (*get)(tn_xport_t *x, void *dst, int rank, const void *src, size_t n,
               const tn_xport_done_t *done, unsigned flags);
    /* Progress; returns the number of completions handled (>= 0). */
    int (*poll)(tn_xport_t *x);
    void (*destroy)(tn_xport_t *x);
} tn_xport_ops_t;

struct tn_xport {
    const tn_xport_ops_t *ops;
};

#endif
