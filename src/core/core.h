/* State of the native API in this process, shared by the core/ files. */
#ifndef TN_CORE_H
#define TN_CORE_H

#include <pthread.h>
#include <stdatomic.h>

#include <tern.h>

#include "base/comp.h"
#include "base/compiler.h"
#include "boot/boot.h"
#include "mem/heap.h"
#include "mem/segment.h"
#include "mem/static.h"
#include "core/team.h"
#include "mem/ctrl.h"
#include "xport/registry.h"

enum { TN_PEER_SELF = 0, TN_PEER_SHM = 1, TN_PEER_NET = 2 };

/* TERN_ERROR_MODE, in the order of its choices. */
enum { TN_ERROR_MODE_RETURN = 0, TN_ERROR_MODE_ABORT = 1 };
/* tn_core.rank outside a job: never initialized, or finalized (for
 * messages: Tern cannot be initialized again). */
enum { TN_RANK_NONE = -1, TN_RANK_FINALIZED = -2 };

/* A transport in use (core/xports.c). Core calls it through ops, the
 * transport's table completed with stubs, so never past the size the
 * transport was built with. */
typedef struct tn_core_xport {
    tn_xport_t *x;
    tn_xport_ops_t ops;
    tn_xport_caps_t caps; /* queried once, after create */
    const tn_xport_entry_t *entry;
} tn_core_xport_t;

/* What every rank of a node knows alike about one rank of the job: one
 * row per rank in the node-shared peer table (core/peertab.c), written
 * once by the node's leader at start-up and read in place by every rank
 * of the node (read-only mapping). Addresses are in the rank's own space. */
typedef struct tn_peer_info {
    uint64_t data_base;   /* its segment's user bytes */
    uint64_t size;        /* segment bytes */
    uint64_t ctrl_size;   /* its control area, before data_base */
    uint64_t static_base; /* its static region (global variables) */
    uint64_t static_size; /* 0: not remotely accessible in this job */
    int32_t node;         /* node number (the transports' grouping) */
    int32_t view_node;    /* node in the program's view (tern_node_of) */
} tn_peer_info_t;
_Static_assert(sizeof(tn_peer_info_t) == 48,
               "tn_peer_info_t is shared between processes");

/* What this rank alone holds about a peer: how it reaches it. Private
 * entries exist for the span of ranks around this node's ranks
 * (tn_core.span_first, .span: self and the shared-memory peers, and any
 * network peer numbered between them); every other rank is a network peer
 * reached through tn_core.remote, one entry for all (tn_core_peer). */
typedef struct tn_peer {
    int kind;               /* TN_PEER_* */
    int static_mapped;      /* its static region is mapped here */
    tn_core_xport_t *xport; /* transport serving it */
    tn_core_xport_t *msg;   /* transport carrying messages to it, or NULL */
    tn_msgq_t *msgq;        /* msg's direct queue to it (xport/msgq.h), or NULL */
    size_t am_medium_max;   /* tn_am_medium_max(it), cached at start-up */
    char *ctrl;             /* its control area mapped here, or NULL */
    intptr_t static_delta;  /* added to its static addresses to reach them here */
} tn_peer_t;

/* Nodes as the program sees them (see build_view in nodes.c). */
typedef struct tn_node_view {
    int nnodes, local_rank, local_size;
} tn_node_view_t;

