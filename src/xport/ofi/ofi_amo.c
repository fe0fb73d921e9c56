/* Remote atomics over libfabric: which ops the provider carries out
 * (fi_query_atomic, asked once per type and op), and one atomic as
 * fi_atomicmsg, fi_fetch_atomicmsg or fi_compare_atomicmsg on the same
 * descriptors and completion queue as RMA. SUB, INC and DEC travel as
 * FI_SUM of the negated operand, 1 or -1. */
#include <string.h>

#include <rdma/fi_atomic.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include <tern.h>

#include "base/compiler.h"
#include "base/log.h"
#include "base/wait.h"
#include "xport/ofi/ofi.h"
#include "xport/ofi/ofi_dl.h"

static const enum fi_datatype datatypes[TN_ATYPE_COUNT] = {
    [TN_ATYPE_I32] = FI_INT32,   [TN_ATYPE_U32] = FI_UINT32,
    [TN_ATYPE_I64] = FI_INT64,   [TN_ATYPE_U64] = FI_UINT64,
    [TN_ATYPE_FLOAT] = FI_FLOAT, [TN_ATYPE_DOUBLE] = FI_DOUBLE,
};

/* The libfabric op for each of ours (fetching forms: the same op, fetched),
 * and the kind of call: 0 fi_atomic, 1 fi_fetch_atomic, 2 fi_compare_atomic. */
static const struct {
    enum fi_op op;
    int call;
} fi_ops[TN_AOP_COUNT] = {
    [TN_AOP_GET] = {FI_ATOMIC_READ, 1},   [TN_AOP_SET] = {FI_ATOMIC_WRITE, 0},
    [TN_AOP_SWAP] = {FI_ATOMIC_WRITE, 1}, [TN_AOP_CSWAP] = {FI_CSWAP, 2},
    [TN_AOP_ADD] = {FI_SUM, 0},           [TN_AOP_SUB] = {FI_SUM, 0},
    [TN_AOP_INC] = {FI_SUM, 0},           [TN_AOP_DEC] = {FI_SUM, 0},
    [TN_AOP_AND] = {FI_BAND, 0},          [TN_AOP_OR] = {FI_BOR, 0},
    [TN_AOP_XOR] = {FI_BXOR, 0},          [TN_AOP_MIN] = {FI_MIN, 0},
    [TN_AOP_MAX] = {FI_MAX, 0},           [TN_AOP_MULT] = {FI_PROD, 0},
    [TN_AOP_FADD] = {FI_SUM, 1},          [TN_AOP_FSUB] = {FI_SUM, 1},
    [TN_AOP_FINC] = {FI_SUM, 1},          [TN_AOP_FDEC] = {FI_SUM, 1},
    [TN_AOP_FAND] = {FI_BAND, 1},         [TN_AOP_FOR] = {FI_BOR, 1},
    [TN_AOP_FXOR] = {FI_BXOR, 1},         [TN_AOP_FMIN] = {FI_MIN, 1},
    [TN_AOP_FMAX] = {FI_MAX, 1},          [TN_AOP_FMULT] = {FI_PROD, 1},
};

static const uint64_t query_flags[3] = {0, FI_FETCH_ATOMIC, FI_COMPARE_ATOMIC};

void tn_ofi_amo_caps(tn_ofi_t *o, uint32_t out[TN_ATYPE_COUNT])
{
    memset(out, 0, sizeof(uint32_t) * TN_ATYPE_COUNT);
    if (!(o->info->caps & FI_ATOMIC) || o->atomics_off)
        return; /* the endpoint was opened without atomics, or told not to */
    for (int t = 0; t < TN_ATYPE_COUNT; t++)
        for (int op = 0; op < TN_AOP_COUNT; op++) {
            struct fi_atomic_attr attr = {0};
            int rc = fi_query_atomic(o->domain, datatypes[t], fi_ops[op].op, &attr,
                                     query_flags[fi_ops[op].call]);
            if (rc == 0 && attr.count >= 1)
                out[t] |= TN_AOP_BIT(op);
        }
    for (int t = 0; t < TN_ATYPE_COUNT; t++)
        out[t] &= ~o->fault.amo_hidden; /* TERN_TEST_FAULT=noamo:OP */
    tn_debug("ofi atomics: i32 0x%x u32 0x%x i64 0x%x u64 0x%x float 0x%x double 0x%x",
             out[0], out[1], out[2], out[3], out[4], out[5]);
}

