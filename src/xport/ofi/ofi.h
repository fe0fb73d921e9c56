/* Network transport over libfabric RDM endpoints: one endpoint per rank,
 * the whole segment mapping registered once, addresses and keys exchanged
 * by the bootstrap's allgather, RMA with fi_writemsg/fi_readmsg. */
#ifndef TN_OFI_H
#define TN_OFI_H

#include <pthread.h>
#include <rdma/fabric.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "base/compiler.h"
#include "boot/boot.h"
#include "xport/registry.h"

typedef struct tn_ofi_op tn_ofi_op_t;
typedef struct tn_ofi_buf tn_ofi_buf_t;
typedef struct tn_ofi_defer tn_ofi_defer_t;

/* What every completion's context points to: the provider's per-operation
 * space, then what kind of descriptor it is (an RMA operation of
 * ofi_rma.c, a message buffer of ofi_msg.c). */
enum { TN_OFI_CTX_RMA = 0, TN_OFI_CTX_RX = 1, TN_OFI_CTX_TX = 2 };
typedef struct tn_ofi_ctx {
    struct fi_context2 fi;
    int kind;
} tn_ofi_ctx_t;
typedef struct tn_ofi_mr_cache tn_ofi_mr_cache_t;

/* ThreadSanitizer builds: a call that drives the provider's progress
 * (fi_cq_read, and the posts, which may progress too) lets it write what
 * peers sent into this rank's memory, as a NIC would by DMA; the calls are
 * wrapped in TN_PEER_WRITES_BEGIN/END (base/compiler.h), which replaced a
 * suppression of every report with a libfabric frame
 * (tests/sanitizers/tsan.supp; docs/design/ci-time.md). */

/* What every rank publishes about its endpoint and registration. */
#define TN_OFI_NAME_MAX 256
typedef struct tn_ofi_addr {
    uint64_t map_base; /* start of the registered mapping, owner's address */
    uint64_t map_size;
    uint64_t key;         /* remote key of that registration */
    uint64_t static_base; /* the registered static region (0: none) */
    uint64_t static_key;
    uint64_t name_len;
    uint8_t name[TN_OFI_NAME_MAX];
} tn_ofi_addr_t;

/* A contacted rank: its address-vector entry and what RMA to it needs
 * of its card. Allocated when its address is resolved (first contact);
 * a rank never contacted costs only its NULL pointer in peers[]. */
typedef struct tn_ofi_rkey {
    fi_addr_t fi_addr;
    uint64_t map_base;
    uint64_t map_size; /* its mapping's bytes: where a signal word may be */
    uint64_t key;
    uint64_t static_base; /* its static region (TN_REGION_STATIC) */
    uint64_t static_key;
    _Atomic int credits;  /* messages this rank may still send to it */
    _Atomic int consumed; /* messages handled from it, credits not returned */
    _Atomic int window;   /* credits granted to it in all: credit_init, grown
                             while it streams to this rank (ofi_msg.c) */
    _Atomic int sent_to;  /* a message went to it since its credits last went
                             back alone: its stream is not one-way */
    int flushing;         /* a flush read to it is in flight (under o->lock) */
    _Atomic int pending;  /* lazy puts to it whose remote part has not ended:
                             the next one goes acknowledged when 0 (ofi_rma.c,
                             "The first put acknowledged") */
} tn_ofi_rkey_t;

typedef struct tn_ofi_opts {
    const char *provider; /* TERN_OFI_PROVIDER ("" = best available) */
    const char *domain;   /* TERN_OFI_DOMAIN ("" = provider's first) */
    const char *fabric;   /* TERN_OFI_FABRIC ("" = the domain's first) */
    long tx_depth;        /* operations in flight at most (0 = provider's) */
    int force_mr_local;   /* treat local buffers as FI_MR_LOCAL needs them */
    size_t max_msg;       /* TERN_OFI_MAX_MSG: fragment cap (0: provider's) */
    size_t put_bounce;    /* TERN_OFI_PUT_BOUNCE: puts copied to be done at once */
    int signal;           /* TERN_OFI_SIGNAL: writes may carry their signal */
    int atomics;          /* use the provider's atomics (TERN_OFI_ATOMICS != am) */
    int lazy_addr;        /* TERN_OFI_LAZY_ADDR: addresses at first contact */
    const char *fault;    /* TERN_TEST_FAULT: issue:N, complete:N, noamo:OP, noorder */
    void *static_base;    /* this rank's static region to register, or NULL */
    size_t static_size;
} tn_ofi_opts_t;

