/* The PMIx bootstrap under a real PMIx launcher (Open MPI's mpirun), below
 * tern_init: rank and size, node keys, allgather byte for byte, barrier,
 * a length mismatch, and (by mode) waits after init_done, the start-up
 * timeout and abort.
 *
 * usage: mp_pmix_boot SIZE [basic|late|timeout|abort]
 * SIZE is the number of ranks the launcher was asked for. Every failed
 * check exits the rank with 1, which makes mpirun end the job non-zero. */
#include "boot/boot.h"

#include <tern/status.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../test_check.h"

static int my_rank = -1;

#define CHECK(cond, ...) TEST_CHECK_AS("pmix_boot rank", my_rank, cond, __VA_ARGS__)
#define OK(call)         TEST_OK_AS("pmix_boot rank", my_rank, call)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static unsigned char pattern(int rank, size_t i, unsigned call)
{
    return (unsigned char)(rank * 131u + i * 7u + call * 31u + (i >> 8));
}

/* Identity: the launcher's view (its own environment variables) must be
 * what the bootstrap reports. */
static void check_identity(tn_boot_t *b, int size)
{
    CHECK(strcmp(b->ops->name, "pmix") == 0,
          "bootstrap is '%s', not pmix: is PMIX_RANK set?", b->ops->name);
    CHECK(b->size == size, "size %d, launcher was asked for %d", b->size, size);
    CHECK(b->rank >= 0 && b->rank < b->size, "rank %d of %d", b->rank, b->size);
    const char *env = getenv("PMIX_RANK");
    CHECK(env != NULL && atoi(env) == b->rank, "PMIX_RANK=%s, rank %d",
          env ? env : "(unset)", b->rank);
    env = getenv("OMPI_COMM_WORLD_SIZE");
    if (env != NULL)
        CHECK(atoi(env) == b->size, "OMPI_COMM_WORLD_SIZE=%s, size %d", env, b->size);
    CHECK(b->node_key[0] != '\0', "empty node key");
    CHECK(memchr(b->node_key, '\0', sizeof(b->node_key)) != NULL,
          "node key not terminated");
    /* A PMIx node is a machine: the host key names the same thing. */
    CHECK(strcmp(b->host_key, b->node_key) == 0, "host key '%.64s', node key '%s'",
          b->host_key, b->node_key);
}

/* One host: every rank must report the same node key. */
static void check_node_keys(tn_boot_t *b)
{
    size_t k = sizeof(b->node_key);
    char *all = calloc((size_t)b->size, k);
    CHECK(all != NULL, "out of memory");
    OK(b->ops->allgather(b, b->node_key, k, all));
    for (int r = 0; r < b->size; r++)
        CHECK(strcmp(all + (size_t)r * k, b->node_key) == 0,
              "rank %d has node key '%s', this rank '%s' (same host)", r,
              all + (size_t)r * k, b->node_key);
    free(all);
}

/* Allgathers of many lengths, each call with different contents, so that
 * a stale value of an earlier call (a reused key) would be caught. */
static void check_allgather(tn_boot_t *b)
{
    static const size_t lens[] = {1, 3, 8, 8, 8, 1000, 4096, 65536, 1 << 20};
    unsigned call = 0;
    for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++, call++) {
        size_t len = lens[l];
        unsigned char *in = malloc(len);
        unsigned char *out = malloc(len * (size_t)b->size);
        CHECK(in != NULL && out != NULL, "out of memory");
        for (size_t i = 0; i < len; i++)
            in[i] = pattern(b->rank, i, call);
        memset(out, 0xEE, len * (size_t)b->size);
        OK(b->ops->allgather(b, in, len, out));
        for (int r = 0; r < b->size; r++)
            for (size_t i = 0; i < len; i++)
                CHECK(out[(size_t)r * len + i] == pattern(r, i, call),
                      "allgather #%u of %zu bytes: rank %d byte %zu is 0x%02x, "
                      "expected 0x%02x",
                      call, len, r, i, out[(size_t)r * len + i], pattern(r, i, call));
        free(in);
        free(out);
    }
    OK(b->ops->allgather(b, NULL, 0, NULL)); /* empty: still collective */
}

