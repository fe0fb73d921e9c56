/* The native API on a job started by Open MPI's mpirun, so bootstrapped
 * through PMIx: identity, node map, symmetric allocation, put (blocking and
 * with events), get, barrier and a bad rank, checked byte for byte.
 *
 * usage: mp_pmix_api SIZE [basic|abort|exit] [NODES]
 * exit: the last rank exits with 1 without tern_finalize while the others
 * wait in a barrier; the launcher must end the job (nothing hangs).
 * abort: the last rank calls tern_abort(5, ...) while the others wait in a
 * barrier; the caller checks that the job ends with status 5.
 * NODES: the node count tern_init must find, 1 (default: mpirun starts
 * every rank on this host, and TERN_SHM=0 does not change that) or SIZE
 * (every rank on a host of its own). */
#include <string.h>
#include <unistd.h>

#include "mp_util.h"

#define LEN 65536

static void run_abort(int me, int n)
{
    MP_OK(tern_barrier());
    if (me == n - 1)
        tern_abort(5, "pmix_api: deliberate tern_abort");
    int rc = tern_barrier(); /* the aborting rank never arrives */
    sleep(20);
    MP_CHECK(0, "still alive 20 s after tern_abort (barrier returned %d)", rc);
}

static void run_exit(int me, int n)
{
    MP_OK(tern_barrier());
    if (me == n - 1) {
        fprintf(stderr, "pmix_api: rank %d exits with 1 without tern_finalize\n", me);
        exit(1);
    }
    int rc = tern_barrier(); /* the exiting rank never arrives */
    sleep(20);
    MP_CHECK(0, "still alive 20 s after rank %d exited (barrier returned %d)", n - 1, rc);
}

int main(int argc, char **argv)
{
    int size = argc > 1 ? atoi(argv[1]) : 0;
    const char *mode = argc > 2 ? argv[2] : "basic";
    int nodes = argc > 3 ? atoi(argv[3]) : 1;
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();

    tern_startup_report_t rep;
    MP_OK(tern_startup_report(&rep));
    MP_CHECK(strcmp(rep.boot_name, "pmix") == 0,
             "bootstrap '%s', expected pmix under mpirun", rep.boot_name);
    MP_CHECK(n == size, "tern_size() %d, mpirun started %d", n, size);
    const char *env = getenv("PMIX_RANK");
    MP_CHECK(env && atoi(env) == me, "tern_rank() %d, PMIX_RANK=%s", me,
             env ? env : "(unset)");
    MP_CHECK(tern_node_count() == nodes, "%d nodes, expected %d", tern_node_count(),
             nodes);
    if (nodes == 1) { /* one host: every rank local */
        MP_CHECK(tern_local_size() == n, "local size %d of %d", tern_local_size(), n);
        MP_CHECK(tern_local_rank() == me, "local rank %d, rank %d", tern_local_rank(),
                 me);
        for (int r = 0; r < n; r++)
            MP_CHECK(tern_node_of(r) == 0, "rank %d on node %d", r, tern_node_of(r));
    } else { /* a node per rank */
        MP_CHECK(nodes == n, "NODES must be 1 or SIZE");
        MP_CHECK(tern_local_size() == 1 && tern_local_rank() == 0,
                 "local rank %d of %d on a node of its own", tern_local_rank(),
                 tern_local_size());
        for (int r = 0; r < n; r++)
            for (int q = 0; q < r; q++)
                MP_CHECK(tern_node_of(r) != tern_node_of(q),
                         "ranks %d and %d share node %d", q, r, tern_node_of(r));
    }

    if (strcmp(mode, "abort") == 0)
        run_abort(me, n);
    if (strcmp(mode, "exit") == 0)
        run_exit(me, n);
    MP_CHECK(strcmp(mode, "basic") == 0, "unknown mode '%s'", mode);

    /* buf[0..LEN): written by the left neighbour's blocking put;
     * buf[LEN..2*LEN): by its put with events. */
    unsigned char *buf;
    MP_OK(tern_alloc_sym(2 * LEN, (void **)&buf));
    memset(buf, 0, 2 * LEN);
    unsigned char *src = malloc(2 * LEN);
    MP_CHECK(src != NULL, "out of memory");
    for (size_t i = 0; i < 2 * LEN; i++)
        src[i] = mp_pattern(me, i, 1);
    MP_OK(tern_barrier());

    int right = (me + 1) % n, left = (me + n - 1) % n;
    unsigned char *rbuf = tern_sym_addr(right, buf);
    MP_CHECK(rbuf != NULL, "no symmetric address on rank %d", right);
    MP_OK(tern_put(right, rbuf, src, LEN, 0));
    tern_event_t lc, rc;
    MP_OK(tern_put_nb(right, rbuf + LEN, src + LEN, LEN, &lc, &rc, 0));
    MP_OK(tern_event_wait(lc));
    MP_OK(tern_event_wait(rc));
    MP_OK(tern_barrier());
    for (size_t i = 0; i < 2 * LEN; i++)
        MP_CHECK(buf[i] == mp_pattern(left, i, 1),
                 "byte %zu from rank %d is 0x%02x, expected 0x%02x", i, left, buf[i],
                 mp_pattern(left, i, 1));

    /* Read back from the right neighbour what this rank wrote there. */
    unsigned char *back = malloc(2 * LEN);
    MP_CHECK(back != NULL, "out of memory");
    MP_OK(tern_get(back, right, rbuf, 2 * LEN, 0));
    MP_CHECK(memcmp(back, src, 2 * LEN) == 0, "get from rank %d differs", right);

    int bad = tern_put(n, rbuf, src, 8, 0);
    MP_CHECK(bad == TERN_ERR_RANK, "put to rank %d returned %d (%s)", n, bad,
             tern_strerror(bad));

    MP_OK(tern_free_sym(buf));
    free(src);
    free(back);
    return mp_finish("pmix_api");
}
