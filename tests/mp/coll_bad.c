/* Bad input to teams and collectives: a clear status and a message naming
 * what was wrong, on every rank, and the job goes on (a collective after
 * the errors still works). */
#include "mp_util.h"

#define EXPECT MP_EXPECT

int main(int argc, char **argv)
{
    EXPECT(tern_team_barrier(TERN_TEAM_WORLD), TERN_ERR_NOT_INIT, "before tern_init");
    MP_CHECK(tern_team_size(TERN_TEAM_WORLD) == -1, "team size before init");
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    char *a, *b, local[64];
    MP_OK(tern_alloc_sym(4096, (void **)&a));
    MP_OK(tern_alloc_sym(4096, (void **)&b));

    /* Teams. */
    EXPECT(tern_team_barrier(TERN_TEAM_INVALID), TERN_ERR_INVALID, "TERN_TEAM_INVALID");
    EXPECT(tern_broadcast((tern_team_t)(uintptr_t)0x7777, a, b, 8, 0), TERN_ERR_INVALID,
           "not a live team");
    MP_CHECK(tern_team_rank(TERN_TEAM_INVALID) == -1 &&
                 tern_team_size(TERN_TEAM_INVALID) == -1,
             "invalid team's rank and size");
    MP_CHECK(tern_team_translate(TERN_TEAM_WORLD, n, TERN_TEAM_WORLD) == -1,
             "translate of rank %d", n);
    tern_team_t t;
    EXPECT(tern_team_split_strided(TERN_TEAM_WORLD, 0, 1, n + 1, &t), TERN_ERR_INVALID,
           "size");
    MP_CHECK(t == TERN_TEAM_INVALID, "failed split gives TERN_TEAM_INVALID");
    EXPECT(tern_team_split_strided(TERN_TEAM_WORLD, n, 1, 1, &t), TERN_ERR_INVALID,
           "start");
    EXPECT(tern_team_split_strided(TERN_TEAM_WORLD, 0, 0, 1, &t), TERN_ERR_INVALID,
           "stride");
    EXPECT(tern_team_split_strided(TERN_TEAM_WORLD, 0, 1, 1, NULL), TERN_ERR_INVALID,
           "out is NULL");
    EXPECT(tern_team_split_2d(TERN_TEAM_WORLD, 0, &t, NULL), TERN_ERR_INVALID,
           "xrange 0");
    EXPECT(tern_team_destroy(TERN_TEAM_WORLD), TERN_ERR_INVALID, "cannot be destroyed");
    if (n > 1) /* ranks disagree: found and reported on every rank */
        EXPECT(tern_team_split_strided(TERN_TEAM_WORLD, 0, 1, me == 0 ? 1 : 2, &t),
               TERN_ERR_MISMATCH, "different arguments");
    /* A destroyed team's handle is refused. */
    MP_OK(tern_team_split_strided(TERN_TEAM_WORLD, 0, 1, n, &t));
    MP_OK(tern_team_destroy(t));
    EXPECT(tern_team_barrier(t), TERN_ERR_INVALID, "not a live team");
    /* The limit: tern_team_max() alive (TERN_TEAMS_MAX with this segment),
     * world and node included. */
    MP_CHECK(tern_team_max() >= 2 && tern_team_max() <= TERN_TEAMS_MAX, "team max %d",
             tern_team_max());
    tern_team_t many[TERN_TEAMS_MAX];
    int made = 0;
    for (; made < tern_team_max() - 2; made++)
        MP_OK(tern_team_split_strided(TERN_TEAM_WORLD, 0, 1, n, &many[made]));
    EXPECT(tern_team_split_strided(TERN_TEAM_WORLD, 0, 1, n, &t), TERN_ERR_NOMEM,
           "TERN_TEAMS_MAX");
    if (made > 0)
        MP_OK(tern_allreduce(many[made - 1], b, a, 4, TERN_TYPE_INT32, TERN_RED_SUM));
    while (made > 0)
        MP_OK(tern_team_destroy(many[--made]));

    /* Collectives. */
    tern_event_t ev;
    EXPECT(tern_team_barrier_nb(TERN_TEAM_WORLD, NULL), TERN_ERR_INVALID, "done is NULL");
    EXPECT(tern_team_barrier_nb(TERN_TEAM_INVALID, &ev), TERN_ERR_INVALID,
           "TERN_TEAM_INVALID");
    EXPECT(tern_broadcast(TERN_TEAM_WORLD, a, b, 8, n), TERN_ERR_INVALID, "root");
    EXPECT(tern_broadcast(TERN_TEAM_WORLD, a, b, 8, -1), TERN_ERR_INVALID, "root -1");
    EXPECT(tern_broadcast(TERN_TEAM_WORLD, NULL, b, 8, 0), TERN_ERR_INVALID,
           "dest is NULL");
    EXPECT(tern_broadcast(TERN_TEAM_WORLD, a, local, 8, 0), TERN_ERR_INVALID, "src [");
    EXPECT(tern_broadcast(TERN_TEAM_WORLD, a, a + 4, 8, 0), TERN_ERR_INVALID, "overlap");
    EXPECT(tern_broadcast_flags(TERN_TEAM_WORLD, a, b, 8, n, TERN_BCAST_KEEP_ROOT),
           TERN_ERR_INVALID, "root");
    EXPECT(tern_broadcast_flags(TERN_TEAM_WORLD, a, b, 8, 0, 0x4u), TERN_ERR_INVALID,
           "unknown bits 0x4");
    EXPECT(tern_broadcast_flags(TERN_TEAM_WORLD, a, b, 8, 0,
                                TERN_BCAST_KEEP_ROOT | TERN_FLAG_IMMEDIATE),
           TERN_ERR_INVALID, "unknown bits 0x1");
    EXPECT(tern_allreduce(TERN_TEAM_WORLD, a, b, 4, TERN_TYPE_DOUBLE, TERN_RED_XOR),
           TERN_ERR_INVALID, "TERN_RED_XOR is bitwise and TERN_TYPE_DOUBLE");
    EXPECT(tern_allreduce(TERN_TEAM_WORLD, a, b, 4, TERN_TYPE_FLOAT, TERN_RED_AND),
           TERN_ERR_INVALID, "TERN_TYPE_FLOAT");
    EXPECT(tern_allreduce(TERN_TEAM_WORLD, a, b, 4, TERN_TYPE_COUNT_, TERN_RED_SUM),
           TERN_ERR_INVALID, "not a TERN_TYPE_");
    EXPECT(tern_allreduce(TERN_TEAM_WORLD, a, b, 4, TERN_TYPE_INT32, 99),
           TERN_ERR_INVALID, "not a TERN_RED_");
    EXPECT(tern_allreduce(TERN_TEAM_WORLD, a, local, 4, TERN_TYPE_INT32, TERN_RED_SUM),
           TERN_ERR_INVALID, "not inside this rank's segment");
    EXPECT(tern_allreduce(TERN_TEAM_WORLD, a, a + 4, 4, TERN_TYPE_INT32, TERN_RED_SUM),
           TERN_ERR_INVALID, "overlap");
    EXPECT(tern_allreduce(TERN_TEAM_WORLD, a, b, (size_t)1 << 40, TERN_TYPE_INT32,
                          TERN_RED_SUM),
           TERN_ERR_INVALID, "segment");
    EXPECT(tern_fcollect(TERN_TEAM_WORLD, a, NULL, 8), TERN_ERR_INVALID, "src is NULL");
    EXPECT(tern_fcollect(TERN_TEAM_WORLD, a, a, 8), TERN_ERR_INVALID, "overlap");
    EXPECT(tern_fcollect(TERN_TEAM_WORLD, local, b, 8), TERN_ERR_INVALID, "dest [");
    EXPECT(tern_alltoall(TERN_TEAM_INVALID, a, b, 8), TERN_ERR_INVALID,
           "TERN_TEAM_INVALID");
    char *base;
    size_t size;
    MP_OK(tern_segment_query(me, (void **)&base, &size));
    char *end = base + size - 8; /* 8 bytes before the segment's end */
    EXPECT(tern_alltoall(TERN_TEAM_WORLD, end, b, 16), TERN_ERR_INVALID, "dest [");
    EXPECT(tern_collect(TERN_TEAM_WORLD, a, local, 8), TERN_ERR_INVALID, "src [");
    /* Sizes that only add up past dest's room: every rank learns it. */
    EXPECT(tern_collect(TERN_TEAM_WORLD, end, b, 64), TERN_ERR_INVALID,
           "dest (for the sum");

    /* Still in step: one allreduce over everything. */
    int *x = (int *)a, *y = (int *)b;
    x[0] = me + 1;
    MP_OK(tern_allreduce(TERN_TEAM_WORLD, y, x, 1, TERN_TYPE_INT32, TERN_RED_SUM));
    MP_CHECK(y[0] == n * (n + 1) / 2, "sum %d after the errors", y[0]);
    return mp_finish("coll_bad");
}
