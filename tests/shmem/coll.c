/* OpenSHMEM teams and collectives: the predefined teams, strided splits
 * (ascending, reversed, single PE) and 2-D splits with translation and
 * team_ptr; sync, broadcast, collect, fcollect, alltoall, alltoalls, the
 * reductions (integer, real, complex), the 1.6 scans and the deprecated
 * active-set forms, each checked element by element against what the
 * specification says every PE holds; bad teams and arguments get errors. */
#include <complex.h>

#include "shmem_test.h"

#define N 37 /* elements: not a power of two, several chunks for scans */

static int me, npes;
static long *src, *dst; /* symmetric, allocated once by every PE */

/* Team PE p of team t in world numbering. */
static int world_of(shmem_team_t t, int p)
{
    return shmem_team_translate_pe(t, p, SHMEM_TEAM_WORLD);
}

static void check_team(shmem_team_t t, const char *what)
{
    int tn = shmem_team_n_pes(t), tme = shmem_team_my_pe(t);
    CHECK(tn >= 1 && tme >= 0 && tme < tn, "%s: pe %d of %d", what, tme, tn);
    CHECK(world_of(t, tme) == me, "%s: translate", what);

    memset(src, 0, (N * (size_t)npes + 8) * sizeof(long));
    memset(dst, 0, (N * (size_t)npes + 8) * sizeof(long));

    /* broadcast from every root */
    for (int root = 0; root < tn; root++) {
        for (int i = 0; i < N; i++)
            src[i] = 1000L * world_of(t, root) + i + (tme == root ? 0 : 500000);
        shmem_team_sync(t);
        CHECK(shmem_long_broadcast(t, dst, src, N, root) == 0, "%s: broadcast", what);
        for (int i = 0; i < N; i++)
            CHECK(dst[i] == 1000L * world_of(t, root) + i,
                  "%s: broadcast root %d [%d]=%ld", what, root, i, dst[i]);
    }

    /* fcollect, collect (sizes differ per PE), alltoall, alltoalls */
    for (int i = 0; i < N; i++)
        src[i] = 1000L * me + i;
    shmem_team_sync(t);
    CHECK(shmem_long_fcollect(t, dst, src, N) == 0, "%s: fcollect", what);
    for (int p = 0; p < tn; p++)
        for (int i = 0; i < N; i++)
            CHECK(dst[p * N + i] == 1000L * world_of(t, p) + i, "%s: fcollect %d/%d",
                  what, p, i);
    shmem_team_sync(t);
    CHECK(shmem_long_collect(t, dst, src, (size_t)tme + 1) == 0, "%s: collect", what);
    for (int p = 0, off = 0; p < tn; off += p + 1, p++)
        for (int i = 0; i <= p; i++)
            CHECK(dst[off + i] == 1000L * world_of(t, p) + i, "%s: collect %d/%d", what,
                  p, i);
    for (int p = 0; p < tn; p++)
        for (int i = 0; i < 3; i++)
            src[p * 3 + i] = 1000L * me + 10 * p + i;
    shmem_team_sync(t);
    CHECK(shmem_long_alltoall(t, dst, src, 3) == 0, "%s: alltoall", what);
    for (int p = 0; p < tn; p++)
        for (int i = 0; i < 3; i++)
            CHECK(dst[p * 3 + i] == 1000L * world_of(t, p) + 10 * tme + i,
                  "%s: alltoall from %d [%d]=%ld", what, p, i, dst[p * 3 + i]);
    /* alltoalls, sst 2 and dst 3: element k for PE j at source[2*(j*2+k)] */
    for (int p = 0; p < tn; p++)
        for (int k = 0; k < 2; k++)
            src[2 * (p * 2 + k)] = 1000L * me + 10 * p + k;
    memset(dst, 0, sizeof(long) * N);
    shmem_team_sync(t);
    CHECK(shmem_long_alltoalls(t, dst, src, 3, 2, 2) == 0, "%s: alltoalls", what);
    for (int p = 0; p < tn; p++)
        for (int k = 0; k < 2; k++)
            CHECK(dst[3 * (p * 2 + k)] == 1000L * world_of(t, p) + 10 * tme + k,
                  "%s: alltoalls from %d [%d]", what, p, k);

    /* reductions */
    long sum = 0, prod = 1, mx = 0, mn = 1L << 40, band = ~0L, bor = 0, bxor = 0;
    for (int p = 0; p < tn; p++) {
        long v = world_of(t, p) + 3;
        sum += v, prod *= v, band &= v, bor |= v, bxor ^= v;
        mx = v > mx ? v : mx;
        mn = v < mn ? v : mn;
    }
    for (int i = 0; i < N; i++)
        src[i] = me + 3;
    shmem_team_sync(t);
    CHECK(shmem_long_sum_reduce(t, dst, src, N) == 0 && dst[N - 1] == sum, "%s: sum",
          what);
    CHECK(shmem_long_prod_reduce(t, dst, src, N) == 0 && dst[0] == prod, "%s: prod",
          what);
    CHECK(shmem_long_max_reduce(t, dst, src, N) == 0 && dst[3] == mx, "%s: max", what);
    CHECK(shmem_long_min_reduce(t, dst, src, N) == 0 && dst[4] == mn, "%s: min", what);
    int64_t *s64 = (int64_t *)src, *d64 = (int64_t *)dst;
    CHECK(shmem_int64_and_reduce(t, d64, s64, N) == 0 && d64[5] == band, "%s: and", what);
    CHECK(shmem_int64_or_reduce(t, d64, s64, N) == 0 && d64[6] == bor, "%s: or", what);
    CHECK(shmem_int64_xor_reduce(t, d64, s64, N) == 0 && d64[7] == bxor, "%s: xor", what);
    /* in place, double */
    double *dd = (double *)src;
    for (int i = 0; i < N; i++)
        dd[i] = 0.5 * (me + 1);
    shmem_team_sync(t);
    CHECK(shmem_double_sum_reduce(t, dd, dd, N) == 0, "%s: double sum", what);
    double dsum = 0;
    for (int p = 0; p < tn; p++)
        dsum += 0.5 * (world_of(t, p) + 1);
    for (int i = 0; i < N; i++)
        CHECK(dd[i] == dsum, "%s: double sum [%d] %g != %g", what, i, dd[i], dsum);
    /* complex */
    double _Complex *cs = (double _Complex *)src, *cd = (double _Complex *)dst;
    for (int i = 0; i < 4; i++)
        cs[i] = (me + 1) + 1.0 * I;
    shmem_team_sync(t);
    CHECK(shmem_complexd_sum_reduce(t, cd, cs, 4) == 0, "%s: complex sum", what);
    double _Complex csum = 0, cprod = 1;
    for (int p = 0; p < tn; p++) {
        csum += (world_of(t, p) + 1) + 1.0 * I;
        cprod *= (world_of(t, p) + 1) + 1.0 * I;
    }
    CHECK(cd[3] == csum, "%s: complex sum", what);
    CHECK(shmem_complexd_prod_reduce(t, cd, cs, 4) == 0 && cd[2] == cprod,
          "%s: complex prod", what);
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && \
    !defined(__STDC_NO_COMPLEX__)
    /* the C11 generic sum, prod and scans take both complex types (1.6:
     * "integer, real, or complex types"); they failed to compile before */
    memset(cd, 0, 4 * sizeof(*cd));
    CHECK(shmem_sum_reduce(t, cd, cs, 4) == 0 && cd[1] == csum,
          "%s: generic complexd sum", what);
    CHECK(shmem_prod_reduce(t, cd, cs, 4) == 0 && cd[3] == cprod,
          "%s: generic complexd prod", what);
    float _Complex *fs = (float _Complex *)src, *fd = fs + 4, fin = 0, fex = 0;
    for (int i = 0; i < 4; i++)
        fs[i] = (me + 1) + 2.0f * I;
    for (int p = 0; p < tme; p++)
        fex += (world_of(t, p) + 1) + 2.0f * I;
    fin = fex + (me + 1) + 2.0f * I;
    shmem_team_sync(t);
    CHECK(shmem_sum_inscan(t, fd, fs, 4) == 0 && fd[2] == fin,
          "%s: generic complexf inscan", what);
    CHECK(shmem_sum_exscan(t, fd, fs, 4) == 0 && (tme == 0 || fd[0] == fex),
          "%s: generic complexf exscan", what);
    CHECK(shmem_sum_reduce(t, fd, fs, 4) == 0 && fd[3] == (float _Complex)csum + I * tn,
          "%s: generic complexf sum", what);
#endif
    /* scans over team order */
    for (int i = 0; i < N; i++)
        src[i] = (long)(tme + 1) * (i + 1);
    shmem_team_sync(t);
    CHECK(shmem_long_sum_inscan(t, dst, src, N) == 0, "%s: inscan", what);
    for (int i = 0; i < N; i++)
        CHECK(dst[i] == (long)(tme + 1) * (tme + 2) / 2 * (i + 1), "%s: inscan [%d]",
              what, i);
    CHECK(shmem_long_sum_exscan(t, dst, src, N) == 0, "%s: exscan", what);
    for (int i = 0; i < N; i++)
        CHECK(dst[i] == (long)tme * (tme + 1) / 2 * (i + 1), "%s: exscan [%d]", what, i);

    shmem_team_sync(t);
}

