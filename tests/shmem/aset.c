/* The deprecated active-set collectives on sets that are not every PE:
 * PE_start 1, stride 1, size n-1 (while PE 0, outside, puts into the
 * members' memory), and two disjoint sets at once (the even and the odd
 * PEs, stride 2^1, each with its own pSync); and on the set of every PE,
 * which calls Tern's collectives on the world team inline in shmem.h (the
 * library's function under SHMEM_DEBUG=1: test aset_debug). In each set: consecutive
 * barriers on one pSync, broadcast32/64, collect32 (a different count per
 * member), fcollect64, alltoall32/64, alltoalls64 (strides 2 and 3), and
 * reductions (int sum, long max, long long prod, short xor, double sum,
 * complex sum, dest == source), all checked exactly, and pSync back at
 * SHMEM_SYNC_VALUE after every call. */
#include <complex.h>
#include <stdint.h>

#include "shmem_test.h"

enum { M = 300 };

static int me, n;

typedef struct {
    int start, log, size, stride;
} aset_t;

static int member(const aset_t *s, int i)
{
    return s->start + i * s->stride;
}

/* pSync is back at SHMEM_SYNC_VALUE on return, but a member that has
 * returned may already start the next call on it: check where no member
 * can, between two barriers on another pSync (ps + SHMEM_SYNC_SIZE). */
static long psync_global[2 * SHMEM_SYNC_SIZE]; /* a symmetric global */

static void psync_clean(const aset_t *s, long *ps, const char *after)
{
    long *other = ps + SHMEM_SYNC_SIZE;
    shmem_barrier(s->start, s->log, s->size, other);
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        CHECK(ps[i] == SHMEM_SYNC_VALUE, "set (%d,%d,%d): pSync[%d] = %ld after %s",
              s->start, s->log, s->size, i, ps[i], after);
    shmem_barrier(s->start, s->log, s->size, other);
}

static uint32_t v32(int pe, int i, int salt)
{
    return (uint32_t)(pe * 1000003 + i * 7 + salt * 13);
}

static uint64_t v64(int pe, int i, int salt)
{
    return (uint64_t)pe << 40 | (uint64_t)(i * 11 + salt);
}

/* Everything runs on buffers of the symmetric heap, the same on every PE
 * (allocated by all PEs before). */
static struct bufs {
    uint32_t *s32, *d32;
    uint64_t *s64, *d64;
    int *ri;
    long *rl;
    long long *rll;
    short *rs;
    double *rd;
    double _Complex *rz;
    long *touched; /* written by PE 0 while outside the set */
} B;

