/* Transport interface: what core/ may ask of a transport (self, shm, ofi)
 * and nothing else. Each transport has a registry entry (registry.h: how
 * to create it, which peers it can reach) and, once created, one ops table
 * that starts with its size so that it can grow; operations a transport
 * lacks point to the tn_xport_no_* stubs, which answer
 * TERN_ERR_UNSUPPORTED. Core queries capabilities once at start-up and
 * keeps them per transport. For peers whose segment is mapped here (self,
 * shm) the RMA fast path in tern.h never reaches these ops: they serve the
 * out-of-line path, core's own traffic and peers without a mapping. A
 * transport never calls core/: it reports completions into the tn_comp_t
 * objects core hands it, and incoming messages to the function core
 * registered (set_recv). */
#ifndef TN_XPORT_H
#define TN_XPORT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <tern/topo.h>

#include "base/amo.h"
#include "base/comp.h"
#include "base/mem.h"

typedef struct tn_xport tn_xport_t;
typedef struct tn_msgq tn_msgq_t; /* xport/msgq.h */

/* What a rank publishes about its segment (exchanged by allgather at
 * start-up; transports get every rank's). */
typedef struct tn_seg_info {
    uint64_t data_base; /* user segment address in the owner's space */
    uint64_t size;      /* user segment bytes */
    uint64_t map_size;  /* control area + data */
    uint64_t ctrl_size; /* the control area precedes the data */
    int32_t pid;
    int32_t fd;
    /* The program's global and static variables (mem/static.h), the same
     * size on every rank; static_size 0: not remotely accessible. */
    uint64_t static_base; /* in the owner's space */
    uint64_t static_size;
    int32_t static_fd; /* memfd backing it for node-local peers, or -1 */
    int32_t ptab_fd;   /* the node-shared peer table's memfd (its node's
                          leader only, core/peertab.c), or -1 */
    /* The largest ordered unacknowledged write its network transport will
     * take (tn_xport_entry_t.unacked_plan; 0: none, or no network
     * transport): the members of a team agree on the collectives' record
     * size from every rank's (core/xports.c). */
    uint32_t unacked;
    /* Its TN_CFG_JOB settings' fingerprint (tn_cfg_job_fingerprint)
     * continued over its network transport's job_settings (registry.h),
     * low 32 bits: every rank's must be rank 0's (core/xports.c). */
    uint32_t cfg_job;
} tn_seg_info_t;
_Static_assert(sizeof(tn_seg_info_t) == 72,
               "tn_seg_info_t is exchanged between processes");

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
/* With TERN_FLAG_IMMEDIATE: refuse without polling first (a message sent
 * from inside a message handler must not run other handlers). */
#define TN_XPORT_FLAG_NOPOLL 0x40000000u
/* A put of at most caps.unacked bytes, done's objects both NULL, to a
 * transport with TN_XCAP_PUT_UNACKED: issued without a completion at
 * either end and without the target's acknowledgement (the source is
 * copied in the call; the data lands some time later, and the caller
 * learns of a failure only from the job ending). For flag writes whose
 * reader polls memory (core/coll_sync.c) and the atomic mailbox
 * (core/atomic_mbox.c): over tcp the acknowledgement and the completion
 * each cost the receiving process system calls. With TERN_FLAG_IMMEDIATE
 * it answers TERN_ERR_AGAIN instead of waiting for room. Writes larger
 * than 8 bytes land with no promised order among their bytes. */
#define TN_XPORT_FLAG_UNACKED 0x20000000u
/* A put whose delivery the caller learns from an ordered write of its own
 * behind it (TN_XCAP_ORDER_PUT: a flag its reader polls in memory), to a
 * transport with TN_XCAP_PUT_NOREMOTE; done->lc is required and done->rc
 * must be NULL (else TERN_ERR_INVALID, nothing issued). Nothing tracks
 * its remote completion: the target sends no acknowledgement, and lc ends
 * once the transport no longer needs the source (the caller may reuse
 * it), with the error of a write that failed as far as this side learns
 * of it. For the large exchanges of the collectives: over tcp each
 * acknowledgement costs the target a system call and the source a read
 * (docs/design/collectives.md, "Network writes with no remote
 * completion"). */
