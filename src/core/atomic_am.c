/* The active-message path of atomic domains: a Short Request carries the
 * op to its target, whose handler runs it with CPU atomics (tn_amo_cpu,
 * the code of the cpu path) and Replies with the old value. The Request
 * carries the initiator's result pointer and completion object, and the
 * Reply brings them back: the completion object (a frame's, an event's
 * or the context's nbi count) is the pending-operation record, so no
 * table or allocation stands between a call and its Reply. */
#include <string.h>

#include "base/log.h"
#include "core/am.h"
#include "core/atomic.h"

enum { H_REQUEST = TN_AMH_ATOMIC, H_REPLY = TN_AMH_ATOMIC + 1 };

/* Request args: [0] type | op << 8, [1] the word (the target's address),
 * [2] a1, [3] a2, [4] result (initiator's, 0: none), [5] completion, [6]
 * the initiator's pending count (tn_ad_pending_mine). Reply args: [0]
 * status (low 32 bits) | value bytes << 32, [1] the old value, [2] result,
 * [3] completion, [4] the pending count. */
static void on_request(tern_am_token_t token, void *buf, size_t len,
                       const tern_am_arg_t *a, int nargs)
{
    (void)buf;
    (void)len;
    int type = (int)(a[0] & 0xff), op = (int)((a[0] >> 8) & 0xff);
    void *p = (void *)(uintptr_t)a[1];
    tn_aval_t a1, a2, old;
    a1.u64 = a[2];
    a2.u64 = a[3];
    old.u64 = 0;
    int st = TERN_OK;
    int src = -1;
    tern_am_source(token, &src);
    /* The initiator checked all of this; a message that is wrong anyway
     * (a peer's bug) must not write outside this rank's segment and
     * static region. */
    uintptr_t w = (uintptr_t)p;
    size_t size = type >= 0 && type < TN_ATYPE_COUNT ? tn_atype_size(type) : 8;
    if (nargs != 7 || type < 0 || type >= TN_ATYPE_COUNT || op < 0 ||
        op >= TN_AOP_COUNT || (w & (size - 1)) ||
        tn_core_region(tn_core.rank, w, size) < 0) { /* segment or static region */
        tn_error("atomic request from rank %d is malformed (type %d, op %d, word %p, "
                 "%d args): not run",
                 src, type, op, p, nargs);
        st = TERN_ERR_INVALID;
    } else {
        tn_amo_cpu(type, op, p, &a1, &a2, &old);
    }
    if (nargs < 7)
        return; /* nothing to answer to */
    tern_am_arg_t r[5] = {(uint64_t)(uint32_t)st | (uint64_t)size << 32, old.u64, a[4],
                          a[5], a[6]};
    tn_am_reply_internal("atomic domain (active-message path)", token, H_REPLY,
                         TN_AM_SHORT, NULL, 0, NULL, r, 5, 0);
}

static void on_reply(tern_am_token_t token, void *buf, size_t len, const tern_am_arg_t *a,
                     int nargs)
{
    (void)token;
    (void)buf;
    (void)len;
    if (nargs != 5)
        return;
    int st = (int)(uint32_t)a[0];
    size_t size = (size_t)(a[0] >> 32);
    void *result = (void *)(uintptr_t)a[2];
    if (result && st == TERN_OK)
        memcpy(result, &a[1], size); /* little-endian: the value's bytes */
    /* The op ran at the target: a fetch by mailbox overtakes nothing of
     * it now. Before the completion, which may let the caller go on. */
    atomic_fetch_sub_explicit((_Atomic long *)(uintptr_t)a[4], 1, memory_order_release);
    /* The release in tn_comp_done publishes *result to the waiter; the
     * object may be gone right after. */
    tn_comp_done((tn_comp_t *)(uintptr_t)a[3], st);
}

void tn_ad_am_init(void)
{
    tn_am_register_internal(H_REQUEST, on_request, "tern atomic request");
    tn_am_register_internal(H_REPLY, on_reply, "tern atomic reply");
    tn_ad_agg_init();
    tn_ad_mbox_init();
}

int tn_ad_am_start(const char *call, const tn_amo_t *op, tn_comp_t *c, unsigned flags)
{
    _Atomic long *pending = tn_ad_pending_mine();
    tern_am_arg_t a[7] = {(uint64_t)op->type | (uint64_t)op->op << 8,
                          (uint64_t)(uintptr_t)op->remote,
                          op->a1.u64,
                          op->a2.u64,
                          (uint64_t)(uintptr_t)op->result,
                          (uint64_t)(uintptr_t)c,
                          (uint64_t)(uintptr_t)pending};
    tn_comp_add(c, 1);
    atomic_fetch_add_explicit(pending, 1, memory_order_relaxed);
    int rc = tn_am_request_internal(call, op->rank, H_REQUEST, TN_AM_SHORT, NULL, 0, NULL,
                                    a, 7, flags);
    if (rc != TERN_OK) {
        tn_comp_add(c, -1);
        atomic_fetch_sub_explicit(pending, 1, memory_order_relaxed);
    }
    return rc;
}
