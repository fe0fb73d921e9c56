/* Teams and collectives (included by tern.h). A team is an ordered set of
 * ranks; its members are numbered 0..size-1 (team ranks). Collectives run
 * over one team, are called by every member in the same order, and take
 * buffers in symmetric segment memory (tern_alloc_sym: the same offset on
 * every rank). Teams are created by splitting a parent team, collectively
 * over the parent, as OpenSHMEM 1.5 does; a rank outside the new team gets
 * TERN_TEAM_INVALID. Every team has its own flags and scratch space, so
 * collectives on disjoint teams run concurrently. Algorithms and memory:
 * docs/design/collectives.md. */
#ifndef TERN_TEAM_H
#define TERN_TEAM_H

#ifndef TERN_H
#error "include <tern.h>, not <tern/team.h>"
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tern_team_s *tern_team_t;

#define TERN_TEAM_INVALID ((tern_team_t)0)
#define TERN_TEAM_WORLD   ((tern_team_t)1) /* every rank, team rank = rank */
/* The ranks sharing memory with this rank (tern_ptr reaches their
 * segments), in rank order: those of tern_local_size, or this rank alone
 * with TERN_SHM=off. */
#define TERN_TEAM_NODE ((tern_team_t)2)

/* Teams alive at once in one rank, TERN_TEAM_WORLD and TERN_TEAM_NODE
 * included (their flags and scratch are added to the segment at start-up,
 * so the program keeps all of TERN_SEGMENT_SIZE). A split that would need
 * more fails with TERN_ERR_NOMEM on every rank of the parent.
 * tern_team_max() is the same number at run time (0 before init). */
#define TERN_TEAMS_MAX 32
TERN_API int tern_team_max(void);

/* This rank's index in team and the team's size; -1 for TERN_TEAM_INVALID,
 * a destroyed team or before init. */
TERN_API int tern_team_rank(tern_team_t team);
TERN_API int tern_team_size(tern_team_t team);
/* The team rank in dst of the member src_rank of src, or -1 when it is not
 * a member of dst (or either team or src_rank is bad). */
TERN_API int tern_team_translate(tern_team_t src, int src_rank, tern_team_t dst);

/* Collective over parent: a team of the parent's members start,
 * start + stride, ..., start + (size - 1) * stride (parent team ranks;
 * stride >= 1, size >= 1, the last inside the parent). Members get the
 * new team in *out, others TERN_TEAM_INVALID. Every member of the parent
 * must pass the same start, stride and size. Returns TERN_OK,
 * TERN_ERR_INVALID (bad parent, out NULL, or a range past the parent:
 * named in the log), TERN_ERR_MISMATCH (ranks passed different values),
 * TERN_ERR_NOMEM (TERN_TEAMS_MAX teams alive on some member). */
TERN_API tern_status_t tern_team_split_strided(tern_team_t parent, int start, int stride,
                                               int size, tern_team_t *out);
/* Collective over parent: the parent's ranks as a grid of xrange columns
 * (rank p at x = p % xrange, y = p / xrange); *xteam gets the members of
 * this rank's row (same y, ordered by x), *yteam those of its column (same
 * x, ordered by y). xrange >= 1; larger than the parent is the parent's
 * size. Either output may be NULL when not wanted. Statuses as
 * tern_team_split_strided. */
TERN_API tern_status_t tern_team_split_2d(tern_team_t parent, int xrange,
                                          tern_team_t *xteam, tern_team_t *yteam);
/* Collective over team: frees its slot (after a barrier of the team).
 * TERN_TEAM_WORLD and TERN_TEAM_NODE cannot be destroyed;
 * TERN_TEAM_INVALID is a no-op. TERN_OK or TERN_ERR_INVALID. */
TERN_API tern_status_t tern_team_destroy(tern_team_t team);

/* Barrier over team: every put this rank completed before it is visible to
 * every member after it; blocking operations that returned early on a
 * partial or none context are completed first, as tern_barrier does.
 * TERN_OK, TERN_ERR_INVALID (bad team), or the first error of the
 * operations it completed (the barrier is still done). */
TERN_API tern_status_t tern_team_barrier(tern_team_t team);