/* Faults injected for tests (TERN_TEST_FAULT): every issue_every-th
 * fragment fails at issue, every complete_every-th completion fails;
 * amo_hidden: ops the atomics caps leave out (as if the provider lacked
 * them), to test the domains' fallback; no_order: the ordering caps are
 * left out (as if the provider ordered nothing), to test the ordering
 * modes' fallback; no_ack: every lazy put waits for a flush read, none
 * goes acknowledged, to test that path alone. (nowiden is get_info's,
 * read from the option text before this is parsed: unacknowledged writes
 * keep the default inject size, as on a rank whose provider grants less,
 * to test that a team's members agree on the collectives' record size.) */
typedef struct tn_ofi_fault {
    long issue_every, complete_every; /* 0: never */
    uint32_t amo_hidden;              /* TN_AOP_BIT mask */
    int no_order;                     /* TERN_TEST_FAULT=noorder */
    int no_ack; /* TERN_TEST_FAULT=noack: no put goes acknowledged (ofi_rma.c) */
    _Atomic long issues, completions; /* counted so far */
} tn_ofi_fault_t;

typedef struct tn_ofi {
    tn_xport_t base;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_ep *ep;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_cntr
        *inject_guard; /* ofi_rxm: a write counter, never read (ofi_setup.c) */
    struct fid_mr *mr; /* the segment mapping */
    void *mr_desc;
    struct fid_mr *static_mr; /* the static region (global variables), or NULL */
    void *static_base;
    size_t static_size;
    void *map; /* registered mapping: control area + segment */
    size_t map_size;
    int rank, size;
    /* Per rank: its entry (address-vector entry, registration and keys),
     * NULL until its address is resolved (lazy: at first contact,
     * tn_ofi_peer); written once, under addr_lock, after the entry. */
    tn_ofi_rkey_t **peers; /* [size] */
    int lazy;              /* TERN_OFI_LAZY_ADDR with a key-value bootstrap */
    int instance;          /* creation count in this process: names its card */
    tn_boot_t *boot;       /* for lookups (lazy) */
    pthread_mutex_t addr_lock;
    long resolved; /* addresses inserted into the address vector */
    int virt_addr; /* FI_MR_VIRT_ADDR: remote addresses are virtual */
    int mr_local;  /* local buffers need descriptors */
    size_t inject_size, max_msg;
    /* Largest TN_XPORT_FLAG_UNACKED write (an fi_inject_write): the
     * endpoint's inject size, which get_info asks to be at least
     * TN_OFI_UNACKED_WANT; inject_size (every other path's) stays the
     * provider's default (ofi_setup.c, widen_inject). */
    size_t unacked_max;
    int atomics_off;                   /* TERN_OFI_ATOMICS=am */
    uint32_t amo_caps[TN_ATYPE_COUNT]; /* ops the amo op carries out, per type */
    /* Operation descriptors: bounded in-flight operations. */
    tn_ofi_op_t *ops, *free_ops;
    long nops, inflight;
    /* Puts whose remote completion a later read learns (ofi_rma.c, "Remote
     * completion by a read"): flush_ok when the endpoint keeps reads after
     * writes to one peer (FI_ORDER_RMA_RAW); awaiting: puts issued (and
     * locally complete) that no read covers yet (under lock, linked by
     * next), one read in flight per rank at most (its peer's flushing);
     * flush_due: poll has reads to issue. */
    int flush_ok;
    int signal_ok; /* writes carry 8 bytes of remote CQ data (TN_XCAP_PUT_SIGNAL) */
    const char *signal_off; /* else why not */
    tn_ofi_op_t *awaiting;
    _Atomic int flush_due;
    /* Bounce slots, one per descriptor, of slot bytes: under mr_local for
     * transfers up to TN_OFI_BOUNCE (no registration of their buffer), and
     * with flush_ok for puts up to put_bounce whose caller tracks local
     * completion apart (done at issue: ofi_rma.c, "Local completion at
     * once"). NULL when neither applies; registered (bounce_mr) under
     * mr_local only. */
    char *bounce;
    size_t slot, put_bounce;
    struct fid_mr *bounce_mr;
    tn_ofi_mr_cache_t *mrc; /* registrations of private local buffers (mr_local) */
    pthread_mutex_t lock;
    tn_ofi_fault_t fault;
    /* messages (ofi_msg.c); msg_max 0: the provider offers none */
    size_t msg_buf, msg_max;
    long nrx, ntx;
    tn_ofi_buf_t *rx, *tx, *free_tx;
    tn_ofi_buf_t *tx_queue, **tx_queue_tail; /* sends refused with -FI_EAGAIN */
    _Atomic int tx_queued;                   /* tx_queue is not empty */
    tn_ofi_buf_t *packing; /* buffers filling with messages to peers out of
                              credit, one per such peer (under lock) */
    _Atomic int npacking;  /* how many */
    char *rx_mem, *tx_mem;
    struct fid_mr *rx_mr, *tx_mr;
    /* Receives posted on demand (ofi_msg.c, "Receive buffers kept warm"):
     * rx_target of the nrx buffers stay posted, the others wait in rx_spare;
     * rx_withhold handled buffers are kept back instead of reposted (the
     * target was lowered). rx_burst: messages received since the completion
     * queue was last seen empty; rx_calm: bursts in a row far below the
     * target. */
    _Atomic long rx_target; /* written under lock */
    tn_ofi_buf_t *rx_spare; /* under lock */
    _Atomic long rx_withhold;
    _Atomic long rx_burst;
    _Atomic long rx_calm;
    int credit_init;
    int window_max;          /* a peer's window at most (16 x credit_init,
                                at most 65535) */
    _Atomic long grant_left; /* credits beyond credit_init still to grant
                                (all peers: nrx, the receive buffers) */
    _Atomic int credits_owed;
    /* The completion queue is read, and what it brings handled, by one
     * thread at a time (tn_ofi_poll), so that messages from one peer reach
     * core in the order the provider delivered them. cq_busy: taken with a
     * try by the reading thread. rx_later: messages received by a poll
     * made again from inside a handler (an RMA call waiting for a
     * descriptor), handed to core by the outer poll after those it read
     * first (owned by the reading thread). */
    _Atomic int cq_busy;
    tn_ofi_buf_t *rx_later, **rx_later_tail;
    /* RMA from handlers that could not be issued at once (ofi_defer.c):
     * a queue under lock (appended at the tail; the head is issued by the
     * thread holding defer_busy), ndefer queued, defer_peak the most at
     * once (logged at close, TERN_VERBOSE=2); defer_appended and
     * defer_retired count every operation ever queued and ever unlinked
     * (a waiter waits for those queued before it, wait_queue). */
    tn_ofi_defer_t *defer_head, **defer_tail;
    _Atomic long ndefer;
    _Atomic uint64_t defer_appended, defer_retired;
    _Atomic int defer_busy;
    /* Threads waiting for the queue to empty (an RMA call outside a
     * handler, ofi_defer.c wait_queue): while any does, no credits go
     * back (ofi_msg.c, "Credits held while the queue drains");
     * credits_held: a return was held, owed once the last waiter leaves. */
    _Atomic int defer_waiting;
    _Atomic int credits_held;
    long defer_peak;
    int closing;
    _Atomic(tn_xport_recv_fn) recv_fn;
    void *recv_arg;
    /* The provider's private memory: RssAnon growth across the calls into
     * libfabric that open it (loading, fi_getinfo, fabric/domain/endpoint
     * open, segment registration, address insertion, receives posted),
     * measured around those calls alone (ofi_setup.c). */
    size_t provider_bytes;
} tn_ofi_t;

