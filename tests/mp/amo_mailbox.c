/* Fetching atomics by the mailbox (core/atomic_mbox.c) mixed with
 * non-fetching ones by message, from every rank and (argument T) T threads
 * of each. Each thread owns a u64 and an i32 word at its right neighbour
 * and cycles through five forms, each ending with a fetch-add of its u64
 * word but the last: (0) nothing before it (the mailbox); (1) a blocking
 * add that returns early on a partial context (the fetch must see it: by
 * message while the add travels); (2) an nbi add and a quiet; (3) a
 * fetch-add of 2^32 and an early add of 1 to one hot word on rank 0; (4)
 * instead, an i32 fetch-add of -1. Every tenth op's fetch is IMMEDIATE,
 * retried while refused. Every fetched value of the own words must be the
 * exact count so far, the high halves a thread fetches from the hot word
 * must rise, and the final words must be exact.
 * tests/mp/mailbox_stats.sh checks with TERN_STATS that the mailbox carried
 * fetches. */
#include <stdlib.h>

#include "mp_util.h"

enum { K = 400, MAXT = 8 };

static int nthreads = 1, me, n, right;
static tern_ad_t ad64, ad32;
static uint64_t *words;  /* [n * MAXT] symmetric: (rank, thread)'s u64 word */
static int32_t *words32; /* [n * MAXT] the same, i32 */
static uint64_t *hot;    /* one word, used on rank 0 */

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    tern_ctx_t ctx;
    MP_OK(tern_ctx_create(TERN_ORDER_PARTIAL, &ctx));
    uint64_t *w = tern_sym_addr(right, &words[me * MAXT + t]);
    int32_t *w32 = tern_sym_addr(right, &words32[me * MAXT + t]);
    uint64_t *h = tern_sym_addr(0, hot);
    uint64_t count = 0, old = 0, last_high = 0;
    int32_t c32 = 0, old32 = 0;
    for (int i = 0; i < K; i++) {
        switch (i % 5) {
        case 0: break;
        case 1:
            MP_OK(tern_ctx_ad_op_u64(ctx, ad64, right, w, TERN_OP_ADD, 1, 0, NULL, 0));
            count++;
            break;
        case 2:
            MP_OK(
                tern_ctx_ad_op_nbi_u64(ctx, ad64, right, w, TERN_OP_ADD, 1, 0, NULL, 0));
            count++;
            MP_OK(tern_ctx_quiet(ctx));
            break;
        case 3:
            MP_OK(tern_ctx_ad_op_u64(ctx, ad64, 0, h, TERN_OP_FADD, (uint64_t)1 << 32, 0,
                                     &old, 0));
            MP_CHECK(i < 5 || old >> 32 > last_high,
                     "thread %d op %d: the hot word's fetches went from %llu to %llu", t,
                     i, (unsigned long long)last_high, (unsigned long long)(old >> 32));
            last_high = old >> 32;
            MP_OK(tern_ctx_ad_op_u64(ctx, ad64, 0, h, TERN_OP_ADD, 1, 0, NULL, 0));
            break;
        case 4:
            MP_OK(tern_ctx_ad_op_i32(ctx, ad32, right, w32, TERN_OP_FADD, -1, 0, &old32,
                                     0));
            MP_CHECK(old32 == c32, "thread %d op %d: i32 fetch saw %d, expected %d", t, i,
                     old32, c32);
            c32--;
            continue;
        }
        /* Every tenth IMMEDIATE: refused (nothing done) or run once. */
        tern_flags_t fl = i % 10 == 0 ? TERN_FLAG_IMMEDIATE : 0;
        int rc;
        while ((rc = tern_ctx_ad_op_u64(ctx, ad64, right, w, TERN_OP_FADD, 1, 0, &old,
                                        fl)) == TERN_ERR_AGAIN)
            MP_OK(tern_poll());
        MP_OK(rc);
        MP_CHECK(old == count, "thread %d op %d (form %d): fetch saw %llu, expected %llu",
                 t, i, i % 5, (unsigned long long)old, (unsigned long long)count);
        count++;
    }
    MP_OK(tern_ctx_quiet(ctx));
    MP_OK(tern_ctx_destroy(ctx));
    return NULL;
}

/* What each thread's words hold at the end. */
static void expected(uint64_t *u64, int32_t *i32, uint64_t *hot_fetches,
                     uint64_t *hot_adds)
{
    uint64_t c = 0;
    int32_t c32 = 0;
    *hot_fetches = *hot_adds = 0;
    for (int i = 0; i < K; i++) {
        int f = i % 5;
        if (f == 4) {
            c32--;
            continue;
        }
        c += 1 + (f == 1 || f == 2);
        *hot_fetches += f == 3;
        *hot_adds += f == 3;
    }
    *u64 = c;
    *i32 = c32;
}

int main(int argc, char **argv)
{
    me = mp_init(&argc, &argv, TERN_THREAD_MULTIPLE);
    n = tern_size();
    right = (me + 1) % n;
    if (argc > 1)
        nthreads = atoi(argv[1]);
    MP_CHECK(nthreads >= 1 && nthreads <= MAXT, "threads: %d", nthreads);
    MP_OK(tern_alloc_sym((size_t)n * MAXT * sizeof(uint64_t), (void **)&words));
    MP_OK(tern_alloc_sym((size_t)n * MAXT * sizeof(int32_t), (void **)&words32));
    MP_OK(tern_alloc_sym(sizeof(uint64_t), (void **)&hot));
    for (int i = 0; i < n * MAXT; i++) {
        words[i] = 0;
        words32[i] = 0;
    }
    *hot = 0;
    MP_OK(tern_ad_create(TERN_AT_U64, TERN_OP_ADD | TERN_OP_FADD, 0, &ad64));
    MP_OK(tern_ad_create(TERN_AT_I32, TERN_OP_FADD, 0, &ad32));
    MP_OK(tern_barrier());
    mp_run_threads(nthreads, worker);
    MP_OK(tern_barrier());
    uint64_t e64, hf, ha;
    int32_t e32;
    expected(&e64, &e32, &hf, &ha);
    int left = (me + n - 1) % n;
    for (int t = 0; t < nthreads; t++) {
        MP_CHECK(words[left * MAXT + t] == e64,
                 "rank %d thread %d's word: %llu, not %llu", left, t,
                 (unsigned long long)words[left * MAXT + t], (unsigned long long)e64);
        MP_CHECK(words32[left * MAXT + t] == e32, "rank %d thread %d's i32: %d, not %d",
                 left, t, words32[left * MAXT + t], e32);
    }
    if (me == 0) {
        uint64_t want =
            ((hf * (uint64_t)n * nthreads) << 32) + ha * (uint64_t)n * nthreads;
        MP_CHECK(*hot == want, "hot word: 0x%llx, not 0x%llx", (unsigned long long)*hot,
                 (unsigned long long)want);
    }
    MP_OK(tern_ad_destroy(ad32));
    MP_OK(tern_ad_destroy(ad64));
    return mp_finish("amo_mailbox");
}
