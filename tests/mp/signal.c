/* Put with signal (blocking and nbi, set and add), the vector waits, and
 * ordering of atomics by fence; bad input. In shm, net and mixed. */
#include <string.h>

#include "mp_util.h"

#define LEN   (64 * 1024 + 3)
#define ITERS 20
#define MAXR  64

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size(), right = (me + 1) % n, left = (me + n - 1) % n;
    MP_CHECK(n <= MAXR, "at most %d ranks", MAXR);
    unsigned char *buf;
    uint64_t *sig; /* [0] ring signal, [1] add counter, [2] fence flag, [3] fence
                      counter, [8..8+MAXR) flags per rank */
    MP_OK(tern_alloc_sym(LEN + (size_t)n * 64, (void **)&buf));
    MP_OK(tern_alloc_sym((8 + MAXR) * sizeof(uint64_t), (void **)&sig));
    memset(sig, 0, (8 + MAXR) * sizeof(uint64_t));
    MP_OK(tern_barrier());
    static unsigned char src[LEN];

    /* A ring: the signal's value is the iteration; the data must be there
     * when it is seen. Blocking and nbi alternate. */
    for (int it = 1; it <= ITERS; it++) {
        for (size_t i = 0; i < LEN; i++)
            src[i] = mp_pattern(me, i, (unsigned)it);
        uint64_t *rs = tern_sym_addr(right, &sig[0]);
        unsigned char *rb = tern_sym_addr(right, buf);
        if (it & 1)
            MP_OK(tern_put_signal(right, rb, src, LEN, rs, (uint64_t)it, TERN_SIGNAL_SET,
                                  0));
        else
            MP_OK(tern_put_signal_nbi(right, rb, src, LEN, rs, (uint64_t)it,
                                      TERN_SIGNAL_SET, 0));
        MP_OK(tern_wait_until_u64(&sig[0], TERN_CMP_EQ, (uint64_t)it));
        for (size_t i = 0; i < LEN; i += 97)
            MP_CHECK(buf[i] == mp_pattern(left, i, (unsigned)it), "iteration %d byte %zu",
                     it, i);
        MP_OK(tern_quiet());
        MP_OK(tern_barrier()); /* the left neighbour may overwrite buf now */
    }

    /* Every rank adds 1 to rank 0's counter with its piece, and sets its
     * flag: rank 0 sees all pieces once the counter reaches n. */
    memset(src, me + 1, 64);
    MP_OK(tern_put_signal_nbi(0, tern_sym_addr(0, buf + LEN + (size_t)me * 64), src, 64,
                              tern_sym_addr(0, &sig[1]), 1, TERN_SIGNAL_ADD, 0));
    MP_OK(tern_put_signal(0, tern_sym_addr(0, buf + LEN + (size_t)me * 64), src, 64,
                          tern_sym_addr(0, &sig[8 + me]), 1, TERN_SIGNAL_SET, 0));
    MP_OK(tern_quiet());
    if (me == 0) {
        MP_OK(tern_wait_until_u64(&sig[1], TERN_CMP_EQ, (uint64_t)n));
        MP_OK(tern_wait_until_all_u64(&sig[8], (size_t)n, NULL, TERN_CMP_EQ, 1));
        for (int r = 0; r < n; r++)
            MP_CHECK(buf[LEN + (size_t)r * 64 + 63] == r + 1, "piece of rank %d", r);
        size_t idx = 99, some[MAXR], cnt = 0;
        MP_OK(tern_wait_until_any_u64(&sig[8], (size_t)n, NULL, TERN_CMP_EQ, 1, &idx));
        MP_CHECK(idx == 0, "any: index %zu", idx);
        int skip[MAXR] = {1};
        MP_OK(tern_wait_until_some_u64(&sig[8], (size_t)n, n > 1 ? skip : NULL,
                                       TERN_CMP_EQ, 1, some, &cnt));
        MP_CHECK(cnt == (size_t)(n > 1 ? n - 1 : 1), "some: %zu words", cnt);
        MP_CHECK(tern_wait_until_any_u64(&sig[8], 1, skip, TERN_CMP_EQ, 1, &idx) ==
                     TERN_ERR_INVALID,
                 "any with every word skipped");
        MP_CHECK(tern_wait_until_all_u64(&sig[8], 1, NULL, 17, 1) == TERN_ERR_INVALID,
                 "bad comparison");
    }
    MP_OK(tern_barrier());

    /* Fence orders atomics before a later put: M nbi adds to the partner
     * (me ^ 1: on the same node in mixed, where the adds go through the
     * network and the flag is a store), fence, then the flag; the partner
     * sees all M. Without the fence this fails there. */
    enum { M = 1000 };
    tern_ad_t ad;
    MP_OK(tern_ad_create(TERN_AT_U64, TERN_OP_ADD | TERN_OP_GET, 0, &ad));
    int partner = (me ^ 1) < n ? me ^ 1 : me;
    uint64_t *rc = tern_sym_addr(partner, &sig[3]);
    for (int i = 0; i < M; i++)
        MP_OK(tern_ad_op_nbi_u64(ad, partner, rc, TERN_OP_ADD, 1, 0, NULL, 0));
    if (!getenv("TEST_NO_FENCE")) /* set: shows that this check fails */
        MP_OK(tern_fence());
    uint64_t one = 1;
    MP_OK(tern_put_nbi(partner, tern_sym_addr(partner, &sig[2]), &one, 8, 0));
    MP_OK(tern_wait_until_u64(&sig[2], TERN_CMP_EQ, 1));
    /* A load, not a get through the domain: a get would run after the adds
     * already queued to this rank and hide a missing fence. */
    uint64_t got = __atomic_load_n(&sig[3], __ATOMIC_ACQUIRE);
    MP_CHECK(got == M, "after the fence %llu of %d adds", (unsigned long long)got, M);
    MP_OK(tern_quiet());
    MP_OK(tern_barrier());
    MP_OK(tern_ad_destroy(ad));

    /* Bad input. */
    uint64_t *rs = tern_sym_addr(right, &sig[0]);
    MP_CHECK(tern_put_signal(right, buf, src, 8, (uint64_t *)((char *)rs + 4), 1,
                             TERN_SIGNAL_SET, 0) == TERN_ERR_INVALID,
             "misaligned signal accepted");
    MP_CHECK(tern_put_signal(right, tern_sym_addr(right, buf), src, 8, &one, 1,
                             TERN_SIGNAL_SET, 0) == TERN_ERR_RANGE,
             "signal outside the segment accepted");
    MP_CHECK(tern_put_signal(right, tern_sym_addr(right, buf), src, 8, rs, 1, 7, 0) ==
                 TERN_ERR_INVALID,
             "signal op 7 accepted");
    /* A NULL source with bytes to copy: the inline path on shared memory
     * copied from address 0 (SIGSEGV); blocking and nbi, every peer kind.
     * With 0 bytes it is a signal alone (below, the word stays). */
    MP_EXPECT(tern_put_signal(right, tern_sym_addr(right, buf), NULL, 8, rs, 1,
                              TERN_SIGNAL_SET, 0),
              TERN_ERR_INVALID, "src is NULL with 8 bytes");
    MP_EXPECT(tern_put_signal_nbi(right, tern_sym_addr(right, buf), NULL, 64, rs, 1,
                                  TERN_SIGNAL_ADD, 0),
              TERN_ERR_INVALID, "src is NULL with 64 bytes");
    MP_CHECK(tern_put_signal(n, buf, src, 8, rs, 1, TERN_SIGNAL_SET, 0) == TERN_ERR_RANK,
             "rank %d accepted", n);
    /* Signal words at and just past the edges of right's segment, NULL
     * and the top of the address space: refused with a message naming
     * the segment, blocking and nbi, with data and alone (each path of
     * every configuration: the inline and library paths of a job on one
     * node, the domain's and the message's across nodes); the last word
     * of the segment is accepted. */
    void *rbase;
    size_t rsize;
    MP_OK(tern_segment_query(right, &rbase, &rsize));
    char *re = (char *)rbase + rsize;
    uint64_t *bad[] = {NULL, (uint64_t *)re, (uint64_t *)((char *)rbase - 8),
                       (uint64_t *)(re + 4096),
                       (uint64_t *)(UINTPTR_MAX & ~(uintptr_t)7)};
    unsigned char *rb = tern_sym_addr(right, buf);
    for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++)
        for (size_t len = 0; len <= 8; len += 8) {
            MP_EXPECT(tern_put_signal(right, rb, src, len, bad[b], 1, TERN_SIGNAL_ADD, 0),
                      TERN_ERR_RANGE, "outside the segment of rank");
            MP_EXPECT(
                tern_put_signal_nbi(right, rb, src, len, bad[b], 1, TERN_SIGNAL_SET, 0),
                TERN_ERR_RANGE, "outside the segment of rank");
        }
    MP_OK(tern_barrier()); /* the last words: nobody reads them but here */
    uint64_t *last = (uint64_t *)(re - 8);
    MP_OK(tern_put_signal(right, rb, src, 8, last, 5, TERN_SIGNAL_SET, 0));
    MP_OK(tern_put_signal_nbi(right, rb, src, 0, last, 2, TERN_SIGNAL_ADD, 0));
    MP_OK(tern_quiet());
    MP_OK(tern_barrier());
    void *mybase;
    size_t mysize;
    MP_OK(tern_segment_query(me, &mybase, &mysize));
    uint64_t got_last =
        __atomic_load_n((uint64_t *)((char *)mybase + mysize - 8), __ATOMIC_ACQUIRE);
    MP_CHECK(got_last == 7, "the segment's last word: %llu, expected 7",
             (unsigned long long)got_last);
    MP_CHECK(sig[0] == ITERS, "a refused signal changed the word");
    return mp_finish("signal");
}
