/* Start-up and shutdown shared by the multi-rank tests. */
#include "mp_util.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>

int mp_init(int *argc, char ***argv, int thread_level)
{
    MP_OK(tern_init(argc, argv, thread_level));
    return tern_rank();
}

int mp_finish(const char *name)
{
    MP_OK(tern_barrier());
    int rank = tern_rank(), size = tern_size();
    MP_OK(tern_finalize());
    if (rank == 0)
        printf("%s: PASS on %d ranks\n", name, size);
    return 0;
}

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* fd 2 is the process's, and handlers that capture may run on another
 * thread (the progress thread, a polling thread) while this one captures:
 * captures take turns through one lock held from begin to end. It is
 * recursive, for a handler that the captured call runs on the same thread:
 * the nested capture gets a pipe of its own and gives fd 2 back to the
 * outer one's. Waiting for the lock is bounded (CAPTURE_WAIT_S) so that a
 * cycle (the holder's call waiting for messages that a thread blocked here
 * holds; mp_util.h) fails the rank with a message instead of hanging it. */
#define CAPTURE_WAIT_S 10
#define CAPTURE_DEPTH  4
static pthread_once_t cap_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t cap_lock;
static int cap_stderr = -1;        /* the real stderr, for a failure while captured */
static int cap_depth;              /* under cap_lock, as cap[] */
static _Thread_local int cap_mine; /* captures this thread holds */
static struct {
    int saved_fd, pipe_rd;
} cap[CAPTURE_DEPTH];
static _Thread_local char captured[8192];

static void cap_init(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&cap_lock, &a);
    pthread_mutexattr_destroy(&a);
    cap_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
}

/* A failed check while fd 2 may be another thread's pipe: to the real
 * stderr, then exit as MP_CHECK does. */
#define CAP_CHECK(cond, ...)                                                     \
    do {                                                                         \
        if (!(cond)) {                                                           \
            dprintf(cap_stderr >= 0 ? cap_stderr : STDERR_FILENO,                \
                    "rank %d: %s:%d: check failed: %s: ", tern_rank(), __FILE__, \
                    __LINE__, #cond);                                            \
            dprintf(cap_stderr >= 0 ? cap_stderr : STDERR_FILENO, __VA_ARGS__);  \
            dprintf(cap_stderr >= 0 ? cap_stderr : STDERR_FILENO, "\n");         \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

void mp_capture_begin(void)
{
    pthread_once(&cap_once, cap_init);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += CAPTURE_WAIT_S;
    int rc = pthread_mutex_timedlock(&cap_lock, &until);
    CAP_CHECK(rc == 0,
              "mp_capture_begin: another thread has captured stderr for %d s (%s): "
              "does its captured call wait for messages whose handler waits here?",
              CAPTURE_WAIT_S, strerror(rc));
    CAP_CHECK(cap_depth < CAPTURE_DEPTH, "mp_capture_begin: more than %d nested",
              CAPTURE_DEPTH);
    int p[2];
    CAP_CHECK(pipe(p) == 0, "pipe: %s", strerror(errno));
    fflush(stderr);
    cap[cap_depth].saved_fd = dup(STDERR_FILENO);
    CAP_CHECK(cap[cap_depth].saved_fd >= 0 && dup2(p[1], STDERR_FILENO) == STDERR_FILENO,
              "dup, dup2: %s", strerror(errno));
    close(p[1]);
    cap[cap_depth].pipe_rd = p[0];
    cap_depth++;
    cap_mine++;
}

const char *mp_capture_end(void)
{
    CAP_CHECK(cap_mine > 0, "mp_capture_end without mp_capture_begin on this thread");
    cap_mine--;
    int d = --cap_depth;
    fflush(stderr);
    dup2(cap[d].saved_fd, STDERR_FILENO);
    close(cap[d].saved_fd);
    ssize_t n = read(cap[d].pipe_rd, captured, sizeof(captured) - 1);
    close(cap[d].pipe_rd);
    pthread_mutex_unlock(&cap_lock);
    captured[n > 0 ? n : 0] = '\0';
    if (strstr(captured, "runtime error:") || strstr(captured, "Sanitizer")) {
        /* A sanitizer's report is not the call's: to the real stderr (fd 2
         * may be another thread's capture by now). */
        ssize_t w = write(cap_stderr, captured, strlen(captured));
        (void)w;
    }
    return captured;
}

int mp_mapped(int rank)
{
    void *base;
    size_t size;
    return tern_segment_query(rank, &base, &size) == TERN_OK &&
           tern_ptr(rank, base) != NULL;
}

int mp_mode(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--threads"))
        return MP_MODE_THREADS;
    if (argc > 1 && !strcmp(argv[1], "--fault"))
        return MP_MODE_FAULT;
    return MP_MODE_PLAIN;
}

int mp_net_peer(void)
{
    int me = tern_rank(), n = tern_size();
    for (int k = 1; k < n; k++)
        if (!mp_mapped((me + k) % n))
            return (me + k) % n;
    return -1;
}

void mp_quiet_fails_once(int peer, void (*issue)(int peer, void *arg), void *arg,
                         const char *fmt, ...)
{
    char needle[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(needle, sizeof needle, fmt, ap);
    va_end(ap);
    mp_capture_begin();
    issue(peer, arg);
    int rc = tern_quiet();
    const char *msg = mp_capture_end();
    MP_CHECK(rc != TERN_OK, "quiet after a failed message returned TERN_OK");
    MP_CHECK(strstr(msg, needle) != NULL, "message '%s' lacks '%s'", msg, needle);
    MP_OK(tern_quiet()); /* reported once */
}

static int overlaps(uintptr_t a, size_t n, const void *base, size_t size)
{
    uintptr_t b = (uintptr_t)base;
    return size && n && a < b + size && b < a + n;
}

int mp_remote_overlap(int rank, const void *addr, size_t n)
{
    void *base = NULL, *sbase = NULL;
    size_t size = 0, ssize = 0;
    MP_OK(tern_segment_query(rank, &base, &size));
    MP_OK(tern_static_query(rank, &sbase, &ssize));
    return overlaps((uintptr_t)addr, n, base, size) ||
           overlaps((uintptr_t)addr, n, sbase, ssize);
}

void mp_run_threads_keep(int n, void *(*fn)(void *), void **ret)
{
    pthread_t th[64];
    MP_CHECK(n >= 0 && n <= 64, "mp_run_threads: %d threads (at most 64)", n);
    for (int t = 0; t < n; t++)
        MP_CHECK(pthread_create(&th[t], NULL, fn, (void *)(intptr_t)t) == 0,
                 "pthread_create");
    for (int t = 0; t < n; t++)
        pthread_join(th[t], ret ? &ret[t] : NULL);
}

void mp_run_threads(int n, void *(*fn)(void *))
{
    mp_run_threads_keep(n, fn, NULL);
}
