/* Instructions per OpenSHMEM call from PE 0 to a network peer (PE 1,
 * TERN_SHM=off, 2 PEs), counted by callgrind on PE 0's application
 * thread: run by scripts/shmem-net-cost.sh, with and without the progress
 * thread, to find what its existence adds to each call (a progress
 * thread's own instructions are not inside these loops). PE 1 waits in a
 * barrier meanwhile, then joins the barrier loop. noinline keeps each
 * loop a function of its own. */
#include <shmem.h>
#include <stdio.h>

#define ITERS     4000
#define BARRIER() __asm__ __volatile__("" ::: "memory")

static long dst[64], word;

__attribute__((noinline)) void loop_putmem(const long *src, int pe)
{
    for (int i = 0; i < ITERS; i++) {
        shmem_putmem(&dst[i & 63], src, 8, pe);
        BARRIER();
    }
    shmem_quiet();
}

__attribute__((noinline)) void loop_putmem_nbi(const long *src, int pe)
{
    for (int i = 0; i < ITERS; i++) {
        shmem_putmem_nbi(&dst[i & 63], src, 8, pe);
        if ((i & 63) == 63)
            shmem_quiet();
    }
    shmem_quiet();
}

__attribute__((noinline)) void loop_quiet_idle(void)
{
    for (int i = 0; i < ITERS; i++) {
        shmem_quiet();
        BARRIER();
    }
}

__attribute__((noinline)) void loop_getmem(long *out, int pe)
{
    for (int i = 0; i < ITERS; i++) {
        shmem_getmem(out, &dst[i & 63], 8, pe);
        BARRIER();
    }
}

__attribute__((noinline)) long loop_g(int pe)
{
    long s = 0;
    for (int i = 0; i < ITERS; i++)
        s += shmem_long_g(&dst[i & 63], pe);
    return s;
}

__attribute__((noinline)) long loop_fetch_add(int pe)
{
    long s = 0;
    for (int i = 0; i < ITERS; i++)
        s += shmem_long_atomic_fetch_add(&word, 1, pe);
    return s;
}

__attribute__((noinline)) void loop_add(int pe)
{
    for (int i = 0; i < ITERS; i++) {
        shmem_long_atomic_add(&word, 1, pe);
        BARRIER();
    }
    shmem_quiet();
}

__attribute__((noinline)) void loop_barrier(void)
{
    for (int i = 0; i < ITERS / 4; i++)
        shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    long src = 7, out = 0, s = 0;
    if (shmem_n_pes() != 2 || shmem_my_pe() > 1)
        return 1;
    if (shmem_my_pe() == 0) {
        shmem_putmem(&dst[0], &src, 8, 1); /* first contact */
        shmem_quiet();
        loop_putmem(&src, 1);
        loop_putmem_nbi(&src, 1);
        loop_quiet_idle();
        loop_getmem(&out, 1);
        s += loop_g(1);
        s += loop_fetch_add(1);
        loop_add(1);
        printf("iterations %d (%ld)\n", ITERS, s + out);
    }
    shmem_barrier_all();
    loop_barrier();
    shmem_finalize();
    return 0;
}