typedef struct tn_core {
    int initialized;
    int rank, size;
    int thread_level;
    int error_abort; /* TERN_ERROR_MODE=abort */
    tn_boot_t *boot;
    const tn_peer_info_t *info; /* [size] node-shared peer table (peertab.c) */
    tn_peer_t *peers;           /* [span] private entries of the span's ranks */
    tern_peer_fast_t *fast;     /* [size] fast-path entries, published through
                                   tern_fast_: indexed by rank, so that the
                                   inline put tests one bound (tern/fast.h) */
    int span_first, span;       /* ranks [span_first, span_first + span): this
                                   node's lowest to highest rank */
    tn_peer_t remote;           /* every rank outside the span */
    int node, nnodes;
    int local_rank, local_size; /* among the ranks sharing memory */
    int host_ranks;             /* ranks on this host (shm or not) */
    int largest_node;           /* ranks of the job's largest node */
    size_t unacked_job;         /* the smallest of every rank's largest ordered
                                   unacknowledged network write (tn_seg_info_t
                                   .unacked; 0: some rank has none): the
                                   collectives' record size (coll_eager.c) */
    int *local_ranks;           /* [local_size] global ranks of this node */
    tn_seg_t seg;
    tn_static_t stat;        /* this rank's global variables (static.c) */
    int static_on;           /* every rank's static region is reachable */
    tn_ctrl_space_t ctrl;    /* claims on the control area (same on every rank) */
    int *node_leaders;       /* [nnodes] lowest rank of each node */
    tn_node_view_t view;     /* what tern_node_* and tern_local_* answer */
    tn_team_t world;         /* the world team: barrier state */
    tn_core_xport_t *xports; /* [nxports] in registry order, polled by progress */
    int nxports;
    int needs_poll;           /* some transport progresses only when polled */
    tn_core_xport_t **polled; /* [npolled] the transports progress polls */
    int npolled;
    tn_msgq_t *msg_in; /* [msg_nin] direct queues into this rank, drained by
                          progress in place of their transport's poll */
    int msg_nin;
    size_t *xport_ctrl; /* [registry count] offset of each transport's
                           control-area claim (SIZE_MAX: none) */
    pthread_t progress; /* TERN_PROGRESS_THREAD */
    _Atomic int progress_stop;
    int have_progress;
    tn_heap_t heap;       /* tern_alloc/tern_alloc_sym space */
    pthread_mutex_t lock; /* barrier, allocation, boot calls */
    tern_startup_report_t report;
    size_t init_growth; /* RssAnon growth across tern_init (memory report) */
} tn_core_t;

extern tn_core_t tn_core;

/* A handler's effects, made visible to the thread that later returns from
 * a barrier when another thread (the progress thread, a polling thread
 * under THREAD_MULTIPLE) ran the handler: a Reply, sent after its
 * handler's effects, releases; a barrier's return and tern_wait_until_u64's
 * acquire (only while tn_core_effects_on). The hardware
 * orders them through the network round trip between the two already;
 * this is the edge within the process that ThreadSanitizer (and a weaker
 * memory model) can see. Free with one thread. */
extern _Atomic unsigned long tn_core_effects;
/* 1 on the progress thread (core/progress.c), which runs handlers only
 * while the application is silent: the release is then its own, and the
 * application's threads, which run their handlers themselves, pay
 * nothing for a thread that exists. */
extern TN_TLS_FAST _Thread_local int tn_core_progress_self;
/* 1 while a thread other than a waiting call's can run handlers: the level
 * is TERN_THREAD_MULTIPLE or the progress thread runs (it runs only where a
 * network needs polling: never in a shm-only job). Written by tern_init and
 * the progress thread's start and stop (tn_core_effects_update), while no
 * other thread calls Tern; read at every wait's return, one word so that a
 * job where no other thread runs handlers pays a load and a branch. */
extern int tn_core_effects_on;
static inline void tn_core_effects_update(void)
{
    tn_core_effects_on =
        tn_core.thread_level == TERN_THREAD_MULTIPLE || tn_core.have_progress;
}
static inline void tn_core_effects_release(void)
{
    if (tn_core.thread_level == TERN_THREAD_MULTIPLE || tn_core_progress_self)
        atomic_fetch_add_explicit(&tn_core_effects, 1, memory_order_release);
}
static inline void tn_core_effects_acquire(void)
{
    if (tn_unlikely(tn_core_effects_on))
        (void)atomic_load_explicit(&tn_core_effects, memory_order_acquire);
}

