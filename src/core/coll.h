/* Teams of the public API and the state their collectives share: a slot of
 * the symmetric team pool (flags and scratch at the same offsets on every
 * rank), the member list, and the sequence number of the team's
 * collectives. docs/design/collectives.md. */
#ifndef TN_COLL_H
#define TN_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "base/comp.h"
#include "base/wait.h"
#include "core/core.h"

enum { TN_SLOT_WORLD = 0, TN_SLOT_NODE = 1 };

/* A team flag: epoch written by its one sender, sleeping by its reader
 * before it sleeps on epoch (futex). A sender that is not mapped here is
 * never slept on: its epoch is raised by its messages' handler and its
 * second word holds the last barrier it signalled by an unacknowledged
 * RMA write (core/coll_sync.c). 8 bytes rather than a cache line
 * each: a job of P ranks needs P of them in each of the 32 slots, and
 * the pool must fit small segments (8 flags share a line: their writers
 * contend only when they signal one reader at once). */
typedef struct tn_coll_flag {
    _Atomic uint32_t epoch;
    _Atomic uint32_t sleeping;
} tn_coll_flag_t;
_Static_assert(sizeof(tn_coll_flag_t) == 8, "a team flag is two words");

/* The split arguments area of a slot: a symmetric source and result for
 * the small allreduces that a split runs over its parent. */
#define TN_SLOT_ARGS 256
/* Largest broadcast or allreduce (bytes) that a team whose members share
 * memory runs through its fast area: one barrier and reads in place. */
#define TN_COLL_FAST 1024
/* The broadcast part of the fast area in cache lines of 60 bytes of data
 * and a stamp: small broadcasts of a team on one node claim whole lines
 * of their root's part in turn (core/coll_node.c). 36: two calls of
 * 1 KiB (18 lines each) fit. */
#define TN_COLL_BLINES 36
/* Each member's two slots of stamped lines for small exchanges
 * (allreduce, fcollect, all-to-all up to 120 bytes of src) of a team on
 * one node, used in turn (core/coll_node.c): lines per slot, all. */
#define TN_COLL_XSLOT  2
#define TN_COLL_XLINES (2 * TN_COLL_XSLOT)
/* Quarter lines (12 bytes of data and a stamp) of the fast area for the
 * broadcasts of at most 12 bytes, four to a line, so that a receiver
 * behind its root takes four calls per line that moves (core/coll_node.c). */
#define TN_COLL_BQUARTERS 32
/* Bytes of the fast area: the two allreduce halves, the broadcast lines,
 * the exchange lines, the broadcast quarters. */
#define TN_COLL_FAST_AREA \
    (2 * TN_COLL_FAST + (TN_COLL_BLINES + TN_COLL_XLINES + TN_COLL_BQUARTERS / 4) * 64)

/* A reduction kernel: acc[i] = acc[i] op in[i] for n elements. */
typedef void (*tn_red_fn)(void *acc, const void *in, size_t n);
/* tn_cteam_t.rpost once a region's handler has combined (below). */
#define TN_RPOST_TAKEN (-1)

/* A team in this rank. Its slot in the pool holds, from slot_off:
 *   flags   [world size] tn_coll_flag_t: flag j is written only by team
 *           rank j (store when mapped, network write otherwise) and read
 *           by this rank: the sequence number of the last collective in
 *           which j did what it owed this rank;
 *   args    TN_SLOT_ARGS bytes (splits of this team as parent);
 *   scratch tn_teams.scratch bytes (reduction partials, collect sizes);
 *   fast    TN_COLL_FAST_AREA bytes: two halves of TN_COLL_FAST used
 *           in turn by small allreduces, the broadcast area (TN_COLL_BLINES
 *           lines claimed one by one by small broadcasts rooted here),
 *           and two exchange slots of TN_COLL_XSLOT lines, of teams whose members all
 *           share memory (core/coll_node.c);
 *   ring    tn_teams.depth x tn_teams.eager bytes, in a job with more
 *           than one node only, claimed by bytes call after call: where
 *           small broadcasts, fcollects, all-to-alls and allreduces of
 *           teams across nodes land (core/coll_eager.c).
 * Flags and scratch are zero when the slot is claimed (cleared at init and
 * at destroy, after a barrier that every write to them precedes). */
