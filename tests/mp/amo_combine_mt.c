/* Combined atomics under TERN_THREAD_MULTIPLE: T threads of every rank
 * queue nbi adds on one shared context (each into its own batches), and
 * nbi fetch-adds on their default contexts to a word every thread of
 * every rank hits; then thread 0 alone quiets the shared context, which
 * must send and complete the other threads' queued ops too (they wait in
 * a pthread barrier, calling nothing), and reads every thread's words.
 * Each thread's fetched values from one target must increase (its ops to
 * a target stay in order) and the final sums must be exact. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mp_util.h"

enum { T = 4, M = 200, NF = 40, ROUNDS = 3 };

static int me, n;
static uint64_t *w;   /* [n * T] adds from (rank, thread); [n * T] the hot word */
static uint64_t *res; /* [T][n][NF] this rank's fetched values */
static tern_ad_t ad;
static tern_ctx_t shared;
static pthread_barrier_t pb;

static void *worker(void *arg)
{
    int th = (int)(intptr_t)arg;
    for (uint64_t r = 1; r <= ROUNDS; r++) {
        for (int t = 0; t < n; t++) {
            uint64_t *mine = tern_sym_addr(t, &w[me * T + th]);
            uint64_t *hot = tern_sym_addr(t, &w[n * T]);
            uint64_t *fr = &res[((size_t)th * n + t) * NF];
            for (int i = 0; i < M; i++) {
                MP_OK(tern_ctx_ad_op_nbi_u64(shared, ad, t, mine, TERN_OP_ADD, 1, 0, NULL,
                                             0));
                if (i < NF)
                    MP_OK(tern_ad_op_nbi_u64(ad, t, hot, TERN_OP_FADD, 1, 0, &fr[i], 0));
            }
        }
        pthread_barrier_wait(&pb);
        if (th == 0) {
            MP_OK(tern_ctx_quiet(shared));
            for (int t = 0; t < n; t++)
                for (int o = 0; o < T; o++) {
                    uint64_t v = 0;
                    MP_OK(tern_ad_op_u64(ad, t, tern_sym_addr(t, &w[me * T + o]),
                                         TERN_OP_GET, 0, 0, &v, 0));
                    MP_CHECK(v == M * r,
                             "round %llu: thread %d's adds on rank %d: %llu after thread "
                             "0's quiet of the shared context, not %llu",
                             (unsigned long long)r, o, t, (unsigned long long)v,
                             (unsigned long long)(M * r));
                }
        }
        pthread_barrier_wait(&pb);
        MP_OK(tern_quiet());
        for (int t = 0; t < n; t++) {
            uint64_t *fr = &res[((size_t)th * n + t) * NF];
            for (int i = 1; i < NF; i++)
                MP_CHECK(fr[i] > fr[i - 1],
                         "round %llu, thread %d, target %d: fetched %llu after %llu (out "
                         "of order)",
                         (unsigned long long)r, th, t, (unsigned long long)fr[i],
                         (unsigned long long)fr[i - 1]);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    me = mp_init(&argc, &argv, TERN_THREAD_MULTIPLE);
    n = tern_size();
    MP_OK(tern_alloc_sym(((size_t)n * T + 1) * sizeof(uint64_t), (void **)&w));
    memset(w, 0, ((size_t)n * T + 1) * sizeof(uint64_t));
    res = calloc((size_t)T * n * NF, sizeof(uint64_t));
    MP_CHECK(res != NULL, "no memory");
    MP_OK(tern_ad_create(TERN_AT_U64, TERN_OP_ADD | TERN_OP_FADD | TERN_OP_GET, 0, &ad));
    MP_OK(tern_ctx_create(TERN_ORDER_PARTIAL, &shared));
    MP_CHECK(pthread_barrier_init(&pb, NULL, T) == 0, "pthread_barrier_init");
    MP_OK(tern_barrier());
    mp_run_threads(T, worker);
    MP_OK(tern_barrier());
    for (int s = 0; s < n; s++)
        for (int o = 0; o < T; o++)
            MP_CHECK(w[s * T + o] == M * ROUNDS, "rank %d thread %d's adds: %llu", s, o,
                     (unsigned long long)w[s * T + o]);
    MP_CHECK(w[n * T] == (uint64_t)n * T * NF * ROUNDS, "the hot word: %llu, not %llu",
             (unsigned long long)w[n * T], (unsigned long long)n * T * NF * ROUNDS);
    pthread_barrier_destroy(&pb);
    MP_OK(tern_ctx_destroy(shared));
    MP_OK(tern_ad_destroy(ad));
    free(res);
    return mp_finish("amo_combine_mt");
}