/* Logs msg as an error of the named call and returns status, or ends the
 * job when TERN_ERROR_MODE=abort. */
int tn_core_fail(int status, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold, noinline));

/* TERN_ERR_NOT_INIT (with a message naming the call) unless initialized. */
#define TN_CHECK_INIT(call)                                           \
    do {                                                              \
        if (__builtin_expect(!tn_core.initialized, 0))                \
            return tn_core_fail(TERN_ERR_NOT_INIT, call, "called %s", \
                                tn_core.rank == TN_RANK_FINALIZED     \
                                    ? "after tern_finalize"           \
                                    : "before tern_init");            \
    } while (0)

/* Transports (core/xports.c): exchange the segment descriptions, create
 * the transports the registry says this job needs, pick one per peer,
 * fill the peer and fast tables from them. Collective; once, after the
 * segment exists. tn_core_xports_destroy: in reverse order. */
int tn_core_xports_init(const int *node_of, const int *view_of);
/* Claims the control-area space of the transports this job will create
 * (before the segment exists; after the node map). */
int tn_core_xports_plan(tn_ctrl_space_t *space);
/* Bytes of control area the transports claim (as tn_core_xports_plan
 * does) in a job of node_ranks ranks on this one node, with the TERN_*
 * values in tn_cfg: the shared-memory message queues, which grow with
 * TERN_AM_SHM_QUEUE, TERN_AM_MEDIUM_MAX and the ranks per node. For
 * tern-info -c, before any job exists. */
size_t tn_core_xports_ctrl_bytes(int node_ranks);
void tn_core_xports_destroy(void);
/* The transports and how many ranks each serves, and the line each gives
 * about itself, for the start-up report. */
void tn_core_xports_report(void);
/* out = e's ops table in, checked and completed: TERN_ERR_INVALID (logged)
 * when in is shorter than TN_XPORT_OPS_MIN_SIZE or lacks name or destroy;
 * else the first min(in->size, sizeof) bytes of in, with every operation
 * beyond them or left NULL set to its tn_xport_no_* stub. */
int tn_core_xport_complete(const tn_xport_entry_t *e, const tn_xport_ops_t *in,
                           tn_xport_ops_t *out);

/* v against value by a TERN_CMP_* comparison (checked by the caller). */
static inline int tn_cmp_u64(uint64_t v, int cmp, uint64_t value)
{
    switch (cmp) {
    case TERN_CMP_EQ: return v == value;
    case TERN_CMP_NE: return v != value;
    case TERN_CMP_GT: return v > value;
    case TERN_CMP_GE: return v >= value;
    case TERN_CMP_LT: return v < value;
    default: return v <= value;
    }
}

/* The private entry of rank (valid): its own in the span, else the one
 * shared by every network peer outside it. Cost: a subtract, a compare. */
static inline tn_peer_t *tn_core_peer(int rank)
{
    unsigned i = (unsigned)(rank - tn_core.span_first);
    return tn_likely(i < (unsigned)tn_core.span) ? &tn_core.peers[i] : &tn_core.remote;
}
/* rank's private entry when it is in the span, else NULL (a bad rank
 * too): for fast paths that serve this node's ranks only, where the one
 * subtract and compare also checks the rank. */
static inline const tn_peer_t *tn_core_span_peer(int rank)
{
    unsigned i = (unsigned)(rank - tn_core.span_first);
    return i < (unsigned)tn_core.span ? &tn_core.peers[i] : NULL;
}
/* rank's (valid) row of the node-shared table. */
static inline const tn_peer_info_t *tn_core_info(int rank)
{
    return &tn_core.info[rank];
}
/* rank's (valid) fast-path entry. */
static inline const tern_peer_fast_t *tn_core_fast(int rank)
{
    return &tn_core.fast[rank];
}

