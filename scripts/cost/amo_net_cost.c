/* The network atomics' software cost on rank 0 (rank 0 to rank 1, TERN_SHM=off,
 * any TERN_OFI_ATOMICS): a blocking u64 fetch-add of an atomic domain, the
 * same as a client's own Short AM round trip (handler: fetch-add, Reply
 * with the old value; wait with tern_wait_until_u64), and nbi fetch-adds
 * synced every 64; built with bench/raw_ofi.c (COST_RAW_OFI), also the
 * raw baseline of tern-bench net: blocking fi_fetch_atomicmsg of the same
 * provider, one at a time (loop_raw). Counted by callgrind
 * (scripts/amo-net-cost.sh) or strace; argv[1] names one loop to run
 * alone (ad, client, nbi, raw). */
#include <stdio.h>
#include <string.h>
#include <tern.h>
#ifdef COST_RAW_OFI
#include "../../bench/raw_ofi.h"
#endif

#define ITERS 4000

static uint64_t *word; /* [0] target, [1] replies received */

static void on_fadd(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                    int n)
{
    (void)buf, (void)len, (void)a, (void)n;
    tern_am_arg_t old = __atomic_fetch_add(&word[0], 1, __ATOMIC_SEQ_CST);
    tern_am_reply_short(t, 201, &old, 1, 0);
}

static void on_reply(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                     int n)
{
    (void)t, (void)buf, (void)len, (void)n;
    word[2] = a[0];
    __atomic_fetch_add(&word[1], 1, __ATOMIC_RELEASE);
}

__attribute__((noinline)) void loop_ad(tern_ad_t ad, uint64_t *w, uint64_t *out)
{
    for (int i = 0; i < ITERS; i++)
        tern_ad_op_u64(ad, 1, w, TERN_OP_FADD, 1, 0, out, 0);
}

__attribute__((noinline)) void loop_client(void)
{
    for (int i = 0; i < ITERS; i++) {
        uint64_t seq = word[1] + 1;
        tern_am_request_short(1, 200, NULL, 0, 0);
        tern_wait_until_u64(&word[1], TERN_CMP_GE, seq);
    }
}

__attribute__((noinline)) void loop_nbi(tern_ad_t ad, uint64_t *w, uint64_t *out)
{
    for (int i = 0; i < ITERS; i++) {
        tern_ad_op_nbi_u64(ad, 1, w, TERN_OP_FADD, 1, 0, out, 0);
        if ((i & 63) == 63)
            tern_nbi_sync(TERN_SYNC_REMOTE);
    }
    tern_nbi_sync(TERN_SYNC_REMOTE);
}

#ifdef COST_RAW_OFI
__attribute__((noinline)) void loop_raw(tb_raw_ofi_t *r)
{
    tb_raw_ofi_fadd(r, ITERS, 1);
}
#endif

int main(int argc, char **argv)
{
    if (tern_init(&argc, &argv, TERN_THREAD_SINGLE) != TERN_OK)
        return 1;
    const char *only = argc > 1 ? argv[1] : "";
    tern_ad_t ad;
    uint64_t out = 0;
    if (tern_alloc_sym(64, (void **)&word) != TERN_OK || tern_size() != 2 ||
        tern_am_register(200, on_fadd, "cost fadd") != TERN_OK ||
        tern_am_register(201, on_reply, "cost reply") != TERN_OK ||
        tern_ad_create(TERN_AT_U64, TERN_OP_FADD, 0, &ad) != TERN_OK)
        return 1;
    memset(word, 0, 64);
#ifdef COST_RAW_OFI
    tb_raw_ofi_t *raw = tb_raw_ofi_setup(1, 64);
#endif
    tern_barrier();
    if (tern_rank() == 0) {
        uint64_t *w = tern_sym_addr(1, &word[0]);
        tern_ad_op_u64(ad, 1, w, TERN_OP_FADD, 1, 0, &out, 0); /* first contact */
        if (!*only || !strcmp(only, "ad"))
            loop_ad(ad, w, &out);
        if (!*only || !strcmp(only, "client"))
            loop_client();
        if (!*only || !strcmp(only, "nbi"))
            loop_nbi(ad, w, &out);
        printf("iterations %d\n", ITERS);
    }
#ifdef COST_RAW_OFI
    /* Rank 1 served Tern's loops in the barrier above (it progresses
     * there); the raw loop needs it in the raw serve loop instead. */
    tern_barrier();
    if (raw && tern_rank() == 0) {
        if (!*only || !strcmp(only, "raw")) {
            tb_raw_ofi_fadd(raw, 1, 1); /* first contact */
            loop_raw(raw);
        }
        tb_raw_ofi_release(raw);
    } else if (raw) {
        tb_raw_ofi_serve(raw);
    }
#endif
    tern_barrier();
    tern_ad_destroy(ad);
    return tern_finalize() == TERN_OK ? 0 : 1;
}
