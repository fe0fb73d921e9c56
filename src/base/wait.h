/* How a waiting call waits (TERN_WAIT_MODE): spin with a pause, yield the
 * core when the machine is oversubscribed, or sleep in the kernel. Shared by
 * every layer that waits (shm barrier, events, nbi sync, wait_until). */
#ifndef TN_WAIT_H
#define TN_WAIT_H

#include <stdatomic.h>
#include <stdint.h>

enum { TN_WAIT_AUTO = 0, TN_WAIT_SPIN = 1, TN_WAIT_YIELD = 2, TN_WAIT_BLOCK = 3 };

typedef struct tn_wait_policy {
    int mode;           /* TN_WAIT_* as configured */
    int oversubscribed; /* more of the job's ranks on this machine than CPUs */
    long spin_count;    /* polls before yielding/sleeping */
    long yield_count;   /* auto, oversubscribed: yields before sleeping; 0 never */
    uint64_t spin_ns;   /* auto, not oversubscribed: spinning before yielding; 0 never */
    uint64_t net_ticks; /* with tn_wait_local_hook: a spinning step of a node-local
                           wait polls the network once net_ticks (tn_ticks) have
                           passed since the thread's last poll ended */
    uint64_t net_quiet_ticks; /* ... unless the thread sent over the network, or
                                 a poll found network work, less than this long
                                 ago: then every step polls */
} tn_wait_policy_t;

extern tn_wait_policy_t tn_wait_policy;

/* Progress to drive while waiting (set by the layer that owns transports
 * needing it, e.g. a manual-progress network); NULL when none. */
extern int (*tn_wait_progress_hook)(void);

/* What a waiting step does instead of one pause when it would pause (set
 * by core: tn_core_wait_relax when it has shared-memory queues to watch,
 * tn_core_wait_polled, nothing, when every step polls a network); NULL:
 * pause. */
extern void (*tn_wait_relax_hook)(void);

/* The node-local part of the progress hook (shared-memory queues, no
 * network poll), set by core in a job with both (a mixed job): a spinning
 * step of a wait not marked as a network wait (TN_WAIT_NET) drives it, and
 * the network part (tn_wait_net_hook) at every step while the thread's
 * network is busy (tn_wait_net_used), otherwise once
 * tn_wait_policy.net_ticks have passed since the thread's last network
 * poll ended (TERN_NET_POLL_NS, across its waits); every step that yields
 * or sleeps drives the whole hook
 * (docs/design/barrier-and-waiting.md, "Polling cadence in a mixed job"). The relax hook
 * then watches the shared-memory queues after a node-local step; after a
 * step that polled the network it does nothing (that poll was the pause).
 * NULL: every step drives the whole hook. */
extern int (*tn_wait_local_hook)(void);
/* The network part (the polled transports' polls), set with it. */
extern int (*tn_wait_net_hook)(void);
/* This thread sent something over the network (a polled transport calls
 * it as it posts): as after a poll that found work, its waits poll the
 * network at every step until tn_wait_policy.net_quiet_ticks pass without
 * either (a reply is likely). Nothing without tn_wait_net_hook. */
void tn_wait_net_used(void);
/* Calls of this process into the network: every post (tn_wait_net_used)
 * and every network poll of an application thread (core's progress),
 * counted for core's progress thread, which polls only when a whole
 * period passed without one (core/progress.c). A relaxed load and store,
 * racy between threads on purpose (only a change is looked for), on a
 * line of its own: written at every call, read once a period. */
typedef struct tn_wait_net_calls {
    _Alignas(64) _Atomic unsigned long n;
    char pad[64 - sizeof(unsigned long)];
} tn_wait_net_calls_t;
extern tn_wait_net_calls_t tn_wait_net_calls;
static inline void tn_wait_net_call(void)
{
    atomic_store_explicit(
        &tn_wait_net_calls.n,
        atomic_load_explicit(&tn_wait_net_calls.n, memory_order_relaxed) + 1,
        memory_order_relaxed);
}
/* ns nanoseconds in tn_ticks (at least 1; 0 for 0), from a 20 us
 * calibration against the monotonic clock (base/wait.c). */
uint64_t tn_wait_ticks_of_ns(uint64_t ns);

static inline void tn_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* 1 when every step of waiting would only pause (tn_wait_next does
 * nothing else): no progress hook, and a policy that never yields (spin;
 * auto on a machine that is not oversubscribed). A waiting loop may then
 * pause inline, as a hand-written spin does, and look again every few
 * polls (a hook comes when a handler is registered). */
