/* Put and get: the out-of-line paths behind tern.h's inline fast path
 * (errors, peers without a mapping) and the non-blocking forms. */
#include <stdint.h>
#include <stdio.h>

#include "base/compiler.h"
#include "base/log.h"
#include "base/stats.h"
#include "core/atomic.h"
#include "core/core.h"
#include "core/event.h"

/* Checks rank and [addr, addr+n) against rank's segment; logs and returns
 * the error naming rank, address and the segment's range. */
TN_NOINLINE int tn_core_check_remote(const char *call, int rank, const void *addr,
                                     size_t n)
{
    TN_CHECK_INIT(call);
    if (rank < 0 || rank >= tn_core.size)
        return tn_core_fail(TERN_ERR_RANK, call, "rank %d is not in [0, %d)", rank,
                            tn_core.size);
    uintptr_t a = (uintptr_t)addr;
    if (a + n < a)
        return tn_core_fail(TERN_ERR_OVERFLOW, call,
                            "address %p + %zu bytes wraps around", addr, n);
    if (tn_core_region(rank, a, n) >= 0) /* its segment or static region */
        return TERN_OK;
    return tn_core_range_fail(call, rank, addr, n);
}

/* Why [addr, addr+n) is in neither region of rank: the message. */
TN_NOINLINE int tn_core_range_fail(const char *call, int rank, const void *addr, size_t n)
{
    uintptr_t a = (uintptr_t)addr;
    uintptr_t base = (uintptr_t)tn_core_info(rank)->data_base;
    size_t size = (size_t)tn_core_info(rank)->size;
    uintptr_t own = (uintptr_t)tn_core.seg.data;
    const tn_peer_info_t *me = tn_core_info(tn_core.rank);
    const tn_peer_info_t *p = tn_core_info(rank);
    if (rank != tn_core.rank && me->static_size && a - me->static_base < me->static_size)
        return tn_core_fail(TERN_ERR_RANGE, call,
                            "%p is a global variable of this rank, not of rank %d: a "
                            "remote address is an address as the target sees it; use "
                            "tern_sym_addr(%d, &variable)",
                            addr, rank, rank);
    if ((a < base || a + n > base + size) && rank != tn_core.rank && a >= own &&
        a + n <= own + tn_core.seg.size)
        return tn_core_fail(TERN_ERR_RANGE, call,
                            "%p is outside the segment of rank %d, in this rank's own "
                            "segment: a remote address is an address in the target's "
                            "segment as the target sees it; for a symmetric object use "
                            "tern_sym_addr(%d, ptr)",
                            addr, rank, rank);
    if (p->static_size)
        return tn_core_fail(TERN_ERR_RANGE, call,
                            "[%p, %p) is outside the segment of rank %d [%p, %p) (%zu "
                            "bytes) and outside its global variables [%p, %p): not a "
                            "symmetric address (stack or malloc memory cannot be "
                            "reached remotely)",
                            addr, (void *)(a + n), rank, (void *)base,
                            (void *)(base + size), size, (void *)p->static_base,
                            (void *)(p->static_base + p->static_size));
    return tn_core_fail(TERN_ERR_RANGE, call,
                        "[%p, %p) is outside the segment of rank %d "
                        "[%p, %p) (%zu bytes)",
                        addr, (void *)(a + n), rank, (void *)base, (void *)(base + size),
                        size);
}

/* The segment only (calls that do not take the static region). */
TN_NOINLINE int tn_core_check_seg(const char *call, int rank, const void *addr, size_t n)
{
    int rc = tn_core_check_remote(call, rank, addr, n);
    if (rc != TERN_OK || tn_core_region(rank, (uintptr_t)addr, n) == TN_REGION_SEG)
        return rc;
    return tn_core_fail(TERN_ERR_RANGE, call,
                        "[%p, %p) is a global or static variable of rank %d: this call "
                        "accepts addresses in the segment only (allocate the object "
                        "with tern_alloc or tern_alloc_sym)",
                        addr, (void *)((uintptr_t)addr + n), rank);
}

static TN_NOINLINE int check_local(const char *call, const void *buf, size_t n)
{
    if (!buf && n)
        return tn_core_fail(TERN_ERR_INVALID, call, "local buffer is NULL");
    return TERN_OK;
}

