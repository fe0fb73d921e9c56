/* Helpers for multi-rank tests: checks that name the rank, and start-up.
 * A failed check exits the rank with 1, so ternrun fails the whole job:
 * the job's status is the reduction over all ranks. */
#ifndef MP_UTIL_H
#define MP_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tern.h>

#include "../test_check.h"

#define MP_CHECK(cond, ...) TEST_CHECK_AS("rank", tern_rank(), cond, __VA_ARGS__)
#define MP_OK(call)         TEST_OK_AS("rank", tern_rank(), call)
/* The "mark:" line a killing script waits for (test_mark_as). */
#define MP_MARK(what) test_mark_as("rank", tern_rank(), what)

/* tern_init with a check; returns the rank. */
int mp_init(int *argc, char ***argv, int thread_level);
/* Barrier, tern_finalize, and a one-line PASS from rank 0. */
int mp_finish(const char *name);
/* Whether rank's segment is mapped here (self, or shm on this node): the
 * peers that a network transfer never reaches. Nodes alone do not say it,
 * as TERN_SHM=off keeps ranks of one machine on one node. */
int mp_mapped(int rank);
/* Whether any byte of [addr, addr+n) is a remote address of rank: in its
 * segment or its global variables as rank sees them. A test that passes
 * a pointer of its own (stack, global, own segment) to rank to see it
 * refused must check this first: rank's regions lie where its process
 * put them, and they may cover the pointer (on the network, each process
 * maps its segment where the kernel chooses; with ASLR off, ranks of one
 * program often map theirs at the same address, or a few MiB apart). */
int mp_remote_overlap(int rank, const void *addr, size_t n);
/* The mode a test program runs in, from its first argument: --threads
 * (MP_MODE_THREADS: the caller asks for TERN_THREAD_MULTIPLE, which its
 * source must name for CMake to label the test "threads"), --fault
 * (MP_MODE_FAULT) or none (MP_MODE_PLAIN). Call it before mp_init. */
enum { MP_MODE_PLAIN, MP_MODE_THREADS, MP_MODE_FAULT };
int mp_mode(int argc, char **argv);
/* The first rank after this one that it reaches through the network only
 * (not mp_mapped), or -1 where there is none. */
int mp_net_peer(void);
/* A failed message fails the quiet that completes it, once: issue(peer,
 * arg) runs with stderr captured, then the quiet must fail with a message
 * that holds the text of fmt (printf-style), and the next quiet succeed. */
void mp_quiet_fails_once(int peer, void (*issue)(int peer, void *arg), void *arg,
                         const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Runs fn on n threads, thread t given (void *)(intptr_t)t, and joins
 * them all (n at most 64); a thread that cannot start fails the rank.
 * mp_run_threads_keep stores what thread t returned in ret[t]. */
void mp_run_threads(int n, void *(*fn)(void *));
void mp_run_threads_keep(int n, void *(*fn)(void *), void **ret);
/* A small deterministic generator (64-bit LCG, the high bits out): the
 * same seed gives the same sequence on every rank, so a target can replay
 * what a source issued. */
typedef struct mp_rng {
    uint64_t s;
} mp_rng_t;
static inline uint32_t mp_rng_next(mp_rng_t *r)
{
    r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(r->s >> 33);
}
/* Deterministic test pattern byte for (rank, index, salt). */
static inline unsigned char mp_pattern(int rank, size_t i, unsigned salt)
{
    return test_pattern(rank, i, salt);
}

/* Bytes of buf[0, n) that differ from mp_pattern(rank, i, salt); *first is
 * the index of the first (n when none does). */
static inline size_t mp_pattern_misses(const unsigned char *buf, size_t n, int rank,
                                       unsigned salt, size_t *first)
{
    size_t bad = 0;
    *first = n;
    for (size_t i = 0; i < n; i++)
        if (buf[i] != mp_pattern(rank, i, salt) && bad++ == 0)
            *first = i;
    return bad;
}

/* Capture what this process writes to stderr between begin and end, to
 * check error messages; end returns the text (up to 8191 bytes, in a
 * buffer of the calling thread's, valid until its next capture ends).
 * Safe from several threads, handlers on the progress thread included:
 * fd 2 is the process's, so captures take turns, a thread that begins
 * while another captures waits for it to end. Hence the call between
 * begin and end must not wait for another thread of this rank (for a
 * message whose handler that thread may be running, blocked in begin):
 * capture calls that fail at once, as the refusals MP_EXPECT checks do.
 * Such a cycle fails the rank after 10 s, saying so. A handler that the
 * captured call runs on the same thread may capture too (nested). */
void mp_capture_begin(void);
const char *mp_capture_end(void);

/* Runs call, checks its status and that the captured message holds needle. */
#define MP_EXPECT(call, status, needle)                                              \
    do {                                                                             \
        mp_capture_begin();                                                          \
        int rc_ = (call);                                                            \
        const char *msg_ = mp_capture_end();                                         \
        MP_CHECK(rc_ == (status), "%s gave %d (%s), expected %d", #call, rc_,        \
                 tern_strerror(rc_), (status));                                      \
        MP_CHECK(strstr(msg_, needle) != NULL, "%s: message '%s' lacks '%s'", #call, \
                 msg_, needle);                                                      \
    } while (0)

#endif
