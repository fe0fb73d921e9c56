/* Helpers of the OpenSHMEM tests: checks that name the PE (a failed check
 * exits the PE with 1, so oshrun fails the whole job) and test patterns. */
#ifndef SHMEM_TEST_H
#define SHMEM_TEST_H

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../test_check.h"

#define CHECK(cond, ...) TEST_CHECK_AS("PE", shmem_my_pe(), cond, __VA_ARGS__)

/* Deterministic pattern byte for (pe, index, salt). */
static inline unsigned char pat(int pe, size_t i, unsigned salt)
{
    return test_pattern(pe, i, salt);
}

static inline void fill(void *buf, size_t n, int pe, unsigned salt)
{
    for (size_t i = 0; i < n; i++)
        ((unsigned char *)buf)[i] = pat(pe, i, salt);
}

/* Index of the first byte of buf that differs from the pattern, or -1. */
static inline long mismatch(const void *buf, size_t n, int pe, unsigned salt)
{
    for (size_t i = 0; i < n; i++)
        if (((const unsigned char *)buf)[i] != pat(pe, i, salt))
            return (long)i;
    return -1;
}

/* Seconds on the monotonic clock: the tests' bounds on a wait. */
static inline double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Barrier, a PASS line from PE 0, finalize. */
static inline int finish(const char *name)
{
    shmem_barrier_all();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_finalize();
    if (me == 0)
        printf("%s: PASS on %d PEs\n", name, n);
    return 0;
}

#endif
