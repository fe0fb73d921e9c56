/* Messages over libfabric (fi_send into receive buffers posted in
 * advance): each message carries a 16-byte header (sender, credits it
 * returns) before core's message. Flow control by credits: a sender may
 * have TERN_AM_NET_CREDITS messages outstanding at one peer; the peer
 * returns them once half are handled, on a message it sends that way or on
 * a credit-only message. Receive buffers: TERN_AM_NET_RECV bytes posted at
 * start; what arrives beyond them waits in the provider (bounded by the
 * credits: peers x credits messages at most). Send buffers: a pool, each
 * back when its send completes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include <tern.h>

#include "base/cfg.h"
#include "base/compiler.h"
#include "base/log.h"
#include "base/stats.h"
#include "base/wait.h"
#include "xport/ofi/ofi.h"
#include "xport/ofi/ofi_dl.h"

#define NTX     64 /* send buffers */
#define MIN_RX  16 /* receive buffers at least */
#define RX_WARM TN_OFI_RX_WARM
#define RX_CALM 1024 /* small bursts in a row before the posted set halves */
#define HDR     16u
/* Largest message sent by fi_inject (header included; a provider's inject
 * size beyond it is not used): tcp;ofi_rxm offers 64 bytes. */
#define INJECT_MAX 240
#define CREDITED   0x1u /* header flag: a credit-only message, no payload */

typedef struct wire_hdr {
    int32_t src;
    uint32_t len;     /* message bytes after this header */
    uint16_t credits; /* returned to the receiver of this message */
    uint16_t flags;
    uint32_t pad;
} wire_hdr_t;
_Static_assert(sizeof(wire_hdr_t) == HDR, "16-byte message header");

struct tn_ofi_buf {
    tn_ofi_ctx_t ctx; /* first: what completions point to */
    char *mem;
    int rank; /* send: destination */
    size_t len;
    tn_ofi_buf_t *next;
};

static void *desc_of(tn_ofi_t *o, struct fid_mr *mr)
{
    return o->mr_local && mr ? fi_mr_desc(mr) : NULL;
}

static int post_rx(tn_ofi_t *o, tn_ofi_buf_t *b)
{
    for (int tries = 0;; tries++) {
        ssize_t r =
            fi_recv(o->ep, b->mem, o->msg_buf, desc_of(o, o->rx_mr), FI_ADDR_UNSPEC, b);
        if (r == 0)
            return TERN_OK;
        if (r != -FI_EAGAIN || tries > 1000) {
            tn_error("libfabric fi_recv of a message buffer failed: %s%s",
                     tn_fi.strerror((int)-r),
                     r == -FI_EAGAIN ? " (the provider's receive queue is full: its rx "
                                       "size, FI_OFI_RXM_RX_SIZE for ofi_rxm, must hold "
                                       "TERN_AM_NET_RECV / message buffer receives; "
                                       "raise it or lower TERN_AM_NET_RECV)"
                                     : "");
            return TERN_ERR_SYS;
        }
        TN_PEER_WRITES_BEGIN();
        fi_cq_read(o->cq, NULL, 0); /* lets a manual-progress provider move */
        TN_PEER_WRITES_END();
    }
}

static int reg(tn_ofi_t *o, void *mem, size_t len, uint64_t access, uint64_t key,
               struct fid_mr **mr)
{
    if (!o->mr_local)
        return TERN_OK;
    int rc = fi_mr_reg(o->domain, mem, len, access, 0, key, 0, mr, NULL);
    if (rc) {
        tn_error("libfabric fi_mr_reg of the message buffers failed: %s",
                 tn_fi.strerror(-rc));
        return TERN_ERR_SYS;
    }
    if (o->info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        fi_mr_bind(*mr, &o->ep->fid, 0);
        fi_mr_enable(*mr);
    }
    return TERN_OK;
}

void tn_ofi_msg_plan(size_t prov_max, size_t *buf, long *nrx, long *ntx)
{
    size_t want = HDR + TN_XPORT_MSG_OVERHEAD + tn_cfg.am_medium_max;
    if (prov_max && want > prov_max)
        want = prov_max;
    *buf = (want + 63) & ~(size_t)63;
    *nrx = (long)(tn_cfg.am_net_recv / *buf);
    if (*nrx < MIN_RX)
        *nrx = MIN_RX;
    *ntx = NTX;
}

