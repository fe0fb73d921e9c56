/* Barrier and waiting on memory. */
#include "base/wait.h"
#include "core/core.h"

int tern_barrier(void)
{
    TN_CHECK_INIT("tern_barrier");
    tn_core_lock();
    /* All ranks share one node until the network transport arrives; the
     * node barrier then becomes the first stage of a hierarchical one. */
    tn_shm_barrier(tn_core.shm);
    tn_core_unlock();
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

int tern_wait_until_u64(const volatile uint64_t *addr, int cmp, uint64_t value)
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
        if ((iter & 63) == 63)
            tn_core_progress();
        tn_wait_step(iter++);
    }
    return TERN_OK;
}
