/* RMA over libfabric: a bounded pool of operation descriptors, writes and
 * reads fragmented to the provider's maximum message, each fragment's end
 * (and its error) reported into the caller's completion objects. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <tern/status.h>
#include <tern.h>

#include "base/compiler.h"
#include "base/log.h"
#include "base/stats.h"
#include "base/wait.h"
#include "xport/ofi/ofi.h"
#include "xport/ofi/ofi_dl.h"

/* Remote completion by a read. A put that the caller completes locally
 * first (nbi, a blocking put returning early, an event for each part) is
 * issued without FI_DELIVERY_COMPLETE: an inject write has no completion
 * at all, a larger one completes when sent. Its remote part waits in
 * o->awaiting until a read of 8 bytes from the same peer, posted after
 * it, completes: with FI_ORDER_RMA_RAW the target handles that read after
 * every write before it, so its data back means they are in place. Poll
 * posts the reads, one in flight per rank, each covering every put of
 * that rank waiting then; a quiet after N puts costs one round trip
 * instead of N acknowledgements, each a system call at both ends on tcp
 * (docs/design/net-put.md). The puts' descriptors stay taken until their
 * read completes, which bounds what waits by TERN_OFI_TX_DEPTH. */
static int flush_possible(const tn_ofi_t *o)
{
    const struct fi_info *i = o->info;
    if (o->fault.no_order || !(i->caps & FI_READ))
        return 0;
    uint64_t both = i->tx_attr->msg_order & i->rx_attr->msg_order;
#ifdef FI_ORDER_RMA_RAW
    if (both & FI_ORDER_RMA_RAW)
        return 1;
#endif
    return (both & FI_ORDER_RAW) && i->ep_attr->max_order_raw_size >= o->max_msg;
}

int tn_ofi_op_pool_create(tn_ofi_t *o)
{
    o->ops = calloc((size_t)o->nops, sizeof(*o->ops));
    if (!o->ops) {
        tn_error("no memory for %ld network operation descriptors of %zu bytes: "
                 "lower TERN_OFI_TX_DEPTH",
                 o->nops, sizeof(*o->ops));
        return TERN_ERR_NOMEM;
    }
    o->flush_ok = flush_possible(o);
    if (o->put_bounce > TN_OFI_PUT_BOUNCE_MAX) {
        tn_error("TERN_OFI_PUT_BOUNCE=%zu is above %d: its slots (one per operation "
                 "in flight, %ld) would take %zu MiB; lower TERN_OFI_PUT_BOUNCE (larger "
                 "puts are locally complete once sent)",
                 o->put_bounce, TN_OFI_PUT_BOUNCE_MAX, o->nops,
                 (size_t)o->nops * (o->put_bounce >> 20));
        return TERN_ERR_CONFIG;
    }
    if (!o->flush_ok || o->put_bounce <= o->inject_size)
        o->put_bounce = 0; /* nothing would be copied */
    o->slot = o->mr_local ? TN_OFI_BOUNCE : 0;
    if (o->put_bounce > o->slot)
        o->slot = (o->put_bounce + 63) & ~(size_t)63;
    if (o->slot) {
        o->bounce =
            aligned_alloc(4096, ((size_t)o->nops * o->slot + 4095) & ~(size_t)4095);
        if (!o->bounce) {
            tn_error("no memory for the bounce buffers of %ld network operations in "
                     "flight, %zu bytes each: lower TERN_OFI_TX_DEPTH or "
                     "TERN_OFI_PUT_BOUNCE",
                     o->nops, o->slot);
            return TERN_ERR_NOMEM;
        }
    }
    if (o->mr_local) {
        int rc = fi_mr_reg(o->domain, o->bounce, (size_t)o->nops * o->slot,
                           FI_READ | FI_WRITE, 0, 2, 0, &o->bounce_mr, NULL);
        if (rc) {
            tn_error("libfabric fi_mr_reg of the bounce buffers failed: %s",
                     tn_fi.strerror(-rc));
            return TERN_ERR_SYS;
        }
        if (o->info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
            fi_mr_bind(o->bounce_mr, &o->ep->fid, 0);
            fi_mr_enable(o->bounce_mr);
        }
    }
    for (long i = 0; i < o->nops; i++) {
        o->ops[i].bounce = o->bounce ? o->bounce + i * o->slot : NULL;
        o->ops[i].next = i + 1 < o->nops ? &o->ops[i + 1] : NULL;
    }
    o->free_ops = o->ops;
    return TERN_OK;
}

void tn_ofi_op_pool_destroy(tn_ofi_t *o)
{
    if (o->bounce_mr)
        fi_close(&o->bounce_mr->fid);
    free(o->bounce);
    free(o->ops);
    o->ops = o->free_ops = NULL;
}

static tn_ofi_op_t *op_take(tn_ofi_t *o)
{
    pthread_mutex_lock(&o->lock);
    tn_ofi_op_t *op = o->free_ops;
    if (op) {
        o->free_ops = op->next;
        o->inflight++;
    }
    pthread_mutex_unlock(&o->lock);
    return op;
}

