/* Bad input, one case per run (bad_cases.sh checks the exit status and
 * the message): contexts used after destroy, invalid contexts, addresses
 * that are not symmetric, bad PEs, calls outside init/finalize, a heap
 * request beyond the heap, shmem_global_exit while others wait, a program
 * that forgets shmem_finalize, a bad comparison, bad frees and alignments,
 * AMOs on a non-symmetric or misaligned address, a bad PE or a dead context,
 * a bad signal operator and a signal word that is not symmetric, a lock
 * that is not symmetric and the clear of a lock nobody holds, active sets
 * without the caller or past the PEs and a pSync that is not symmetric, a
 * broadcast over every PE with a root past them or a dest not symmetric, a
 * session on a destroyed context or without the config its mask names, a
 * team handle that is garbage, a strided all-to-all, a scan or a complex
 * reduction past the address space, a PE that exits (or returns from main
 * without shmem_finalize) while the others get from it, or while it serves
 * their gets, and programs that end without shmem_finalize (finalized at
 * exit).
 *   bad CASE */
#include <signal.h>
#include <stdint.h>
#include <sys/time.h>
#include <tern.h>
#include <unistd.h>

#include "shmem_test.h"

static int me, n;
static long g_bad[8]; /* a global: symmetric (the static region) */

/* exit_serving: PE n-1's timer. exit() from a signal handler, as a
 * program's own handler may do (what OpenSHMEM's exit handler then runs
 * only logs). */
static void leave_now(int sig)
{
    (void)sig;
    static const char msg[] = "PE leaves (exit_serving)\n";
    (void)!write(2, msg, sizeof(msg) - 1);
    exit(3);
}

static void start(void)
{
    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
}