/* Checks rank and [addr, addr+n) against rank's segment and static
 * region; logs and returns the error naming rank, address and the
 * regions (core/rma.c). */
int tn_core_check_remote(const char *call, int rank, const void *addr, size_t n);
/* The error of an address in neither region of rank (valid). */
int tn_core_range_fail(const char *call, int rank, const void *addr, size_t n);
/* As tn_core_check_remote, for calls that take the segment only: an
 * address in the static region is TERN_ERR_RANGE, saying so. */
int tn_core_check_seg(const char *call, int rank, const void *addr, size_t n);
/* Static regions (core/static.c). tn_core_static_prepare: finds this
 * rank's and shares it with the node's peers (before Tern starts any
 * thread); tn_core_static_agree: after the exchange of every rank's
 * tn_seg_info_t, keeps the regions only when every rank has one of the
 * same size (else zeroes them in all, with a warning naming the ranks). */
void tn_core_static_prepare(void);
void tn_core_static_agree(tn_seg_info_t *all);
/* The region of rank (valid) that [a, a+n) is in: TN_REGION_SEG (its
 * segment), TN_REGION_STATIC, or -1. Cost: two or four compares. */
static inline int tn_core_region(int rank, uintptr_t a, size_t n)
{
    const tn_peer_info_t *p = tn_core_info(rank);
    uintptr_t off = a - (uintptr_t)p->data_base;
    if (off <= p->size && n <= p->size - off)
        return TN_REGION_SEG;
    off = a - p->static_base;
    if (off <= p->static_size && n <= p->static_size - off && p->static_size)
        return TN_REGION_STATIC;
    return -1;
}
/* Where [addr, addr+n) on rank (valid) is reached here with loads and
 * stores (its segment or static region, mapped), or NULL. */
static inline char *tn_core_mapped(int rank, const void *addr, size_t n)
{
    const tern_peer_fast_t *f = tn_core_fast(rank);
    uintptr_t off = (uintptr_t)addr - f->base;
    if (f->size && off <= f->size && n <= f->size - off)
        return (char *)addr + f->delta;
    const tn_peer_t *p = tn_core_peer(rank);
    const tn_peer_info_t *in = tn_core_info(rank);
    off = (uintptr_t)addr - in->static_base;
    if (p->static_mapped && off <= in->static_size && n <= in->static_size - off)
        return (char *)addr + p->static_delta;
    return NULL;
}
/* The message's tail for an address that is in rank's static region but
 * not accepted by call (" (a global variable: ...)"), or "". */
const char *tn_core_static_note(int rank, const void *addr);

/* Starts d through its peer's transport with one part counted in each
 * non-NULL object of done (core/rma.c); on an error nothing started and
 * the parts are taken back. */
int tn_core_rma_start(const tn_rma_t *d, const tn_xport_done_t *done, unsigned flags);
/* Runs d through its peer's transport and waits for remote completion
 * (core/rma.c); the error, logged with call, when it fails. */
int tn_core_rma_blocking(const char *call, const tn_rma_t *d, unsigned flags);
/* tern_put on the default context, but returning at remote completion
 * whatever TERN_ORDER says: for core's own protocols that write data and
 * then a flag or signal the target reads it by (collectives, put with
 * signal). Same checks, statuses and statistics as tern_put. */
int tn_core_put_strict(tern_ctx_t ctx, int rank, void *dst, const void *src, size_t n,
                       unsigned flags);

/* A put of n bytes from local to remote (rank's symmetric address) that
 * the caller follows with an ordered flag write of its own, which its
 * reader polls (tn_coll_signal_ordered): to a network peer whose
 * transport takes TN_XPORT_FLAG_NOREMOTE, nobody waits for its remote
 * completion (no acknowledgement) and *ev ends once local may be reused,
 * or with the error of a failed write; to any other peer it is tern_put_nb
 * with *ev its remote completion. Only where the flag is ordered behind
 * the put (tn_coll_can_order). The error (logged with call) when nothing
 * started. */
