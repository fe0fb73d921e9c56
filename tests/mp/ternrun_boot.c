/* The bootstrap layer on its own (no transports): allgather of rank
 * specific data checked byte for byte, barriers, init_done, fini. Options
 * make one rank misbehave, for the failure tests of ternrun_cases.sh:
 *   --pid-dir D      write D/<rank>.pid (the script checks none is left)
 *   --crash R        rank R dies of SIGSEGV after the first barrier
 *   --crash-after MS the crash comes MS milliseconds after that barrier
 *   --kill R         rank R dies of SIGKILL after the first barrier
 *   --kill-after MS  the kill comes MS milliseconds after that barrier
 *   --exit R C       rank R exits with code C after the first barrier
 *   --no-init R      rank R never joins (sleeps 30 s)
 *   --no-fini R      rank R exits 0 after the first barrier, without fini
 *   --exit-after MS  the exit of --exit comes MS milliseconds after that
 *                    barrier (--no-fini-after MS: that of --no-fini)
 *   --abort R C      rank R aborts the job with code C after the barrier
 *   --drop R         rank R closes its bootstrap connection without fini
 *                    after the first barrier, then sleeps 30 s
 *   --fail-exit R C  rank R exits with code C after the first barrier, as
 *                    a peer whose transfer to a rank that left failed
 *   --leaving        the ranks of --exit and --fail-exit tell ternrun
 *                    they leave (LEAVING) first, with 0 and 1 errors
 *                    logged and their exit codes (then wait for the
 *                    job's end), as tern_init's exit handler does
 *   --helper         every rank forks a helper that sleeps 30 s
 *   --hang           after start-up, every rank sleeps 30 s
 *   --nodes K        check the node keys of ternrun --nodes K
 *   --mismatch R     rank R contributes one byte more to the first allgather
 *   --affinity       print "rank R affinity LIST" (the CPUs it may use)
 * Exit codes: 0 pass, 1 fail. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tern/status.h>

#include "base/time.h"
#include "boot/boot.h"

static int crash = -1, crash_after_ms, kill_rank = -1, kill_after_ms, exit_rank = -1,
           exit_code, no_init = -1, no_fini = -1, abort_rank = -1, abort_code, drop = -1,
           helper, hang, nodes, mismatch = -1, affinity, exit_after_ms, no_fini_after_ms,
           fail_exit = -1, fail_exit_code, leaving;
static const char *pid_dir;

#define CHECK(cond, ...)                                                              \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "ternrun_boot rank %d: check failed: %s: ", rank, #cond); \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

static int rank = -1;

static unsigned char pattern(int r, size_t i, size_t len)
{
    return (unsigned char)(r * 131u + i * 7u + len * 13u + (i >> 8));
}

static void parse(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc, two = i + 2 < argc;
        if (!strcmp(a, "--pid-dir") && more)
            pid_dir = argv[++i];
        else if (!strcmp(a, "--crash") && more)
            crash = atoi(argv[++i]);
        else if (!strcmp(a, "--crash-after") && more)
            crash_after_ms = atoi(argv[++i]);
        else if (!strcmp(a, "--kill") && more)
            kill_rank = atoi(argv[++i]);
        else if (!strcmp(a, "--kill-after") && more)
            kill_after_ms = atoi(argv[++i]);
        else if (!strcmp(a, "--exit") && two) {
            exit_rank = atoi(argv[++i]);
            exit_code = atoi(argv[++i]);
        } else if (!strcmp(a, "--no-init") && more)
            no_init = atoi(argv[++i]);
        else if (!strcmp(a, "--no-fini") && more)
            no_fini = atoi(argv[++i]);
        else if (!strcmp(a, "--exit-after") && more)
            exit_after_ms = atoi(argv[++i]);
        else if (!strcmp(a, "--no-fini-after") && more)
            no_fini_after_ms = atoi(argv[++i]);
        else if (!strcmp(a, "--abort") && two) {
            abort_rank = atoi(argv[++i]);
            abort_code = atoi(argv[++i]);
        } else if (!strcmp(a, "--drop") && more)
            drop = atoi(argv[++i]);
        else if (!strcmp(a, "--fail-exit") && two) {
            fail_exit = atoi(argv[++i]);
            fail_exit_code = atoi(argv[++i]);
        } else if (!strcmp(a, "--leaving"))
            leaving = 1;
        else if (!strcmp(a, "--helper"))
            helper = 1;
        else if (!strcmp(a, "--hang"))
            hang = 1;
        else if (!strcmp(a, "--mismatch") && more)
            mismatch = atoi(argv[++i]);
        else if (!strcmp(a, "--affinity"))
            affinity = 1;
        else if (!strcmp(a, "--nodes") && more)
            nodes = atoi(argv[++i]);
        else {
            fprintf(stderr, "ternrun_boot: unknown argument '%s'\n", a);
            exit(1);
        }
    }
}

static void write_pid(int who, pid_t pid, const char *suffix)
{
    if (!pid_dir)
        return;
    char path[512];
    snprintf(path, sizeof(path), "%s/%d%s.pid", pid_dir, who, suffix);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%d\n", (int)pid);
        fclose(f);
    }
}

/* The kernel's view of where this process may run, as a list ("0-3"). */
static void print_affinity(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[512];
    while (f && fgets(line, sizeof(line), f))
        if (!strncmp(line, "Cpus_allowed_list:", 18)) {
            char *v = line + 18;
            v += strspn(v, " \t");
            printf("rank %d affinity %s", rank, v);
            fflush(stdout);
        }
    if (f)
        fclose(f);
}