/* Messages (ofi_msg.c): set up after the endpoint (posts the receive
 * buffers), torn down after it closed; ops; what poll hands over. */
int tn_ofi_msg_setup(tn_ofi_t *o);
/* Bytes of one message buffer (header included), receive and send
 * buffers, from TERN_AM_* and the provider's largest message (0: none). */
void tn_ofi_msg_plan(size_t prov_max, size_t *buf, long *nrx, long *ntx);
void tn_ofi_msg_teardown(tn_ofi_t *o);
/* Private bytes of the message buffers' descriptors (memory accounting). */
size_t tn_ofi_msg_desc_bytes(const tn_ofi_t *o);
int tn_ofi_set_recv(tn_xport_t *x, tn_xport_recv_fn fn, void *arg);
int tn_ofi_msg_prepare(tn_xport_t *x, int rank, size_t n, unsigned flags,
                       tn_xport_msg_t *m);
int tn_ofi_msg_commit(tn_xport_t *x, tn_xport_msg_t *m, size_t n);
int tn_ofi_msg_send(tn_xport_t *x, int rank, const void *head, size_t hn,
                    const void *payload, size_t len, unsigned flags);
/* A message completion (ctx of a send buffer or a receive buffer). With
 * hold, a received message is kept in rx_later instead of being handed
 * over; tn_ofi_msg_rx_later hands those over, in order (the messages). */
