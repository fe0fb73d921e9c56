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
#include "base/log.h"
#include "base/wait.h"
#include "xport/ofi/ofi.h"
#include "xport/ofi/ofi_dl.h"

#define NTX      64 /* send buffers */
#define MIN_RX   16 /* receive buffers at least */
#define HDR      16u
#define CREDITED 0x1u /* header flag: a credit-only message, no payload */

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
        fi_cq_read(o->cq, NULL, 0); /* lets a manual-progress provider move */
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
    o->credit_init = tn_cfg.am_net_credits < 2 ? 2 : (int)tn_cfg.am_net_credits;
    o->rx = calloc((size_t)o->nrx, sizeof(*o->rx));
    o->tx = calloc((size_t)o->ntx, sizeof(*o->tx));
    o->rx_mem = aligned_alloc(64, (size_t)o->nrx * o->msg_buf);
    o->tx_mem = aligned_alloc(64, (size_t)o->ntx * o->msg_buf);
    o->credits = calloc((size_t)o->size, sizeof(*o->credits));
    o->consumed = calloc((size_t)o->size, sizeof(*o->consumed));
    if (!o->rx || !o->tx || !o->rx_mem || !o->tx_mem || !o->credits || !o->consumed)
        return TERN_ERR_NOMEM;
    for (int r = 0; r < o->size; r++)
        atomic_init(&o->credits[r], o->credit_init);
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
    for (long i = 0; i < o->nrx && rc == TERN_OK; i++) {
        o->rx[i].ctx.kind = TN_OFI_CTX_RX;
        o->rx[i].mem = o->rx_mem + (size_t)i * o->msg_buf;
        rc = post_rx(o, &o->rx[i]);
    }
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
    free(o->credits);
    free(o->consumed);
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

static tn_ofi_buf_t *tx_take(tn_ofi_t *o)
{
    pthread_mutex_lock(&o->lock);
    tn_ofi_buf_t *b = o->free_tx;
    if (b)
        o->free_tx = b->next;
    pthread_mutex_unlock(&o->lock);
    return b;
}

static void tx_give(tn_ofi_t *o, tn_ofi_buf_t *b)
{
    pthread_mutex_lock(&o->lock);
    b->next = o->free_tx;
    o->free_tx = b;
    pthread_mutex_unlock(&o->lock);
}

static int take_credit(tn_ofi_t *o, int rank)
{
    int c = atomic_load_explicit(&o->credits[rank], memory_order_relaxed);
    while (c > 0)
        if (atomic_compare_exchange_weak(&o->credits[rank], &c, c - 1))
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
        atomic_fetch_add(&o->credits[rank], 1);
    return b;
}

int tn_ofi_msg_prepare(tn_xport_t *x, int rank, size_t n, unsigned flags,
                       tn_xport_msg_t *m)
{
    tn_ofi_t *o = (tn_ofi_t *)x;
    if (!o->msg_max)
        return TERN_ERR_UNSUPPORTED;
    if (rank < 0 || rank >= o->size)
        return TERN_ERR_RANK;
    if (n > o->msg_max)
        return TERN_ERR_RANGE;
    int pst = tn_ofi_peer(o, rank); /* first contact: its address */
    if (pst != TERN_OK)
        return pst;
    tn_ofi_buf_t *b;
    uint64_t iter = 0;
    while (!(b = reserve(o, rank))) {
        if (flags & TERN_FLAG_IMMEDIATE) {
            if ((flags & TN_XPORT_FLAG_NOPOLL) || tn_ofi_poll(x) == 0 ||
                !(b = reserve(o, rank)))
                return TERN_ERR_AGAIN;
            break;
        }
        /* The peer returns credits as its handlers run; everything this
         * rank is owed meanwhile runs here (the hook drives all). */
        int done = tn_wait_progress_hook ? tn_wait_progress_hook() : tn_ofi_poll(x);
        if (done == 0)
            tn_wait_step(iter++);
    }
    b->rank = rank;
    m->buf = b->mem + HDR;
    m->cap = n;
    m->rank = rank;
    m->slot = b;
    return TERN_OK;
}

/* Posts b (len bytes with header); -FI_EAGAIN puts it on the list that
 * every poll retries (a send from a handler may not poll). */
