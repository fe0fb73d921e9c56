/* Strided accumulate (tern/acc.h): the strided description of tern/vis.h
 * with elements of an accumulate type, checked and optimized as for
 * strided puts, then applied element-wise atomically as the contiguous
 * accumulate is: in place under the target's stripe locks for a mapped
 * peer, packed into Medium messages applied by the target's handler
 * otherwise (pieces too large for a message go as contiguous accumulates). */
#include <string.h>

#include "base/acc.h"
#include "base/compiler.h"
#include "base/log.h"
#include "core/atomic.h"
#include "core/event.h"
#include "core/vis.h"

/* ---- mapped peers -------------------------------------------------------- */

typedef struct mapped_acc {
    intptr_t delta; /* target's address + delta = here */
    uintptr_t base; /* its segment, as it sees it */
    size_t size;    /* of an element */
    tn_acc_run_t run;
} mapped_acc_t;

static int mapped_row(void *arg, char *dst, ptrdiff_t dstride, const char *src,
                      ptrdiff_t sstride, size_t npieces, size_t n)
{
    mapped_acc_t *m = arg;
    tn_acc_run_row(&m->run, dst + m->delta, dstride, (uintptr_t)dst - m->base, src,
                   sstride, n / m->size, npieces);
    return 0;
}

/* ---- network peers ------------------------------------------------------- */

typedef struct aspec {
    const char *call;
    tn_vis_desc_t d;
    char *dst;
    const char *src;
    int type, pack;
    size_t rep;
    const tn_aval_t *scale;
    tn_vis_issue_t *is;
} aspec_t;

/* A piece too large to pack: one contiguous accumulate's messages. */
static int send_piece(void *arg, char *dst, const char *src, size_t n)
{
    aspec_t *a = arg;
    tn_vis_issue_t *is = a->is;
    size_t sent = 0;
    int rc = tn_acc_send(a->call, is->rank, dst, src, n / tn_atype_size(a->type), a->type,
                         a->scale, is->done.rc, is->flags, &sent);
    is->started += sent;
    if (sent)
        is->flags &= ~TERN_FLAG_IMMEDIATE;
    if (rc != TERN_OK) {
        is->err = rc;
        return 1;
    }
    return 0;
}

static void acc_issue(const void *spec, tn_vis_issue_t *is)
{
    aspec_t a = *(const aspec_t *)spec;
    a.is = is;
    for (size_t r = 0; r < a.rep && is->err == TERN_OK; r++) {
        if (a.pack)
            tn_vis_pack_acc(&a.d, a.dst, a.src, a.type, a.scale, is);
        else
            tn_vis_walk(&a.d, a.dst, a.src, send_piece, &a);
    }
}

/* ---- the calls ------------------------------------------------------------ */

static TN_NOINLINE int type_fail(const char *call, int type)
{
    return tn_core_fail(TERN_ERR_INVALID, call,
                        "type %d: accumulate takes TERN_AT_I32, TERN_AT_I64, "
                        "TERN_AT_FLOAT or TERN_AT_DOUBLE",
                        type);
}

static int acc_strided(const char *call, tern_ctx_t ctx, int rank, void *dst,
                       const ptrdiff_t *dststrides, const void *src,
                       const ptrdiff_t *srcstrides, const size_t *count, size_t levels,
                       int type, const void *scale, tern_flags_t flags, int nbi)
{
    TN_CHECK_INIT(call);
    if (!tn_acc_type_ok(type))
        return type_fail(call, type);
    if (flags & ~TERN_FLAGS_KNOWN_)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "flags 0x%x: bits 0x%x are not TERN_FLAG_* values", flags,
                            flags & ~TERN_FLAGS_KNOWN_);
    if (rank < 0 || rank >= tn_core.size)
        return tn_core_fail(TERN_ERR_RANK, call, "rank %d is not in [0, %d)", rank,
                            tn_core.size);
    struct tern_ctx_s *cx = NULL;
    if (nbi && ctx != TERN_CTX_DEFAULT && !(cx = tn_ctx_get(ctx, call)))
        return TERN_ERR_INVALID;
    if (!nbi && ctx != TERN_CTX_DEFAULT && !tn_ctx_get(ctx, call))
        return TERN_ERR_INVALID;
    size_t size = tn_atype_size(type), rep;
    aspec_t a = {.call = call, .dst = dst, .src = src, .type = type};
    int st = tn_vis_strided_desc(call, dst, dststrides, src, srcstrides, size, count,
                                 levels, &a.d, &rep);
    if (st != TERN_OK || a.d.elem == 0)
        return st;
    /* Every element of the destination naturally aligned: the base and
     * every stride that is walked. */
    if ((uintptr_t)dst & (size - 1))
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "dst %p is not aligned to the %zu bytes of %s", dst, size,
                            tn_atype_name(type));
    for (size_t k = 0; k < levels; k++)
        if (count[k] > 1 && (uint64_t)dststrides[k] % size)
            return tn_core_fail(
                TERN_ERR_INVALID, call,
                "dststrides[%zu] = %td is not a multiple of the %zu bytes "
                "of %s",
                k, dststrides[k], size, tn_atype_name(type));
    if ((st = tn_vis_check_extent(call, rank, &a.d, 1, dst)) != TERN_OK)
        return st;
    tn_aval_t s;
    if (scale)
        memcpy(&s, scale, size);
    a.scale = scale ? &s : NULL;
    a.rep = rep;
    tn_trace("%s(rank %d, %zu levels -> %d, %zu pieces of %zu B x %zu, %s)", call, rank,
             levels, a.d.ndims, tn_vis_pieces(&a.d), a.d.elem, rep, tn_atype_name(type));
    if (tn_core.fast[rank].size && tn_core.peers[rank].ctrl) {
        /* Mapped: in place; each unlock releases, as for tern_acc. */
        mapped_acc_t m = {tn_core.fast[rank].delta,
                          (uintptr_t)tn_core.peers[rank].seg.data_base,
                          size,
                          {type, a.scale, tn_acc_locks(rank), NULL}};
        for (size_t r = 0; r < rep; r++)
            tn_vis_walk_rows(&a.d, dst, src, mapped_row, &m);
        tn_acc_run_end(&m.run);
        return TERN_OK;
    }
    TN_NOT_IN_HANDLER(call);
    a.pack = a.d.elem <= tn_vis_pack_limit(rank, a.d.ndims);
    return tn_vis_run_net(call, nbi ? TERN_RMA_PUT_NBI_ : TERN_RMA_PUT_, cx, rank,
                          acc_issue, &a, NULL, NULL, flags);
}

tern_status_t tern_ctx_acc_strided(tern_ctx_t ctx, int rank, void *dst,
                                   const ptrdiff_t *dststrides, const void *src,
                                   const ptrdiff_t *srcstrides, const size_t *count,
                                   size_t stridelevels, int type, const void *scale,
                                   tern_flags_t flags)
{
    return acc_strided("tern_acc_strided", ctx, rank, dst, dststrides, src, srcstrides,
                       count, stridelevels, type, scale, flags, 0);
}

tern_status_t tern_ctx_acc_strided_nbi(tern_ctx_t ctx, int rank, void *dst,
                                       const ptrdiff_t *dststrides, const void *src,
                                       const ptrdiff_t *srcstrides, const size_t *count,
                                       size_t stridelevels, int type, const void *scale,
                                       tern_flags_t flags)
{
    return acc_strided("tern_acc_strided_nbi", ctx, rank, dst, dststrides, src,
                       srcstrides, count, stridelevels, type, scale, flags, 1);
}
