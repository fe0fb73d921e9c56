/* Completion objects: the one record of "how many parts of an operation
 * are still outstanding, and did any fail" behind events, nbi tracking,
 * blocking calls and (later) AM, atomics and collectives. Core creates
 * them; transports report every part's end into them with its status. */
#ifndef TN_COMP_H
#define TN_COMP_H

#include <stdatomic.h>
#include <stdint.h>

/* Writers: the issuing thread (tn_comp_add) and whichever thread runs
 * progress (tn_comp_done). Readers: the waiting thread. */
typedef struct tn_comp {
    _Atomic(int64_t) pending; /* parts not yet ended */
    _Atomic(int) status;      /* TERN_OK, or the first error reported */
} tn_comp_t;

static inline void tn_comp_init(tn_comp_t *c, int64_t pending)
{
    atomic_store_explicit(&c->pending, pending, memory_order_relaxed);
    atomic_store_explicit(&c->status, 0, memory_order_relaxed);
}

/* n more parts will end (n may be negative to take back parts that were
 * counted but never issued). */
static inline void tn_comp_add(tn_comp_t *c, int64_t n)
{
    atomic_fetch_add_explicit(&c->pending, n, memory_order_relaxed);
}

/* One part ended with status. The error is recorded before the count
 * drops, and the drop releases, so a waiter that sees pending reach 0
 * (acquire) sees the error too. After the last part's call the object
 * may be gone: nothing touches it again. Cost: one atomic add. */
static inline void tn_comp_done(tn_comp_t *c, int status)
{
    if (__builtin_expect(status != 0, 0)) {
        int ok = 0;
        atomic_compare_exchange_strong_explicit(
            &c->status, &ok, status, memory_order_relaxed, memory_order_relaxed);
    }
    atomic_fetch_sub_explicit(&c->pending, 1, memory_order_release);
}

/* n parts ended with status, as n calls of tn_comp_done in one atomic
 * (a combined message's Reply ends the parts of all its operations). */
static inline void tn_comp_done_n(tn_comp_t *c, int64_t n, int status)
{
    if (__builtin_expect(status != 0, 0)) {
        int ok = 0;
        atomic_compare_exchange_strong_explicit(
            &c->status, &ok, status, memory_order_relaxed, memory_order_relaxed);
    }
    atomic_fetch_sub_explicit(&c->pending, n, memory_order_release);
}

/* 1 while parts are outstanding (acquire: their data is visible after). */
static inline int tn_comp_busy(tn_comp_t *c)
{
    return atomic_load_explicit(&c->pending, memory_order_acquire) > 0;
}

/* Nonzero while parts are outstanding or an error waits to be taken:
 * or-ed over several objects, one test says there is nothing to do. Counts
 * are not negative at rest (a take-back follows its add); a transient
 * negative one only sends the caller to its exact, waiting path. */
static inline uint64_t tn_comp_dirty(tn_comp_t *c)
{
    return (uint64_t)atomic_load_explicit(&c->pending, memory_order_acquire) |
           (uint32_t)atomic_load_explicit(&c->status, memory_order_relaxed);
}

/* The first error reported (TERN_OK if none); take clears it, so that
 * an error is returned once (nbi sync, context quiet). */
static inline int tn_comp_status(tn_comp_t *c)
{
    return atomic_load_explicit(&c->status, memory_order_relaxed);
}
/* A load first: the exchange is a locked instruction (about 20 cycles
 * here), paid twice by every nbi sync and quiet, almost always to swap a 0
 * for a 0. Seeing 0 is as good as swapping it: an error recorded after the
 * load belongs to the next take, as it would after the exchange. */
static inline int tn_comp_take_status(tn_comp_t *c)
{
    if (atomic_load_explicit(&c->status, memory_order_relaxed) == 0)
        return 0;
    return atomic_exchange_explicit(&c->status, 0, memory_order_relaxed);
}

#endif
