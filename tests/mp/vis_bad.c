/* Bad input to the non-contiguous calls: each gives its status and a
 * message naming the bad argument, and nothing moves (a piece outside the
 * segment is found before any byte is sent, even after good pieces). */
#include <string.h>

#include "mp_util.h"

#define EXPECT MP_EXPECT

int main(int argc, char **argv)
{
    char buf[256];
    size_t cnt1[] = {4};
    ptrdiff_t st8[] = {8};
    EXPECT(tern_put_strided(0, buf, st8, buf, st8, 8, cnt1, 1, 0), TERN_ERR_NOT_INIT,
           "tern_put_strided");

    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size(), peer = (me + 1) % n;
    char *zone, *base;
    size_t size;
    MP_OK(tern_alloc_sym(4096, (void **)&zone));
    MP_OK(tern_segment_query(peer, (void **)&base, &size));
    char *rz = tern_sym_addr(peer, zone);
    memset(zone, 0x5a, 4096);
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (char)i;
    MP_OK(tern_barrier());

    /* bad rank, flags, context */
    EXPECT(tern_put_strided(n, rz, st8, buf, st8, 8, cnt1, 1, 0), TERN_ERR_RANK, "rank");
    EXPECT(tern_get_strided(buf, st8, -1, rz, st8, 8, cnt1, 1, 0), TERN_ERR_RANK,
           "rank -1");
    tern_memvec_t v1 = {rz, 8}, l1 = {buf, 8};
    EXPECT(tern_put_vector(n + 3, 1, &v1, 1, &l1, 0), TERN_ERR_RANK, "tern_put_vector");
    EXPECT(tern_put_strided(peer, rz, st8, buf, st8, 8, cnt1, 1, 0x100), TERN_ERR_INVALID,
           "flags 0x100");
    tern_ctx_t dead;
    MP_OK(tern_ctx_create(0, &dead));
    MP_OK(tern_ctx_destroy(dead));
    EXPECT(tern_ctx_put_vector_nbi(dead, peer, 1, &v1, 1, &l1, 0), TERN_ERR_INVALID,
           "was destroyed");

    /* strided: too many levels, NULL arrays, negative counts, extents */
    size_t c33[33];
    ptrdiff_t s33[33];
    for (int k = 0; k < 33; k++) {
        c33[k] = 1;
        s33[k] = 8;
    }
    EXPECT(tern_put_strided(peer, rz, s33, buf, s33, 8, c33, 33, 0), TERN_ERR_INVALID,
           "stridelevels 33: at most TERN_VIS_MAX_DIMS (32)");
    EXPECT(tern_put_strided(peer, rz, NULL, buf, st8, 8, cnt1, 1, 0), TERN_ERR_INVALID,
           "dststrides is NULL");
    EXPECT(tern_get_strided(buf, st8, peer, rz, NULL, 8, cnt1, 1, 0), TERN_ERR_INVALID,
           "srcstrides is NULL");
    EXPECT(tern_put_strided(peer, rz, st8, buf, st8, 8, NULL, 1, 0), TERN_ERR_INVALID,
           "count is NULL");
    size_t neg[] = {4, (size_t)-3};
    ptrdiff_t st2[] = {8, 32};
    EXPECT(tern_put_strided(peer, rz, st2, buf, st2, 8, neg, 2, 0), TERN_ERR_INVALID,
           "count[1] = ");
    EXPECT(tern_put_strided(peer, rz, st2, buf, st2, 8, neg, 2, 0), TERN_ERR_INVALID,
           "negative");
    EXPECT(tern_put_strided(peer, NULL, st8, buf, st8, 8, cnt1, 1, 0), TERN_ERR_INVALID,
           "dst is NULL");
    size_t huge[] = {(size_t)1 << 40, (size_t)1 << 40};
    EXPECT(tern_put_strided(peer, rz, st2, buf, st2, 8, huge, 2, 0), TERN_ERR_OVERFLOW,
           "more than SIZE_MAX");
    /* the last element lands past the segment's end: nothing moves */
    ptrdiff_t far[] = {(ptrdiff_t)size / 2};
    size_t c3[] = {3};
    EXPECT(tern_put_strided(peer, rz, far, buf, st8, 8, c3, 1, 0), TERN_ERR_RANGE,
           "the strided destination (dst and dststrides)");
    ptrdiff_t back[] = {-(ptrdiff_t)(size / 2)};
    EXPECT(tern_get_strided(buf, st8, peer, rz, back, 8, c3, 1, 0), TERN_ERR_RANGE,
           "the strided source (src and srcstrides)");
    EXPECT(tern_put_strided_nbi(peer, buf, st8, buf, st8, 8, cnt1, 1, 0), TERN_ERR_RANGE,
           "outside the segment of rank");

    /* vector: NULL lists, totals, a bad piece after good ones */
    EXPECT(tern_put_vector(peer, 2, NULL, 1, &l1, 0), TERN_ERR_INVALID,
           "dstlist is NULL with dstcount 2");
    EXPECT(tern_get_vector(1, &l1, peer, 3, NULL, 0), TERN_ERR_INVALID,
           "srclist is NULL with srccount 3");
    tern_memvec_t d3[3] = {{rz, 8}, {rz + 16, 8}, {rz + 32, 8}};
    tern_memvec_t s2[2] = {{buf, 16}, {buf + 100, 7}};
    EXPECT(tern_put_vector(peer, 3, d3, 2, s2, 0), TERN_ERR_INVALID,
           "the totals differ: dstlist holds 24 bytes, srclist 23");
    tern_memvec_t snull[2] = {{buf, 16}, {NULL, 8}};
    EXPECT(tern_put_vector(peer, 3, d3, 2, snull, 0), TERN_ERR_INVALID,
           "srclist[1] is NULL");
    d3[2].addr = base + size - 4;
    s2[1].len = 8;
    EXPECT(tern_put_vector(peer, 3, d3, 2, s2, 0), TERN_ERR_RANGE, "dstlist[2]");
    EXPECT(tern_put_vector_nb(peer, 3, d3, 2, s2, NULL, NULL, 0), TERN_ERR_RANGE,
           "outside the segment of rank");
    tern_memvec_t gs[2] = {{rz, 8}, {base - 64, 8}};
    tern_memvec_t gd[1] = {{buf, 16}};
    EXPECT(tern_get_vector(1, gd, peer, 2, gs, 0), TERN_ERR_RANGE, "srclist[1]");

    /* vectors whose pieces pair up with one length (checked in one pass
     * on a mapped peer): a piece that straddles the end of the segment,
     * one below it, a NULL local piece; each named */
    tern_memvec_t p3[3] = {{rz, 8}, {rz + 16, 8}, {base + size - 4, 8}};
    tern_memvec_t l3[3] = {{buf, 8}, {buf + 8, 8}, {buf + 16, 8}};
    EXPECT(tern_put_vector(peer, 3, p3, 3, l3, 0), TERN_ERR_RANGE, "dstlist[2]");
    EXPECT(tern_get_vector(3, l3, peer, 3, p3, 0), TERN_ERR_RANGE, "srclist[2]");
    p3[2].addr = base + size - 8;
    p3[0].addr = base - 8;
    EXPECT(tern_put_vector_nbi(peer, 3, p3, 3, l3, 0), TERN_ERR_RANGE, "dstlist[0]");
    p3[0].addr = rz;
    l3[1].addr = NULL;
    EXPECT(tern_put_vector(peer, 3, p3, 3, l3, 0), TERN_ERR_INVALID,
           "srclist[1] is NULL");
    EXPECT(tern_get_vector(3, l3, peer, 3, p3, 0), TERN_ERR_INVALID,
           "dstlist[1] is NULL");

    /* indexed: NULL lists, totals, a bad address */
    void *da[4] = {rz, rz + 64, rz + 128, base + size};
    const void *sa[2] = {buf, buf + 64};
    EXPECT(tern_put_indexed(peer, 4, NULL, 8, 2, sa, 16, 0), TERN_ERR_INVALID,
           "dstlist is NULL with dstcount 4");
    EXPECT(tern_put_indexed(peer, 4, da, 8, 2, sa, 8, 0), TERN_ERR_INVALID,
           "the totals differ: dstlist holds 32 bytes, srclist 16");
    EXPECT(tern_put_indexed(peer, 4, da, 8, 2, sa, 16, 0), TERN_ERR_RANGE, "dstlist[3]");

    /* none of the refused calls moved a byte */
    MP_OK(tern_barrier());
    for (int i = 0; i < 4096; i++)
        MP_CHECK((unsigned char)zone[i] == 0x5a, "byte %d of the zone was written", i);
    /* every rank has checked its zone before any writes into it again */
    MP_OK(tern_barrier());

    /* the job goes on: a good call after all that */
    size_t c4[] = {4};
    MP_OK(tern_put_strided(peer, rz, st8, buf, st8, 8, c4, 1, 0));
    MP_OK(tern_barrier());
    MP_CHECK(memcmp(zone, buf, 32) == 0, "the good put after the bad ones");
    return mp_finish("vis_bad");
}
