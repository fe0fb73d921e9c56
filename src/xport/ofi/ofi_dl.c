/* Loading libfabric at run time (see ofi_dl.h). */
#include "xport/ofi/ofi_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>

#include <tern/status.h>

#include "base/log.h"

tn_fi_api_t tn_fi;
static int load_status = 1; /* 1: not tried */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define NFATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))

static int load(void)
{
    /* Some provider libraries (infinipath/PSM) install handlers for fatal
     * signals in their constructors, turning a crash into "exit 1" that
     * hides the signal from the launcher and the user: put back what was
     * there. */
    struct sigaction saved[NFATAL];
    for (size_t i = 0; i < NFATAL; i++)
        sigaction(fatal_signals[i], NULL, &saved[i]);
    void *h = dlopen("libfabric.so.1", RTLD_NOW | RTLD_GLOBAL);
    for (size_t i = 0; i < NFATAL; i++)
        sigaction(fatal_signals[i], &saved[i], NULL);
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
