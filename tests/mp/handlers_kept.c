/* The signal handlers a program had before tern_init are the ones it has
 * after, when the network transport loaded libfabric: Debian's links the
 * infinipath/PSM libraries, whose constructors install handlers for
 * SIGSEGV and the like (a crash turned into "exit 1") and for SIGTERM and
 * SIGINT (exit() called from the handler, so a rank ended by its launcher
 * ran its atexit handlers and library destructors on top of its work).
 * Checked for the default action and for a handler of the program's own. */
#include <signal.h>
#include <string.h>

#include "mp_util.h"

static void own_handler(int sig)
{
    (void)sig;
}

int main(int argc, char **argv)
{
    static const int sigs[] = {SIGSEGV, SIGBUS,  SIGILL, SIGFPE,
                               SIGABRT, SIGTERM, SIGINT, SIGHUP};
    enum { N = sizeof(sigs) / sizeof(sigs[0]) };
    struct sigaction own, want[N];
    memset(&own, 0, sizeof(own));
    own.sa_handler = own_handler;
    sigemptyset(&own.sa_mask);
    sigaction(SIGHUP, &own, NULL);
    for (int i = 0; i < N; i++)
        sigaction(sigs[i], NULL, &want[i]);
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size(), right = (me + 1) % n;
    /* Reach the right neighbour (over the network unless it is mapped). */
    void *base;
    size_t size;
    uint64_t v = (uint64_t)me;
    MP_OK(tern_segment_query(right, &base, &size));
    MP_OK(tern_put(right, (char *)base + 8 * me, &v, sizeof(v), 0));
    MP_OK(tern_quiet());
    MP_OK(tern_barrier());
    for (int i = 0; i < N; i++) {
        struct sigaction got;
        sigaction(sigs[i], NULL, &got);
        MP_CHECK(got.sa_handler == want[i].sa_handler,
                 "signal %d (%s): handler %p after tern_init, %p before (%s)", sigs[i],
                 strsignal(sigs[i]), (void *)got.sa_handler, (void *)want[i].sa_handler,
                 mp_mapped(right) ? "right neighbour mapped"
                                  : "right neighbour on the network");
    }
    return mp_finish("handlers_kept");
}
