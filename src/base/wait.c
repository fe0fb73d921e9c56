/* Waiting: spin, yield or sleep, per TERN_WAIT_MODE. */
#include "base/wait.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/time.h"

tn_wait_policy_t tn_wait_policy = {TN_WAIT_AUTO, 0, 2000, 256, 0, 0};
int (*tn_wait_progress_hook)(void);
void (*tn_wait_relax_hook)(void);
int (*tn_wait_local_hook)(void);
int (*tn_wait_net_hook)(void);

/* When this thread's next network poll is due (tn_ticks), over all its
 * waits: a thread whose waits each end within a few steps (a shared-memory
 * ping-pong) still polls the network once per TERN_NET_POLL_NS of
 * spinning. 0: at its first step. */
static TN_TLS_FAST _Thread_local uint64_t net_due;
/* Until when this thread counts the network as busy (tn_ticks): it sent
 * over the network (tn_wait_net_used), or a network poll found work, less
 * than tn_wait_policy.net_quiet_ticks before. */
static TN_TLS_FAST _Thread_local uint64_t net_busy;

uint64_t tn_wait_ticks_of_ns(uint64_t ns)
{
    if (!ns)
        return 0;
    /* Both clocks count the same wall time, preempted or not: the error is
     * one read's skew (~25 ns) in 20 us. */
    uint64_t c0 = tn_ticks(), t0 = tn_time_ns(), c1, t1;
    do {
        c1 = tn_ticks();
        t1 = tn_time_ns();
    } while (t1 - t0 < 20000);
    uint64_t r = (uint64_t)((double)ns * (double)(c1 - c0) / (double)(t1 - t0));
    return r ? r : 1;
}

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

/* Auto mode, not oversubscribed, a step past TERN_SPIN_US or a poll of 64
 * (iter & 63 == 63): whether the wait w has spun past TERN_SPIN_US. The
 * clock is read once every 64 polls (a vDSO clock_gettime, ~20 ns, beside
 * 64 pauses), first at the wait's 64th poll. */
static int spun_out(tn_wait_t *w)
{
    if (w->long_steps)
        return 1;
    uint64_t now = tn_time_ns();
    if (!w->t0) {
        w->t0 = now;
        return 0;
    }
    if (!tn_wait_spun_out(w->t0, now))
        return 0;
    w->long_steps = 1;
    return 1;
}

/* A step past TERN_SPIN_US, its n-th, once the progress hook found
 * nothing: yield; in a wait that can sleep (a flag's, tn_wait_u32_change,
 * with no progress hook), sleep briefly past TERN_YIELD_COUNT yields.
 * Other waits only yield, as when oversubscribed: their callers drive the
 * runtime's progress (serving other ranks' requests) every 64 steps. */
static void long_step(uint64_t n, int can_sleep)
{
    if (can_sleep && !tn_wait_progress_hook && tn_wait_policy.yield_count > 0 &&
        n > (uint64_t)tn_wait_policy.yield_count) {
        /* The peer has not come in a time slice's worth of yields: it is
         * off-core behind other work (other jobs, other tests), or it
         * computes. Sleeping leaves the core to them; no writer knows to
         * wake this waiter (only oversubscribed hosts publish with a wake
         * check: tn_wait_may_sleep), so the sleep is short. */
        struct timespec ts = {0, 50000};
        nanosleep(&ts, NULL);
        return;
    }
    sched_yield();
}

void tn_wait_long_step(uint64_t n)
{
    if (tn_wait_progress_hook && tn_wait_progress_hook() > 0)
        return;
    long_step(n, 0);
}

/* One pause, or the core's watch of its shared-memory queues that lasts
 * about as long (tn_wait_relax_hook). */
static inline void relax(void)
{
    if (tn_wait_relax_hook)
        tn_wait_relax_hook();
    else
        tn_cpu_relax();
}

/* The pause after a step that drove the whole progress hook: none in a
 * mixed job, whose hook polled the network (longer than a pause; the
 * relax hook there watches the shared-memory queues, for node-local
 * steps). */
