/* Sessions (OpenSHMEM 1.6): RMA, AMO and signal operations inside
 * sessions on the default context and on a created one give exactly the
 * results they give outside: nbi puts to every PE, blocking puts and
 * gets, non-fetching and fetching AMOs, put-with-signal, with the
 * session started twice (options combined), a config with total_ops and
 * one with mask 0, stopped twice, and SHMEM_CTX_INVALID ignored. */
#include <stdint.h>

#include "shmem_test.h"

enum { N = 256, R = 3 };

static void round_trip(shmem_ctx_t ctx, long *buf, long *cnt, uint64_t *sig, int r)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    long src[N];
    for (int p = 0; p < n; p++) { /* my slice of every PE's buf, element by element */
        for (int i = 0; i < N / 4; i++) {
            src[i] = (long)me * 1000000 + r * 10000 + p * 100 + i;
            shmem_ctx_long_put_nbi(ctx, &buf[me * (N / 4) + i], &src[i], 1, p);
        }
        shmem_ctx_long_atomic_add(ctx, cnt, 1, p);
    }
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int q = 0; q < n; q++)
        for (int i = 0; i < N / 4; i++)
            CHECK(buf[q * (N / 4) + i] == (long)q * 1000000 + r * 10000 + me * 100 + i,
                  "round %d: nbi put from PE %d [%d] = %ld", r, q, i,
                  buf[q * (N / 4) + i]);
    CHECK(*cnt == (long)n * (r + 1), "round %d: counter %ld", r, *cnt);
    shmem_barrier_all();
    /* put-with-signal ring and a get back */
    int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int i = 0; i < N; i++)
        src[i] = -(long)me * 1000 - i - r;
    shmem_ctx_long_put_signal(ctx, buf, src, N, sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_signal_wait_until(sig, SHMEM_CMP_GE, (uint64_t)r + 1);
    for (int i = 0; i < N; i++)
        CHECK(buf[i] == -(long)left * 1000 - i - r, "round %d: put_signal [%d]", r, i);
    long back[N];
    shmem_barrier_all();
    shmem_ctx_long_get(ctx, back, buf, N, right);
    for (int i = 0; i < N; i++)
        CHECK(back[i] == -(long)me * 1000 - i - r, "round %d: get [%d]", r, i);
    long f = shmem_ctx_long_atomic_fetch_add(ctx, cnt, 0, right);
    CHECK(f == (long)n * (r + 1), "round %d: fetch %ld", r, f);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    long *buf = shmem_calloc(N, sizeof(long));
    long *cnt = shmem_calloc(1, sizeof(long));
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    CHECK(buf && cnt && sig, "shmem_calloc");
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create");
    shmem_barrier_all();

    shmem_ctx_session_config_t cfg = {.total_ops = (size_t)N * 4};
    shmem_ctx_session_start(SHMEM_CTX_INVALID, SHMEM_CTX_SESSION_BATCH, NULL, 0);
    for (int r = 0; r < R; r++) {
        shmem_ctx_t c = r % 2 ? ctx : SHMEM_CTX_DEFAULT;
        if (r == 0) {
            shmem_ctx_session_start(c, SHMEM_CTX_SESSION_BATCH, &cfg,
                                    SHMEM_CTX_SESSION_TOTAL_OPS);
            shmem_ctx_session_start(c, 0, NULL, 0); /* combined with the first */
        } else {
            shmem_ctx_session_start(c, SHMEM_CTX_SESSION_BATCH, NULL, 0);
        }
        round_trip(c, buf, cnt, sig, r);
        shmem_ctx_session_stop(c);
        shmem_ctx_session_stop(c); /* no effect */
    }
    shmem_ctx_session_stop(SHMEM_CTX_INVALID);
    shmem_ctx_destroy(ctx);
    return finish("session");
}
