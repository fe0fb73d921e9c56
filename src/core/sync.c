/* Barrier (of the world team: core/team.c) and waiting on memory. */
#include <stdatomic.h>
#include <stdint.h>

#include "base/stats.h"
#include "base/time.h"
#include "base/wait.h"
#include "core/core.h"
#include "core/event.h"

_Atomic unsigned long tn_core_effects;

tern_status_t tern_barrier(void)
{
    TN_CHECK_INIT("tern_barrier");
    TN_NOT_IN_HANDLER("tern_barrier");
    uint64_t t0 = tn_stats_on ? tn_time_ns() : 0;
    /* What returned early must be visible after the barrier, as blocking
     * puts are; a failure is returned once the barrier is done (the other
     * ranks are in it). */
    int st = tn_ctx_complete_early("tern_barrier");
    tn_core_lock();
    tn_team_barrier(&tn_core.world);
    tn_core_unlock();
    tn_core_effects_acquire();
    if (__builtin_expect(tn_stats_on, 0)) {
        tn_stats_t *s = tn_stats_mine();
        s->barriers++;
        s->barrier_ns += tn_time_ns() - t0;
    }
    return st;
}

tern_status_t tern_wait_until_u64(const volatile uint64_t *addr, int cmp, uint64_t value)
{
    TN_CHECK_INIT("tern_wait_until_u64");
    TN_NOT_IN_HANDLER("tern_wait_until_u64");
    if (!addr || ((uintptr_t)addr & 7))
        return tn_core_fail(TERN_ERR_INVALID, "tern_wait_until_u64",
                            "address %p is NULL or not 8-byte aligned", (void *)addr);
    if (cmp < TERN_CMP_EQ || cmp > TERN_CMP_LE)
        return tn_core_fail(TERN_ERR_INVALID, "tern_wait_until_u64",
                            "comparison %d is not a TERN_CMP_* value", cmp);
    const _Atomic uint64_t *a = (const _Atomic uint64_t *)addr;
    uint64_t iter = 0;
    while (!tn_cmp_u64(atomic_load_explicit(a, memory_order_acquire), cmp, value)) {
        if (!tn_wait_progress_hook && (iter & 63) == 63)
            tn_core_progress(); /* tn_wait_step drives it when one is set */
        tn_wait_step(iter++);
    }
    return TERN_OK;
}