void tn_ofi_op_give(tn_ofi_t *o, tn_ofi_op_t *op)
{
    if (op->tmp_mr)
        tn_ofi_mr_release(o, op->tmp_mr);
    op->tmp_mr = NULL;
    if (op->counted) /* before its remote part ends: a put after quiet sees 0 */
        atomic_fetch_sub_explicit(&o->peers[op->rank]->pending, 1, memory_order_release);
    op->counted = 0;
    op->lc = op->rc = NULL;
    op->copy_out = NULL;
    op->is_amo = 0;
    op->lazy = op->flush = 0;
    pthread_mutex_lock(&o->lock);
    op->next = o->free_ops;
    o->free_ops = op;
    o->inflight--;
    pthread_mutex_unlock(&o->lock);
}

static void end_part(tn_comp_t *c, int status)
{
    if (c)
        tn_comp_done(c, status);
}

/* A put issued lazily is locally complete: its descriptor waits, with its
 * remote part, for a flush read (under lock; poll posts the read). Poll is
 * told only when no read to that rank is in flight: the end of that read
 * tells it otherwise, so a stream of puts does not rescan the list. */
static void await_flush(tn_ofi_t *o, tn_ofi_op_t *op)
{
    pthread_mutex_lock(&o->lock);
    op->next = o->awaiting;
    o->awaiting = op;
    int due = !o->peers[op->rank]->flushing;
    pthread_mutex_unlock(&o->lock);
    if (due)
        atomic_store_explicit(&o->flush_due, 1, memory_order_release);
}

/* The flush read op ended: every put it covers is complete at the target
 * (or failed with it). */
static void flushed(tn_ofi_t *o, tn_ofi_op_t *op, int status)
{
    pthread_mutex_lock(&o->lock);
    o->peers[op->rank]->flushing = 0;
    int more = o->awaiting != NULL;
    pthread_mutex_unlock(&o->lock);
    if (more) /* puts came in meanwhile: the next read covers them */
        atomic_store_explicit(&o->flush_due, 1, memory_order_release);
    for (tn_ofi_op_t *x = op, *next; x; x = next) {
        next = x->next; /* the chain; give reuses the link */
        tn_comp_t *rc = x->rc;
        tn_ofi_op_give(o, x);
        end_part(rc, status);
    }
}

static void complete(tn_ofi_t *o, tn_ofi_op_t *op, int status)
{
    if (status != TERN_OK)
        TN_STAT_ADD(net_failed, 1);
    if (op->flush) {
        flushed(o, op, status);
        return;
    }
    if (op->lazy && status == TERN_OK) { /* sent: the read learns the rest */
        tn_comp_t *lc = op->lc;
        op->lc = NULL;
        await_flush(o, op);
        end_part(lc, TERN_OK);
        return;
    }
    if (op->copy_out && status == TERN_OK)
        memcpy(op->copy_out, op->copy_from, op->copy_len);
    tn_comp_t *lc = op->lc, *rc = op->rc;
    tn_ofi_op_give(o, op);
    end_part(lc, status);
    end_part(rc, status);
}

/* A failed completion's status: the peer's side went away, or something
 * else the log names. */
static int completion_status(int fi_err)
{
    switch (fi_err) {
    case FI_ECONNREFUSED:
    case FI_ECONNRESET:
    case FI_ECONNABORTED:
    case FI_ENOTCONN:
    case FI_EHOSTUNREACH:
    case FI_ETIMEDOUT:
    case FI_EIO: return TERN_ERR_PEER;
    default: return tn_ofi_status(-fi_err);
    }
}

static const char *op_what(const tn_ofi_op_t *op)
{
    return op->is_amo ? "atomic" : op->flush ? "flush read" : op->is_get ? "get" : "put";
}

/* TERN_TEST_FAULT: 1 when the count-th event of this kind must fail. */
int tn_ofi_fault_now(_Atomic long *count, long every)
{
    return every > 0 && atomic_fetch_add(count, 1) % every == every - 1;
}

/* One read or write of len bytes between local (described by desc) and
 * raddr/key at rank, its completion reported with context. */
static ssize_t rma_post(tn_ofi_t *o, int is_get, int rank, const void *local, void *desc,
                        uint64_t raddr, uint64_t key, size_t len, void *context,
                        uint64_t fl, uint64_t data)
{
    struct iovec iov = {.iov_base = (void *)local, .iov_len = len};
    struct fi_rma_iov riov = {.addr = raddr, .len = len, .key = key};
    struct fi_msg_rma msg = {.msg_iov = &iov,
                             .desc = &desc,
                             .iov_count = 1,
                             .addr = tn_ofi_faddr(o, rank),
                             .rma_iov = &riov,
                             .rma_iov_count = 1,
                             .context = context,
                             .data = data};
    return is_get ? fi_readmsg(o->ep, &msg, fl) : fi_writemsg(o->ep, &msg, fl);
}

/* Posts the flush read of carrier->rank (8 bytes of the start of its
 * registration into the descriptor's own scratch or bounce slot). */