/* Both sides of a transfer: the remote range, then the local buffer. */
static int check(const char *call, int rank, const void *remote, const void *local,
                 size_t n)
{
    int rc = tn_core_check_remote(call, rank, remote, n);
    return rc == TERN_OK ? check_local(call, local, n) : rc;
}

_Static_assert((int)TN_PEER_SELF == (int)TN_STAT_SELF &&
                   (int)TN_PEER_SHM == (int)TN_STAT_SHM &&
                   (int)TN_PEER_NET == (int)TN_STAT_NET,
               "peer kinds index the statistics paths");

static const struct {
    const char *call;
    int kind; /* TN_RMA_PUT or TN_RMA_GET */
} rma_ops[] = {
    [TERN_RMA_PUT_] = {"tern_put", TN_RMA_PUT},
    [TERN_RMA_GET_] = {"tern_get", TN_RMA_GET},
    [TERN_RMA_PUT_NB_] = {"tern_put_nb", TN_RMA_PUT},
    [TERN_RMA_GET_NB_] = {"tern_get_nb", TN_RMA_GET},
    [TERN_RMA_PUT_NBI_] = {"tern_put_nbi", TN_RMA_PUT},
    [TERN_RMA_GET_NBI_] = {"tern_get_nbi", TN_RMA_GET},
};

/* Starts d through its peer's transport, with one part counted in each
 * object of done; takes the parts back if nothing started. */
int tn_core_rma_start(const tn_rma_t *d, const tn_xport_done_t *done, unsigned flags)
{
    tn_core_xport_t *x = tn_core_peer(d->rank)->xport; /* init chose one */
    tn_rma_t op = *d;
    op.region = tn_core_region(d->rank, (uintptr_t)d->remote, d->n) == TN_REGION_STATIC
                    ? TN_REGION_STATIC
                    : TN_REGION_SEG; /* the segment, or core's control area */
    d = &op;
    if (tn_unlikely(tn_am_in_handler)) /* must not wait: the transport queues */
        flags |= TN_XPORT_FLAG_HANDLER;
    if (done->lc)
        tn_comp_add(done->lc, 1);
    if (done->rc)
        tn_comp_add(done->rc, 1);
    int rc = tn_core_xport_rma(x, d, done, flags);
    if (rc != TERN_OK) {
        if (done->lc)
            tn_comp_add(done->lc, -1);
        if (done->rc)
            tn_comp_add(done->rc, -1);
    }
    return rc;
}

/* Starts d and waits on a completion object of this stack frame: for the
 * whole transfer when remote is NULL, else for its local part only, the
 * remote part counted in *remote (a context's: fence, quiet), where a
 * failure after the start is reported. */
static int start_wait(const char *call, const tn_rma_t *d, unsigned flags,
                      tn_comp_t *remote)
{
    TN_NOT_IN_HANDLER(call);
    tn_comp_t c;
    tn_comp_init(&c, 0);
    tn_xport_done_t done = {remote ? &c : NULL, remote ? remote : &c};
    int rc = tn_core_rma_start(d, &done, flags);
    if (rc != TERN_OK)
        return rc;
    rc = tn_comp_wait(&c);
    return rc == TERN_OK
               ? TERN_OK
               : tn_core_fail(rc, call,
                              remote ? "the %zu-byte put to rank %d failed (cause "
                                       "logged above)"
                                     : "the %zu-byte transfer with rank %d failed "
                                       "(cause logged above)",
                              d->n, d->rank);
}

int tn_core_rma_blocking(const char *call, const tn_rma_t *d, unsigned flags)
{
    return start_wait(call, d, flags, NULL);
}

/* Explicit events: lc (puts only) and rc, each optional; without rc the
 * caller could never learn of completion, so the call waits for it. */