/* Providers whose atomics the target's software applies when it
 * progresses: the utility providers emulate them with messages (ofi_rxm
 * and ofi_rxd, over tcp, verbs or udp), and these core providers apply
 * them in software at the receiver (efa and psm2/3 with request packets
 * or active messages, shm and sockets in their progress). The other
 * providers (cxi, gni) leave them to the NIC. A provider name is the
 * stack, core first ("tcp;ofi_rxm"): one software layer is enough. */
static const char *const soft_provs[] = {"ofi_rxm", "ofi_rxd", "tcp",  "udp",  "sockets",
                                         "shm",     "efa",     "psm2", "psm3", "net"};

int tn_ofi_amo_soft(const struct fi_info *info)
{
    const char *p = info->fabric_attr ? info->fabric_attr->prov_name : NULL;
    while (p && *p) {
        size_t n = strcspn(p, ";");
        for (size_t i = 0; i < sizeof(soft_provs) / sizeof(soft_provs[0]); i++)
            if (strlen(soft_provs[i]) == n && strncmp(p, soft_provs[i], n) == 0)
                return 1;
        p += n + (p[n] == ';');
    }
    return 0;
}

/* Core providers without RDMA: a read waits for the target's provider to
 * progress, as a message does. ofi_rxm over verbs has hardware reads. */
static const char *const soft_cores[] = {"tcp", "udp", "sockets", "net"};

int tn_ofi_rma_soft(const struct fi_info *info)
{
    const char *p = info->fabric_attr ? info->fabric_attr->prov_name : NULL;
    size_t n = p ? strcspn(p, ";") : 0;
    for (size_t i = 0; n && i < sizeof(soft_cores) / sizeof(soft_cores[0]); i++)
        if (strlen(soft_cores[i]) == n && strncmp(p, soft_cores[i], n) == 0)
            return 1;
    return 0;
}

/* The operand libfabric gets for op: a1, or what turns SUB, INC and DEC
 * into FI_SUM. */
static tn_aval_t operand(const tn_amo_t *op)
{
    tn_aval_t v = op->a1;
    int base = op->op >= TN_AOP_FADD ? op->op - TN_AOP_FADD + TN_AOP_ADD : op->op;
    int neg = base == TN_AOP_SUB || base == TN_AOP_DEC;
    if (base == TN_AOP_INC || base == TN_AOP_DEC) {
        memset(&v, 0, sizeof(v));
        switch (op->type) {
        case TN_ATYPE_FLOAT: v.f = 1; break;
        case TN_ATYPE_DOUBLE: v.d = 1; break;
        case TN_ATYPE_I32:
        case TN_ATYPE_U32: v.u32 = 1; break;
        default: v.u64 = 1; break;
        }
    }
    if (neg) {
        switch (op->type) {
        case TN_ATYPE_FLOAT: v.f = -v.f; break;
        case TN_ATYPE_DOUBLE: v.d = -v.d; break;
        case TN_ATYPE_I32:
        case TN_ATYPE_U32: v.u32 = 0u - v.u32; break; /* wraps as the sum must */
        default: v.u64 = 0u - v.u64; break;
        }
    }
    return v;
}