int tn_ofi_msg_setup(tn_ofi_t *o)
{
    if (!(o->info->caps & FI_MSG))
        return TERN_OK; /* RMA only: no messages offered */
    tn_ofi_msg_plan(o->info->ep_attr->max_msg_size, &o->msg_buf, &o->nrx, &o->ntx);
    o->credit_init = (int)tn_cfg.am_net_credits; /* 2 to 32768: mem/validate.c */
    /* A return carries at most window_max credits (its consumed plus the
     * growth: grow_window), in the header's 16 bits. */
    o->window_max = o->credit_init <= UINT16_MAX / 16 ? 16 * o->credit_init
                    : o->credit_init > UINT16_MAX     ? o->credit_init
                                                      : UINT16_MAX;
    o->rx = calloc((size_t)o->nrx, sizeof(*o->rx));
    o->tx = calloc((size_t)o->ntx, sizeof(*o->tx));
    o->rx_mem = aligned_alloc(64, (size_t)o->nrx * o->msg_buf);
    o->tx_mem = aligned_alloc(64, (size_t)o->ntx * o->msg_buf);
    if (!o->rx || !o->tx || !o->rx_mem || !o->tx_mem)
        return TERN_ERR_NOMEM;
    /* Credits live in each contacted peer's entry; those inserted at
     * start-up (TERN_OFI_LAZY_ADDR=0) get theirs now. */
    for (int r = 0; r < o->size; r++)
        if (o->peers[r]) {
            atomic_store(&o->peers[r]->credits, o->credit_init);
            atomic_store(&o->peers[r]->window, o->credit_init);
        }
    /* From here on the provider allocates (registrations, receives
     * posted); Tern only fills the descriptors allocated above. */
    size_t rss0 = tn_mem_rss_anon();
    int rc = reg(o, o->rx_mem, (size_t)o->nrx * o->msg_buf, FI_RECV, 3, &o->rx_mr);
    if (rc == TERN_OK)
        rc = reg(o, o->tx_mem, (size_t)o->ntx * o->msg_buf, FI_SEND, 4, &o->tx_mr);
    if (rc != TERN_OK)
        return rc;
    for (long i = 0; i < o->ntx; i++) {
        o->tx[i].ctx.kind = TN_OFI_CTX_TX;
        o->tx[i].mem = o->tx_mem + (size_t)i * o->msg_buf;
        o->tx[i].next = i + 1 < o->ntx ? &o->tx[i + 1] : NULL;
    }
    o->free_tx = o->tx;
    o->rx_later = NULL;
    o->rx_later_tail = &o->rx_later;
    /* All posted at first, which checks at start that the provider takes
     * them all (a flood later needs them: a refusal here names the
     * provider's variable); all but RX_WARM are then kept back as they
     * complete (receive buffers kept warm, below). */
    for (long i = 0; i < o->nrx && rc == TERN_OK; i++) {
        o->rx[i].ctx.kind = TN_OFI_CTX_RX;
        o->rx[i].mem = o->rx_mem + (size_t)i * o->msg_buf;
        rc = post_rx(o, &o->rx[i]);
    }
    atomic_init(&o->grant_left, o->nrx);
    long warm = o->nrx < RX_WARM ? o->nrx : RX_WARM;
    atomic_init(&o->rx_target, warm);
    atomic_init(&o->rx_withhold, o->nrx - warm);
    o->provider_bytes += tn_mem_growth(rss0);
    o->msg_max = o->msg_buf - HDR;
    return rc;
}

size_t tn_ofi_msg_desc_bytes(const tn_ofi_t *o)
{
    return (size_t)(o->nrx + o->ntx) * sizeof(tn_ofi_buf_t);
}

void tn_ofi_msg_teardown(tn_ofi_t *o)
{
    if (o->rx_mr)
        fi_close(&o->rx_mr->fid);
    if (o->tx_mr)
        fi_close(&o->tx_mr->fid);
    free(o->rx);
    free(o->tx);
    free(o->rx_mem);
    free(o->tx_mem);
}

int tn_ofi_set_recv(tn_xport_t *x, tn_xport_recv_fn fn, void *arg)
{
    tn_ofi_t *o = (tn_ofi_t *)x;
    if (!o->msg_max)
        return TERN_ERR_UNSUPPORTED;
    o->recv_arg = arg;
    atomic_store_explicit(&o->recv_fn, fn, memory_order_release);
    return TERN_OK;
}

static tn_ofi_buf_t *tx_take_locked(tn_ofi_t *o)
{
    tn_ofi_buf_t *b = o->free_tx;
    if (b)
        o->free_tx = b->next;
    return b;
}

static void tx_give_locked(tn_ofi_t *o, tn_ofi_buf_t *b)
{
    b->next = o->free_tx;
    o->free_tx = b;
}

static tn_ofi_buf_t *tx_take(tn_ofi_t *o)
{
    pthread_mutex_lock(&o->lock);
    tn_ofi_buf_t *b = tx_take_locked(o);
    pthread_mutex_unlock(&o->lock);
    return b;
}

static void tx_give(tn_ofi_t *o, tn_ofi_buf_t *b)
{
    pthread_mutex_lock(&o->lock);
    tx_give_locked(o, b);
    pthread_mutex_unlock(&o->lock);
}

static int take_credit(tn_ofi_t *o, int rank)
{
    int c = atomic_load_explicit(&o->peers[rank]->credits, memory_order_relaxed);
    while (c > 0)
        if (atomic_compare_exchange_weak(&o->peers[rank]->credits, &c, c - 1))
            return 1;
    return 0;
}

