/* shmem-bench: OSU-style OpenSHMEM benchmarks on plain shmem.h (1.4 or
 * later), so that the same source builds with Tern's oshcc and with Open
 * MPI's and the two run side by side (scripts/bench-shmem.py). Rows:
 * put/get latency and bandwidth (blocking and nbi), message rate, AMO
 * latency, put-with-signal ping-pong, barrier, broadcast, sum reduction,
 * a GUPS-style random-access kernel and an integer bucket sort. Every row
 * is bounded in time (--row-time); its value is the median over trials.
 *
 *   oshrun -np 2 ./shmem-bench [--json] [--row-time S] [--rows a,b] [--sizes list]
 */
#define _POSIX_C_SOURCE 200809L
#include "shb.h"

#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION >= 105
#define SHB_HAVE_SIGNAL 1 /* shmem_putmem_signal (1.5) */
#else
#define SHB_HAVE_SIGNAL 0
_Static_assert(sizeof(unsigned long) == 8, "the 1.4 signal idiom uses unsigned long");
#endif

#ifndef SHB_IMPL
#define SHB_IMPL "unknown"
#endif

/* ---- options and shared state ----------------------------------------------------- */

static double opt_row_time = 0.3; /* seconds per row, calibration included */
static int opt_trials = 7;
static int opt_json;
static const char *opt_rows = "all";
static long opt_max_iters = 1L << 20;
static size_t opt_trial_bytes = 64u << 20; /* bytes one trial may move */
static int opt_gups_log2 = 20;             /* table words per PE */
static long opt_sort_keys = 1L << 16;      /* keys per PE */

void *shb_src, *shb_dst;
size_t shb_max_bytes;
int shb_me, shb_npes;
static size_t rma_sizes_default[] = {8, 64, 512, 4096, 32768, 262144, 1048576};
static size_t small_sizes_default[] = {8, 64, 512, 4096, 32768};
static size_t user_sizes[64];
const size_t *shb_rma_sizes = rma_sizes_default;
int shb_rma_nsizes = 7;
const size_t *shb_small_sizes = small_sizes_default;
int shb_small_nsizes = 5;

static long *share_word;   /* symmetric (heap, not a global: Tern does not map those
                          * yet): PE 0's decisions */
static double *trial_time; /* symmetric, on PE 0: every PE's time of a trial */
static double t_start;
static int rows_done;

double shb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* PE 0's v on every PE (collective). */
static long share(long v)
{
    if (shb_me == 0)
        for (int pe = 1; pe < shb_npes; pe++)
            shmem_long_p(share_word, v, pe);
    shmem_barrier_all();
    long r = shb_me == 0 ? v : *share_word;
    shmem_barrier_all();
    return r;
}