static inline void relax_after_hook(void)
{
    if (!tn_wait_local_hook || !tn_wait_progress_hook)
        relax();
}

tn_wait_net_calls_t tn_wait_net_calls;

void tn_wait_net_used(void)
{
    tn_wait_net_call();
    if (tn_wait_net_hook) {
        net_busy = tn_ticks() + tn_wait_policy.net_quiet_ticks;
        net_due = 0; /* the next step polls */
    }
}

/* A spinning step of a wait in a mixed job (tn_wait_local_hook): the
 * node-local progress, and a network poll (tn_wait_net_hook) at every step
 * while the network is busy (net_busy: the thread sent over it, or a poll
 * found work, within net_quiet_ticks), otherwise once net_ticks have
 * passed since the thread's last poll ended (TERN_NET_POLL_NS). No pause
 * after a network poll: it took longer than one (tn_core_wait_polled). 1
 * when something completed. */
static int mixed_step(void)
{
    uint64_t now = tn_ticks();
    /* Not due: net_due lies ahead, by at most net_ticks (it is set no
     * further from a later reading). Further ahead means the clock went
     * back (a thread moved to a CPU whose counter is behind): poll now
     * rather than wait for it to catch up. */
    if ((int64_t)(now - net_due) < 0 && net_due - now <= tn_wait_policy.net_ticks) {
        if (tn_wait_local_hook() > 0)
            return 1;
        relax();
        return 0;
    }
    int nd = tn_wait_net_hook();
    int done = nd + tn_wait_local_hook();
    uint64_t end = tn_ticks();
    if (nd > 0)
        net_busy = end + tn_wait_policy.net_quiet_ticks; /* as tn_wait_net_used */
    net_due =
        nd > 0 || (int64_t)(end - net_busy) < 0 ? end : end + tn_wait_policy.net_ticks;
    return done > 0;
}

/* The whole progress hook, if any: 1 when something completed (noted in
 * w: check again at once). */
static inline int hook_progressed(tn_wait_t *w)
{
    if (!tn_wait_progress_hook || tn_wait_progress_hook() <= 0)
        return 0;
    tn_wait_progressed(w);
    return 1;
}

static void step(tn_wait_t *w, int can_sleep)
{
    const tn_wait_policy_t *p = &tn_wait_policy;
    uint64_t iter = w->iter++;
    int auto_spin = p->mode == TN_WAIT_AUTO && !p->oversubscribed;
    /* Spinning in auto mode; the clock every 64 polls, and each step once
     * past TERN_SPIN_US. */
    if (auto_spin &&
        __builtin_expect(((iter & 63) == 63 || w->long_steps) && p->spin_ns, 0) &&
        spun_out(w)) {
        if (!hook_progressed(w))
            long_step(w->long_steps++, can_sleep);
        return;
    }
    /* A spinning step of a node-local wait in a mixed job: the network on
     * its cadence (mixed_step). */
    if ((auto_spin || p->mode == TN_WAIT_SPIN) && tn_wait_local_hook &&
        tn_wait_progress_hook && !w->net) {
        if (mixed_step())
            tn_wait_progressed(w);
        return;
    }
    if (hook_progressed(w))
        return;
    if (auto_spin || !should_yield(iter)) {
        relax_after_hook();
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

void tn_wait_next(tn_wait_t *w)
{
    step(w, 0);
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
    tn_wait_t w;
    tn_wait_start(&w);
    while (atomic_load_explicit(word, memory_order_acquire) == old) {
        if (should_sleep(w.iter)) {
            atomic_store_explicit(sleeping, 1, memory_order_seq_cst);
            if (atomic_load_explicit(word, memory_order_seq_cst) == old)
                futex(word, FUTEX_WAIT, old);
            atomic_store_explicit(sleeping, 0, memory_order_relaxed);
            w.iter++;
        } else {
            step(&w, 1);
        }
    }
}

void tn_wait_wake(_Atomic uint32_t *word, _Atomic uint32_t *sleeping)
{
    if (atomic_load_explicit(sleeping, memory_order_seq_cst))
        futex(word, FUTEX_WAKE, 1);
}
