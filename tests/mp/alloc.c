/* Segment allocation: tern_alloc/tern_free inside the own segment, and
 * symmetric allocation at the same offset everywhere. */
#include <string.h>

#include "mp_util.h"

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    void *base;
    size_t size;
    MP_OK(tern_segment_query(me, &base, &size));
    /* The largest block at the start: the segment less what tern_init took
     * for itself from the symmetric arena (the team pool, tern/team.h). */
    size_t largest = 0;
    for (size_t step = (size_t)1 << 40; step; step >>= 1) {
        void *t = tern_alloc(largest + step);
        if (t) {
            largest += step;
            MP_OK(tern_free(t));
        }
    }
    MP_CHECK(largest > size / 2 && largest <= size, "largest block %zu of %zu", largest,
             size);
    /* Local allocations lie in the segment, are 64-aligned, do not overlap. */
    enum { K = 64 };
    char *p[K];
    for (int i = 0; i < K; i++) {
        p[i] = tern_alloc((size_t)(i * 37 + 1));
        MP_CHECK(p[i], "tern_alloc %d failed", i);
        MP_CHECK((uintptr_t)p[i] % 64 == 0, "not aligned");
        MP_CHECK(p[i] >= (char *)base && p[i] + i * 37 + 1 <= (char *)base + size,
                 "outside the segment");
        memset(p[i], i, (size_t)(i * 37 + 1));
    }
    for (int i = 0; i < K; i++)
        for (int j = 0; j < i * 37 + 1; j++)
            MP_CHECK(p[i][j] == (char)i, "allocation %d overwritten", i);
    for (int i = 0; i < K; i += 2)
        MP_OK(tern_free(p[i]));
    for (int i = 1; i < K; i += 2)
        MP_OK(tern_free(p[i]));
    MP_CHECK(tern_free(p[0]) == TERN_ERR_INVALID, "double free not caught");
    MP_CHECK(tern_free((char *)base + 1) == TERN_ERR_INVALID, "bad free not caught");
    char *q = tern_alloc(256);
    MP_CHECK(q && tern_free(q + 64) == TERN_ERR_INVALID,
             "free inside a block not caught");
    MP_OK(tern_free(q));
    MP_CHECK(tern_alloc(0) == NULL, "tern_alloc(0)");
    MP_CHECK(tern_alloc(size + 1) == NULL, "larger than the segment");
    /* Everything freed coalesced: the largest block is allocatable again. */
    void *all = tern_alloc(largest);
    MP_CHECK(all == base, "free space did not coalesce");
    MP_OK(tern_free(all));

    /* Symmetric: same offset on every rank, usable by peers. */
    uint64_t *a, *b;
    MP_OK(tern_alloc_sym(1000, (void **)&a));
    MP_OK(tern_alloc_sym(24, (void **)&b));
    MP_CHECK(a != b, "distinct");
    for (int r = 0; r < n; r++) {
        void *rb;
        MP_OK(tern_segment_query(r, &rb, NULL));
        MP_CHECK((char *)tern_sym_addr(r, a) - (char *)rb == (char *)a - (char *)base,
                 "offset differs on rank %d", r);
    }
    uint64_t v = 1000 + (uint64_t)me;
    MP_OK(tern_put((me + 1) % n, tern_sym_addr((me + 1) % n, b), &v, 8, 0));
    MP_OK(tern_barrier());
    MP_CHECK(*b == 1000 + (uint64_t)((me + n - 1) % n), "symmetric put landed wrong");
    /* Different sizes on different ranks: a clear mismatch everywhere. */
    if (n > 1) {
        void *bad = NULL;
        int rc = tern_alloc_sym(me == 0 ? 64 : 128, &bad);
        MP_CHECK(rc == TERN_ERR_MISMATCH, "mismatched sizes gave %d", rc);
    }
    /* Too large for the segment: NOMEM on every rank. */
    void *big = NULL;
    MP_CHECK(tern_alloc_sym(size * 2, &big) == TERN_ERR_NOMEM, "oversize sym alloc");
    MP_OK(tern_free_sym(b));
    MP_OK(tern_free_sym(a));
    return mp_finish("alloc");
}
