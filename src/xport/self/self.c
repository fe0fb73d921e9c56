/* Self transport (loopback): this rank's own segment is in this process,
 * so a transfer is a copy and every part ends in the call. The fast path's
 * copies with self take the shm transport's copy policy (shm_copy.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tern/status.h>

#include "xport/registry.h"
#include "xport/shm/shm_copy.h"

typedef struct tn_self {
    tn_xport_t base;
    int rank;
    uint64_t map_base, map_size; /* this rank's mapping (signal words) */
} tn_self_t;

static void self_query(tn_xport_t *x, tn_xport_caps_t *out)
{
    (void)x;
    memset(out, 0, sizeof(*out));
    out->flags = TN_XCAP_RMA | TN_XCAP_MAPPED | TN_XCAP_PUT_SIGNAL;
    out->rma_max = out->rma_frag = out->inject = SIZE_MAX;
}

static int self_rma(tn_xport_t *x, const tn_rma_t *op, const tn_xport_done_t *done,
                    unsigned flags)
{
    const tn_self_t *s = (const tn_self_t *)x;
    if (op->rank != s->rank)
        return TERN_ERR_RANK;
    if (flags & TN_XPORT_FLAG_SIGNAL) {
        int st =
            tn_xport_signal_check("self", op, flags, SIZE_MAX, s->map_base, s->map_size);
        if (st != TERN_OK)
            return st;
    }
    if (op->kind == TN_RMA_PUT)
        memmove(op->remote, op->local, op->n);
    else
        memmove(op->local, op->remote, op->n);
    if (flags & TN_XPORT_FLAG_SIGNAL) /* after the data (release) */
        tn_xport_signal_raise((_Atomic uint32_t *)op->signal, op->sigval);
    if (done->lc)
        tn_comp_done(done->lc, TERN_OK);
    if (done->rc)
        tn_comp_done(done->rc, TERN_OK);
    return TERN_OK;
}

static int self_peer_map(tn_xport_t *x, int rank, tn_xport_map_t *out)
{
    if (rank != ((tn_self_t *)x)->rank)
        return TERN_ERR_UNSUPPORTED;
    out->delta = 0;
    out->static_delta = 0; /* its own variables, at their own addresses */
    out->static_mapped = 1;
    /* Copies within this process follow the copy policy of mapped memory,
     * which the shm transport sets up for every mapped rank, this one
     * included (it is created on every rank). */
    out->copy_min = tn_shm_copy_min(rank);
    return TERN_OK;
}

static void self_destroy(tn_xport_t *x)
{
    free(x);
}

static void self_mem(tn_xport_t *x, tn_mem_tally_t *t, size_t *provider)
{
    (void)x, (void)provider;
    t->fixed += sizeof(tn_self_t);
}

static const tn_xport_ops_t self_ops = {
    .size = sizeof(tn_xport_ops_t),
    .name = "self",
    .destroy = self_destroy,
    .query = self_query,
    .poll = tn_xport_no_poll,
    .rma = self_rma,
    .peer_map = self_peer_map,
    .set_recv = tn_xport_no_set_recv,
    .msg_prepare = tn_xport_no_msg_prepare,
    .msg_commit = tn_xport_no_msg_commit,
    .summary = tn_xport_no_summary,
    .copy_info = tn_xport_no_copy_info,
    .amo = tn_xport_no_amo, /* core runs CPU atomics on mapped peers */
    .mem = self_mem,
};

int tn_self_create(const tn_xport_job_t *job, tn_xport_t **out)
{
    tn_self_t *s = calloc(1, sizeof(*s));
    if (!s)
        return TERN_ERR_NOMEM;
    s->base.ops = &self_ops;
    s->rank = job->rank;
    s->map_base = (uint64_t)(uintptr_t)job->map;
    s->map_size = job->map_size;
    *out = &s->base;
    return TERN_OK;
}
