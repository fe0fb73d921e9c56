/* The operations of atomic domains: checks, then CPU atomics in place for
 * mapped peers (cpu and am domains), the network transport's amo op (net)
 * or an active message (am, unmapped peers), with the completion forms of
 * every family (blocking, event, nbi). */
#include <string.h>

#include "base/compiler.h"
#include "base/log.h"
#include "core/atomic.h"
#include "core/event.h"

static const char *const call_names[3][TN_ATYPE_COUNT] = {
    {"tern_ad_op_i32", "tern_ad_op_u32", "tern_ad_op_i64", "tern_ad_op_u64",
     "tern_ad_op_float", "tern_ad_op_double"},
    {"tern_ad_op_nb_i32", "tern_ad_op_nb_u32", "tern_ad_op_nb_i64", "tern_ad_op_nb_u64",
     "tern_ad_op_nb_float", "tern_ad_op_nb_double"},
    {"tern_ad_op_nbi_i32", "tern_ad_op_nbi_u32", "tern_ad_op_nbi_i64",
     "tern_ad_op_nbi_u64", "tern_ad_op_nbi_float", "tern_ad_op_nbi_double"},
};

/* Every check of one call, in the order a user would fix them; logs and
 * returns the first failure. */
static TN_NOINLINE int check_fail(const char *call, const struct tern_ad_s *d, int type,
                                  int rank, void *addr, uint32_t op, void *result,
                                  tern_flags_t flags)
{
    if (type != d->type)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "the atomic domain is for %s, not %s: use tern_ad_op_%s or a "
                            "domain for %s",
                            tn_atype_name(d->type), tn_atype_name(type),
                            tn_atype_name(d->type), tn_atype_name(type));
    if (!op || (op & (op - 1)) || (op & ~TN_AOPS_ALL))
        return tn_core_fail(TERN_ERR_INVALID, call, "op 0x%x is not one TERN_OP_* value",
                            op);
    if (!(op & d->ops)) {
        char set[TN_AOP_SET_NAMES_MAX];
        tn_aop_set_names(d->ops, set, sizeof(set));
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "op %s is not in the atomic domain's set {%s}: create the "
                            "domain with it",
                            tn_aop_name(__builtin_ctz(op)), set);
    }
    if (flags & ~TERN_FLAGS_KNOWN_)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "flags 0x%x: bits 0x%x are not TERN_FLAG_* values", flags,
                            flags & ~TERN_FLAGS_KNOWN_);
    if (!result && (op & TN_AOPS_FETCHING))
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "op %s returns the old value, and result is NULL",
                            tn_aop_name(__builtin_ctz(op)));
    if (rank < 0 || rank >= tn_core.size)
        return tn_core_fail(TERN_ERR_RANK, call, "rank %d is not in [0, %d)", rank,
                            tn_core.size);
    size_t size = tn_atype_size(d->type);
    uintptr_t a = (uintptr_t)addr;
    if (a % size)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "address %p is not aligned to the %zu bytes of %s", addr,
                            size, tn_atype_name(d->type));
    if (tn_core_region(rank, a, size) < 0)
        return tn_core_range_fail(call, rank, addr, size);
    return TERN_OK;
}

/* 1 when every argument is right (cost: a few compares, no call). */
static inline int args_ok(const struct tern_ad_s *d, int type, int rank, void *addr,
                          uint32_t op, void *result, tern_flags_t flags)
{
    size_t size = tn_atype_size(type);
    uintptr_t a = (uintptr_t)addr;
    if (type != d->type || !(op & d->ops) || (op & (op - 1)) ||
        (flags & ~TERN_FLAGS_KNOWN_) || (!result && (op & TN_AOPS_FETCHING)) ||
        (unsigned)rank >= (unsigned)tn_core.size || (a & (size - 1)))
        return 0;
    return tn_core_region(rank, a, size) >= 0; /* segment or static region */
}

/* Starts op through the domain's network transport, or as an active
 * message, with one part counted in rc; takes it back if nothing
 * started. */
