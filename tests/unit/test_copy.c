/* Copy kernels and the copy policy: every non-temporal kernel this CPU
 * runs copies byte for byte at every alignment and length (and touches
 * nothing around); the crossover of measured curves; the decisions per
 * distance class, direction and size for given calibrations (tables);
 * the calibration cache (written, read back, refused for another key). */
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xport/shm/shm_copy.h"
#include "topo_fixtures.h"

/* fn (named name) copies byte for byte every length n from 0 to maxn,
 * stepping by next(n), at destination alignments 0..63 (every one while
 * n < fine, else every 7th), the source misaligned differently, touching
 * nothing around the destination. */
static void check_lengths(const char *name, tn_copy_fn fn, size_t maxn, size_t fine,
                          size_t (*next)(size_t n))
{
    enum { GUARD = 128 };
    unsigned char *src = malloc(maxn + 2 * GUARD), *dst = malloc(maxn + 2 * GUARD + 64);
    for (size_t i = 0; i < maxn + 2 * GUARD; i++)
        src[i] = (unsigned char)(i * 7 + 3);
    int bad = 0;
    for (size_t n = 0; n <= maxn && !bad; n = next(n)) {
        for (size_t da = 0; da < 64 && !bad; da += n < fine ? 1 : 7) {
            size_t sa = (da * 5 + n) % 64;
            memset(dst, 0xEE, maxn + 2 * GUARD + 64);
            unsigned char *d = dst + GUARD + da;
            const unsigned char *s = src + GUARD + sa;
            fn(d, s, n);
            if (memcmp(d, s, n) != 0)
                bad = 1;
            for (size_t g = 0; g < GUARD && !bad; g++)
                if (d[-1 - (long)g] != 0xEE || d[n + g] != 0xEE)
                    bad = 2;
            TCHECK(!bad, "%s: n=%zu dst%%64=%zu src%%64=%zu: %s", name, n, da, sa,
                   bad == 1 ? "data differs" : "wrote outside the destination");
        }
    }
    free(src);
    free(dst);
}

static size_t next_kernel(size_t n)
{
    return n + (n < 600 ? 1 : 97);
}

static void test_kernel(tn_copy_isa_t isa)
{
    tn_copy_fn fn = tn_copy_nt_fn(isa);
    if (!fn) {
        TCHECK(!tn_copy_isa_supported(isa), "%s: no kernel but supported",
               tn_copy_isa_name(isa));
        printf("  %s: not supported by this CPU, not run\n", tn_copy_isa_name(isa));
        return;
    }
    check_lengths(tn_copy_isa_name(isa), fn, 3 * 4096 + 300, 600, next_kernel);
    /* and a large one, as the fast path sends them */
    size_t big = (8u << 20) + 77;
    unsigned char *bs = malloc(big), *bd = malloc(big + 1);
    for (size_t i = 0; i < big; i++)
        bs[i] = (unsigned char)(i ^ (i >> 11));
    fn(bd + 1, bs, big);
    TCHECK(memcmp(bd + 1, bs, big) == 0, "%s: 8 MiB copy differs", tn_copy_isa_name(isa));
    free(bs);
    free(bd);
}

/* The message payload copy (tn_copy_msg, whichever kernel this CPU gets):
 * byte for byte at every length up to a few KiB and at the sizes around
 * its vector loop's steps and its limit, at every alignment of both
 * sides, touching nothing around the destination. */
static size_t next_msg(size_t n)
{
    return n + (n < 1100 ? 1 : n < 8300 ? 31 : n < (64 << 10) - 300 ? 4093 : 1);
}

static void copy_msg(void *d, const void *s, size_t n)
{
    tn_copy_msg(d, s, n);
}

static void test_msg_copy(void)
{
    char name[64];
    snprintf(name, sizeof(name), "tn_copy_msg (%s)", tn_copy_msg_name());
    check_lengths(name, copy_msg, (64 << 10) + 200, 300, next_msg);
    printf("  tn_copy_msg: %s\n", tn_copy_msg_name());
}

typedef struct {
    int n;
    tn_copy_point_t pt[6];
} cross_row_t;

/* The expected crossover, computed here the long way: where nt/reg
 * crosses 1.03 between sizes lo and 2*lo with ratios r0 and r1. */
static size_t expect_cross(size_t lo, double r0, double r1)
{
    double f = (1.03 - r0) / (r1 - r0), p = 1, x = f * 0.69314718055994531, term = 1;
    for (int i = 1; i < 12; i++) {
        term *= x / i;
        p += term;
    }
    return ((size_t)((double)lo * p) + 4095) & ~(size_t)4095;
}

