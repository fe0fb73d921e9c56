/* Allreduce around the collectives' record sizes (core/coll_eager.c): 8 to
 * 112 B as stamped records, 113 B to TERN_COLL_WIDE_MAX (2K) as wide
 * records (one write with local completion only, polled by the receiver)
 * in a team whose members are each on their own node, above by message;
 * on one node the node paths. Back to back without a barrier: sizes
 * changing call after call (records of another length at the same ring
 * bytes one ring later), byte sums (lengths not a multiple of 8: the last
 * word's padding) and int64 sums, in place every other time, a member late
 * now and then while its partners already write into its ring. Run also
 * with TERN_COLL_WIDE_MAX=1K and 0, team sequence numbers crossing 2^31
 * (TERN_TEST_FAULT=collseq) and injected write failures (coll_wide.sh).
 * Each allreduce is followed by an fcollect and an all-to-all of blocks
 * of the same size (wide records too, 113 B to TERN_COLL_WIDE_MAX; n - 1
 * in flight from each member), every byte checked; with "x" as argument
 * the exchanges come first (coll_wide.sh: the failing write is then an
 * fcollect's). Prints "coll_wide: rank R: N calls" for the scripts. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mp_util.h"

#define CALLS 500

/* Byte i of the block that member from gives member to in call it (to -1:
 * an fcollect's block, the same for every receiver). */
static unsigned char xbyte(int from, int to, int it, size_t i)
{
    return (unsigned char)(from * 59 + (to + 1) * 11 + it * 7 + i * 3 + (i >> 8));
}

/* An fcollect and an all-to-all of nb bytes per block, every byte of
 * dest checked (the bytes past the n blocks too: left alone). */
static void exchanges(int me, int n, int it, size_t nb, unsigned char *xs,
                      unsigned char *xd)
{
    size_t all = (size_t)n * nb;
    for (size_t i = 0; i < nb; i++)
        xs[i] = xbyte(me, -1, it, i);
    memset(xd, 0xa5, all + 64);
    MP_OK(tern_fcollect(TERN_TEAM_WORLD, xd, xs, nb));
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < nb; i++)
            MP_CHECK(xd[(size_t)r * nb + i] == xbyte(r, -1, it, i),
                     "call %d, fcollect of %zu B: member %d byte %zu = %u, expected %u",
                     it, nb, r, i, xd[(size_t)r * nb + i], xbyte(r, -1, it, i));
    for (size_t i = 0; i < 64; i++)
        MP_CHECK(xd[all + i] == 0xa5,
                 "call %d, fcollect of %zu B: byte %zu past the end "
                 "written",
                 it, nb, all + i);
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < nb; i++)
            xs[(size_t)r * nb + i] = xbyte(me, r, it, i);
    memset(xd, 0x5a, all + 64);
    MP_OK(tern_alltoall(TERN_TEAM_WORLD, xd, xs, nb));
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < nb; i++)
            MP_CHECK(xd[(size_t)r * nb + i] == xbyte(r, me, it, i),
                     "call %d, alltoall of %zu B: block from member %d byte %zu = %u, "
                     "expected %u",
                     it, nb, r, i, xd[(size_t)r * nb + i], xbyte(r, me, it, i));
    for (size_t i = 0; i < 64; i++)
        MP_CHECK(xd[all + i] == 0x5a,
                 "call %d, alltoall of %zu B: byte %zu past the end "
                 "written",
                 it, nb, all + i);
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    static const size_t sz[] = {512,  8,    113, 1024, 1025, 120, 1000, 2048, 112,
                                2049, 1023, 520, 4,    768,  129, 2040, 1,    600};
    const int nsz = (int)(sizeof(sz) / sizeof(sz[0]));
    unsigned char *src, *dst, *xs, *xd;
    int xfirst = argc > 1 && argv[1][0] == 'x';
    MP_OK(tern_alloc_sym(16384, (void **)&src));
    MP_OK(tern_alloc_sym(16384, (void **)&dst));
    if (argc > 1 && argv[1][0] == 'r') {
        /* First a 12 KiB allreduce: above one Medium message its regions
         * go to a member across nodes as one write that raises its flag
         * (coll_eager.c, region_send), the job's first network write with
         * a completion (coll_wide.sh: its failure must end the job). */
        int64_t *x = (int64_t *)src, *y = (int64_t *)dst;
        for (size_t i = 0; i < 1536; i++)
            x[i] = (int64_t)i + me;
        MP_OK(tern_allreduce(TERN_TEAM_WORLD, y, x, 1536, TERN_TYPE_INT64, TERN_RED_SUM));
        for (size_t i = 0; i < 1536; i++)
            MP_CHECK(y[i] == (int64_t)i * n + (int64_t)n * (n - 1) / 2,
                     "12 KiB allreduce: [%zu] = %lld", i, (long long)y[i]);
    }
    MP_OK(tern_alloc_sym(4096 * (size_t)n, (void **)&xs));
    MP_OK(tern_alloc_sym(4096 * (size_t)n, (void **)&xd));
    for (int it = 0; it < CALLS; it++) {
        size_t nb = sz[it % nsz];
        if (xfirst)
            exchanges(me, n, it, nb, xs, xd);
        int inplace = (it / nsz) % 2;
        unsigned char *out = inplace ? src : dst;
        if (me == (it / 60) % n && it % 60 == 23)
            usleep(2000);
        if (nb % 8 == 0) {
            int64_t *x = (int64_t *)src, *y = (int64_t *)out;
            size_t count = nb / 8;
            for (size_t i = 0; i < count; i++)
                x[i] = (int64_t)(me + 1) * (it + 1) - (int64_t)i * me;
            MP_OK(tern_allreduce(TERN_TEAM_WORLD, y, x, count, TERN_TYPE_INT64,
                                 TERN_RED_SUM));
            for (size_t i = 0; i < count; i++) {
                int64_t want = (int64_t)n * (n + 1) / 2 * (it + 1) -
                               (int64_t)i * ((int64_t)n * (n - 1) / 2);
                MP_CHECK(y[i] == want,
                         "call %d, int64 allreduce of %zu B%s: [%zu] = %lld, "
                         "expected %lld",
                         it, nb, inplace ? " in place" : "", i, (long long)y[i],
                         (long long)want);
            }
        } else {
            for (size_t i = 0; i < nb; i++)
                src[i] = (unsigned char)(me * 37 + it + i);
            MP_OK(tern_allreduce(TERN_TEAM_WORLD, out, src, nb, TERN_TYPE_UINT8,
                                 TERN_RED_SUM));
            for (size_t i = 0; i < nb; i++) {
                unsigned want = 0;
                for (int r = 0; r < n; r++)
                    want += (unsigned char)(r * 37 + it + i);
                MP_CHECK(out[i] == (unsigned char)want,
                         "call %d, byte allreduce of %zu B%s: [%zu] = %u, expected %u",
                         it, nb, inplace ? " in place" : "", i, out[i], want & 255u);
            }
        }
        if (!xfirst)
            exchanges(me, n, it, nb, xs, xd);
    }
    printf("coll_wide: rank %d: %d calls\n", me, CALLS);
    return mp_finish("coll_wide");
}