int tn_core_put_flagged(const char *call, int rank, void *remote, const void *local,
                        size_t n, tern_event_t *ev);

/* Combined nbi puts and gets (core/put_agg.c,
 * docs/design/nbi-aggregation.md): small nbi puts (or gets) of a thread to
 * a network peer collect in a buffer that leaves as one active message.
 * busy counts the thread's buffers holding operations and its messages
 * whose Reply has not come; NULL until the thread's first combined one. */
typedef struct tn_pagg_head {
    _Atomic long busy;
} tn_pagg_head_t;
extern TN_TLS_FAST _Thread_local tn_pagg_head_t *tn_pagg_mine;
int tn_pagg_before_slow(int rank, unsigned flags);
/* Before any other operation of this thread to rank: its combined puts to
 * rank leave, and unless flags has TN_XPORT_FLAG_CTRL the call waits for
 * their Reply (the handler has written them), so that the operation sees
 * them and lands after them. TERN_ERR_AGAIN under TERN_FLAG_IMMEDIATE
 * when the message finds no room; otherwise TERN_OK (a failed message's
 * error goes to its puts' sync). Cost when the thread has none: a
 * thread-local load and a branch. */
static inline int tn_pagg_before(int rank, unsigned flags)
{
    tn_pagg_head_t *a = tn_pagg_mine;
    if (__builtin_expect(!a || !atomic_load_explicit(&a->busy, memory_order_acquire), 1))
        return TERN_OK;
    return tn_pagg_before_slow(rank, flags);
}
/* TERN_NBI_AGG_MAX (0 once finalized); tn_pagg_put appends an nbi put of n
 * bytes (1 to that) to the network peer rank, counted in c: TERN_OK,
 * TERN_ERR_AGAIN (IMMEDIATE, nothing counted), or TN_PAGG_DIRECT when the
 * peer's messages cannot hold it (then it goes alone). */
#define TN_PAGG_DIRECT 1
size_t tn_pagg_max(void);
int tn_pagg_put(const char *call, tn_comp_t *c, int rank, void *remote, const void *local,
                size_t n, unsigned flags);
/* The same for an nbi get of n bytes (1 to TERN_NBI_AGG_MAX) from remote
 * in rank's segment into local: its Reply writes local before c completes. */
int tn_pagg_get(const char *call, tn_comp_t *c, int rank, const void *remote, void *local,
                size_t n, unsigned flags);
void tn_pagg_init(void);
void tn_pagg_fini(void);
/* Buffers of the process holding puts; their flush: wait 1 every
 * thread's (syncs, waits, barriers); 0 from progress: this thread's, and
 * another thread's that took no put since the last look. */
extern _Atomic int tn_pagg_open;
void tn_pagg_flush(int wait);
void tn_pagg_sync_lone_slow(tn_comp_t *c);
/* Before a sync of this thread waits for c's remote completion: a lone
 * combined put in c goes as an RMA write (put_agg.c, tn_pagg_sync_lone). */
static inline void tn_pagg_sync_lone(tn_comp_t *c)
{
    tn_pagg_head_t *a = tn_pagg_mine;
    if (__builtin_expect(a && atomic_load_explicit(&a->busy, memory_order_relaxed), 0))
        tn_pagg_sync_lone_slow(c);
}
static inline void tn_pagg_kick(int wait)
{
    if (atomic_load_explicit(&tn_pagg_open, memory_order_relaxed))
        tn_pagg_flush(wait);
}

/* Start one transport operation (core's own traffic included). Combined
 * puts of this thread to the peer go first (tn_pagg_before). */
static inline int tn_core_xport_rma(tn_core_xport_t *xp, const tn_rma_t *op,
                                    const tn_xport_done_t *done, unsigned flags)
{
    int rc = tn_pagg_before(op->rank, flags);
    if (__builtin_expect(rc != TERN_OK, 0))
        return rc;
    return xp->ops.rma(xp->x, op, done, flags);
}

