/* The copy calibration's busy-machine fallback: tn_copy_calib_trust on
 * synthetic timings (a quiet machine's curves are used; a busy one's -
 * preempted, widely spread, or crossing far below the estimate - are not),
 * and tn_copy_calib_obtain using the estimate's thresholds for a cached
 * busy measurement, saying why, and measuring again once it is stale. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "xport/shm/shm_copy.h"
#include "topo_fixtures.h"

#define MiB ((size_t)1 << 20)

/* A hot curve from 256 KiB doubling, regular and non-temporal GB/s per
 * point, with its crossover and islands as tn_copy_calibrate sets them. */
static tn_copy_calib_t synthetic(const double (*rates)[2], int n, double spread)
{
    tn_copy_calib_t c;
    memset(&c, 0, sizeof(c));
    c.isa = TN_COPY_ISA_AVX2;
    for (int i = 0; i < n; i++) {
        c.hot_pt[i].size = (256u << 10) << i;
        c.hot_pt[i].reg = rates[i][0];
        c.hot_pt[i].nt = rates[i][1];
    }
    c.nhot = n;
    c.hot = tn_copy_crossover(c.hot_pt, n);
    c.hot_islands = tn_copy_islands(c.hot_pt, n, c.hot);
    c.cold = 4096;
    c.spread = spread;
    return c;
}

/* What this VM measures when quiet: regular ahead to 32 MiB, an island at
 * 2 MiB, non-temporal from 64 MiB. */
static const double quiet_rates[][2] = {
    {22.0, 6.2},  {19.8, 6.2},  {14.9, 5.9},  {14.8, 17.4}, {10.1, 5.2},
    {14.5, 13.9}, {14.5, 13.8}, {14.4, 13.7}, {6.8, 10.4},
};
/* The same machine loaded: other processes thrash the caches, the regular
 * copies slow down most and the non-temporal ones look faster from 256 KiB
 * (how 1 MiB copies came to be streamed, 2.5-3x slower). */
static const double busy_rates[][2] = {{4.1, 5.9}, {3.8, 5.6}, {3.5, 5.5}};

static void test_trust(void)
{
    char why[256];
    size_t est = 32 * MiB; /* one L3 */

    tn_copy_calib_t q = synthetic(quiet_rates, 9, 1.06);
    TCHECK(q.hot > 32 * MiB && q.hot <= 64 * MiB && q.hot_islands == (1ull << 21),
           "quiet curve: crossover %zu, islands %llx", q.hot,
           (unsigned long long)q.hot_islands);
    TCHECK(tn_copy_calib_trust(&q, est, why, sizeof(why)) == 1 &&
               strstr(why, "consistent (spread 6%)"),
           "a quiet measurement is used: %s", why);

    /* busy: crossing at 256 KiB, 128 times under the estimate */
    tn_copy_calib_t b = synthetic(busy_rates, 3, 1.08);
    TCHECK(b.hot == 256u << 10, "busy curve crosses at once: %zu", b.hot);
    TCHECK(tn_copy_calib_trust(&b, est, why, sizeof(why)) == 0 &&
               strstr(why, "under an eighth of the estimate") && strstr(why, "256 KiB") &&
               strstr(why, "32 MiB"),
           "a crossover far under the estimate is not used: %s", why);
    /* at an eighth exactly it is believed; just under, not */
    b.hot = est / 8;
    TCHECK(tn_copy_calib_trust(&b, est, why, sizeof(why)) == 1, "at an eighth: %s", why);
    b.hot = est / 8 - 4096;
    TCHECK(tn_copy_calib_trust(&b, est, why, sizeof(why)) == 0, "under an eighth: %s",
           why);

    /* the quiet curve with widely spread samples */
    q.spread = 1.8;
    TCHECK(tn_copy_calib_trust(&q, est, why, sizeof(why)) == 0 &&
               strstr(why, "differed by 80% (more than 50%)"),
           "spread timings are not used: %s", why);
    q.spread = 1.5;
    TCHECK(tn_copy_calib_trust(&q, est, why, sizeof(why)) == 1, "50%% is tolerated: %s",
           why);
    /* preempted samples or a memory rate varying 2x (disturbed) */
    q.disturbed = 1;
    TCHECK(tn_copy_calib_trust(&q, est, why, sizeof(why)) == 0 &&
               strstr(why, "busy while measuring"),
           "a disturbed measurement is not used: %s", why);
    q.disturbed = 0;
    /* a file from before the spread was recorded */
    q.spread = 0;
    TCHECK(tn_copy_calib_trust(&q, est, why, sizeof(why)) == 1 &&
               strstr(why, "not recorded"),
           "unknown spread: %s", why);

    /* on the regular side of the estimate (never streaming) it is kept:
     * the regular copy is the safe mistake */
    static const double never_rates[][2] = {{22, 6}, {15, 6}, {10, 5}, {4.5, 3.9}};
    tn_copy_calib_t n = synthetic(never_rates, 4, 1.02);
    TCHECK(n.hot == SIZE_MAX && tn_copy_calib_trust(&n, est, why, sizeof(why)) == 1,
           "never non-temporal: %s", why);
    /* no estimate to compare with */
    b = synthetic(busy_rates, 3, 1.08);
    TCHECK(tn_copy_calib_trust(&b, SIZE_MAX, why, sizeof(why)) == 1, "no estimate: %s",
           why);
}