/* A credit and a send buffer for rank: both, or neither. */
static tn_ofi_buf_t *reserve(tn_ofi_t *o, int rank)
{
    if (!take_credit(o, rank))
        return NULL;
    tn_ofi_buf_t *b = tx_take(o);
    if (!b)
        atomic_fetch_add(&o->peers[rank]->credits, 1);
    return b;
}

/* ---- credits held while the queue drains -----------------------------------
 * An RMA call outside a handler waits until the RMA that handlers queued
 * (ofi_defer.c) has gone, so that one thread's operations keep their
 * order. That wait polls, which runs handlers, and each may queue more:
 * with peers streaming here the queue grew faster than 4 descriptors
 * drained it (mp.am_hold.net.n3: 9000-13000 queued at the waiting rank,
 * its peers' grown windows of 64-77 credits refilled at once), so the
 * wait, and every send of that rank, lasted until the peers had sent all
 * they had. So while a thread waits for the queue, no credits go back,
 * neither alone nor on a message: the peers stop after what is in flight,
 * the handlers of that queue only a window's worth more, and the queue
 * empties. The credits held go back at the next poll after the wait. Not
 * by holding the received messages back instead: the provider's buffers
 * would fill and stop the connection that carries the answers the queued
 * RMA waits for ("RMA from handlers", active-messages.md). */

/* 1 when credits must not go back now (a thread waits for the queue), the
 * hold then noted so that its end returns them. */
static int credits_held(tn_ofi_t *o)
{
    if (tn_likely(!atomic_load_explicit(&o->defer_waiting, memory_order_relaxed)))
        return 0;
    atomic_store(&o->credits_held, 1);
    /* The last waiter may have left meanwhile, missing the note. */
    return atomic_load(&o->defer_waiting) != 0;
}

void tn_ofi_msg_hold(tn_ofi_t *o, int on)
{
    if (on) {
        atomic_fetch_add(&o->defer_waiting, 1);
        return;
    }
    if (atomic_fetch_sub(&o->defer_waiting, 1) == 1 &&
        atomic_exchange(&o->credits_held, 0))
        atomic_store(&o->credits_owed, 1); /* the next poll returns what is due */
}

/* Credits owed to rank to return on a message now (0 while held). */
static uint16_t credits_out(tn_ofi_t *o, int rank)
{
    if (tn_unlikely(credits_held(o)))
        return 0;
    return (uint16_t)atomic_exchange(&o->peers[rank]->consumed, 0);
}

/* Credits owed to e's rank that go back on a message of core's: a grown
 * window is not one-way any more, so it shrinks back toward credit_init by
 * up to what it returns, and those credits go back to the budget for
 * other streams (grow_window). */
static uint16_t credits_on_message(tn_ofi_t *o, tn_ofi_rkey_t *e, int c)
{
    int w = atomic_load_explicit(&e->window, memory_order_relaxed), d;
    do {
        if (tn_likely(w <= o->credit_init || c == 0))
            return (uint16_t)c;
        d = w - o->credit_init < c ? w - o->credit_init : c;
    } while (!atomic_compare_exchange_weak_explicit(
        &e->window, &w, w - d, memory_order_relaxed, memory_order_relaxed));
    atomic_fetch_add_explicit(&o->grant_left, d, memory_order_relaxed);
    TN_STAT_ADD(net_window_shrunk, (uint64_t)d);
    return (uint16_t)(c - d);
}

/* A message of core's goes to e's rank: a stream from it is not one-way
 * (grow_window). */
static void mark_sent(tn_ofi_rkey_t *e)
{
    if (!atomic_load_explicit(&e->sent_to, memory_order_relaxed))
        atomic_store_explicit(&e->sent_to, 1, memory_order_relaxed);
}

/* The header of b (len: bytes after it), returning the credits owed. */
static void seal(tn_ofi_t *o, tn_ofi_buf_t *b, size_t len, unsigned flags)
{
    wire_hdr_t *h = (wire_hdr_t *)b->mem;
    h->src = o->rank;
    h->len = (uint32_t)len;
    h->credits = credits_out(o, b->rank);
    h->flags = (uint16_t)flags;
    if (!(flags & CREDITED)) {
        mark_sent(o->peers[b->rank]);
        h->credits = credits_on_message(o, o->peers[b->rank], h->credits);
    }
    b->len = HDR + len;
}

/* Queues b behind the sends the provider refused (o->lock held). */
static void queue_locked(tn_ofi_t *o, tn_ofi_buf_t *b)
{
    b->next = NULL;
    *o->tx_queue_tail = b;
    o->tx_queue_tail = &b->next;
    atomic_store_explicit(&o->tx_queued, 1, memory_order_release);
}

/* fi_send of b: 0, -FI_EAGAIN, or another error (logged, b given back). */
static ssize_t try_send(tn_ofi_t *o, tn_ofi_buf_t *b, int locked)
{
    TN_PEER_WRITES_BEGIN(); /* the provider may progress inside a post too */
    ssize_t r =
        fi_send(o->ep, b->mem, b->len, desc_of(o, o->tx_mr), tn_ofi_faddr(o, b->rank), b);
    TN_PEER_WRITES_END();
    if (r != 0 && r != -FI_EAGAIN) {
        tn_error("libfabric fi_send of a %zu-byte message to rank %d failed: %s", b->len,
                 b->rank, tn_fi.strerror((int)-r));
        if (locked)
            tx_give_locked(o, b);
        else
            tx_give(o, b);
    }
    return r;
}