/* Ranks that disagree on the length: every rank must see the mismatch
 * (rank 0 contributes one byte more), and the next call must work. */
static void check_mismatch(tn_boot_t *b)
{
    if (b->size < 2)
        return;
    unsigned char in[9] = {0}, out[9 * 64];
    CHECK(b->size <= 64, "test supports 64 ranks");
    size_t len = b->rank == 0 ? 9 : 8;
    int rc = b->ops->allgather(b, in, len, out);
    CHECK(rc == TERN_ERR_MISMATCH,
          "allgather with unequal lengths returned "
          "%d (%s), expected TERN_ERR_MISMATCH",
          rc, tern_strerror(rc));
    OK(b->ops->barrier(b));
}

/* Barrier: every rank but 0 creates its file late; after the barrier every
 * file must exist. Without a real barrier rank 0 looks too early. The
 * directory is rank 0's, handed out by allgather. */
static void check_barrier(tn_boot_t *b)
{
    char dir[256] = {0};
    char *all = malloc(sizeof(dir) * (size_t)b->size);
    CHECK(all != NULL, "out of memory");
    if (b->rank == 0) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof(dir), "%s/tern_pmix_boot.XXXXXX",
                 tmp && *tmp ? tmp : "/tmp");
        CHECK(mkdtemp(dir) != NULL, "mkdtemp %s: %s", dir, strerror(errno));
    }
    OK(b->ops->allgather(b, dir, sizeof(dir), all));
    memcpy(dir, all, sizeof(dir));
    free(all);

    char path[512];
    for (int iter = 0; iter < 3; iter++) {
        if (b->rank != 0)
            sleep_ms(150);
        snprintf(path, sizeof(path), "%s/%d.%d", dir, iter, b->rank);
        FILE *f = fopen(path, "w");
        CHECK(f != NULL, "create %s: %s", path, strerror(errno));
        fclose(f);
        OK(b->ops->barrier(b));
        for (int r = 0; r < b->size; r++) {
            struct stat st;
            snprintf(path, sizeof(path), "%s/%d.%d", dir, iter, r);
            CHECK(stat(path, &st) == 0, "after barrier %d, rank %d's file %s is missing",
                  iter, r, path);
        }
        OK(b->ops->barrier(b)); /* all have looked before anyone removes */
        snprintf(path, sizeof(path), "%s/%d.%d", dir, iter, b->rank);
        unlink(path);
    }
    OK(b->ops->barrier(b));
    if (b->rank == 0)
        rmdir(dir);
}

/* Start-up timeout: the last rank never reaches the barrier; with a
 * 1 s timeout the others must give up with TERN_ERR_TIMEOUT after ~1 s,
 * and then refuse further collectives at once (their fences no longer pair
 * with the late rank's). Each of them prints a line the caller counts;
 * then rank 0 ends the job with status 3, as tern_init would. */
static int run_timeout(int size)
{
    tn_boot_t *b = NULL;
    OK(tn_boot_create(1.0, &b));
    my_rank = b->rank;
    check_identity(b, size);
    CHECK(b->size >= 2, "the timeout test needs 2 or more ranks");
    if (b->rank == b->size - 1) {
        sleep_ms(20000);
        CHECK(0, "the absent rank was not ended by rank 0's abort");
    }
    double t0 = now_s();
    int rc = b->ops->barrier(b);
    double dt = now_s() - t0;
    CHECK(rc == TERN_ERR_TIMEOUT,
          "barrier with a rank absent and a 1 s "
          "timeout returned %d (%s) after %.2f s",
          rc, tern_strerror(rc), dt);
    /* The launcher times the collective from its first participant's
     * arrival: a rank that arrives late (a loaded machine, sanitizer
     * builds) waits less (0.71 s seen), never more. */
    CHECK(dt >= 0.2 && dt < 3.0, "timed out after %.2f s, expected ~1 s", dt);
    t0 = now_s();
    rc = b->ops->barrier(b);
    dt = now_s() - t0;
    CHECK(rc == TERN_ERR_BOOT && dt < 0.5,
          "barrier after a timeout returned "
          "%d (%s) after %.2f s, expected TERN_ERR_BOOT at once",
          rc, tern_strerror(rc), dt);
    char in[8] = {0}, out[8 * 64];
    rc = size <= 64 ? b->ops->allgather(b, in, sizeof(in), out) : TERN_ERR_BOOT;
    CHECK(rc == TERN_ERR_BOOT, "allgather after a timeout returned %d (%s)", rc,
          tern_strerror(rc));
    printf("pmix_boot timeout: rank %d checks passed\n", b->rank);
    fflush(stdout);
    sleep_ms(500); /* let the other early ranks print theirs */
    if (b->rank == 0)
        b->ops->abort(b, 3,
                      "pmix_boot: ending the job after the expected "
                      "start-up timeout");
    sleep_ms(20000);
    CHECK(0, "still alive 20 s after rank 0's abort");
    return 1;
}

