/* Barrier (hierarchical: shared memory inside a node, network across) and
 * waiting on memory. */
#include <stddef.h>

#include "base/stats.h"
#include "base/time.h"
#include "base/wait.h"
#include "core/core.h"
#include "core/event.h"

/* Dissemination over the node leaders through the network: in round k
 * the leader of node i writes the epoch into flag k of the control area
 * of the leader of node (i + 2^k) mod N, then waits for its own flag k. */
static void net_barrier(void)
{
    uint32_t epoch = ++tn_core.net_epoch;
    tn_ctrl_t *mine = (tn_ctrl_t *)tn_core.seg.map;
    int nn = tn_core.nnodes, k = 0;
    for (int dist = 1; dist < nn; dist <<= 1, k++) {
        int to = tn_core.node_leaders[(tn_core.node + dist) % nn];
        const tn_seg_info_t *ps = &tn_core.peers[to].seg;
        char *ctrl = (char *)(uintptr_t)(ps->data_base - ps->ctrl_size);
        tn_core.net_vals[k] = epoch;
        tn_comp_add(&tn_core.net_comp, 1);
        tn_xport_done_t done = {NULL, &tn_core.net_comp};
        tn_rma_t op = {TN_RMA_PUT, to, &tn_core.net_vals[k],
                       ctrl + offsetof(tn_ctrl_t, net_barrier[k].epoch),
                       sizeof(uint32_t)};
        if (tn_core.net->ops->rma(tn_core.net, &op, &done, TN_XPORT_FLAG_CTRL) !=
            TERN_OK) {
            tn_comp_add(&tn_core.net_comp, -1);
            tern_abort(1, "barrier: the network write to another node failed");
        }
        _Atomic uint32_t *in = &mine->net_barrier[k].epoch;
        uint64_t iter = 0;
        while ((int32_t)(atomic_load_explicit(in, memory_order_acquire) - epoch) < 0) {
            if (tn_comp_status(&tn_core.net_comp) != TERN_OK)
                tern_abort(1, "barrier: a network write to another node's leader "
                              "failed (cause logged above)");
            tn_wait_step(iter++); /* drives network progress */
        }
    }
}

int tn_core_drain(void)
{
    return tn_comp_wait(&tn_core.net_comp);
}

tern_status_t tern_barrier(void)
{
    TN_CHECK_INIT("tern_barrier");
    uint64_t t0 = tn_stats_on ? tn_time_ns() : 0;
    tn_core_lock();
    if (tn_core.nnodes == 1) {
        tn_shm_barrier(tn_core.shm);
    } else {
        /* Hierarchical: gather the node, leaders meet across nodes, then
         * release the node. */
        tn_shm_barrier(tn_core.shm);
        if (tn_core.local_rank == 0)
            net_barrier();
        tn_shm_barrier(tn_core.shm);
    }
    tn_core_unlock();
    if (__builtin_expect(tn_stats_on, 0)) {
        tn_stats_t *s = tn_stats_mine();
        s->barriers++;
        s->barrier_ns += tn_time_ns() - t0;
    }
    return TERN_OK;
}

static int compare(uint64_t v, int cmp, uint64_t value)
{
    switch (cmp) {
    case TERN_CMP_EQ: return v == value;
    case TERN_CMP_NE: return v != value;
    case TERN_CMP_GT: return v > value;
    case TERN_CMP_GE: return v >= value;
    case TERN_CMP_LT: return v < value;
    default: return v <= value;
    }
}

tern_status_t tern_wait_until_u64(const volatile uint64_t *addr, int cmp, uint64_t value)
{
    TN_CHECK_INIT("tern_wait_until_u64");
    if (!addr || ((uintptr_t)addr & 7))
        return tn_core_fail(TERN_ERR_INVALID, "tern_wait_until_u64",
                            "address %p is NULL or not 8-byte aligned", (void *)addr);
    if (cmp < TERN_CMP_EQ || cmp > TERN_CMP_LE)
        return tn_core_fail(TERN_ERR_INVALID, "tern_wait_until_u64",
                            "comparison %d is not a TERN_CMP_* value", cmp);
    const _Atomic uint64_t *a = (const _Atomic uint64_t *)addr;
    uint64_t iter = 0;
    while (!compare(atomic_load_explicit(a, memory_order_acquire), cmp, value)) {
        if (!tn_wait_progress_hook && (iter & 63) == 63)
            tn_core_progress(); /* tn_wait_step drives it when one is set */
        tn_wait_step(iter++);
    }
    return TERN_OK;
}