static int start(const char *call, const struct tern_ad_s *d, const tn_amo_t *op,
                 tn_comp_t *rc, unsigned flags)
{
    if (d->impl == TERN_AD_IMPL_AM) {
        if (tn_unlikely(tn_am_tok.state & TN_AM_TOK_PREPARED))
            return tn_am_refuse(call, "send");
        if (tn_unlikely(tn_am_in_handler)) /* the Request path would refuse */
            return tn_core_fail(TERN_ERR_INVALID, call,
                                "an op of this domain to rank %d is an active-message "
                                "Request (the domain's am path), which a handler must "
                                "not send, in any form: create the domain with "
                                "TERN_AD_PROVIDER to issue atomics from handlers",
                                op->rank);
        return tn_ad_am_start(call, op, rc, flags);
    }
    tn_xport_done_t done = {NULL, rc};
    if (tn_unlikely(tn_am_in_handler)) /* must not wait: the transport queues */
        flags |= TN_XPORT_FLAG_HANDLER;
    int st = tn_pagg_before(op->rank, flags); /* combined puts to the peer first */
    if (st != TERN_OK)
        return st;
    tn_comp_add(rc, 1);
    st = d->net->ops.amo(d->net->x, op, &done, flags);
    if (st != TERN_OK)
        tn_comp_add(rc, -1);
    return st;
}

static TN_NOINLINE int op_failed(const char *call, const tn_amo_t *op, int st)
{
    return tn_core_fail(st, call,
                        "atomic %s on rank %d at %p failed (cause logged above)",
                        tn_aop_name(op->op), op->rank, op->remote);
}

/* The network and active-message forms: blocking on a completion object
 * of this frame, an event, or the context's nbi count. */
static int run_remote(const char *call, const struct tern_ad_s *d, tern_ctx_t ctx,
                      int mode, const tn_amo_t *op, tern_event_t *ev, unsigned flags)
{
    /* The am path combines the ops it counts in a context (nbi, and
     * blocking ones returning early) into one message per target
     * (atomic_agg.c); the others go alone, after this thread's batch to
     * their target. Inside a handler nothing is queued: the Request path
     * refuses (a handler must not send Requests). */
    int combine = d->impl == TERN_AD_IMPL_AM && tn_ad_agg_on() && !tn_am_in_handler;
    if (mode == TERN_AD_NBI_) {
        struct tern_ctx_s *c = tn_ctx_get(ctx, call);
        if (!c)
            return TERN_ERR_INVALID;
        return combine ? tn_ad_agg_put(call, op, &c->rc, flags)
                       : start(call, d, op, &c->rc, flags);
    }
    if (mode == TERN_AD_NB_ && ev) {
        int st = combine ? tn_ad_agg_before(call, op->rank, flags) : TERN_OK;
        if (st != TERN_OK)
            return st;
        tern_event_t e;
        tn_comp_t *rc = tn_event_new(&e);
        if (!rc)
            return tn_core_fail(TERN_ERR_NOMEM, call, "no memory for an event");
        tn_comp_add(rc, -1); /* start counts its own part */
        st = start(call, d, op, rc, flags);
        if (st != TERN_OK) {
            tn_event_drop(e);
            return st;
        }
        *ev = e;
        return TERN_OK;
    }
    /* Blocking. A non-fetching op may return once issued where the
     * context's mode allows it: in partial, where the transport keeps the
     * order of such ops to one peer. On the am path that is the order of
     * Requests to the target (TN_XCAP_ORDER_MSG: its handlers run them one
     * at a time in the order sent), so a later op of this thread to the
     * same target, fetching or not, runs after this one. */
    if (!op->result) {
        struct tern_ctx_s *cx = tn_ctx_get(ctx, call);
        if (!cx)
            return TERN_ERR_INVALID;
        if (d->impl == TERN_AD_IMPL_NET
                ? tn_ctx_early(cx, d->net, TN_XCAP_ORDER_AMO)
                : tn_ctx_early(cx, tn_core_peer(op->rank)->msg, TN_XCAP_ORDER_MSG)) {
            int st = combine ? tn_ad_agg_put(call, op, &cx->rc, flags)
                             : start(call, d, op, &cx->rc, flags);
            if (st == TERN_OK)
                tn_ctx_mark_early(cx);
            return st;
        }
    }
    /* A fetching op of the am path to a network peer goes by the mailbox
     * where it can (atomic_mbox.c): two RMA writes without completions
     * instead of two messages. */
    if (d->impl == TERN_AD_IMPL_AM && op->result) {
        TN_NOT_IN_HANDLER(call);
        int st = tn_ad_mbox_run(call, op, flags);
        if (st != TN_AD_MBOX_NO)
            return st == TERN_OK || st == TERN_ERR_AGAIN ? st : op_failed(call, op, st);
    }
    if (combine) {
        int st = tn_ad_agg_before(call, op->rank, flags);
        if (st != TERN_OK)
            return st;
    }
    /* Nothing reads completions inside a handler (tn_core_progress returns
     * at once there): waiting for this op would never end. */
    TN_NOT_IN_HANDLER(call);
    tn_comp_t c;
    tn_comp_init(&c, 0);
    int st = start(call, d, op, &c, flags);
    if (st == TERN_OK)
        st = tn_comp_wait(&c);
    return st == TERN_OK || st == TERN_ERR_AGAIN ? st : op_failed(call, op, st);
}

