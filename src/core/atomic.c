/* Atomic domains: creation with the choice of one implementation for the
 * whole op set and every peer, destruction, and what was chosen. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/cfg.h"
#include "base/log.h"
#include "core/atomic.h"

_Static_assert((int)TERN_AT_I32 == (int)TN_ATYPE_I32 &&
                   (int)TERN_AT_U32 == (int)TN_ATYPE_U32 &&
                   (int)TERN_AT_I64 == (int)TN_ATYPE_I64 &&
                   (int)TERN_AT_U64 == (int)TN_ATYPE_U64 &&
                   (int)TERN_AT_FLOAT == (int)TN_ATYPE_FLOAT &&
                   (int)TERN_AT_DOUBLE == (int)TN_ATYPE_DOUBLE,
               "public and internal atomic types agree");
_Static_assert(offsetof(struct tern_ad_s, fast) == 0, "the inline path reads the head");
_Static_assert(TERN_OPS_FETCHING_ == TN_AOPS_FETCHING, "fetching ops agree");
_Static_assert(TERN_OP_GET == TN_AOP_BIT(TN_AOP_GET) &&
                   TERN_OP_CSWAP == TN_AOP_BIT(TN_AOP_CSWAP) &&
                   TERN_OP_MULT == TN_AOP_BIT(TN_AOP_MULT) &&
                   TERN_OP_FADD == TN_AOP_BIT(TN_AOP_FADD) &&
                   TERN_OP_FMULT == TN_AOP_BIT(TN_AOP_FMULT) &&
                   TERN_OPS_ALL_ == TN_AOPS_ALL,
               "public op bits are the internal op positions");

/* Domains live in one table, so a handle is checked by its address; a
 * destroyed one is marked dead and reused only once the table has been
 * used up (so that a stale handle is recognized for as long as possible). */
static struct tern_ad_s ad_pool[TN_AD_MAX];
static int ad_used;

struct tern_ad_s *tn_ad_get_quiet(tern_ad_t ad)
{
    uintptr_t off = (uintptr_t)ad - (uintptr_t)ad_pool;
    return off < sizeof(ad_pool) && off % sizeof(*ad) == 0 && ad->magic == TN_AD_LIVE
               ? ad
               : NULL;
}

struct tern_ad_s *tn_ad_get(tern_ad_t ad, const char *call)
{
    uintptr_t off = (uintptr_t)ad - (uintptr_t)ad_pool;
    if (__builtin_expect(
            off >= sizeof(ad_pool) || off % sizeof(*ad) || ad->magic != TN_AD_LIVE, 0)) {
        int known = off < sizeof(ad_pool) && off % sizeof(*ad) == 0;
        tn_core_fail(TERN_ERR_INVALID, call, "atomic domain %p %s", (void *)ad,
                     known ? "was destroyed" : "is not an atomic domain");
        return NULL;
    }
    return ad;
}

/* The transport of this rank's network peers (the job spans nodes, so
 * there is one). */
static tn_core_xport_t *net_xport(void)
{
    for (int r = 0; r < tn_core.size; r++)
        if (tn_core_peer(r)->kind == TN_PEER_NET)
            return tn_core_peer(r)->xport;
    return NULL;
}

/* The active-message path for d: every peer that is not mapped must be
 * reachable by messages. why_am says why the path was taken. */
static int choose_am(struct tern_ad_s *d, const char *set, const char *why_am)
{
    for (int r = 0; r < tn_core.size; r++)
        if (!tn_core_fast(r)->size && !tn_core_peer(r)->msg)
            return tn_core_fail(TERN_ERR_UNSUPPORTED, "tern_ad_create",
                                "an atomic domain for %s {%s} needs the network (the job "
                                "spans %d nodes): %s, and no transport carries active "
                                "messages to rank %d either",
                                tn_atype_name(d->type), set, tn_core.nnodes, why_am, r);
    d->impl = TERN_AD_IMPL_AM;
    snprintf(d->why, sizeof(d->why),
             "am: the job spans %d nodes and %s; ops on this node's ranks run CPU "
             "atomics in place, the others go as active messages whose handler runs "
             "CPU atomics at the target%s, for %s {%s}",
             tn_core.nnodes, why_am,
             tn_cfg.amo_mailbox ? " (blocking fetches: a mailbox, two RMA writes)" : "",
             tn_atype_name(d->type), set);
    return TERN_OK;
}

