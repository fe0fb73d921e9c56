/* The network transport's posted receive buffers follow the traffic
 * (src/xport/ofi/ofi_msg.c): 16 posted while messages come a few at a
 * time, doubled when a burst fills half of them, halved after many small
 * bursts. Rank 0 receives bursts from every other rank (it sleeps while
 * they send, so their messages pile up), then answers a long ping-pong
 * from the last rank, one message at a time. tests/mp/am_rxbuf.sh runs it
 * with TERN_STATS=1 and checks that rank 0's set doubled and halved. */
#include <unistd.h>

#include "mp_util.h"

enum { H_MSG = 7, H_PING = 8, H_PONG = 9 };
enum { BURSTS = 4, PER_BURST = 48, PINGS = 6000 };

static volatile long got, pongs;

static void on_msg(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                   int na)
{
    (void)t, (void)buf, (void)len, (void)a, (void)na;
    got++;
}

static void on_ping(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                    int na)
{
    (void)buf, (void)len, (void)na;
    MP_OK(tern_am_reply_short(t, H_PONG, a, 1, 0));
}

static void on_pong(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                    int na)
{
    (void)t, (void)buf, (void)len, (void)a, (void)na;
    pongs++;
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    MP_CHECK(n >= 2, "needs at least 2 ranks");
    MP_OK(tern_am_register(H_MSG, on_msg, "burst"));
    MP_OK(tern_am_register(H_PING, on_ping, "ping"));
    MP_OK(tern_am_register(H_PONG, on_pong, "pong"));
    static char payload[1024];
    tern_am_arg_t a = 1;
    /* Bursts: the senders' messages wait while rank 0 sleeps; its first
     * polls after the sleep find many at once. */
    for (int b = 0; b < BURSTS; b++) {
        MP_OK(tern_barrier());
        if (me == 0) {
            usleep(100000);
            long want = (long)(b + 1) * PER_BURST * (n - 1);
            while (got < want)
                MP_OK(tern_poll());
        } else {
            for (int i = 0; i < PER_BURST; i++)
                MP_OK(
                    tern_am_request_medium(0, H_MSG, payload, sizeof payload, &a, 1, 0));
        }
    }
    MP_OK(tern_barrier());
    /* Quiet: one message at a time, for long enough that the set halves. */
    if (me == n - 1) {
        for (long i = 0; i < PINGS; i++) {
            MP_OK(tern_am_request_short(0, H_PING, &a, 1, 0));
            while (pongs <= i)
                MP_OK(tern_poll());
        }
    }
    MP_OK(tern_barrier());
    return mp_finish("am_rxbuf");
}