/* Posts op's call once; -FI_EAGAIN and other errors as libfabric says. */
static ssize_t post(tn_ofi_t *o, const tn_amo_t *a, tn_ofi_op_t *op, char *buf,
                    void *desc)
{
    struct fi_ioc ioc = {.addr = buf, .count = 1};
    struct fi_rma_ioc rioc = {.addr = tn_ofi_raddr(o, a->rank, a->remote, a->region),
                              .count = 1,
                              .key = tn_ofi_rkey(o, a->rank, a->region)};
    struct fi_msg_atomic msg = {.msg_iov = &ioc,
                                .desc = &desc,
                                .iov_count = 1,
                                .addr = tn_ofi_faddr(o, a->rank),
                                .rma_iov = &rioc,
                                .rma_iov_count = 1,
                                .datatype = datatypes[a->type],
                                .op = fi_ops[a->op].op,
                                .context = op};
    struct fi_ioc cmp = {.addr = buf + 8, .count = 1},
                  res = {.addr = buf + 16, .count = 1};
    void *cdesc = desc, *rdesc = desc;
    uint64_t fl = FI_COMPLETION | FI_DELIVERY_COMPLETE;
    switch (fi_ops[a->op].call) {
    case 0: return fi_atomicmsg(o->ep, &msg, fl);
    case 1: return fi_fetch_atomicmsg(o->ep, &msg, &res, &rdesc, 1, fl);
    default:
        return fi_compare_atomicmsg(o->ep, &msg, &cmp, &cdesc, 1, &res, &rdesc, 1, fl);
    }
}

int tn_ofi_amo_issue(tn_ofi_t *o, const tn_amo_t *a, tn_comp_t *rc, unsigned flags)
{
    tn_wait_net_used(); /* a reply may follow: the waits poll at every step */
    tn_ofi_op_t *op = tn_ofi_op_wait(o, flags);
    if (!op)
        return TERN_ERR_AGAIN;
    size_t size = tn_atype_size(a->type);
    /* Operand at 0, compare value at 8, result at 16: in the registered
     * bounce slot where local buffers need registration, else in op. All
     * 8 bytes of each value (libfabric reads size): moves, not calls. */
    char *buf = o->mr_local ? op->bounce : (char *)op->scratch;
    void *desc = o->mr_local ? fi_mr_desc(o->bounce_mr) : NULL;
    tn_aval_t v = a->op == TN_AOP_CSWAP ? a->a2 : operand(a);
    memcpy(buf, &v, sizeof(v));
    memcpy(buf + 8, &a->a1, sizeof(a->a1));
    op->rank = a->rank;
    op->is_get = 0;
    op->is_amo = 1;
    op->ctrl = (flags & TN_XPORT_FLAG_CTRL) != 0;
    op->lc = NULL;
    op->rc = rc;
    if (a->result) {
        op->copy_out = a->result;
        op->copy_from = buf + 16;
        op->copy_len = size;
    }
    if (!op->ctrl && tn_ofi_fault_now(&o->fault.issues, o->fault.issue_every)) {
        tn_ofi_op_give(o, op);
        tn_error("libfabric atomic %s to rank %d failed: fault injected at issue "
                 "(TERN_TEST_FAULT)",
                 tn_aop_name(a->op), a->rank);
        return TERN_ERR_SYS;
    }
    /* IMMEDIATE (and every issue from a handler or the queue): one more
     * try after a poll that only reads completions, then refused; never a
     * loop of polls. */
    uint64_t iter = 0; /* retries */
    tn_wait_t w = TN_WAIT_NET;
    for (;;) {
        TN_PEER_WRITES_BEGIN(); /* the provider may progress inside a post too */
        ssize_t r = post(o, a, op, buf, desc);
        TN_PEER_WRITES_END();
        if (r == 0)
            break;
        if (r != -FI_EAGAIN) {
            tn_ofi_op_give(o, op);
            tn_error("libfabric atomic %s (%s) to rank %d failed: %s", tn_aop_name(a->op),
                     tn_atype_name(a->type), a->rank, tn_fi.strerror((int)-r));
            return tn_ofi_status((int)r);
        }
        if ((flags & TERN_FLAG_IMMEDIATE) && (iter > 0 || tn_ofi_poll(&o->base) == 0)) {
            tn_ofi_op_give(o, op);
            tn_wait_refused();
            return TERN_ERR_AGAIN;
        }
        if (!(flags & TERN_FLAG_IMMEDIATE) && tn_ofi_poll(&o->base) == 0)
            tn_wait_next(&w);
        iter++;
    }
    tn_trace("ofi: atomic %s (%s) to rank %d at %p issued", tn_aop_name(a->op),
             tn_atype_name(a->type), a->rank, a->remote);
    return TERN_OK;
}

