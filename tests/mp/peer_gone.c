/* A peer that exits before anyone has contacted it (issue 13: with lazy
 * network addressing its address is looked up at first contact): the last
 * rank leaves right after tern_init, without tern_finalize and without a
 * word; rank 0 then makes its first contact with it (a put: in net and
 * mixed the address lookup and the connection), and every rank that is
 * left waits in a barrier the last rank never joins. The launcher must end
 * the job naming the rank that left, whatever rank 0's put gave (an error
 * naming the rank, or a store into memory still mapped in shm); nothing
 * may hang. peer_gone.sh checks the exit status and the messages. */
#include <unistd.h>

#include "mp_util.h"

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size(), gone = n - 1;
    if (me == gone)
        _exit(0);
    tern_memory_report_t r;
    MP_OK(tern_memory_report(&r));
    MP_CHECK(r.net_addresses == 0, "%d network addresses resolved before any transfer",
             r.net_addresses);
    if (me == 0) {
        usleep(300 * 1000); /* the last rank is gone by now */
        void *base = NULL;
        size_t size = 0;
        uint64_t v = 1;
        MP_OK(tern_segment_query(gone, &base, &size));
        int rc = tern_put(gone, base, &v, sizeof(v), 0);
        printf("peer_gone: rank 0's first put to rank %d: %s\n", gone, tern_strerror(rc));
        fflush(stdout);
    }
    int rc = tern_barrier(); /* never completes: the job is ended */
    /* An error from it is the job ending too: wait for the launcher to say
     * why, rather than race it with this rank's own exit. */
    fprintf(stderr, "peer_gone: rank %d: barrier without rank %d gave %s\n", me, gone,
            tern_strerror(rc));
    sleep(30);
    return 1;
}
