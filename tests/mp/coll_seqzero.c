/* Small collectives on one node whose call number reaches 0 mod 2^32, as
 * a team's does after 2^32 collectives: run with TERN_TEST_FAULT=collseq:N,
 * N = 2^32 - 64 (coll.cmake). Lines of a member's exchange slot or of a
 * root's broadcast area that no call has written hold stamp 0, which the
 * call numbered 0 took for its own and read before the member wrote them.
 * Each team (a fresh split of the world team, numbered from N) makes K
 * one-line calls, then a two-line allreduce and a two-line broadcast from
 * the last rank, which enters them late; K runs over the values around
 * 64 so that one of the two-line calls is numbered 0 whatever the count
 * of calls before. */
#include "mp_util.h"

#include <time.h>

#define WORDS 12 /* 96 bytes: two lines of a slot (60 bytes of data each) */

static void late(int me, int n)
{
    if (me == n - 1) {
        struct timespec d = {0, 20 * 1000 * 1000};
        nanosleep(&d, NULL);
    }
}

static void run(int k, int64_t *v, int64_t *s)
{
    tern_team_t team;
    MP_OK(tern_team_split_strided(TERN_TEAM_WORLD, 0, 1, tern_size(), &team));
    int me = tern_team_rank(team), n = tern_team_size(team);
    for (int i = 0; i < k; i++) {
        v[0] = me + i;
        MP_OK(tern_allreduce(team, s, v, 1, TERN_TYPE_INT64, TERN_RED_SUM));
        MP_CHECK(s[0] == (int64_t)n * (n - 1) / 2 + (int64_t)n * i,
                 "k %d, call %d: allreduce gave %lld", k, i, (long long)s[0]);
    }
    for (int w = 0; w < WORDS; w++)
        v[w] = 1000 * w + me;
    late(me, n);
    MP_OK(tern_allreduce(team, s, v, WORDS, TERN_TYPE_INT64, TERN_RED_SUM));
    for (int w = 0; w < WORDS; w++)
        MP_CHECK(s[w] == (int64_t)n * 1000 * w + (int64_t)n * (n - 1) / 2,
                 "k %d: two-line allreduce word %d gave %lld", k, w, (long long)s[w]);
    for (int w = 0; w < WORDS; w++)
        s[w] = me == n - 1 ? 7000 + w : -1;
    if (me == n - 1)
        late(me, n);
    MP_OK(tern_broadcast(team, s, s, WORDS * sizeof(int64_t), n - 1));
    for (int w = 0; w < WORDS; w++)
        MP_CHECK(s[w] == 7000 + w, "k %d: two-line broadcast word %d gave %lld", k, w,
                 (long long)s[w]);
    MP_OK(tern_team_barrier(team));
    MP_OK(tern_team_destroy(team));
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int64_t *b;
    MP_OK(tern_alloc_sym(2 * WORDS * sizeof(int64_t), (void **)&b));
    for (int k = 58; k <= 68; k++)
        run(k, b, b + WORDS);
    return mp_finish("coll_seqzero");
}