/* Allgather of len bytes per rank, every byte checked. */
static void check_allgather(tn_boot_t *b, size_t len)
{
    unsigned char *in = malloc(len + 1), *out = malloc(len * b->size + 1);
    CHECK(in && out, "out of memory");
    for (size_t i = 0; i < len; i++)
        in[i] = pattern(b->rank, i, len);
    memset(out, 0xee, len * b->size);
    int rc = b->ops->allgather(b, in, len, out);
    CHECK(rc == TERN_OK, "allgather of %zu bytes: %s", len, tern_strerror(rc));
    for (int r = 0; r < b->size; r++)
        for (size_t i = 0; i < len; i++)
            CHECK(out[r * len + i] == pattern(r, i, len),
                  "allgather of %zu bytes: byte %zu from rank %d is 0x%02x, "
                  "expected 0x%02x",
                  len, i, r, out[r * len + i], pattern(r, i, len));
    free(in);
    free(out);
}

/* Node keys: ranks in one block of ternrun --nodes share a key, others
 * differ. Host keys: every rank runs on this machine, so all are equal
 * and name this host, whatever node the rank belongs to. */
static void check_nodes(tn_boot_t *b)
{
    char *keys = calloc((size_t)b->size, sizeof(b->node_key));
    char *hosts = calloc((size_t)b->size, sizeof(b->host_key));
    CHECK(keys && hosts, "out of memory");
    int rc = b->ops->allgather(b, b->node_key, sizeof(b->node_key), keys);
    CHECK(rc == TERN_OK, "allgather of node keys: %s", tern_strerror(rc));
    rc = b->ops->allgather(b, b->host_key, sizeof(b->host_key), hosts);
    CHECK(rc == TERN_OK, "allgather of host keys: %s", tern_strerror(rc));
    char host[sizeof(b->host_key)] = {0};
    CHECK(gethostname(host, sizeof(host) - 1) == 0, "gethostname failed");
    for (int r = 0; r < b->size; r++) {
        int same_block = (long)r * nodes / b->size == (long)b->rank * nodes / b->size;
        int same_key = strcmp(keys + r * sizeof(b->node_key), b->node_key) == 0;
        CHECK(same_block == same_key,
              "rank %d has node key '%s', this rank "
              "'%s', with %d nodes",
              r, keys + r * sizeof(b->node_key), b->node_key, nodes);
        CHECK(strcmp(hosts + r * sizeof(b->host_key), host) == 0,
              "rank %d has host key '%s' (node key '%s'), this machine is '%s'", r,
              hosts + r * sizeof(b->host_key), keys + r * sizeof(b->node_key), host);
    }
    free(keys);
    free(hosts);
}