void tn_ofi_msg_completed(tn_ofi_t *o, tn_ofi_ctx_t *ctx, int status, int hold);
int tn_ofi_msg_rx_later(tn_ofi_t *o);
/* After poll read n completions, rx of them received messages: adjusts how
 * many receive buffers stay posted (n below the batch: the queue drained). */
void tn_ofi_msg_rx_load(tn_ofi_t *o, int n, int rx, int batch);
void tn_ofi_msg_poll(tn_ofi_t *o);
/* 1 when tn_ofi_msg_poll has work (queued sends, credits to return,
 * packed buffers): three loads, so that an idle poll makes no call. */
static inline int tn_ofi_msg_due(tn_ofi_t *o)
{
    return atomic_load_explicit(&o->tx_queued, memory_order_relaxed) |
           atomic_load_explicit(&o->credits_owed, memory_order_relaxed) |
           atomic_load_explicit(&o->npacking, memory_order_relaxed);
}
/* Sends the packed buffers of peers that have a credit again (after
 * completions brought credits back). */
void tn_ofi_msg_flush(tn_ofi_t *o);
/* A thread starts (1) or stops (0) waiting for the queue of RMA from
 * handlers to empty: credits go back to no peer while any waits. */
void tn_ofi_msg_hold(tn_ofi_t *o, int on);

/* tn_ofi_create (registry.h) opens the endpoint with the TERN_OFI_*
 * values in force, registers the rank's whole mapping and exchanges
 * addresses with every rank through boot (collective). Errors:
 * TERN_ERR_CONFIG (a provider or domain asked for does not exist: the
 * message lists the available ones), TERN_ERR_SYS (libfabric failed: the
 * message names the call, the error and what to try). */
void tn_ofi_destroy(tn_ofi_t *o);

/* Resolves rank's address (lookup through the bootstrap, fi_av_insert)
 * unless done: TERN_OK, or the error (logged, naming the rank). Any
 * thread; concurrent callers for one rank wait for the first. */
int tn_ofi_resolve(tn_ofi_t *o, int rank) __attribute__((cold, noinline));

/* TERN_OK when rank's address is in the address vector: the contacted
 * peer's cost is one load and a predictable branch (acquire: the entry
 * was written before its pointer). */
static inline int tn_ofi_peer(tn_ofi_t *o, int rank)
{
    if (__builtin_expect(__atomic_load_n(&o->peers[rank], __ATOMIC_ACQUIRE) != NULL, 1))
        return 0;
    return tn_ofi_resolve(o, rank);
}
/* The address-vector entry of rank, resolved (tn_ofi_peer returned 0). */
static inline fi_addr_t tn_ofi_faddr(const tn_ofi_t *o, int rank)
{
    return o->peers[rank]->fi_addr;
}

/* Remote address of addr (in the peer's own address space, in region
 * TN_REGION_*) as the provider wants it (virtual, or offset from the
 * registration), and the key of that registration. */
static inline uint64_t tn_ofi_raddr(const tn_ofi_t *o, int rank, const void *addr,
                                    int region)
{
    uint64_t a = (uint64_t)(uintptr_t)addr;
    if (o->virt_addr)
        return a;
    return a - (region == TN_REGION_STATIC ? o->peers[rank]->static_base
                                           : o->peers[rank]->map_base);
}
static inline uint64_t tn_ofi_rkey(const tn_ofi_t *o, int rank, int region)
{
    return region == TN_REGION_STATIC ? o->peers[rank]->static_key : o->peers[rank]->key;
}

/* Receive buffers for messages kept posted while bursts are small (see
 * ofi_msg.c, "receive buffers kept warm"). */
#define TN_OFI_RX_WARM 16

#define TN_OFI_BOUNCE         4096      /* below this, FI_MR_LOCAL buffers are copied */
#define TN_OFI_UNACKED_WANT   128       /* inject size asked for unacknowledged writes */
#define TN_OFI_PUT_BOUNCE_MAX (1 << 20) /* TERN_OFI_PUT_BOUNCE at most */

