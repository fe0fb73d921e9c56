/* Distributed locks: every PE increments counters on PE 0 and on the last
 * PE K times with a plain get and put (a read-modify-write that loses
 * updates without mutual exclusion) under shmem_set_lock, and as many
 * times more under a lock taken with shmem_test_lock; an owner word
 * checked inside the critical section; two locks whose home PEs differ;
 * the final counts exact. Then a handover in turns: one PE holds a lock
 * while every other PE spins on shmem_test_lock, so the lock's home PE spins
 * too while a holder elsewhere must release the lock at it (over the
 * active-message path of atomics this needs the spinning home to serve the
 * release: it hung before test_lock drove progress). The deprecated cache
 * routines are callable. Argument: K, the iterations per phase (100). */
#include <stdint.h>
#include <unistd.h>

#include "shmem_test.h"

int main(int argc, char **argv)
{
    int K = argc > 1 ? atoi(argv[1]) : 100;
    shmem_init();
    CHECK(K > 0, "K = %s: the iteration count must be a positive integer", argv[1]);
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *locks = shmem_calloc(4, sizeof(long)); /* locks[0], locks[1]: two homes */
    long *cnt = shmem_calloc(4, sizeof(long));
    CHECK(locks && cnt, "shmem_calloc");
    shmem_clear_cache_inv();
    shmem_set_cache_inv();
    shmem_clear_cache_line_inv(cnt);
    shmem_set_cache_line_inv(cnt);
    shmem_udcflush();
    shmem_udcflush_line(cnt);
    shmem_barrier_all();

    int tested = 0;
    for (int i = 0; i < 2 * K; i++) {
        long *L = &locks[i % 2];
        if (i < K) {
            shmem_set_lock(L);
        } else {
            while (shmem_test_lock(L) != 0)
                tested++;
        }
        /* cnt[0] on PE 0 and cnt[1] on PE n-1: lock i%2's counters */
        int pe = i % 2 ? n - 1 : 0;
        long c = shmem_long_g(&cnt[i % 2], pe);
        shmem_long_p(&cnt[2 + i % 2], me + 1, pe); /* owner */
        if (i % 7 == 0)
            usleep(50); /* give the others time to break in if they could */
        long owner = shmem_long_g(&cnt[2 + i % 2], pe);
        CHECK(owner == me + 1, "lock %d held by PE %d but the owner word says %ld", i % 2,
              me, owner - 1);
        shmem_long_p(&cnt[i % 2], c + 1, pe);
        shmem_clear_lock(L);
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK(cnt[0] == (long)n * K, "counter on PE 0: %ld, want %ld", cnt[0],
              (long)n * K);
    if (me == n - 1)
        CHECK(cnt[1] == (long)n * K, "counter on PE %d: %ld, want %ld", n - 1, cnt[1],
              (long)n * K);
    /* handover: in turn each PE takes lock 0 (whose home may be any PE),
     * holds it while the others spin on test_lock, increments the counter
     * on PE 0 by a get and a put and releases the lock; then every other PE
     * takes the lock once by test_lock and does the same */
    for (int r = 0; r < n; r++) {
        if (me == r)
            shmem_set_lock(&locks[0]);
        shmem_barrier_all(); /* r holds the lock now */
        if (me == r) {
            usleep(2000); /* the others are spinning on test_lock by now */
        } else {
            while (shmem_test_lock(&locks[0]) != 0)
                tested++;
        }
        long c = shmem_long_g(&cnt[0], 0);
        shmem_long_p(&cnt[0], c + 1, 0);
        shmem_clear_lock(&locks[0]);
        shmem_barrier_all(); /* all have had their turn before r + 1 holds it */
    }
    if (me == 0)
        CHECK(cnt[0] == (long)n * K + (long)n * n,
              "counter on PE 0 after the handover: "
              "%ld, want %ld",
              cnt[0], (long)n * K + (long)n * n);
    /* a free lock is taken by test_lock at once, and a held one is not */
    if (me == 0) {
        CHECK(shmem_test_lock(&locks[0]) == 0, "test_lock of a free lock");
        CHECK(shmem_test_lock(&locks[0]) == 1, "test_lock of a held lock");
        shmem_clear_lock(&locks[0]);
    }
    shmem_barrier_all();
    if (me == 0)
        printf("lock: test_lock found the lock held %d times\n", tested);
    shmem_free(cnt);
    shmem_free(locks);
    return finish("lock");
}