static ssize_t flush_post(tn_ofi_t *o, tn_ofi_op_t *carrier)
{
    int rank = carrier->rank;
    void *desc = o->mr_local ? fi_mr_desc(o->bounce_mr) : NULL;
    void *into = o->mr_local ? (void *)carrier->bounce : (void *)carrier->scratch;
    const void *start = (const void *)(uintptr_t)o->peers[rank]->map_base;
    return rma_post(o, 1, rank, into, desc, tn_ofi_raddr(o, rank, start, TN_REGION_SEG),
                    tn_ofi_rkey(o, rank, TN_REGION_SEG), 8, carrier, FI_COMPLETION, 0);
}

/* Posts a flush read for every rank with puts awaiting one and none in
 * flight. A read the provider refuses for now (-FI_EAGAIN) puts its puts
 * back for a later poll; one that fails ends them with the error. */
static void flush_issue(tn_ofi_t *o)
{
    if (!atomic_exchange_explicit(&o->flush_due, 0, memory_order_acquire))
        return;
    pthread_mutex_lock(&o->lock);
    for (;;) {
        tn_ofi_op_t *carrier = NULL, **p;
        for (p = &o->awaiting; *p && !carrier; p = &(*p)->next)
            if (!o->peers[(*p)->rank]->flushing)
                carrier = *p;
        if (!carrier)
            break;
        /* Every put of that rank waiting now goes with the read. */
        int rank = carrier->rank;
        tn_ofi_op_t *chain = NULL;
        for (p = &o->awaiting; *p;) {
            tn_ofi_op_t *x = *p;
            if (x->rank != rank) {
                p = &x->next;
                continue;
            }
            *p = x->next;
            if (x != carrier) {
                x->next = chain;
                chain = x;
            }
        }
        carrier->next = chain;
        carrier->flush = 1;
        o->peers[rank]->flushing = 1;
        pthread_mutex_unlock(&o->lock);
        TN_PEER_WRITES_BEGIN();
        ssize_t r = flush_post(o, carrier);
        TN_PEER_WRITES_END();
        if (r == 0) {
            TN_STAT_ADD(net_flush_reads, 1);
            pthread_mutex_lock(&o->lock);
            continue;
        }
        if (r != -FI_EAGAIN) {
            tn_error("libfabric fi_readmsg (the read that completes earlier puts "
                     "to rank %d) failed: %s",
                     carrier->rank, tn_fi.strerror((int)-r));
            flushed(o, carrier, tn_ofi_status((int)r));
            pthread_mutex_lock(&o->lock);
            continue;
        }
        pthread_mutex_lock(&o->lock); /* later: back where it waited */
        o->peers[rank]->flushing = 0;
        carrier->flush = 0;
        tn_ofi_op_t *last = carrier;
        while (last->next)
            last = last->next;
        last->next = o->awaiting;
        o->awaiting = carrier;
        atomic_store_explicit(&o->flush_due, 1, memory_order_relaxed);
        break;
    }
    pthread_mutex_unlock(&o->lock);
}

/* TN_XPORT_FLAG_SIGNAL: where a signalled write's remote CQ data says,
 * the word of this rank's mapping raised: the write's data is in place
 * (the provider reports the completion after it). The data: the word's
 * offset from the mapping's start in 4-byte words (high half), the
 * value (low half); see signal_data. A word beyond the mapping ends this
 * process (its launcher then ends the job): the signal cannot be raised,
 * and dropping it would leave its waiter waiting for ever. The sender
 * refuses such a word (signal_data, against the size this rank
 * published), so only a corrupted write gets here. */
static TN_NOINLINE void signal_arrived(tn_ofi_t *o, uint64_t data)
{
    uint64_t off = (data >> 32) * 4;
    if (off + sizeof(uint32_t) > o->map_size)
        tn_fatal(1,
                 "ofi: a signalled write's signal word is at byte %llu, beyond this "
                 "rank's mapping of %zu B: the signal cannot be raised and its "
                 "waiter would wait for ever; ending the job",
                 (unsigned long long)off, o->map_size);
    tn_xport_signal_raise((_Atomic uint32_t *)((char *)o->map + off), (uint32_t)data);
}

/* The completions the queue holds, read and handled (nested: received
 * messages held back, see tn_ofi_poll). */