static inline int tn_wait_only_pauses(void)
{
    const tn_wait_policy_t *p = &tn_wait_policy;
    return !tn_wait_progress_hook &&
           (p->mode == TN_WAIT_SPIN || (p->mode == TN_WAIT_AUTO && !p->oversubscribed));
}

/* One waiting call's way through the policy. Each waiting call has its
 * own, started (tn_wait_start) at the top of its loop, so that nothing of
 * one wait carries into the next: a wait that has not spun TERN_SPIN_US
 * never yields. Its clock is read lazily, at its 64th poll, so a wait that
 * ends within 64 polls never reads it. */
typedef struct tn_wait {
    uint64_t iter;       /* failed checks so far */
    uint64_t t0;         /* when its spinning was first timed; 0: not yet */
    uint64_t long_steps; /* steps past TERN_SPIN_US; 0: still spinning */
    int net;             /* 1: what it waits for comes over the network (a
                            network completion, a flag a network write
                            raises): every step drives the whole hook */
} tn_wait_t;

#define TN_WAIT_FRESH ((tn_wait_t){0, 0, 0, 0})
/* A fresh wait for a network event (tn_wait_t.net). */
#define TN_WAIT_NET ((tn_wait_t){0, 0, 0, 1})

static inline void tn_wait_start(tn_wait_t *w)
{
    *w = TN_WAIT_FRESH;
}

/* Something the waiting call drove completed (progress ran a handler,
 * served a request, moved a collective's data): the peer is running, so
 * the wait spins again for TERN_SPIN_US from its next timed poll. A rank
 * that serves requests in one long wait (an AM server, an AMO mailbox
 * owner) is busy, not idle; without this it yielded at every empty poll
 * once its first 50 us had passed (shm AM Short round trip 66 -> 283 ns,
 * docs/design/barrier-and-waiting.md). */
static inline void tn_wait_progressed(tn_wait_t *w)
{
    w->t0 = 0;
    w->long_steps = 0;
}

/* One step of the wait w after a failed check: drives the progress hook
 * (a completion counts as tn_wait_progressed), then is cheap when
 * spinning; yields or sleeps briefly (without a wake-up source) when the
 * policy says so. */
void tn_wait_next(tn_wait_t *w);

/* Auto mode with a CPU for each rank: whether a wait that started spinning
 * at t0 (tn_time_ns) has spun past TERN_SPIN_US, no healthy hand-off being
 * that long (docs/design/barrier-and-waiting.md). Read every 64 polls. */
static inline int tn_wait_spun_out(uint64_t t0, uint64_t now)
{
    const tn_wait_policy_t *p = &tn_wait_policy;
    return p->mode == TN_WAIT_AUTO && p->spin_ns && now - t0 > p->spin_ns;
}

/* One step of a wait past TERN_SPIN_US (auto mode), its n-th: drives the
 * progress hook, then yields as an oversubscribed rank does (only a
 * flag's wait, tn_wait_u32_change, goes on to sleep). */
void tn_wait_long_step(uint64_t n);

/* A call about to refuse under TERN_FLAG_IMMEDIATE after a poll that found
 * nothing: yields the CPU when a waiting call would (oversubscribed, or
 * the yield and block modes). What the call lacks (a queue cell, a
 * descriptor, credit) comes back only when a peer runs; a caller's retry
 * loop that never yields holds the core the peer needs for its whole
 * time slice (mp.immediate, 4 ranks on 2 cores over tcp: 15 ms per put). */
void tn_wait_refused(void);

/* Wait until *word != old, sleeping in the kernel (futex) in block mode
 * past the spin count, and in auto mode when oversubscribed past the
 * yield count (no progress hook: a sleeper could not drive the network);
 * *sleeping is raised while asleep so that writers know to wake
 * (tn_wait_wake). */
void tn_wait_u32_change(_Atomic uint32_t *word, uint32_t old, _Atomic uint32_t *sleeping);
/* Called by a writer after changing *word. */
void tn_wait_wake(_Atomic uint32_t *word, _Atomic uint32_t *sleeping);

/* Whether a waiter of this machine may sleep on a futex under the policy
 * (block mode; auto mode on an oversubscribed host with yields before
 * sleeping). The policy comes from the configuration and the host, alike
 * on every rank of a node, so a writer that reads 0 here knows that no
 * mapped reader sleeps: it may publish with a release store and skip the
 * StoreLoad fence and the wake check of tn_wait_wake (a reader's futex
 * wait has a 10 ms timeout should a rank be configured otherwise). */
static inline int tn_wait_may_sleep(void)
{
    const tn_wait_policy_t *p = &tn_wait_policy;
    return p->mode == TN_WAIT_BLOCK ||
           (p->mode == TN_WAIT_AUTO && p->oversubscribed && p->yield_count > 0);
}

#endif