typedef struct tn_cteam {
    int live;
    uint32_t gen; /* bumped per claim of this slot: stale handles are refused */
    int slot;
    int size, rank; /* members; this rank's team rank */
    int *ranks;     /* [size] global ranks, ascending */
    char *flags;    /* this rank's flags of the slot (segment memory) */
    char *args;
    char *scratch;
    char *fast;       /* TN_COLL_FAST_AREA bytes (see above) */
    char *ring;       /* rsize bytes, or NULL (see above) */
    uint64_t rsize;   /* bytes of the ring: depth x eager, or the world
                          team's tn_teams.world_ring */
    uint64_t ecount;  /* ring bytes claimed by eager collectives (every
                          member the same; core/coll_eager.c) */
    uint64_t emark;   /* ring position before which every member has
                          finished every eager call: ecount at the team's last
                          barrier, or the start of the last exchange's claim
                          (core/coll_eager.c) */
    uint64_t eat;     /* where the current eager call's claim starts */
    int par;          /* the allreduce half of the next small allreduce */
    uint32_t *bcount; /* [2 x size] line of each member's broadcast area that
                          its next small broadcast claims, then its quarters
                          claimed so far (all alike) */
    uint32_t bline[TN_COLL_BLINES];       /* the last broadcast this rank rooted
                                       through each line of its area */
    uint32_t bquarter[TN_COLL_BQUARTERS]; /* the same for each quarter */
    int all_mapped;    /* every member's segment is mapped here (one node) */
    int xmax;          /* bytes of data a stamped record carries to every
                          other member (one node each, unacknowledged writes),
                          0: none (core/coll_eager.c, tn_coll_small_*) */
    int wmax;          /* bytes of data a wide record carries (one write with
                          local completion only: an allreduce's partial or an
                          fcollect or all-to-all block), above xmax; 0: none
                          (core/coll_eager.c, tn_coll_wide_max) */
    uint32_t seq;      /* collectives run on this team (every member the same) */
    uint32_t barseq;   /* seq of its last barrier (its first at creation, as the flags) */
    char *staging;     /* private, scratch bytes: network gets land here */
    size_t *off, *len; /* [size] per-member offsets and lengths of a
                          tern_collect, or NULL till the first one */
    int *bynode;       /* [size] team ranks by node, then team rank */
    int *order;        /* [size] the broadcast tree's order (tn_coll_tree_order) */
    int *xorder;       /* [2 x size] a large exchange's members in the order its
                          puts to them start, then whether each has started
                          (core/coll.c, push_large); NULL when all_mapped */
    tn_comp_t comp;    /* this rank's network flag writes in flight */
    /* An eager allreduce round waiting for a network member's region
     * (core/coll_am.c, tn_coll_region_wait): where this member's partial
     * lies and how to combine, so that the handler of that member's region
     * message combines the payload straight out of the receive buffer
     * instead of copying it into the ring for the waiter to combine.
     * Written by the waiting thread, rpost last (release: the team rank
     * of the member whose region it waits for, plus 1); read by the thread
     * that runs the handler, which sets rpost to TN_RPOST_TAKEN once it
     * has combined. 0: nothing posted (a zeroed slot, and after each
     * round). */
    void *racc;
    tn_red_fn rfn, rrfn; /* acc op= in, acc = in op acc */
    size_t rcount, res;
    uint32_t rseq;
    _Atomic int rpost;
    /* A non-blocking barrier in progress (tern_team_barrier_nb): its
     * sequence number, the next round's distance, its event. busy keeps
     * the progress thread and the caller from advancing it at once. */
    _Atomic int nb_active; /* set last (release): the fields above are ready */
    uint32_t nb_seq;
    int nb_dist;
    tn_comp_t *nb_comp;
    _Atomic int nb_busy;
} tn_cteam_t;

typedef struct tn_teams {
    tn_cteam_t t[TERN_TEAMS_MAX];
    size_t pool_off;   /* segment offset of slot 0 */
    size_t slot_size;  /* bytes per slot */
    size_t scratch;    /* scratch bytes per slot */
    size_t flag_bytes; /* flags per slot, rounded up to a cache line */
    size_t eager;      /* bytes per ring entry; 0: no ring */
    uint32_t depth;    /* ring entries per slot */
    size_t world_ring; /* bytes of the world team's ring after the slots
                          (TERN_COLL_WORLD_RING), 0: its slot's */
} tn_teams_t;