static int poll_cq(tn_ofi_t *o, int nested)
{
    enum { BATCH = 16 };
    struct fi_cq_data_entry e[BATCH];
    TN_PEER_WRITES_BEGIN();
    ssize_t n = fi_cq_read(o->cq, e, BATCH);
    TN_PEER_WRITES_END();
    if (n > 0) {
        tn_trace("ofi: %zd completion(s)", n);
        int rx = 0;
        for (ssize_t i = 0; i < n; i++) {
            if (tn_unlikely(e[i].flags & FI_REMOTE_CQ_DATA)) { /* no context */
                signal_arrived(o, e[i].data);
                continue;
            }
            tn_ofi_ctx_t *ctx = e[i].op_context;
            if (ctx->kind != TN_OFI_CTX_RMA) {
                rx += ctx->kind == TN_OFI_CTX_RX;
                tn_ofi_msg_completed(o, ctx, TERN_OK, nested);
                continue;
            }
            tn_ofi_op_t *op = e[i].op_context;
            int st = TERN_OK;
            if (!op->ctrl &&
                tn_ofi_fault_now(&o->fault.completions, o->fault.complete_every)) {
                tn_error("%s with rank %d failed: fault injected at completion "
                         "(TERN_TEST_FAULT)",
                         op_what(op), op->rank);
                st = TERN_ERR_PEER;
            }
            complete(o, op, st);
        }
        if (o->msg_max)
            tn_ofi_msg_rx_load(o, (int)n, rx, BATCH);
        return (int)n;
    }
    /* Drained: a burst ends (an empty read with no burst counted leaves
     * the receive load as it is: no call). */
    if (n == -FI_EAGAIN && o->msg_max &&
        atomic_load_explicit(&o->rx_burst, memory_order_relaxed))
        tn_ofi_msg_rx_load(o, 0, 0, BATCH);
    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        if (fi_cq_readerr(o->cq, &err, 0) == 1) {
            tn_ofi_ctx_t *ctx = err.op_context;
            if (ctx && ctx->kind != TN_OFI_CTX_RMA) {
                if (!o->closing || err.err != FI_ECANCELED)
                    tn_error("a message %s failed: %s",
                             ctx->kind == TN_OFI_CTX_TX ? "send" : "receive",
                             tn_fi.strerror(err.err));
                tn_ofi_msg_completed(o, ctx, completion_status(err.err), nested);
                return 1;
            }
            tn_ofi_op_t *op = err.op_context;
            if (!op) { /* a write without completion (ofi_setup.c, guard_injects) */
                tn_error("a write without completion (fi_inject_write) failed: %s (%s): "
                         "its target rank has probably left the job",
                         tn_fi.strerror(err.err),
                         fi_cq_strerror(o->cq, err.prov_errno, err.err_data, NULL, 0));
                return 1;
            }
            tn_error("%s with rank %d failed: %s (%s)", op_what(op), op->rank,
                     tn_fi.strerror(err.err),
                     fi_cq_strerror(o->cq, err.prov_errno, err.err_data, NULL, 0));
            complete(o, op, completion_status(err.err));
            return 1;
        }
    }
    return 0;
}

/* The thread reading a transport's completion queue, for the poll that
 * a handler's RMA call may make again on that thread. */
static TN_TLS_FAST _Thread_local tn_ofi_t *cq_reader;

/* Another thread reads the queue: wait a little for its turn to end (a
 * batch and its handlers) rather than report no progress at once, which
 * would send a waiting caller to sleep while that thread handles what it
 * waits for (the node oversubscribed: yield, so that the reader runs).
 * 1 when taken. */
static TN_NOINLINE int cq_take_slow(tn_ofi_t *o)
{
    for (int spin = 0; spin < 64; spin++) {
        if (spin < 16)
            tn_cpu_relax();
        else
            sched_yield();
        if (!atomic_load_explicit(&o->cq_busy, memory_order_relaxed) &&
            !atomic_exchange_explicit(&o->cq_busy, 1, memory_order_acquire))
            return 1;
    }
    return 0;
}

/* Completions read without handing received messages over (held in
 * rx_later, handed over by the next full poll before anything newer):
 * the poll of the thread already reading the queue (from a handler), or
 * of RMA that must not wait (tn_ofi_no_handlers), which takes the queue
 * only if no other thread reads it. Flush reads and queued RMA are issued
 * here too: a handler's puts wait for them, and they need no handler. */
static TN_NOINLINE int poll_reap(tn_ofi_t *o)
{
    int done = 0;
    if (cq_reader == o) {
        done = poll_cq(o, 1);
    } else if (!atomic_load_explicit(&o->cq_busy, memory_order_relaxed) &&
               !atomic_exchange_explicit(&o->cq_busy, 1, memory_order_acquire)) {
        cq_reader = o;
        done = poll_cq(o, 1);
        cq_reader = NULL;
        atomic_store_explicit(&o->cq_busy, 0, memory_order_release);
    }
    if (atomic_load_explicit(&o->flush_due, memory_order_relaxed))
        flush_issue(o);
    if (atomic_load_explicit(&o->ndefer, memory_order_relaxed))
        done += tn_ofi_defer_issue(o);
    return done;
}

/* One thread at a time reads the completion queue and handles what it
 * brings, so that the messages of one peer are handed to core (its
 * handlers run) one at a time and in the order the provider delivered
 * them, whatever the number of polling threads (TERN_THREAD_MULTIPLE, the
 * progress thread). A poller that finds another at work waits a bounded
 * while for its turn, then returns 0 (that one handles every completion,
 * this thread's too). A poll made again by the reading thread (from a
 * handler) or by RMA that must not wait holds received messages back
 * (poll_reap). Cost: one exchange per poll. */