#define TN_XPORT_FLAG_NOREMOTE 0x08000000u
/* A put that carries its own arrival signal, to a transport with
 * TN_XCAP_PUT_SIGNAL: once all op->n bytes are in place at the target,
 * the target's transport raises the 32-bit word at op->signal (in op->rank's
 * segment mapping, its own address space, 4-byte aligned, within the first
 * TN_XPORT_SIGNAL_SPAN bytes of the mapping) to op->sigval: it stores
 * sigval unless the word already holds sigval or a later value (in
 * wraparound order: (int32_t)(word - sigval) >= 0), and after the data, so
 * that a reader that loads the word with acquire order and finds sigval
 * or later sees every byte. One network message where a put and an
 * ordered flag write are two (ofi: a write with remote CQ data, which the
 * target's poll turns into the store). The word is raised in the target's
 * progress: its reader polls. done and the other flags as for any put
 * (TN_XPORT_FLAG_NOREMOTE included). One fragment only: 0 < n <=
 * caps.rma_frag, op->region TN_REGION_SEG; not from a handler
 * (TN_XPORT_FLAG_HANDLER). Anything else, or a transport without the
 * capability: TERN_ERR_INVALID (TERN_ERR_UNSUPPORTED for the capability)
 * with a message, nothing issued. A word outside the target's mapping
 * (control area and segment, as its owner published it) is refused the
 * same way by every transport; ofi also refuses one that its remote CQ
 * data cannot name (TN_XPORT_SIGNAL_SPAN). A word that reaches a target
 * beyond its mapping all the same ends the target's process with a
 * message (ofi's poll): a signal dropped would leave its waiter waiting
 * for ever. For the collectives' eager broadcast over the network
 * (core/coll_eager.c). */
#define TN_XPORT_FLAG_SIGNAL 0x04000000u
/* The signal word's offset from the start of the target's mapping (its
 * control area) is below this: the offset travels as 32 bits of 4-byte
 * words. */
#define TN_XPORT_SIGNAL_SPAN ((uint64_t)1 << 34)
/* RMA started from inside an active-message handler, which must not wait:
 * a transport that cannot issue it at once (no descriptor, its provider's
 * queue full) queues it and issues it from a later poll, reporting into
 * done's objects as usual; its polls made meanwhile run no handler. */
#define TN_XPORT_FLAG_HANDLER 0x10000000u

/* The region of a rank that a remote address is in: its segment mapping
 * (segment or control area), or its static region (the program's global
 * and static variables, tn_seg_info_t.static_*). */
enum { TN_REGION_SEG = 0, TN_REGION_STATIC = 1 };

/* One contiguous transfer between local memory and rank's segment (or
 * its control area, or its static region). */
typedef struct tn_rma {
    int kind;     /* TN_RMA_PUT: local -> remote; TN_RMA_GET: remote -> local */
    int rank;     /* the peer (global rank) */
    void *local;  /* any memory of this process */
    void *remote; /* in the peer's mapping, in the peer's own address space,
                     already bounds-checked by core */
    size_t n;
    int region; /* TN_REGION_* of remote (set by tn_core_rma_start) */
    /* TN_XPORT_FLAG_SIGNAL only: the word to raise at rank (its own
     * address) and the value. */
    void *signal;
    uint32_t sigval;
} tn_rma_t;

/* One remote atomic on a naturally aligned word of rank's segment. */
typedef struct tn_amo {
    int rank;     /* the peer (global rank); may be this rank */
    int type;     /* TN_ATYPE_* */
    int op;       /* TN_AOP_* */
    void *remote; /* in the peer's segment, its own address space, checked
                       by core (bounds, alignment) */
    tn_aval_t a1; /* operand (CSWAP: the value compared) */
    tn_aval_t a2; /* CSWAP: the new value */
    void *result; /* fetching ops: the old value lands here (4 or 8 bytes)
                       before rc ends; NULL for the others */
    int region;   /* TN_REGION_* of remote */
} tn_amo_t;