int main(int argc, char **argv)
{
    parse(argc, argv);
    const char *env_rank = getenv("TERN_BOOT_RANK");
    rank = env_rank ? atoi(env_rank) : 0;
    write_pid(rank, getpid(), "");
    if (helper) {
        pid_t h = fork();
        if (h == 0) {
            sleep(30);
            _exit(0);
        }
        write_pid(rank, h, "-helper");
    }
    if (affinity)
        print_affinity();
    if (rank == no_init) {
        sleep(30);
        return 0;
    }
    tn_boot_t *b;
    int rc = tn_boot_create(10, &b);
    CHECK(rc == TERN_OK, "tn_boot_create: %s", tern_strerror(rc));
    CHECK(b->rank == rank, "boot rank %d, TERN_BOOT_RANK %d", b->rank, rank);
    CHECK(b->size >= 1 && b->rank < b->size, "rank %d of %d", b->rank, b->size);
    CHECK(b->node_key[0], "empty node key");
    CHECK(b->host_key[0], "empty host key");
    if (!env_rank)
        CHECK(b->size == 1 && !strcmp(b->ops->name, "single"),
              "without ternrun: %s, size %d", b->ops->name, b->size);

    /* Misbehave only once every rank has joined (and written its pid
     * file): the others then wait in a collective, the case to test. */
    rc = b->ops->barrier(b);
    CHECK(rc == TERN_OK, "first barrier: %s", tern_strerror(rc));
    if (rank == crash) {
        if (crash_after_ms > 0)
            usleep((useconds_t)crash_after_ms * 1000);
        /* Die of the signal as a program without handlers would, also in
         * TERN_SANITIZE builds, whose runtime handles SIGSEGV itself. */
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
    if (rank == kill_rank) {
        if (kill_after_ms > 0)
            usleep((useconds_t)kill_after_ms * 1000);
        raise(SIGKILL);
    }
    if (rank == fail_exit) {
        if (leaving)
            tn_boot_leaving(b, 1, fail_exit_code);
        exit(fail_exit_code);
    }
    if (rank == exit_rank) {
        if (exit_after_ms > 0)
            usleep((useconds_t)exit_after_ms * 1000);
        if (leaving)
            tn_boot_leaving(b, 0, exit_code);
        exit(exit_code);
    }
    if (rank == no_fini) {
        if (no_fini_after_ms > 0)
            usleep((useconds_t)no_fini_after_ms * 1000);
        exit(0);
    }
    if (rank == abort_rank)
        b->ops->abort(b, abort_code, "ternrun_boot asked for this abort");
    if (rank == drop) {
        tn_boot_destroy(b);
        sleep(30);
        return 0;
    }

    if (mismatch >= 0) {
        unsigned char in[9] = {0}, out[9 * 4096];
        if (b->size <= 4096)
            b->ops->allgather(b, in, rank == mismatch ? 9 : 8, out);
        CHECK(0, "the mismatched allgather was not stopped by ternrun");
    }
    static const size_t lens[] = {0, 1, 8, 13, 64, 4096, 100000};
    for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++)
        check_allgather(b, lens[k]);
    for (int i = 0; i < 5; i++) {
        rc = b->ops->barrier(b);
        CHECK(rc == TERN_OK, "barrier %d: %s", i, tern_strerror(rc));
    }
    if (nodes)
        check_nodes(b);
    rc = b->ops->init_done(b);
    CHECK(rc == TERN_OK, "init_done: %s", tern_strerror(rc));
    if (hang)
        sleep(30);
    check_allgather(b, 24); /* after start-up too */
    rc = b->ops->barrier(b);
    CHECK(rc == TERN_OK, "last barrier: %s", tern_strerror(rc));
    rc = b->ops->fini(b);
    CHECK(rc == TERN_OK, "fini: %s", tern_strerror(rc));
    tn_boot_destroy(b);
    if (rank == 0)
        printf("ternrun_boot: PASS on %s ranks\n",
               getenv("TERN_BOOT_SIZE") ? getenv("TERN_BOOT_SIZE") : "1");
    return 0;
}
