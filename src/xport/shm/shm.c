/* Shared-memory transport: cross-mapping of the node's segments and the
 * copy ops behind the ops table. The inline fast path (tern.h) copies
 * without them; they serve core's out-of-line calls. */
#include "xport/shm/shm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern/status.h>

#include "base/log.h"
#include "mem/segment.h"
#include "xport/shm/shm_copy.h"

/* Ranks ascend: a binary search. */
int tn_shm_local_index(const tn_shm_t *s, int rank)
{
    int lo = 0, hi = s->nlocal - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (s->ranks[mid] == rank)
            return mid;
        if (s->ranks[mid] < rank)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static void shm_query(tn_xport_t *x, tn_xport_caps_t *out)
{
    memset(out, 0, sizeof(*out));
    tn_shm_t *s = (tn_shm_t *)x;
    out->flags = TN_XCAP_RMA | TN_XCAP_MAPPED | TN_XCAP_MSG | TN_XCAP_ORDER_MSG |
                 TN_XCAP_PUT_SIGNAL;
    out->rma_max = out->rma_frag = out->inject = SIZE_MAX;
    out->msg_max = s->msg_max;
    out->msg_depth = tn_shm_queue_slots(s->ring_bytes);
}

static int shm_peer_map(tn_xport_t *x, int rank, tn_xport_map_t *out)
{
    tn_shm_t *s = (tn_shm_t *)x;
    int li = tn_shm_local_index(s, rank);
    if (li < 0)
        return TERN_ERR_UNSUPPORTED;
    out->delta = (intptr_t)((uintptr_t)s->maps[li] - (uintptr_t)s->ctrl_bases[li]);
    out->static_mapped = s->static_bases[li] != 0;
    out->static_delta =
        li == s->me || !out->static_mapped
            ? 0
            : (intptr_t)((uintptr_t)s->static_maps[li] - (uintptr_t)s->static_bases[li]);
    out->copy_min = tn_shm_copy_min(rank);
    return TERN_OK;
}

static int shm_copy_info(tn_xport_t *x, int rank, tern_copy_info_t *out)
{
    (void)x;
    tn_shm_copy_info(rank, out);
    return TERN_OK;
}

/* The peer's address (in its own space) translated into its mapping here;
 * then a copy, and the parts end at once. TN_XPORT_FLAG_SIGNAL: the
 * signal word raised after the copy. */
static int shm_rma(tn_xport_t *x, const tn_rma_t *op, const tn_xport_done_t *done,
                   unsigned flags)
{
    tn_shm_t *s = (tn_shm_t *)x;
    tn_xport_map_t m;
    if (shm_peer_map(x, op->rank, &m) != TERN_OK)
        return TERN_ERR_RANK;
    if (flags & TN_XPORT_FLAG_SIGNAL) { /* the word inside the peer's mapping */
        int li = tn_shm_local_index(s, op->rank);
        int st = tn_xport_signal_check("shm", op, flags, SIZE_MAX, s->ctrl_bases[li],
                                       s->map_sizes[li]);
        if (st != TERN_OK)
            return st;
    }
    if (op->region == TN_REGION_STATIC && !m.static_mapped)
        return TERN_ERR_RANGE; /* core checks first: not reached */
    intptr_t delta = op->region == TN_REGION_STATIC ? m.static_delta : m.delta;
    char *mapped = (char *)((uintptr_t)op->remote + (uintptr_t)delta);
    if (op->kind == TN_RMA_PUT)
        memmove(mapped, op->local, op->n);
    else
        memmove(op->local, mapped, op->n);
    if (flags & TN_XPORT_FLAG_SIGNAL)
        tn_xport_signal_raise(
            (_Atomic uint32_t *)((uintptr_t)op->signal + (uintptr_t)m.delta), op->sigval);
    if (done->lc)
        tn_comp_done(done->lc, TERN_OK);
    if (done->rc)
        tn_comp_done(done->rc, TERN_OK);
    return TERN_OK;
}

static void shm_summary(tn_xport_t *x, char *buf, size_t len)
{
    tn_shm_t *s = (tn_shm_t *)x;
    snprintf(buf, len,
             "shm: %d rank(s) on this node; message queues of %zu KiB per pair, "
             "largest message %zu B",
             s->nlocal, s->ring_bytes >> 10, s->msg_max);
}

static void shm_destroy(tn_xport_t *x)
{
    tn_shm_t *s = (tn_shm_t *)x;
    if (!s)
        return;
    if (s->copy_setup)
        tn_shm_copy_teardown();
    tn_shm_msg_teardown(s);
    for (int i = 0; s->maps && i < s->nlocal; i++)
        if (i != s->me && s->maps[i])
            tn_seg_unmap_peer(s->maps[i], s->map_sizes[i]);
    for (int i = 0; s->static_maps && i < s->nlocal; i++)
        if (s->static_maps[i])
            tn_seg_unmap_peer(s->static_maps[i], s->static_size);
    free(s->static_maps);
    free(s->static_bases);
    free(s->maps);
    free(s->map_sizes);
    free(s->ctrl_bases);
    free(s);
}

/* Private: the tables per local rank (mappings, message state) and the
 * copy policy's table over the span of this node's ranks; shared: this rank's message
 * queues, one from each local rank (its own included), in its control
 * area. The mapped peers' segments are theirs, not counted here. */
static void shm_mem(tn_xport_t *x, tn_mem_tally_t *t, size_t *provider)
{
    tn_shm_t *s = (tn_shm_t *)x;
    (void)provider;
    t->fixed += sizeof(*s);
    t->each_local += sizeof(*s->maps) + sizeof(*s->map_sizes) + sizeof(*s->ctrl_bases) +
                     sizeof(*s->static_maps) + sizeof(*s->static_bases) +
                     tn_shm_queue_private_bytes();
    if (s->copy_setup)
        t->each_span += sizeof(*tn_shm_copy_state.peers);
    t->shared_each_local += tn_shm_ctrl_bytes(1);
}

static const tn_xport_ops_t shm_ops = {
    .size = sizeof(tn_xport_ops_t),
    .name = "shm",
    .destroy = shm_destroy,
    .query = shm_query,
    .poll = tn_shm_poll,
    .rma = shm_rma,
    .peer_map = shm_peer_map,
    .set_recv = tn_shm_set_recv,
    .msg_prepare = tn_shm_msg_prepare,
    .msg_commit = tn_shm_msg_commit,
    .msg_send = tn_shm_msg_send,
    .summary = shm_summary,
    .copy_info = shm_copy_info,
    .amo = tn_xport_no_amo, /* core runs CPU atomics on mapped peers */
    .mem = shm_mem,
    .msg_queue = tn_shm_msg_queue,
    .msg_inqueues = tn_shm_msg_inqueues,
};

/* Maps the segments of the other ranks of this node (their memfds stay
 * open until core's start-up barrier after every transport is created),
 * then sets up the copy policy (collective: created on every rank). */
int tn_shm_create(const tn_xport_job_t *job, tn_xport_t **out)
{
    tn_shm_t *s = calloc(1, sizeof(*s));
    if (!s)
        return TERN_ERR_NOMEM;
    s->base.ops = &shm_ops;
    int n = job->local_size;
    s->nlocal = n;
    s->me = job->local_rank;
    s->ranks = job->local_ranks;
    s->maps = calloc((size_t)n, sizeof(*s->maps));
    s->map_sizes = calloc((size_t)n, sizeof(*s->map_sizes));
    s->ctrl_bases = calloc((size_t)n, sizeof(*s->ctrl_bases));
    s->static_maps = calloc((size_t)n, sizeof(*s->static_maps));
    s->static_bases = calloc((size_t)n, sizeof(*s->static_bases));
    if (!s->maps || !s->map_sizes || !s->ctrl_bases || !s->static_maps ||
        !s->static_bases) {
        shm_destroy(&s->base);
        return TERN_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        const tn_seg_info_t *in = &job->segs[s->ranks[i]];
        s->ctrl_bases[i] = in->data_base - in->ctrl_size;
        s->map_sizes[i] = in->map_size; /* this rank's own: never unmapped */
        if (i == s->me) {
            s->maps[i] = job->map;
            continue;
        }
        int rc = tn_seg_map_peer(in->pid, in->fd, in->map_size, &s->maps[i]);
        if (rc != TERN_OK) {
            tn_error("shared memory with local rank %d (global %d) failed: run with "
                     "TERN_SHM=off to reach every rank through the network transport",
                     i, s->ranks[i]);
            shm_destroy(&s->base);
            return rc;
        }
    }
    /* The static regions (core publishes them only when every rank has
     * one of the same size): this rank's own at its own addresses, the
     * others' through their memfds, as the segments. */
    for (int i = 0; i < n; i++) {
        const tn_seg_info_t *in = &job->segs[s->ranks[i]];
        if (!in->static_size || (i != s->me && in->static_fd < 0))
            continue;
        s->static_size = in->static_size;
        if (i != s->me) {
            int rc = tn_seg_map_peer(in->pid, in->static_fd, in->static_size,
                                     &s->static_maps[i]);
            if (rc != TERN_OK) {
                tn_error("mapping the global variables of local rank %d (global %d) "
                         "failed: set TERN_STATIC_DATA=off to run without remote "
                         "access to global and static variables",
                         i, s->ranks[i]);
                shm_destroy(&s->base);
                return rc;
            }
        }
        s->static_bases[i] = in->static_base;
    }
    int mrc = tn_shm_msg_setup(s, job);
    if (mrc != TERN_OK) {
        shm_destroy(&s->base);
        return mrc;
    }
    /* The copy policy for every mapped rank, this one included: the
     * segments as mapped here. It is one per process (tern_copy_ reads
     * it): a second instance (the transport-contract test's, over a
     * segment of its own; collective, so every rank skips alike) keeps
     * the first one's. */
    if (tn_shm_copy_state.peers) {
        *out = &s->base;
        return TERN_OK;
    }
    uintptr_t *lo = calloc((size_t)job->span, sizeof(*lo));
    if (!lo) {
        shm_destroy(&s->base);
        return TERN_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++)
        lo[s->ranks[i] - job->span_first] =
            (uintptr_t)s->maps[i] + job->segs[s->ranks[i]].ctrl_size;
    int rc = tn_shm_copy_setup(job, lo);
    free(lo);
    if (rc != TERN_OK) {
        shm_destroy(&s->base);
        return rc;
    }
    s->copy_setup = 1;
    *out = &s->base;
    return TERN_OK;
}
