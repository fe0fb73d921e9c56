/* The floor of a blocking round trip over the network provider (2 ranks,
 * TERN_SHM=off), in one job, rounds alternated: Tern's blocking u64
 * fetch-add (an atomic domain; auto: the active-message path over
 * tcp;ofi_rxm) and blocking 8-byte get, against raw libfabric on the same
 * provider (bench/raw_ofi.c): a message round trip (fi_send both ways), a
 * blocking fi_fetch_atomicmsg, a blocking 8-byte fi_readmsg, and a round
 * trip of fi_inject_write both ways polled in memory (no completion
 * anywhere). Built and run by scripts/net-floor.sh. Prints us per round
 * trip, median of the rounds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tern.h>

#include "raw_ofi.h"

enum { ROUNDS = 5, ROWS = 6 };

static const char *const names[ROWS] = {"tern_fadd_u64 (blocking, atomic domain)",
                                        "tern_get_8B (blocking)",
                                        "raw_msg_rtt (fi_send both ways)",
                                        "raw_fetch_atomic (fi_fetch_atomicmsg)",
                                        "raw_read_8B (fi_readmsg)",
                                        "raw_write_rtt (fi_inject_write both ways)"};

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (tern_init(&argc, &argv, TERN_THREAD_SINGLE) != TERN_OK)
        return 1;
    long n = argc > 1 ? atol(argv[1]) : 2000;
    uint64_t *word;
    tern_ad_t ad;
    if (tern_size() != 2 || tern_alloc_sym(64, (void **)&word) != TERN_OK ||
        tern_ad_create(TERN_AT_U64, TERN_OP_FADD, 0, &ad) != TERN_OK) {
        fprintf(stderr, "net_floor: needs 2 ranks and an atomic domain\n");
        return 1;
    }
    memset(word, 0, 64);
    tb_raw_ofi_t *raw = tb_raw_ofi_setup(1, 64);
    if (!raw) {
        fprintf(stderr, "net_floor: no raw libfabric baseline in this build\n");
        return 1;
    }
    int me = tern_rank();
    double us[ROWS][ROUNDS];
    uint64_t out = 0, local[8];
    int impl = 0;
    char why[256] = "";
    tern_ad_info(ad, &impl, why, sizeof(why));
    tern_barrier();
    for (int r = 0; r < ROUNDS; r++) {
        /* Tern: rank 1 serves in the barrier's progress. */
        if (me == 0) {
            uint64_t *w = tern_sym_addr(1, &word[0]);
            double t0 = now_us();
            for (long i = 0; i < n; i++)
                if (tern_ad_op_u64(ad, 1, w, TERN_OP_FADD, 1, 0, &out, 0) != TERN_OK)
                    return 1;
            us[0][r] = (now_us() - t0) / (double)n;
            t0 = now_us();
            for (long i = 0; i < n; i++)
                if (tern_get(local, 1, &w[1], 8, 0) != TERN_OK)
                    return 1;
            us[1][r] = (now_us() - t0) / (double)n;
        }
        tern_barrier();
        us[2][r] = 2 * tb_raw_ofi_pingpong(raw, 8, n) / 1e3;
        tern_barrier();
        us[5][r] = tb_raw_ofi_write_rtt(raw, n, (uint64_t)r * (uint64_t)(n + 1)) / 1e3;
        tern_barrier();
        if (me == 0) {
            us[3][r] = tb_raw_ofi_fadd(raw, n, 1) / 1e3;
            us[4][r] = tb_raw_ofi_lat(raw, 1, 8, n) / 1e3;
            tb_raw_ofi_release(raw);
        } else {
            tb_raw_ofi_serve(raw);
        }
        tern_barrier();
    }
    if (me == 0) {
        printf("# net_floor: 2 ranks, %ld ops per row and round, %d rounds alternated; "
               "atomic domain: %s\n",
               n, ROUNDS, why);
        printf("%-44s %8s   %s\n", "row", "median", "rounds (us per round trip)");
        for (int k = 0; k < ROWS; k++) {
            double s[ROUNDS];
            memcpy(s, us[k], sizeof(s));
            qsort(s, ROUNDS, sizeof(double), cmp);
            printf("%-44s %8.2f  ", names[k], s[ROUNDS / 2]);
            for (int r = 0; r < ROUNDS; r++)
                printf(" %.2f", us[k][r]);
            printf("\n");
        }
    }
    tern_barrier();
    tb_raw_ofi_teardown(raw);
    tern_ad_destroy(ad);
    return tern_finalize() == TERN_OK ? 0 : 1;
}
