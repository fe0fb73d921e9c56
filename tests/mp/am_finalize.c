/* Messages in flight at tern_finalize: every rank sends K Short Requests
 * to every other rank, round robin, and calls tern_finalize at once. Every
 * message is delivered exactly once (tern/am.h), so after tern_finalize
 * each rank has run its handler (n-1) x K times. Over the network a
 * sender out of credit packs its messages and sends them as credits come
 * back, after it entered the finalize barrier, and a receiver that had
 * left the barrier dropped it: 4 ranks, TERN_SHM=off, 8 of 10 runs lost
 * 111 to 183 of a rank's 60000 before tern_finalize waited for its
 * Requests to be handled (tn_am_quiesce), 0 of 10 after. Argument: K
 * (default 20000). */
#include <stdatomic.h>

#include <tern/am.h>

#include "mp_util.h"

static _Atomic long handled;

static void on_req(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                   int na)
{
    (void)t, (void)buf, (void)len, (void)a, (void)na;
    atomic_fetch_add_explicit(&handled, 1, memory_order_relaxed);
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    long k = argc > 1 ? atol(argv[1]) : 20000;
    int n = tern_size();
    MP_OK(tern_am_register(9, on_req, "count"));
    MP_OK(tern_barrier());
    for (long i = 0; i < k; i++)
        for (int d = 1; d < n; d++) {
            tern_am_arg_t a = (tern_am_arg_t)i;
            MP_OK(tern_am_request_short((me + d) % n, 9, &a, 1, 0));
        }
    MP_OK(tern_finalize());
    long got = atomic_load(&handled), want = k * (n - 1);
    if (got != want) {
        fprintf(stderr,
                "rank %d: FAIL: %ld of the %ld Requests sent to it before "
                "tern_finalize were handled\n",
                me, got, want);
        return 1;
    }
    if (me == 0)
        printf("am_finalize: PASS on %d ranks (%ld Requests each)\n", n, want);
    return 0;
}
