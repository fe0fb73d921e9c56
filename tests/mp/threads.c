/* TERN_THREAD_MULTIPLE: several threads of each rank put, get, use events
 * and nbi sync at the same time; the barrier is called by a different
 * thread each round. */
#include <pthread.h>
#include <string.h>

#include "mp_util.h"

#define NTHREADS 4
#define ROUNDS   50
#define CHUNK    4096

static int me, n;
static char *zone; /* [writer rank][thread] chunks, symmetric */
static pthread_barrier_t local_bar;

static char *slot(int writer, int t)
{
    return zone + ((size_t)writer * NTHREADS + (size_t)t) * CHUNK;
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    char src[CHUNK], back[CHUNK];
    for (int r = 0; r < ROUNDS; r++) {
        int peer = (me + 1 + r) % n;
        unsigned salt = (unsigned)(r * NTHREADS + t);
        for (size_t i = 0; i < CHUNK; i++)
            src[i] = (char)mp_pattern(me, i, salt);
        char *rdst = tern_sym_addr(peer, slot(me, t));
        switch ((r + t) % 3) {
        case 0: MP_OK(tern_put(peer, rdst, src, CHUNK, 0)); break;
        case 1: {
            tern_event_t lc, rc;
            MP_OK(tern_put_nb(peer, rdst, src, CHUNK, &lc, &rc, 0));
            tern_event_t evs[2] = {lc, rc};
            MP_OK(tern_event_wait_all(evs, 2));
            break;
        }
        default:
            MP_OK(tern_put_nbi(peer, rdst, src, CHUNK / 2, 0));
            MP_OK(tern_put_nbi(peer, rdst + CHUNK / 2, src + CHUNK / 2, CHUNK / 2, 0));
            MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));
        }
        MP_OK(tern_get(back, peer, rdst, CHUNK, 0));
        MP_CHECK(memcmp(back, src, CHUNK) == 0, "thread %d round %d read-back", t, r);
        pthread_barrier_wait(&local_bar);
        if (t == r % NTHREADS)
            MP_OK(tern_barrier());
        pthread_barrier_wait(&local_bar);
        /* The writer of my slot (me, t) this round was rank (me - 1 - r). */
        int writer = ((me - 1 - r) % n + n) % n;
        const char *z = slot(writer, t);
        for (size_t i = 0; i < CHUNK; i++)
            MP_CHECK(z[i] == (char)mp_pattern(writer, i, salt),
                     "round %d thread %d: byte %zu from rank %d", r, t, i, writer);
        pthread_barrier_wait(&local_bar);
        if (t == (r + 1) % NTHREADS)
            MP_OK(tern_barrier());
        pthread_barrier_wait(&local_bar);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    MP_OK(tern_init(&argc, &argv, TERN_THREAD_MULTIPLE));
    MP_CHECK(tern_thread_level() == TERN_THREAD_MULTIPLE, "thread level");
    me = tern_rank();
    n = tern_size();
    MP_OK(tern_alloc_sym((size_t)n * NTHREADS * CHUNK, (void **)&zone));
    pthread_barrier_init(&local_bar, NULL, NTHREADS);
    mp_run_threads(NTHREADS, worker);
    return mp_finish("threads");
}