int shb_selected(const char *family)
{
    if (!strcmp(opt_rows, "all"))
        return strcmp(family, "native") != 0 || shb_native_init != NULL;
    size_t n = strlen(family);
    for (const char *p = opt_rows; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && !strncmp(p, family, n))
            return 1;
        p += l + (e != NULL);
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double value_of(const shb_row_t *row, size_t size, long n, double t)
{
    switch (row->kind) {
    case SHB_LAT_US: return t / (double)n * 1e6;
    case SHB_BW_MBS: return (double)size * (double)n / t / 1e6;
    case SHB_RATE_M: return (double)n * row->scale / t / 1e6;
    case SHB_TIME_MS: return t / (double)n * 1e3;
    }
    return 0;
}

static const char *unit_of(enum shb_kind k)
{
    switch (k) {
    case SHB_LAT_US: return "us";
    case SHB_BW_MBS: return "MB/s";
    case SHB_RATE_M: return "M/s";
    case SHB_TIME_MS: return "ms";
    }
    return "?";
}

/* Calibration of row at size: 1, 4, 16 ... operations until one call
 * takes 2 ms (or the caps are reached, or budget seconds have passed). PE
 * 0 decides, every PE follows. Returns the fastest time per operation of
 * a step with enough operations; *cap_out: the operations one trial may
 * run. */
static double calibrate(const shb_row_t *row, size_t size, double budget, long *cap_out)
{
    double r0 = shb_now();
    long n = 1, cap = opt_max_iters;
    if (row->bytes_per_op && size && opt_trial_bytes / size < (size_t)cap)
        cap = (long)(opt_trial_bytes / size) > 0 ? (long)(opt_trial_bytes / size) : 1;
    double t = 0, per_op = 0;
    for (;;) {
        shmem_barrier_all();
        t = row->loop(n, size);
        /* The fastest step with enough operations: a step that a busy
         * neighbour slowed down must not shrink the trials. */
        if (per_op == 0 || (n >= 16 && t / (double)n < per_op))
            per_op = t / (double)n;
        long next = (t >= 2e-3 || n >= cap || shb_now() - r0 > budget) ? 0 : n * 4;
        next = share(next);
        if (!next)
            break;
        n = next > cap ? cap : next;
    }
    *cap_out = cap;
    return per_op;
}

/* Operations per trial for trials trials in left seconds (the same on
 * every PE: PE 0's). */
static long trial_iters(double left, int trials, double per_op, long cap)
{
    long iters = left > 0 ? (long)(left / trials / (per_op > 0 ? per_op : 1e-9)) : 1;
    if (iters > cap)
        iters = cap;
    if (iters < 1)
        iters = 1;
    return share(iters);
}

/* One trial of iters operations: its value from the slowest PE's time (a
 * collective's root may return long before the others have their data);
 * meaningful on PE 0. */
static double trial(const shb_row_t *row, size_t size, long iters)
{
    shmem_barrier_all();
    double ti = row->loop(iters, size);
    if (shb_me != 0)
        shmem_double_p(&trial_time[shb_me], ti, 0);
    shmem_barrier_all();
    for (int pe = 1; shb_me == 0 && pe < shb_npes; pe++)
        if (trial_time[pe] > ti)
            ti = trial_time[pe];
    return value_of(row, size, iters, ti);
}

/* PE 0 prints the row's median and p10..p90 of its trials' values. */
static void report(const shb_row_t *row, size_t size, double *vals, int trials,
                   long iters, const char *note)
{
    if (shb_me != 0)
        return;
    qsort(vals, (size_t)trials, sizeof vals[0], cmp_double);
    double med = vals[trials / 2], p10 = vals[trials / 10],
           p90 = vals[trials - 1 - trials / 10];
    int higher = row->kind == SHB_BW_MBS || row->kind == SHB_RATE_M;
    if (opt_json)
        printf("{\"bench\": \"shmem\", \"impl\": \"%s\", \"op\": \"%s\", \"size\": %zu, "
               "\"value\": %.6g, \"unit\": \"%s\", \"p10\": %.6g, \"p90\": %.6g, "
               "\"better\": \"%s\", \"trials\": %d, \"ops\": %ld, \"pes\": %d, "
               "\"method\": \"%s%s\"}\n",
               row->impl ? row->impl : SHB_IMPL, row->op, size, med, unit_of(row->kind),
               p10, p90, higher ? "higher" : "lower", trials, iters, shb_npes, row->note,
               note);
    else
        printf("%-22s %9zu %12.4g %-5s  [%.4g .. %.4g]  %d x %ld\n", row->op, size, med,
               unit_of(row->kind), p10, p90, trials, iters);
    fflush(stdout);
    rows_done++;
    if (shb_now() - t_start > 3)
        fprintf(stderr, "shmem-bench(%s): %s %zu done, %d rows, %.0f s\n",
                row->impl ? row->impl : SHB_IMPL, row->op, size, rows_done,
                shb_now() - t_start);
}

void shb_run(const shb_row_t *row, size_t size)
{
    double r0 = shb_now();
    long cap;
    double per_op = calibrate(row, size, opt_row_time / 2, &cap);
    /* Trials: as many operations as keep the row within --row-time. */
    double left = opt_row_time - (shb_now() - r0);
    int trials = opt_trials;
    if (left < per_op * trials * 3)
        trials = 3;
    /* Both from PE 0: every PE must run the same trials of the same length
     * (their own timings differ, and a PE running one more trial would
     * wait for the others forever). */
    long iters = trial_iters(left, trials, per_op, cap);
    trials = (int)share(trials);
    double vals[64];
    for (int i = 0; i < trials; i++)
        vals[i] = trial(row, size, iters);
    shmem_barrier_all();
    report(row, size, vals, trials, iters, "");
}

/* A library row and its native pair at one size, their trials alternating
 * (row, pair, row, pair ...) in twice the row time: on a machine whose
 * speed moves within seconds, rows run one after the other can see two
 * speeds, while alternate trials milliseconds apart see the same. */
static void run_pair(const shb_row_t *row, const shb_row_t *pair, size_t size)
{
    double r0 = shb_now();
    long cap_r, cap_p;
    double per_r = calibrate(row, size, opt_row_time / 2, &cap_r);
    double per_p = calibrate(pair, size, opt_row_time / 2, &cap_p);
    double left = 2 * opt_row_time - (shb_now() - r0);
    int trials = opt_trials;
    if (left < (per_r + per_p) * trials * 3)
        trials = 3;
    long it_r = trial_iters(left / 2, trials, per_r, cap_r);
    long it_p = trial_iters(left / 2, trials, per_p, cap_p);
    trials = (int)share(trials);
    double vr[64], vp[64];
    for (int i = 0; i < trials; i++) {
        vr[i] = trial(row, size, it_r);
        vp[i] = trial(pair, size, it_p);
    }
    shmem_barrier_all();
    report(row, size, vr, trials, it_r, "");
    report(pair, size, vp, trials, it_p, " (trials alternating with the library row's)");
}

void shb_run_sizes(const shb_row_t *row, const size_t *sizes, int nsizes)
{
    /* The native pair runs with "native" selected: its trials alternate
     * with the row's when the row's family is selected too, alone when
     * only "native" is. */
    const shb_row_t *pair =
        shb_native_pair && shb_selected("native") ? shb_native_pair(row->op) : NULL;
    int mine = shb_selected(row->family);
    for (int i = 0; i < nsizes; i++) {
        if (sizes[i] > shb_max_bytes)
            continue;
        if (mine && pair)
            run_pair(row, pair, sizes[i]);
        else if (mine)
            shb_run(row, sizes[i]);
        else if (pair)
            shb_run(pair, sizes[i]);
    }
}

/* ---- RMA rows: PE 0 to PE 1; the other PEs wait in the barriers -------------- */

static double put_lat(long n, size_t size)
{
    double t0 = shb_now();
    if (shb_me == 0) {
        for (long i = 0; i < n; i++)
            shmem_putmem(shb_dst, shb_src, size, 1);
        shmem_quiet();
    }
    return shb_now() - t0;
}

static double put_nbi_lat(long n, size_t size)
{
    double t0 = shb_now();
    if (shb_me == 0)
        for (long i = 0; i < n; i++) {
            shmem_putmem_nbi(shb_dst, shb_src, size, 1);
            shmem_quiet();
        }
    return shb_now() - t0;
}

static double get_lat(long n, size_t size)
{
    double t0 = shb_now();
    if (shb_me == 0)
        for (long i = 0; i < n; i++)
            shmem_getmem(shb_dst, shb_src, size, 1);
    return shb_now() - t0;
}

static double get_nbi_lat(long n, size_t size)
{
    double t0 = shb_now();
    if (shb_me == 0)
        for (long i = 0; i < n; i++) {
            shmem_getmem_nbi(shb_dst, shb_src, size, 1);
            shmem_quiet();
        }
    return shb_now() - t0;
}

#define WINDOW 64 /* operations between two quiets in the bandwidth rows */

static double put_bw(long n, size_t size)
{
    double t0 = shb_now();
    if (shb_me == 0) {
        for (long i = 0; i < n; i++) {
            shmem_putmem(shb_dst, shb_src, size, 1);
            if (i % WINDOW == WINDOW - 1)
                shmem_quiet();
        }
        shmem_quiet();
    }
    return shb_now() - t0;
}

static double put_nbi_bw(long n, size_t size)
{
    double t0 = shb_now();
    if (shb_me == 0) {
        for (long i = 0; i < n; i++) {
            shmem_putmem_nbi(shb_dst, shb_src, size, 1);
            if (i % WINDOW == WINDOW - 1)
                shmem_quiet();
        }
        shmem_quiet();
    }
    return shb_now() - t0;
}

static double get_nbi_bw(long n, size_t size)
{
    double t0 = shb_now();
    if (shb_me == 0) {
        for (long i = 0; i < n; i++) {
            shmem_getmem_nbi(shb_dst, shb_src, size, 1);
            if (i % WINDOW == WINDOW - 1)
                shmem_quiet();
        }
        shmem_quiet();
    }
    return shb_now() - t0;
}

/* ---- AMO rows: PE 0 on a word of PE 1 ------------------------------------------- */

static long *amo_word;

static double amo_fetch_add(long n, size_t size)
{
    (void)size;
    double t0 = shb_now();
    long s = 0;
    if (shb_me == 0)
        for (long i = 0; i < n; i++)
            s += shmem_long_atomic_fetch_add(amo_word, 1, 1);
    __asm__ volatile("" ::"r"(s));
    return shb_now() - t0;
}

static double amo_cswap(long n, size_t size)
{
    (void)size;
    double t0 = shb_now();
    long s = 0;
    if (shb_me == 0)
        for (long i = 0; i < n; i++)
            s = shmem_long_atomic_compare_swap(amo_word, s, s + 1, 1);
    return shb_now() - t0;
}

static double amo_fetch(long n, size_t size)
{
    (void)size;
    double t0 = shb_now();
    long s = 0;
    if (shb_me == 0)
        for (long i = 0; i < n; i++)
            s += shmem_long_atomic_fetch(amo_word, 1);
    __asm__ volatile("" ::"r"(s));
    return shb_now() - t0;
}

static double amo_add(long n, size_t size)
{
    (void)size;
    double t0 = shb_now();
    if (shb_me == 0) {
        for (long i = 0; i < n; i++)
            shmem_long_atomic_add(amo_word, 1, 1);
        shmem_quiet();
    }
    return shb_now() - t0;
}

/* ---- put with signal ping-pong: half the round trip ------------------------------ */

static uint64_t *sig_word;
static uint64_t sig_seq; /* the same on both PEs: both run every trial */

static void signal_put(size_t size, uint64_t v, int pe)
{
#if SHB_HAVE_SIGNAL
    shmem_putmem_signal(shb_dst, shb_src, size, sig_word, v, SHMEM_SIGNAL_SET, pe);
#else
    /* OpenSHMEM 1.4 has no put-with-signal: the idiom programs used. */
    shmem_putmem(shb_dst, shb_src, size, pe);
    shmem_fence();
    shmem_ulong_atomic_set((unsigned long *)sig_word, (unsigned long)v, pe);
#endif
}

static void signal_wait(uint64_t v)
{
#if SHB_HAVE_SIGNAL
    shmem_signal_wait_until(sig_word, SHMEM_CMP_GE, v);
#else
    shmem_ulong_wait_until((unsigned long *)sig_word, SHMEM_CMP_GE, (unsigned long)v);
#endif
}

static double signal_pp(long n, size_t size)
{
    uint64_t base = sig_seq;
    sig_seq += (uint64_t)n;
    double t0 = shb_now();
    if (shb_me == 0)
        for (long i = 1; i <= n; i++) {
            signal_put(size, base + (uint64_t)i, 1);
            signal_wait(base + (uint64_t)i);
        }
    else if (shb_me == 1)
        for (long i = 1; i <= n; i++) {
            signal_wait(base + (uint64_t)i);
            signal_put(size, base + (uint64_t)i, 0);
        }
    /* Ping-pong: per operation is half a round trip. */
    return (shb_now() - t0) / 2;
}

/* ---- collectives over every PE (the 1.4 active-set forms both libraries have) -- */

static long *psync[2];
static long *pwrk;
static long nsync;

static double barrier_all(long n, size_t size)
{
    (void)size;
    double t0 = shb_now();
    for (long i = 0; i < n; i++)
        shmem_barrier_all();
    return shb_now() - t0;
}

static double bcast(long n, size_t size)
{
    double t0 = shb_now();
    for (long i = 0; i < n; i++)
        shmem_broadcast64(shb_dst, shb_src, size / 8, 0, 0, 0, shb_npes,
                          psync[nsync++ & 1]);
    return shb_now() - t0;
}

static double reduce_sum(long n, size_t size)
{
    double t0 = shb_now();
    for (long i = 0; i < n; i++)
        shmem_long_sum_to_all(shb_dst, shb_src, (int)(size / 8), 0, 0, shb_npes, pwrk,
                              psync[nsync++ & 1]);
    return shb_now() - t0;
}

/* ---- GUPS: xor random words of a table spread over every PE ----------------------- */

static uint64_t *gups_table;
static uint64_t gups_rng = 0x9e3779b97f4a7c15ull;

static double gups(long n, size_t size)
{
    (void)size;
    uint64_t words = (uint64_t)1 << opt_gups_log2, x = gups_rng ^ (uint64_t)(shb_me + 1);
    double t0 = shb_now();
    for (long i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
        uint64_t g = x % (words * (uint64_t)shb_npes);
        shmem_uint64_atomic_xor(&gups_table[g % words], x, (int)(g / words));
    }
    shmem_quiet();
    shmem_barrier_all(); /* updates by every PE done */
    gups_rng = x;
    return shb_now() - t0;
}

/* ---- integer sort: bucket by key range, counts all-to-all, keys by puts ---------- */

#define SORT_KEY_MAX (1u << 20)
static uint32_t *sort_keys, *sort_send, *sort_recv;
static long *sort_counts_out, *sort_counts_in, *sort_fill, *sort_off;
static uint32_t *sort_hist;
static int sort_checked;
static long sort_cap; /* keys sort_recv holds */

/* One sort of this PE's keys across every PE; returns the keys received. */
static long sort_once(void)
{
    long np = shb_npes, per = (SORT_KEY_MAX + np - 1) / np;
    for (long d = 0; d < np; d++)
        sort_counts_out[d] = 0;
    for (long i = 0; i < opt_sort_keys; i++)
        sort_counts_out[sort_keys[i] / per]++;
    for (long d = 0, o = 0; d < np; d++)
        sort_off[d] = o, o += sort_counts_out[d];
    for (long i = 0; i < opt_sort_keys; i++)
        sort_send[sort_off[sort_keys[i] / per]++] = sort_keys[i];
    *sort_fill = 0;
    shmem_alltoall64(sort_counts_in, sort_counts_out, 1, 0, 0, shb_npes,
                     psync[nsync++ & 1]);
    shmem_barrier_all(); /* every fill word reset */
    for (long k = 0; k < np; k++) {
        long d = (shb_me + k) % np, c = sort_counts_out[d];
        long at = shmem_long_atomic_fetch_add(sort_fill, c, (int)d);
        if (at + c > sort_cap) {
            fprintf(stderr,
                    "shmem-bench: PE %d: sort receive buffer of PE %ld too small\n",
                    shb_me, d);
            shmem_global_exit(1);
        }
        shmem_putmem_nbi(sort_recv + at, sort_send + sort_off[d] - c, (size_t)c * 4,
                         (int)d);
    }
    shmem_quiet();
    shmem_barrier_all();
    long got = *sort_fill;
    /* Counting sort of the received range, in place. */
    uint32_t lo = (uint32_t)(shb_me * per);
    memset(sort_hist, 0, sizeof(uint32_t) * (size_t)per);
    for (long i = 0; i < got; i++)
        sort_hist[sort_recv[i] - lo]++;
    for (long k = 0, i = 0; k < per; k++)
        for (uint32_t c = sort_hist[k]; c; c--)
            sort_recv[i++] = lo + (uint32_t)k;
    return got;
}

static double isort(long n, size_t size)
{
    (void)size;
    double t0 = shb_now();
    for (long i = 0; i < n; i++) {
        long got = sort_once();
        if (!sort_checked) {
            /* Once: every key arrived where it belongs, in order. */
            long expect = 0, per = (SORT_KEY_MAX + shb_npes - 1) / shb_npes;
            for (int s = 0; s < shb_npes; s++)
                expect += sort_counts_in[s];
            int bad = got != expect;
            for (long k = 1; k < got; k++)
                bad |= sort_recv[k - 1] > sort_recv[k];
            for (long k = 0; k < got; k++)
                bad |= sort_recv[k] / per != (uint32_t)shb_me;
            if (bad) {
                fprintf(stderr, "shmem-bench: PE %d: integer sort result is wrong\n",
                        shb_me);
                shmem_global_exit(1);
            }
            sort_checked = 1;
        }
    }
    return shb_now() - t0;
}

/* ---- main ------------------------------------------------------------------------ */

static size_t parse_size(const char *s)
{
    char *e;
    double v = strtod(s, &e);
    switch (*e) {
    case 'k':
    case 'K': v *= 1024; break;
    case 'm':
    case 'M': v *= 1024 * 1024; break;
    case 0: break;
    default: v = -1;
    }
    return v > 0 ? (size_t)v : 0;
}

static void usage(const char *why)
{
    if (shb_me == 0)
        fprintf(
            stderr,
            "shmem-bench: %s\n"
            "usage: oshrun -np 2 shmem-bench [--json] [--row-time S] [--trials N]\n"
            "       [--rows F,...] [--sizes 8,64,4K] [--gups-log2 N] [--sort-keys N]\n"
            "families: lat bw rate amo signal barrier bcast reduce gups sort native\n",
            why);
    shmem_global_exit(2);
}

static void options(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) {
            opt_json = 1;
            continue;
        }
        if (!v)
            usage("an option without its value, or an unknown option");
        i++;
        if (!strcmp(a, "--row-time")) {
            opt_row_time = atof(v);
            if (!(opt_row_time > 0 && opt_row_time <= 600))
                usage("--row-time wants seconds in (0, 600]");
        } else if (!strcmp(a, "--trials")) {
            opt_trials = atoi(v);
            if (opt_trials < 3 || opt_trials > 64)
                usage("--trials wants 3 .. 64");
        } else if (!strcmp(a, "--rows")) {
            opt_rows = v;
        } else if (!strcmp(a, "--gups-log2")) {
            opt_gups_log2 = atoi(v);
            if (opt_gups_log2 < 4 || opt_gups_log2 > 26)
                usage("--gups-log2 wants 4 .. 26");
        } else if (!strcmp(a, "--sort-keys")) {
            opt_sort_keys = atol(v);
            if (opt_sort_keys < 1 || opt_sort_keys > (1L << 24))
                usage("--sort-keys wants 1 .. 16M");
        } else if (!strcmp(a, "--sizes")) {
            int k = 0;
            for (char *s = (char *)v; *s && k < 64;) {
                char *e = strchr(s, ',');
                if (e)
                    *e = 0;
                size_t z = parse_size(s);
                if (!z || z % 8)
                    usage("--sizes wants multiples of 8 bytes (units K, M), "
                          "comma-separated");
                user_sizes[k++] = z;
                s = e ? e + 1 : s + strlen(s);
            }
            shb_rma_sizes = shb_small_sizes = user_sizes;
            shb_rma_nsizes = shb_small_nsizes = k;
        } else {
            usage("unknown option");
        }
    }
}