static void splits(void)
{
    /* ascending, every other PE from 0 */
    shmem_team_t even;
    int size = (npes + 1) / 2;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, size, NULL, 0, &even) == 0,
          "split even");
    CHECK((me % 2 == 0) == (even != SHMEM_TEAM_INVALID), "even membership");
    if (even != SHMEM_TEAM_INVALID) {
        CHECK(shmem_team_my_pe(even) == me / 2, "even: my pe");
        check_team(even, "even");
    } else {
        CHECK(shmem_team_my_pe(even) == -1 && shmem_team_n_pes(even) == -1,
              "invalid team");
    }
    /* reversed: the whole world backwards */
    shmem_team_t rev;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev) ==
              0,
          "split reversed");
    CHECK(shmem_team_my_pe(rev) == npes - 1 - me, "reversed: my pe %d",
          shmem_team_my_pe(rev));
    check_team(rev, "reversed");
    /* one PE, stride 0 */
    shmem_team_t one;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, 0, 1, NULL, 0, &one) == 0,
          "split single");
    CHECK((me == npes - 1) == (one != SHMEM_TEAM_INVALID), "single membership");
    /* 2-D: rows of 2 */
    shmem_team_t xt, yt;
    shmem_team_config_t cfg = {.num_contexts = 1};
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &xt,
                              NULL, 0, &yt) == 0,
          "split 2d");
    CHECK(shmem_team_my_pe(xt) == me % 2 && shmem_team_my_pe(yt) == me / 2, "2d: pes");
    shmem_team_config_t got = {0};
    CHECK(shmem_team_get_config(xt, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 &&
              got.num_contexts == 1,
          "2d: config");
    check_team(xt, "x");
    check_team(yt, "y");
    /* a team context and team_ptr */
    shmem_ctx_t ctx;
    CHECK(shmem_team_create_ctx(xt, 0, &ctx) == 0, "team ctx");
    shmem_team_t back;
    CHECK(shmem_ctx_get_team(ctx, &back) == 0 && back == xt, "ctx_get_team");
    shmem_ctx_destroy(ctx);
    long *sym = shmem_malloc(sizeof(long));
    CHECK(shmem_team_ptr(xt, sym, shmem_team_my_pe(xt)) == sym, "team_ptr self");
    shmem_free(sym);
    /* bad input: a triplet past the parent, a bad root */
    shmem_team_t bad = (shmem_team_t)1;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes + 1, NULL, 0, &bad) !=
                  0 &&
              bad == SHMEM_TEAM_INVALID,
          "bad triplet accepted");
    long *b = shmem_malloc(8 * sizeof(long));
    CHECK(shmem_long_broadcast(SHMEM_TEAM_WORLD, b, b, 1, npes) != 0,
          "bad root accepted");
    CHECK(shmem_long_sum_reduce(SHMEM_TEAM_INVALID, b, b, 1) != 0,
          "invalid team accepted");
    shmem_free(b);

    shmem_team_destroy(even);
    shmem_team_destroy(rev);
    shmem_team_destroy(one);
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
    CHECK(shmem_team_n_pes(xt) == -1, "destroyed team still answers");
}