int tn_ofi_poll(tn_xport_t *x)
{
    tn_ofi_t *o = (tn_ofi_t *)x;
    if (o->msg_max && tn_ofi_msg_due(o))
        tn_ofi_msg_poll(o);
    if (tn_unlikely(cq_reader == o || tn_ofi_no_handlers))
        return poll_reap(o);
    if (tn_unlikely(atomic_load_explicit(&o->cq_busy, memory_order_relaxed) ||
                    atomic_exchange_explicit(&o->cq_busy, 1, memory_order_acquire)) &&
        !cq_take_slow(o))
        return 0;
    cq_reader = o;
    int done = 0;
    if (tn_unlikely(o->rx_later != NULL)) /* held outside a poll: they came first */
        done += tn_ofi_msg_rx_later(o);
    done += poll_cq(o, 0);
    if (tn_unlikely(o->rx_later != NULL))
        done += tn_ofi_msg_rx_later(o);
    cq_reader = NULL;
    atomic_store_explicit(&o->cq_busy, 0, memory_order_release);
    if (atomic_load_explicit(&o->flush_due, memory_order_relaxed))
        flush_issue(o);
    if (tn_unlikely(atomic_load_explicit(&o->ndefer, memory_order_relaxed)))
        done += tn_ofi_defer_issue(o);
    return done;
}

/* Takes a descriptor, driving progress while none is free. With IMMEDIATE
 * it polls once before refusing (NULL), so that a caller retrying in a
 * loop sees its earlier operations complete (issue 14: a refusal that made
 * no progress could be retried forever). A blocking wait holds credits
 * back (tn_ofi_msg_hold) as the wait for queued handlers' RMA does: its
 * polls run handlers whose RMA, queued, takes each descriptor that frees
 * before this caller can, for as long as peers keep sending. */
tn_ofi_op_t *tn_ofi_op_wait(tn_ofi_t *o, unsigned flags)
{
    tn_wait_t w = TN_WAIT_NET;
    tn_ofi_op_t *op;
    int held = 0;
    while (!(op = op_take(o))) {
        int done = tn_ofi_poll(&o->base);
        if (flags & TERN_FLAG_IMMEDIATE) {
            if (done > 0)
                return op_take(o);
            tn_wait_refused();
            return NULL;
        }
        if (!held) {
            tn_ofi_msg_hold(o, 1);
            held = 1;
        }
        if (done == 0)
            tn_wait_next(&w);
    }
    if (held)
        tn_ofi_msg_hold(o, 0);
    return op;
}

/* Local completion at once. A lazy put (above) longer than the inject
 * size but at most put_bounce (TERN_OFI_PUT_BOUNCE) is copied into its
 * descriptor's bounce slot and posted with FI_INJECT_COMPLETE: its source
 * is reusable when the call returns, so a blocking put on a none or
 * partial context, or libtshmem's blocking put, returns without waiting
 * for the provider. A longer lazy put is locally complete at its
 * FI_INJECT_COMPLETE completion: the provider no longer needs the source
 * (tcp: the bytes are in the socket), which is the caller's local
 * completion exactly; FI_TRANSMIT_COMPLETE, asked before, made tcp
 * acknowledge every write, a round trip. Either way the remote part
 * waits for a flush read. The slot stays with its descriptor until that
 * read completes. (docs/design/net-put.md) */

/* Local descriptor for [buf, buf+len) and the buffer to post: the op's
 * bounce slot up to bounce_max (data copied in for puts; *bounced set),
 * else where the provider needs a descriptor the segment's registration,
 * the bounce slot up to TN_OFI_BOUNCE, or a registration of the buffer
 * from tn_ofi_mr_acquire (released in op_give). */
static int local_desc(tn_ofi_t *o, tn_ofi_op_t *op, const void *buf, size_t len,
                      int is_get, size_t bounce_max, void **desc, const void **use,
                      int *bounced)
{
    *desc = NULL;
    *use = buf;
    *bounced = 0;
    if (!o->mr_local && len > bounce_max)
        return TERN_OK;
    uintptr_t b = (uintptr_t)buf, m = (uintptr_t)o->map;
    if (len > bounce_max && b >= m && b + len <= m + o->map_size) {
        *desc = o->mr_desc;
        return TERN_OK;
    }
    if (len <= bounce_max || len <= TN_OFI_BOUNCE) {
        if (!is_get)
            memcpy(op->bounce, buf, len);
        *use = op->bounce;
        *desc = o->mr_local ? fi_mr_desc(o->bounce_mr) : NULL;
        *bounced = 1;
        return TERN_OK;
    }
    int rc = tn_ofi_mr_acquire(o, buf, len, is_get ? FI_READ : FI_WRITE, &op->tmp_mr);
    if (rc != TERN_OK)
        return rc;
    *desc = fi_mr_desc(op->tmp_mr);
    return TERN_OK;
}

/* The first put acknowledged. A lazy put that is locally complete in the
 * call (inject size, or copied to its bounce slot) and finds no lazy put
 * of its rank pending (peer->pending 0: none awaits a flush read, none is
 * acknowledged yet) goes with FI_DELIVERY_COMPLETE: its completion ends
 * its remote part, and no flush read is needed for it. Later ones, while
 * it is pending, go lazy as above. A quiet after one small put thus waits
 * for one acknowledgement (one round trip: the write, its ack) instead of
 * an unacknowledged write and a flush read (two messages out, one back:
 * on loopback tcp about twice the time, docs/design/net-put.md, "The
 * first put acknowledged"); after several puts it waits for the ack and
 * one read, in flight side by side. A stream of puts finds its rank
 * pending nearly always and goes lazy. The count drops in op_give, before
 * the put's remote part ends, so a put after a quiet finds 0.
 * TERN_TEST_FAULT=noack leaves every lazy put lazy (the path alone). */

