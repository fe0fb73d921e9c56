/* Many more operations in flight than the transport allows at once
 * (run with a small TERN_OFI_TX_DEPTH): nothing is lost, and with
 * TERN_FLAG_IMMEDIATE the call says TERN_ERR_AGAIN instead of stalling. */
#include <string.h>
#include <unistd.h>

#include "mp_util.h"

#define COUNT 4000
#define LEN   24
/* Above TERN_NBI_AGG_MAX's default (256): such puts go alone through the
 * transport's queue, where LEN-byte ones are combined into messages. */
#define BIG 512

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    int peer = (me + 1) % n, from = (me + n - 1) % n;
    char *zone;
    MP_OK(tern_alloc_sym((size_t)COUNT * LEN * 2, (void **)&zone));
    char *rzone = tern_sym_addr(peer, zone);
    static char src[COUNT][LEN];
    for (int i = 0; i < COUNT; i++)
        for (int k = 0; k < LEN; k++)
            src[i][k] = (char)mp_pattern(me, (size_t)(i * LEN + k), 1);
    /* Flood of nbi puts without IMMEDIATE: they must all wait their turn. */
    for (int i = 0; i < COUNT; i++)
        MP_OK(tern_put_nbi(peer, rzone + (size_t)i * LEN, src[i], LEN, 0));
    MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));
    /* The same with IMMEDIATE: retry on TERN_ERR_AGAIN, polling. */
    long again = 0;
    char *rzone2 = rzone + (size_t)COUNT * LEN;
    for (int i = 0; i < COUNT; i++) {
        int rc;
        while ((rc = tern_put_nbi(peer, rzone2 + (size_t)i * LEN, src[i], LEN,
                                  TERN_FLAG_IMMEDIATE)) == TERN_ERR_AGAIN) {
            again++;
            MP_OK(tern_poll());
        }
        MP_OK(rc);
    }
    MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));
    MP_OK(tern_barrier());
    for (int half = 0; half < 2; half++)
        for (int i = 0; i < COUNT; i++)
            for (int k = 0; k < LEN; k++)
                MP_CHECK(zone[(size_t)half * COUNT * LEN + (size_t)i * LEN + k] ==
                             (char)mp_pattern(from, (size_t)(i * LEN + k), 1),
                         "half %d put %d byte %d lost", half, i, k);
    /* Across nodes with a small queue, IMMEDIATE must push back. A refusal
     * polls once first, so while the peer makes progress the queue may
     * always drain in time; with the peer asleep outside Tern (nothing
     * acknowledges the writes) the queue stays full and the call must say
     * TERN_ERR_AGAIN within a few calls. The puts are BIG, so that each
     * takes a place in the queue (small ones would share a message). */
    const char *depth = getenv("TERN_OFI_TX_DEPTH");
    if (!mp_mapped(peer) && depth && atoi(depth) <= 16) {
        long refused = 0;
        if (me % 2 == 1) {
            usleep(300000); /* rank 0 floods meanwhile */
        } else if (me + 1 < n) {
            for (int i = 0; i < 64 && refused == 0; i++)
                refused = tern_put_nbi(peer, rzone + (size_t)i * BIG,
                                       &src[0][0] + (size_t)i * BIG, BIG,
                                       TERN_FLAG_IMMEDIATE) == TERN_ERR_AGAIN;
            MP_CHECK(refused,
                     "IMMEDIATE never returned TERN_ERR_AGAIN with a queue of %s "
                     "and a peer that makes no progress",
                     depth);
        }
        MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));
    }
    if (me == 0)
        printf("flood: %ld TERN_ERR_AGAIN answers\n", again);
    return mp_finish("flood");
}
