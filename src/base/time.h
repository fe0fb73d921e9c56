/* Monotonic time. */
#ifndef TN_TIME_H
#define TN_TIME_H

#include <limits.h>
#include <stdint.h>
#include <time.h>

static inline uint64_t tn_time_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A cheap clock of constant rate, for intervals only (x86-64: the TSC, one
 * read ~10 ns on Zen 4 against ~24 ns for clock_gettime; aarch64: the
 * virtual counter; elsewhere tn_time_ns). tn_wait_ticks_of_ns converts. */
static inline uint64_t tn_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    return tn_time_ns();
#endif
}

static inline double tn_time_s(void)
{
    return (double)tn_time_ns() * 1e-9;
}

/* A poll() timeout for left_s seconds: rounded up to whole milliseconds, 0
 * when none are left, and INT_MAX (24 days) past what an int holds, where
 * the plain cast would be undefined (TERN_BOOT_TIMEOUT=1e23 gave a negative
 * timeout, an unbounded wait). */
static inline int tn_poll_ms(double left_s)
{
    if (!(left_s > 0))
        return 0;
    if (left_s >= (INT_MAX - 1) / 1000.0)
        return INT_MAX;
    return (int)(left_s * 1000.0) + 1;
}

#endif
