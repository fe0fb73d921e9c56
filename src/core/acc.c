/* Accumulate (include/tern/acc.h): for a mapped peer, in place under the
 * stripe locks of its control area; for the others the scaled values are
 * written straight into negotiated Medium messages (no staging copy), sent
 * back to back, and the target's handler applies them under its own stripe
 * locks (the same ones) and Replies once per message. The caller's
 * completion object travels in each message and comes back in its Reply,
 * as for atomic domains' am path. */
#include <string.h>

#include "base/acc.h"
#include "base/compiler.h"
#include "base/log.h"
#include "core/am.h"
#include "core/atomic.h"
#include "core/event.h"

enum { H_REQUEST = TN_AMH_ATOMIC + 2 };

/* Offset of the stripe locks in every rank's control area (the same on
 * every rank: claimed in the same order everywhere). */
static size_t lock_off;

void tn_acc_plan(tn_ctrl_space_t *space)
{
    lock_off = tn_ctrl_alloc(space, TN_ACC_STRIPES * sizeof(tn_acc_lock_t), 64);
}

/* The stripe locks of a mapped rank (its control area is mapped here). */
tn_acc_lock_t *tn_acc_locks(int rank)
{
    return (tn_acc_lock_t *)(tn_core_peer(rank)->ctrl + lock_off);
}

/* Request args: [0] type, [1] dst (target's address), [2] elements, [3]
 * completion object. Payload: the scaled values. Reply args: [0] status,
 * [1] completion object. */
static void on_request(tern_am_token_t token, void *buf, size_t len,
                       const tern_am_arg_t *a, int nargs)
{
    int type = (int)a[0];
    size_t count = (size_t)a[2];
    void *dst = (void *)(uintptr_t)a[1];
    const tn_peer_info_t *seg = tn_core_info(tn_core.rank);
    uintptr_t d = (uintptr_t)dst, base = (uintptr_t)seg->data_base;
    size_t size = tn_acc_type_ok(type) ? tn_atype_size(type) : 8;
    int st = TERN_OK;
    /* The initiator checked all of this; a wrong message (a peer's bug)
     * must not write outside this rank's segment. */
    if (nargs != 4 || !tn_acc_type_ok(type) || len != count * size || (d & (size - 1)) ||
        d < base || d - base > seg->size || len > seg->size - (d - base)) {
        int src = -1;
        tern_am_source(token, &src);
        tn_error("accumulate message from rank %d is malformed (type %d, %zu elements "
                 "in %zu bytes at %p): not applied",
                 src, type, count, len, dst);
        st = TERN_ERR_INVALID;
    } else {
        tn_acc_striped(type, dst, d - base, buf, count, NULL, tn_acc_locks(tn_core.rank));
    }
    tn_am_reply_done("tern_acc (handler)", token, st, a[3]);
}

void tn_acc_am_init(void)
{
    tn_am_register_internal(H_REQUEST, on_request, "tern accumulate request");
}

static TN_NOINLINE int check_fail(const char *call, int rank, void *dst, const void *src,
                                  size_t count, int type, tern_flags_t flags)
{
    if (!tn_acc_type_ok(type))
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "type %d: accumulate takes TERN_AT_I32, TERN_AT_I64, "
                            "TERN_AT_FLOAT or TERN_AT_DOUBLE",
                            type);
    if (flags & ~TERN_FLAGS_KNOWN_)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "flags 0x%x: bits 0x%x are not TERN_FLAG_* values", flags,
                            flags & ~TERN_FLAGS_KNOWN_);
    if (count && !src)
        return tn_core_fail(TERN_ERR_INVALID, call, "src is NULL with %zu elements",
                            count);
    size_t size = tn_atype_size(type);
    if (count > SIZE_MAX / size)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "%zu elements of %s overflow the address space", count,
                            tn_atype_name(type));
    if (rank < 0 || rank >= tn_core.size)
        return tn_core_fail(TERN_ERR_RANK, call, "rank %d is not in [0, %d)", rank,
                            tn_core.size);
    if ((uintptr_t)dst & (size - 1))
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "dst %p is not aligned to the %zu bytes of %s", dst, size,
                            tn_atype_name(type));
    return tn_core_check_seg(call, rank, dst, count * size);
}

/* 1 when every argument is right (a few compares). */
static inline int args_ok(int rank, void *dst, const void *src, size_t count, int type,
                          tern_flags_t flags)
{
    if (!tn_acc_type_ok(type) || (flags & ~TERN_FLAGS_KNOWN_) || (count && !src) ||
        (unsigned)rank >= (unsigned)tn_core.size)
        return 0;
    size_t size = tn_atype_size(type);
    uintptr_t d = (uintptr_t)dst, base = (uintptr_t)tn_core_info(rank)->data_base;
    size_t seg = tn_core_info(rank)->size;
    return !(d & (size - 1)) && count <= SIZE_MAX / size && d >= base &&
           d - base <= seg && count * size <= seg - (d - base);
}

