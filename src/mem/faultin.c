/* Fault-in of a fresh segment: every page is allocated before first use,
 * by worker threads. Spread (interleave, first touch): workers pinned per
 * NUMA domain, each domain taking every D-th chunk so that the kernel's
 * page zeroing runs on all memory controllers at once. Otherwise (a bind
 * policy decides where pages go) the workers run where the rank may. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <tern/status.h>

#include "base/log.h"
#include "base/topo.h"
#include "mem/segment.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define FAULTIN_CHUNK (4u << 20) /* large enough to amortize one madvise */

typedef struct faultin_job {
    char *addr;
    size_t len, page, nchunks;
    int ndomains;
    _Atomic size_t next[64]; /* per-domain chunk counter (64 domains max) */
    _Atomic int failed;      /* errno of the first failure */
} faultin_job_t;

typedef struct faultin_worker {
    faultin_job_t *job;
    int domain;
    pthread_t tid;
} faultin_worker_t;

/* Populate [p, p+len): one system call that allocates every page (and
 * reports ENOMEM instead of a later SIGBUS); plain stores where the kernel
 * lacks MADV_POPULATE_WRITE. */
static int populate(char *p, size_t len, size_t page)
{
    if (madvise(p, len, MADV_POPULATE_WRITE) == 0)
        return 0;
    if (errno != EINVAL)
        return errno;
    for (size_t off = 0; off < len; off += page)
        ((volatile char *)p)[off] = 0;
    return 0;
}

static void run_domain(faultin_job_t *job, int d)
{
    for (;;) {
        size_t k = atomic_fetch_add_explicit(&job->next[d], 1, memory_order_relaxed);
        size_t c = (size_t)d + k * (size_t)job->ndomains;
        if (c >= job->nchunks || atomic_load_explicit(&job->failed, memory_order_relaxed))
            return;
        size_t off = c * FAULTIN_CHUNK;
        size_t len = job->len - off < FAULTIN_CHUNK ? job->len - off : FAULTIN_CHUNK;
        int err = populate(job->addr + off, len, job->page);
        if (err) {
            int zero = 0;
            atomic_compare_exchange_strong(&job->failed, &zero, err);
            return;
        }
    }
}

static void *worker_main(void *arg)
{
    faultin_worker_t *w = arg;
    const tn_topo_t *t = tn_topo_get();
    hwloc_const_cpuset_t cs = tn_topo_numa_cpuset(w->domain);
    if (t && cs && w->job->ndomains > 1)
        hwloc_set_cpubind(t->h, cs, HWLOC_CPUBIND_THREAD);
    run_domain(w->job, w->domain);
    return NULL;
}

static int auto_threads(int local_ranks)
{
    const tn_topo_t *t = tn_topo_get();
    int pus = t ? t->npus : 1;
    int lr = local_ranks > 0 ? local_ranks : 1;
    int n = pus / lr;
    return n > 0 ? n : 1;
}

int tn_faultin(void *addr, size_t len, size_t page_size, int mode, int threads,
               int local_ranks, int spread)
{
    if (mode == TN_FAULTIN_NONE || len == 0)
        return 0;
    faultin_job_t *job = calloc(1, sizeof(*job));
    if (!job)
        return TERN_ERR_NOMEM;
    const tn_topo_t *t = tn_topo_get();
    job->addr = addr;
    job->len = len;
    job->page = page_size;
    job->nchunks = (len + FAULTIN_CHUNK - 1) / FAULTIN_CHUNK;
    job->ndomains = spread && t && t->nnuma > 1 && t->thissystem
                        ? (t->nnuma < 64 ? t->nnuma : 64)
                        : 1;
    int nthreads = mode == TN_FAULTIN_SERIAL ? 1
                   : threads > 0             ? threads
                                             : auto_threads(local_ranks);
    if ((size_t)nthreads > job->nchunks)
        nthreads = (int)job->nchunks;
    if (nthreads < job->ndomains && mode == TN_FAULTIN_PARALLEL)
        nthreads = job->ndomains; /* one toucher per domain at least */

    int used = 1;
    if (nthreads <= 1 && job->ndomains == 1) {
        run_domain(job, 0);
    } else {
        faultin_worker_t *w = calloc((size_t)nthreads, sizeof(*w));
        if (!w) {
            free(job);
            return TERN_ERR_NOMEM;
        }
        /* The calling thread is worker 0; helpers are worker 1.. */
        int started = 0;
        for (int i = 1; i < nthreads; i++) {
            w[i].job = job;
            w[i].domain = i % job->ndomains;
            if (pthread_create(&w[i].tid, NULL, worker_main, &w[i]) != 0)
                break;
            started = i;
        }
        run_domain(job, 0);
        /* Domains without a started worker are finished here. */
        for (int d = 1; d < job->ndomains; d++)
            if (d > started)
                run_domain(job, d);
        for (int i = 1; i <= started; i++)
            pthread_join(w[i].tid, NULL);
        used = started + 1;
        free(w);
    }
    int failed = atomic_load(&job->failed);
    free(job);
    if (failed) {
        tn_error("could not allocate the segment's pages (%s): lower "
                 "TERN_SEGMENT_SIZE or free memory",
                 failed == ENOMEM ? "out of memory" : "fault-in failed");
        return TERN_ERR_NOMEM;
    }
    return used;
}
