/* Who pays the handler-effects acquire at a wait's return (core.h,
 * tn_core_effects_on): on exactly where another thread than the waiting
 * one can run handlers, TERN_THREAD_MULTIPLE (--multiple) or the progress
 * thread (TERN_PROGRESS_THREAD=1 in a job with a network peer: the thread
 * starts only where a network needs polling). A shm-only job, with the
 * thread asked for or not, must not pay it. (Whether the edge it gives is
 * enough is for ThreadSanitizer: scripts/test-sanitizers.sh tsan.) */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "mp_util.h"

int main(int argc, char **argv)
{
    int multiple = argc > 1 && !strcmp(argv[1], "--multiple");
    int me = mp_init(&argc, &argv, multiple ? TERN_THREAD_MULTIPLE : TERN_THREAD_SINGLE);
    int n = tern_size(), net = 0;
    for (int r = 0; r < n; r++)
        net |= !mp_mapped(r);
    const char *pt = getenv("TERN_PROGRESS_THREAD");
    int thread = pt && !strcmp(pt, "1") && net;
    MP_CHECK(
        tn_core_effects_on == (multiple || thread),
        "tn_core_effects_on is %d with%s TERN_THREAD_MULTIPLE, TERN_PROGRESS_THREAD=%s"
        " and %s network peer",
        tn_core_effects_on, multiple ? "" : "out", pt ? pt : "(unset)", net ? "a" : "no");
    MP_CHECK(tn_core.have_progress == thread, "the progress thread is %s",
             tn_core.have_progress ? "running" : "not running");

    MP_OK(tern_barrier());
    MP_OK(tern_finalize());
    MP_CHECK(tn_core_effects_on == multiple, "tn_core_effects_on is %d after finalize",
             tn_core_effects_on); /* the thread stopped */
    if (me == 0)
        printf("effects_on: PASS on %d ranks\n", n);
    return 0;
}