/* Whether a barrier flag to p may be a 4-byte RMA write without
 * acknowledgement or completion (TN_XPORT_FLAG_UNACKED): a peer reached
 * over a transport that takes such writes and keeps puts to one peer in
 * order, so that a later barrier's write never lands before an earlier
 * one's (collectives.md, "Barrier flags by unacknowledged RMA writes"). */
static inline int tn_core_flag_unacked(const tn_peer_t *p)
{
    unsigned need = TN_XCAP_PUT_UNACKED | TN_XCAP_ORDER_PUT;
    return !p->ctrl && (p->xport->caps.flags & need) == need &&
           p->xport->caps.inject >= sizeof(uint32_t);
}

/* Writes the n bytes at buf to remote address raddr of rank (its peer p,
 * for which tn_core_flag_unacked holds, n within its caps.unacked) by such
 * a write; buf is copied by the call (inject). A failed write ends the
 * job: a flag or record lost would hang its reader. what names the caller
 * and kind what was written ("flag", "record") in the message. */
void tn_core_write_unacked(const tn_peer_t *p, int rank, uintptr_t raddr, const void *buf,
                           size_t n, const char *what, const char *kind);
/* The same for a 4-byte flag v. */
static inline void tn_core_flag_write_unacked(const tn_peer_t *p, int rank,
                                              uintptr_t raddr, uint32_t v,
                                              const char *what)
{
    tn_core_write_unacked(p, rank, raddr, &v, sizeof(v), what, "flag");
}

/* A check word over n words written by one network write: a reader that
 * finds it matching has read one whole write, not a mix of an old and a
 * new one (the provider copies a write into place with no promised order
 * among its bytes, on whichever thread polls). A torn read passes with
 * probability 2^-64. The atomic mailbox and the collectives' records. */
static inline uint64_t tn_check_word(const uint64_t *w, size_t n)
{
    uint64_t h = 0x6a09e667f3bcc909ull;
    for (size_t i = 0; i < n; i++) {
        h ^= w[i];
        h *= 0x9e3779b97f4a7c15ull;
        h ^= h >> 31;
    }
    return h;
}

/* Active messages (core/am.c): every transport's incoming messages, the
 * replies queued for later, state freed at finalize; the thread's handler
 * depth (a handler must not wait: TN_NOT_IN_HANDLER refuses). */
void tn_am_recv(void *arg, int src, void *buf, size_t n);
int tn_am_progress_deferred(void);
extern _Atomic long tn_am_ndeferred; /* Replies queued for lack of room */
/* Sends what it can of the queued Replies; nothing to do is one load. */
static inline int tn_am_progress(void)
{
    return atomic_load_explicit(&tn_am_ndeferred, memory_order_relaxed)
               ? tn_am_progress_deferred()
               : 0;
}
void tn_am_fini(void);
/* The state of the handler running on this thread: one per thread, in
 * thread-local storage; the dispatch writes sender and state, counts the
 * token and clears the state after the call, with nothing on the stack and
 * nothing saved (handlers never run inside handlers: progress, the waits
 * and tern_poll refuse to run them there, and the network's nested polls
 * hold what they receive). A handler's token is not an address but a count
 * (id), one more per handler on the thread: valid while it is the running
 * handler's (state not 0), never read. NULL, a made-up value, one kept
 * from an earlier handler (on this thread: a lower count) and the progress
 * thread's on an application thread or back are refused; two application
 * threads count alike from 0, so one's token is refused on the other
 * unless their counts meet (active-messages.md, twenty-fourth pass). A
 * thread is inside a handler exactly when the state is set, so no separate
 * count is kept (active-messages.md, eighteenth and twenty-second passes). */