static void test_crossover(void)
{
    static const cross_row_t rows[] = {
        /* nt ahead from 4 MiB on */
        {4, {{1 << 20, 20, 10}, {2 << 20, 15, 12}, {4 << 20, 10, 12}, {8 << 20, 8, 12}}},
        /* never ahead */
        {3, {{1 << 20, 20, 10}, {2 << 20, 15, 12}, {4 << 20, 14, 12}}},
        /* ahead everywhere */
        {2, {{4096, 5, 11}, {8192, 5, 15}}},
        /* an early lead that does not last is not the crossover */
        {5,
         {{1 << 20, 30, 20},
          {2 << 20, 14, 17},
          {4 << 20, 14, 13},
          {8 << 20, 10, 13},
          {16 << 20, 7, 9}}},
        /* ahead at the last point only */
        {3, {{1 << 20, 20, 10}, {2 << 20, 15, 12}, {4 << 20, 11, 12}}},
        /* ahead by less than 3% is a tie: the regular copy is kept */
        {3, {{1 << 20, 20, 10}, {2 << 20, 15, 15.3}, {4 << 20, 10, 10.2}}},
        /* a tie, then clearly ahead */
        {3, {{8 << 20, 14.4, 13.9}, {16 << 20, 13.87, 14.01}, {32 << 20, 9.77, 13.88}}},
    };
    const size_t want[] = {
        expect_cross(2 << 20, 12.0 / 15, 1.2),
        SIZE_MAX,
        4096,
        expect_cross(4 << 20, 13.0 / 14, 1.3),
        expect_cross(2 << 20, 0.8, 12.0 / 11),
        SIZE_MAX,
        expect_cross(16 << 20, 14.01 / 13.87, 13.88 / 9.77),
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        size_t got = tn_copy_crossover(rows[i].pt, rows[i].n);
        TCHECK(got == want[i], "crossover row %zu: %zu, expected %zu", i, got, want[i]);
    }
    /* worked out by hand: r0 = 0.8, r1 = 1.2, f = 0.575, 2 MiB * 2^0.575 =
     * 3 124 080 bytes, rounded up to 4 KiB */
    TCHECK(want[0] == 3125248, "2 MiB * 2^0.575 rounded up to 4 KiB: %zu", want[0]);
    /* the last row: between 16 and 32 MiB, just above 16 */
    TCHECK(want[6] > (16u << 20) && want[6] < (18u << 20), "tie then ahead: %zu",
           want[6]);
}

typedef struct {
    int mode;
    size_t hot, cold;
    int dist, put;
    size_t n;
    int nt;
    uint64_t islands;
} policy_row_t;

#define M (1u << 20)
#define K (1u << 10)