extern tn_teams_t tn_teams;

/* The pool and the predefined teams (world, node): at tern_init after the
 * heap exists and before any peer can write (every rank makes the same
 * symmetric claim first, so its offset is the same everywhere). */
int tn_teams_init(void);
/* Bytes of the pool (after the node map): tern_init grows the segment by
 * them, so that the program keeps all of TERN_SEGMENT_SIZE. */
size_t tn_teams_pool_size(void);
void tn_teams_fini(void);
/* The live teams' private tables (memory accounting): the world team's
 * per rank of the job, the node team's per local rank, the rest fixed. */
struct tn_mem_tally;
void tn_teams_tally(struct tn_mem_tally *t);
/* Waits for every live team's network flag writes; the first error. */
int tn_teams_drain(void);

/* The team behind handle, or NULL after logging TERN_ERR_INVALID for
 * call (invalid or destroyed). */
tn_cteam_t *tn_team_get(tern_team_t handle, const char *call);

/* Synchronization (core/coll_sync.c). Flag of this rank at team rank j,
 * value seq: a store and wake when j is mapped here, else a Short active
 * message whose handler raises it (a failed send ends the job, as in the
 * world barrier). */
void tn_coll_signal(tn_cteam_t *t, int j, uint32_t seq);
/* One step of a wait on t's flags (core/coll_sync.c): a failed network
 * write of a flag ends the job; the wait yields or sleeps by the waiting
 * policy and, without a progress hook, polls every 64th step. */
void tn_coll_wait_step(tn_cteam_t *t, tn_wait_t *w);
/* Until this rank's flag of team rank j reaches seq. */
void tn_coll_wait(tn_cteam_t *t, int j, uint32_t seq);

/* Barrier over t: dissemination on the slot's flags (the world team uses
 * tern_barrier's hierarchical one). */
void tn_coll_barrier(tn_cteam_t *t);
/* Flags compare modulo 2^32 ("flag - seq >= 0"), so a flag left unwritten
 * for 2^31 of the team's calls would read as written. The collectives
 * that signal no flag (the small stamped ones on a node, the eager ring's
 * calls over the network) call tn_coll_refresh first: once 2^28 calls
 * have passed since the team's last barrier (every member alike), a
 * barrier, then this member's flag at every other member set to the
 * barrier's number (true: it has finished every call up to it), both
 * words of network members' flags included. mp.coll_seqbar. */
#define TN_COLL_REFRESH (1u << 28)
void tn_coll_refresh_flags(tn_cteam_t *t);
static inline void tn_coll_refresh(tn_cteam_t *t)
{
    if (tn_unlikely(t->seq - t->barseq >= TN_COLL_REFRESH))
        tn_coll_refresh_flags(t);
}
/* Advances every non-blocking barrier in progress as far as it can
 * without waiting (from tn_core_progress and event waits); tn_coll_nb
 * counts them so that the callers pay one load when there are none. */
void tn_coll_progress(void);
extern _Atomic int tn_coll_nb;
/* Completes t's non-blocking barrier, if any, before another collective
 * on t (tn_team_get does it). */
void tn_coll_nb_finish(tn_cteam_t *t);
/* Writes this rank's flags of t have in flight, then the first error. */
int tn_coll_drain(tn_cteam_t *t);

/* Data with its flag (core/coll_am.c): n bytes from src into member j's
 * copy of dest (this rank's symmetric address), then this rank's flag at
 * j raised to seq, so that j's wait for seq sees the data: one active
 * message to a network member (j's handler raises the flag) up to the
 * Medium payload limit, a blocking put and the flag write above it; a
 * copy and the flag store to a mapped member. n == 0: the flag alone, to
 * a network member (a Short message). A failed send ends the job. */
void tn_coll_put_flag(tn_cteam_t *t, int j, void *dest, const void *src, size_t n,
                      uint32_t seq);
/* A region of the eager allreduce (core/coll_am.c): as tn_coll_put_flag
 * (dest in this rank's ring of t), but to a network member up to the
 * Medium limit one Medium message whose handler combines the payload
 * straight into the partial that j posted with tn_coll_region_wait, or
 * copies it into j's ring where nothing is posted for it (j not yet
 * waiting). */