/* ---- capabilities ------------------------------------------------------ */

/* Types and operations of remote atomics (TN_ATYPE_*, TN_AOP_*: an op
 * set is a mask of 1u << TN_AOP_*) are in base/amo.h. */

/* Capability flags. */
#define TN_XCAP_RMA 0x1u /* rma moves data */
#define TN_XCAP_MSG 0x2u /* msg_send and set_recv deliver messages */
#define TN_XCAP_MAPPED \
    0x4u                  /* peers' mappings are reachable with loads and
                               stores here (peer_map answers) */
#define TN_XCAP_POLL 0x8u /* operations progress only when poll is called */
#define TN_XCAP_ORDER_PUT \
    0x10u /* puts to one peer are applied there in the order
             issued (every fragment), without waiting between them */
#define TN_XCAP_ORDER_AMO \
    0x20u /* likewise non-fetching atomics to one peer, among
             themselves */
#define TN_XCAP_AMO_SOFT \
    0x40u /* the amo op is applied by the target's software when it
             progresses (a provider that emulates atomics with
             messages), not by its NIC */
#define TN_XCAP_PUT_UNACKED 0x80u /* rma takes TN_XPORT_FLAG_UNACKED */
#define TN_XCAP_ORDER_MSG \
    0x100u /* messages sent to one peer by one thread reach its receive \
              function in the order sent, one at a time (shm: one ring per \
              pair; ofi: the provider's FI_ORDER_SAS and one reader of the \
              completion queue) */

#define TN_XCAP_PUT_NOREMOTE 0x200u /* rma takes TN_XPORT_FLAG_NOREMOTE */
#define TN_XCAP_PUT_SIGNAL   0x400u /* rma takes TN_XPORT_FLAG_SIGNAL */
#define TN_XCAP_RMA_SOFT \
    0x800u /* a get is served by the target's software when it progresses
              (a provider without RDMA: tcp, udp, sockets), not by its NIC */

/* What a transport can do, as created (limits may depend on the network
 * provider it opened). */
typedef struct tn_xport_caps {
    unsigned flags;                   /* TN_XCAP_* */
    uint32_t atomics[TN_ATYPE_COUNT]; /* ops the amo op carries out on any
                                         peer it reaches, per type */
    size_t rma_max;                   /* largest n one rma call takes (it fragments) */
    size_t rma_frag;                  /* largest piece moved at once */
    size_t inject;                    /* puts of this size or less end lc in the call */
    size_t unacked;                   /* largest TN_XPORT_FLAG_UNACKED put (at least
                                         inject; 0 without TN_XCAP_PUT_UNACKED) */
    size_t msg_max;                   /* largest message (0: no messages) */
    size_t msg_depth;                 /* messages one sender may have queued at one
                                         receiver before it must wait (0: none) */
} tn_xport_caps_t;

/* A peer whose mapping (control area + segment) is mapped here. */
typedef struct tn_xport_map {
    intptr_t delta;        /* add to an address in the peer's mapping (its own
                        address space) to reach it here */
    intptr_t static_delta; /* the same for its static region, when mapped */
    int static_mapped;     /* 1: its static region is mapped here too */
    size_t copy_min;       /* copies with it of this many bytes or more choose
                        their kind (tern_copy_); SIZE_MAX: never */
} tn_xport_map_t;

/* Where incoming messages go: core's handler, called from poll with the
 * sending rank and the message (valid during the call only; the handler
 * may send messages, but must not wait). */
typedef void (*tn_xport_recv_fn)(void *arg, int src, void *buf, size_t n);

/* Bytes core puts before a message's payload at most (active messages: a
 * 16-byte header and 16 arguments); transports size their buffers to hold
 * this plus TERN_AM_MEDIUM_MAX. */
#define TN_XPORT_MSG_OVERHEAD (16 + 16 * 8)

/* A message being assembled: msg_prepare fills buf/cap (room for the
 * message, in the transport's own memory: on shm the receiver's queue), the
 * caller writes it, msg_commit sends it. slot and aux are the transport's. */