/* One operation in flight (ofi_rma.c owns the pool; ofi_amo.c issues
 * atomics with the same descriptors, completed by the same poll). */
struct tn_ofi_op {
    tn_ofi_ctx_t ctx; /* first: kind TN_OFI_CTX_RMA */
    tn_comp_t *lc;    /* ended at completion unless ended early */
    tn_comp_t *rc;
    char *bounce;          /* this descriptor's bounce slot (mr_local) */
    void *copy_out;        /* at completion, copy copy_len bytes here */
    const void *copy_from; /* from here (the bounce slot, or scratch) */
    size_t copy_len;
    struct fid_mr *tmp_mr; /* registration made for this operation */
    int rank;
    int is_get;
    int ctrl;    /* TN_XPORT_FLAG_CTRL: exempt from injected faults */
    int is_amo;  /* an atomic (for messages) */
    int lazy;    /* a put whose remote completion waits for a flush read */
    int flush;   /* the flush read of rank: next chains the puts it covers */
    int counted; /* a lazy put counted in its peer's pending */
    /* An atomic's operand, compare value and result where the provider
     * needs no registered local buffers (else the bounce slot holds them). */
    uint64_t scratch[3];
    tn_ofi_op_t *next;
};

/* A free descriptor, driving progress while none is free (NULL only with
 * TERN_FLAG_IMMEDIATE); tn_ofi_op_give returns one not posted or done. */
tn_ofi_op_t *tn_ofi_op_wait(tn_ofi_t *o, unsigned flags);
void tn_ofi_op_give(tn_ofi_t *o, tn_ofi_op_t *op);
/* TERN_TEST_FAULT: 1 when the count-th event of this kind must fail. */
int tn_ofi_fault_now(_Atomic long *count, long every);

/* One fragment of a read or write (ofi_rma.c): TERN_OK, TERN_ERR_AGAIN
 * (IMMEDIATE: nothing issued), or an error (logged; nothing issued). */
int tn_ofi_issue(tn_ofi_t *o, int is_get, int rank, void *local, uint64_t raddr,
                 uint64_t key, size_t len, tn_comp_t *lc, tn_comp_t *rc, unsigned flags);

/* RMA from handlers (ofi_defer.c, docs/design/active-messages.md, "RMA
 * from handlers"). tn_ofi_rma calls tn_ofi_defer_rma for an operation
 * from a handler (TN_XPORT_FLAG_HANDLER), or for any while some are
 * queued. From a handler: issued at once where a descriptor and the
 * provider take it, else queued (TERN_OK either way; TERN_ERR_AGAIN only
 * under IMMEDIATE with nothing issued; an error with nothing issued). From
 * elsewhere: waits until the queue is issued (TERN_ERR_AGAIN under
 * IMMEDIATE if one poll did not do it), then TN_OFI_DEFER_GO_ON: the
 * caller issues it the usual way. */
#define TN_OFI_DEFER_GO_ON 1
int tn_ofi_defer_rma(tn_ofi_t *o, const tn_rma_t *op, const tn_xport_done_t *done,
                     unsigned flags);
/* The same for an atomic (tn_ofi_amo): its operands are copied into the
 * record, its fetched value lands in a->result when it completes. */
int tn_ofi_defer_amo(tn_ofi_t *o, const tn_amo_t *a, const tn_xport_done_t *done,
                     unsigned flags);
/* One atomic (ofi_amo.c), one part of rc ended by its completion: TERN_OK,
 * TERN_ERR_AGAIN (IMMEDIATE: refused after at most one poll and one more
 * try, nothing issued), or an error (logged; nothing issued). */
int tn_ofi_amo_issue(tn_ofi_t *o, const tn_amo_t *a, tn_comp_t *rc, unsigned flags);
/* Issues what is queued, in order, up to the first refusal (never
 * waits, runs no handler; one thread at a time): how many went. */
int tn_ofi_defer_issue(tn_ofi_t *o);
/* Ends what is still queued with an error (at close). */
void tn_ofi_defer_fini(tn_ofi_t *o);
/* Set while this thread issues RMA that must not wait: tn_ofi_poll then
 * only reads completions, holding received messages back (no handler
 * runs). */
extern TN_TLS_FAST _Thread_local int tn_ofi_no_handlers;

