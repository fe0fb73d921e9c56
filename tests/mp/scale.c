/* Many ranks (issue 13: tests at 256 ranks, label "scale"): argv[1] is a
 * comma-separated list of modes run one after the other in one job:
 * all2one (every rank puts into its own slot at rank 0, rank 0 checks
 * them), ring (puts to the next rank, checked by the receiver each round)
 * and barrier (a loop of barriers). Rounds per mode from argv[2]. One job
 * runs them all because starting and ending 256 processes is almost the
 * whole cost of each (docs/design/ci-time.md, tenth round). */
#include <string.h>

#include "mp_util.h"

/* Round i of the m-th mode by rank r: the mode's place in the list keeps a
 * value of an earlier mode from passing a later mode's check. */
static uint64_t tag(int m, int i, int r)
{
    return ((uint64_t)m << 56) | ((uint64_t)i << 32) | (uint64_t)r;
}

static void run_mode(const char *mode, int m, int rounds, uint64_t *slots)
{
    int me = tern_rank(), n = tern_size();
    memset(slots, 0, (size_t)n * sizeof(*slots));
    MP_OK(tern_barrier());
    for (int i = 1; i <= rounds; i++) {
        uint64_t v = tag(m, i, me);
        if (strcmp(mode, "ring") == 0) {
            int next = (me + 1) % n, prev = (me + n - 1) % n;
            MP_OK(tern_put(next, tern_sym_addr(next, &slots[0]), &v, sizeof(v), 0));
            MP_OK(tern_barrier());
            uint64_t want = tag(m, i, prev);
            MP_CHECK(slots[0] == want, "ring round %d: slot holds %llx, not %llx", i,
                     (unsigned long long)slots[0], (unsigned long long)want);
        } else if (strcmp(mode, "all2one") == 0) {
            MP_OK(tern_put(0, tern_sym_addr(0, &slots[me]), &v, sizeof(v), 0));
            MP_OK(tern_barrier());
            for (int r = 0; me == 0 && r < n; r++)
                MP_CHECK(slots[r] == tag(m, i, r), "all2one round %d: slot %d holds %llx",
                         i, r, (unsigned long long)slots[r]);
        } else {
            MP_CHECK(strcmp(mode, "barrier") == 0,
                     "unknown mode '%s' (use all2one, ring or barrier)", mode);
        }
        MP_OK(tern_barrier());
    }
    if (me == 0)
        printf("scale: %s, %d rounds on %d ranks: ok\n", mode, rounds, n);
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    char modes[256];
    snprintf(modes, sizeof(modes), "%s", argc > 1 ? argv[1] : "barrier");
    int rounds = argc > 2 ? atoi(argv[2]) : 20;
    uint64_t *slots;
    MP_OK(tern_alloc_sym((size_t)n * sizeof(*slots), (void **)&slots));
    char *save = NULL;
    int m = 0;
    for (char *mode = strtok_r(modes, ",", &save); mode;
         mode = strtok_r(NULL, ",", &save))
        run_mode(mode, ++m, rounds, slots);
    MP_CHECK(m > 0, "no mode given in '%s'", argc > 1 ? argv[1] : "");
    return mp_finish("scale");
}
