/* The world team and its barrier: a dissemination inside each node over
 * flags in the members' control areas (stores), and one among the node
 * leaders (network writes through the peers' transports). */
#include "core/team.h"

#include <stdlib.h>

#include "base/wait.h"
#include "core/core.h"
#include "core/event.h"

static int ceil_log2(int n)
{
    int r = 0;
    while ((1L << r) < n)
        r++;
    return r;
}

/* Claims rounds flags for a level; the same claim on every rank. */
static int level_plan(tn_team_level_t *l, const int *ranks, int n, int me, int rounds,
                      tn_ctrl_space_t *space)
{
    l->ranks = ranks;
    l->n = n;
    l->me = me;
    l->rounds = rounds;
    l->epoch = 0;
    l->off = tn_ctrl_alloc(space, (size_t)rounds * TN_CTRL_LINE, TN_CTRL_LINE);
    l->vals = calloc((size_t)(rounds ? rounds : 1), sizeof(*l->vals));
    return l->vals ? TERN_OK : TERN_ERR_NOMEM;
}

int tn_team_world_plan(tn_team_t *t, tn_ctrl_space_t *space)
{
    t->size = tn_core.size;
    t->rank = tn_core.rank;
    t->nnodes = tn_core.nnodes;
    tn_comp_init(&t->comp, 0);
    /* The node level's flags are claimed for the largest node, so that the
     * net level's offset is the same on every rank. */
    int rc = level_plan(&t->node, tn_core.local_ranks, tn_core.local_size,
                        tn_core.local_rank, ceil_log2(tn_core.largest_node), space);
    if (rc == TERN_OK)
        rc = level_plan(&t->net, tn_core.node_leaders, tn_core.nnodes, tn_core.node,
                        ceil_log2(tn_core.nnodes), space);
    return rc;
}

void tn_team_destroy(tn_team_t *t)
{
    free(t->node.vals);
    free(t->net.vals);
    t->node.vals = t->net.vals = NULL;
}

/* Flag k of level l in rank's control area: signal epoch to it. */
static void signal_flag(tn_team_t *t, tn_team_level_t *l, int k, int rank, uint32_t epoch)
{
    size_t off = l->off + (size_t)k * TN_CTRL_LINE;
    const tn_peer_t *p = tn_core_peer(rank);
    if (p->ctrl) {
        tn_ctrl_flag_t *f = (tn_ctrl_flag_t *)(p->ctrl + off);
        atomic_store_explicit(&f->epoch, epoch, memory_order_seq_cst);
        tn_wait_wake(&f->epoch, &f->sleeping);
        return;
    }
    const tn_peer_info_t *in = tn_core_info(rank);
    char *ctrl = (char *)(uintptr_t)(in->data_base - in->ctrl_size);
    if (tn_core_flag_unacked(p)) {
        /* No completion at either end and no acknowledgement: the
         * receiver only reads its socket (as the teams' barrier,
         * coll_sync.c). Every flag written is waited for by its reader
         * before that one leaves the barrier, so none is in flight once
         * all have left (tern_finalize's launcher barrier). */
        tn_core_flag_write_unacked(p, rank, (uintptr_t)(ctrl + off), epoch, "barrier");
        return;
    }
    /* A writer one barrier ahead may overwrite vals[k] while the last
     * write from it is in flight: it only raises the value, which still
     * satisfies the reader's "at least this epoch". */
    l->vals[k] = epoch;
    tn_rma_t op = {TN_RMA_PUT, rank, &l->vals[k], ctrl + off, sizeof(uint32_t)};
    tn_xport_done_t done = {NULL, &t->comp};
    tn_comp_add(&t->comp, 1);
    if (tn_core_xport_rma(p->xport, &op, &done, TN_XPORT_FLAG_CTRL) != TERN_OK) {
        tn_comp_add(&t->comp, -1);
        tern_abort(1, "barrier: the network write to another node failed");
    }
}

/* Until flag k of level l here reaches epoch. A flag written by a mapped
 * peer can be slept on (it wakes us); one written over the network is
 * polled, watching for a failed write of ours. */
static void wait_flag(tn_team_t *t, tn_team_level_t *l, int k, int from, uint32_t epoch)
{
    tn_ctrl_flag_t *in =
        (tn_ctrl_flag_t *)((char *)tn_core.seg.map + l->off + (size_t)k * TN_CTRL_LINE);
    if (tn_core_peer(from)->ctrl) {
        for (;;) {
            uint32_t v = atomic_load_explicit(&in->epoch, memory_order_acquire);
            if ((int32_t)(v - epoch) >= 0)
                return;
            tn_wait_u32_change(&in->epoch, v, &in->sleeping);
        }
    }
    tn_wait_t w = TN_WAIT_NET; /* a network write raises it */
    while ((int32_t)(atomic_load_explicit(&in->epoch, memory_order_acquire) - epoch) <
           0) {
        if (tn_comp_status(&t->comp) != TERN_OK)
            tern_abort(1, "barrier: a network write to another node's leader "
                          "failed (cause logged above)");
        tn_wait_next(&w); /* drives network progress */
    }
}

/* Dissemination: in round k the member at i signals (i + 2^k) mod n and
 * waits for the signal of (i - 2^k) mod n. Each flag has one writer and
 * epochs only grow, so a plain store of the epoch suffices. */
static void level_pass(tn_team_t *t, tn_team_level_t *l)
{
    int n = l->n;
    if (n <= 1)
        return;
    uint32_t epoch = ++l->epoch;
    int k = 0;
    for (int dist = 1; dist < n; dist <<= 1, k++) {
        signal_flag(t, l, k, l->ranks[(l->me + dist) % n], epoch);
        wait_flag(t, l, k, l->ranks[(l->me - dist % n + n) % n], epoch);
    }
}

void tn_team_barrier(tn_team_t *t)
{
    level_pass(t, &t->node);
    if (t->nnodes == 1)
        return;
    /* Hierarchical: gather the node, leaders meet across nodes, then
     * release the node. */
    if (t->node.me == 0)
        level_pass(t, &t->net);
    level_pass(t, &t->node);
}

int tn_team_drain(tn_team_t *t)
{
    return tn_comp_wait(&t->comp);
}