/* RMA entry point (ops table) and progress; see xport.h. */
int tn_ofi_rma(tn_xport_t *x, const tn_rma_t *op, const tn_xport_done_t *done,
               unsigned flags);
int tn_ofi_poll(tn_xport_t *x);
int tn_ofi_op_pool_create(tn_ofi_t *o);
/* Atomics (ofi_amo.c): the ops the provider carries out for each type
 * (fi_query_atomic; none without FI_ATOMIC or with atomics_off), asked
 * once at create, and the amo op. */
void tn_ofi_amo_caps(tn_ofi_t *o, uint32_t out[TN_ATYPE_COUNT]);
/* 1 when info's provider applies atomics in the target's software
 * (TN_XCAP_AMO_SOFT): ofi_rxm, tcp, shm and the others of ofi_amo.c. */
int tn_ofi_amo_soft(const struct fi_info *info);
/* Whether the provider's core (the first of its stack) has no RDMA: its
 * reads are served by the target's software when it progresses
 * (TN_XCAP_RMA_SOFT): tcp, udp, sockets, net. */
int tn_ofi_rma_soft(const struct fi_info *info);
/* TN_XCAP_ORDER_PUT / _AMO where the endpoint keeps write-after-write
 * order (none with TERN_TEST_FAULT=noorder). */
unsigned tn_ofi_order_caps(const tn_ofi_t *o);
/* tern-info: the ops of every type info's provider carries out (enabled:
 * TERN_OFI_ATOMICS). */
void tn_ofi_amo_describe(FILE *out, struct fi_info *info, int enabled);
int tn_ofi_amo(tn_xport_t *x, const tn_amo_t *op, const tn_xport_done_t *done,
               unsigned flags);
void tn_ofi_op_pool_destroy(tn_ofi_t *o);

/* tn_ofi_describe (registry.h), for tern-info: the provider, domain and
 * capabilities that fi_getinfo offers for the current TERN_OFI_PROVIDER
 * and TERN_OFI_DOMAIN (without opening). */
/* One line naming the chosen provider and domain of o (ops summary). */
void tn_ofi_summary(tn_xport_t *x, char *buf, size_t len);

/* Registrations of private (non-segment) local buffers under FI_MR_LOCAL
 * (ofi_mr.c). Each has a requested key no other open registration holds
 * (or the provider's key with FI_MR_PROV_KEY). Up to TN_OFI_MR_ENTRIES
 * registrations, of whole pages, are shared by the operations in flight on
 * the buffers they cover (reference counted). With keep_idle they stay
 * open after the last of those completes, for later operations on the same
 * buffers, until least-recently-used eviction (a miss with every slot
 * taken, or more than TN_OFI_MR_IDLE_BYTES kept unused). keep_idle is only
 * safe where the provider does not itself need the registrations (it does
 * not pin pages): a buffer freed and allocated again at the same address
 * would otherwise be served by the old registration of the old pages. A
 * miss with every slot in use by operations in flight registers for that
 * operation alone. Open registrations at most: TN_OFI_MR_ENTRIES + one per
 * operation in flight. */
#define TN_OFI_MR_ENTRIES    64
#define TN_OFI_MR_IDLE_BYTES ((size_t)64 << 20)
int tn_ofi_mr_cache_create(tn_ofi_t *o, int keep_idle);
/* Closes every registration, in use or not (after the endpoint closed). */
void tn_ofi_mr_cache_destroy(tn_ofi_t *o);
/* Private bytes of the cache's table (memory accounting). */
size_t tn_ofi_mr_cache_bytes(void);
/* A registration covering [buf, buf+len) with access (FI_READ for the
 * local side of a get, FI_WRITE for a put), referenced until
 * tn_ofi_mr_release. TERN_OK, or the translated fi_mr_reg error (logged). */
int tn_ofi_mr_acquire(tn_ofi_t *o, const void *buf, size_t len, uint64_t access,
                      struct fid_mr **out);
void tn_ofi_mr_release(tn_ofi_t *o, struct fid_mr *mr);

/* Starts loading libfabric (tn_fi_load) and a first fi_getinfo on a
 * thread, once, so that their fixed cost overlaps other start-up
 * work (the segment's creation and fault-in): Debian 12's
 * libfabric 1.17 takes 0.3-0.5 s per process there (PSM libraries
 * calibrating a timer in their constructors, the verbs provider scanning
 * /proc/kallsyms twice; docs/design/network-transport.md). */
