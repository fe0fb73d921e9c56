/* Barrier (of the world team: core/team.c) and waiting on memory. */
#include <stdatomic.h>
#include <stdint.h>

#include "base/stats.h"
#include "base/time.h"
#include "base/wait.h"
#include "core/am.h"
#include "core/core.h"
#include "core/event.h"

_Atomic unsigned long tn_core_effects;
int tn_core_effects_on;

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

/* At most n polls of a wait whose every step only pauses
 * (tn_wait_only_pauses), for a comparison the caller makes constant:
 * load, compare, pause, as in a hand-written spin. The loop of
 * wait_steps has the comparison's switch, the hook test and a call to
 * tn_wait_next in each poll, and a put-with-signal ping-pong paid them on
 * its critical path (docs/design/atomics.md, "The waiting side"). 1 once
 * the word compares true, 0 after n polls that found it false. */
static TN_ALWAYS_INLINE int spin_u64(const _Atomic uint64_t *a, int cmp, uint64_t value,
                                     unsigned n)
{
    for (unsigned i = 1;; i++) {
        if (tn_cmp_u64(atomic_load_explicit(a, memory_order_acquire), cmp, value))
            return 1;
        if (i == n)
            return 0;
        tn_cpu_relax();
    }
}

/* Returns expr evaluated with the name C bound to cmp as a constant, one
 * branch per comparison, so that the loop inlined in expr folds its
 * comparison (one loop each, no switch per poll). */
#define RETURN_BY_CONST_CMP(cmp, C, expr) \
    switch (cmp) {                        \
    case TERN_CMP_EQ: {                   \
        const int C = TERN_CMP_EQ;        \
        return expr;                      \
    }                                     \
    case TERN_CMP_NE: {                   \
        const int C = TERN_CMP_NE;        \
        return expr;                      \
    }                                     \
    case TERN_CMP_GT: {                   \
        const int C = TERN_CMP_GT;        \
        return expr;                      \
    }                                     \
    case TERN_CMP_GE: {                   \
        const int C = TERN_CMP_GE;        \
        return expr;                      \
    }                                     \
    case TERN_CMP_LT: {                   \
        const int C = TERN_CMP_LT;        \
        return expr;                      \
    }                                     \
    default: {                            \
        const int C = TERN_CMP_LE;        \
        return expr;                      \
    }                                     \
    }

/* spin_u64 with the comparison made constant: one loop each. */
static TN_ALWAYS_INLINE int spin_cmp(const _Atomic uint64_t *a, int cmp, uint64_t value,
                                     unsigned n)
{
    RETURN_BY_CONST_CMP(cmp, c, spin_u64(a, c, value, n));
}

/* Looks of watch_direct between two whole steps of a wait. */
#define DIRECT_ROUNDS 8

_Atomic int tn_core_direct_wait;

/* Whether the waits of this process may watch a direct queue between
 * their steps (watch_direct), from what that depends on: every step
 * drives the whole progress hook and then only pauses or watches (a hook,
 * no network to poll: no node-local hook, no polled transport; a policy
 * that spins), and each direct queue is drained by one thread at a time
 * without turns (no queue with threads: not TERN_THREAD_MULTIPLE; the
 * progress thread drains none). Read at every change of one of them
 * (tn_core_direct_wait_update). */
int tn_core_direct_wait_inputs(void)
{
    const tn_wait_policy_t *p = &tn_wait_policy;
    if (!tn_wait_progress_hook || tn_wait_local_hook || tn_core.npolled)
        return 0;
    for (int i = 0; i < tn_core.msg_nin; i++)
        if (tn_core.msg_in[i].threads)
            return 0;
    return p->mode == TN_WAIT_SPIN || (p->mode == TN_WAIT_AUTO && !p->oversubscribed);
}

void tn_core_direct_wait_update(void)
{
    atomic_store_explicit(&tn_core_direct_wait, tn_core_direct_wait_inputs(),
                          memory_order_relaxed);
}

/* The direct queue a wait watches between its steps (watch_direct): the
 * one in which this thread last found a message (tn_am_last_in), when
 * waits may watch one (tn_core_direct_wait), or NULL. */