static long psync[SHMEM_REDUCE_SYNC_SIZE];
static long bsync[2][SHMEM_BCAST_SYNC_SIZE];

/* Deprecated broadcasts over every PE, growing then shrinking (the root
 * keeps its dest in a buffer reused across calls), across the sizes where
 * Tern changes algorithm, from the first and the last PE, back to back on
 * two pSyncs: every non-root's dest holds the root's source, the root's
 * dest and everything past the count are untouched. */
static void active_set_broadcasts(void)
{
    static const size_t counts[] = {3, 1000, 40000, 7, 5000, 1};
    enum { MAXC = 40000 };
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
            bsync[j][i] = SHMEM_SYNC_VALUE;
    uint64_t *src = shmem_malloc((MAXC + 1) * sizeof(uint64_t)),
             *dst = shmem_malloc((MAXC + 1) * sizeof(uint64_t));
    CHECK(src && dst, "no heap for the broadcasts");
    int call = 0;
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
        size_t k = counts[c];
        for (int root = 0; root<npes; root += npes> 1 ? npes - 1 : 1) {
            for (size_t i = 0; i <= MAXC; i++) {
                src[i] = ((uint64_t)me << 48) ^ (k << 20) ^ i;
                dst[i] = ~(((uint64_t)me << 40) ^ i);
            }
            shmem_barrier_all();
            if (c & 1)
                shmem_broadcast32(dst, src, 2 * k, root, 0, 0, npes, bsync[call++ & 1]);
            else
                shmem_broadcast64(dst, src, k, root, 0, 0, npes, bsync[call++ & 1]);
            size_t bad = 0;
            for (size_t i = 0; i <= MAXC; i++) {
                uint64_t want = me != root && i < k
                                    ? ((uint64_t)root << 48) ^ (k << 20) ^ i
                                    : ~(((uint64_t)me << 40) ^ i);
                bad += dst[i] != want;
            }
            CHECK(bad == 0, "broadcast%d of %zu from PE %d: %zu words wrong on PE %d",
                  c & 1 ? 32 : 64, k, root, bad, me);
        }
    }
    shmem_barrier_all();
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
            CHECK(bsync[j][i] == SHMEM_SYNC_VALUE, "pSync restored after the broadcasts");
    shmem_free(dst);
    shmem_free(src);
}

