/* Progress without calls (specification 1.6, "Progress of OpenSHMEM
 * Operations"): PE 0 computes, a CPU loop that reads a local clock and
 * makes no OpenSHMEM call, while every other PE gets from it (a 4 KiB
 * get and shmem_long_g), fetch-adds and increments words on it and puts
 * into it with a quiet, then reads the put back. Every PE counts itself
 * done with an increment; the last PE, once it reads every count with
 * shmem_int_g, releases PE 0 with a put. PE 0 must be released within its
 * compute window (WINDOW s): over a network that progresses only when
 * polled none of the above completes until PE 0's next call, and without
 * a progress thread (TERN_PROGRESS_THREAD=0, net and mixed) the test
 * fails after WINDOW s (the external example ptp.c hung so). */

#include "shmem_test.h"

enum { N = 512, ITERS = 10 };
#define WINDOW 4.0

static volatile int release; /* the last PE's put */
static int finished;         /* shmem_int_atomic_inc from every other PE when done */
static int incs;             /* shmem_int_atomic_inc, ITERS from every other PE */
static long adds;            /* shmem_long_atomic_fetch_add, 2 each */
static long slot[4096];      /* slot[pe] put by PE pe */
static long data[N];         /* PE 0's, read by every other PE */

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(n <= 4096, "at most 4096 PEs, not %d", n);
    for (int i = 0; i < N; i++)
        data[i] = 1000L * i + 7;
    shmem_barrier_all();
    double t0 = now();
    if (me == 0) {
        /* No OpenSHMEM call until released, or until the window ends. */
        volatile double x = 1.0;
        while (!release && now() < t0 + WINDOW)
            for (int j = 0; j < 1000; j++)
                x = x * 1.000001 + 1e-9;
        double waited = now() - t0;
        CHECK(release == 1,
              "PE 0 computed %.1f s without OpenSHMEM calls and was not released: the "
              "other PEs' gets, AMOs and puts on it made no progress meanwhile (over "
              "the network that takes the progress thread, TERN_PROGRESS_THREAD=1)",
              waited);
        printf("PE 0 released after %.3f s of computing\n", waited);
    } else {
        long got[N];
        for (int it = 0; it < ITERS; it++) {
            shmem_long_get(got, data, N, 0);
            for (int i = 0; i < N; i++)
                CHECK(got[i] == 1000L * i + 7, "data[%d] from PE 0: %ld", i, got[i]);
            long g = shmem_long_g(&data[it], 0);
            CHECK(g == 1000L * it + 7, "shmem_long_g of data[%d]: %ld", it, g);
            long old = shmem_long_atomic_fetch_add(&adds, 2, 0);
            CHECK(old % 2 == 0 && old < 2L * ITERS * (n - 1), "fetch_add returned %ld",
                  old);
            shmem_int_atomic_inc(&incs, 0);
            long mine = 31L * me + it;
            shmem_long_put(&slot[me], &mine, 1, 0);
            shmem_quiet();
            long back = shmem_long_g(&slot[me], 0);
            CHECK(back == mine, "slot[%d] read back after put and quiet: %ld, not %ld",
                  me, back, mine);
        }
        shmem_int_atomic_inc(&finished, 0);
        if (me == n - 1) { /* every PE done: release PE 0 */
            while (shmem_int_g(&finished, 0) != n - 1)
                CHECK(now() < t0 + 2 * WINDOW, "PE 0 counts %d PEs done, not %d",
                      shmem_int_g(&finished, 0), n - 1);
            shmem_int_p((int *)&release, 1, 0);
            shmem_quiet();
        }
    }
    shmem_barrier_all();
    if (me == 0) {
        CHECK(finished == n - 1, "finished %d, expected %d", finished, n - 1);
        CHECK(incs == ITERS * (n - 1), "incs %d, expected %d", incs, ITERS * (n - 1));
        CHECK(adds == 2L * ITERS * (n - 1), "adds %ld, expected %ld", adds,
              2L * ITERS * (n - 1));
        for (int pe = 1; pe < n; pe++)
            CHECK(slot[pe] == 31L * pe + ITERS - 1, "slot[%d] = %ld", pe, slot[pe]);
    }
    return finish("shmem.progress");
}