/* The implementation for d (type and ops set), from facts every rank
 * shares: the number of nodes of the transports' grouping, the network
 * provider, TERN_OFI_ATOMICS (TN_CFG_JOB: tern_init checks it is the
 * same on every rank) and the flags
 * (TERN_AD_PROVIDER: the same on every rank that shares a word). */
static int choose(struct tern_ad_s *d, tern_flags_t flags)
{
    char set[TN_AOP_SET_NAMES_MAX];
    tn_aop_set_names(d->ops, set, sizeof(set));
    if (tn_core.nnodes <= 1) {
        d->impl = TERN_AD_IMPL_CPU;
        snprintf(d->why, sizeof(d->why),
                 "cpu: every rank's segment is mapped on its node (1 node), CPU "
                 "atomics in place for %s {%s}",
                 tn_atype_name(d->type), set);
        return TERN_OK;
    }
    tn_core_xport_t *x = net_xport();
    char line[TN_AD_LINE_MAX] = "";
    if (x)
        x->ops.summary(x->x, line, sizeof(line));
    int mode = tn_cfg.ofi_atomics;
    if (mode == TN_AMO_CFG_AM)
        return choose_am(d, set, "TERN_OFI_ATOMICS=am asks for active messages");
    uint32_t missing = x ? d->ops & ~x->caps.atomics[d->type] : d->ops;
    if (!missing && mode == TN_AMO_CFG_AUTO && (x->caps.flags & TN_XCAP_AMO_SOFT) &&
        !(flags & TERN_AD_PROVIDER)) {
        /* The provider would run every op, but in the target's software
         * like the am path's handler, one message per op: the am path's
         * batched Requests reach ~10x its nbi rate at a similar blocking
         * latency (docs/design/atomics.md, "auto"). */
        char why[TN_AD_WHY_AM_MAX];
        snprintf(why, sizeof(why),
                 "the provider's atomics are emulated in the target's software (%.*s), "
                 "and active messages carry many ops in flight faster "
                 "(TERN_OFI_ATOMICS=net takes the provider's)",
                 (int)strcspn(line, ","), line); /* "ofi: provider P" */
        return choose_am(d, set, why);
    }
    if (!missing) {
        d->impl = TERN_AD_IMPL_NET;
        d->net = x;
        snprintf(d->why, sizeof(d->why),
                 "net: the job spans %d nodes and the network transport carries out "
                 "every op of %s {%s}; every target, node-local ones included, goes "
                 "through it (%s)",
                 tn_core.nnodes, tn_atype_name(d->type), set, line);
        return TERN_OK;
    }
    char miss[TN_AOP_SET_NAMES_MAX], why[TN_AD_WHY_AM_MAX];
    tn_aop_set_names(missing, miss, sizeof(miss));
    snprintf(why, sizeof(why), "the network transport (%s) does not carry out %s on %s",
             x ? line : "none", miss, tn_atype_name(d->type));
    if (mode == TN_AMO_CFG_AUTO)
        return choose_am(d, set, why);
    return tn_core_fail(TERN_ERR_UNSUPPORTED, "tern_ad_create",
                        "an atomic domain for %s {%s} needs the network (the job spans "
                        "%d nodes), and %s; TERN_OFI_ATOMICS=net refuses the "
                        "active-message path that would serve it: set "
                        "TERN_OFI_ATOMICS=auto, leave those operations out of the set, "
                        "or choose another TERN_OFI_PROVIDER",
                        tn_atype_name(d->type), set, tn_core.nnodes, why);
}

