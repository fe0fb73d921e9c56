/* Optional progress thread (TERN_PROGRESS_THREAD=1): drives the provider
 * while the application computes without calling Tern, so that peers'
 * puts and gets into this rank complete with manual-progress providers. */
#include <sched.h>
#include <string.h>
#include <time.h>

#include <tern/status.h>

#include "base/log.h"
#include "xport/ofi/ofi.h"

static void *progress_main(void *arg)
{
    tn_ofi_t *o = arg;
    unsigned idle = 0;
    while (!atomic_load_explicit(&o->thread_stop, memory_order_relaxed)) {
        if (tn_ofi_poll(&o->base) > 0) {
            idle = 0;
            continue;
        }
        /* Idle: back off to a short sleep so an idle thread does not
         * steal a core from the application. */
        if (++idle < 64) {
            sched_yield();
        } else {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

int tn_ofi_thread_start(tn_ofi_t *o, long cpu)
{
    atomic_store(&o->thread_stop, 0);
    int rc = pthread_create(&o->thread, NULL, progress_main, o);
    if (rc) {
        tn_error("cannot start the progress thread: %s", strerror(rc));
        return TERN_ERR_SYS;
    }
    o->have_thread = 1;
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET((int)cpu, &set);
        rc = pthread_setaffinity_np(o->thread, sizeof(set), &set);
        if (rc)
            tn_warn("cannot pin the progress thread to CPU %ld "
                    "(TERN_PROGRESS_THREAD_CPU): %s",
                    cpu, strerror(rc));
    }
    return TERN_OK;
}

void tn_ofi_thread_stop(tn_ofi_t *o)
{
    if (!o->have_thread)
        return;
    atomic_store(&o->thread_stop, 1);
    pthread_join(o->thread, NULL);
    o->have_thread = 0;
}
