/* Collectives whose team sequence numbers cross 2^31, as a team's do after
 * 2^31 collectives: run with TERN_TEST_FAULT=collseq:N, N = 2^31 - 64
 * (coll.cmake), so that the crossing comes before any root has used all
 * 36 lines of its broadcast area. Each round: small broadcasts from every root, each
 * followed by an 8-byte allreduce (which waits for every member, so the
 * root's next broadcast finds the members' acknowledgements already
 * there), then a barrier. A root's first broadcast through a line after
 * the crossing used to wait for ever (its acknowledgement check compared
 * the members' recent flags with the line's 0 across the 2^31 window). */
#include "mp_util.h"

#define ROUNDS 100 /* 2 numbered calls per root and round: lines reused too */

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    int64_t *b, *v, *s;
    MP_OK(tern_alloc_sym(3 * 64, (void **)&b));
    v = b + 8;
    s = b + 16;
    for (int r = 0; r < ROUNDS; r++) {
        for (int root = 0; root < n; root++) {
            *b = me == root ? 1000 * r + root : -1;
            MP_OK(tern_broadcast(TERN_TEAM_WORLD, b, b, sizeof(*b), root));
            MP_CHECK(*b == 1000 * r + root, "round %d root %d: broadcast gave %lld", r,
                     root, (long long)*b);
            *v = me + r;
            MP_OK(
                tern_allreduce(TERN_TEAM_WORLD, s, v, 1, TERN_TYPE_INT64, TERN_RED_SUM));
            MP_CHECK(*s == (int64_t)n * (n - 1) / 2 + (int64_t)n * r,
                     "round %d root %d: allreduce gave %lld", r, root, (long long)*s);
        }
        MP_OK(tern_team_barrier(TERN_TEAM_WORLD));
    }
    return mp_finish("coll_seqwrap");
}