static void active_set(void)
{
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    long *src = shmem_malloc(8 * sizeof(long)),
         *dst = shmem_malloc(8 * sizeof(long)); /* shadows */
    long *wrk = shmem_malloc(8 * sizeof(long));
    for (int i = 0; i < 8; i++)
        src[i] = me + i, dst[i] = -1;
    shmem_barrier_all();
    shmem_long_sum_to_all(dst, src, 8, 0, 0, npes, wrk, psync);
    for (int i = 0; i < 8; i++)
        CHECK(dst[i] == (long)npes * (npes - 1) / 2 + (long)npes * i, "sum_to_all [%d]",
              i);
    shmem_int_max_to_all((int *)dst, (int *)src, 2, 0, 0, npes, (int *)wrk, psync);
    shmem_barrier(0, 0, npes, psync);
    for (int i = 0; i < 8; i++)
        dst[i] = -1;
    shmem_barrier_all();
    shmem_broadcast64(dst, src, 8, 0, 0, 0, npes, psync);
    for (int i = 0; i < 8; i++)
        CHECK(me == 0 ? dst[i] == -1 : dst[i] == i, "broadcast64 [%d]=%ld", i, dst[i]);
    shmem_sync(0, 0, npes, psync);
    shmem_sync(SHMEM_TEAM_WORLD);
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        CHECK(psync[i] == SHMEM_SYNC_VALUE, "pSync restored");
    shmem_barrier_all();
    shmem_free(wrk);
    shmem_free(dst);
    shmem_free(src);
    active_set_broadcasts();
}

/* Collectives of zero elements with NULL buffers: supported (1.6,
 * "Undefined Behavior": "len is 0, pointer is null: supported"); each
 * returns 0 and leaves the team usable. Before, every one returned
 * nonzero ("dest is NULL"). collect also with some PEs contributing
 * nothing and others one element (source symmetric: the other PEs read
 * it at their own address of it). Active sets: the whole
 * world (inline path) and PEs 1.. (the active-set path). */