static TN_ALWAYS_INLINE tn_msgq_t *direct_queue(void)
{
    return atomic_load_explicit(&tn_core_direct_wait, memory_order_relaxed)
               ? tn_am_last_in
               : NULL;
}

/* tn_am_drain of the watched queue, out of line: one copy for the six
 * loops of wait_steps. */
static __attribute__((noinline)) int drain_direct(tn_msgq_t *q)
{
    return tn_am_drain(q);
}

/* Between two whole steps of a wait, DIRECT_ROUNDS looks at the next slot
 * of the direct queue q and at the word: a message there is handled at
 * once (tn_am_drain: the same checks, order and turns as progress), with
 * no way through the step, the progress hook and the loop over every
 * queue; the word is checked after it and in each round, so that a store
 * by another rank ends the wait as soon as before. The rounds are kept
 * one at a time (lfence, as tn_core_wait_relax), so that a slot written
 * meanwhile does not flush the pipeline. The other queues, the network
 * and everything else progress does still run at each whole step, every
 * DIRECT_ROUNDS looks (about 60 ns here). What this takes off a ping-pong's
 * critical path: docs/design/active-messages.md, seventeenth pass. 1 once
 * the word compares true. */
static TN_ALWAYS_INLINE int watch_direct(const _Atomic uint64_t *a, int cmp,
                                         uint64_t value, tn_msgq_t *q, tn_wait_t *w)
{
    for (int k = 0; k < DIRECT_ROUNDS; k++) {
        if (atomic_load_explicit(&q->slots[q->seq & q->smask].seq,
                                 memory_order_relaxed) == q->seq &&
            drain_direct(q) > 0)
            tn_wait_progressed(w);
        if (tn_cmp_u64(atomic_load_explicit(a, memory_order_acquire), cmp, value))
            return 1;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_lfence();
#else
        tn_cpu_relax();
#endif
    }
    return 0;
}

/* The loop for every policy: each failed poll is a step of the wait w
 * (progress hook, pause, yield or sleep), with watch_direct between the
 * steps where a direct queue is watched. */
static TN_ALWAYS_INLINE tern_status_t steps_u64(const _Atomic uint64_t *a, int cmp,
                                                uint64_t value, tn_wait_t *w)
{
    tn_msgq_t *q = direct_queue();
    while (!tn_cmp_u64(atomic_load_explicit(a, memory_order_acquire), cmp, value)) {
        if (q && watch_direct(a, cmp, value, q, w))
            break;
        /* Without a hook, progress every 64 polls (tn_wait_next drives
         * the hook when one is set). */
        if (!tn_wait_progress_hook && (w->iter & 63) == 63 && tn_core_progress() > 0)
            tn_wait_progressed(w);
        tn_wait_next(w);
    }
    return TERN_OK;
}

/* steps_u64 with the comparison made constant, one loop each, as
 * spin_cmp: the check that ends a wait whose step ran the awaited
 * handler (an AM Reply's) no longer goes through the comparison's switch
 * (scripts/am-cost.sh, loop_wait_rt; docs/design/active-messages.md,
 * sixteenth pass). */
static __attribute__((noinline)) tern_status_t
wait_steps(const _Atomic uint64_t *a, int cmp, uint64_t value, tn_wait_t *w)
{
    RETURN_BY_CONST_CMP(cmp, c, steps_u64(a, c, value, w));
}

/* wait_steps of a fresh wait, out of line: the spinning path of
 * tern_wait_until_u64 keeps no frame for the wait's context. */
static __attribute__((noinline)) tern_status_t wait_steps_fresh(const _Atomic uint64_t *a,
                                                                int cmp, uint64_t value)
{
    tn_wait_t w = TN_WAIT_FRESH;
    return wait_steps(a, cmp, value, &w);
}

/* The rest of a wait entered through wait_direct once its first looks
 * found nothing: what steps_u64 does after its first watch_direct (a
 * whole step; the hook that tn_core_direct_wait implies drives progress
 * there), then its loop. */
static __attribute__((noinline)) tern_status_t
wait_steps_watched(const _Atomic uint64_t *a, int cmp, uint64_t value)
{
    tn_wait_t w = TN_WAIT_FRESH;
    tn_wait_next(&w);
    return wait_steps(a, cmp, value, &w);
}