/* Posts b, or queues it for the next poll when the provider refuses it
 * (-FI_EAGAIN; a send from a handler may not poll) or refused an earlier
 * one still queued: messages leave in the order they were sent. */
static void post_locked(tn_ofi_t *o, tn_ofi_buf_t *b)
{
    if (atomic_load_explicit(&o->tx_queued, memory_order_acquire) ||
        try_send(o, b, 1) == -FI_EAGAIN)
        queue_locked(o, b);
}

static void post(tn_ofi_t *o, tn_ofi_buf_t *b)
{
    if (!atomic_load_explicit(&o->tx_queued, memory_order_acquire) &&
        try_send(o, b, 0) != -FI_EAGAIN)
        return;
    pthread_mutex_lock(&o->lock);
    queue_locked(o, b);
    pthread_mutex_unlock(&o->lock);
}

/* ---- packing ----------------------------------------------------------------
 * A sender out of credit toward a peer does not wait: its messages to that
 * peer fill one send buffer (records of an 8-byte length word and the
 * message, padded to 8), sent as one message when a credit comes back (at
 * the next send to that peer or the next poll). Under a flood one credit
 * then carries a buffer of messages instead of one, and what a peer
 * receives stays bounded by its posted buffers. */
#define PACKED 0x2u /* header flag: the payload is packed records */
#define SUB    8u

static size_t sub_bytes(size_t n)
{
    return SUB + ((n + 7) & ~(size_t)7);
}

static void pack(tn_ofi_buf_t *b, const void *head, size_t hn, const void *payload,
                 size_t len)
{
    char *p = b->mem + b->len;
    uint32_t w[2] = {(uint32_t)(hn + len), 0};
    memcpy(p, w, SUB);
    memcpy(p + SUB, head, hn);
    if (len)
        memcpy(p + SUB + hn, payload, len);
    b->len += sub_bytes(hn + len);
}

/* rank's packing buffer's link, or NULL (o->lock held). */
static tn_ofi_buf_t **packing_of(tn_ofi_t *o, int rank)
{
    for (tn_ofi_buf_t **pp = &o->packing; *pp; pp = &(*pp)->next)
        if ((*pp)->rank == rank)
            return pp;
    return NULL;
}

/* Sends the packing buffer at *pp if its peer has a credit (o->lock held):
 * 1 when it went (or was queued behind refused sends). */
static int send_packed_locked(tn_ofi_t *o, tn_ofi_buf_t **pp)
{
    tn_ofi_buf_t *b = *pp;
    if (!take_credit(o, b->rank))
        return 0;
    *pp = b->next;
    seal(o, b, b->len - HDR, PACKED);
    post_locked(o, b);
    atomic_fetch_sub_explicit(&o->npacking, 1, memory_order_release);
    return 1;
}

void tn_ofi_msg_flush(tn_ofi_t *o)
{
    if (!atomic_load_explicit(&o->npacking, memory_order_acquire))
        return;
    pthread_mutex_lock(&o->lock);
    tn_ofi_buf_t **pp = &o->packing;
    while (*pp)
        if (!send_packed_locked(o, pp))
            pp = &(*pp)->next;
    pthread_mutex_unlock(&o->lock);
}

/* No packing buffer toward rank is left (its messages went first), so a
 * message of its own may be sent now: 1, or 0 while one waits for a credit. */
static int packing_gone(tn_ofi_t *o, int rank)
{
    if (!atomic_load_explicit(&o->npacking, memory_order_acquire))
        return 1;
    pthread_mutex_lock(&o->lock);
    tn_ofi_buf_t **pp = packing_of(o, rank);
    int gone = !pp || send_packed_locked(o, pp);
    pthread_mutex_unlock(&o->lock);
    return gone;
}

enum { SENT, RETRY, WAIT };

/* The slow path of a send (some peer has a packing buffer, or rank is out
 * of credit or buffers): into rank's packing buffer, or alone with a credit,
 * or in a new packing buffer; WAIT when none of those is possible now. */
