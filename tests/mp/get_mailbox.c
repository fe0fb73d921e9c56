/* Small blocking gets by the mailbox (TERN_GET_MAILBOX, core/atomic_mbox.c)
 * from every rank and (argument T) T threads of each; with more threads
 * than the mailbox has slots (4) some gets go by RMA read meanwhile. Each
 * thread owns an area of 128 bytes in the segment and one in the static
 * region (a global) of its right neighbour, and in each round, for each:
 *   - puts new bytes into it (nbi) and at once gets 8 of them with no
 *     quiet between: the get must see the put;
 *   - gets every size from 1 to 105 bytes (105: above the largest the
 *     mailbox takes, by read) at a changing offset, checked byte for byte
 *     against what it put, and that nothing past the size was written (a
 *     reply of an earlier get, round or thread would not match: the bytes
 *     and offsets change every time).
 * At the end each rank checks the areas its left neighbour wrote here and
 * gets its own last bytes back once more. tests/mp/mailbox_stats.sh checks
 * with TERN_STATS that the mailbox carried gets and served each. */
#include <stdint.h>
#include <stdlib.h>

#include "mp_util.h"

enum { ROUNDS = 30, AREA = 128, MAXT = 8, MAXN = 105 };

static int nthreads = 1, me, n, right;
static unsigned char *zone;             /* symmetric: [n ranks][MAXT threads][AREA] */
static unsigned char gzone[MAXT][AREA]; /* the static region, per thread */

static unsigned char val(int rank, int t, int round, size_t i, int where)
{
    return mp_pattern(rank, i, (unsigned)(round * 64 + t * 2 + where));
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char src[AREA], got[AREA + 8];
    unsigned char *areas[2] = {
        tern_sym_addr(right, zone + ((size_t)me * MAXT + t) * AREA),
        tern_sym_addr(right, gzone[t])};
    for (int round = 0; round < ROUNDS; round++) {
        for (int where = 0; where < 2; where++) {
            unsigned char *ra = areas[where];
            for (size_t i = 0; i < AREA; i++)
                src[i] = val(me, t, round, i, where);
            MP_OK(tern_put_nbi(right, ra, src, AREA, 0));
            /* Same address, no quiet: the get sees the put. */
            MP_OK(tern_get(got, right, ra + 3, 8, 0));
            MP_CHECK(memcmp(got, src + 3, 8) == 0,
                     "thread %d round %d: a get right after an nbi put to the same %s "
                     "bytes of rank %d saw old bytes",
                     t, round, where ? "static" : "segment", right);
            for (size_t len = 1; len <= MAXN; len++) {
                size_t off = (len * 7 + (size_t)round) % (AREA - len + 1);
                memset(got, 0xee, sizeof(got));
                MP_OK(tern_get(got, right, ra + off, len, 0));
                for (size_t i = 0; i < len; i++)
                    MP_CHECK(
                        got[i] == src[off + i],
                        "thread %d round %d: %zu-byte get at offset %zu of rank %d's "
                        "%s area: byte %zu is 0x%02x, expected 0x%02x",
                        t, round, len, off, right, where ? "static" : "segment", i,
                        got[i], src[off + i]);
                MP_CHECK(got[len] == 0xee, "thread %d: a %zu-byte get wrote byte %zu", t,
                         len, len);
            }
        }
        MP_OK(tern_quiet());
    }
    return NULL;
}

int main(int argc, char **argv)
{
    me = mp_init(&argc, &argv, TERN_THREAD_MULTIPLE);
    n = tern_size();
    right = (me + 1) % n;
    int left = (me + n - 1) % n;
    if (argc > 1)
        nthreads = atoi(argv[1]);
    MP_CHECK(nthreads >= 1 && nthreads <= MAXT, "threads: 1 to %d", MAXT);
    MP_OK(tern_alloc_sym((size_t)n * MAXT * AREA, (void **)&zone));
    memset(zone, 0, (size_t)n * MAXT * AREA);
    MP_OK(tern_barrier());
    mp_run_threads(nthreads, worker);
    MP_OK(tern_barrier());
    /* What the left neighbour's threads left here, got back from here
     * (self: no network) and from the left neighbour, who reads this rank
     * (its right) by the mailbox: both must hold the last round's bytes. */
    for (int t = 0; t < nthreads; t++) {
        unsigned char got[AREA];
        const unsigned char *mine = zone + ((size_t)left * MAXT + t) * AREA;
        for (size_t i = 0; i < AREA; i++)
            MP_CHECK(mine[i] == val(left, t, ROUNDS - 1, i, 0) &&
                         gzone[t][i] == val(left, t, ROUNDS - 1, i, 1),
                     "byte %zu of thread %d's areas from rank %d", i, t, left);
        MP_OK(tern_get(got, right,
                       tern_sym_addr(right, zone + ((size_t)me * MAXT + t) * AREA), 64,
                       0));
        for (size_t i = 0; i < 64; i++)
            MP_CHECK(got[i] == val(me, t, ROUNDS - 1, i, 0),
                     "final get of byte %zu of thread %d's area at rank %d", i, t, right);
    }
    MP_OK(tern_barrier());
    return mp_finish("get_mailbox");
}