struct tern_am_token_s {
    int src;        /* the sender of the message being handled */
    unsigned state; /* the message's kind byte | TN_AM_TOK_RUN | ...; 0 when
                       no handler runs on this thread and no Prepare waits
                       for its Commit */
    uintptr_t id;   /* the token handed to the running (or last) handler:
                       a count, one more per handler (tn_am_tok_next) */
    int prep_rank;  /* TN_AM_TOK_PREPARED: the Prepare's target and kind */
    int prep_reply; /* (a Reply's: 1), for the messages of tn_am_refuse */
};
enum {
    TN_AM_TOK_REPLY = 0x10,    /* the kind's Reply bit (am.h, TN_AM_REPLY): a
                                 Reply's handler runs (it cannot reply) */
    TN_AM_TOK_RUN = 0x100,     /* a handler runs */
    TN_AM_TOK_HELD = 0x200,    /* a Request's whose fast Reply is held until
                                 the Request is consumed (tn_am_drain_large) */
    TN_AM_TOK_REPLIED = 0x400, /* the Request was answered */
    /* A Prepare of this thread waits for its Commit (set by a Prepare that
     * succeeded, cleared by the Commit that consumes it; TN_AM_TOK_REPLY
     * with it: a Reply's). Until then the thread is under a handler's
     * rules (tn_am_in_handler): no message is sent, no call waits, no
     * handler runs here; a send refused names the Prepare (tn_am_refuse).
     * On shm the Prepare holds the peer's queue, whose slot the Commit
     * publishes: another send from this thread there lost a message. */
    TN_AM_TOK_PREPARED = 0x800
};
extern TN_TLS_FAST _Thread_local struct tern_am_token_s tn_am_tok;
#define tn_am_in_handler (tn_am_tok.state != 0)
/* Starts a handler's run on this thread: sender and state set, and the
 * token to hand it, a new one. */
static inline tern_am_token_t tn_am_tok_next(int src, unsigned state)
{
    tn_am_tok.src = src;
    tn_am_tok.state = state;
    return (tern_am_token_t)++tn_am_tok.id;
}
/* t is the token of the handler running on this thread. */
static inline int tn_am_token_live(const struct tern_am_token_s *t)
{
    return (uintptr_t)t == tn_am_tok.id && (tn_am_tok.state & TN_AM_TOK_RUN);
}
/* t is the token of a Request handler running on this thread that has not
 * replied yet: the count compared, one load, a mask and a compare. */
static inline int tn_am_token_replyable(const struct tern_am_token_s *t)
{
    return (uintptr_t)t == tn_am_tok.id &&
           (tn_am_tok.state & (TN_AM_TOK_RUN | TN_AM_TOK_REPLY | TN_AM_TOK_REPLIED |
                               TN_AM_TOK_PREPARED)) == TN_AM_TOK_RUN;
}
/* A Prepare's state: set by a Prepare that reserved a message to rank
 * (is_reply: a Reply's), cleared by the Commit that consumes it. */
static inline void tn_am_prepared_set(int rank, int is_reply)
{
    tn_am_tok.prep_rank = rank;
    tn_am_tok.prep_reply = is_reply;
    tn_am_tok.state |= TN_AM_TOK_PREPARED;
}
static inline void tn_am_prepared_clear(void)
{
    tn_am_tok.state &= ~(unsigned)TN_AM_TOK_PREPARED;
}
/* Refuses call made where this thread must not wait or send (inside a
 * handler, or between a Prepare and its Commit), saying which and why:
 * what is "wait", "send" or "allocate". TERN_ERR_INVALID. */
int tn_am_refuse(const char *call, const char *what);
#define TN_NOT_IN_HANDLER(call)                    \
    do {                                           \
        if (__builtin_expect(tn_am_in_handler, 0)) \
            return tn_am_refuse(call, "wait");     \
    } while (0)

