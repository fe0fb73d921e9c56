/* The network transport's credit window of a stream (src/xport/ofi/ofi_msg.c,
 * "the credit window of a stream"): every other rank sends rank 0 a long
 * one-way stream of 1 KiB Mediums, numbered; rank 0 answers nothing, so
 * its credits go back on credit-only messages, each of which also grows
 * the sender's window. Rank 0 checks that every message arrived once and
 * in order per sender. tests/mp/am_window.sh runs it with TERN_STATS=1 and
 * checks rank 0's table: windows grew, and by no more credits than its
 * receive buffers (TERN_AM_NET_RECV) however many senders stream. */
#include <stdlib.h>

#include "mp_util.h"

enum { H_MSG = 7 };
enum { STREAM = 3000 };

static long got, next[256], bad;

static void on_msg(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                   int na)
{
    int src = -1;
    tern_am_source(t, &src);
    (void)buf;
    if (na != 1 || len != 1024 || src < 1 || src >= 256 || a[0] != (uint64_t)next[src])
        bad++;
    else
        next[src]++;
    got++;
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    /* MP_STREAM: messages per sender (default STREAM) */
    const char *ns = getenv("MP_STREAM");
    long stream = ns && *ns ? atol(ns) : STREAM;
    int n = tern_size();
    MP_CHECK(n >= 2 && n <= 256, "needs 2 to 256 ranks");
    MP_OK(tern_am_register(H_MSG, on_msg, "stream"));
    MP_OK(tern_barrier());
    if (me == 0) {
        while (got < stream * (n - 1))
            MP_OK(tern_poll());
        MP_CHECK(bad == 0, "%ld of %ld stream messages out of order or malformed", bad,
                 got);
    } else {
        static char payload[1024];
        for (long i = 0; i < stream; i++) {
            tern_am_arg_t a = (tern_am_arg_t)i;
            MP_OK(tern_am_request_medium(0, H_MSG, payload, sizeof payload, &a, 1, 0));
        }
    }
    MP_OK(tern_barrier());
    return mp_finish("am_window");
}