static void zero_length(shmem_team_t t, const char *what)
{
    CHECK(shmem_long_broadcast(t, NULL, NULL, 0, 0) == 0, "%s: broadcast of 0", what);
    CHECK(shmem_broadcastmem(t, NULL, NULL, 0, 0) == 0, "%s: broadcastmem of 0", what);
    CHECK(shmem_int_collect(t, NULL, NULL, 0) == 0, "%s: collect of 0", what);
    CHECK(shmem_long_fcollect(t, NULL, NULL, 0) == 0, "%s: fcollect of 0", what);
    CHECK(shmem_fcollectmem(t, NULL, NULL, 0) == 0, "%s: fcollectmem of 0", what);
    CHECK(shmem_int_alltoall(t, NULL, NULL, 0) == 0, "%s: alltoall of 0", what);
    CHECK(shmem_long_alltoalls(t, NULL, NULL, 1, 1, 0) == 0, "%s: alltoalls of 0", what);
    CHECK(shmem_int_sum_reduce(t, NULL, NULL, 0) == 0, "%s: sum of 0", what);
    CHECK(shmem_uint_xor_reduce(t, NULL, NULL, 0) == 0, "%s: xor of 0", what);
    CHECK(shmem_double_max_reduce(t, NULL, NULL, 0) == 0, "%s: max of 0", what);
    CHECK(shmem_complexd_prod_reduce(t, NULL, NULL, 0) == 0, "%s: complex prod of 0",
          what);
    CHECK(shmem_long_sum_inscan(t, NULL, NULL, 0) == 0, "%s: inscan of 0", what);
    /* collect: the even team PEs give one element, the odd ones none */
    int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);
    for (int i = 0; i <= tn; i++)
        dst[i] = -1;
    src[0] = 7000 + me;
    shmem_team_sync(t);
    CHECK(shmem_long_collect(t, dst, src, tme % 2 ? 0 : 1) == 0, "%s: collect of 1 and 0",
          what);
    for (int p = 0; p < tn; p += 2)
        CHECK(dst[p / 2] == 7000 + world_of(t, p), "%s: collect of 1 and 0: [%d]=%ld",
              what, p / 2, dst[p / 2]);
    CHECK(dst[(tn + 1) / 2] == -1, "%s: collect of 1 and 0 wrote past its total", what);
    shmem_team_sync(t);
    CHECK(shmem_long_sum_reduce(t, dst, src, 1) == 0, "%s: a reduction after", what);
}

static void zero_length_aset(void)
{
    static long ps[SHMEM_REDUCE_SYNC_SIZE]; /* BCAST, COLLECT, ALLTOALL sizes too */
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        ps[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    for (int sub = 0; sub < 2; sub++) {
        int start = sub, size = npes - sub;
        if (size >= 1 && me >= start) {
            shmem_broadcast64(NULL, NULL, 0, 0, start, 0, size, ps);
            shmem_sync(start, 0, size, ps);
            shmem_fcollect32(NULL, NULL, 0, start, 0, size, ps);
            shmem_sync(start, 0, size, ps);
            shmem_collect64(NULL, NULL, 0, start, 0, size, ps);
            shmem_sync(start, 0, size, ps);
            shmem_alltoall64(NULL, NULL, 0, start, 0, size, ps);
            shmem_sync(start, 0, size, ps);
            shmem_long_sum_to_all(NULL, NULL, 0, start, 0, size, NULL, ps);
            shmem_sync(start, 0, size, ps);
            for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
                CHECK(ps[i] == SHMEM_SYNC_VALUE,
                      "zero-length active set %d..: pSync restored", start);
        }
        shmem_barrier_all();
    }
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    src = shmem_calloc(N * (size_t)npes + 8, sizeof(long));
    dst = shmem_calloc(N * (size_t)npes + 8, sizeof(long));
    CHECK(src && dst, "shmem_calloc");
    CHECK(shmem_team_n_pes(SHMEM_TEAM_WORLD) == npes &&
              shmem_team_my_pe(SHMEM_TEAM_WORLD) == me,
          "world");
    int shared = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    CHECK(shared >= 1 && shared <= npes, "shared: %d", shared);
    check_team(SHMEM_TEAM_WORLD, "world");
    /* TEST_COLL_ROUNDS more rounds on the world team: long enough for
     * tests/mp/kill_mid.sh to kill a PE in the middle of them. */
    const char *re = getenv("TEST_COLL_ROUNDS");
    long rounds = re ? atol(re) : 0;
    if (rounds > 0)
        test_mark_as("PE", me, "rounds");
    for (long r = 0; r < rounds; r++)
        check_team(SHMEM_TEAM_WORLD, "world");
    check_team(SHMEM_TEAM_SHARED, "shared");
    zero_length(SHMEM_TEAM_WORLD, "world");
    zero_length(SHMEM_TEAM_SHARED, "shared");
    zero_length_aset();
    splits();
    active_set();
    shmem_free(dst);
    shmem_free(src);
    return finish("coll");
}