int tn_ofi_amo(tn_xport_t *x, const tn_amo_t *a, const tn_xport_done_t *done,
               unsigned flags)
{
    tn_ofi_t *o = (tn_ofi_t *)x;
    /* From a handler, or behind RMA or atomics that handlers queued: never
     * wait in a handler, and keep one thread's order (ofi_defer.c). */
    if (tn_unlikely((flags & TN_XPORT_FLAG_HANDLER) ||
                    atomic_load_explicit(&o->ndefer, memory_order_relaxed))) {
        int st = tn_ofi_defer_amo(o, a, done, flags);
        if (st != TN_OFI_DEFER_GO_ON)
            return st;
    }
    int pst = tn_ofi_peer(o, a->rank); /* first contact: its address */
    if (pst != TERN_OK)
        return pst;
    int st = tn_ofi_amo_issue(o, a, done->rc, flags);
    if (st == TERN_OK && done->lc)
        tn_comp_done(done->lc, TERN_OK); /* operands are copied: reusable */
    return st;
}

/* The ops of every type that the provider of info carries out, for
 * tern-info: a fabric and domain are opened for fi_query_atomic, nothing
 * else. */
void tn_ofi_amo_describe(FILE *out, struct fi_info *info, int enabled)
{
    if (!(info->caps & FI_ATOMIC)) {
        fprintf(out, "  atomics   none (the provider has no FI_ATOMIC): atomic domains "
                     "across nodes need the active-message path\n");
        return;
    }
    struct fid_fabric *fabric = NULL;
    tn_ofi_t o = {.info = info}; /* what the provider offers, used or not */
    if (tn_fi.fabric(info->fabric_attr, &fabric, NULL) != 0 ||
        fi_domain(fabric, info, &o.domain, NULL) != 0) {
        fprintf(out, "  atomics   (could not open the domain to ask fi_query_atomic)\n");
        if (fabric)
            fi_close(&fabric->fid);
        return;
    }
    uint32_t caps[TN_ATYPE_COUNT];
    tn_ofi_amo_caps(&o, caps);
    fprintf(out, "  atomics   what fi_query_atomic confirms%s:\n",
            enabled ? "" : " (TERN_OFI_ATOMICS=am: none used)");
    fprintf(out, "    applied by %s\n",
            tn_ofi_amo_soft(info)
                ? "the target's software when it progresses (emulated): "
                  "TERN_OFI_ATOMICS=auto takes active messages instead"
                : "the NIC: TERN_OFI_ATOMICS=auto takes them where they cover the set");
    for (int t = 0; t < TN_ATYPE_COUNT; t++) {
        uint32_t all = t >= TN_ATYPE_FLOAT ? TN_AOPS_ALL & ~TN_AOPS_BITWISE : TN_AOPS_ALL;
        char miss[200];
        tn_aop_set_names(all & ~caps[t], miss, sizeof(miss));
        if (!(all & ~caps[t]))
            fprintf(out, "    %-7s every op\n", tn_atype_name(t));
        else if (!caps[t])
            fprintf(out, "    %-7s none\n", tn_atype_name(t));
        else
            fprintf(out, "    %-7s all but %s\n", tn_atype_name(t), miss);
    }
    fi_close(&o.domain->fid);
    fi_close(&fabric->fid);
}