static void test_policy(void)
{
    static const policy_row_t rows[] = {
        /* auto, hot 8 MiB, cold 64 KiB */
        {TN_SHM_TOPO_AUTO, 8 * M, 64 * K, TN_DIST_SELF, 1, 8 * M - 1, 0},
        {TN_SHM_TOPO_AUTO, 8 * M, 64 * K, TN_DIST_SELF, 1, 8 * M, 1},
        {TN_SHM_TOPO_AUTO, 8 * M, 64 * K, TN_DIST_L3, 1, 4 * M, 0},
        {TN_SHM_TOPO_AUTO, 8 * M, 64 * K, TN_DIST_L3, 1, 16 * M, 1},
        {TN_SHM_TOPO_AUTO, 8 * M, 64 * K, TN_DIST_L3, 0, 16 * M, 1},
        {TN_SHM_TOPO_AUTO, 8 * M, 64 * K, TN_DIST_NUMA, 1, 64 * K - 1, 0},
        {TN_SHM_TOPO_AUTO, 8 * M, 64 * K, TN_DIST_NUMA, 1, 64 * K, 1},
        {TN_SHM_TOPO_AUTO, 8 * M, 64 * K, TN_DIST_NUMA, 0, 64 * K, 0}, /* get: hot */
        {TN_SHM_TOPO_AUTO, 8 * M, 64 * K, TN_DIST_XNUMA, 1, 1 * M, 1},
        {TN_SHM_TOPO_AUTO, 8 * M, 64 * K, TN_DIST_XNUMA, 0, 1 * M, 0},
        {TN_SHM_TOPO_AUTO, 8 * M, 64 * K, TN_DIST_XPKG, 1, 128 * K, 1},
        {TN_SHM_TOPO_AUTO, 8 * M, 64 * K, TN_DIST_XPKG, 0, 8 * M, 1},
        {TN_SHM_TOPO_AUTO, 8 * M, 64 * K, TN_DIST_XPKG, 1, 8, 0},
        /* a cold crossover above the hot one is clamped to it */
        {TN_SHM_TOPO_AUTO, 1 * M, 4 * M, TN_DIST_XPKG, 1, 2 * M, 1},
        /* never measured to pay (SIZE_MAX): regular copies at any size */
        {TN_SHM_TOPO_AUTO, SIZE_MAX, 4 * K, TN_DIST_L3, 1, (size_t)1 << 40, 0},
        {TN_SHM_TOPO_AUTO, SIZE_MAX, 4 * K, TN_DIST_XPKG, 1, 4 * K, 1},
        /* on and off ignore the calibration */
        {TN_SHM_TOPO_ON, 8 * M, 64 * K, TN_DIST_L3, 1, 8, 1},
        {TN_SHM_TOPO_ON, 8 * M, 64 * K, TN_DIST_SELF, 0, 0, 1},
        {TN_SHM_TOPO_OFF, 8 * M, 64 * K, TN_DIST_XPKG, 1, (size_t)1 << 40, 0},
        /* an island at 2 MiB (bit 21): [2 MiB, 4 MiB) below the threshold */
        {TN_SHM_TOPO_AUTO, 32 * M, 64 * K, TN_DIST_L3, 1, 2 * M - 1, 0, 1ull << 21},
        {TN_SHM_TOPO_AUTO, 32 * M, 64 * K, TN_DIST_L3, 1, 2 * M, 1, 1ull << 21},
        {TN_SHM_TOPO_AUTO, 32 * M, 64 * K, TN_DIST_L3, 0, 3 * M, 1, 1ull << 21},
        {TN_SHM_TOPO_AUTO, 32 * M, 64 * K, TN_DIST_SELF, 1, 4 * M, 0, 1ull << 21},
        {TN_SHM_TOPO_AUTO, 32 * M, 64 * K, TN_DIST_L3, 1, 16 * M, 0, 1ull << 21},
        {TN_SHM_TOPO_OFF, 32 * M, 64 * K, TN_DIST_L3, 1, 2 * M, 0, 1ull << 21},
    };
    int have_nt = tn_copy_isa_best() != TN_COPY_ISA_NONE;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const policy_row_t *r = &rows[i];
        tn_copy_calib_t c = {.hot = r->hot, .cold = r->cold, .hot_islands = r->islands};
        tn_copy_policy_t p;
        tn_copy_policy_make(r->mode, &c, &p);
        int got = tn_copy_policy_nt(&p, r->dist, r->put, r->n);
        TCHECK(got == (r->nt && have_nt), "row %zu: mode %d %s %s %zu bytes: %s", i,
               r->mode, tn_dist_name(r->dist), r->put ? "put" : "get", r->n,
               got ? "non-temporal" : "regular");
    }
}

static void test_islands(void)
{
    /* the VM's curve: ahead at 2 MiB (two 2 MiB buffers overflow its L2),
     * a tie to 32 MiB, ahead from 64 MiB */
    static const tn_copy_point_t pt[] = {{1 << 20, 35, 20},      {2 << 20, 14.5, 17.4},
                                         {4 << 20, 14.5, 13.7},  {8 << 20, 14.5, 13.5},
                                         {16 << 20, 14.5, 13.5}, {32 << 20, 14.7, 13.6},
                                         {64 << 20, 6.5, 9.0}};
    size_t cross = tn_copy_crossover(pt, 7);
    uint64_t isl = tn_copy_islands(pt, 7, cross);
    TCHECK(cross > (32u << 20) && cross < (64u << 20), "crossover %zu", cross);
    TCHECK(isl == 1ull << 21, "islands %llx, expected 2 MiB only",
           (unsigned long long)isl);
    tn_copy_calib_t c = {.hot = cross, .cold = 4096, .hot_islands = isl};
    tn_copy_policy_t p;
    tn_copy_policy_make(TN_SHM_TOPO_AUTO, &c, &p);
    if (tn_copy_isa_best() != TN_COPY_ISA_NONE) {
        TCHECK(tn_copy_policy_min(&p, TN_DIST_L3) == (2u << 20),
               "copy_min for same-l3: %zu", tn_copy_policy_min(&p, TN_DIST_L3));
        TCHECK(tn_copy_policy_min(&p, TN_DIST_XPKG) == 4096,
               "copy_min for other-package: %zu", tn_copy_policy_min(&p, TN_DIST_XPKG));
    }
    /* no island where nt is ahead by less than the margin, or above the
     * crossover */
    static const tn_copy_point_t tie[] = {{2 << 20, 14.5, 14.8}, {4 << 20, 10, 14}};
    TCHECK(tn_copy_islands(tie, 2, tn_copy_crossover(tie, 2)) == 0, "no islands");
}

