/* Combined atomics (the am path's nbi ops to one target in one message):
 * every rank mixes, toward every rank, nbi adds (some IMMEDIATE), nbi
 * fetch-adds (u64 and u32) and compare-swaps whose fetched values must
 * come back in issue order, blocking adds returning early on a partial
 * context, bad calls that must be refused with nothing queued, a fence,
 * then blocking fetches that must see everything before the fence. Odd
 * ranks sleep at the start of each round without calling Tern. Each round
 * ends with one lone nbi add to the right neighbour, which waits for it
 * by polling before it answers: only the flush of waiting calls and idle
 * progress sends that add, so a lost flush hangs the test. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_util.h"

enum { K = 300, IMM = 50, NF = 64, ROUNDS = 4, W = 8 };
/* Words per source rank s on every rank, at w[s * W + i]: */
enum { W_ADD, W_FADD, W_CSWAP, W_EARLY, W_LONE, W_ACK };

#define BAD(want, call)                                                            \
    do {                                                                           \
        mp_capture_begin();                                                        \
        int rc_ = (call);                                                          \
        const char *msg_ = mp_capture_end();                                       \
        MP_CHECK(rc_ == (want), "%s returned %d, not %d (%s)", #call, rc_, (want), \
                 msg_);                                                            \
    } while (0)

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size(), right = (me + 1) % n, left = (me + n - 1) % n;
    uint64_t *w;
    uint32_t *w32;
    MP_OK(tern_alloc_sym((size_t)n * W * sizeof(uint64_t), (void **)&w));
    MP_OK(tern_alloc_sym((size_t)n * sizeof(uint32_t), (void **)&w32));
    memset(w, 0, (size_t)n * W * sizeof(uint64_t));
    memset(w32, 0, (size_t)n * sizeof(uint32_t));
    uint64_t *r64 = calloc((size_t)n * NF, sizeof(uint64_t));
    uint64_t *rcs = calloc((size_t)n * NF, sizeof(uint64_t));
    uint32_t *r32 = calloc((size_t)n * (NF + 1), sizeof(uint32_t)); /* + a guard */
    MP_CHECK(r64 && rcs && r32, "no memory");
    tern_ad_t ad, ad32;
    MP_OK(tern_ad_create(
        TERN_AT_U64, TERN_OP_ADD | TERN_OP_FADD | TERN_OP_CSWAP | TERN_OP_GET, 0, &ad));
    MP_OK(tern_ad_create(TERN_AT_U32, TERN_OP_FADD, 0, &ad32));
    tern_ctx_t pctx;
    MP_OK(tern_ctx_create(TERN_ORDER_PARTIAL, &pctx));
    MP_OK(tern_barrier());

    for (uint64_t r = 1; r <= ROUNDS; r++) {
        if (me % 2)
            usleep(20000); /* a sleeping target: serves nothing meanwhile */
        for (int t = 0; t < n; t++) {
            uint64_t *tw = tern_sym_addr(t, &w[me * W]);
            uint32_t *t32 = tern_sym_addr(t, &w32[me]);
            uint64_t *fr = &r64[t * NF], *cr = &rcs[t * NF];
            uint32_t *f32 = &r32[t * (NF + 1)];
            f32[NF] = 0xdeadbeef;
            for (int i = 0; i < K; i++) {
                int rc;
                while ((rc = tern_ad_op_nbi_u64(
                            ad, t, &tw[W_ADD], TERN_OP_ADD, (uint64_t)me + 1, 0, NULL,
                            i < IMM ? TERN_FLAG_IMMEDIATE : 0)) == TERN_ERR_AGAIN)
                    tern_poll();
                MP_OK(rc);
                if (i % 8 == 0) /* another context in between: its own batch */
                    MP_OK(tern_ctx_ad_op_u64(pctx, ad, t, &tw[W_EARLY], TERN_OP_ADD, 1, 0,
                                             NULL, 0));
                if (i == K / 2) {
                    /* Refused before anything is queued: the quiet below
                     * reports no error, and the sums stay exact. */
                    uint64_t v;
                    BAD(TERN_ERR_INVALID,
                        tern_ad_op_nbi_u64(ad, t, (char *)&tw[W_ADD] + 4, TERN_OP_ADD, 1,
                                           0, NULL, 0));
                    BAD(TERN_ERR_RANGE,
                        tern_ad_op_nbi_u64(ad, t, &v, TERN_OP_ADD, 1, 0, NULL, 0));
                    BAD(TERN_ERR_INVALID, tern_ad_op_nbi_u64(ad, t, &tw[W_ADD],
                                                             TERN_OP_XOR, 1, 0, NULL, 0));
                    BAD(TERN_ERR_INVALID,
                        tern_ad_op_nbi_u64(ad, t, &tw[W_FADD], TERN_OP_FADD, 1, 0, NULL,
                                           0));
                    BAD(TERN_ERR_RANK, tern_ad_op_nbi_u64(ad, n, &tw[W_ADD], TERN_OP_ADD,
                                                          1, 0, NULL, 0));
                    BAD(TERN_ERR_INVALID,
                        tern_ad_op_nbi_u32(ad, t, (uint32_t *)&tw[W_ADD], TERN_OP_FADD, 1,
                                           0, (uint32_t *)&v, 0));
                }
            }
            for (int i = 0; i < NF; i++) {
                uint64_t k = (r - 1) * NF + (uint64_t)i;
                MP_OK(tern_ad_op_nbi_u64(ad, t, &tw[W_FADD], TERN_OP_FADD, 1, 0, &fr[i],
                                         0));
                MP_OK(tern_ad_op_nbi_u32(ad32, t, t32, TERN_OP_FADD, 1, 0, &f32[i], 0));
                MP_OK(tern_ad_op_nbi_u64(ad, t, &tw[W_CSWAP], TERN_OP_CSWAP, k, k + 1,
                                         &cr[i], 0));
            }
        }
        /* The default context's ops complete; the partial context's early
         * adds are seen by its own fetch (per-pair order, no fence). */
        MP_OK(tern_fence());
        for (int t = 0; t < n; t++) {
            uint64_t *tw = tern_sym_addr(t, &w[me * W]);
            uint64_t v = 0, e = 0;
            MP_OK(tern_ad_op_u64(ad, t, &tw[W_ADD], TERN_OP_GET, 0, 0, &v, 0));
            MP_CHECK(
                v == K * ((uint64_t)me + 1) * r,
                "round %llu: rank %d's adds on rank %d: %llu after the fence, not %llu",
                (unsigned long long)r, me, t, (unsigned long long)v,
                (unsigned long long)(K * ((uint64_t)me + 1) * r));
            MP_OK(
                tern_ctx_ad_op_u64(pctx, ad, t, &tw[W_EARLY], TERN_OP_FADD, 0, 0, &e, 0));
            MP_CHECK(e == (uint64_t)(K + 7) / 8 * r,
                     "round %llu: early adds on rank %d: the fetch saw %llu, not %llu",
                     (unsigned long long)r, t, (unsigned long long)e,
                     (unsigned long long)((K + 7) / 8 * r));
            for (int i = 0; i < NF; i++) {
                uint64_t k = (r - 1) * NF + (uint64_t)i;
                MP_CHECK(
                    r64[t * NF + i] == k && rcs[t * NF + i] == k &&
                        r32[t * (NF + 1) + i] == (uint32_t)k,
                    "round %llu, target %d, op %d: fetched u64 %llu, cswap %llu, u32 "
                    "%u; want %llu (issue order)",
                    (unsigned long long)r, t, i, (unsigned long long)r64[t * NF + i],
                    (unsigned long long)rcs[t * NF + i], r32[t * (NF + 1) + i],
                    (unsigned long long)k);
            }
            MP_CHECK(r32[t * (NF + 1) + NF] == 0xdeadbeef,
                     "a u32 result overran its word (guard 0x%x)",
                     r32[t * (NF + 1) + NF]);
        }
        /* The lone add: nothing syncs it; the right neighbour polls for it,
         * then answers with a put this rank waits for. */
        uint64_t *lone = tern_sym_addr(right, &w[me * W + W_LONE]);
        MP_OK(tern_ad_op_nbi_u64(ad, right, lone, TERN_OP_ADD, 1, 0, NULL, 0));
        volatile uint64_t *from_left = &w[left * W + W_LONE];
        while (__atomic_load_n(from_left, __ATOMIC_ACQUIRE) < r)
            MP_OK(tern_poll());
        MP_OK(tern_put(left, tern_sym_addr(left, &w[me * W + W_ACK]), &r, 8, 0));
        MP_OK(tern_wait_until_u64(&w[right * W + W_ACK], TERN_CMP_GE, r));
    }
    MP_OK(tern_ctx_quiet(pctx));
    MP_OK(tern_quiet());
    MP_OK(tern_barrier());
    for (int s = 0; s < n; s++) {
        uint64_t *sw = &w[s * W];
        MP_CHECK(
            sw[W_ADD] == K * ((uint64_t)s + 1) * ROUNDS && sw[W_FADD] == NF * ROUNDS &&
                sw[W_CSWAP] == NF * ROUNDS &&
                sw[W_EARLY] == (uint64_t)(K + 7) / 8 * ROUNDS && w32[s] == NF * ROUNDS,
            "from rank %d: add %llu, fadd %llu, cswap %llu, early %llu, u32 %u", s,
            (unsigned long long)sw[W_ADD], (unsigned long long)sw[W_FADD],
            (unsigned long long)sw[W_CSWAP], (unsigned long long)sw[W_EARLY], w32[s]);
    }
    MP_CHECK(w[left * W + W_LONE] == ROUNDS, "lone adds from rank %d: %llu", left,
             (unsigned long long)w[left * W + W_LONE]);
    MP_OK(tern_ctx_destroy(pctx));
    MP_OK(tern_ad_destroy(ad32));
    MP_OK(tern_ad_destroy(ad));
    free(r64);
    free(rcs);
    free(r32);
    return mp_finish("amo_combine");
}
