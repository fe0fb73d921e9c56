/* The wait policy (base/wait.c) in one process: in auto mode on a machine
 * with a CPU per rank, a wait spins (no yield, no sleep) until it has
 * waited TERN_SPIN_US, then yields, and (a flag's wait) past
 * TERN_YIELD_COUNT yields sleeps; a fresh wait, and a long wait whose
 * progress completed something, spin again; TERN_SPIN_US=0 and spin mode
 * never yield; in a mixed job (a node-local hook) a spinning node-local wait
 * polls the network once TERN_NET_POLL_NS have passed since the thread's
 * last poll began, at once again after a poll that found work, and at every
 * step of a network wait or of a yielding one. sched_yield and nanosleep are this file's, counting
 * calls (the executable's definitions take the library's calls). */
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "base/time.h"
#include "base/wait.h"
#include "unit_check.h"

static unsigned long yields, sleeps;
static _Atomic uint32_t *word_to_set; /* set to 1 at the 3rd sleep */

int sched_yield(void)
{
    yields++;
    return 0;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
    (void)req;
    (void)rem;
    if (++sleeps == 3 && word_to_set)
        atomic_store(word_to_set, 1);
    return 0;
}

/* Work the progress hook finds: that many of its next calls complete
 * something (an AM server's wait running a request's handler). */
static int hook_work;

static int hook(void)
{
    if (!hook_work)
        return 0;
    hook_work--;
    return 1;
}

/* A mixed job's hooks: the whole progress (what yielding steps and network
 * waits drive), its node-local part and its network part, counting calls;
 * net_work of the network part's next calls find something. relaxes: the
 * relax hook's calls. */
static unsigned long full_calls, local_calls, net_calls, relaxes;
static int net_work;

static int full_hook(void)
{
    full_calls++;
    return 0;
}

static int local_hook(void)
{
    local_calls++;
    return 0;
}

static int net_hook(void)
{
    net_calls++;
    if (!net_work)
        return 0;
    net_work--;
    return 1;
}

static void relax_hook(void)
{
    relaxes++;
}

/* n steps of each of waits fresh waits (network waits when net); the
 * counts start from 0. */
static void mixed_steps(int waits, int n, int net)
{
    full_calls = local_calls = net_calls = relaxes = yields = 0;
    for (int i = 0; i < waits; i++) {
        tn_wait_t w = net ? TN_WAIT_NET : TN_WAIT_FRESH;
        for (int k = 0; k < n; k++)
            tn_wait_next(&w);
    }
}

/* Steps of the wait w for ns nanoseconds, or until the first yield when
 * stop_at_yield; the time of the first yield (0: none). Counts from 0. */
static uint64_t steps_of(tn_wait_t *w, uint64_t ns, int stop_at_yield)
{
    uint64_t t0 = tn_time_ns(), first = 0;
    yields = sleeps = 0;
    for (;;) {
        tn_wait_next(w);
        uint64_t now = tn_time_ns();
        if (yields && !first) {
            first = now - t0;
            if (stop_at_yield)
                break;
        }
        if (now - t0 > ns)
            break;
    }
    return first;
}

/* steps_of a fresh wait; *steps: its steps. */
static uint64_t run_wait(uint64_t ns, int stop_at_yield, uint64_t *steps)
{
    tn_wait_t w;
    tn_wait_start(&w);
    uint64_t first = steps_of(&w, ns, stop_at_yield);
    *steps = w.iter;
    return first;
}

