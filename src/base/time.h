/* Monotonic time. */
#ifndef TN_TIME_H
#define TN_TIME_H

#include <stdint.h>
#include <time.h>

static inline uint64_t tn_time_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline double tn_time_s(void)
{
    return (double)tn_time_ns() * 1e-9;
}

#endif
