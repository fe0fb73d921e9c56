/* Checks shared by every multi-process test program: a failed check prints
 * who failed (the rank or PE, as the program names itself), where and why,
 * and exits with 1, which the launcher turns into the job's failure; and
 * the deterministic byte pattern the transfer tests fill and compare. */
#ifndef TEST_CHECK_H
#define TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* who: a string such as "rank" or "PE"; id: its number. */
#define TEST_CHECK_AS(who, id, cond, ...)                                       \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s %d: %s:%d: check failed: %s: ", who, (int)(id), \
                    __FILE__, __LINE__, #cond);                                 \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

/* call returns a tern_status_t (tern/status.h): TERN_OK or a failed check. */
#define TEST_OK_AS(who, id, call)                                                 \
    do {                                                                          \
        int test_rc_ = (call);                                                    \
        TEST_CHECK_AS(who, id, test_rc_ == TERN_OK, "%s returned %d (%s)", #call, \
                      test_rc_, tern_strerror(test_rc_));                         \
    } while (0)

/* With TEST_MARK set, one line "mark: <who> <id> (pid P): <what>" on
 * stdout, flushed: a script that kills this process in the middle of a
 * phase (tests/mp/kill_mid.sh) waits for the line, so the kill lands
 * there and not before or after it. Without TEST_MARK, nothing. */
static inline void test_mark_as(const char *who, int id, const char *what)
{
    if (!getenv("TEST_MARK"))
        return;
    printf("mark: %s %d (pid %ld): %s\n", who, id, (long)getpid(), what);
    fflush(stdout);
}

/* Pattern byte for (rank or PE, index, salt). */
static inline unsigned char test_pattern(int id, size_t i, unsigned salt)
{
    return (unsigned char)((id * 131u + i * 7u + salt * 31u + (i >> 8)) & 0xff);
}

#endif
