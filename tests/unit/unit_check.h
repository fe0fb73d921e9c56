/* CHECK for the one-process unit tests: print the failed condition with
 * its place and fail the test (exit status 1 through main's return). */
#ifndef UNIT_CHECK_H
#define UNIT_CHECK_H

#include <stdio.h>

#define CHECK(c)                                                                  \
    do {                                                                          \
        if (!(c)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
            return 1;                                                             \
        }                                                                         \
    } while (0)

#endif