static int send_slow(tn_ofi_t *o, int rank, const void *head, size_t hn,
                     const void *payload, size_t len)
{
    size_t n = hn + len;
    int rc = WAIT;
    pthread_mutex_lock(&o->lock);
    tn_ofi_buf_t **pp = packing_of(o, rank);
    if (pp) {
        tn_ofi_buf_t *b = *pp;
        if (b->len + sub_bytes(n) <= o->msg_buf) {
            pack(b, head, hn, payload, len);
            send_packed_locked(o, pp);
            rc = SENT;
        } else if (send_packed_locked(o, pp)) {
            rc = RETRY; /* full and gone: this message starts afresh */
        }
    } else if (take_credit(o, rank)) {
        tn_ofi_buf_t *b = tx_take_locked(o);
        if (b) {
            b->rank = rank;
            memcpy(b->mem + HDR, head, hn);
            if (len)
                memcpy(b->mem + HDR + hn, payload, len);
            seal(o, b, n, 0);
            post_locked(o, b);
            rc = SENT;
        } else {
            atomic_fetch_add(&o->peers[rank]->credits, 1);
        }
    } else if (HDR + sub_bytes(n) <= o->msg_buf) {
        tn_ofi_buf_t *b = tx_take_locked(o);
        if (b) {
            b->rank = rank;
            b->len = HDR;
            pack(b, head, hn, payload, len);
            b->next = o->packing;
            o->packing = b;
            atomic_fetch_add_explicit(&o->npacking, 1, memory_order_release);
            rc = SENT;
        }
    }
    pthread_mutex_unlock(&o->lock);
    return rc;
}

/* Nothing can be sent toward rank now: TERN_ERR_AGAIN under IMMEDIATE
 * (after one poll unless NOPOLL), else one round of progress (the peer
 * returns credits as its handlers run; everything this rank is owed runs
 * here, the hook drives all). */
static int wait_room(tn_xport_t *x, unsigned flags, tn_wait_t *w, int *polled)
{
    if (flags & TERN_FLAG_IMMEDIATE) {
        if (flags & TN_XPORT_FLAG_NOPOLL)
            return TERN_ERR_AGAIN; /* a handler's Reply: never yields */
        if (*polled || tn_ofi_poll(x) == 0) {
            tn_wait_refused();
            return TERN_ERR_AGAIN;
        }
        *polled = 1;
        return TERN_OK;
    }
    int done = tn_wait_progress_hook ? tn_wait_progress_hook() : tn_ofi_poll(x);
    if (done == 0)
        tn_wait_next(w);
    return TERN_OK;
}

/* A message of at most the provider's inject size (header included) goes
 * by fi_inject, assembled on the stack: no send buffer, and no send
 * completion to reap (for tcp;ofi_rxm, no rxm send buffer either). Only
 * when nothing waits to leave before it (no packing buffer, no refused
 * send queued), with a credit as any message. 1 when sent; 0 with nothing
 * changed (the credit and the returned credits given back) when the
 * provider refuses: the caller sends it the usual way. */
static int try_inject(tn_ofi_t *o, int rank, const void *head, size_t hn,
                      const void *payload, size_t len)
{
    if (atomic_load_explicit(&o->npacking, memory_order_acquire) ||
        atomic_load_explicit(&o->tx_queued, memory_order_acquire) ||
        !take_credit(o, rank))
        return 0;
    uint64_t msg[INJECT_MAX / 8]; /* the caller checked the size */
    size_t n = hn + len;
    wire_hdr_t *h = (wire_hdr_t *)msg;
    memcpy((char *)msg + HDR, head, hn);
    if (len)
        memcpy((char *)msg + HDR + hn, payload, len);
    h->src = o->rank;
    h->len = (uint32_t)n;
    h->credits = credits_out(o, rank);
    h->flags = 0;
    mark_sent(o->peers[rank]);
    h->credits = credits_on_message(o, o->peers[rank], h->credits);
    h->pad = 0;
    TN_PEER_WRITES_BEGIN();
    ssize_t r = fi_inject(o->ep, msg, HDR + n, tn_ofi_faddr(o, rank));
    TN_PEER_WRITES_END();
    if (tn_likely(r == 0))
        return 1;
    if (h->credits)
        atomic_fetch_add(&o->peers[rank]->consumed, h->credits);
    atomic_fetch_add(&o->peers[rank]->credits, 1);
    return 0;
}

static int check_send(tn_ofi_t *o, int rank, size_t n)
{
    if (!o->msg_max)
        return TERN_ERR_UNSUPPORTED;
    if (rank < 0 || rank >= o->size)
        return TERN_ERR_RANK;
    if (n > o->msg_max)
        return TERN_ERR_RANGE;
    return tn_ofi_peer(o, rank); /* first contact: its address */
}

int tn_ofi_msg_prepare(tn_xport_t *x, int rank, size_t n, unsigned flags,
                       tn_xport_msg_t *m)
{
    tn_ofi_t *o = (tn_ofi_t *)x;
    int rc = check_send(o, rank, n);
    if (rc != TERN_OK)
        return rc;
    tn_ofi_buf_t *b;
    tn_wait_t w = TN_WAIT_NET;
    int polled = 0;
    while (!packing_gone(o, rank) || !(b = reserve(o, rank)))
        if ((rc = wait_room(x, flags, &w, &polled)) != TERN_OK)
            return rc;
    b->rank = rank;
    m->buf = b->mem + HDR;
    m->cap = n;
    m->rank = rank;
    m->slot = b;
    return TERN_OK;
}