/* One fragment: a write or read of len bytes. Returns TERN_OK or
 * TERN_ERR_AGAIN (IMMEDIATE and the first fragment only) or an error. */
static int issue(tn_ofi_t *o, int is_get, int rank, void *local, uint64_t raddr,
                 uint64_t key, size_t len, tn_comp_t *lc, tn_comp_t *rc, unsigned flags,
                 uint64_t data)
{
    tn_wait_net_used(); /* a reply may follow: the waits poll at every step */
    tn_ofi_op_t *op = tn_ofi_op_wait(o, flags);
    if (!op)
        return TERN_ERR_AGAIN;
    op->rank = rank;
    op->is_get = is_get;
    op->ctrl = (flags & TN_XPORT_FLAG_CTRL) != 0;
    op->lc = lc;
    op->rc = rc;
    /* The caller counts local completion apart: the remote part can wait
     * for a flush read ("Remote completion by a read" above). */
    int lazy = !is_get && lc && rc && o->flush_ok && !op->ctrl;
    /* No remote completion at all ("No remote completion" below). */
    int noremote = !is_get && (flags & TN_XPORT_FLAG_NOREMOTE);
    void *desc;
    const void *use;
    int bounced;
    size_t bounce_max = lazy && len > o->inject_size ? o->put_bounce : 0;
    int st = local_desc(o, op, local, len, is_get, bounce_max, &desc, &use, &bounced);
    if (st != TERN_OK) {
        tn_ofi_op_give(o, op);
        return st;
    }
    if (is_get && bounced) {
        op->copy_from = op->bounce;
        op->copy_out = local;
        op->copy_len = len;
    }
    uint64_t fl = FI_COMPLETION;
    int signal = (flags & TN_XPORT_FLAG_SIGNAL) != 0; /* with remote CQ data */
    if (signal)
        fl |= FI_REMOTE_CQ_DATA;
    int early_lc = 0;
    int silent = 0; /* fi_inject_write: no completion at all */
    if (!is_get) {
        if (len <= o->inject_size) {
            fl |= FI_INJECT; /* source reusable when the call returns */
            early_lc = 1;
        }
        early_lc |= bounced;
        if (noremote && (fl & FI_INJECT))
            silent = 2; /* nothing waits for it at all */
        else if (noremote)
            fl |= FI_INJECT_COMPLETE; /* lc only: no acknowledgement */
        else if (!lazy)
            fl |= FI_DELIVERY_COMPLETE;
        else if (fl & FI_INJECT)
            silent = 1;
        else /* "Local completion at once" above */
            fl |= FI_INJECT_COMPLETE;
    }
    /* "The first put acknowledged" (above): a lazy put that
     * is locally complete in the call and finds nothing of its rank's
     * pending goes with FI_DELIVERY_COMPLETE instead. */
    if (lazy) {
        int was =
            atomic_fetch_add_explicit(&o->peers[rank]->pending, 1, memory_order_acq_rel);
        op->counted = 1;
        if (was == 0 && early_lc && !o->fault.no_ack) {
            lazy = 0;
            silent = 0;
            fl = (fl & ~FI_INJECT_COMPLETE) | FI_DELIVERY_COMPLETE;
            TN_STAT_ADD(net_put_acked, 1);
        }
    }
    /* The op belongs to whichever thread completes it once it is posted:
     * decide before posting that its completion counts remote delivery
     * only (a progress thread may complete and reuse it at once), or that
     * it then waits for a flush read. */
    if (early_lc)
        op->lc = NULL;
    op->lazy = lazy;
    uint64_t iter = 0; /* retries */
    tn_wait_t w = TN_WAIT_NET;
    if (!(flags & TN_XPORT_FLAG_CTRL) &&
        tn_ofi_fault_now(&o->fault.issues, o->fault.issue_every)) {
        tn_ofi_op_give(o, op);
        tn_error("libfabric %s of %zu bytes to rank %d failed: fault injected at "
                 "issue (TERN_TEST_FAULT)",
                 is_get ? "fi_readmsg" : "fi_writemsg", len, rank);
        return TERN_ERR_SYS;
    }
    for (;;) {
        ssize_t r;
        TN_PEER_WRITES_BEGIN(); /* the provider may progress inside a post too */
        if (!silent)
            r = rma_post(o, is_get, rank, use, desc, raddr, key, len, op, fl, data);
        else if (signal)
            r = fi_inject_writedata(o->ep, use, len, data, tn_ofi_faddr(o, rank), raddr,
                                    key);
        else
            r = fi_inject_write(o->ep, use, len, tn_ofi_faddr(o, rank), raddr, key);
        TN_PEER_WRITES_END();
        if (r == 0) {
            tn_trace("ofi: %s of %zu B to rank %d at 0x%llx key %llu issued after %llu "
                     "retries",
                     is_get ? "read" : "write", len, rank, (unsigned long long)raddr,
                     (unsigned long long)key, (unsigned long long)iter);
            break;
        }
        if (r != -FI_EAGAIN) {
            tn_ofi_op_give(o, op);
            tn_error("libfabric %s of %zu bytes to rank %d failed: %s",
                     is_get   ? "fi_readmsg"
                     : silent ? (signal ? "fi_inject_writedata" : "fi_inject_write")
                              : "fi_writemsg",
                     len, rank, tn_fi.strerror((int)-r));
            return tn_ofi_status((int)r);
        }
        /* IMMEDIATE (also every issue from a handler or the deferred
         * queue): one more try after a poll that made progress, then
         * refused; never a loop of polls (as tn_ofi_amo). */
        if ((flags & TERN_FLAG_IMMEDIATE) && (iter > 0 || tn_ofi_poll(&o->base) == 0)) {
            tn_ofi_op_give(o, op);
            tn_wait_refused();
            return TERN_ERR_AGAIN;
        }
        TN_STAT_ADD(net_retries, 1);
        if (!(flags & TERN_FLAG_IMMEDIATE) && tn_ofi_poll(&o->base) == 0)
            tn_wait_next(&w);
        iter++;
    }
    if (silent == 1) /* no completion will come: it waits for a flush now */
        await_flush(o, op);
    else if (silent) /* nor anything else */
        tn_ofi_op_give(o, op);
    if (early_lc && lc)
        tn_comp_done(lc, TERN_OK); /* the source is reusable already */
    return TERN_OK;
}

