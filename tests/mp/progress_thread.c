/* The progress thread: rank 1 waits for data by reading its own memory
 * only, never calling Tern, while rank 0 puts to it with blocking puts
 * (remote completion needs the target's provider to progress). With
 * TERN_PROGRESS_THREAD=1 this completes; a manual-progress provider
 * without it would hang. */
#include <sched.h>

#include "mp_util.h"

#define ROUNDS 50

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    volatile uint64_t *flag;
    MP_OK(tern_alloc_sym(sizeof(uint64_t), (void **)&flag));
    *flag = 0;
    MP_OK(tern_barrier());
    if (me == 0 && n > 1) {
        for (uint64_t r = 1; r <= ROUNDS; r++)
            MP_OK(tern_put(1, tern_sym_addr(1, (void *)flag), &r, sizeof(r), 0));
    } else if (me == 1) {
        /* "Computing": no Tern call until the last value arrives. */
        while (*flag != ROUNDS)
            sched_yield();
    }
    return mp_finish("progress_thread");
}