int tn_ofi_msg_commit(tn_xport_t *x, tn_xport_msg_t *m, size_t n)
{
    tn_wait_net_used(); /* a reply may follow: the waits poll at every step */
    tn_ofi_t *o = (tn_ofi_t *)x;
    tn_ofi_buf_t *b = m->slot;
    seal(o, b, n, 0);
    post(o, b);
    return TERN_OK;
}

int tn_ofi_msg_send(tn_xport_t *x, int rank, const void *head, size_t hn,
                    const void *payload, size_t len, unsigned flags)
{
    tn_wait_net_used(); /* a reply may follow: the waits poll at every step */
    tn_ofi_t *o = (tn_ofi_t *)x;
    size_t n = hn + len;
    int rc = check_send(o, rank, n);
    if (rc != TERN_OK)
        return rc;
    if (HDR + n <= o->inject_size && HDR + n <= INJECT_MAX &&
        try_inject(o, rank, head, hn, payload, len))
        return TERN_OK;
    tn_wait_t w = TN_WAIT_NET;
    int polled = 0;
    for (;;) {
        tn_ofi_buf_t *b;
        if (!atomic_load_explicit(&o->npacking, memory_order_acquire) &&
            (b = reserve(o, rank))) { /* the common case: a credit, no packing */
            b->rank = rank;
            memcpy(b->mem + HDR, head, hn);
            if (len)
                memcpy(b->mem + HDR + hn, payload, len);
            seal(o, b, n, 0);
            post(o, b);
            return TERN_OK;
        }
        int st = send_slow(o, rank, head, hn, payload, len);
        if (st == SENT)
            return TERN_OK;
        if (st == WAIT && (rc = wait_room(x, flags, &w, &polled)) != TERN_OK)
            return rc;
    }
}

/* ---- the credit window of a stream ---------------------------------------
 * A peer that sends here while this rank sends nothing back (a broadcast's
 * child, a one-way flood) gets its credits back on credit-only messages,
 * one per window/2 of its messages: with 8 credits a 4 KiB stream cost
 * each receiver a sendto (a whole loopback TCP send) per 4 messages, and
 * the sender, which stops at 8 messages in flight, a recvfrom, the
 * provider's signal and a wait for every 4 (4-rank broadcast, perf stat:
 * 0.24 sendto per message at each receiver, 0.53 sched_yield per call at
 * the root). So each credit-only return also doubles that peer's window
 * (up to window_max), the added credits travelling with the returned
 * ones: a stream reaches 16 x TERN_AM_NET_CREDITS in flight after four
 * returns. What may arrive beyond the posted receives, and wait in the
 * provider, stays bounded: windows grow only out of grant_left, nrx
 * credits for all peers together (one receive buffer each; the posted set
 * grows to them under a burst), so peers x TERN_AM_NET_CREDITS + nrx
 * messages at most, against peers x TERN_AM_NET_CREDITS before. A stream
 * grows only while it is one-way, and its window shrinks back as soon as
 * this rank sends it messages (credits_on_message), returning the credits
 * to the budget; so streams that go both ways keep TERN_AM_NET_CREDITS, and
 * a one-way stream that starts after others finds the budget again. */

/* Credits to add to rank's window now (0: at its bound, none left, or
 * this rank sent it a message since its credits last went back alone).
 * Only a stream that is one-way grows: where messages go both ways the
 * credits travel on them, and a window grown there was taken out of the
 * budget first come first served (mp.am_hold.net.n3: ranks 0 and 2 got
 * 125 credits at each other and 64-77 at rank 1, rank 1 16 at both; it
 * fell behind and sent the last of its 2 x 10^5 alone, at 16 credits per
 * turn of its receivers on the cores). */
static int grow_window(tn_ofi_t *o, tn_ofi_rkey_t *e)
{
    if (atomic_exchange_explicit(&e->sent_to, 0, memory_order_relaxed))
        return 0;
    int w = atomic_load_explicit(&e->window, memory_order_relaxed);
    long want = w < o->window_max - w ? w : o->window_max - w;
    long left = atomic_load_explicit(&o->grant_left, memory_order_relaxed);
    do {
        if (want <= 0 || left <= 0)
            return 0;
        if (want > left)
            want = left;
    } while (!atomic_compare_exchange_weak_explicit(
        &o->grant_left, &left, left - want, memory_order_relaxed, memory_order_relaxed));
    atomic_fetch_add_explicit(&e->window, (int)want, memory_order_relaxed);
    return (int)want;
}

/* Credits owed to rank go back on a message of their own (no credit is
 * needed for it: the peer posts for it out of the credits it returns),
 * with the window's growth. */
static void return_credits(tn_ofi_t *o, int rank)
{
    if (tn_ofi_peer(o, rank) != TERN_OK)
        return; /* logged; the sender's next message retries */
    if (credits_held(o)) {
        TN_STAT_ADD(net_credits_held, 1);
        return; /* returned when the queue has drained */
    }
    tn_ofi_buf_t *b = tx_take(o);
    if (!b) {
        atomic_store(&o->credits_owed, 1); /* retried by a later poll */
        return;
    }
    tn_ofi_rkey_t *e = o->peers[rank];
    if (atomic_load(&e->consumed) == 0) {
        tx_give(o, b);
        return;
    }
    b->rank = rank;
    seal(o, b, 0, CREDITED);
    int more = grow_window(o, e);
    if (more) {
        ((wire_hdr_t *)b->mem)->credits += (uint16_t)more;
        TN_STAT_ADD(net_window_grown, 1);
        TN_STAT_ADD(net_window_credits, (uint64_t)more);
    }
    post(o, b);
}

