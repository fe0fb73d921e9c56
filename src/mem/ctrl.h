/* The control area at the start of every rank's segment mapping: space
 * that peers write (shared-memory stores or network writes) and the owner
 * reads - barrier flags today, later queues and locks. It is claimed piece
 * by piece at start-up, before the segment exists; since every rank claims
 * the same pieces in the same order, a piece has the same offset on every
 * rank, so a writer finds it in any peer's area (docs/design/transports.md
 * gives the size formula). */
#ifndef TN_CTRL_H
#define TN_CTRL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define TN_CTRL_LINE 64 /* bytes of one flag: one cache line, one writer */

/* A flag: the epoch is written by the one signalling peer, sleeping by the
 * owner before it sleeps on the epoch (futex) so that the writer wakes it. */
typedef struct tn_ctrl_flag {
    _Alignas(TN_CTRL_LINE) _Atomic uint32_t epoch;
    _Atomic uint32_t sleeping;
} tn_ctrl_flag_t;
_Static_assert(sizeof(tn_ctrl_flag_t) == TN_CTRL_LINE, "one flag per cache line");

/* The claims made so far (a bump allocator over offsets; nothing is ever
 * given back before the segment goes). */
typedef struct tn_ctrl_space {
    size_t used; /* bytes claimed, the end of the last claim */
} tn_ctrl_space_t;

/* Claims bytes at a multiple of align (a power of two); returns the
 * offset from the start of the control area. */
static inline size_t tn_ctrl_alloc(tn_ctrl_space_t *s, size_t bytes, size_t align)
{
    size_t off = (s->used + align - 1) & ~(align - 1);
    s->used = off + bytes;
    return off;
}

#endif