typedef struct tn_xport_msg {
    void *buf;
    size_t cap;
    int rank;
    void *slot;
    uint64_t aux;
} tn_xport_msg_t;

typedef struct tn_xport_ops {
    size_t size;      /* sizeof(tn_xport_ops_t) the transport was built with */
    const char *name; /* registry name */
    /* Releases everything; in-flight operations are drained first. */
    void (*destroy)(tn_xport_t *x);
    /* ---- everything below may be a tn_xport_no_* stub ---- */
    void (*query)(tn_xport_t *x, tn_xport_caps_t *out);
    /* Progress; returns the number of completions handled (>= 0). Must be
     * safe to call from core's progress thread and the application's
     * threads at once. */
    int (*poll)(tn_xport_t *x);
    /* Start op. TERN_OK: the transport owns the part core counted in each
     * of done's objects and ends it exactly once with tn_comp_done (with
     * the error, if the transfer fails later); it may add parts (one per
     * fragment). An error return (TERN_ERR_AGAIN only with
     * TERN_FLAG_IMMEDIATE): nothing was issued and the counted parts are
     * untouched, the caller takes them back. Once any fragment is issued
     * the op returns TERN_OK and reports later failures through done. A
     * 0-byte transfer ends its parts at once. */
    int (*rma)(tn_xport_t *x, const tn_rma_t *op, const tn_xport_done_t *done,
               unsigned flags);
    /* TERN_OK and *out when rank's mapping is mapped here (TN_XCAP_MAPPED);
     * TERN_ERR_UNSUPPORTED otherwise. */
    int (*peer_map)(tn_xport_t *x, int rank, tn_xport_map_t *out);
    /* Messages (TN_XCAP_MSG; what active messages travel on). set_recv:
     * fn is called from poll for every message that arrives, exactly once.
     * msg_prepare: room for a message of n <= caps.msg_max bytes to rank;
     * without TERN_FLAG_IMMEDIATE it polls until there is room, with it
     * TERN_ERR_AGAIN when there is none after one poll. msg_commit: sends
     * the prepared message with its final length (<= the n prepared); the
     * caller's buffer is free at once. Between the two calls the thread
     * makes no other call to the transport. */
    int (*set_recv)(tn_xport_t *x, tn_xport_recv_fn fn, void *arg);
    int (*msg_prepare)(tn_xport_t *x, int rank, size_t n, unsigned flags,
                       tn_xport_msg_t *m);
    int (*msg_commit)(tn_xport_t *x, tn_xport_msg_t *m, size_t n);
    /* One line on what was opened (provider, limits), for reports. */
    void (*summary)(tn_xport_t *x, char *buf, size_t len);
    /* The copy decisions with any rank of the job (tern_copy_info), from
     * the transport that owns the copy policy of mapped memory (shm). */
    int (*copy_info)(tn_xport_t *x, int rank, tern_copy_info_t *out);
    /* One remote atomic (ops in caps.atomics[op->type]), with done as for
     * rma: only rc is used; it ends when the update is done at the target
     * and, for fetching ops, the old value is in op->result. Atomic with
     * respect to the amo ops of the same transport on the same word only
     * (core never mixes mechanisms on one atomic domain). */
    int (*amo)(tn_xport_t *x, const tn_amo_t *op, const tn_xport_done_t *done,
               unsigned flags);
    /* A whole message in one call (TN_XCAP_MSG): head (hn bytes, a multiple
     * of 8) then payload (len bytes), with msg_prepare's flags and
     * results; both buffers are free on return. What small active messages
     * use, so that the path is one call; the default (a transport that
     * leaves it NULL) is msg_prepare, two copies, msg_commit. */
    int (*msg_send)(tn_xport_t *x, int rank, const void *head, size_t hn,
                    const void *payload, size_t len, unsigned flags);
    /* Memory accounting: adds the transport's own allocations to t (by
     * what their sizes grow with) and, for a transport over a network
     * provider, the provider's private memory as measured when it was
     * opened to *provider. */
    void (*mem)(tn_xport_t *x, tn_mem_tally_t *t, size_t *provider);
    /* Direct queues (optional: a transport whose messages travel in the
     * rings of xport/msgq.h). msg_queue: this process's side of the queue
     * toward rank, or NULL; the caller may write a message straight into
     * it (tn_msgq_try_begin .. tn_msgq_publish) instead of msg_send, and
     * falls back to msg_send when it is full. msg_inqueues: the queues
     * into this rank (the count; *in the array). Core drains those itself,
     * calling the function it gave set_recv's for each message, and then
     * does not call poll: a transport that offers them does nothing else
     * in poll. */
    tn_msgq_t *(*msg_queue)(tn_xport_t *x, int rank);
    int (*msg_inqueues)(tn_xport_t *x, tn_msgq_t **in);
} tn_xport_ops_t;