/* A cache file as tn_copy_calibrate's figures are written. */
static void write_file(const char *path, const char *key, const tn_copy_calib_t *c)
{
    FILE *f = fopen(path, "w");
    TCHECK(f != NULL, "open %s", path);
    if (!f)
        return;
    fprintf(f, "key %s\nisa %d\nhot %zu\ncold %zu\nislands %llx\nseconds 0.5\n", key,
            (int)tn_copy_isa_best(), c->hot, c->cold, (unsigned long long)c->hot_islands);
    fprintf(f, "disturbed %d\nspread %.3f\n", c->disturbed, c->spread);
    for (int i = 0; i < c->nhot; i++)
        fprintf(f, "hotpt %zu %.3f %.3f\n", c->hot_pt[i].size, c->hot_pt[i].reg,
                c->hot_pt[i].nt);
    fclose(f);
}

static void test_obtain(void)
{
    if (tn_copy_isa_best() == TN_COPY_ISA_NONE)
        return; /* nothing is measured without a non-temporal kernel */
    char dir[] = "/tmp/tern-trust-XXXXXX";
    TCHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char path[700], key[400], origin[768];
    tn_topo_t *t = topo_synthetic(TOPO_2X8); /* L3 16 MiB: the estimate */
    tn_copy_calib_t est, c;
    tn_copy_calib_estimate(t, &est);
    TCHECK(tn_copy_calib_path(dir, t, path, sizeof(path), key, sizeof(key)) == 0, "path");

    /* a fresh busy measurement: the estimate's thresholds, the curve kept */
    tn_copy_calib_t b = synthetic(busy_rates, 3, 1.08);
    write_file(path, key, &b);
    TCHECK(tn_copy_calib_obtain(TN_CALIB_AUTO, dir, t, &c, origin, sizeof(origin)) ==
                   TERN_OK &&
               c.fallback == 1 && c.hot == est.hot && c.cold == est.cold &&
               c.hot_islands == 0 && c.nhot == 3 && c.hot_pt[0].reg == 4.1,
           "busy cache: fallback %d hot %zu cold %zu nhot %d", c.fallback, c.hot, c.cold,
           c.nhot);
    TCHECK(strstr(origin, "cached in") && strstr(origin, "not used: non-temporal") &&
               strstr(origin, "estimated from hwloc's L3 size instead"),
           "busy cache origin: %s", origin);
    tn_copy_policy_t p;
    tn_copy_policy_make(TN_SHM_TOPO_AUTO, &c, &p);
    TCHECK(!tn_copy_policy_nt(&p, TN_DIST_L3, 1, MiB) &&
               tn_copy_policy_nt(&p, TN_DIST_L3, 1, 16 * MiB),
           "1 MiB regular, 16 MiB non-temporal after the fallback");

    /* a quiet one is used as measured */
    tn_copy_calib_t q = synthetic(quiet_rates, 9, 1.06);
    write_file(path, key, &q);
    TCHECK(tn_copy_calib_obtain(TN_CALIB_AUTO, dir, t, &c, origin, sizeof(origin)) ==
                   TERN_OK &&
               c.fallback == 0 && c.hot == q.hot && c.hot_islands == q.hot_islands &&
               !strstr(origin, "not used"),
           "quiet cache: fallback %d hot %zu (%s)", c.fallback, c.hot, origin);

    /* a busy one older than an hour is measured again */
    write_file(path, key, &b);
    struct utimbuf old = {.actime = time(NULL) - 7200, .modtime = time(NULL) - 7200};
    TCHECK(utime(path, &old) == 0, "utime");
    TCHECK(tn_copy_calib_obtain(TN_CALIB_AUTO, dir, t, &c, origin, sizeof(origin)) ==
                   TERN_OK &&
               strstr(origin, "measured now"),
           "stale busy cache measured again: %s", origin);
    /* whatever this machine measured now, the file holds the measurement
     * itself and the thresholds follow the judgement */
    char why[256];
    tn_copy_calib_t raw;
    memset(&raw, 0, sizeof(raw));
    raw = c;
    if (c.fallback) {
        raw.hot = tn_copy_crossover(c.hot_pt, c.nhot);
        TCHECK(c.hot == est.hot && strstr(origin, "not used"), "fallback: %s", origin);
    }
    TCHECK(tn_copy_calib_trust(&raw, est.hot, why, sizeof(why)) == !c.fallback,
           "the judgement matches the thresholds: %s / %s", why, origin);

    tn_topo_destroy(t);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    TCHECK(system(cmd) == 0, "cleanup");
}

int main(void)
{
    test_trust();
    test_obtain();
    if (topo_fails) {
        fprintf(stderr, "FAIL: %d check(s)\n", topo_fails);
        return 1;
    }
    printf("PASS: copy calibration trusted when quiet, estimated when busy\n");
    return 0;
}