tern_status_t tern_ad_op_(tern_ctx_t ctx, tern_ad_t ad, int type, int mode, int rank,
                          void *addr, uint32_t op, const void *a1, const void *a2,
                          void *result, tern_event_t *ev, tern_flags_t flags)
{
    if ((unsigned)type >= TN_ATYPE_COUNT || (unsigned)mode > TERN_AD_NBI_)
        return tn_core_fail(TERN_ERR_INVALID, "tern_ad_op_",
                            "type %d or mode %d is out of range", type, mode);
    const char *call = call_names[mode][type];
    TN_CHECK_INIT(call);
    struct tern_ad_s *d = tn_ad_get(ad, call);
    if (!d)
        return TERN_ERR_INVALID;
    if (tn_unlikely(!args_ok(d, type, rank, addr, op, result, flags)))
        return check_fail(call, d, type, rank, addr, op, result, flags);
    size_t size = tn_atype_size(type);
    tn_amo_t o = {.rank = rank, .type = type, .op = __builtin_ctz(op), .remote = addr};
    if (size == 8) { /* constant sizes: moves, not two calls of memcpy */
        memcpy(&o.a1, a1, 8);
        memcpy(&o.a2, a2, 8);
    } else {
        memcpy(&o.a1, a1, 4);
        memcpy(&o.a2, a2, 4);
    }
    char *mapped;
    if (tn_likely(d->impl != TERN_AD_IMPL_NET &&
                  (mapped = tn_core_mapped(rank, addr, size)) != NULL)) {
        /* A mapped peer (every peer of a cpu domain, this node's of an am
         * one): CPU atomics in place, atomic with respect to those the am
         * path's handler runs at the target. */
        tn_aval_t old;
        tn_amo_cpu(type, o.op, mapped, &o.a1, &o.a2, &old);
        if (op & TN_AOPS_FETCHING)
            memcpy(result, &old, size);
        if (mode == TERN_AD_NB_ && ev)
            *ev = TERN_EVENT_DONE;
        return TERN_OK;
    }
    if (tn_unlikely(d->impl == TERN_AD_IMPL_CPU))
        return tn_core_fail(TERN_ERR_RANGE, call,
                            "%p on rank %d is not mapped here, and this domain uses CPU "
                            "atomics only",
                            addr, rank);
    o.result = (op & TN_AOPS_FETCHING) ? result : NULL;
    o.region = tn_core_region(rank, (uintptr_t)addr, size);
    tn_trace("%s(rank %d, %p, %s)", call, rank, addr, tn_aop_name(o.op));
    return run_remote(call, d, ctx, mode, &o, ev, flags);
}