/* Handled messages from e after which its credits go back: half its window. */
static int return_due(const tn_ofi_rkey_t *e, int consumed)
{
    return consumed >= atomic_load_explicit(&e->window, memory_order_relaxed) / 2;
}

/* ---- receive buffers kept warm ----------------------------------------------
 * The provider fills posted receives in the order they were posted, so a
 * buffer handled and posted again is filled again only after every other
 * posted one: with all nrx buffers posted (1 MiB by default) every message
 * lands in memory that has left the cache (an 8 KiB ping-pong paid about
 * 1 us for it). So only rx_target buffers stay posted: RX_WARM while the
 * messages that arrive between two polls that find the queue empty (a
 * burst) stay few, doubled (up to nrx) when a burst fills half of them,
 * halved again after RX_CALM small bursts in a row. What arrives beyond the
 * posted buffers waits in the provider, as before (bounded by the credits). */

/* Reposts b, or keeps it back while rx_withhold says the target fell. */
static void rx_done(tn_ofi_t *o, tn_ofi_buf_t *b)
{
    if (tn_unlikely(atomic_load_explicit(&o->rx_withhold, memory_order_relaxed) > 0)) {
        pthread_mutex_lock(&o->lock);
        int kept = atomic_load_explicit(&o->rx_withhold, memory_order_relaxed) > 0;
        if (kept) {
            atomic_fetch_sub_explicit(&o->rx_withhold, 1, memory_order_relaxed);
            b->next = o->rx_spare;
            o->rx_spare = b;
        }
        pthread_mutex_unlock(&o->lock);
        if (kept)
            return;
    }
    if (o->ep && !o->closing)
        post_rx(o, b);
}

/* Sets the number of posted receives to target (o->lock held): more are
 * posted from the spares at once, fewer are kept back as they complete. */
static void rx_resize_locked(tn_ofi_t *o, long target)
{
    long withhold = atomic_load_explicit(&o->rx_withhold, memory_order_relaxed) -
                    (target - atomic_load_explicit(&o->rx_target, memory_order_relaxed));
    for (; withhold < 0 && o->rx_spare; withhold++) {
        tn_ofi_buf_t *b = o->rx_spare;
        o->rx_spare = b->next;
        if (post_rx(o, b) != TERN_OK) { /* logged; kept for a later try */
            b->next = o->rx_spare;
            o->rx_spare = b;
            break;
        }
    }
    tn_debug("ofi: receive buffers posted: %ld -> %ld of %ld",
             atomic_load_explicit(&o->rx_target, memory_order_relaxed),
             withhold < 0 ? target + withhold : target, o->nrx);
    /* Short of spares (or refused): the target is what is posted. */
    atomic_store_explicit(&o->rx_target, withhold < 0 ? target + withhold : target,
                          memory_order_relaxed);
    atomic_store_explicit(&o->rx_withhold, withhold < 0 ? 0 : withhold,
                          memory_order_relaxed);
}

void tn_ofi_msg_rx_load(tn_ofi_t *o, int n, int rx, int batch)
{
    if (n >= batch) { /* more may be waiting: the burst goes on */
        if (rx)
            atomic_fetch_add_explicit(&o->rx_burst, rx, memory_order_relaxed);
        return;
    }
    long burst = rx;
    if (atomic_load_explicit(&o->rx_burst, memory_order_relaxed))
        burst += atomic_exchange_explicit(&o->rx_burst, 0, memory_order_relaxed);
    if (burst == 0)
        return;
    /* A ping-pong at RX_WARM: one load, two compares, no store. */
    long target = atomic_load_explicit(&o->rx_target, memory_order_relaxed);
    int grow = 2 * burst >= target && target < o->nrx;
    if (!grow && 4 * burst >= target) {
        if (atomic_load_explicit(&o->rx_calm, memory_order_relaxed))
            atomic_store_explicit(&o->rx_calm, 0, memory_order_relaxed);
        return;
    }
    if (!grow &&
        (target <= RX_WARM ||
         atomic_fetch_add_explicit(&o->rx_calm, 1, memory_order_relaxed) + 1 < RX_CALM))
        return;
    pthread_mutex_lock(&o->lock);
    target = atomic_load_explicit(&o->rx_target, memory_order_relaxed);
    if (grow && target < o->nrx) {
        rx_resize_locked(o, 2 * target < o->nrx ? 2 * target : o->nrx);
        TN_STAT_ADD(net_rx_grown, 1);
    } else if (!grow && target > RX_WARM) {
        rx_resize_locked(o, target / 2 > RX_WARM ? target / 2 : RX_WARM);
        TN_STAT_ADD(net_rx_shrunk, 1);
    }
    atomic_store_explicit(&o->rx_calm, 0, memory_order_relaxed);
    pthread_mutex_unlock(&o->lock);
}

