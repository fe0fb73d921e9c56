/* Signaling operations: put_signal and put_signal_nbi (typed, sized, mem,
 * ctx and C11 generic forms) from every PE to its right neighbour, which
 * waits on the signal with shmem_signal_wait_until and then checks the
 * data byte-exact; SHMEM_SIGNAL_ADD from every PE into one word of PE 0
 * with a data slot each (the sum exact, every slot there once the sum
 * is); signal_set and signal_add (1.6) and signal_fetch. */
#include <stdint.h>

#include "shmem_test.h"

enum { BIG = 1 << 17, K = 200 };

static int me, n, right, left;

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create");
    unsigned char *data = shmem_malloc(BIG);
    uint64_t *sig = shmem_calloc(8, sizeof(uint64_t));
    long *slots = shmem_calloc((size_t)n * K, sizeof(long));
    unsigned char *src = malloc(BIG);
    CHECK(data && sig && slots && src, "allocation");
    shmem_barrier_all();

    /* 1. put_signal with SET, round r carries pattern r; sizes up to BIG. */
    size_t sizes[] = {0, 1, 8, 24, 4096, 65536 + 8, BIG};
    uint64_t round = 0;
    for (int form = 0; form < 8; form++) {
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            size_t len = sizes[s] & ~(size_t)7; /* whole longs and 64-bit elements */
            if (form == 0 || form == 4)
                len = sizes[s];
            round++;
            fill(src, len, me, (unsigned)round);
            switch (form) {
            case 0:
                shmem_putmem_signal(data, src, len, sig, round, SHMEM_SIGNAL_SET, right);
                break;
            case 1:
                shmem_long_put_signal((long *)data, (long *)src, len / 8, sig, round,
                                      SHMEM_SIGNAL_SET, right);
                break;
            case 2:
                shmem_put64_signal(data, src, len / 8, sig, round, SHMEM_SIGNAL_SET,
                                   right);
                break;
            case 3:
                shmem_ctx_uint64_put_signal(ctx, (uint64_t *)data, (uint64_t *)src,
                                            len / 8, sig, round, SHMEM_SIGNAL_SET, right);
                break;
            case 4:
                shmem_putmem_signal_nbi(data, src, len, sig, round, SHMEM_SIGNAL_SET,
                                        right);
                break;
            case 5:
                shmem_ctx_double_put_signal_nbi(ctx, (double *)data, (double *)src,
                                                len / 8, sig, round, SHMEM_SIGNAL_SET,
                                                right);
                break;
            case 6: /* C11 generic, no context */
                shmem_put_signal((long *)data, (long *)src, len / 8, sig, round,
                                 SHMEM_SIGNAL_SET, right);
                break;
            case 7: /* C11 generic, context, nbi */
                shmem_put_signal_nbi(ctx, (unsigned long *)data, (unsigned long *)src,
                                     len / 8, sig, round, SHMEM_SIGNAL_SET, right);
                break;
            }
            uint64_t v = shmem_signal_wait_until(sig, SHMEM_CMP_EQ, round);
            CHECK(v == round, "form %d: wait_until returned %llu", form,
                  (unsigned long long)v);
            long bad = mismatch(data, len, left, (unsigned)round);
            CHECK(bad < 0, "form %d, %zu bytes: byte %ld differs after the signal", form,
                  len, bad);
            /* the source is reusable after the blocking forms; the nbi ones
             * need a quiet, and every PE must be done with data first */
            shmem_ctx_quiet(ctx);
            shmem_quiet();
            shmem_barrier_all();
        }
    }

    /* 2. ADD from every PE into sig[1] of PE 0, each with a data slot;
     * shmem_putmem_signal is shmem.h's inline path on one node, the others
     * the library's, all on the same word at once. */
    for (int i = 0; i < K; i++) {
        long v = (long)me * 1000003 + i;
        if (i % 3 == 1)
            shmem_long_put_signal(&slots[me * K + i], &v, 1, &sig[1], 1, SHMEM_SIGNAL_ADD,
                                  0);
        else if (i % 3 == 2)
            shmem_putmem_signal(&slots[me * K + i], &v, sizeof(v), &sig[1], 1,
                                SHMEM_SIGNAL_ADD, 0);
        else
            shmem_ctx_long_put_signal_nbi(ctx, &slots[me * K + i], &v, 1, &sig[1], 1,
                                          SHMEM_SIGNAL_ADD, 0);
        shmem_ctx_quiet(ctx); /* v is reused */
    }
    if (me == 0) {
        uint64_t v = shmem_signal_wait_until(&sig[1], SHMEM_CMP_GE, (uint64_t)n * K);
        CHECK(v == (uint64_t)n * K, "ADD sum %llu, want %d", (unsigned long long)v,
              n * K);
        for (int p = 0; p < n; p++)
            for (int i = 0; i < K; i++)
                CHECK(slots[p * K + i] == (long)p * 1000003 + i, "slot of PE %d, %d", p,
                      i);
    }
    shmem_barrier_all();

    /* 3. signal_add (every PE, into PE n-1) and signal_set (to the right). */
    for (int i = 0; i < K; i++) {
        if (i % 2)
            shmem_signal_add(&sig[2], (uint64_t)me + 1, n - 1);
        else
            shmem_ctx_signal_add(ctx, &sig[2], (uint64_t)me + 1, n - 1);
    }
    shmem_ctx_signal_set(ctx, &sig[3], UINT64_C(0xfedcba9876543210) + (uint64_t)me,
                         right);
    shmem_signal_set(&sig[4], UINT64_MAX - (uint64_t)me, right);
    shmem_ctx_quiet(ctx);
    shmem_quiet();
    if (me == n - 1) {
        uint64_t want = (uint64_t)K * (uint64_t)n * (uint64_t)(n + 1) / 2;
        CHECK(shmem_signal_wait_until(&sig[2], SHMEM_CMP_EQ, want) == want, "signal_add");
    }
    shmem_barrier_all();
    CHECK(shmem_signal_fetch(&sig[3]) == UINT64_C(0xfedcba9876543210) + (uint64_t)left,
          "signal_set ctx: %llx", (unsigned long long)shmem_signal_fetch(&sig[3]));
    CHECK(shmem_signal_fetch(&sig[4]) == UINT64_MAX - (uint64_t)left, "signal_set");
    CHECK(shmem_signal_wait_until(&sig[4], SHMEM_CMP_NE, 0) ==
              UINT64_MAX - (uint64_t)left,
          "wait_until NE returns the value");
    CHECK(shmem_signal_wait_until(&sig[5], SHMEM_CMP_LE, 0) == 0, "wait_until LE 0");

    shmem_ctx_destroy(ctx);
    free(src);
    shmem_free(slots);
    shmem_free(sig);
    shmem_free(data);
    return finish("signal");
}
