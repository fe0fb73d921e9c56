/* The physical floor of a job's start-up: the time this machine needs to
 * fault in a given number of bytes of fresh shared memory and to give them
 * back, using every online CPU at once: the work that the ranks' segment
 * fault-in and their release at the job's end must do in sum, however the
 * ranks are scheduled. One thread per CPU, each with a shared mapping of
 * its own share (a shmem object, as a segment is), populated and then
 * unmapped, which frees the pages as a rank's exit does. */
#include "bench.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define FLOOR_THREADS 256

typedef struct floor_share {
    char *base;
    size_t len;
    int err;
    pthread_t tid;
} floor_share_t;

static void *populate_share(void *arg)
{
    floor_share_t *s = arg;
    long page = sysconf(_SC_PAGESIZE);
    if (madvise(s->base, s->len, MADV_POPULATE_WRITE) == 0)
        return NULL;
    if (errno != EINVAL) {
        s->err = errno;
        return NULL;
    }
    for (size_t off = 0; off < s->len; off += (size_t)page)
        ((volatile char *)s->base)[off] = 1;
    return NULL;
}

static void *release_share(void *arg)
{
    floor_share_t *s = arg;
    munmap(s->base, s->len);
    return NULL;
}

/* fn on every share, each on its own thread (share 0 on this one). */
static double floor_pass(floor_share_t *s, int nt, void *(*fn)(void *))
{
    uint64_t t0 = tb_now_ns();
    for (int i = 1; i < nt; i++)
        if (pthread_create(&s[i].tid, NULL, fn, &s[i]) != 0)
            fn(&s[i]);
    fn(&s[0]);
    for (int i = 1; i < nt; i++)
        if (s[i].tid)
            pthread_join(s[i].tid, NULL);
    return (double)(tb_now_ns() - t0) / 1e9;
}

int tb_faultin_floor(size_t bytes, tb_floor_t *out)
{
    static floor_share_t s[FLOOR_THREADS];
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN), page = sysconf(_SC_PAGESIZE);
    int nt = ncpu < 1 ? 1 : ncpu > FLOOR_THREADS ? FLOOR_THREADS : (int)ncpu;
    size_t share = (bytes / (size_t)nt + (size_t)page - 1) / (size_t)page * (size_t)page;
    int rc = 0;
    for (int i = 0; i < nt; i++) {
        s[i] = (floor_share_t){.len = share};
        s[i].base =
            mmap(NULL, share, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (s[i].base == MAP_FAILED) {
            for (int k = 0; k < i; k++)
                munmap(s[k].base, share);
            return -1;
        }
    }
    out->threads = nt;
    out->faultin_s = floor_pass(s, nt, populate_share);
    for (int i = 0; i < nt; i++) {
        rc |= s[i].err;
        s[i].tid = 0;
    }
    out->release_s = floor_pass(s, nt, release_share);
    return rc ? -1 : 0;
}