int main(void)
{
    uint64_t steps, first;
    tn_wait_policy.mode = TN_WAIT_AUTO;
    tn_wait_policy.oversubscribed = 0;
    tn_wait_policy.yield_count = 8;

    /* A 20 ms bound: nothing before it, yields after it, then sleeps. */
    tn_wait_policy.spin_ns = 20 * 1000 * 1000;
    tn_wait_t w;
    tn_wait_start(&w);
    first = steps_of(&w, 2000 * 1000 * 1000ull, 1);
    CHECK(first >= 20 * 1000 * 1000);
    CHECK(first < 1000 * 1000 * 1000);
    CHECK(sleeps == 0);
    for (int i = 0; i < 16; i++)
        tn_wait_next(&w);
    CHECK(yields == 17 && sleeps == 0); /* only a flag's wait sleeps */

    /* A fresh wait right after that long one spins: 5 ms, no yield. */
    first = run_wait(5 * 1000 * 1000, 0, &steps);
    CHECK(first == 0 && yields == 0 && sleeps == 0);
    CHECK(steps > 64);

    /* A long wait (past the bound, yielding) whose progress completes
     * something - a request served, as an AM server's one wait does for
     * every request - spins again: 5 ms of empty polls, no yield, then
     * yields once 20 ms have passed again. The logic before (a new wait
     * only where the poll count went down) kept it yielding at every empty
     * poll: the shm AM Short round trip went 66 -> 283 ns at 50 us. */
    tn_wait_progress_hook = hook;
    first = steps_of(&w, 100 * 1000 * 1000, 1);
    CHECK(first > 0 && first < 1000 * 1000); /* still past the bound */
    hook_work = 1;
    uint64_t t_work = tn_time_ns();
    tn_wait_next(&w); /* the hook completes something */
    CHECK(hook_work == 0);
    first = steps_of(&w, 5 * 1000 * 1000, 0);
    CHECK(first == 0 && yields == 0 && sleeps == 0);
    uint64_t t_more = tn_time_ns();
    first = steps_of(&w, 2000 * 1000 * 1000ull, 1);
    CHECK(first > 0 && t_more + first - t_work >= 20 * 1000 * 1000);
    CHECK(first < 1000 * 1000 * 1000);
    tn_wait_progress_hook = NULL;

    /* A flag's wait (barriers, collectives) sleeps past TERN_YIELD_COUNT
     * yields; the 3rd sleep sets the flag. */
    _Atomic uint32_t word = 0, sleeping = 0;
    word_to_set = &word;
    yields = sleeps = 0;
    uint64_t t0 = tn_time_ns();
    tn_wait_u32_change(&word, 0, &sleeping);
    CHECK(tn_time_ns() - t0 >= 20 * 1000 * 1000);
    CHECK(yields == 8 && sleeps == 3);
    word_to_set = NULL;

    /* A fresh wait spins again: 5 ms of steps (under the bound), none. */
    first = run_wait(5 * 1000 * 1000, 0, &steps);
    CHECK(first == 0 && yields == 0 && sleeps == 0);
    CHECK(steps > 64);

    /* A short bound (the default's order): the switch comes within it
     * plus 64 polls. */
    tn_wait_policy.spin_ns = 50 * 1000;
    first = run_wait(1000 * 1000 * 1000ull, 1, &steps);
    CHECK(first >= 50 * 1000 && first < 100 * 1000 * 1000);

    /* TERN_SPIN_US=0: spins for ever (50 ms here). */
    tn_wait_policy.spin_ns = 0;
    first = run_wait(50 * 1000 * 1000, 0, &steps);
    CHECK(first == 0 && yields == 0 && sleeps == 0);

    /* Spin mode ignores the bound. */
    tn_wait_policy.spin_ns = 1000;
    tn_wait_policy.mode = TN_WAIT_SPIN;
    first = run_wait(50 * 1000 * 1000, 0, &steps);
    CHECK(first == 0 && yields == 0 && sleeps == 0);

    /* Oversubscribed auto yields at once, as before. */
    tn_wait_policy.mode = TN_WAIT_AUTO;
    tn_wait_policy.oversubscribed = 1;
    first = run_wait(1000 * 1000, 1, &steps);
    CHECK(first > 0 && steps == 1);

    /* Mixed job, TERN_NET_POLL_NS (docs/design/barrier-and-waiting.md,
     * "Polling cadence"), here 20 ms. Spin mode: each step drives the
     * node-local part; a step polls the network as well (the network part,
     * no pause after it) once 20 ms have passed since the thread's last
     * poll ended; the others watch (the relax hook). A check that no step
     * polled holds only while the steps took less than 20 ms (a preempted
     * run may take longer). */
    const uint64_t T = 20 * 1000 * 1000;
    tn_wait_policy.oversubscribed = 0;
    tn_wait_policy.mode = TN_WAIT_SPIN;
    tn_wait_policy.net_ticks = tn_wait_ticks_of_ns(T);
    tn_wait_policy.net_quiet_ticks = 0;
    CHECK(tn_wait_ticks_of_ns(0) == 0 && tn_wait_ticks_of_ns(1) >= 1);
    tn_wait_progress_hook = full_hook;
    tn_wait_local_hook = local_hook;
    tn_wait_net_hook = net_hook;
    tn_wait_relax_hook = relax_hook;
    t0 = tn_time_ns();
    mixed_steps(1, 1000, 0); /* the thread's first step polls */
    uint64_t e = tn_time_ns() - t0;
    CHECK(net_calls >= 1 && local_calls == 1000 && relaxes == 1000 - net_calls &&
          full_calls == 0 && yields == 0);
    CHECK(net_calls == 1 || e >= T);
    /* Timed across the thread's waits: 40 waits of 4 steps. */
    mixed_steps(40, 4, 0);
    CHECK(local_calls == 160 && (net_calls == 0 || tn_time_ns() - t0 >= T));
    /* A network wait drives the whole progress at every step, with no
     * pause after it. */
    mixed_steps(1, 50, 1);
    CHECK(full_calls == 50 && local_calls == 0 && net_calls == 0 && relaxes == 0);
    /* Once the time has passed, the next step polls; one that finds work
     * is followed by another (3 finds, then an empty poll), then the
     * node-local steps again. */
    t0 = tn_time_ns();
    while (tn_time_ns() - t0 < T + T / 10)
        ;
    mixed_steps(1, 1, 0);
    CHECK(net_calls == 1 && local_calls == 1);
    t0 = tn_time_ns();
    while (tn_time_ns() - t0 < T + T / 10)
        ;
    net_work = 3;
    t0 = tn_time_ns();
    mixed_steps(1, 4 + 100, 0);
    CHECK(net_work == 0 && net_calls >= 4 && local_calls == 104);
    CHECK((net_calls == 4 && relaxes == 100) || tn_time_ns() - t0 >= T);
    /* With a quiet time (TERN_NET_POLL_NS x 64 in a job; 20 ms here), a
     * network poll that found work keeps every step polling until the
     * quiet time has passed without any. */
    tn_wait_policy.net_quiet_ticks = tn_wait_policy.net_ticks;
    t0 = tn_time_ns();
    while (tn_time_ns() - t0 < T + T / 10)
        ;
    net_work = 1;
    t0 = tn_time_ns();
    mixed_steps(1, 100, 0);
    CHECK(net_work == 0 && relaxes == 0 && net_calls == 100 && local_calls == 100);
    while (tn_time_ns() - t0 < T + T / 10)
        ;
    mixed_steps(1, 1, 0); /* quiet for 20 ms: the poll is due, it finds nothing */
    CHECK(net_calls == 1);
    /* So does a send over the network (the transport calls
     * tn_wait_net_used as it posts). */
    t0 = tn_time_ns();
    tn_wait_net_used();
    mixed_steps(1, 100, 0);
    CHECK(net_calls == 100 && relaxes == 0);
    while (tn_time_ns() - t0 < T + T / 10)
        ;
    mixed_steps(1, 1, 0);
    CHECK(net_calls == 1);
    /* Auto mode with a CPU per rank: the same cadence while spinning. */
    tn_wait_policy.mode = TN_WAIT_AUTO;
    tn_wait_policy.spin_ns = 0;
    t0 = tn_time_ns();
    mixed_steps(1, 1000, 0);
    CHECK(yields == 0 && local_calls == 1000 &&
          (net_calls == 0 || tn_time_ns() - t0 >= T));
    /* A step that yields (oversubscribed) drives the whole progress each
     * time. */
    tn_wait_policy.oversubscribed = 1;
    mixed_steps(1, 40, 0);
    CHECK(full_calls == 40 && local_calls == 0 && net_calls == 0 && yields == 40);
    /* TERN_NET_POLL_NS=0 (core sets no node-local hook): each step. */
    tn_wait_policy.oversubscribed = 0;
    tn_wait_local_hook = NULL;
    tn_wait_net_hook = NULL;
    mixed_steps(1, 40, 0);
    CHECK(full_calls == 40 && local_calls == 0);
    tn_wait_progress_hook = NULL;
    tn_wait_relax_hook = NULL;
    return 0;
}
