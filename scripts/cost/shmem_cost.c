/* Instructions per OpenSHMEM call on the fast path (1 PE, to itself: a
 * mapped peer) against the Tern-native call doing the same, counted by
 * callgrind: run by scripts/shmem-cost.sh. noinline keeps each loop a
 * function of its own. */
#include <shmem.h>
#include <stdio.h>
#include <tern.h>

#define ITERS     100000
#define BARRIER() __asm__ __volatile__("" ::: "memory")

static tern_ad_t ad;

__attribute__((noinline)) void loop_tern_put(char *dst, const char *src, int pe)
{
    for (int i = 0; i < ITERS; i++) {
        tern_put(pe, dst + (i & 63) * 8, src, 8, 0);
        BARRIER();
    }
}

__attribute__((noinline)) void loop_shmem_putmem(char *dst, const char *src, int pe)
{
    for (int i = 0; i < ITERS; i++) {
        shmem_putmem(dst + (i & 63) * 8, src, 8, pe);
        BARRIER();
    }
}

__attribute__((noinline)) void loop_tern_get(char *dst, const char *src, int pe)
{
    for (int i = 0; i < ITERS; i++) {
        tern_get(dst + (i & 63) * 8, pe, src, 8, 0);
        BARRIER();
    }
}

__attribute__((noinline)) void loop_shmem_getmem(char *dst, const char *src, int pe)
{
    for (int i = 0; i < ITERS; i++) {
        shmem_getmem(dst + (i & 63) * 8, src, 8, pe);
        BARRIER();
    }
}

__attribute__((noinline)) void loop_tern_put_nbi(char *dst, const char *src, int pe)
{
    for (int i = 0; i < ITERS; i++) {
        tern_put_nbi(pe, dst + (i & 63) * 8, src, 8, 0);
        BARRIER();
    }
}

__attribute__((noinline)) void loop_shmem_putmem_nbi(char *dst, const char *src, int pe)
{
    for (int i = 0; i < ITERS; i++) {
        shmem_putmem_nbi(dst + (i & 63) * 8, src, 8, pe);
        BARRIER();
    }
}

/* The typed block forms (what C code and the C11 shmem_get/shmem_put
 * mostly call): one long, as the 8-byte getmem/putmem above. */
__attribute__((noinline)) void loop_shmem_long_get(long *dst, const long *src, int pe)
{
    for (int i = 0; i < ITERS; i++) {
        shmem_long_get(dst + (i & 63), src, 1, pe);
        BARRIER();
    }
}

__attribute__((noinline)) void loop_shmem_long_put(long *dst, const long *src, int pe)
{
    for (int i = 0; i < ITERS; i++) {
        shmem_long_put(dst + (i & 63), src, 1, pe);
        BARRIER();
    }
}

__attribute__((noinline)) void loop_shmem_long_p(long *dst, int pe)
{
    for (int i = 0; i < ITERS; i++) {
        shmem_long_p(dst + (i & 63), i, pe);
        BARRIER();
    }
}

__attribute__((noinline)) long loop_shmem_long_g(const long *src, int pe)
{
    long s = 0;
    for (int i = 0; i < ITERS; i++) {
        s += shmem_long_g(src + (i & 63), pe);
        BARRIER();
    }
    return s;
}

__attribute__((noinline)) long loop_tern_fadd(long *w, int pe)
{
    int64_t s = 0, r;
    for (int i = 0; i < ITERS; i++) {
        tern_ad_op_i64(ad, pe, w, TERN_OP_FADD, 1, 0, &r, 0);
        s += r;
        BARRIER();
    }
    return (long)s;
}

__attribute__((noinline)) long loop_shmem_fetch_add(long *w, int pe)
{
    long s = 0;
    for (int i = 0; i < ITERS; i++) {
        s += shmem_long_atomic_fetch_add(w, 1, pe);
        BARRIER();
    }
    return s;
}

__attribute__((noinline)) void loop_tern_add(long *w, int pe)
{
    for (int i = 0; i < ITERS; i++) {
        tern_ad_op_i64(ad, pe, w, TERN_OP_ADD, 1, 0, NULL, 0);
        BARRIER();
    }
}

__attribute__((noinline)) void loop_shmem_add(long *w, int pe)
{
    for (int i = 0; i < ITERS; i++) {
        shmem_long_atomic_add(w, 1, pe);
        BARRIER();
    }
}

__attribute__((noinline)) long loop_tern_cswap(long *w, int pe)
{
    int64_t s = 0;
    for (int i = 0; i < ITERS; i++) {
        tern_ad_op_i64(ad, pe, w, TERN_OP_CSWAP, s, s + 1, &s, 0);
        BARRIER();
    }
    return (long)s;
}

__attribute__((noinline)) long loop_shmem_cswap(long *w, int pe)
{
    long s = 0;
    for (int i = 0; i < ITERS; i++) {
        s = shmem_long_atomic_compare_swap(w, s, s + 1, pe);
        BARRIER();
    }
    return s;
}