void tn_coll_put_region(tn_cteam_t *t, int j, void *dest, const void *src, size_t n,
                        uint32_t seq);
/* Until member j's region of call seq (tn_coll_put_region or
 * tn_coll_put_flag) is here. acc (count elements of es bytes) is this
 * member's partial, which it no longer reads or writes until this
 * returns: if j's message finds it posted, its handler computes
 * acc = acc op region (fn) where j is above this member, else
 * acc = region op acc (rfn), and this returns 1; else the region is in
 * the ring and this returns 0. */
int tn_coll_region_wait(tn_cteam_t *t, int j, uint32_t seq, void *acc, size_t count,
                        size_t es, tn_red_fn fn, tn_red_fn rfn);
/* Registers the handler of those messages (tern_init, with network peers). */
void tn_coll_am_init(void);

/* Eager collectives of teams not all mapped (core/coll_eager.c): the data
 * travels with its flags into the receivers' ring entries, so that no
 * member waits for a receiver to enter. Each returns 0 without doing
 * anything when the data does not fit an entry (the caller takes another
 * algorithm). The broadcasts' keep (here, below and in coll_node.c): the
 * root does not copy src into its own dest (TERN_BCAST_KEEP_ROOT). */
int tn_coll_eager_bcast(tn_cteam_t *t, void *dest, const void *src, size_t nbytes,
                        int root, int keep);
int tn_coll_eager_fcollect(tn_cteam_t *t, void *dest, const void *src, size_t nbytes);
int tn_coll_eager_alltoall(tn_cteam_t *t, void *dest, const void *src, size_t nbytes);
/* Broadcast of a team not all mapped above the eager ring (core/coll_bcast.c):
 * chunks of TERN_COLL_PIPE_CHUNK put into each member's dest down a
 * binomial tree, or a chain from TERN_COLL_BCAST_CHAIN bytes, each chunk
 * forwarded as soon as it arrived. */
void tn_coll_pipe_bcast(tn_cteam_t *t, void *dest, const void *src, size_t nbytes,
                        int root, int keep);
/* Steps (1..max) of a collective that the flag of member j announces
 * here: its value minus base, within [0, max] (core/coll_bcast.c); with
 * either, the larger of the flag's two words for a member not mapped here
 * (the second one written by tn_coll_signal_ordered). Ends the job when a
 * network flag write of t failed. */
uint32_t tn_coll_flag_steps(tn_cteam_t *t, int j, uint32_t base, uint32_t max,
                            int either);
/* Raises this rank's flag at team rank j to seq by a 4-byte RMA write
 * without completion or acknowledgement into the flag's second word, kept
 * in order behind this rank's earlier puts to j (core/coll_sync.c): j sees
 * the value only after those puts' data. Returns 0 without writing where
 * j is mapped or its transport does not order unacknowledged writes. */
int tn_coll_signal_ordered(tn_cteam_t *t, int j, uint32_t seq);
/* Whether tn_coll_signal_ordered writes to team rank j. */
int tn_coll_can_order(tn_cteam_t *t, int j);
/* Readiness by pairs (core/coll.c, push_large): raises this rank's flag at
 * team rank j to seq the way a barrier does (tn_coll_signal_ordered where
 * it writes, else tn_coll_signal); tn_coll_ready tells, without waiting,
 * whether j's flag here reached seq by either word. Ends the job when a
 * network flag write of t failed. */
void tn_coll_signal_ready(tn_cteam_t *t, int j, uint32_t seq);
int tn_coll_ready(tn_cteam_t *t, int j, uint32_t seq);
/* Allreduce of count elements of es bytes, up to TERN_COLL_TREE_MAX bytes
 * and as far as the ring holds its ceil(log2 n) regions: recursive
 * doubling, each partial with its flag into the partner's entry. rfn is
 * fn with its operands swapped (acc = in op acc). */
int tn_coll_eager_allreduce(tn_cteam_t *t, void *dest, const void *src, size_t count,
                            size_t es, tn_red_fn fn, tn_red_fn rfn);

