/* Barrier: after it, every rank sees every put issued before it. Each round
 * every rank writes the round number into its slot on every peer. */
#include "mp_util.h"

#define ROUNDS 300

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    uint64_t *slots;
    MP_OK(tern_alloc_sym((size_t)n * sizeof(uint64_t), (void **)&slots));
    for (uint64_t r = 1; r <= ROUNDS; r++) {
        for (int p = 0; p < n; p++)
            MP_OK(
                tern_put(p, (uint64_t *)tern_sym_addr(p, &slots[me]), &r, sizeof(r), 0));
        MP_OK(tern_barrier());
        for (int w = 0; w < n; w++)
            MP_CHECK(slots[w] == r, "round %llu: slot of rank %d holds %llu",
                     (unsigned long long)r, w, (unsigned long long)slots[w]);
        MP_OK(tern_barrier()); /* nobody writes round r+1 before all checked */
    }
    return mp_finish("barrier");
}
