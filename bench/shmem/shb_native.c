/* shmem-bench, Tern build only: the rows of shb.c written with Tern's
 * native API (tern.h) instead of shmem.h, same loops, same buffers, each
 * run with its library row, their trials alternating (shb_run_sizes), so that
 * scripts/bench-shmem.py can report what libtshmem adds over Tern (impl
 * "tern-native" in the JSON rows). */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <tern.h>

#include "shb.h"

static void *r_dst, *r_src; /* shb_dst, shb_src as PE 1 sees them */
static int64_t *n_word, *r_word;
static uint64_t *n_sig;
static uint64_t sig_seq;
static tern_ad_t ad;

static void check(tern_status_t rc, const char *what)
{
    if (rc != TERN_OK) {
        fprintf(stderr, "shmem-bench: %s failed: %s\n", what, tern_strerror(rc));
        shmem_global_exit(1);
    }
}

static double put_lat(long n, size_t size)
{
    double t0 = shb_now();
    if (shb_me == 0) {
        for (long i = 0; i < n; i++)
            check(tern_put(1, r_dst, shb_src, size, 0), "tern_put");
        check(tern_quiet(), "tern_quiet");
    }
    return shb_now() - t0;
}

static double put_nbi_lat(long n, size_t size)
{
    double t0 = shb_now();
    if (shb_me == 0)
        for (long i = 0; i < n; i++) {
            check(tern_put_nbi(1, r_dst, shb_src, size, 0), "tern_put_nbi");
            check(tern_quiet(), "tern_quiet");
        }
    return shb_now() - t0;
}

static double get_lat(long n, size_t size)
{
    double t0 = shb_now();
    if (shb_me == 0)
        for (long i = 0; i < n; i++)
            check(tern_get(shb_dst, 1, r_src, size, 0), "tern_get");
    return shb_now() - t0;
}

static double put_nbi_bw(long n, size_t size)
{
    double t0 = shb_now();
    if (shb_me == 0) {
        for (long i = 0; i < n; i++) {
            check(tern_put_nbi(1, r_dst, shb_src, size, 0), "tern_put_nbi");
            if (i % 64 == 63)
                check(tern_nbi_sync(TERN_SYNC_REMOTE), "tern_nbi_sync");
        }
        check(tern_nbi_sync(TERN_SYNC_REMOTE), "tern_nbi_sync");
    }
    return shb_now() - t0;
}

static double fetch_add(long n, size_t size)
{
    (void)size;
    int64_t s = 0, r;
    double t0 = shb_now();
    if (shb_me == 0)
        for (long i = 0; i < n; i++) {
            check(tern_ad_op_i64(ad, 1, r_word, TERN_OP_FADD, 1, 0, &r, 0), "fadd");
            s += r;
        }
    __asm__ volatile("" ::"r"(s));
    return shb_now() - t0;
}

static double compare_swap(long n, size_t size)
{
    (void)size;
    int64_t s = 0;
    double t0 = shb_now();
    if (shb_me == 0)
        for (long i = 0; i < n; i++)
            check(tern_ad_op_i64(ad, 1, r_word, TERN_OP_CSWAP, s, s + 1, &s, 0), "cswap");
    return shb_now() - t0;
}

static double add(long n, size_t size)
{
    (void)size;
    double t0 = shb_now();
    if (shb_me == 0) {
        for (long i = 0; i < n; i++)
            check(tern_ad_op_i64(ad, 1, r_word, TERN_OP_ADD, 1, 0, NULL, 0), "add");
        check(tern_quiet(), "tern_quiet");
    }
    return shb_now() - t0;
}

static double barrier(long n, size_t size)
{
    (void)size;
    double t0 = shb_now();
    for (long i = 0; i < n; i++)
        check(tern_barrier(), "tern_barrier");
    return shb_now() - t0;
}

/* The deprecated shmem_broadcast64 / shmem_long_sum_to_all over every PE
 * are these calls on the world team in libtshmem (src/shmem/coll_aset.c):
 * the broadcast leaves the root's dest as it was, as
 * TERN_BCAST_KEEP_ROOT does. */
static double bcast(long n, size_t size)
{
    double t0 = shb_now();
    for (long i = 0; i < n; i++)
        check(tern_broadcast_flags(TERN_TEAM_WORLD, shb_dst, shb_src, size, 0,
                                   TERN_BCAST_KEEP_ROOT),
              "tern_broadcast_flags");
    return shb_now() - t0;
}

