/* Shared-memory transport: cross-mapping of the node's segments, copy ops
 * for the out-of-line path, and the node barrier. */
#include "xport/shm/shm.h"

#include <stdlib.h>
#include <string.h>

#include <tern/status.h>

#include "base/log.h"
#include "base/wait.h"
#include "mem/segment.h"

/* A transfer through the ops table (the transport contract; core's
 * inline path copies without it): translate the peer's address into its
 * mapping here, copy, end the parts at once. */
static int shm_rma(tn_xport_t *x, const tn_rma_t *op, const tn_xport_done_t *done,
                   unsigned flags)
{
    tn_shm_t *s = (tn_shm_t *)x;
    int li = 0;
    while (li < s->nlocal && s->ranks[li] != op->rank)
        li++;
    if (li == s->nlocal)
        return TERN_ERR_RANK;
    uint64_t off = (uint64_t)(uintptr_t)op->remote - s->bases[li];
    char *mapped = (char *)s->maps[li] + s->ctrl_sizes[li] + off;
    if (op->kind == TN_RMA_PUT)
        memcpy(mapped, op->local, op->n);
    else
        memcpy(op->local, mapped, op->n);
    if (done->lc)
        tn_comp_done(done->lc, TERN_OK);
    if (done->rc)
        tn_comp_done(done->rc, TERN_OK);
    return TERN_OK;
}

static int shm_poll(tn_xport_t *x)
{
    return 0;
}

static void shm_destroy_op(tn_xport_t *x)
{
    tn_shm_destroy((tn_shm_t *)x);
}

static const tn_xport_ops_t shm_ops = {
    .size = sizeof(tn_xport_ops_t),
    .name = "shm",
    .rma = shm_rma,
    .poll = shm_poll,
    .destroy = shm_destroy_op,
};

int tn_shm_create(int nlocal, int me, const int *ranks, const tn_seg_info_t *infos,
                  void *my_map, int wait_mode, int oversubscribed, long spin_count,
                  tn_shm_t **out)
{
    tn_shm_t *s = calloc(1, sizeof(*s));
    if (!s)
        return TERN_ERR_NOMEM;
    s->base.ops = &shm_ops;
    s->nlocal = nlocal;
    s->me = me;
    s->ranks = ranks;
    s->wait_mode = wait_mode;
    s->oversubscribed = oversubscribed;
    s->spin_count = spin_count;
    s->maps = calloc((size_t)nlocal, sizeof(*s->maps));
    s->map_sizes = calloc((size_t)nlocal, sizeof(*s->map_sizes));
    s->ctrl = calloc((size_t)nlocal, sizeof(*s->ctrl));
    s->bases = calloc((size_t)nlocal, sizeof(*s->bases));
    s->ctrl_sizes = calloc((size_t)nlocal, sizeof(*s->ctrl_sizes));
    if (!s->maps || !s->map_sizes || !s->ctrl || !s->bases || !s->ctrl_sizes) {
        tn_shm_destroy(s);
        return TERN_ERR_NOMEM;
    }
    for (int i = 0; i < nlocal; i++) {
        if (i == me) {
            s->maps[i] = my_map;
        } else {
            int rc = tn_seg_map_peer(infos[i].pid, infos[i].fd, infos[i].map_size,
                                     &s->maps[i]);
            if (rc != TERN_OK) {
                tn_error("shared memory with local rank %d (global %d) failed; "
                         "TERN_SHM=off is not available yet",
                         i, ranks[i]);
                tn_shm_destroy(s);
                return rc;
            }
            s->map_sizes[i] = infos[i].map_size;
        }
        s->ctrl[i] = (tn_ctrl_t *)s->maps[i];
        s->bases[i] = infos[i].data_base;
        s->ctrl_sizes[i] = infos[i].ctrl_size;
    }
    *out = s;
    return TERN_OK;
}

void tn_shm_destroy(tn_shm_t *s)
{
    if (!s)
        return;
    for (int i = 0; s->maps && i < s->nlocal; i++)
        if (i != s->me)
            tn_seg_unmap_peer(s->maps[i], s->map_sizes[i]);
    free(s->maps);
    free(s->map_sizes);
    free(s->ctrl);
    free(s->bases);
    free(s->ctrl_sizes);
    free(s);
}

/* Dissemination barrier: in round k rank i signals (i + 2^k) mod n and
 * waits for the signal of (i - 2^k) mod n. Each flag has one writer, and
 * epochs only grow, so a plain store of the epoch suffices; a writer that
 * runs one barrier ahead only raises the value further, which still
 * satisfies the reader's "at least this epoch". */
void tn_shm_barrier(tn_shm_t *s)
{
    int n = s->nlocal;
    if (n <= 1)
        return;
    uint32_t epoch = ++s->epoch;
    int k = 0;
    for (int dist = 1; dist < n; dist <<= 1, k++) {
        int to = (s->me + dist) % n;
        tn_ctrl_flag_t *out = &s->ctrl[to]->node_barrier[k];
        atomic_store_explicit(&out->epoch, epoch, memory_order_seq_cst);
        tn_wait_wake(&out->epoch, &out->sleeping);
        tn_ctrl_flag_t *in = &s->ctrl[s->me]->node_barrier[k];
        for (;;) {
            uint32_t v = atomic_load_explicit(&in->epoch, memory_order_acquire);
            if ((int32_t)(v - epoch) >= 0)
                break;
            tn_wait_u32_change(&in->epoch, v, &in->sleeping);
        }
    }
}