int main(int argc, char **argv)
{
    shmem_init();
    shb_me = shmem_my_pe();
    shb_npes = shmem_n_pes();
    options(argc, argv);
    if (shb_npes < 2)
        usage("needs at least 2 PEs");
    t_start = shb_now();
    for (int i = 0; i < shb_rma_nsizes; i++)
        if (shb_rma_sizes[i] > shb_max_bytes)
            shb_max_bytes = shb_rma_sizes[i];
    shb_src = shmem_malloc(shb_max_bytes);
    shb_dst = shmem_malloc(shb_max_bytes);
    amo_word = shmem_calloc(1, sizeof(long));
    share_word = shmem_calloc(1, sizeof(long));
    trial_time = shmem_calloc((size_t)shb_npes, sizeof(double));
    sig_word = shmem_calloc(1, sizeof(uint64_t));
    for (int k = 0; k < 2; k++) {
        psync[k] = shmem_malloc(SHMEM_REDUCE_SYNC_SIZE * sizeof(long) +
                                SHMEM_BCAST_SYNC_SIZE * sizeof(long) +
                                SHMEM_ALLTOALL_SYNC_SIZE * sizeof(long));
        for (size_t j = 0; j < SHMEM_REDUCE_SYNC_SIZE + SHMEM_BCAST_SYNC_SIZE +
                                   SHMEM_ALLTOALL_SYNC_SIZE;
             j++)
            psync[k][j] = SHMEM_SYNC_VALUE;
    }
    size_t wrk = shb_max_bytes / 16 + 1;
    if (wrk < SHMEM_REDUCE_MIN_WRKDATA_SIZE)
        wrk = SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    pwrk = shmem_malloc(wrk * sizeof(long));
    if (!shb_src || !shb_dst || !amo_word || !share_word || !trial_time || !sig_word ||
        !psync[0] || !psync[1] || !pwrk)
        usage("shmem_malloc failed: raise SHMEM_SYMMETRIC_SIZE");
    memset(shb_src, 1, shb_max_bytes);
    memset(shb_dst, 0, shb_max_bytes);
    for (size_t j = 0; j < shb_max_bytes / 8; j++)
        ((long *)shb_src)[j] = (long)j;
    shmem_barrier_all();
    if (shb_native_init && shb_selected("native"))
        shb_native_init();

    if (shb_me == 0 && !opt_json)
        printf(
            "# shmem-bench (%s), %d PEs, row time %g s; median of trials [p10 .. p90]\n",
            SHB_IMPL, shb_npes, opt_row_time);

    static const shb_row_t rows_lat[] = {
        {"lat", "put_lat", SHB_LAT_US, 0, put_lat, 1,
         "shmem_putmem loop, one quiet at the end", NULL},
        {"lat", "put_nbi_lat", SHB_LAT_US, 0, put_nbi_lat, 1,
         "shmem_putmem_nbi + shmem_quiet each", NULL},
        {"lat", "get_lat", SHB_LAT_US, 0, get_lat, 1, "shmem_getmem loop", NULL},
        {"lat", "get_nbi_lat", SHB_LAT_US, 0, get_nbi_lat, 1,
         "shmem_getmem_nbi + shmem_quiet each", NULL},
        {"bw", "put_bw", SHB_BW_MBS, 0, put_bw, 1, "shmem_putmem, quiet every 64", NULL},
        {"bw", "put_nbi_bw", SHB_BW_MBS, 0, put_nbi_bw, 1,
         "shmem_putmem_nbi, quiet every 64", NULL},
        {"bw", "get_nbi_bw", SHB_BW_MBS, 0, get_nbi_bw, 1,
         "shmem_getmem_nbi, quiet every 64", NULL},
    };
    for (size_t r = 0; r < sizeof rows_lat / sizeof rows_lat[0]; r++)
        shb_run_sizes(&rows_lat[r], shb_rma_sizes, shb_rma_nsizes);
    /* get_bw (blocking) is get_lat's loop: the bandwidth view of it. */
    static const shb_row_t get_bw_row = {"bw",    "get_bw", SHB_BW_MBS,          0,
                                         get_lat, 1,        "shmem_getmem loop", NULL};
    shb_run_sizes(&get_bw_row, shb_rma_sizes, shb_rma_nsizes);

    static const shb_row_t rate_row = {"rate",
                                       "put_nbi_rate",
                                       SHB_RATE_M,
                                       1,
                                       put_nbi_bw,
                                       1,
                                       "8-byte shmem_putmem_nbi, quiet every 64: Mmsg/s",
                                       NULL};
    static const size_t eight = 8;
    shb_run_sizes(&rate_row, &eight, 1);

    static const shb_row_t amo_rows[] = {
        {"amo", "fetch_add", SHB_LAT_US, 0, amo_fetch_add, 0,
         "shmem_long_atomic_fetch_add", NULL},
        {"amo", "compare_swap", SHB_LAT_US, 0, amo_cswap, 0,
         "shmem_long_atomic_compare_swap", NULL},
        {"amo", "add", SHB_LAT_US, 0, amo_add, 0, "shmem_long_atomic_add loop, one quiet",
         NULL},
        {"amo", "fetch", SHB_LAT_US, 0, amo_fetch, 0, "shmem_long_atomic_fetch", NULL},
    };
    for (size_t r = 0; r < sizeof amo_rows / sizeof amo_rows[0]; r++)
        shb_run_sizes(&amo_rows[r], &eight, 1);

    static const shb_row_t sig_row = {
        "signal",
        "put_signal_pp",
        SHB_LAT_US,
        0,
        signal_pp,
        1,
        SHB_HAVE_SIGNAL ? "shmem_putmem_signal ping-pong, half round trip"
                        : "1.4: putmem+fence+atomic_set ping-pong, half round trip",
        NULL};
    shb_run_sizes(&sig_row, shb_small_sizes, shb_small_nsizes);

    static const shb_row_t coll_rows[] = {
        {"barrier", "barrier_all", SHB_LAT_US, 0, barrier_all, 0, "shmem_barrier_all",
         NULL},
        {"bcast", "broadcast64", SHB_LAT_US, 0, bcast, 1,
         "shmem_broadcast64 from PE 0, every PE, two pSync alternating", NULL},
        {"reduce", "long_sum_to_all", SHB_LAT_US, 0, reduce_sum, 1,
         "shmem_long_sum_to_all, every PE, two pSync alternating", NULL},
    };
    shb_run_sizes(&coll_rows[0], &eight, 1);
    shb_run_sizes(&coll_rows[1], shb_small_sizes, shb_small_nsizes);
    shb_run_sizes(&coll_rows[2], shb_small_sizes, shb_small_nsizes);

    if (shb_selected("gups")) {
        size_t words = (size_t)1 << opt_gups_log2;
        gups_table = shmem_calloc(words, sizeof(uint64_t));
        if (!gups_table)
            usage("shmem_malloc of the GUPS table failed: lower --gups-log2 or raise "
                  "SHMEM_SYMMETRIC_SIZE");
        shmem_barrier_all();
        static const shb_row_t gups_row = {"gups",
                                           "gups_xor",
                                           SHB_RATE_M,
                                           0,
                                           gups,
                                           0,
                                           "shmem_uint64_atomic_xor on random words of a "
                                           "table over every PE: M updates/s, all PEs",
                                           NULL};
        shb_row_t g = gups_row;
        g.scale = shb_npes;
        shb_run(&g, words * 8 * (size_t)shb_npes);
        shmem_free(gups_table);
    }

    if (shb_selected("sort")) {
        long per = (SORT_KEY_MAX + shb_npes - 1) / shb_npes;
        size_t cap = (size_t)opt_sort_keys * 2 + 4096;
        sort_cap = (long)cap;
        sort_keys = malloc(sizeof(uint32_t) * (size_t)opt_sort_keys);
        sort_send = malloc(sizeof(uint32_t) * (size_t)opt_sort_keys);
        sort_hist = malloc(sizeof(uint32_t) * (size_t)per);
        sort_off = malloc(sizeof(long) * (size_t)shb_npes);
        sort_recv = shmem_malloc(sizeof(uint32_t) * cap);
        sort_counts_out = shmem_malloc(sizeof(long) * (size_t)shb_npes);
        sort_counts_in = shmem_malloc(sizeof(long) * (size_t)shb_npes);
        sort_fill = shmem_malloc(sizeof(long));
        if (!sort_keys || !sort_send || !sort_hist || !sort_off || !sort_recv ||
            !sort_counts_out || !sort_counts_in || !sort_fill)
            usage("memory for the sort failed: lower --sort-keys or raise "
                  "SHMEM_SYMMETRIC_SIZE");
        uint64_t x = 0x2545f4914f6cdd1dull * (uint64_t)(shb_me + 1);
        for (long i = 0; i < opt_sort_keys; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            sort_keys[i] = (uint32_t)(x % SORT_KEY_MAX);
        }
        shmem_barrier_all();
        static const shb_row_t sort_row = {"sort",
                                           "int_sort",
                                           SHB_TIME_MS,
                                           0,
                                           isort,
                                           0,
                                           "bucket sort of uniform keys: counts by "
                                           "alltoall64, keys by fetch_add + putmem_nbi",
                                           NULL};
        shb_run(&sort_row, (size_t)opt_sort_keys * 4);
    }

    if (shb_native_fini && shb_selected("native"))
        shb_native_fini();

    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