static void test_cache(void)
{
    char dir[] = "/tmp/tern-calib-XXXXXX";
    TCHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char sub[256], path[700], key[400], origin[768];
    snprintf(sub, sizeof(sub), "%s/a/b", dir); /* created on demand */
    tn_topo_t *t = topo_synthetic(TOPO_2X8);
    tn_copy_calib_t c1, c2, est;
    /* never: estimated from hwloc's L3 size, nothing written */
    TCHECK(tn_copy_calib_obtain(TN_CALIB_NEVER, sub, t, &est, origin, sizeof(origin)) ==
                   TERN_OK &&
               est.hot == (16u << 20) && est.cold == (64u << 10) &&
               strstr(origin, "not measured"),
           "estimate: hot %zu cold %zu (%s)", est.hot, est.cold, origin);
    TCHECK(tn_copy_calib_path(sub, t, path, sizeof(path), key, sizeof(key)) == 0 &&
               access(path, F_OK) != 0,
           "no file after an estimate");
    if (tn_copy_isa_best() == TN_COPY_ISA_NONE) {
        tn_topo_destroy(t);
        return;
    }
    /* always: measured now, written */
    TCHECK(tn_copy_calib_obtain(TN_CALIB_ALWAYS, sub, t, &c1, origin, sizeof(origin)) ==
                   TERN_OK &&
               strstr(origin, "measured now") && access(path, R_OK) == 0,
           "measure: %s (%s)", origin, path);
    /* the thresholds are the curves' crossovers, or the estimate's when
     * the machine was too busy to trust them (test_copy_trust.c) */
    TCHECK(
        c1.nhot >= 2 && c1.ncold >= 2 &&
            c1.hot == (c1.fallback ? est.hot : tn_copy_crossover(c1.hot_pt, c1.nhot)) &&
            c1.cold == (c1.fallback ? est.cold : tn_copy_crossover(c1.cold_pt, c1.ncold)),
        "curves measured: %d hot, %d cold points, fallback %d", c1.nhot, c1.ncold,
        c1.fallback);
    for (int i = 0; i < c1.nhot; i++)
        TCHECK(c1.hot_pt[i].reg > 0 && c1.hot_pt[i].nt > 0, "hot point %d has rates", i);
    /* auto: read back, the same figures */
    TCHECK(tn_copy_calib_obtain(TN_CALIB_AUTO, sub, t, &c2, origin, sizeof(origin)) ==
                   TERN_OK &&
               strstr(origin, "cached in") && c2.hot == c1.hot && c2.cold == c1.cold &&
               c2.nhot == c1.nhot && c2.isa == c1.isa && c2.hot_islands == c1.hot_islands,
           "read back: %s", origin);
    /* another machine shape has another file */
    tn_topo_t *t2 = topo_xml(TOPO_XML_NIC);
    char path2[700], key2[400];
    TCHECK(t2 &&
               tn_copy_calib_path(sub, t2, path2, sizeof(path2), key2, sizeof(key2)) ==
                   0 &&
               strcmp(path, path2) != 0,
           "one file per kind of machine");
    /* a file with another key (a hash collision, an edit) is measured over */
    FILE *f = fopen(path, "w");
    fprintf(f, "key something else\nisa %d\nhot 1\ncold 1\n", c1.isa);
    fclose(f);
    TCHECK(tn_copy_calib_obtain(TN_CALIB_AUTO, sub, t, &c2, origin, sizeof(origin)) ==
                   TERN_OK &&
               strstr(origin, "measured now"),
           "a foreign file is not used: %s", origin);
    /* none: no file anywhere */
    TCHECK(tn_copy_calib_path("none", t, path2, sizeof(path2), key2, sizeof(key2)) != 0,
           "TERN_SHM_CALIB_DIR=none has no path");
    tn_topo_destroy(t2);
    tn_topo_destroy(t);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    TCHECK(system(cmd) == 0, "cleanup");
}

int main(void)
{
    printf("best non-temporal kernel here: %s\n", tn_copy_isa_name(tn_copy_isa_best()));
    test_kernel(TN_COPY_ISA_SSE2);
    test_kernel(TN_COPY_ISA_AVX2);
    test_kernel(TN_COPY_ISA_AVX512);
    test_msg_copy();
    TCHECK(tn_copy_nt_fn(TN_COPY_ISA_NONE) == NULL, "no kernel for none");
    test_crossover();
    test_policy();
    test_islands();
    test_cache();
    if (topo_fails) {
        fprintf(stderr, "FAIL: %d check(s)\n", topo_fails);
        return 1;
    }
    printf("PASS: copy kernels and policy\n");
    return 0;
}
