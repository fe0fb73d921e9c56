/* Start-up and shutdown shared by the multi-rank tests. */
#include "mp_util.h"

#include <pthread.h>
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

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static int saved_fd = -1, pipe_rd = -1;
static char captured[8192];

void mp_capture_begin(void)
{
    int p[2];
    MP_CHECK(pipe(p) == 0, "pipe");
    fflush(stderr);
    saved_fd = dup(STDERR_FILENO);
    dup2(p[1], STDERR_FILENO);
    close(p[1]);
    pipe_rd = p[0];
}

const char *mp_capture_end(void)
{
    fflush(stderr);
    dup2(saved_fd, STDERR_FILENO);
    close(saved_fd);
    ssize_t n = read(pipe_rd, captured, sizeof(captured) - 1);
    close(pipe_rd);
    captured[n > 0 ? n : 0] = '\0';
    if (strstr(captured, "runtime error:") || strstr(captured, "Sanitizer"))
        fputs(captured, stderr); /* a sanitizer's report is not the call's */
    return captured;
}

int mp_mapped(int rank)
{
    void *base;
    size_t size;
    return tern_segment_query(rank, &base, &size) == TERN_OK &&
           tern_ptr(rank, base) != NULL;
}

void mp_run_threads(int n, void *(*fn)(void *))
{
    pthread_t th[64];
    MP_CHECK(n >= 0 && n <= 64, "mp_run_threads: %d threads (at most 64)", n);
    for (int t = 0; t < n; t++)
        MP_CHECK(pthread_create(&th[t], NULL, fn, (void *)(intptr_t)t) == 0,
                 "pthread_create");
    for (int t = 0; t < n; t++)
        pthread_join(th[t], NULL);
}
