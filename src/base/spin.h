/* A test-and-test-and-set spin lock for short critical sections whose
 * holder needs no progress from the waiter (the combining buffers of
 * core/atomic_agg.c and core/put_agg.c: a holder appends a few stores or
 * sends with its own progress). */
#ifndef TN_SPIN_H
#define TN_SPIN_H

#include <sched.h>
#include <stdatomic.h>

#include "base/wait.h"

static inline int tn_spin_trylock(_Atomic int *l)
{
    return !atomic_load_explicit(l, memory_order_relaxed) &&
           !atomic_exchange_explicit(l, 1, memory_order_acquire);
}

static inline void tn_spin_lock(_Atomic int *l)
{
    for (unsigned i = 1; !tn_spin_trylock(l); i++) {
        if (i % 64)
            tn_cpu_relax();
        else
            sched_yield(); /* the holder may be descheduled (oversubscribed) */
    }
}

static inline void tn_spin_unlock(_Atomic int *l)
{
    atomic_store_explicit(l, 0, memory_order_release);
}

#endif
