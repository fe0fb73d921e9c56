/* Many ranks (issue 13: tests at 256 ranks, label "scale"): argv[1] picks
 * barrier (a loop of barriers), ring (puts to the next rank, checked by the
 * receiver each round) or all2one (every rank puts into its own slot at
 * rank 0, rank 0 checks them). Rounds from argv[2]. */
#include <string.h>

#include "mp_util.h"

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    const char *mode = argc > 1 ? argv[1] : "barrier";
    int rounds = argc > 2 ? atoi(argv[2]) : 20;
    uint64_t *slots;
    MP_OK(tern_alloc_sym((size_t)n * sizeof(*slots), (void **)&slots));
    memset(slots, 0, (size_t)n * sizeof(*slots));
    MP_OK(tern_barrier());
    for (int i = 1; i <= rounds; i++) {
        uint64_t v = ((uint64_t)i << 32) | (uint64_t)me;
        if (strcmp(mode, "ring") == 0) {
            int next = (me + 1) % n, prev = (me + n - 1) % n;
            MP_OK(tern_put(next, tern_sym_addr(next, &slots[0]), &v, sizeof(v), 0));
            MP_OK(tern_barrier());
            uint64_t want = ((uint64_t)i << 32) | (uint64_t)prev;
            MP_CHECK(slots[0] == want, "round %d: ring slot holds %llx, not %llx", i,
                     (unsigned long long)slots[0], (unsigned long long)want);
        } else if (strcmp(mode, "all2one") == 0) {
            MP_OK(tern_put(0, tern_sym_addr(0, &slots[me]), &v, sizeof(v), 0));
            MP_OK(tern_barrier());
            for (int r = 0; me == 0 && r < n; r++)
                MP_CHECK(slots[r] == (((uint64_t)i << 32) | (uint64_t)r),
                         "round %d: slot %d holds %llx", i, r,
                         (unsigned long long)slots[r]);
        } else {
            MP_CHECK(strcmp(mode, "barrier") == 0, "unknown mode '%s'", mode);
        }
        MP_OK(tern_barrier());
    }
    return mp_finish(mode);
}