/* Small exchanges of a team whose members are each on their own node and
 * reached by unacknowledged writes (t->xmax > 0): every piece of data goes
 * as one stamped record (data, the call's stamp, a check word) by an
 * unacknowledged inject write into the receiver's ring, which polls its
 * memory; no message, so no completion at either end. Allreduce by
 * recursive doubling up to t->xmax bytes (up to t->wmax as wide records:
 * the same, each record one write with local completion only, waited for
 * before the call returns), fcollect (step 0) and all-to-all
 * (step nbytes) direct up to t->xmax bytes per block (up to t->wmax as
 * wide records) and TN_COLL_XNET_MEMBERS members, except fcollect of
 * more than TN_COLL_XNET_DIRECT members: Bruck's allgather, one record
 * per round (any team size), where its largest round (up to half the
 * blocks) fits a record. Each returns 0 without doing anything when it
 * does not apply. */
#define TN_COLL_XNET_MEMBERS 8
#define TN_COLL_XNET_DIRECT  3
int tn_coll_small_allreduce(tn_cteam_t *t, void *dest, const void *src, size_t count,
                            size_t es, tn_red_fn fn);
int tn_coll_small_exchange(tn_cteam_t *t, void *dest, const void *src, size_t step,
                           size_t nbytes);
/* The xmax of a team just claimed (core/coll_eager.c). */
int tn_coll_small_max(const tn_cteam_t *t);
/* The wmax of a team just claimed, its xmax set (core/coll_eager.c). */
int tn_coll_wide_max(const tn_cteam_t *t);

/* Allreduce of teams not all mapped above TERN_COLL_TREE_MAX
 * (core/coll_ring.c): ring reduce-scatter and allgather over the members
 * by node, in pieces of TERN_COLL_RING_PIECE put with their flags into the
 * right neighbour's dest and forwarded as they arrive. */
void tn_coll_ring_allreduce(tn_cteam_t *t, void *dest, const void *src, size_t count,
                            size_t es, tn_red_fn fn);

/* Allreduce of a team not all mapped whose size is a power of two, up to
 * TERN_COLL_RHD_MAX bytes (core/coll_rhd.c): reduce-scatter by recursive
 * halving and allgather by recursive doubling, the data put into the
 * partners' dests (2 members: one exchange of the whole data). rfn is
 * fn with its operands swapped (acc = in op acc). Returns 0 without doing
 * anything when it does not apply (size, team, fewer than n log2 n
 * elements). */
int tn_coll_rhd_allreduce(tn_cteam_t *t, void *dest, const void *src, size_t count,
                          size_t es, tn_red_fn fn, tn_red_fn rfn);

/* Checks that [p, p + n) is in this rank's segment (n may be 0 with p not
 * NULL); logs and returns TERN_ERR_INVALID naming what for call. */
int tn_coll_check_buf(const char *call, const char *what, const void *p, size_t n);

/* Allreduce of count elements (core/coll_reduce.c), arguments checked. */
int tn_coll_allreduce(tn_cteam_t *t, void *dest, const void *src, size_t count, int type,
                      int op);

/* Collectives of teams whose members all share memory (core/coll_node.c):
 * data read in place through the mapped segments between team barriers. */
void tn_coll_node_bcast(tn_cteam_t *t, void *dest, const void *src, size_t nbytes,
                        int root, int keep);
/* Small fcollect and alltoall: each member's src (copy bytes) goes into
 * one of its exchange slots with its stamps (up to 120 bytes) or one of its
 * allreduce halves and one barrier, then dest + j * len gets len bytes at
 * offset at of member j's slot or half. */
void tn_coll_node_gather(tn_cteam_t *t, void *dest, const void *src, size_t copy,
                         size_t at, size_t len);
/* Allreduce of at most TN_COLL_FAST bytes (up to 120 through the
 * exchange slots, as the gather). */
void tn_coll_node_allreduce(tn_cteam_t *t, void *dest, const void *src, size_t count,
                            size_t es, void (*fn)(void *, const void *, size_t));

/* Fills t->order with the team ranks in the order a broadcast tree rooted
 * at root takes them, and returns this member's position: root first,
 * then the rest of root's node, then the other nodes, each node's members
 * together (core/coll.c). */
int tn_coll_tree_order(tn_cteam_t *t, int root);

/* Binomial tree over team ranks relative to a root: the parent of rel > 0
 * drops its lowest set bit; children are rel + 2^k below that bit. */
static inline int tn_lowbit(int rel)
{
    return rel & -rel;
}

#endif