/* No remote completion (TN_XPORT_FLAG_NOREMOTE: the caller learns of
 * delivery from an ordered flag write of its own behind the put). A
 * fragment is posted with FI_INJECT_COMPLETE, so that the target sends no
 * acknowledgement (tcp: FI_DELIVERY_COMPLETE made it send one per write,
 * a system call there and a read here), and its completion ends lc only:
 * the provider is done with the source. One within the inject size is an
 * fi_inject_write, which has no completion at all; lc ends in the call.
 * Why not no completion at all for the larger ones, with a counter
 * telling when the sources are free: libfabric 1.17's ofi_rxm turns every
 * fi_inject_write into a write with an internal completion once a write
 * counter is bound to the endpoint (rxm_ep_rma_inject_common), which
 * would make the collectives' 4-byte flag writes cost what this saves;
 * and its tcp endpoint completes every non-inject write internally
 * (signalling its wait object) whatever the flags say, so a write left
 * without FI_COMPLETION saves only the entry in this transport's own
 * queue, which has no wait object. A write that fails at the target
 * (the connection lost) is reported here by its completion, or by the
 * next write to that peer. */

/* TN_XPORT_FLAG_UNACKED: fi_inject_write, which takes no descriptor and
 * has no completion; without FI_DELIVERY_COMPLETE the target does not
 * acknowledge it (tcp: the target's provider reads the write into place
 * and sends nothing back). Only the target's network progress is needed
 * for the data to land. */
static int put_unacked(tn_ofi_t *o, const tn_rma_t *op, unsigned flags, uint64_t data)
{
    tn_wait_net_used(); /* a reply may follow: the waits poll at every step */
    int pst = tn_ofi_peer(o, op->rank);
    if (pst != TERN_OK)
        return pst;
    uint64_t raddr = tn_ofi_raddr(o, op->rank, op->remote, op->region);
    uint64_t key = tn_ofi_rkey(o, op->rank, op->region);
    tn_wait_t w = TN_WAIT_NET;
    for (uint64_t iter = 0;; iter++) {
        fi_addr_t to = tn_ofi_faddr(o, op->rank);
        ssize_t r =
            (flags & TN_XPORT_FLAG_SIGNAL)
                ? fi_inject_writedata(o->ep, op->local, op->n, data, to, raddr, key)
                : fi_inject_write(o->ep, op->local, op->n, to, raddr, key);
        if (r == 0)
            return TERN_OK;
        if (r != -FI_EAGAIN) {
            tn_error("libfabric %s of %zu bytes to rank %d failed: %s",
                     (flags & TN_XPORT_FLAG_SIGNAL) ? "fi_inject_writedata"
                                                    : "fi_inject_write",
                     op->n, op->rank, tn_fi.strerror((int)-r));
            return tn_ofi_status((int)r);
        }
        /* IMMEDIATE: one more try after a poll that made progress (as
         * issue). */
        if ((flags & TERN_FLAG_IMMEDIATE) && (iter > 0 || tn_ofi_poll(&o->base) == 0)) {
            tn_wait_refused();
            return TERN_ERR_AGAIN;
        }
        TN_STAT_ADD(net_retries, 1);
        if (tn_ofi_poll(&o->base) == 0)
            tn_wait_next(&w);
    }
}

int tn_ofi_issue(tn_ofi_t *o, int is_get, int rank, void *local, uint64_t raddr,
                 uint64_t key, size_t len, tn_comp_t *lc, tn_comp_t *rc, unsigned flags)
{
    return issue(o, is_get, rank, local, raddr, key, len, lc, rc,
                 flags & ~TN_XPORT_FLAG_SIGNAL, 0);
}