static void run(const aset_t *s, long *ps)
{
    int idx = (me - s->start) / s->stride, k = s->size;
    char what[64];
    /* consecutive barriers on one pSync: each round, every member writes
     * the round number into its slot on every member */
    for (int r = 1; r <= 5; r++) {
        for (int i = 0; i < k; i++)
            shmem_long_p(&B.rl[idx], r, member(s, i));
        shmem_barrier(s->start, s->log, s->size, ps);
        for (int i = 0; i < k; i++)
            CHECK(B.rl[i] == r, "barrier round %d: slot %d = %ld", r, i, B.rl[i]);
        shmem_barrier(s->start, s->log, s->size, ps);
    }
    psync_clean(s, ps, "barriers");

    /* broadcast from set PE root (k-1): the root's dest untouched */
    int root = k - 1;
    for (int i = 0; i < M; i++) {
        B.s32[i] = v32(me, i, 1);
        B.d32[i] = 0xdeadbeef;
        B.s64[i] = v64(me, i, 1);
        B.d64[i] = 7;
    }
    shmem_barrier(s->start, s->log, s->size, ps);
    shmem_broadcast32(B.d32, B.s32, M, root, s->start, s->log, s->size, ps);
    psync_clean(s, ps, "broadcast32");
    shmem_broadcast64(B.d64, B.s64, M - 1, root, s->start, s->log, s->size, ps);
    psync_clean(s, ps, "broadcast64");
    for (int i = 0; i < M; i++) {
        uint32_t e32 = idx == root ? 0xdeadbeef : v32(member(s, root), i, 1);
        uint64_t e64 = idx == root || i == M - 1 ? 7 : v64(member(s, root), i, 1);
        CHECK(B.d32[i] == e32, "broadcast32 [%d] = %x, expected %x", i, B.d32[i], e32);
        CHECK(B.d64[i] == e64, "broadcast64 [%d]", i);
    }

    /* collect32: member i gives i + 1 elements */
    shmem_barrier(s->start, s->log, s->size, ps);
    shmem_collect32(B.d32, B.s32, (size_t)idx + 1, s->start, s->log, s->size, ps);
    psync_clean(s, ps, "collect32");
    for (int i = 0, o = 0; i < k; i++)
        for (int j = 0; j <= i; j++, o++)
            CHECK(B.d32[o] == v32(member(s, i), j, 1), "collect32 block %d [%d]", i, j);
    /* fcollect64: 20 each */
    shmem_barrier(s->start, s->log, s->size, ps);
    shmem_fcollect64(B.d64, B.s64, 20, s->start, s->log, s->size, ps);
    psync_clean(s, ps, "fcollect64");
    for (int i = 0; i < k; i++)
        for (int j = 0; j < 20; j++)
            CHECK(B.d64[i * 20 + j] == v64(member(s, i), j, 1), "fcollect64 %d [%d]", i,
                  j);

    /* alltoall: block i of my source goes to member i's block idx */
    int per = M / 4;
    for (int i = 0; i < M; i++) {
        B.s32[i] = v32(me, i, 2);
        B.s64[i] = v64(me, i, 2);
    }
    shmem_barrier(s->start, s->log, s->size, ps);
    shmem_alltoall32(B.d32, B.s32, (size_t)per, s->start, s->log, s->size, ps);
    psync_clean(s, ps, "alltoall32");
    shmem_alltoall64(B.d64, B.s64, (size_t)per, s->start, s->log, s->size, ps);
    psync_clean(s, ps, "alltoall64");
    for (int i = 0; i < k; i++)
        for (int j = 0; j < per; j++) {
            CHECK(B.d32[i * per + j] == v32(member(s, i), idx * per + j, 2),
                  "alltoall32 from %d [%d]", i, j);
            CHECK(B.d64[i * per + j] == v64(member(s, i), idx * per + j, 2),
                  "alltoall64 from %d [%d]", i, j);
        }
    /* alltoalls64: dst 2, sst 3, 10 per member */
    for (int i = 0; i < M; i++)
        B.d64[i] = 5;
    shmem_barrier(s->start, s->log, s->size, ps);
    shmem_alltoalls64(B.d64, B.s64, 2, 3, 10, s->start, s->log, s->size, ps);
    psync_clean(s, ps, "alltoalls64");
    for (int i = 0; i < 2 * 10 * k; i++) {
        uint64_t e =
            i % 2 ? 5 : v64(member(s, (i / 2) / 10), 3 * (idx * 10 + (i / 2) % 10), 2);
        CHECK(B.d64[i] == e, "alltoalls64 [%d]", i);
    }

    /* reductions */
    static int pwi[M];
    static long pwl[M];
    shmem_barrier(s->start, s->log, s->size, ps);
    for (int i = 0; i < M; i++) {
        B.ri[i] = me * 3 + i;
        B.rl[i] = (long)((me * 7919 + i * 31) % 1000) - 500;
        B.rll[i] = (me % 2 ? -2 : 3) + (i % 3 == 0);
        B.rs[i] = (short)(me * 257 + i);
        B.rd[i] = 0.5 * me + i;
        B.rz[i] = me + i * I;
    }
    shmem_barrier(s->start, s->log, s->size, ps);
    shmem_int_sum_to_all(B.ri, B.ri, M, s->start, s->log, s->size, pwi,
                         ps); /* in place */
    psync_clean(s, ps, "int_sum_to_all");
    shmem_long_max_to_all(B.rl + M, B.rl, M, s->start, s->log, s->size, pwl, ps);
    psync_clean(s, ps, "long_max_to_all");
    shmem_longlong_prod_to_all(B.rll + M, B.rll, 20, s->start, s->log, s->size,
                               (long long *)pwl, ps);
    shmem_short_xor_to_all(B.rs + M, B.rs, M, s->start, s->log, s->size, (short *)pwi,
                           ps);
    shmem_double_sum_to_all(B.rd + M, B.rd, 1, s->start, s->log, s->size, (double *)pwl,
                            ps);
    shmem_complexd_sum_to_all(B.rz + M, B.rz, 7, s->start, s->log, s->size,
                              (double _Complex *)pwl, ps);
    psync_clean(s, ps, "reductions");
    for (int i = 0; i < M; i++) {
        int es = 0;
        long em = -1000;
        short ex = 0;
        long long ep = 1;
        double ed = 0;
        double _Complex ez = 0;
        for (int j = 0; j < k; j++) {
            int p = member(s, j);
            es += p * 3 + i;
            long l = (long)((p * 7919 + i * 31) % 1000) - 500;
            em = l > em ? l : em;
            ex ^= (short)(p * 257 + i);
            ep *= (p % 2 ? -2 : 3) + (i % 3 == 0);
            ed += 0.5 * p + i;
            ez += p + i * I;
        }
        snprintf(what, sizeof what, "element %d", i);
        CHECK(B.ri[i] == es, "int_sum_to_all %s: %d, expected %d", what, B.ri[i], es);
        CHECK(B.rl[M + i] == em, "long_max_to_all %s", what);
        CHECK(B.rs[M + i] == ex, "short_xor_to_all %s", what);
        if (i < 20)
            CHECK(B.rll[M + i] == ep, "longlong_prod_to_all %s: %lld, expected %lld",
                  what, B.rll[M + i], ep);
        if (i < 1)
            CHECK(B.rd[M + i] == ed, "double_sum_to_all %s", what);
        if (i < 7)
            CHECK(B.rz[M + i] == ez, "complexd_sum_to_all %s", what);
    }
    shmem_barrier(s->start, s->log, s->size, ps);
    psync_clean(s, ps, "the last barrier");
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    B.s32 = shmem_malloc(M * 4);
    B.d32 = shmem_malloc(M * 4);
    B.s64 = shmem_malloc(M * 8);
    B.d64 = shmem_malloc(M * 8);
    B.ri = shmem_malloc(2 * M * sizeof(int));
    B.rl = shmem_malloc(2 * M * sizeof(long));
    B.rll = shmem_malloc(2 * M * sizeof(long long));
    B.rs = shmem_malloc(2 * M * sizeof(short));
    B.rd = shmem_malloc(2 * M * sizeof(double));
    B.rz = shmem_malloc(2 * M * sizeof(double _Complex));
    B.touched = shmem_calloc(M, sizeof(long));
    /* pairs of pSyncs on the heap; the odd PEs' set below uses a global */
    long *ps = shmem_malloc(6 * SHMEM_SYNC_SIZE * sizeof(long));
    CHECK(B.s32 && B.d32 && B.s64 && B.d64 && B.ri && B.rl && B.rll && B.rs && B.rd &&
              B.rz && B.touched && ps,
          "shmem_malloc");
    for (int i = 0; i < 6 * SHMEM_SYNC_SIZE; i++)
        ps[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < 2 * SHMEM_SYNC_SIZE; i++)
        psync_global[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();

    /* 1. PEs 1..n-1 (stride 2^0); PE 0 puts into their memory meanwhile */
    if (n >= 2) {
        aset_t s = {1, 0, n - 1, 1};
        if (me == 0) {
            for (int r = 0; r < 50; r++)
                for (int p = 1; p < n; p++)
                    shmem_long_p(&B.touched[r], r + p, p);
            shmem_quiet();
        } else {
            run(&s, ps);
        }
        shmem_barrier_all();
        if (me > 0)
            for (int r = 0; r < 50; r++)
                CHECK(B.touched[r] == r + me, "PE 0's put %d: %ld", r, B.touched[r]);
    }
    /* 2. the even and the odd PEs at once (stride 2^1), own pSyncs (the
     * odd set's a global variable) */
    {
        aset_t even = {0, 1, (n + 1) / 2, 2}, odd = {1, 1, n / 2, 2};
        if (me % 2 == 0)
            run(&even, ps);
        else
            run(&odd, psync_global);
        shmem_barrier_all();
    }
    /* 3. a set of one PE (the last), with another pSync, the rest idle */
    {
        aset_t last = {n - 1, 0, 1, 1};
        if (me == n - 1)
            run(&last, ps + 4 * SHMEM_SYNC_SIZE);
        shmem_barrier_all();
    }
    /* 4. every PE: inline (tshmem/fast.h), pSync still untouched */
    {
        aset_t all = {0, 0, n, 1};
        run(&all, ps + 2 * SHMEM_SYNC_SIZE);
        shmem_barrier_all();
    }
    return finish("aset");
}