__attribute__((noinline)) void loop_tern_barrier(void)
{
    for (int i = 0; i < ITERS; i++)
        tern_barrier();
}

__attribute__((noinline)) void loop_shmem_barrier_all(void)
{
    for (int i = 0; i < ITERS; i++)
        shmem_barrier_all();
}

/* The deprecated active-set forms over every PE: inline in shmem.h (the
 * macro), the library's function ((name) bypasses the macro), and the
 * Tern call both make. 8 bytes, on 1 PE. */
static long psync[SHMEM_BCAST_SYNC_SIZE];

__attribute__((noinline)) void loop_tern_bcast(char *dst, const char *src)
{
    for (int i = 0; i < ITERS; i++)
        tern_broadcast_flags(TERN_TEAM_WORLD, dst, src, 8, 0, TERN_BCAST_KEEP_ROOT);
}

__attribute__((noinline)) void loop_shmem_broadcast64(char *dst, const char *src, int n)
{
    for (int i = 0; i < ITERS; i++)
        shmem_broadcast64(dst, src, 1, 0, 0, 0, n, psync);
}

__attribute__((noinline)) void loop_lib_broadcast64(char *dst, const char *src, int n)
{
    for (int i = 0; i < ITERS; i++)
        (shmem_broadcast64)(dst, src, 1, 0, 0, 0, n, psync);
}

__attribute__((noinline)) void loop_tern_allreduce(long *dst, const long *src)
{
    for (int i = 0; i < ITERS; i++)
        tern_allreduce(TERN_TEAM_WORLD, dst, src, 1, TERN_TYPE_INT64, TERN_RED_SUM);
}

__attribute__((noinline)) void loop_shmem_long_sum_to_all(long *dst, long *src, int n)
{
    for (int i = 0; i < ITERS; i++)
        shmem_long_sum_to_all(dst, src, 1, 0, 0, n, src + 1, psync);
}

__attribute__((noinline)) void loop_lib_long_sum_to_all(long *dst, long *src, int n)
{
    for (int i = 0; i < ITERS; i++)
        (shmem_long_sum_to_all)(dst, src, 1, 0, 0, n, src + 1, psync);
}

__attribute__((noinline)) void loop_tern_put_signal(char *dst, const char *src,
                                                    uint64_t *sig, int pe)
{
    for (int i = 0; i < ITERS; i++) {
        tern_put_signal(pe, dst, src, 8, sig, (uint64_t)i, TERN_SIGNAL_SET, 0);
        BARRIER();
    }
}

__attribute__((noinline)) void loop_shmem_putmem_signal(char *dst, const char *src,
                                                        uint64_t *sig, int pe)
{
    for (int i = 0; i < ITERS; i++) {
        shmem_putmem_signal(dst, src, 8, sig, (uint64_t)i, SHMEM_SIGNAL_SET, pe);
        BARRIER();
    }
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    char *seg = shmem_malloc(4096), src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    static char local[4096];
    long *w = shmem_calloc(2, sizeof(long));
    if (!seg || !w ||
        tern_ad_create(TERN_AT_I64, TERN_OP_FADD | TERN_OP_ADD | TERN_OP_CSWAP, 0, &ad) !=
            TERN_OK)
        return 1;
    loop_tern_put(seg, src, me);
    loop_shmem_putmem(seg, src, me);
    loop_tern_get(local, seg, me);
    loop_shmem_getmem(local, seg, me);
    loop_tern_put_nbi(seg, src, me);
    loop_shmem_putmem_nbi(seg, src, me);
    loop_shmem_long_get((long *)local, (const long *)seg, me);
    loop_shmem_long_put((long *)seg, (const long *)src, me);
    loop_shmem_long_p((long *)seg, me);
    long s = loop_shmem_long_g((const long *)seg, me);
    s += loop_tern_fadd(w, me) + loop_shmem_fetch_add(w + 1, me);
    loop_tern_add(w, me);
    loop_shmem_add(w + 1, me);
    s += loop_tern_cswap(w, me) + loop_shmem_cswap(w + 1, me);
    loop_tern_put_signal(seg, src, (uint64_t *)(seg + 64), me);
    loop_shmem_putmem_signal(seg, src, (uint64_t *)(seg + 64), me);
    loop_tern_barrier();
    loop_shmem_barrier_all();
    int n = shmem_n_pes();
    loop_tern_bcast(seg + 128, seg + 192);
    loop_shmem_broadcast64(seg + 128, seg + 192, n);
    loop_lib_broadcast64(seg + 128, seg + 192, n);
    loop_tern_allreduce((long *)(seg + 256), (const long *)(seg + 320));
    loop_shmem_long_sum_to_all((long *)(seg + 256), (long *)(seg + 320), n);
    loop_lib_long_sum_to_all((long *)(seg + 256), (long *)(seg + 320), n);
    printf("iterations %d (%ld)\n", ITERS, s);
    tern_ad_destroy(ad);
    shmem_free(w);
    shmem_free(seg);
    shmem_finalize();
    return 0;
}