void tn_ofi_prefetch(void);
/* Returns when the thread tn_ofi_prefetch started (if any) has finished
 * and, for the first caller, exited (joined); tn_ofi_create calls it
 * first, so the job's own fi_getinfo is not slowed by the thread's, and
 * nothing of it outlives start-up. */
void tn_ofi_prefetch_wait(void);
/* RssAnon growth across the prefetch thread's loading of libfabric and
 * first fi_getinfo (0: none ran). Other threads of start-up run meanwhile;
 * they allocate little private memory (the segment is shared memory). */
size_t tn_ofi_prefetch_growth(void);

/* Provider sizing (ofi_size.c, docs/design/provider-sizing.md). With
 * TERN_OFI_SIZE=tern, the provider variables below are set from Tern's
 * needs before libfabric initializes its providers, each only where the
 * user has not set it (setenv without overwrite: the user's FI_* wins, with
 * a warning when it is below what Tern needs). The needs of active
 * messages come from tn_ofi_msg_plan (their buffer size, receives posted,
 * sends in flight) and TERN_AM_NET_CREDITS (receives per peer). */
#define TN_OFI_TX_DEFAULT  256 /* operations in flight when TERN_OFI_TX_DEPTH=0 */
#define TN_OFI_RXM_HDR     128 /* rxm's packet header, rounded up */
#define TN_OFI_RXM_BUF_MIN 512 /* rxm control messages and 8-byte atomics fit */
#define TN_OFI_RX_MIN      16
#define TN_OFI_MSG_RX_MIN  32
#define TN_OFI_MSG_TX_MAX  128
#define TN_OFI_SIZE_ITEMS  8

enum { TN_OFI_SIZE_TERN = 0, TN_OFI_SIZE_PROVIDER = 1 }; /* TERN_OFI_SIZE */
enum { TN_OFI_SIZE_SET = 1, TN_OFI_SIZE_USER = 2 };      /* item source */

typedef struct tn_ofi_size_item {
    const char *var; /* provider variable, e.g. FI_OFI_RXM_BUFFER_SIZE */
    size_t want;     /* Tern's value */
    size_t need;     /* least that works for Tern (0: any) */
    size_t value;    /* in force: want, or the user's setting */
    const char *why;
    int source; /* TN_OFI_SIZE_SET or TN_OFI_SIZE_USER */
    int must;   /* below need active messages break (tn_ofi_size_check) */
} tn_ofi_size_item_t;

typedef struct tn_ofi_sizing {
    int mode;      /* TN_OFI_SIZE_TERN or TN_OFI_SIZE_PROVIDER */
    long tx_depth; /* Tern's operations in flight (0: the provider's queue) */
    size_t am_buf; /* one network active message, headers included */
    long am_rx, am_tx, am_credits; /* receives posted, sends, per peer */
    int bounce; /* rxm receives eager messages into its buffers: buffer = eager */
    int n;
    tn_ofi_size_item_t item[TN_OFI_SIZE_ITEMS];
} tn_ofi_sizing_t;

/* Decides the sizing once per process (later calls return at once) from
 * tn_cfg (TERN_OFI_SIZE, TERN_OFI_TX_DEPTH: 0 is Tern's default, the
 * TERN_AM_* sizes) and sets the provider variables; must run before
 * libfabric's first fi_getinfo (tn_ofi_prefetch and tn_ofi_create call it
 * first). warn logs user settings below Tern's needs. Returns TERN_OK. */
int tn_ofi_size_apply(int warn);
/* For the provider prov (fi_info's prov_name) that create opens: a
 * user's setting below what Tern's active messages need where a smaller
 * value breaks them (rxm's eager limit) is an error naming it:
 * TERN_ERR_CONFIG, else TERN_OK. */
int tn_ofi_size_check(const char *prov);
/* The provider chosen (prov, NULL: none) and the libfabric variables in
 * force that every rank must share, as "NAME=value ..." into buf
 * (tn_xport_entry_t.job_settings). */
void tn_ofi_size_job(const char *prov, char *buf, size_t len);
/* The sizing decided, or NULL before tn_ofi_size_apply. */
const tn_ofi_sizing_t *tn_ofi_sizing(void);
/* Lines for tern-info and the start-up report: each variable, its value
 * and why. */
void tn_ofi_size_describe(FILE *out);

/* libfabric status to a Tern status (at the transport boundary). */
int tn_ofi_status(int fi_rc);

#endif