/* A fresh wait that watches the direct queue q from its first poll, as
 * steps_u64 does with it (the word; DIRECT_ROUNDS looks at q and the word;
 * then a whole step and the loop: wait_steps_watched) but entered straight
 * from tern_wait_until_u64, with one frame: a wait whose answer is the
 * next message of q (an AM round trip's Reply) takes it there and returns
 * from here, without wait_steps_fresh, wait_steps' switch and frame, and
 * direct_queue's tests (docs/design/active-messages.md, nineteenth pass).
 * The comparison is made constant, one loop each, as wait_steps. */
static TN_ALWAYS_INLINE tern_status_t direct_u64(const _Atomic uint64_t *a, int cmp,
                                                 uint64_t value, tn_msgq_t *q)
{
    if (tn_cmp_u64(atomic_load_explicit(a, memory_order_acquire), cmp, value))
        return TERN_OK;
    tn_wait_t w = TN_WAIT_FRESH; /* fresh: watch_direct's marks change nothing */
    if (watch_direct(a, cmp, value, q, &w))
        return TERN_OK;
    return wait_steps_watched(a, cmp, value);
}

static __attribute__((noinline)) tern_status_t
wait_direct(const _Atomic uint64_t *a, int cmp, uint64_t value, tn_msgq_t *q)
{
    RETURN_BY_CONST_CMP(cmp, c, direct_u64(a, c, value, q));
}

/* A wait past TERN_SPIN_US (auto mode): yields, then sleeps briefly
 * (tn_wait_long_step), with progress every 64 polls as wait_steps. 1 once
 * the word compares true; 0 when progress completed something (the wait
 * spins again: tn_wait_progressed). */
static int wait_long(const _Atomic uint64_t *a, int cmp, uint64_t value)
{
    for (uint64_t n = 1;
         !tn_cmp_u64(atomic_load_explicit(a, memory_order_acquire), cmp, value); n++) {
        if (!tn_wait_progress_hook && (n & 63) == 0 && tn_core_progress() > 0)
            return 0;
        tn_wait_long_step(n);
    }
    return 1;
}

/* A spinning wait past its first 64 polls: progress, then 64 more polls
 * while the policy still only pauses (a handler registered meanwhile
 * brings a progress hook), as wait_steps runs it every 64 polls; past
 * TERN_SPIN_US (the clock read every 64 polls, first now) it waits as
 * wait_long, and spins again when progress completes something. */
static __attribute__((noinline)) tern_status_t wait_spin_more(const _Atomic uint64_t *a,
                                                              int cmp, uint64_t value)
{
    tn_wait_t w = {64, tn_time_ns(), 0};
    for (;;) {
        if (tn_core_progress() > 0)
            w.t0 = tn_time_ns();
        if (!tn_wait_only_pauses())
            return wait_steps(a, cmp, value, &w);
        if (spin_cmp(a, cmp, value, 64))
            return TERN_OK;
        w.iter += 64;
        if (tn_wait_spun_out(w.t0, tn_time_ns())) {
            if (wait_long(a, cmp, value))
                return TERN_OK;
            w.t0 = tn_time_ns();
        }
    }
}

static TN_ALWAYS_INLINE tern_status_t wait_until_u64(const volatile uint64_t *addr,
                                                     int cmp, uint64_t value)
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
    if (!tn_wait_only_pauses()) {
        tn_msgq_t *q = direct_queue();
        if (q)
            return wait_direct(a, cmp, value, q);
        return wait_steps_fresh(a, cmp, value);
    }
    if (spin_cmp(a, cmp, value, 64))
        return TERN_OK;
    return wait_spin_more(a, cmp, value);
}

tern_status_t tern_wait_until_u64(const volatile uint64_t *addr, int cmp, uint64_t value)
{
    tern_status_t st = wait_until_u64(addr, cmp, value);
    /* What a handler run on another thread wrote before the word changed
     * (the progress thread's, core.h): visible here as after a barrier. */
    tn_core_effects_acquire();
    return st;
}