/* TN_XPORT_FLAG_SIGNAL: the remote CQ data of op's write (signal_arrived
 * reads it), or TERN_ERR_INVALID when the transport cannot take it. */
static int signal_data(tn_ofi_t *o, const tn_rma_t *op, unsigned flags, uint64_t *out)
{
    if (!o->signal_ok) {
        tn_error(
            "ofi: a put with its own signal (TN_XPORT_FLAG_SIGNAL) to rank %d is not "
            "offered over provider %s (no TN_XCAP_PUT_SIGNAL): %s",
            op->rank, o->info->fabric_attr->prov_name, o->signal_off);
        return TERN_ERR_UNSUPPORTED;
    }
    const tn_ofi_rkey_t *peer = o->peers[op->rank];
    int st = tn_xport_signal_check("ofi", op, flags, o->max_msg, peer->map_base,
                                   peer->map_size);
    if (st != TERN_OK)
        return st;
    uint64_t off = (uint64_t)(uintptr_t)op->signal - peer->map_base;
    if (off >= TN_XPORT_SIGNAL_SPAN) {
        tn_error("ofi: a put with its own signal to rank %d refused: the signal word is "
                 "%llu B into that rank's mapping, beyond the %llu B a signal reaches",
                 op->rank, (unsigned long long)off,
                 (unsigned long long)TN_XPORT_SIGNAL_SPAN);
        return TERN_ERR_INVALID;
    }
    *out = (off / 4) << 32 | op->sigval;
    return TERN_OK;
}

int tn_ofi_rma(tn_xport_t *x, const tn_rma_t *op, const tn_xport_done_t *done,
               unsigned flags)
{
    tn_ofi_t *o = (tn_ofi_t *)x;
    uint64_t data = 0;
    if (tn_unlikely(flags & TN_XPORT_FLAG_SIGNAL)) {
        int pst = tn_ofi_peer(o, op->rank); /* first contact: its mapping's base */
        if (pst != TERN_OK)
            return pst;
        int st = signal_data(o, op, flags, &data);
        if (st != TERN_OK)
            return st;
    }
    if (tn_unlikely(flags & TN_XPORT_FLAG_NOREMOTE) &&
        (op->kind != TN_RMA_PUT || !done->lc || done->rc)) {
        tn_error("ofi: a put without remote completion (TN_XPORT_FLAG_NOREMOTE) needs a "
                 "local completion object and no remote one%s",
                 op->kind != TN_RMA_PUT ? "; this was a get" : "");
        return TERN_ERR_INVALID;
    }
    if (tn_unlikely((flags & TN_XPORT_FLAG_HANDLER) ||
                    atomic_load_explicit(&o->ndefer, memory_order_relaxed))) {
        int st = tn_ofi_defer_rma(o, op, done, flags); /* ofi_defer.c */
        if (st != TN_OFI_DEFER_GO_ON)
            return st;
    }
    int is_get = op->kind == TN_RMA_GET;
    tn_comp_t *lc = done->lc, *rc = done->rc;
    if ((flags & TN_XPORT_FLAG_UNACKED) && !is_get && !lc && !rc && op->n &&
        op->n <= o->unacked_max)
        return put_unacked(o, op, flags, data);
    if (op->n == 0) {
        end_part(lc, TERN_OK);
        end_part(rc, TERN_OK);
        return TERN_OK;
    }
    int pst = tn_ofi_peer(o, op->rank); /* first contact: its address */
    if (pst != TERN_OK)
        return pst;
    size_t max = o->max_msg;
    size_t nfrag = op->n / max + (op->n % max != 0); /* max may be SIZE_MAX */
    if (nfrag > 1) {                                 /* one part per fragment */
        if (lc)
            tn_comp_add(lc, (int64_t)nfrag - 1);
        if (rc)
            tn_comp_add(rc, (int64_t)nfrag - 1);
    }
    uint64_t raddr = tn_ofi_raddr(o, op->rank, op->remote, op->region);
    uint64_t key = tn_ofi_rkey(o, op->rank, op->region);
    for (size_t f = 0; f < nfrag; f++) {
        size_t off = f * max;
        size_t len = op->n - off < max ? op->n - off : max;
        int st = issue(o, is_get, op->rank, (char *)op->local + off, raddr + off, key,
                       len, lc, rc, f == 0 ? flags : flags & ~TERN_FLAG_IMMEDIATE, data);
        if (st == TERN_OK)
            continue;
        if (f == 0) { /* nothing issued: the caller takes back its part */
            if (lc)
                tn_comp_add(lc, -((int64_t)nfrag - 1));
            if (rc)
                tn_comp_add(rc, -((int64_t)nfrag - 1));
            return st;
        }
        /* Fragments 0..f-1 are in flight and point at lc/rc: the
         * operation stays tracked until they end, and fails. */
        for (size_t g = f; g < nfrag; g++) {
            end_part(lc, st);
            end_part(rc, st);
        }
        return TERN_OK;
    }
    return TERN_OK;
}
