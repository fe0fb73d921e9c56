/* A receiver that dies while a sender is blocked on it: rank 1 registers,
 * then exits without warning; rank 0 sends Medium Requests to it until its
 * queue or credits are exhausted and it must wait. The launcher must end
 * the job naming rank 1 (the test passes on that message), and nothing
 * hangs (the test's timeout). */
#include <unistd.h>

#include "mp_util.h"

static void on_req(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                   int na)
{
    (void)t, (void)buf, (void)len, (void)a, (void)na;
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    MP_OK(tern_am_register(7, on_req, "request"));
    MP_OK(tern_barrier());
    if (me == 1)
        _exit(9); /* dies without a word, its queues full of nothing */
    char payload[1024] = {0};
    for (long i = 0; i < 100000000L; i++) /* blocks once rank 1's room is gone */
        if (me == 0)
            MP_OK(tern_am_request_medium(1, 7, payload, sizeof payload, NULL, 0, 0));
        else
            MP_OK(tern_poll());
    MP_CHECK(0, "rank %d was never stopped", me);
    return 1;
}
