/* Inline fast paths of the RMA calls. Not a public interface by itself:
 * tern.h includes it so that a put or get to a rank whose segment is
 * mapped into this process (self or a shared-memory peer) costs one bounds
 * check and a copy, with no call into the library. Everything else (a
 * network peer, a bad argument, a call before init) goes to the library's
 * out-of-line slow path, which also produces the error message. */
#ifndef TERN_FAST_H
#define TERN_FAST_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "api.h"

#if defined(__GNUC__)
#define TERN_LIKELY_(x) __builtin_expect(!!(x), 1)
/* An inline call's way into the library, kept out of its fast path. */
#define TERN_COLD_ __attribute__((noinline, cold, unused))
#else
#define TERN_LIKELY_(x) (x)
#define TERN_COLD_
#endif

/* One entry per rank, written once during tern_init and only read after.
 * base is the peer's segment base in the peer's own address space; delta is
 * added to such an address to reach this process's mapping of it. size is
 * the segment's size when it is mapped here (self, shared-memory peer) and
 * 0 otherwise, so one range check decides the fast path. base and size
 * are multiples of 64 (whole pages), which tern_fast_word_ok_ relies on. */
typedef struct tern_peer_fast {
    uintptr_t base;
    uintptr_t size;
    intptr_t delta;
    uintptr_t copy_min; /* copies of this many bytes or more go through
                           tern_copy_() (topology-aware); UINTPTR_MAX: never */
} tern_peer_fast_t;

typedef struct tern_fast_state {
    const tern_peer_fast_t *peer; /* NULL before init and after finalize */
    uint32_t npeers;              /* 0 before init and after finalize */
    uint32_t signal_cpu;          /* 1: a put with signal to a mapped rank
                                     may update the signal word with a CPU
                                     atomic (the job runs on one node) */
} tern_fast_state_t;

extern TERN_API tern_fast_state_t tern_fast_;

/* Copy of n >= copy_min bytes to or from rank's mapped segment, choosing
 * regular or non-temporal stores by the distance to rank (out of line). */
TERN_API void tern_copy_(int rank, void *dst, const void *src, size_t n);

/* 1 when [addr, addr+n) on rank is mapped here, with *delta to add to addr.
 * Cost: ~10 instructions, two predictable branches, no call. */
static inline int tern_fast_ok_(int rank, const void *addr, size_t n, intptr_t *delta)
{
    if (TERN_LIKELY_((unsigned)rank < tern_fast_.npeers)) {
        const tern_peer_fast_t *p = &tern_fast_.peer[rank];
        uintptr_t off = (uintptr_t)addr - p->base;
        *delta = p->delta;
        return off <= p->size && n <= p->size - off;
    }
    return 0;
}

/* The same for one naturally aligned word of at most 64 bytes at addr
 * (its alignment checked by the caller): as base and size are multiples
 * of 64, its first byte in range puts all of it in range. One compare
 * fewer than tern_fast_ok_. */
static inline int tern_fast_word_ok_(int rank, const void *addr, intptr_t *delta)
{
    if (TERN_LIKELY_((unsigned)rank < tern_fast_.npeers)) {
        const tern_peer_fast_t *p = &tern_fast_.peer[rank];
        *delta = p->delta;
        return (uintptr_t)addr - p->base < p->size;
    }
    return 0;
}

/* The copy of a fast-path transfer with rank: memcpy below the peer's
 * copy_min, the topology-aware copy above it. */
static inline void tern_fast_copy_(int rank, void *dst, const void *src, size_t n)
{
    if (TERN_LIKELY_(n < tern_fast_.peer[rank].copy_min))
        memcpy(dst, src, n);
    else
        tern_copy_(rank, dst, src, n);
}

#ifdef __cplusplus
}
#endif
#endif
