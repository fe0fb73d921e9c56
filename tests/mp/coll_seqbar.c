/* A team barrier after many collectives that write no barrier flag (the
 * small stamped ones on a node, the eager ring's over the network): run
 * with TERN_TEST_FAULT=collstale:N, N = 2^31 - 64 (coll.cmake), so that the
 * barrier partners' flags, still 0, are 2^31 calls behind the team's
 * count after the first calls, as after 2^31 small collectives. Flags
 * compare modulo 2^32: such a flag read as already written and members
 * passed the barrier before the last one entered it. Here the team's
 * rank 0 enters late and puts a mark to every other member first; each
 * must see it. The node team (made at start-up, no barrier since) and a
 * split of the world team (the world team's barrier is tern_barrier's
 * own). */
#include "mp_util.h"

#include <time.h>

#define CALLS 100

static void run(tern_team_t team, int64_t *mark, int64_t *v, int64_t *s, int64_t base)
{
    int me = tern_team_rank(team), n = tern_team_size(team);
    for (int r = 0; r < 3; r++) {
        for (int i = 0; i < CALLS; i++) {
            *v = me + i;
            MP_OK(tern_allreduce(team, s, v, 1, TERN_TYPE_INT64, TERN_RED_SUM));
            MP_CHECK(*s == (int64_t)n * (n - 1) / 2 + (int64_t)n * i,
                     "round %d call %d: allreduce gave %lld", r, i, (long long)*s);
        }
        int64_t m = base + r + 1;
        if (me == 0) {
            struct timespec d = {0, 200 * 1000 * 1000};
            nanosleep(&d, NULL);
            *mark = m;
            for (int j = 1; j < n; j++) {
                int g = tern_team_translate(team, j, TERN_TEAM_WORLD);
                MP_OK(tern_put(g, tern_sym_addr(g, mark), &m, sizeof(m), 0));
            }
            MP_OK(tern_quiet());
        }
        MP_OK(tern_team_barrier(team));
        MP_CHECK(*(volatile int64_t *)mark == m,
                 "team of %d, round %d: passed the team barrier before its rank 0 "
                 "entered it (mark %lld, expected %lld)",
                 n, r, (long long)*(volatile int64_t *)mark, (long long)m);
        MP_OK(tern_team_barrier(team)); /* the next mark comes after the check */
    }
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int64_t *b;
    MP_OK(tern_alloc_sym(4 * 64, (void **)&b));
    b[16] = 0;
    run(TERN_TEAM_NODE, b + 16, b, b + 8, 0);
    tern_team_t team;
    MP_OK(tern_team_split_strided(TERN_TEAM_WORLD, 0, 1, tern_size(), &team));
    run(team, b + 16, b, b + 8, 100);
    MP_OK(tern_team_destroy(team));
    return mp_finish("coll_seqbar");
}