static int run_nb(const char *call, const tn_rma_t *d, tern_event_t *lc_ev,
                  tern_event_t *rc_ev, unsigned flags)
{
    if (!rc_ev) {
        int st = tn_core_rma_blocking(call, d, flags);
        if (st == TERN_OK && lc_ev)
            *lc_ev = TERN_EVENT_DONE;
        return st;
    }
    tern_event_t l = TERN_EVENT_DONE, r = TERN_EVENT_DONE;
    tn_comp_t *lc = lc_ev ? tn_event_new(&l) : NULL;
    tn_comp_t *rc = tn_event_new(&r);
    if ((lc_ev && !lc) || !rc) {
        if (lc)
            tn_event_drop(l);
        if (rc)
            tn_event_drop(r);
        return tn_core_fail(TERN_ERR_NOMEM, call, "no memory for an event");
    }
    /* tn_event_new counted the caller's part already: take it back, start
     * counts its own. */
    if (lc)
        tn_comp_add(lc, -1);
    tn_comp_add(rc, -1);
    tn_xport_done_t done = {lc, rc};
    int st = tn_core_rma_start(d, &done, flags);
    if (st != TERN_OK) {
        if (lc)
            tn_event_drop(l);
        tn_event_drop(r);
        return st;
    }
    if (lc_ev)
        *lc_ev = l;
    *rc_ev = r;
    return TERN_OK;
}

static int rma_slow(tern_ctx_t ctx, int op, int rank, void *local, const void *remote,
                    size_t n, tern_event_t *lc, tern_event_t *rc, tern_flags_t flags,
                    int strict);

tern_status_t tern_rma_slow_(tern_ctx_t ctx, int op, int rank, void *local,
                             const void *remote, size_t n, tern_event_t *lc,
                             tern_event_t *rc, tern_flags_t flags)
{
    return rma_slow(ctx, op, rank, local, remote, n, lc, rc, flags, 0);
}

int tn_core_put_flagged(const char *call, int rank, void *remote, const void *local,
                        size_t n, tern_event_t *ev)
{
    const tn_peer_t *p = tn_core_peer(rank);
    if (p->kind != TN_PEER_NET || !(p->xport->caps.flags & TN_XCAP_PUT_NOREMOTE))
        return tern_put_nb(rank, remote, local, n, NULL, ev, 0);
    int st = check(call, rank, remote, local, n);
    if (st != TERN_OK)
        return st;
    tern_event_t e = TERN_EVENT_DONE;
    tn_comp_t *lc = tn_event_new(&e);
    if (!lc)
        return tn_core_fail(TERN_ERR_NOMEM, call, "no memory for an event");
    tn_comp_add(lc, -1); /* tn_core_rma_start counts its own part */
    tn_rma_t d = {TN_RMA_PUT, rank, (void *)(uintptr_t)local, remote, n, TN_REGION_SEG};
    tn_xport_done_t done = {lc, NULL};
    st = tn_core_rma_start(&d, &done, TN_XPORT_FLAG_NOREMOTE);
    if (st != TERN_OK) {
        tn_event_drop(e);
        return tn_core_fail(st, call, "the %zu-byte put to rank %d failed", n, rank);
    }
    *ev = e;
    return TERN_OK;
}

void tn_core_write_unacked(const tn_peer_t *p, int rank, uintptr_t raddr, const void *buf,
                           size_t n, const char *what, const char *kind)
{
    tn_rma_t op = {TN_RMA_PUT, rank, (void *)buf, (void *)raddr, n, TN_REGION_SEG};
    tn_xport_done_t none = {NULL, NULL};
    int rc = tn_core_xport_rma(p->xport, &op, &none,
                               TN_XPORT_FLAG_CTRL | TN_XPORT_FLAG_UNACKED);
    if (rc != TERN_OK) {
        char msg[160];
        snprintf(msg, sizeof(msg), "%s: the network write of a %s to rank %d failed: %s",
                 what, kind, rank, tern_strerror(rc));
        tern_abort(1, msg);
    }
}

int tn_core_put_strict(tern_ctx_t ctx, int rank, void *dst, const void *src, size_t n,
                       unsigned flags)
{
    intptr_t d;
    if (TERN_FAST_(rank, dst, n, flags, &d)) {
        tern_fast_copy_(rank, (char *)dst + d, src, n);
        TERN_PUT_FENCE_();
        return TERN_OK;
    }
    return rma_slow(ctx, TERN_RMA_PUT_, rank, (void *)src, dst, n, 0, 0, flags, 1);
}

/* strict: a blocking put waits for remote completion whatever ctx's
 * ordering mode says. */
