/* A rank that has done its part of a collective may still hold messages
 * for a peer, queued for credit, when it enters a call that waits on the
 * launcher (tern_alloc_sym's exchange). That wait must drive progress:
 * otherwise the peer never receives them, never finishes the collective,
 * never joins the exchange, and the job hangs.
 * Phase 1: rank 0 sends each peer more Short AMs than it has credits (over
 * the network the last ones are packed, to go when a credit returns) and
 * enters a symmetric allocation at once; the peers wait for every message
 * before they join it.
 * Phase 2: each round a broadcast (sizes on both sides of the collectives'
 * eager, message and pipeline bounds) is followed at once by a symmetric
 * allocation; the broadcast's bytes are checked afterwards. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>
#include <tern/am.h>
#include <tern/team.h>

#include "mp_util.h"

enum { BYTES = 1 << 20, ROUNDS = 40 };
enum { H_COUNT = 9, NAMS = 200 };
static const size_t sizes[] = {8, 12 << 10, 16 << 10, 64 << 10, BYTES};
enum { NSIZES = sizeof(sizes) / sizeof(sizes[0]) };

static volatile int received;

static void on_count(tern_am_token_t token, void *buf, size_t len,
                     const tern_am_arg_t *args, int nargs)
{
    (void)token, (void)buf, (void)len, (void)nargs;
    MP_CHECK(args[0] == (tern_am_arg_t)received, "AM %d arrived as number %llu", received,
             (unsigned long long)args[0]);
    received++;
}

static void ams_then_alloc(int me, int n)
{
    MP_OK(tern_am_register(H_COUNT, on_count, "count"));
    MP_OK(tern_barrier());
    if (me == 0) {
        for (int r = 1; r < n; r++)
            for (int i = 0; i < NAMS; i++) {
                tern_am_arg_t a = (tern_am_arg_t)i;
                MP_OK(tern_am_request_short(r, H_COUNT, &a, 1, 0));
            }
    } else {
        while (received < NAMS)
            MP_OK(tern_poll());
    }
    void *extra = NULL;
    MP_OK(tern_alloc_sym(64, &extra));
    MP_OK(tern_free_sym(extra));
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    ams_then_alloc(me, n);
    unsigned char *src = NULL, *dest = NULL;
    MP_OK(tern_alloc_sym(BYTES, (void **)&src));
    MP_OK(tern_alloc_sym(BYTES, (void **)&dest));
    for (int round = 0; round < ROUNDS; round++) {
        int root = round % n;
        size_t bytes = sizes[round % NSIZES];
        for (size_t i = 0; i < bytes; i++)
            src[i] = mp_pattern(root, i, (unsigned)round);
        memset(dest, 0, bytes);
        MP_OK(tern_broadcast(TERN_TEAM_WORLD, dest, src, bytes, root));
        /* No barrier, no poll: straight into the launcher's exchange. */
        void *extra = NULL;
        MP_OK(tern_alloc_sym(64, &extra));
        for (size_t i = 0; i < bytes; i++)
            MP_CHECK(dest[i] == mp_pattern(root, i, (unsigned)round),
                     "round %d (root %d): byte %zu is %u, expected %u", round, root, i,
                     dest[i], mp_pattern(root, i, (unsigned)round));
        MP_OK(tern_free_sym(extra));
    }
    MP_OK(tern_free_sym(dest));
    MP_OK(tern_free_sym(src));
    return mp_finish("launcher_wait");
}
