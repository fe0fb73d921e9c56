/* Teams: a set of ranks with its own barrier state. Only the world team
 * exists today; split teams and collectives will build on the same
 * object (docs/design/transports.md). */
#ifndef TN_TEAM_H
#define TN_TEAM_H

#include <stddef.h>
#include <stdint.h>

#include "base/comp.h"
#include "mem/ctrl.h"

/* One level of the hierarchical barrier: a dissemination over ranks[n],
 * this rank at index me. In round k the rank at i writes the epoch into
 * flag k (at ctrl offset off + k * TN_CTRL_LINE) of the rank at
 * (i + 2^k) mod n: a store when that rank's control area is mapped here,
 * else a network write through its transport. */
typedef struct tn_team_level {
    const int *ranks; /* global ranks, not owned */
    int n, me;
    int rounds;     /* ceil(log2 of the largest n of this level on any node) */
    size_t off;     /* first flag's offset in every member's control area */
    uint32_t epoch; /* passes of this level completed */
    uint32_t *vals; /* [rounds] sources of network flag writes */
} tn_team_level_t;

typedef struct tn_team {
    int size, rank;       /* members, and this rank's index among them */
    tn_team_level_t node; /* the members sharing memory with this rank */
    tn_team_level_t net;  /* one leader (lowest rank) per node */
    int nnodes;
    tn_comp_t comp; /* this rank's network flag writes in flight */
} tn_team_t;

/* The world team's barrier flags: claims them in space (collective in the
 * sense that every rank must make the same claims in the same order; no
 * communication). Needs core's node map. */
int tn_team_world_plan(tn_team_t *t, tn_ctrl_space_t *space);
/* After the transports are up (flags are written through them). */
void tn_team_destroy(tn_team_t *t);

/* Barrier over the team: hierarchical (node, then leaders, then node).
 * Acquire/release: stores before it are visible to every member after.
 * A failed network flag write ends the job (a barrier cannot return with
 * some members released and others not). */
void tn_team_barrier(tn_team_t *t);

/* Waits until this rank's network flag writes have all completed; returns
 * the first error among them. */
int tn_team_drain(tn_team_t *t);

#endif
