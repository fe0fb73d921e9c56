/* Waiting: spin, yield or sleep, per TERN_WAIT_MODE. */
#include "base/wait.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

tn_wait_policy_t tn_wait_policy = {TN_WAIT_AUTO, 0, 2000, 256};
int (*tn_wait_progress_hook)(void);
void (*tn_wait_relax_hook)(void);

static int should_yield(uint64_t iter)
{
    const tn_wait_policy_t *p = &tn_wait_policy;
    switch (p->mode) {
    case TN_WAIT_SPIN: return 0;
    case TN_WAIT_YIELD: return 1;
    case TN_WAIT_BLOCK:
        /* Oversubscribed, the polls before sleeping yield rather than spin
         * (see auto): spinning them took 8 ranks on 2 cores 38 s for 300
         * put+barrier rounds over tcp, yielding 2.5 s. */
        return p->oversubscribed || iter >= (uint64_t)p->spin_count;
    default:
        /* More ranks than CPUs: the rank a waiter waits for is likely
         * runnable but off-core, so every poll spent spinning delays it;
         * yield at the first failed check. Measured (8 ranks on 2 cores,
         * tern-bench-mpi coll, 8 B): barrier 118 us after 2000 spins,
         * 16.5 us after 50, 10.7 us after none (MPI: 16..28 us). With a
         * progress hook every check is a network poll as well (3 ranks on
         * 2 cores over tcp, 300 put+barrier rounds: 7.6 s spinning, 0.5 s
         * yielding). */
        (void)iter;
        return p->oversubscribed;
    }
}

void tn_wait_step(uint64_t iter)
{
    if (tn_wait_progress_hook && tn_wait_progress_hook() > 0)
        return; /* something completed: check again at once */
    if (!should_yield(iter)) {
        if (tn_wait_relax_hook)
            tn_wait_relax_hook();
        else
            tn_cpu_relax();
        return;
    }
    if (tn_wait_policy.mode == TN_WAIT_BLOCK &&
        iter > (uint64_t)tn_wait_policy.spin_count + 100) {
        /* No wake-up source for plain memory: sleep briefly. */
        struct timespec ts = {0, 50000};
        nanosleep(&ts, NULL);
        return;
    }
    sched_yield();
}

void tn_wait_refused(void)
{
    if (should_yield(0))
        sched_yield();
}

static long futex(_Atomic uint32_t *addr, int op, uint32_t val)
{
    /* Shared (not PRIVATE) futex: the word lives in memory mapped by
     * several processes. The timeout is a safety net only: writers wake. */
    struct timespec ts = {0, 10 * 1000 * 1000};
    return syscall(SYS_futex, (uint32_t *)addr, op, val, op == FUTEX_WAIT ? &ts : NULL,
                   NULL, 0);
}

/* Whether a waiter that checked iter times should sleep on the futex:
 * block mode past the spin count; auto mode on an oversubscribed host past
 * the yield count, when yielding has not brought the writer in (a long
 * wait: the writer computes, or many ranks share each core), so that the
 * sleeper stops taking turns on the core the writer needs. */
static int should_sleep(uint64_t iter)
{
    const tn_wait_policy_t *p = &tn_wait_policy;
    if (tn_wait_progress_hook)
        return 0;
    if (p->mode == TN_WAIT_BLOCK)
        return iter >= (uint64_t)p->spin_count;
    return p->mode == TN_WAIT_AUTO && p->oversubscribed && p->yield_count > 0 &&
           iter >= (uint64_t)p->yield_count;
}

void tn_wait_u32_change(_Atomic uint32_t *word, uint32_t old, _Atomic uint32_t *sleeping)
{
    uint64_t iter = 0;
    while (atomic_load_explicit(word, memory_order_acquire) == old) {
        if (should_sleep(iter)) {
            atomic_store_explicit(sleeping, 1, memory_order_seq_cst);
            if (atomic_load_explicit(word, memory_order_seq_cst) == old)
                futex(word, FUTEX_WAIT, old);
            atomic_store_explicit(sleeping, 0, memory_order_relaxed);
        } else {
            tn_wait_step(iter);
        }
        iter++;
    }
}

void tn_wait_wake(_Atomic uint32_t *word, _Atomic uint32_t *sleeping)
{
    if (atomic_load_explicit(sleeping, memory_order_seq_cst))
        futex(word, FUTEX_WAKE, 1);
}