int main(int argc, char **argv)
{
    CHECK(argc == 2, "usage: bad CASE");
    const char *c = argv[1];
    long local[4] = {0};

    if (strcmp(c, "before_init") == 0) {
        shmem_putmem(local, local, 8, 0);
        return 0; /* not reached */
    }
    start();
    long *x = shmem_malloc(64 * sizeof(long));
    CHECK(x != NULL, "shmem_malloc");
    int right = (me + 1) % n;

    if (strcmp(c, "ctx_destroyed") == 0) {
        shmem_ctx_t ctx;
        CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create");
        shmem_ctx_long_p(ctx, x, 1, right);
        shmem_ctx_destroy(ctx);
        shmem_ctx_long_p(ctx, x, 2, right); /* used after destroy */
    } else if (strcmp(c, "ctx_destroyed_quiet") == 0) {
        shmem_ctx_t ctx;
        CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create");
        shmem_ctx_destroy(ctx);
        shmem_ctx_quiet(ctx);
    } else if (strcmp(c, "ctx_invalid") == 0) {
        shmem_ctx_putmem(SHMEM_CTX_INVALID, x, local, 8, right);
    } else if (strcmp(c, "ctx_garbage") == 0) { /* with SHMEM_DEBUG=1 */
        shmem_ctx_putmem((shmem_ctx_t)(uintptr_t)local, x, local, 8, right);
    } else if (strcmp(c, "global_stack") == 0) {
        shmem_long_put(g_bad, local, 4, right); /* a global: fine */
        shmem_barrier_all();
        shmem_long_put(local, g_bad, 4, right); /* dest on the stack */
    } else if (strcmp(c, "global_past_end") == 0) {
        void *base;
        size_t size;
        CHECK(tern_static_query(me, &base, &size) == TERN_OK && size, "static query");
        shmem_putmem((char *)base + size - 8, local, 32, right);
    } else if (strcmp(c, "global_off") == 0) { /* with TERN_STATIC_DATA=off */
        shmem_long_put(g_bad, local, 4, right);
    } else if (strcmp(c, "nonsym_put") == 0) {
        shmem_long_put(local, x, 4, right); /* dest on the stack */
    } else if (strcmp(c, "nonsym_get") == 0) {
        shmem_long_get(x, local, 4, right); /* source on the stack */
    } else if (strcmp(c, "nonsym_iput") == 0) {
        shmem_long_iput(local, x, 2, 1, 2, right);
    } else if (strcmp(c, "past_end") == 0) {
        void *base;
        size_t size;
        CHECK(tern_segment_query(me, &base, &size) == TERN_OK, "segment query");
        shmem_putmem((char *)base + size - 8, local, 32, right);
    } else if (strcmp(c, "amo_nonsym") == 0) {
        shmem_long_atomic_fetch_add(local, 1, right); /* dest on the stack */
    } else if (strcmp(c, "amo_misaligned") == 0) {
        shmem_int_atomic_inc((int *)((char *)x + 2), right);
    } else if (strcmp(c, "amo_bad_pe") == 0) {
        shmem_uint64_atomic_fetch((uint64_t *)x, n);
    } else if (strcmp(c, "amo_ctx_destroyed") == 0) {
        shmem_ctx_t ctx;
        CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create");
        shmem_ctx_destroy(ctx);
        shmem_ctx_long_atomic_compare_swap(ctx, x, 0, 1, right);
    } else if (strcmp(c, "signal_bad_op") == 0) {
        shmem_putmem_signal(x, local, 8, (uint64_t *)&x[8], 1, 7, right);
    } else if (strcmp(c, "signal_nonsym") == 0) {
        shmem_signal_add((uint64_t *)local, 1, right); /* signal word on the stack */
    } else if (strcmp(c, "lock_nonsym") == 0) {
        shmem_set_lock(&local[1]); /* a lock on the stack */
    } else if (strcmp(c, "lock_not_held") == 0) {
        shmem_clear_lock(&x[16]);
    } else if (strcmp(c, "aset_not_member") == 0) { /* PE 0 is not in (1, 0, 1) */
        shmem_barrier(1, 0, 1, x + 32);
    } else if (strcmp(c, "aset_range") == 0) { /* PEs 0, 2: past the 2 PEs */
        shmem_long_sum_to_all(x, x + 8, 1, 0, 1, 2, x + 16, x + 32);
    } else if (strcmp(c, "aset_nonsym") == 0) { /* pSync on the stack */
        long ps[SHMEM_SYNC_SIZE] = {0};
        shmem_broadcast64(x, x + 8, 1, 0, me, 0, 1, ps);
    } else if (strcmp(c, "aset_bcast_root") == 0) { /* every PE; PE_root past them */
        shmem_broadcast64(x, x + 8, 1, n, 0, 0, n, x + 32);
    } else if (strcmp(c, "aset_bcast_nonsym") == 0) { /* every PE; dest on the stack */
        long d[2] = {0};
        shmem_broadcast64(d, x + 8, 1, 0, 0, 0, n, x + 32);
    } else if (strcmp(c, "aset_bcast_stride") == 0) { /* PEs 0, 2: past the 2 PEs */
        shmem_broadcast64(x, x + 8, 1, 0, 0, 1, n, x + 32);
    } else if (strcmp(c, "aset_bcast_negroot") == 0) { /* every PE; PE_root -1 */
        shmem_broadcast32(x, x + 8, 1, -1, 0, 0, n, x + 32);
    } else if (strcmp(c, "aset_bcast_overflow") == 0) { /* every PE; 2^61 elements */
        shmem_broadcast64(x, x + 8, (size_t)1 << 61, 0, 0, 0, n, x + 32);
    } else if (strcmp(c, "aset_fcollect_nonsym") == 0) { /* every PE; dest on the stack */
        long d[4] = {0};
        shmem_fcollect64(d, x + 8, 1, 0, 0, n, x + 32);
    } else if (strcmp(c, "aset_sync_range") == 0) { /* PEs 1, 2: past the 2 PEs */
        shmem_sync(1, 0, n, x + 32);
    } else if (strcmp(c, "aset_toall_nonsym") == 0) { /* every PE; dest on the stack */
        long d[2] = {0};
        shmem_long_sum_to_all(d, x + 8, 1, 0, 0, n, x + 16, x + 32);
    } else if (strcmp(c, "aset_toall_negative") == 0) { /* every PE; nreduce -1 */
        shmem_double_max_to_all((double *)x, (double *)x + 8, -1, 0, 0, n,
                                (double *)x + 16, x + 32);
    } else if (strcmp(c, "team_garbage") == 0) { /* refused, and the program goes on */
        shmem_team_t g = (shmem_team_t)(uintptr_t)0x1234, t;
        shmem_ctx_t ctx;
        CHECK(shmem_team_sync(g) != 0, "sync on a garbage team");
        CHECK(shmem_long_sum_reduce(g, x, x + 8, 1) != 0, "reduce on a garbage team");
        CHECK(shmem_team_my_pe(g) == -1 && shmem_team_n_pes(g) == -1,
              "a garbage team's PE and size");
        CHECK(shmem_team_translate_pe(g, 0, SHMEM_TEAM_WORLD) == -1 &&
                  shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, g) == -1,
              "translation with a garbage team");
        CHECK(shmem_team_ptr(g, x, 0) == NULL, "team_ptr of a garbage team");
        CHECK(shmem_team_split_strided(g, 0, 1, n, NULL, 0, &t) != 0 &&
                  t == SHMEM_TEAM_INVALID,
              "split of a garbage team");
        CHECK(shmem_team_create_ctx(g, 0, &ctx) != 0 && ctx == SHMEM_CTX_INVALID,
              "context of a garbage team");
        CHECK(shmem_team_sync(SHMEM_TEAM_WORLD) == 0, "world team after the refusals");
    } else if (strcmp(c, "alltoalls_overflow") == 0) { /* refused, the program goes on */
        CHECK(shmem_long_alltoalls(SHMEM_TEAM_WORLD, x, x + 8, (ptrdiff_t)1 << 60, 1,
                                   1) != 0,
              "alltoalls at dst stride 2^60");
        CHECK(shmem_long_alltoalls(SHMEM_TEAM_WORLD, x, x + 8, 1, 1, (size_t)1 << 61) !=
                  0,
              "alltoalls of 2^61 elements");
        CHECK(shmem_alltoallsmem(SHMEM_TEAM_WORLD, x, x + 8, 1, PTRDIFF_MAX, 2) != 0,
              "alltoallsmem at sst PTRDIFF_MAX");
        for (int j = 0; j < n && j < 8; j++) /* element for PE j: 100 me + j */
            x[8 + j] = 100L * me + j;
        CHECK(shmem_long_alltoalls(SHMEM_TEAM_WORLD, x, x + 8, 1, 1, 1) == 0,
              "alltoalls after the refusals");
        for (int i = 0; i < n && i < 8; i++)
            CHECK(x[i] == 100L * i + me, "alltoalls from PE %d: %ld", i, x[i]);
    } else if (strcmp(c, "scan_overflow") == 0) { /* refused, the program goes on */
        CHECK(shmem_long_sum_inscan(SHMEM_TEAM_WORLD, x, x + 8, (size_t)1 << 61) != 0,
              "inscan of 2^61 elements");
        CHECK(shmem_long_sum_exscan(SHMEM_TEAM_WORLD, x, x + 8, (size_t)1 << 61) != 0,
              "exscan of 2^61 elements");
        double _Complex *z = (double _Complex *)x;
        CHECK(shmem_complexd_prod_reduce(SHMEM_TEAM_WORLD, z, z + 4, (size_t)1 << 61) !=
                  0,
              "complex product of 2^61 elements");
        CHECK(shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, z, z + 4, (size_t)1 << 63) != 0,
              "complex sum of 2^63 elements");
        x[8] = me + 1;
        CHECK(shmem_long_sum_inscan(SHMEM_TEAM_WORLD, x, x + 8, 1) == 0 &&
                  x[0] == (long)(me + 1) * (me + 2) / 2,
              "inscan after the refusals: %ld", x[0]);
    } else if (strcmp(c, "session_ctx_destroyed") == 0) {
        shmem_ctx_t ctx;
        CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create");
        shmem_ctx_destroy(ctx);
        shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_BATCH, NULL, 0);
    } else if (strcmp(c, "session_null_config") == 0) {
        shmem_ctx_session_start(SHMEM_CTX_DEFAULT, 0, NULL, SHMEM_CTX_SESSION_TOTAL_OPS);
    } else if (strcmp(c, "bad_pe") == 0) {
        shmem_long_p(x, 1, n);
    } else if (strcmp(c, "negative_pe") == 0) {
        shmem_long_get(local, x, 1, -1);
    } else if (strcmp(c, "after_finalize") == 0) {
        shmem_free(x);
        shmem_finalize();
        shmem_putmem(local, local, 8, 0);
    } else if (strcmp(c, "malloc_big") == 0) { /* NULL, and the program goes on */
        CHECK(shmem_malloc((size_t)1 << 50) == NULL, "a petabyte was allocated");
        CHECK(shmem_align(64, (size_t)1 << 50) == NULL, "a petabyte was aligned");
        long *y = shmem_malloc(64);
        CHECK(y != NULL, "the heap is unusable after a failed allocation");
        shmem_long_p(y, me, right);
        shmem_free(y);
    } else if (strcmp(c, "global_exit") == 0 || strcmp(c, "global_exit0") == 0) {
        int status = strcmp(c, "global_exit") == 0 ? 7 : 0;
        if (me == n - 1) {
            printf("PE %d calls shmem_global_exit(%d)\n", me, status);
            shmem_global_exit(status);
        }
        shmem_barrier_all(); /* the others wait here forever */
        shmem_barrier_all();
        CHECK(0, "a barrier passed without PE %d", n - 1);
    } else if (strcmp(c, "exit_serving") == 0) {
        /* PE n-1 exits (exit(3), from a timer's signal) in the middle of
         * serving the others' gets: it gets from PE 0 without end, so its
         * waits answer the others' requests up to the moment it goes,
         * and they meet the closed connection with writes (mailbox
         * requests, fi_inject_write) posted or on the wire. Their failure
         * must end the job as any other (the launcher names PE n-1, with
         * its status), not crash a survivor inside the provider (libfabric
         * 1.17's ofi_rxm over tcp dereferenced the failed inject's missing
         * context: ofi_setup.c, guard_injects). The progress thread did
         * the same serving while PE n-1 slept in exit_mid. */
        shmem_barrier_all();
        if (me == n - 1) {
            signal(SIGALRM, leave_now);
            struct itimerval t = {.it_value = {0, 300000}};
            setitimer(ITIMER_REAL, &t, NULL);
            for (;;)
                shmem_long_get(local, x, 4, 0);
        }
        for (;;)
            shmem_long_get(local, x, 4, n - 1);
    } else if (strcmp(c, "exit_mid") == 0 || strcmp(c, "return_mid") == 0) {
        /* PE n-1 leaves on its own (exit(3), or main returns without
         * shmem_finalize) while the others get from it without end: over
         * the network their gets then fail and they abort, which the
         * launcher may hear of before it reaps PE n-1; PE n-1 must be the
         * one named, with its status. */
        shmem_barrier_all();
        if (me == n - 1) {
            usleep(300000); /* the others well inside their gets */
            /* On stdout, buffered (a file or pipe): what a PE printed must
             * not be lost while its exit waits for the launcher. */
            printf("PE %d leaves (%s)\n", me, c);
            if (strcmp(c, "exit_mid") == 0)
                exit(3);
            return 0;
        }
        for (;;)
            shmem_long_get(local, x, 4, n - 1);
    } else if (strcmp(c, "return_served") == 0) {
        /* PE n-1 returns from main without shmem_finalize; finalizing at
         * exit, it keeps serving the others' gets until they finalize. */
        for (int i = 0; i < 4; i++)
            x[i] = 1000 * me + i;
        shmem_barrier_all();
        if (me == n - 1) {
            printf("PE %d leaves (%s)\n", me, c);
            return 0;
        }
        usleep(200000); /* PE n-1 well inside its exit */
        for (int k = 0; k < 2000; k++) {
            shmem_long_get(local, x, 4, n - 1);
            for (int i = 0; i < 4; i++)
                CHECK(local[i] == 1000 * (n - 1) + i, "get %d from PE %d: [%d] = %ld", k,
                      n - 1, i, local[i]);
        }
        printf("PE %d: 2000 gets from PE %d after it returned: right\n", me, n - 1);
        shmem_finalize(); /* no shmem_free: a barrier, PE n-1 is in finalize's */
        return 0;
    } else if (strcmp(c, "no_finalize") == 0 || strcmp(c, "no_finalize_exit0") == 0) {
        /* Every PE ends without shmem_finalize, one with a put to the next
         * PE not yet complete: finalizing at exit completes it. */
        shmem_long_put_nbi(x, local, 4, right);
        printf("PE %d ends without shmem_finalize\n", me);
        if (strcmp(c, "no_finalize_exit0") == 0)
            exit(0);
        return 0;
    } else if (strcmp(c, "bad_cmp") == 0) {
        shmem_long_wait_until(x, 42, 0);
    } else if (strcmp(c, "bad_free") == 0) { /* reported, ignored, nothing hangs */
        shmem_free(local);
        shmem_free(x + 1);
        long *y = shmem_malloc(64);
        CHECK(y != NULL, "shmem_malloc after a bad free");
        shmem_free(y);
    } else if (strcmp(c, "bad_align") == 0) {
        CHECK(shmem_align(3, 64) == NULL, "alignment 3 accepted");
        CHECK(shmem_align(0, 64) == NULL, "alignment 0 accepted");
        CHECK(shmem_align(24, 64) == NULL, "alignment 24 accepted");
    } else {
        CHECK(0, "unknown case %s", c);
    }
    shmem_free(x);
    return finish(c);
}
