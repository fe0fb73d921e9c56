/* Instructions per inline atomic-domain op and per put with signal on one
 * node (to self), over the same raw operations: run under callgrind by
 * scripts/amo-cost.sh, which divides each loop's inclusive count by the
 * iterations. noinline keeps each loop a function of its own. */
#include <stdio.h>
#include <string.h>
#include <tern.h>

#define ITERS 100000

__attribute__((noinline)) void loop_raw_fadd(uint64_t *w, uint64_t *out)
{
    for (int i = 0; i < ITERS; i++) {
        *out = __atomic_fetch_add(w, 1, __ATOMIC_SEQ_CST);
        __asm__ __volatile__("" ::: "memory");
    }
}

__attribute__((noinline)) void loop_fadd(tern_ad_t ad, int rank, uint64_t *w,
                                         uint64_t *out)
{
    for (int i = 0; i < ITERS; i++) {
        tern_ad_op_u64(ad, rank, w, TERN_OP_FADD, 1, 0, out, 0);
        __asm__ __volatile__("" ::: "memory");
    }
}

__attribute__((noinline)) void loop_fadd_u32(tern_ad_t ad, int rank, uint32_t *w,
                                             uint32_t *out)
{
    for (int i = 0; i < ITERS; i++) {
        tern_ad_op_u32(ad, rank, w, TERN_OP_FADD, 1, 0, out, 0);
        __asm__ __volatile__("" ::: "memory");
    }
}

__attribute__((noinline)) void loop_raw_cswap(uint64_t *w, uint64_t *out)
{
    for (int i = 0; i < ITERS; i++) {
        uint64_t e = (uint64_t)i;
        __atomic_compare_exchange_n(w, &e, e + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        *out = e;
        __asm__ __volatile__("" ::: "memory");
    }
}

__attribute__((noinline)) void loop_cswap(tern_ad_t ad, int rank, uint64_t *w,
                                          uint64_t *out)
{
    for (int i = 0; i < ITERS; i++) {
        tern_ad_op_u64(ad, rank, w, TERN_OP_CSWAP, (uint64_t)i, (uint64_t)i + 1, out, 0);
        __asm__ __volatile__("" ::: "memory");
    }
}

/* The raw payload + flag of tern-bench put_pingpong: a copy, a release
 * fence, the flag store. */
__attribute__((noinline)) void loop_raw_signal(char *dst, const char *src, uint64_t *sig)
{
    for (int i = 0; i < ITERS; i++) {
        memcpy(dst, src, 8);
        __atomic_store_n(sig, (uint64_t)i, __ATOMIC_RELEASE);
        __asm__ __volatile__("" ::: "memory");
    }
}

__attribute__((noinline)) void loop_put_signal(int rank, char *dst, const char *src,
                                               uint64_t *sig)
{
    for (int i = 0; i < ITERS; i++) {
        tern_put_signal(rank, dst, src, 8, sig, (uint64_t)i, TERN_SIGNAL_SET, 0);
        __asm__ __volatile__("" ::: "memory");
    }
}

/* A wait whose word already compares true: what tern_wait_until_u64 costs
 * beyond the spin's one load and compare, on entry and exit (its polling
 * loop is read from the disassembly: docs/design/atomics.md). */
__attribute__((noinline)) void loop_raw_wait(const volatile uint64_t *w)
{
    for (int i = 0; i < ITERS; i++) {
        while (*w < (uint64_t)i) /* never true here: no pause needed */
            ;
        __asm__ __volatile__("" ::: "memory");
    }
}

__attribute__((noinline)) void loop_wait(const volatile uint64_t *w)
{
    for (int i = 0; i < ITERS; i++) {
        tern_wait_until_u64(w, TERN_CMP_GE, (uint64_t)i);
        __asm__ __volatile__("" ::: "memory");
    }
}

int main(int argc, char **argv)
{
    if (tern_init(&argc, &argv, TERN_THREAD_SINGLE) != TERN_OK)
        return 1;
    int me = tern_rank();
    uint64_t *seg = tern_alloc(4096), out = 0;
    uint32_t out32 = 0;
    char src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    tern_ad_t ad64, ad32;
    if (!seg || tern_ad_create(TERN_AT_U64, TERN_OP_FADD | TERN_OP_CSWAP, 0, &ad64) ||
        tern_ad_create(TERN_AT_U32, TERN_OP_FADD, 0, &ad32))
        return 1;
    loop_raw_fadd(&seg[0], &out);
    loop_fadd(ad64, me, &seg[0], &out);
    loop_fadd_u32(ad32, me, (uint32_t *)&seg[1], &out32);
    seg[0] = 0;
    loop_raw_cswap(&seg[0], &out);
    seg[0] = 0;
    loop_cswap(ad64, me, &seg[0], &out);
    loop_raw_signal((char *)&seg[16], src, &seg[8]);
    loop_put_signal(me, (char *)&seg[16], src, &seg[8]);
    seg[8] = ITERS;
    loop_raw_wait(&seg[8]);
    loop_wait(&seg[8]);
    printf("iterations %d\n", ITERS);
    tern_ad_destroy(ad32);
    tern_ad_destroy(ad64);
    tern_free(seg);
    return tern_finalize() == TERN_OK ? 0 : 1;
}