/* The messages of one accumulate to an unmapped peer, each counted in c.
 * IMMEDIATE applies to the first only: once one is sent the rest must
 * follow. */
int tn_acc_send(const char *call, int rank, char *dst, const char *src, size_t count,
                int type, const tn_aval_t *scale, tn_comp_t *c, unsigned flags,
                size_t *sent)
{
    size_t size = tn_atype_size(type);
    while (count) {
        tern_am_sd_t sd;
        size_t want = count * size;
        int rc = tern_am_prepare_request_medium(rank, NULL, size, want, 4, flags, &sd);
        if (rc != TERN_OK)
            return rc;
        size_t k = sd.len / size;
        tn_acc_scale(type, sd.buf, src, k, scale);
        tern_am_arg_t a[4] = {(uint64_t)type, (uint64_t)(uintptr_t)dst, (uint64_t)k,
                              (uint64_t)(uintptr_t)c};
        tn_comp_add(c, 1);
        rc = tn_am_commit_request_internal(&sd, H_REQUEST, k * size, a);
        if (rc != TERN_OK) {
            tn_comp_add(c, -1);
            return tn_core_fail(rc, call, "sending %zu elements to rank %d failed", k,
                                rank);
        }
        dst += k * size;
        src += k * size;
        count -= k;
        flags &= ~TERN_FLAG_IMMEDIATE;
        if (sent)
            ++*sent;
    }
    return TERN_OK;
}

static int acc(const char *call, tern_ctx_t ctx, int rank, void *dst, const void *src,
               size_t count, int type, const void *scale, tern_flags_t flags, int nbi)
{
    TN_CHECK_INIT(call);
    if (tn_unlikely(!args_ok(rank, dst, src, count, type, flags)))
        return check_fail(call, rank, dst, src, count, type, flags);
    struct tern_ctx_s *cx = tn_ctx_get(ctx, call);
    if (!cx)
        return TERN_ERR_INVALID;
    if (!count)
        return TERN_OK;
    tn_aval_t s;
    if (scale)
        memcpy(&s, scale, tn_atype_size(type));
    if (tn_core_fast(rank)->size && tn_core_peer(rank)->ctrl) {
        /* Mapped: in place; each unlock releases, ordering the updates
         * before whatever the caller publishes next (a flag put). */
        size_t off = (uintptr_t)dst - (uintptr_t)tn_core_info(rank)->data_base;
        tn_acc_striped(type, (char *)dst + tn_core_fast(rank)->delta, off, src, count,
                       scale ? &s : NULL, tn_acc_locks(rank));
        return TERN_OK;
    }
    TN_NOT_IN_HANDLER(call);
    tn_trace("%s(rank %d, %p, %zu x %s)", call, rank, dst, count, tn_atype_name(type));
    if (nbi)
        return tn_acc_send(call, rank, dst, src, count, type, scale ? &s : NULL, &cx->rc,
                           flags, NULL);
    if (tn_ctx_mode(cx) == TERN_ORDER_NONE) {
        /* The source is copied into the messages: return once they are
         * sent, counted in the context as an nbi accumulate is. Partial
         * waits as strict does: the active messages are not claimed to be
         * applied in the order sent (as the am path of atomic domains). */
        size_t sent = 0;
        int rc = tn_acc_send(call, rank, dst, src, count, type, scale ? &s : NULL,
                             &cx->rc, flags, &sent);
        if (sent)
            tn_ctx_mark_early(cx);
        return rc;
    }
    tn_comp_t c;
    tn_comp_init(&c, 0);
    int rc = tn_acc_send(call, rank, dst, src, count, type, scale ? &s : NULL, &c, flags,
                         NULL);
    /* Messages already sent complete (and are waited for) even when a later
     * one could not be: c is on this frame. */
    int wrc = tn_comp_wait(&c);
    if (rc != TERN_OK)
        return rc;
    return wrc == TERN_OK ? TERN_OK
                          : tn_core_fail(wrc, call,
                                         "accumulate of %zu elements at rank %d failed "
                                         "(cause logged above)",
                                         count, rank);
}

tern_status_t tern_ctx_acc(tern_ctx_t ctx, int rank, void *dst, const void *src,
                           size_t count, int type, const void *scale, tern_flags_t flags)
{
    return acc("tern_acc", ctx, rank, dst, src, count, type, scale, flags, 0);
}

tern_status_t tern_ctx_acc_nbi(tern_ctx_t ctx, int rank, void *dst, const void *src,
                               size_t count, int type, const void *scale,
                               tern_flags_t flags)
{
    return acc("tern_acc_nbi", ctx, rank, dst, src, count, type, scale, flags, 1);
}
