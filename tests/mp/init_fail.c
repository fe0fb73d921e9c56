/* tern_init fails on one rank (rank 1, or rank 0 alone): every rank must
 * get the error back from tern_init (none ends the job, none is left
 * waiting), and then the program decides. The failing rank asks for a
 * segment larger than any machine's memory (TEST_FAIL=memory) or gives a
 * bad configuration value (TEST_FAIL=config). The rank comes from the
 * launcher's environment, as the program cannot ask Tern yet. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>

static int env_int(const char *a, const char *b, int dflt)
{
    const char *v = getenv(a);
    if (!v)
        v = getenv(b);
    return v ? atoi(v) : dflt;
}

int main(int argc, char **argv)
{
    int rank = env_int("TERN_BOOT_RANK", "OMPI_COMM_WORLD_RANK", 0);
    int size = env_int("TERN_BOOT_SIZE", "OMPI_COMM_WORLD_SIZE", 1);
    int victim = size > 1 ? 1 : 0;
    const char *how = getenv("TEST_FAIL") ? getenv("TEST_FAIL") : "memory";
    int want = TERN_ERR_NOMEM;
    if (rank == victim) {
        if (!strcmp(how, "config")) {
            setenv("TERN_WAIT_MODE", "bogus", 1);
            want = TERN_ERR_CONFIG;
        } else {
            setenv("TERN_SEGMENT_SIZE", "100000G", 1);
        }
    } else if (!strcmp(how, "config")) {
        want = TERN_ERR_CONFIG;
    }
    int rc = tern_init(&argc, &argv, TERN_THREAD_SINGLE);
    if (rc != want) {
        fprintf(
            stderr,
            "init_fail: rank %d of %d: tern_init returned %d (%s), expected %d (%s)\n",
            rank, size, rc, tern_strerror(rc), want, tern_strerror(want));
        if (rc == TERN_OK)
            tern_finalize();
        return 1;
    }
    if (tern_rank() != -1 || tern_size() != 0) {
        fprintf(stderr,
                "init_fail: rank %d: after a failed tern_init, tern_rank() = %d\n", rank,
                tern_rank());
        return 1;
    }
    printf("init_fail: rank %d of %d: tern_init returned %s as expected\n", rank, size,
           tern_strerror(rc));
    return 0;
}