/* The table's size up to and including destroy: a table shorter than that
 * is not usable. */
#define TN_XPORT_OPS_MIN_SIZE \
    (offsetof(tn_xport_ops_t, destroy) + sizeof(((tn_xport_ops_t *)0)->destroy))

struct tn_xport {
    const tn_xport_ops_t *ops;
};

/* Stubs for operations a transport does not have. */
void tn_xport_no_query(tn_xport_t *x, tn_xport_caps_t *out); /* all zero */
int tn_xport_no_poll(tn_xport_t *x);                         /* 0: nothing to do */
int tn_xport_no_rma(tn_xport_t *x, const tn_rma_t *op, const tn_xport_done_t *done,
                    unsigned flags);
int tn_xport_no_peer_map(tn_xport_t *x, int rank, tn_xport_map_t *out);
int tn_xport_no_set_recv(tn_xport_t *x, tn_xport_recv_fn fn, void *arg);
int tn_xport_no_msg_prepare(tn_xport_t *x, int rank, size_t n, unsigned flags,
                            tn_xport_msg_t *m);
int tn_xport_no_msg_commit(tn_xport_t *x, tn_xport_msg_t *m, size_t n);
int tn_xport_msg_send_prepared(tn_xport_t *x, int rank, const void *head, size_t hn,
                               const void *payload, size_t len, unsigned flags);
void tn_xport_no_summary(tn_xport_t *x, char *buf, size_t len); /* the name */
int tn_xport_no_copy_info(tn_xport_t *x, int rank, tern_copy_info_t *out);
int tn_xport_no_amo(tn_xport_t *x, const tn_amo_t *op, const tn_xport_done_t *done,
                    unsigned flags);
void tn_xport_no_mem(tn_xport_t *x, tn_mem_tally_t *t, size_t *provider); /* nothing */
tn_msgq_t *tn_xport_no_msg_queue(tn_xport_t *x, int rank);                /* NULL */
int tn_xport_no_msg_inqueues(tn_xport_t *x, tn_msgq_t **in);              /* 0 */

/* TN_XPORT_FLAG_SIGNAL's checks before anything is issued (one fragment of
 * at most frag bytes, a put into the segment mapping, an aligned word
 * inside the target's mapping of map_size bytes from map_base, both in
 * the target's address space, not from a handler; who names the transport
 * in the message): TERN_OK, or TERN_ERR_INVALID with the cause logged. */
int tn_xport_signal_check(const char *who, const tn_rma_t *op, unsigned flags,
                          size_t frag, uint64_t map_base, uint64_t map_size);

/* The target's side of TN_XPORT_FLAG_SIGNAL, where the data is in place:
 * raises *w to v unless it holds v or later (wraparound order), with
 * release order after the data. A compare-exchange: the word's other
 * writers (a provider storing a later ordered flag write into it) are
 * never undone. */
static inline void tn_xport_signal_raise(_Atomic uint32_t *w, uint32_t v)
{
    uint32_t old = atomic_load_explicit(w, memory_order_relaxed);
    while ((int32_t)(old - v) < 0 &&
           !atomic_compare_exchange_weak_explicit(w, &old, v, memory_order_release,
                                                  memory_order_relaxed))
        ;
}

#endif
