/* A rank waiting for a node-local word keeps serving its network peers
 * (docs/design/barrier-and-waiting.md, "Polling cadence in a mixed job"):
 * each round, rank 0 waits in tern_wait_until_u64 for a word that rank 1
 * writes only after the last rank (on the other node in the mixed
 * configuration, with --nodes 2) has got a block from rank 0 and had an
 * active-message request answered by rank 0's handler - both of which need
 * rank 0's progress over the network while it waits. Rank 1 meanwhile
 * waits for a word the last rank writes over the network. Run in spin mode
 * (the cadence is for spinning waits; 3 or 4 ranks on 2 cores would
 * otherwise yield, which polls at every step), with and without the
 * progress thread (mp.wait_mixed_pt). A wait that left the network alone
 * would hang here (the test's timeout). The shm and net configurations take
 * the same exchange over their one transport. */
#include <stdatomic.h>

#include "mp_util.h"

enum { H_REQ = 40, H_REP = 41, ROUNDS = 50, BLOCK = 4096 };

static _Atomic uint64_t replies; /* the last rank: replies received */
static int bad_reply;

static void on_req(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                   int na)
{
    (void)buf;
    (void)len;
    tern_am_arg_t r = na == 1 ? a[0] + 1 : 0;
    if (tern_am_reply_short(t, H_REP, &r, 1, 0) != TERN_OK)
        bad_reply = 1;
}

static void on_rep(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                   int na)
{
    (void)t;
    (void)buf;
    (void)len;
    uint64_t want = atomic_load_explicit(&replies, memory_order_relaxed) + 1;
    if (na != 1 || a[0] != want + 1)
        bad_reply = 1;
    atomic_store_explicit(&replies, want, memory_order_release);
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    int last = n - 1;
    MP_CHECK(n >= 3, "needs 3 ranks or more, has %d", n);
    /* words[0]: on rank 0, the round rank 1 let it go; [1]: on rank 1, the
     * round the last rank finished; [2]: on the last rank, the round rank
     * 0's block holds. */
    uint64_t *words;
    unsigned char *blk, *got;
    MP_OK(tern_alloc_sym(3 * sizeof(uint64_t), (void **)&words));
    MP_OK(tern_alloc_sym(BLOCK, (void **)&blk));
    MP_OK(tern_alloc_sym(BLOCK, (void **)&got));
    words[0] = words[1] = words[2] = 0;
    MP_OK(tern_am_register(H_REQ, on_req, "wait_mixed request"));
    MP_OK(tern_am_register(H_REP, on_rep, "wait_mixed reply"));
    MP_OK(tern_barrier());
    for (uint64_t r = 1; r <= ROUNDS; r++) {
        if (me == 0) {
            for (size_t i = 0; i < BLOCK; i++)
                blk[i] = mp_pattern(0, i, (unsigned)r);
            MP_OK(tern_put(last, tern_sym_addr(last, &words[2]), &r, sizeof r, 0));
            MP_OK(tern_wait_until_u64(&words[0], TERN_CMP_GE, r));
        } else if (me == last) {
            MP_OK(tern_wait_until_u64(&words[2], TERN_CMP_GE, r));
            MP_OK(tern_get(got, 0, tern_sym_addr(0, blk), BLOCK, 0));
            size_t first, bad = mp_pattern_misses(got, BLOCK, 0, (unsigned)r, &first);
            MP_CHECK(bad == 0,
                     "round %llu: %zu bytes of rank 0's block wrong, first at %zu",
                     (unsigned long long)r, bad, first);
            tern_am_arg_t a = r;
            MP_OK(tern_am_request_short(0, H_REQ, &a, 1, 0));
            MP_OK(tern_wait_until_u64((uint64_t *)&replies, TERN_CMP_GE, r));
            MP_CHECK(!bad_reply, "round %llu: a wrong reply", (unsigned long long)r);
            MP_OK(tern_put(1, tern_sym_addr(1, &words[1]), &r, sizeof r, 0));
        } else if (me == 1) {
            MP_OK(tern_wait_until_u64(&words[1], TERN_CMP_GE, r));
            MP_OK(tern_put(0, tern_sym_addr(0, &words[0]), &r, sizeof r, 0));
        }
    }
    MP_CHECK(!bad_reply, "rank 0's handler could not reply");
    return mp_finish("wait_mixed");
}
