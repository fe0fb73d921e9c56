/* A fetching atomic issued after blocking adds to the same target sees
 * them all, on a partial context where the adds return once issued (the
 * am path: its Requests are handled in the order sent, tern/am.h). Every
 * rank adds K times to its own word at its right neighbour, then
 * fetch-adds 0 there: the value must be K per round so far, exactly. A
 * fetch that overtook an add would read less. */
#include <tern.h>
#include <tern/atomic.h>

#include "mp_util.h"

enum { K = 2000, ROUNDS = 6 };

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size(), right = (me + 1) % n;
    uint64_t *words;
    MP_OK(tern_alloc_sym((size_t)n * sizeof(uint64_t), (void **)&words));
    for (int i = 0; i < n; i++)
        words[i] = 0;
    tern_ad_t ad;
    MP_OK(tern_ad_create(TERN_AT_U64, TERN_OP_ADD | TERN_OP_FADD, 0, &ad));
    tern_ctx_t ctx;
    MP_OK(tern_ctx_create(TERN_ORDER_PARTIAL, &ctx));
    MP_OK(tern_barrier());
    uint64_t *mine = tern_sym_addr(right, &words[me]);
    for (int round = 1; round <= ROUNDS; round++) {
        for (int i = 0; i < K; i++)
            MP_OK(tern_ctx_ad_op_u64(ctx, ad, right, mine, TERN_OP_ADD, 1, 0, NULL, 0));
        uint64_t seen = 0;
        MP_OK(tern_ctx_ad_op_u64(ctx, ad, right, mine, TERN_OP_FADD, 0, 0, &seen, 0));
        MP_CHECK(seen == (uint64_t)K * (uint64_t)round,
                 "round %d: the fetch saw %llu, %d adds issued before it", round,
                 (unsigned long long)seen, K * round);
    }
    MP_OK(tern_ctx_quiet(ctx));
    MP_OK(tern_barrier());
    uint64_t from = words[(me + n - 1) % n];
    MP_CHECK(from == (uint64_t)K * ROUNDS, "left neighbour's word: %llu",
             (unsigned long long)from);
    MP_OK(tern_ctx_destroy(ctx));
    MP_OK(tern_ad_destroy(ad));
    return mp_finish("amo_fetch_order");
}