/* Hands the records of a packed message to fn, each once. */
static void unpack(tn_ofi_t *o, tn_xport_recv_fn fn, int src, char *p, size_t len)
{
    char *end = p + len;
    while ((size_t)(end - p) >= SUB) {
        uint32_t w[2];
        memcpy(w, p, SUB);
        if (w[0] > (size_t)(end - p) - SUB) {
            tn_error("a packed network message from rank %d is malformed: the rest "
                     "dropped",
                     src);
            return;
        }
        fn(o->recv_arg, src, p + SUB, w[0]);
        p += sub_bytes(w[0]);
    }
}

/* Hands the message received in b to core (its credits first), then posts
 * b again and returns credits owed. */
static void rx_handle(tn_ofi_t *o, tn_ofi_buf_t *b)
{
    wire_hdr_t *h = (wire_hdr_t *)b->mem;
    int src = h->src;
    if (src < 0 || src >= o->size) {
        tn_error("a network message names sender %d: dropped", src);
        post_rx(o, b);
        return;
    }
    /* Its entry: made now if this is its first message (the credits go
     * back to it, which needs its address anyway). */
    tn_ofi_rkey_t *e = tn_ofi_peer(o, src) == TERN_OK ? o->peers[src] : NULL;
    if (h->credits && e) {
        atomic_fetch_add(&e->credits, h->credits);
        tn_ofi_msg_flush(o); /* what waited for them goes now */
    }
    /* Read before the buffer is posted again (another thread's poll may
     * then fill it). */
    unsigned flags = h->flags;
    if (!(flags & CREDITED)) {
        tn_xport_recv_fn fn = atomic_load_explicit(&o->recv_fn, memory_order_acquire);
        if (fn && h->len <= o->msg_max && (flags & PACKED))
            unpack(o, fn, src, b->mem + HDR, h->len);
        else if (fn && h->len <= o->msg_max)
            fn(o->recv_arg, src, b->mem + HDR, h->len);
        else
            tn_error("a message of %u bytes from rank %d %s: dropped", h->len, src,
                     fn ? "is larger than any buffer"
                        : "arrived before a receiver was set");
    }
    rx_done(o, b);
    if (!(flags & CREDITED) && e && return_due(e, atomic_fetch_add(&e->consumed, 1) + 1))
        return_credits(o, src);
}

void tn_ofi_msg_completed(tn_ofi_t *o, tn_ofi_ctx_t *ctx, int status, int hold)
{
    tn_ofi_buf_t *b = (tn_ofi_buf_t *)ctx;
    if (ctx->kind == TN_OFI_CTX_TX) {
        if (status != TERN_OK)
            tn_error("a message to rank %d was lost: its send failed", b->rank);
        tx_give(o, b);
        return;
    }
    if (status != TERN_OK) { /* a receive cancelled at close, or failed */
        if (o->ep && !o->closing)
            post_rx(o, b);
        return;
    }
    if (tn_unlikely(hold)) { /* behind those held before */
        tn_trace("ofi: a message received inside a handler waits its turn");
        TN_STAT_ADD(net_held, 1);
        b->next = NULL;
        *o->rx_later_tail = b;
        o->rx_later_tail = &b->next;
        return;
    }
    rx_handle(o, b);
}

int tn_ofi_msg_rx_later(tn_ofi_t *o)
{
    int n = 0;
    tn_ofi_buf_t *b;
    while ((b = o->rx_later) != NULL) {
        /* Unlinked first: its handler may poll again and add more. */
        o->rx_later = b->next;
        if (!o->rx_later)
            o->rx_later_tail = &o->rx_later;
        rx_handle(o, b);
        n++;
    }
    return n;
}

void tn_ofi_msg_poll(tn_ofi_t *o)
{
    if (atomic_load_explicit(&o->tx_queued, memory_order_acquire)) {
        /* In order, up to the first the provider refuses again. */
        pthread_mutex_lock(&o->lock);
        while (o->tx_queue) {
            tn_ofi_buf_t *b = o->tx_queue, *next = b->next;
            if (try_send(o, b, 1) == -FI_EAGAIN)
                break;
            o->tx_queue = next;
        }
        if (!o->tx_queue) {
            o->tx_queue_tail = &o->tx_queue;
            atomic_store_explicit(&o->tx_queued, 0, memory_order_release);
        }
        pthread_mutex_unlock(&o->lock);
    }
    if (atomic_load_explicit(&o->credits_owed, memory_order_relaxed) &&
        atomic_exchange(&o->credits_owed, 0))
        for (int r = 0; r < o->size; r++) {
            tn_ofi_rkey_t *e = __atomic_load_n(&o->peers[r], __ATOMIC_ACQUIRE);
            if (e && return_due(e, atomic_load(&e->consumed)))
                return_credits(o, r);
        }
    tn_ofi_msg_flush(o);
}
