/* RMA over libfabric: a bounded pool of operation descriptors, writes and
 * reads fragmented to the provider's maximum message, completions counted
 * into the caller's local/remote completion counters. */
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

#include "base/log.h"
#include "base/wait.h"
#include "xport/ofi/ofi.h"
#include "xport/ofi/ofi_dl.h"

#define TN_OFI_BOUNCE 4096 /* below this, FI_MR_LOCAL buffers are copied */

struct tn_ofi_op {
    struct fi_context2 ctx; /* first: the provider's per-operation context */
    _Atomic(int64_t) *lc;   /* decremented at completion unless done early */
    _Atomic(int64_t) *rc;
    char *bounce;   /* this descriptor's bounce slot (mr_local) */
    void *copy_out; /* get through the bounce slot: copy here */
    size_t copy_len;
    struct fid_mr *tmp_mr; /* registration made for this operation */
    int rank;
    int is_get;
    tn_ofi_op_t *next;
};

int tn_ofi_op_pool_create(tn_ofi_t *o)
{
    o->ops = calloc((size_t)o->nops, sizeof(*o->ops));
    if (!o->ops)
        return TERN_ERR_NOMEM;
    if (o->mr_local) {
        o->bounce = aligned_alloc(4096, (size_t)o->nops * TN_OFI_BOUNCE);
        if (!o->bounce)
            return TERN_ERR_NOMEM;
        int rc = fi_mr_reg(o->domain, o->bounce, (size_t)o->nops * TN_OFI_BOUNCE,
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
        o->ops[i].bounce = o->bounce ? o->bounce + i * TN_OFI_BOUNCE : NULL;
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

static void op_give(tn_ofi_t *o, tn_ofi_op_t *op)
{
    if (op->tmp_mr)
        fi_close(&op->tmp_mr->fid);
    op->tmp_mr = NULL;
    op->lc = op->rc = NULL;
    op->copy_out = NULL;
    pthread_mutex_lock(&o->lock);
    op->next = o->free_ops;
    o->free_ops = op;
    o->inflight--;
    pthread_mutex_unlock(&o->lock);
}

static void count_done(_Atomic(int64_t) *c)
{
    if (c)
        atomic_fetch_sub_explicit(c, 1, memory_order_release);
}

static void complete(tn_ofi_t *o, tn_ofi_op_t *op)
{
    if (op->copy_out)
        memcpy(op->copy_out, op->bounce, op->copy_len);
    _Atomic(int64_t) *lc = op->lc, *rc = op->rc;
    op_give(o, op);
    count_done(lc);
    count_done(rc);
}

int tn_ofi_poll(tn_xport_t *x)
{
    tn_ofi_t *o = (tn_ofi_t *)x;
    struct fi_cq_entry e[16];
    ssize_t n = fi_cq_read(o->cq, e, 16);
    if (n > 0) {
        tn_trace("ofi: %zd completion(s)", n);
        for (ssize_t i = 0; i < n; i++)
            complete(o, (tn_ofi_op_t *)e[i].op_context);
        return (int)n;
    }
    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        if (fi_cq_readerr(o->cq, &err, 0) == 1) {
            tn_ofi_op_t *op = err.op_context;
            atomic_fetch_add(&o->errors, 1);
            tn_error("%s with rank %d failed: %s (%s)", op && op->is_get ? "get" : "put",
                     op ? op->rank : -1, tn_fi.strerror(err.err),
                     fi_cq_strerror(o->cq, err.prov_errno, err.err_data, NULL, 0));
            if (op)
                complete(o, op);
            return 1;
        }
    }
    return 0;
}

/* Takes a descriptor, driving progress while none is free (never with
 * IMMEDIATE: then NULL). */
static tn_ofi_op_t *op_wait(tn_ofi_t *o, unsigned flags)
{
    uint64_t iter = 0;
    tn_ofi_op_t *op;
    while (!(op = op_take(o))) {
        if (flags & TERN_FLAG_IMMEDIATE)
            return NULL;
        if (tn_ofi_poll(&o->base) == 0)
            tn_wait_step(iter++);
    }
    return op;
}

/* Local descriptor for [buf, buf+len) where the provider needs one: the
 * segment's registration, the op's bounce slot for small transfers (data
 * copied in for puts; *bounced set), or a registration made for this op. */
static int local_desc(tn_ofi_t *o, tn_ofi_op_t *op, const void *buf, size_t len,
                      int is_get, void **desc, const void **use, int *bounced)
{
    *desc = NULL;
    *use = buf;
    *bounced = 0;
    if (!o->mr_local)
        return TERN_OK;
    uintptr_t b = (uintptr_t)buf, m = (uintptr_t)o->map;
    if (b >= m && b + len <= m + o->map_size) {
        *desc = o->mr_desc;
        return TERN_OK;
    }
    if (len <= TN_OFI_BOUNCE) {
        if (!is_get)
            memcpy(op->bounce, buf, len);
        *use = op->bounce;
        *desc = fi_mr_desc(o->bounce_mr);
        *bounced = 1;
        return TERN_OK;
    }
    int rc = fi_mr_reg(o->domain, buf, len, is_get ? FI_READ : FI_WRITE, 0, 0, 0,
                       &op->tmp_mr, NULL);
    if (rc == 0 && (o->info->domain_attr->mr_mode & FI_MR_ENDPOINT)) {
        rc = fi_mr_bind(op->tmp_mr, &o->ep->fid, 0);
        if (rc == 0)
            rc = fi_mr_enable(op->tmp_mr);
    }
    if (rc) {
        tn_error("libfabric fi_mr_reg of a %zu-byte local buffer failed: %s", len,
                 tn_fi.strerror(-rc));
        return tn_ofi_status(rc);
    }
    *desc = fi_mr_desc(op->tmp_mr);
    return TERN_OK;
}

/* One fragment: a write or read of len bytes. Returns TERN_OK or
 * TERN_ERR_AGAIN (IMMEDIATE and the first fragment only) or an error. */
static int issue(tn_ofi_t *o, int is_get, int rank, void *local, uint64_t raddr,
                 size_t len, _Atomic(int64_t) *lc, _Atomic(int64_t) *rc, unsigned flags)
{
    tn_ofi_op_t *op = op_wait(o, flags);
    if (!op)
        return TERN_ERR_AGAIN;
    op->rank = rank;
    op->is_get = is_get;
    op->lc = lc;
    op->rc = rc;
    void *desc;
    const void *use;
    int bounced;
    int st = local_desc(o, op, local, len, is_get, &desc, &use, &bounced);
    if (st != TERN_OK) {
        op_give(o, op);
        return st;
    }
    if (is_get && bounced) {
        op->copy_out = local;
        op->copy_len = len;
    }
    struct iovec iov = {.iov_base = (void *)use, .iov_len = len};
    struct fi_rma_iov riov = {.addr = raddr, .len = len, .key = o->peers[rank].key};
    struct fi_msg_rma msg = {.msg_iov = &iov,
                             .desc = &desc,
                             .iov_count = 1,
                             .addr = o->fi_addrs[rank],
                             .rma_iov = &riov,
                             .rma_iov_count = 1,
                             .context = op};
    uint64_t fl = FI_COMPLETION;
    int early_lc = 0;
    if (!is_get) {
        fl |= FI_DELIVERY_COMPLETE;
        if (len <= o->inject_size) {
            fl |= FI_INJECT; /* source reusable when the call returns */
            early_lc = 1;
        }
        early_lc |= bounced;
    }
    uint64_t iter = 0;
    for (;;) {
        ssize_t r = is_get ? fi_readmsg(o->ep, &msg, fl) : fi_writemsg(o->ep, &msg, fl);
        if (r == 0) {
            tn_trace("ofi: %s of %zu B to rank %d at 0x%llx key %llu issued after %llu "
                     "retries",
                     is_get ? "read" : "write", len, rank, (unsigned long long)raddr,
                     (unsigned long long)o->peers[rank].key, (unsigned long long)iter);
            break;
        }
        if (r != -FI_EAGAIN) {
            op_give(o, op);
            tn_error("libfabric %s of %zu bytes to rank %d failed: %s",
                     is_get ? "fi_readmsg" : "fi_writemsg", len, rank,
                     tn_fi.strerror((int)-r));
            return tn_ofi_status((int)r);
        }
        if ((flags & TERN_FLAG_IMMEDIATE) && iter == 0 && tn_ofi_poll(&o->base) == 0) {
            op_give(o, op);
            return TERN_ERR_AGAIN;
        }
        if (tn_ofi_poll(&o->base) == 0)
            tn_wait_step(iter);
        iter++;
    }
    if (early_lc && lc) {
        /* Completion will only count remote delivery. */
        op->lc = NULL;
        count_done(lc);
    }
    return TERN_OK;
}

static int rma(tn_ofi_t *o, int is_get, int rank, void *local, const void *remote,
               size_t n, const tn_xport_done_t *done, unsigned flags)
{
    _Atomic(int64_t) *lc = done ? done->lc : NULL, *rc = done ? done->rc : NULL;
    if (n == 0) {
        count_done(lc);
        count_done(rc);
        return TERN_OK;
    }
    size_t nfrag = n / o->max_msg + (n % o->max_msg != 0); /* max_msg may be SIZE_MAX */
    if (nfrag > 1) { /* each fragment completes once */
        if (lc)
            atomic_fetch_add(lc, (int64_t)nfrag - 1);
        if (rc)
            atomic_fetch_add(rc, (int64_t)nfrag - 1);
    }
    uint64_t raddr = tn_ofi_raddr(o, rank, remote);
    for (size_t f = 0; f < nfrag; f++) {
        size_t off = f * o->max_msg;
        size_t len = n - off < o->max_msg ? n - off : o->max_msg;
        int st = issue(o, is_get, rank, (char *)local + off, raddr + off, len, lc, rc,
                       f == 0 ? flags : flags & ~TERN_FLAG_IMMEDIATE);
        if (st != TERN_OK) {
            /* Fragments f.. were not issued: take back the counts added
             * for them above (the caller takes back its own one). */
            for (size_t g = f + 1; g < nfrag; g++) {
                count_done(lc);
                count_done(rc);
            }
            return st;
        }
    }
    return TERN_OK;
}

int tn_ofi_put(tn_xport_t *x, int rank, void *dst, const void *src, size_t n,
               const tn_xport_done_t *done, unsigned flags)
{
    return rma((tn_ofi_t *)x, 0, rank, (void *)src, dst, n, done, flags);
}

int tn_ofi_get(tn_xport_t *x, void *dst, int rank, const void *src, size_t n,
               const tn_xport_done_t *done, unsigned flags)
{
    return rma((tn_ofi_t *)x, 1, rank, dst, src, n, done, flags);
}