/* Combined atomics waiting in batches (core/atomic_agg.c): how many
 * batches of this process hold records, and their flush. wait 1: every
 * thread's batches leave (a batch another thread is sending is waited
 * for): syncs and waits, whose completion may count them; 0: those not
 * busy elsewhere (progress when idle). Nothing inside a handler or inside
 * a batch's own send. Cost when none is open: one load. */
extern _Atomic int tn_ad_agg_open;
void tn_ad_agg_flush(int wait);
static inline void tn_ad_agg_kick(int wait)
{
    if (atomic_load_explicit(&tn_ad_agg_open, memory_order_relaxed))
        tn_ad_agg_flush(wait);
}

/* The atomic mailbox's pairs to scan (core/atomic_mbox.c): progress
 * serves their new requests. Cost when none said hello: one load. */
extern _Atomic uint32_t tn_ad_mbox_nactive;
int tn_ad_mbox_progress(void);

/* Progress on every transport; returns completions handled
 * (core/progress.c). */
int tn_core_progress(void);
/* base/wait's node-local hook in a mixed job (tn_wait_local_hook): progress
 * without the polled transports' polls. */
int tn_core_progress_local(void);
/* ... and its network part (tn_wait_net_hook): the polled transports. */
int tn_core_progress_net(void);
/* base/wait's relax hook (tn_wait_relax_hook): see progress.c. */
void tn_core_wait_relax(void);
void tn_core_wait_polled(void);
/* Whether waits may watch a direct queue between their steps (core/sync.c,
 * watch_direct): tn_core_direct_wait_inputs() cached, so that a wait
 * reads one word instead of testing each input. Every change of an input
 * (the progress and node-local hooks, the polled transports, the direct
 * queues and their threads, the wait policy) is followed by
 * tn_core_direct_wait_update(): tern_am_register and
 * tn_am_register_internal (the hook), tn_core_xports_init and _destroy
 * (hooks, transports, queues, progress thread), tern_init (the policy). */
extern _Atomic int tn_core_direct_wait;
int tn_core_direct_wait_inputs(void);
void tn_core_direct_wait_update(void);
/* The progress thread (TERN_PROGRESS_THREAD=1), started when some
 * transport needs polling; stop is a no-op without one. */
int tn_core_progress_start(void);
void tn_core_progress_stop(void);

/* Start-up tables of a size proportional to the job (every rank's
 * description, exchanged once): mapped and unmapped, so that their pages
 * go back to the system at once instead of staying in the heap. */
void *tn_core_tmp_alloc(size_t bytes);
void tn_core_tmp_free(void *p, size_t bytes);

/* The memory report's line (core/memory.c), for the start-up report. */
void tn_core_memory_log(void);

/* Node map: fills node, nnodes, local_*, the span and node_leaders from
 * every rank's node key, and *node_of / *view_of (malloc'd, [size]: each
 * rank's node for the transports and in the program's view) for the
 * peer table, which keeps them. */
int tn_core_build_node_map(int **node_of, int **view_of);

/* The node-shared peer table (core/peertab.c). tn_peertab_prepare: the
 * leader of this rank's node (the program's view: the launcher's
 * machines, whatever TERN_SHM says) creates the table's memory; its
 * pid and descriptor go out with the segment descriptions (*pid, *fd;
 * -1 elsewhere). tn_peertab_fill: after that exchange, the leader writes
 * every rank's row, the others map the leader's table read-only (rows
 * readable after the next barrier of the job). tn_peertab_close: the
 * descriptor, after that barrier. tn_peertab_destroy: unmaps. */
int tn_peertab_prepare(const int *view_of, int *fd);
int tn_peertab_fill(const tn_seg_info_t *all, const int *node_of, const int *view_of);
void tn_peertab_close(void);
void tn_peertab_destroy(void);
/* Bytes of the table: shared, once per node, or (*private_copy) this
 * rank's own copy where the leader's could not be mapped. */
size_t tn_peertab_bytes(int *private_copy);

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