static void send_or_queue(tn_ofi_t *o, tn_ofi_buf_t *b)
{
    ssize_t r =
        fi_send(o->ep, b->mem, b->len, desc_of(o, o->tx_mr), o->fi_addrs[b->rank], b);
    if (r == 0)
        return;
    if (r != -FI_EAGAIN) {
        tn_error("libfabric fi_send of a %zu-byte message to rank %d failed: %s", b->len,
                 b->rank, tn_fi.strerror((int)-r));
        tx_give(o, b);
        return;
    }
    pthread_mutex_lock(&o->lock);
    b->next = NULL;
    *o->tx_queue_tail = b;
    o->tx_queue_tail = &b->next;
    atomic_store_explicit(&o->tx_queued, 1, memory_order_relaxed);
    pthread_mutex_unlock(&o->lock);
}

int tn_ofi_msg_commit(tn_xport_t *x, tn_xport_msg_t *m, size_t n)
{
    tn_ofi_t *o = (tn_ofi_t *)x;
    tn_ofi_buf_t *b = m->slot;
    wire_hdr_t *h = (wire_hdr_t *)b->mem;
    h->src = o->rank;
    h->len = (uint32_t)n;
    h->credits = (uint16_t)atomic_exchange(&o->consumed[b->rank], 0);
    h->flags = 0;
    b->len = HDR + n;
    send_or_queue(o, b);
    return TERN_OK;
}

/* Credits owed to rank go back on a message of their own (no credit is
 * needed for it: the peer posts for it out of the credits it returns). */
static void return_credits(tn_ofi_t *o, int rank)
{
    if (tn_ofi_peer(o, rank) != TERN_OK)
        return; /* logged; the sender's next message retries */
    tn_ofi_buf_t *b = tx_take(o);
    if (!b) {
        atomic_store(&o->credits_owed, 1); /* retried by a later poll */
        return;
    }
    int c = atomic_exchange(&o->consumed[rank], 0);
    if (c == 0) {
        tx_give(o, b);
        return;
    }
    wire_hdr_t *h = (wire_hdr_t *)b->mem;
    h->src = o->rank;
    h->len = 0;
    h->credits = (uint16_t)c;
    h->flags = CREDITED;
    b->rank = rank;
    b->len = HDR;
    send_or_queue(o, b);
}

void tn_ofi_msg_completed(tn_ofi_t *o, tn_ofi_ctx_t *ctx, int status)
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
    wire_hdr_t *h = (wire_hdr_t *)b->mem;
    int src = h->src;
    if (src < 0 || src >= o->size) {
        tn_error("a network message names sender %d: dropped", src);
        post_rx(o, b);
        return;
    }
    if (h->credits)
        atomic_fetch_add(&o->credits[src], h->credits);
    if (!(h->flags & CREDITED)) {
        tn_xport_recv_fn fn = atomic_load_explicit(&o->recv_fn, memory_order_acquire);
        if (fn && h->len <= o->msg_max)
            fn(o->recv_arg, src, b->mem + HDR, h->len);
        else
            tn_error("a message of %u bytes from rank %d %s: dropped", h->len, src,
                     fn ? "is larger than any buffer"
                        : "arrived before a receiver was set");
    }
    post_rx(o, b);
    if (!(h->flags & CREDITED) &&
        atomic_fetch_add(&o->consumed[src], 1) + 1 >= o->credit_init / 2)
        return_credits(o, src);
}

void tn_ofi_msg_poll(tn_ofi_t *o)
{
    if (atomic_load_explicit(&o->tx_queued, memory_order_relaxed)) {
        pthread_mutex_lock(&o->lock);
        tn_ofi_buf_t *q = o->tx_queue;
        o->tx_queue = NULL;
        o->tx_queue_tail = &o->tx_queue;
        atomic_store_explicit(&o->tx_queued, 0, memory_order_relaxed);
        pthread_mutex_unlock(&o->lock);
        while (q) {
            tn_ofi_buf_t *next = q->next;
            send_or_queue(o, q);
            q = next;
        }
    }
    if (atomic_exchange(&o->credits_owed, 0))
        for (int r = 0; r < o->size; r++)
            if (atomic_load(&o->consumed[r]) >= o->credit_init / 2)
                return_credits(o, r);
}