static double reduce_sum(long n, size_t size)
{
    double t0 = shb_now();
    for (long i = 0; i < n; i++)
        check(tern_allreduce(TERN_TEAM_WORLD, shb_dst, shb_src, size / 8, TERN_TYPE_INT64,
                             TERN_RED_SUM),
              "tern_allreduce");
    return shb_now() - t0;
}

static double signal_pp(long n, size_t size)
{
    uint64_t base = sig_seq;
    sig_seq += (uint64_t)n;
    int peer = 1 - shb_me;
    void *rs = tern_sym_addr(peer, n_sig), *rd = tern_sym_addr(peer, shb_dst);
    double t0 = shb_now();
    if (shb_me <= 1)
        for (long i = 1; i <= n; i++) {
            uint64_t v = base + (uint64_t)i;
            if (shb_me == 1)
                check(tern_wait_until_u64(n_sig, TERN_CMP_GE, v), "tern_wait_until_u64");
            check(tern_put_signal(peer, rd, shb_src, size, rs, v, TERN_SIGNAL_SET, 0),
                  "tern_put_signal");
            if (shb_me == 0)
                check(tern_wait_until_u64(n_sig, TERN_CMP_GE, v), "tern_wait_until_u64");
        }
    return (shb_now() - t0) / 2;
}

static const shb_row_t pairs[] = {
    {"native", "put_lat", SHB_LAT_US, 0, put_lat, 1, "tern_put loop, one tern_quiet",
     "tern-native"},
    {"native", "put_nbi_lat", SHB_LAT_US, 0, put_nbi_lat, 1,
     "tern_put_nbi, tern_quiet each", "tern-native"},
    {"native", "get_lat", SHB_LAT_US, 0, get_lat, 1, "tern_get loop", "tern-native"},
    {"native", "put_nbi_bw", SHB_BW_MBS, 0, put_nbi_bw, 1,
     "tern_put_nbi, tern_nbi_sync(REMOTE) every 64", "tern-native"},
    {"native", "fetch_add", SHB_LAT_US, 0, fetch_add, 0, "tern_ad_op_i64 FADD",
     "tern-native"},
    {"native", "compare_swap", SHB_LAT_US, 0, compare_swap, 0, "tern_ad_op_i64 CSWAP",
     "tern-native"},
    {"native", "add", SHB_LAT_US, 0, add, 0, "tern_ad_op_i64 ADD loop, one tern_quiet",
     "tern-native"},
    {"native", "barrier_all", SHB_LAT_US, 0, barrier, 0, "tern_barrier", "tern-native"},
    {"native", "put_signal_pp", SHB_LAT_US, 0, signal_pp, 1,
     "tern_put_signal ping-pong, half round trip", "tern-native"},
    {"native", "broadcast64", SHB_LAT_US, 0, bcast, 1,
     "tern_broadcast_flags KEEP_ROOT on TERN_TEAM_WORLD from rank 0", "tern-native"},
    {"native", "long_sum_to_all", SHB_LAT_US, 0, reduce_sum, 1,
     "tern_allreduce on TERN_TEAM_WORLD, INT64 SUM", "tern-native"},
};

void shb_native_init(void)
{
    n_word = shmem_calloc(1, sizeof(int64_t));
    n_sig = shmem_calloc(1, sizeof(uint64_t));
    if (!n_word || !n_sig) {
        fprintf(stderr, "shmem-bench: shmem_calloc failed\n");
        shmem_global_exit(1);
    }
    r_dst = tern_sym_addr(1, shb_dst);
    r_src = tern_sym_addr(1, shb_src);
    r_word = tern_sym_addr(1, n_word);
    check(tern_ad_create(TERN_AT_I64, TERN_OP_FADD | TERN_OP_CSWAP | TERN_OP_ADD, 0, &ad),
          "tern_ad_create");
    shmem_barrier_all();
}

const shb_row_t *shb_native_pair(const char *op)
{
    for (size_t r = 0; r < sizeof pairs / sizeof pairs[0]; r++)
        if (!strcmp(pairs[r].op, op))
            return &pairs[r];
    return NULL;
}

void shb_native_fini(void)
{
    shmem_barrier_all();
    tern_ad_destroy(ad);
}