/* Non-blocking barrier: *done completes once every member has entered the
 * barrier (TERN_EVENT_DONE when that was already so); test or wait it with
 * tern_event_test/wait. It advances in every Tern call that polls (waits,
 * tern_poll, tern_event_test). Another collective on the team, or another
 * tern_team_barrier_nb, first completes it. Ordering as the blocking
 * barrier once the event has completed (what returned early is completed
 * in the call, before this rank signals). Returns TERN_OK, TERN_ERR_INVALID
 * (bad team, done NULL), or the first error of the operations it completed
 * (the barrier is still started: wait *done). */
TERN_API tern_status_t tern_team_barrier_nb(tern_team_t team, tern_event_t *done);

/* Broadcast nbytes from src on the member root (a team rank) into dest on
 * every member, root included (OpenSHMEM 1.5). dest and src are symmetric;
 * dest may equal src on the root. As in OpenSHMEM, dest must not be in use
 * by the caller while a member may write it (the collective waits for each
 * member to enter before writing its dest). A buffer of zero bytes may be
 * NULL, here and in every collective below (OpenSHMEM's zero-length
 * collectives pass NULL). Returns TERN_OK, TERN_ERR_INVALID (bad team,
 * root, NULL or non-segment buffer: named). */
TERN_API tern_status_t tern_broadcast(tern_team_t team, void *dest, const void *src,
                                      size_t nbytes, int root);

/* tern_broadcast_flags flag: the root's dest is left as it was; only the
 * other members' dest get src (OpenSHMEM's deprecated active-set
 * broadcast, shmem_broadcast32/64, says so). dest is still a symmetric
 * buffer of nbytes on the root (it names the others' dest). A bit of its
 * own, apart from TERN_FLAG_IMMEDIATE and TERN_AD_PROVIDER. */
#define TERN_BCAST_KEEP_ROOT 0x200u
/* tern_broadcast with flags: 0 or TERN_BCAST_KEEP_ROOT (every member passes
 * the same). With 0 it is tern_broadcast. Returns as tern_broadcast, and
 * TERN_ERR_INVALID for an unknown flag bit (named). */
TERN_API tern_status_t tern_broadcast_flags(tern_team_t team, void *dest, const void *src,
                                            size_t nbytes, int root, tern_flags_t flags);

/* Element types and operations of reductions. */
enum {
    TERN_TYPE_INT8 = 0,
    TERN_TYPE_UINT8,
    TERN_TYPE_INT16,
    TERN_TYPE_UINT16,
    TERN_TYPE_INT32,
    TERN_TYPE_UINT32,
    TERN_TYPE_INT64,
    TERN_TYPE_UINT64,
    TERN_TYPE_FLOAT,
    TERN_TYPE_DOUBLE,
    TERN_TYPE_LONGDOUBLE,
    TERN_TYPE_COUNT_ /* not a type */
};
enum {
    TERN_RED_SUM = 0,
    TERN_RED_PROD,
    TERN_RED_MIN,
    TERN_RED_MAX,
    TERN_RED_AND, /* bitwise: integer types only */
    TERN_RED_OR,
    TERN_RED_XOR,
    TERN_RED_COUNT_ /* not an op */
};

/* dest[i] = src[i] (op) over every member, for count elements of type,
 * the same bits on every member (one member combines, the others receive
 * its result). dest may equal src; otherwise they must not overlap.
 * Returns TERN_OK, TERN_ERR_INVALID (bad team, NULL or non-segment buffer,
 * unknown type or operation, a bitwise op on a floating type: named). */
TERN_API tern_status_t tern_allreduce(tern_team_t team, void *dest, const void *src,
                                      size_t count, int type, int op);

/* Allgather: member i's nbytes from src land at dest + i * nbytes on every
 * member (fcollect: every member passes the same nbytes). collect: each
 * member passes its own nbytes; member i's bytes land after those of
 * members 0..i-1. dest and src must not overlap. Returns TERN_OK,
 * TERN_ERR_INVALID (bad team, NULL or non-segment buffer). */
TERN_API tern_status_t tern_fcollect(tern_team_t team, void *dest, const void *src,
                                     size_t nbytes);
TERN_API tern_status_t tern_collect(tern_team_t team, void *dest, const void *src,
                                    size_t nbytes);

/* All-to-all: block j (nbytes at src + j * nbytes) of member i lands at
 * dest + i * nbytes on member j. dest and src must not overlap. Statuses
 * as tern_fcollect. */
TERN_API tern_status_t tern_alltoall(tern_team_t team, void *dest, const void *src,
                                     size_t nbytes);

#ifdef __cplusplus
}
#endif
#endif
