/* Loading libfabric at run time (see ofi_dl.h). */
#include "xport/ofi/ofi_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <tern/status.h>

#include "base/cfg.h"
#include "base/log.h"
#include "base/mem.h"
#include "xport/ofi/ofi.h"

tn_fi_api_t tn_fi;
static int load_status = 1; /* 1: not tried */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

/* The fatal signals, and those a launcher ends a job with. */
static const int kept_signals[] = {SIGSEGV, SIGBUS,  SIGILL, SIGFPE,
                                   SIGABRT, SIGTERM, SIGINT, SIGHUP};
#define NKEPT (sizeof(kept_signals) / sizeof(kept_signals[0]))

static int load(void)
{
    /* Some provider libraries (infinipath/PSM) install signal handlers in
     * their constructors: for fatal signals, turning a crash into "exit 1"
     * that hides the signal from the launcher and the user; for SIGTERM
     * and SIGINT, calling exit() from the handler, so a rank that its
     * launcher ends runs its atexit handlers and library destructors on
     * top of whatever it was doing (seen: OpenSHMEM's "exiting while
     * initialized" error from every PE, now and then a core dumped in
     * that teardown). Put back what was there. */
    struct sigaction saved[NKEPT];
    for (size_t i = 0; i < NKEPT; i++)
        sigaction(kept_signals[i], NULL, &saved[i]);
    void *h = dlopen("libfabric.so.1", RTLD_NOW | RTLD_GLOBAL);
    for (size_t i = 0; i < NKEPT; i++)
        sigaction(kept_signals[i], &saved[i], NULL);
    if (!h) {
        tn_error("the network transport needs libfabric, which could not be "
                 "loaded (%s): install it (Debian: apt-get install libfabric1)",
                 dlerror());
        return TERN_ERR_UNSUPPORTED;
    }
    *(void **)&tn_fi.getinfo = dlsym(h, "fi_getinfo");
    *(void **)&tn_fi.freeinfo = dlsym(h, "fi_freeinfo");
    *(void **)&tn_fi.dupinfo = dlsym(h, "fi_dupinfo");
    *(void **)&tn_fi.fabric = dlsym(h, "fi_fabric");
    *(void **)&tn_fi.strerror = dlsym(h, "fi_strerror");
    *(void **)&tn_fi.version = dlsym(h, "fi_version");
    if (!tn_fi.getinfo || !tn_fi.freeinfo || !tn_fi.dupinfo || !tn_fi.fabric ||
        !tn_fi.strerror || !tn_fi.version) {
        tn_error("libfabric.so.1 lacks a function Tern needs: %s", dlerror());
        return TERN_ERR_UNSUPPORTED;
    }
    return TERN_OK;
}

int tn_fi_load(void)
{
    pthread_mutex_lock(&load_lock);
    if (load_status == 1)
        load_status = load();
    int rc = load_status;
    pthread_mutex_unlock(&load_lock);
    return rc;
}

/* The prefetch thread's state: 0 never started, 1 running, 2 done. */
static int pf_state;
static size_t pf_growth; /* written by the thread before pf_state = 2 */
static pthread_t pf_thread;
static int pf_joinable; /* pf_thread is to be joined */
static pthread_mutex_t pf_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pf_cond = PTHREAD_COND_INITIALIZER;

static void prefetch_done(void)
{
    pthread_mutex_lock(&pf_lock);
    pf_state = 2;
    pthread_cond_broadcast(&pf_cond);
    pthread_mutex_unlock(&pf_lock);
}

/* Loads libfabric and has its providers initialized (the first
 * fi_getinfo does that); see tn_ofi_prefetch. */
static void *prefetch(void *arg)
{
    (void)arg;
    size_t rss0 = tn_mem_rss_anon();
    /* On failure tn_ofi_create meets the same status, already logged. */
    if (tn_fi_load() == TERN_OK) {
        struct fi_info *h = tn_fi_allocinfo(), *info = NULL;
        if (h) {
            h->ep_attr->type = FI_EP_RDM;
            h->caps = FI_RMA;
            if (tn_fi.getinfo(FI_VERSION(1, 9), NULL, NULL, 0, h, &info) == 0)
                tn_fi.freeinfo(info);
            tn_fi.freeinfo(h);
        }
    }
    pf_growth = tn_mem_growth(rss0);
    prefetch_done();
    return NULL;
}

void tn_ofi_prefetch_wait(void)
{
    pthread_mutex_lock(&pf_lock);
    while (pf_state == 1)
        pthread_cond_wait(&pf_cond, &pf_lock);
    int join = pf_joinable;
    pf_joinable = 0;
    pthread_mutex_unlock(&pf_lock);
    /* Joined, not detached: a thread's exit frees its share of the heap
     * (glibc's per-thread cache and more) after prefetch() returns, and a
     * detached one could do so at any time later, moving the heap in use
     * that tern_init leaves (mp.peer_growth measures it). With the exit
     * delayed on purpose by 0.5 s, rank 0's heap after tern_init was 864 B
     * larger detached, 96 B joined. */
    if (join)
        pthread_join(pf_thread, NULL);
}

size_t tn_ofi_prefetch_growth(void)
{
    pthread_mutex_lock(&pf_lock);
    size_t g = pf_state == 2 ? pf_growth : 0;
    pthread_mutex_unlock(&pf_lock);
    return g;
}

void tn_ofi_prefetch(void)
{
    /* Before any thread reads the environment, and before libfabric's
     * providers read their variables (at their first fi_getinfo). */
    tn_ofi_size_apply(1);
    pthread_mutex_lock(&pf_lock);
    int state = pf_state;
    if (state == 0)
        pf_state = 1;
    pthread_mutex_unlock(&pf_lock);
    if (state != 0)
        return;
    pthread_mutex_lock(&pf_lock);
    int rc = pthread_create(&pf_thread, NULL, prefetch, NULL);
    pf_joinable = rc == 0;
    pthread_mutex_unlock(&pf_lock);
    if (rc != 0) {
        tn_debug("ofi: no thread to load libfabric ahead (%s); loading it when needed",
                 strerror(rc));
        prefetch_done();
        return;
    }
    /* A job that exits before tn_ofi_create (start-up failed) must not
     * run libfabric's destructor under the thread. */
    atexit(tn_ofi_prefetch_wait);
}