/* Validates the arguments of tern_ad_create. */
static int check_create(int type, uint32_t ops, tern_flags_t flags, tern_ad_t *out)
{
    const char *call = "tern_ad_create";
    if (!out)
        return tn_core_fail(TERN_ERR_INVALID, call, "out is NULL");
    if (type < 0 || type >= TN_ATYPE_COUNT)
        return tn_core_fail(TERN_ERR_INVALID, call, "type %d is not a TERN_AT_* value",
                            type);
    if (!ops || (ops & ~TN_AOPS_ALL))
        return tn_core_fail(TERN_ERR_INVALID, call, "op set 0x%x: %s", ops,
                            ops ? "bits beyond TERN_OP_* are set"
                                : "empty (an OR of TERN_OP_* values)");
    if ((type == TN_ATYPE_FLOAT || type == TN_ATYPE_DOUBLE) && (ops & TN_AOPS_BITWISE)) {
        char bad[TN_AOP_SET_NAMES_MAX];
        tn_aop_set_names(ops & TN_AOPS_BITWISE, bad, sizeof(bad));
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "bitwise operations (%s) are not defined on %s: leave them "
                            "out of the set",
                            bad, tn_atype_name(type));
    }
    if (flags & ~(tern_flags_t)TERN_AD_PROVIDER)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "flags 0x%x: bits 0x%x are not defined for it (pass 0 or "
                            "TERN_AD_PROVIDER)",
                            flags, flags & ~(tern_flags_t)TERN_AD_PROVIDER);
    return TERN_OK;
}

tern_status_t tern_ad_create(int type, uint32_t ops, tern_flags_t flags, tern_ad_t *out)
{
    TN_CHECK_INIT("tern_ad_create");
    int rc = check_create(type, ops, flags, out);
    if (rc != TERN_OK)
        return rc;
    struct tern_ad_s d = {.type = type, .ops = ops};
    rc = choose(&d, flags);
    if (rc != TERN_OK)
        return rc;
    tn_core_lock();
    struct tern_ad_s *slot = ad_used < TN_AD_MAX ? &ad_pool[ad_used++] : NULL;
    for (int i = 0; i < ad_used && !slot; i++)
        if (ad_pool[i].magic == TN_AD_DEAD)
            slot = &ad_pool[i];
    if (slot) {
        d.magic = TN_AD_LIVE;
        /* cpu and am domains run CPU atomics on every mapped peer: the
         * inline path may serve those (it checks the mapping). */
        d.fast.cpu = d.impl != TERN_AD_IMPL_NET ? TERN_AD_CPU_LIVE_ : 0;
        d.fast.type = type;
        d.fast.ops = ops;
        *slot = d;
    }
    tn_core_unlock();
    if (!slot)
        return tn_core_fail(TERN_ERR_NOMEM, "tern_ad_create",
                            "%d atomic domains exist already, the most there can be: "
                            "destroy one first",
                            TN_AD_MAX);
    tn_info("atomic domain %d: %s", (int)(slot - ad_pool), slot->why);
    *out = slot;
    return TERN_OK;
}

tern_status_t tern_ad_destroy(tern_ad_t ad)
{
    TN_CHECK_INIT("tern_ad_destroy");
    tn_core_lock();
    struct tern_ad_s *d = tn_ad_get(ad, "tern_ad_destroy");
    if (d) {
        d->fast.cpu = 0; /* the inline path sends it to the library's checks */
        d->magic = TN_AD_DEAD;
    }
    tn_core_unlock();
    return d ? TERN_OK : TERN_ERR_INVALID;
}

tern_status_t tern_ad_info(tern_ad_t ad, int *impl, char *why, size_t len)
{
    TN_CHECK_INIT("tern_ad_info");
    struct tern_ad_s *d = tn_ad_get(ad, "tern_ad_info");
    if (!d)
        return TERN_ERR_INVALID;
    if (impl)
        *impl = d->impl;
    if (why && len)
        snprintf(why, len, "%s", d->why);
    return TERN_OK;
}