/* After init_done there is no deadline: the last rank arrives 1.6 s late
 * at a barrier and an allgather, with a 1 s start-up timeout. */
static int run_late(int size)
{
    tn_boot_t *b = NULL;
    OK(tn_boot_create(1.0, &b));
    my_rank = b->rank;
    check_identity(b, size);
    OK(b->ops->barrier(b));
    OK(b->ops->init_done(b));
    int late = b->rank == b->size - 1;
    for (int step = 0; step < 2; step++) {
        if (late)
            sleep_ms(1600);
        double t0 = now_s();
        if (step == 0) {
            OK(b->ops->barrier(b));
        } else {
            int in = b->rank, out[64];
            CHECK(b->size <= 64, "test supports 64 ranks");
            OK(b->ops->allgather(b, &in, sizeof(in), out));
            for (int r = 0; r < b->size; r++)
                CHECK(out[r] == r, "allgather slot %d holds %d", r, out[r]);
        }
        double dt = now_s() - t0;
        if (!late && b->size > 1)
            CHECK(dt > 1.2,
                  "collective returned after %.2f s, before the "
                  "late rank arrived",
                  dt);
    }
    OK(b->ops->fini(b));
    tn_boot_destroy(b);
    if (my_rank == 0)
        printf("pmix_boot late: PASS on %d ranks\n", size);
    return 0;
}

/* Abort: the last rank ends the job while the others wait in a barrier;
 * the launcher must end them (the caller checks exit status and message). */
static int run_abort(int size)
{
    tn_boot_t *b = NULL;
    OK(tn_boot_create(30.0, &b));
    my_rank = b->rank;
    check_identity(b, size);
    OK(b->ops->barrier(b));
    if (b->rank == b->size - 1) {
        char msg[128];
        snprintf(msg, sizeof(msg), "pmix_boot: deliberate abort from rank %d", b->rank);
        b->ops->abort(b, 7, msg);
        CHECK(0, "abort returned");
    }
    int rc = b->ops->barrier(b);
    /* The barrier may fail once the aborting rank is gone; either way this
     * rank must be ended by the launcher, not get to exit by itself. */
    sleep_ms(20000);
    CHECK(0, "still alive 20 s after the abort (barrier returned %d)", rc);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s SIZE [basic|late|timeout|abort]\n", argv[0]);
        return 2;
    }
    int size = atoi(argv[1]);
    const char *mode = argc > 2 ? argv[2] : "basic";
    if (strcmp(mode, "timeout") == 0)
        return run_timeout(size);
    if (strcmp(mode, "late") == 0)
        return run_late(size);
    if (strcmp(mode, "abort") == 0)
        return run_abort(size);
    CHECK(strcmp(mode, "basic") == 0, "unknown mode '%s'", mode);

    tn_boot_t *b = NULL;
    OK(tn_boot_create(30.0, &b));
    my_rank = b->rank;
    check_identity(b, size);
    check_node_keys(b);
    check_allgather(b);
    check_mismatch(b);
    check_barrier(b);
    OK(b->ops->init_done(b));
    check_allgather(b); /* after start-up, without a deadline */
    OK(b->ops->barrier(b));
    char node[sizeof(b->node_key)];
    memcpy(node, b->node_key, sizeof(node));
    OK(b->ops->fini(b));
    tn_boot_destroy(b);
    if (my_rank == 0)
        printf("pmix_boot: PASS on %d ranks (node key '%s')\n", size, node);
    return 0;
}