static int rma_slow(tern_ctx_t ctx, int op, int rank, void *local, const void *remote,
                    size_t n, tern_event_t *lc, tern_event_t *rc, tern_flags_t flags,
                    int strict)
{
    if ((unsigned)op >= TN_ARRAY_LEN(rma_ops))
        return tn_core_fail(TERN_ERR_INVALID, "tern_rma_slow_",
                            "operation %d is not a TERN_RMA_* value", op);
    const char *call = rma_ops[op].call;
    tn_trace("%s(ctx %p, rank %d, local %p, remote %p, %zu B, flags 0x%x)", call,
             (void *)ctx, rank, local, remote, n, flags);
    int st = check(call, rank, remote, local, n);
    if (st == TERN_OK && (flags & ~TERN_FLAGS_KNOWN_))
        st = tn_core_fail(TERN_ERR_INVALID, call,
                          "flags 0x%x: bits 0x%x are not TERN_FLAG_* values", flags,
                          flags & ~TERN_FLAGS_KNOWN_);
    struct tern_ctx_s *c = st == TERN_OK ? tn_ctx_get(ctx, call) : NULL;
    if (!c) {
        TN_STAT_ADD(slow_error, 1);
        return st != TERN_OK ? st : TERN_ERR_INVALID;
    }
    tn_rma_t d = {rma_ops[op].kind, rank, local, (void *)remote, n};
    const tn_peer_t *peer = tn_core_peer(rank);
    if (__builtin_expect(tn_stats_on, 0)) {
        int path = peer->kind; /* TN_PEER_* order is TN_STAT_* order */
        tn_stats_mine()->slow_net += path == TN_PEER_NET;
        tn_stats_copy(path, d.kind == TN_RMA_PUT, n, 0);
    }
    switch (op) {
    case TERN_RMA_PUT_:
        if (!strict && peer->kind == TN_PEER_NET &&
            tn_ctx_early(c, peer->xport, TN_XCAP_ORDER_PUT)) {
            int st = start_wait(call, &d, flags, &c->rc); /* returns early */
            if (st == TERN_OK)
                tn_ctx_mark_early(c);
            return st;
        }
        return tn_core_rma_blocking(call, &d, flags);
    case TERN_RMA_GET_:
        /* A small get from a network peer by the mailbox where it can
         * (atomic_mbox.c): no completion at either end. */
        if (peer->kind == TN_PEER_NET && n <= tn_cfg.get_mailbox) {
            TN_NOT_IN_HANDLER(call);
            int st = tn_mbox_get(call, local, rank, remote, n, flags);
            if (st != TN_AD_MBOX_NO)
                return st == TERN_OK || st == TERN_ERR_AGAIN
                           ? st
                           : tn_core_fail(st, call,
                                          "the %zu-byte get from rank %d failed (cause "
                                          "logged above)",
                                          n, rank);
        }
        return tn_core_rma_blocking(call, &d, flags);
    case TERN_RMA_PUT_NB_: return run_nb(call, &d, lc, rc, flags);
    case TERN_RMA_GET_NB_: return run_nb(call, &d, NULL, rc, flags);
    default: {
        /* A small nbi put to a network peer joins this thread's message to
         * it (put_agg.c): copied now, so locally complete at once. */
        if (op == TERN_RMA_PUT_NBI_ && peer->kind == TN_PEER_NET && n &&
            n <= tn_pagg_max() && !tn_am_in_handler &&
            tn_core_region(rank, (uintptr_t)remote, n) == TN_REGION_SEG) {
            st = tn_pagg_put(call, &c->rc, rank, (void *)remote, local, n, flags);
            if (st != TN_PAGG_DIRECT)
                return st;
        }
        /* A small nbi get joins this thread's list get from the peer: one
         * Request lists the pieces, one Reply brings them (put_agg.c). */
        if (op == TERN_RMA_GET_NBI_ && peer->kind == TN_PEER_NET && n &&
            n <= tn_pagg_max() && !tn_am_in_handler &&
            tn_core_region(rank, (uintptr_t)remote, n) == TN_REGION_SEG) {
            st = tn_pagg_get(call, &c->rc, rank, remote, local, n, flags);
            if (st != TN_PAGG_DIRECT)
                return st;
        }
        tn_xport_done_t done = {d.kind == TN_RMA_PUT ? &c->lc : NULL, &c->rc};
        return tn_core_rma_start(&d, &done, flags);
    }
    }
}
