/* Contexts and memory ordering: creation with every option, invalid
 * options, SHMEM_CTX_INVALID as a no-op, destroy's implicit quiet, fence
 * ordering a flag after data, pe_quiet, barrier_all completing the default
 * context's nbi puts, and (THREAD_MULTIPLE) nbi puts of several threads
 * on the default context completed by one thread's quiet, each thread
 * also using a private context of its own. */
#include <pthread.h>
#include <stdint.h>

#include "shmem_test.h"

enum { LEN = 1 << 16, NTHREADS = 3 };

static int me, n, right, left;
static unsigned char *data; /* symmetric, LEN * (NTHREADS + 1) */
static long *flags;         /* symmetric, 16 */

/* Sends data then a flag with the ordering routine `order` between them
 * (on ctx); the left neighbour's data must be complete when its flag is. */
static void flag_after_data(shmem_ctx_t ctx, int how, long round)
{
    unsigned char *src = malloc(LEN);
    CHECK(src != NULL, "malloc");
    fill(src, LEN, me, (unsigned)round);
    shmem_barrier_all();
    shmem_ctx_putmem_nbi(ctx, data, src, LEN, right);
    switch (how) {
    case 0: shmem_ctx_fence(ctx); break;
    case 1: shmem_ctx_quiet(ctx); break;
    case 2: shmem_ctx_pe_quiet(ctx, &right, 1); break;
    }
    shmem_ctx_long_p(ctx, &flags[0], round, right);
    shmem_ctx_quiet(ctx);
    shmem_long_wait_until(&flags[0], SHMEM_CMP_EQ, round);
    long bad = mismatch(data, LEN, left, (unsigned)round);
    CHECK(bad < 0, "ordering %d, round %ld: byte %ld arrived after the flag", how, round,
          bad);
    free(src);
}

typedef struct {
    int t;
} targ_t;

static void *thread_main(void *arg)
{
    int t = ((targ_t *)arg)->t;
    unsigned char *src = malloc(LEN);
    CHECK(src != NULL, "malloc");
    /* nbi on the default context: completed by the main thread's quiet */
    fill(src, LEN, me, 100 + (unsigned)t);
    shmem_putmem_nbi(data + (size_t)t * LEN, src, LEN, right);
    /* a private context of this thread, completed here */
    shmem_ctx_t mine;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &mine) == 0, "private context");
    shmem_ctx_long_p(mine, &flags[4 + t], 1000 + t, right);
    shmem_ctx_quiet(mine);
    shmem_ctx_destroy(mine);
    /* the source of an nbi put may not be reused before a quiet: freed
     * after the main thread's */
    return src;
}

int main(void)
{
    int provided;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "init_thread");
    me = shmem_my_pe();
    n = shmem_n_pes();
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    data = shmem_malloc(LEN * (NTHREADS + 1));
    flags = shmem_calloc(16, sizeof(long));
    CHECK(data && flags, "shmem_malloc");

    /* creation */
    static const long opts[] = {0,
                                SHMEM_CTX_SERIALIZED,
                                SHMEM_CTX_PRIVATE,
                                SHMEM_CTX_NOSTORE,
                                SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE,
                                SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE};
    shmem_ctx_t c[6];
    for (int i = 0; i < 6; i++) {
        CHECK(shmem_ctx_create(opts[i], &c[i]) == 0 && c[i] != SHMEM_CTX_INVALID,
              "shmem_ctx_create(0x%lx)", opts[i]);
        CHECK(c[i] != SHMEM_CTX_DEFAULT, "a created context is the default one");
        for (int j = 0; j < i; j++)
            CHECK(c[i] != c[j], "contexts %d and %d are the same", i, j);
    }
    shmem_ctx_t bad = SHMEM_CTX_DEFAULT;
    CHECK(shmem_ctx_create(1L << 20, &bad) != 0 && bad == SHMEM_CTX_INVALID,
          "unknown option accepted");
    shmem_ctx_quiet(SHMEM_CTX_INVALID); /* no-ops */
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, &right, 1);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    shmem_pe_quiet(NULL, 0);

    /* ordering on every kind of context */
    long round = 1;
    for (int how = 0; how < 3; how++) {
        flag_after_data(SHMEM_CTX_DEFAULT, how, round++);
        for (int i = 0; i < 6; i++)
            flag_after_data(c[i], how, round++);
    }
    /* the default context's own routines */
    shmem_barrier_all();
    unsigned char *src = malloc(LEN);
    CHECK(src != NULL, "malloc");
    fill(src, LEN, me, 50);
    shmem_putmem_nbi(data, src, LEN, right);
    shmem_fence();
    shmem_long_p(&flags[1], 50, right);
    shmem_quiet();
    shmem_long_wait_until(&flags[1], SHMEM_CMP_EQ, 50);
    CHECK(mismatch(data, LEN, left, 50) < 0, "shmem_fence");
    shmem_barrier_all();
    fill(src, LEN, me, 51);
    shmem_putmem_nbi(data, src, LEN, right);
    int targets[2] = {right, left};
    shmem_pe_quiet(targets, 2);
    shmem_long_p(&flags[1], 51, right);
    shmem_long_wait_until(&flags[1], SHMEM_CMP_EQ, 51);
    CHECK(mismatch(data, LEN, left, 51) < 0, "shmem_pe_quiet");

    /* destroy quiets the context */
    shmem_barrier_all();
    fill(src, LEN, me, 52);
    shmem_ctx_putmem_nbi(c[0], data, src, LEN, right);
    shmem_ctx_destroy(c[0]);
    shmem_sync_all();
    CHECK(mismatch(data, LEN, left, 52) < 0, "shmem_ctx_destroy did not complete a put");
    for (int i = 1; i < 6; i++)
        shmem_ctx_destroy(c[i]);

    /* barrier_all completes the default context's nbi puts */
    fill(src, LEN, me, 53);
    shmem_barrier_all();
    shmem_putmem_nbi(data, src, LEN, right);
    shmem_barrier_all();
    CHECK(mismatch(data, LEN, left, 53) < 0, "shmem_barrier_all did not complete a put");

    /* threads: nbi puts of every thread on the default context */
    shmem_barrier_all();
    pthread_t th[NTHREADS];
    targ_t args[NTHREADS];
    void *bufs[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        args[t].t = t;
        CHECK(pthread_create(&th[t], NULL, thread_main, &args[t]) == 0, "pthread_create");
    }
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], &bufs[t]);
    shmem_quiet(); /* completes the threads' puts as well */
    for (int t = 0; t < NTHREADS; t++)
        free(bufs[t]);
    shmem_long_p(&flags[2], 1, right);
    shmem_long_wait_until(&flags[2], SHMEM_CMP_EQ, 1);
    for (int t = 0; t < NTHREADS; t++) {
        long b = mismatch(data + (size_t)t * LEN, LEN, left, 100 + (unsigned)t);
        CHECK(b < 0, "thread %d's nbi put: byte %ld missing after the quiet", t, b);
        shmem_long_wait_until(&flags[4 + t], SHMEM_CMP_EQ, 1000 + t);
    }

    /* many contexts at once */
    shmem_ctx_t many[200];
    for (int i = 0; i < 200; i++)
        CHECK(shmem_ctx_create(0, &many[i]) == 0, "context %d of 200", i);
    for (int i = 0; i < 200; i++)
        shmem_ctx_destroy(many[i]);
    free(src);
    shmem_free(flags);
    shmem_free(data);
    return finish("shmem ctx");
}
