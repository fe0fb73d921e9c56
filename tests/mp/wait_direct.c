/* tern_wait_until_u64's direct entry (core/sync.c, wait_direct): whether a
 * wait may watch a direct queue is cached (tn_core_direct_wait) and must
 * follow every input (active-messages.md, nineteenth pass). Each phase
 * compares the cache with its inputs read afresh and with what the
 * configuration implies, then completes waits that must end exactly when
 * their word changes:
 *  - after tern_init, before any handler (no hook on shared memory: 0);
 *  - after the first tern_am_register, mid-job (the hook set: 1 on shared
 *    memory with one thread and a spinning policy, else 0);
 *  - after AM round trips awaited with each TERN_CMP_* (the word checked
 *    to hold exactly the value that ended the wait), some with a rank
 *    that sleeps before it serves, so that its peer's wait goes past the
 *    direct looks into the whole steps; bad input and an in-handler wait
 *    still refused with the cache set. 200 per comparison where the cache
 *    is set (the direct entry is what runs), 50 where it is not: those
 *    waits take the polled steps every AM test's waits take, and with a
 *    spinning or yielding policy on an oversubscribed machine each round
 *    trip costs a scheduler time slice (ci-time.md, thirteenth round);
 *  - after tern_finalize (0).
 * The inputs fixed from tern_init to tern_finalize (policy, thread level,
 * progress thread, network transports, oversubscription) vary by run:
 * TERN_WAIT_MODE, TERN_PROGRESS_THREAD, --multiple, the shm, net and mixed
 * configurations, 1 to 4 ranks. */
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "base/wait.h"
#include "core/core.h"
#include "mp_util.h"

enum {
    H_REQ = 40,
    H_REP = 41,
    PER_CMP = 200,
    PER_CMP_POLLED = 50,
    NCMP = 6,
    TOTAL = PER_CMP * NCMP
};

static int me, n, level;
static _Atomic uint64_t up;           /* Replies received */
static _Atomic uint64_t down = TOTAL; /* TOTAL - up, for LT and LE */
static _Atomic int in_handler_rc = 1; /* tern_wait_until_u64 from a handler */
static char in_handler_msg[256];
static uint64_t zero[1];

static void on_req(tern_am_token_t t, void *b, size_t l, const tern_am_arg_t *a, int na)
{
    (void)b, (void)l;
    if (na == 1 && a[0] == 0) { /* the first: a wait here is refused */
        mp_capture_begin();
        int rc = tern_wait_until_u64(zero, TERN_CMP_EQ, 0);
        snprintf(in_handler_msg, sizeof(in_handler_msg), "%s", mp_capture_end());
        atomic_store(&in_handler_rc, rc);
    }
    MP_OK(tern_am_reply_short(t, H_REP, a, na, 0));
}

static void on_rep(tern_am_token_t t, void *b, size_t l, const tern_am_arg_t *a, int na)
{
    (void)t, (void)b, (void)l, (void)a, (void)na;
    atomic_fetch_sub(&down, 1);
    atomic_fetch_add(&up, 1);
}

/* What the cache must say, from the configuration as the test sees it:
 * waits watch a direct queue only with a handler registered, no network
 * peer (net: every step polls it; mixed: node-local steps and network
 * polls alternate), one thread per queue (no THREAD_MULTIPLE; a progress
 * thread drains none) and a spinning policy. */
static int expected(int registered)
{
    int net = 0;
    for (int r = 0; r < n; r++)
        net |= tn_core_peer(r)->kind == TN_PEER_NET;
    const char *m = getenv("TERN_WAIT_MODE");
    int spin = m && strcmp(m, "spin") == 0;
    int autom = !m || !*m || strcmp(m, "auto") == 0;
    /* The progress thread uses the network transport alone: the queues
     * stay single-threaded with it (core/progress.c, thread_step). */
    int threads = level == TERN_THREAD_MULTIPLE;
    return registered && !net && !threads &&
           (spin || (autom && !tn_wait_policy.oversubscribed));
}

static void check_cache(const char *phase, int want)
{
    int cached = atomic_load(&tn_core_direct_wait);
    MP_CHECK(cached == tn_core_direct_wait_inputs(),
             "%s: cached %d, but the inputs say %d (an update was missed)", phase, cached,
             tn_core_direct_wait_inputs());
    MP_CHECK(cached == want, "%s: cached %d, expected %d in this configuration", phase,
             cached, want);
}

/* One awaited round trip to the right neighbour, the wait made with cmp:
 * it must end with the Reply, not before. */
static void round_trip(int cmp, uint64_t i)
{
    uint64_t want = i + 1;
    tern_am_arg_t a[1] = {i};
    MP_OK(tern_am_request_short((me + 1) % n, H_REQ, a, 1, 0));
    const volatile uint64_t *u = (const volatile uint64_t *)&up;
    const volatile uint64_t *d = (const volatile uint64_t *)&down;
    switch (cmp) {
    case TERN_CMP_EQ: MP_OK(tern_wait_until_u64(u, cmp, want)); break;
    case TERN_CMP_NE: MP_OK(tern_wait_until_u64(u, cmp, want - 1)); break;
    case TERN_CMP_GT: MP_OK(tern_wait_until_u64(u, cmp, want - 1)); break;
    case TERN_CMP_GE: MP_OK(tern_wait_until_u64(u, cmp, want)); break;
    case TERN_CMP_LT: MP_OK(tern_wait_until_u64(d, cmp, TOTAL - want + 1)); break;
    default: MP_OK(tern_wait_until_u64(d, cmp, TOTAL - want)); break;
    }
    uint64_t got = atomic_load(&up), left = atomic_load(&down);
    MP_CHECK(got == want && left == TOTAL - want,
             "wait with comparison %d ended at %llu Replies (%llu left), expected %llu",
             cmp, (unsigned long long)got, (unsigned long long)left,
             (unsigned long long)want);
}

int main(int argc, char **argv)
{
    level = TERN_THREAD_SINGLE;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--multiple") == 0)
            level = TERN_THREAD_MULTIPLE;
    me = mp_init(&argc, &argv, level);
    n = tern_size();

    check_cache("after tern_init", expected(0));
    /* A wait with nothing to watch: the put of the left neighbour. */
    uint64_t *word;
    MP_OK(tern_alloc_sym(sizeof(*word), (void **)&word));
    *word = 0;
    MP_OK(tern_barrier());
    uint64_t one = 1;
    MP_OK(
        tern_put((me + 1) % n, tern_sym_addr((me + 1) % n, word), &one, sizeof(one), 0));
    MP_OK(tern_wait_until_u64(word, TERN_CMP_EQ, 1));

    /* The hook, mid-job. */
    MP_OK(tern_am_register(H_REQ, on_req, "wait_direct request"));
    MP_OK(tern_am_register(H_REP, on_rep, "wait_direct reply"));
    check_cache("after tern_am_register", expected(1));
    MP_OK(tern_barrier());

    uint64_t i = 0;
    int per_cmp = expected(1) ? PER_CMP : PER_CMP_POLLED;
    for (int cmp = TERN_CMP_EQ; cmp <= TERN_CMP_LE; cmp++)
        for (int k = 0; k < per_cmp; k++, i++) {
            /* Rank 0 now and then serves late: its left neighbour's wait
             * outlasts the direct looks. */
            if (me == 0 && n > 1 && k % 50 == 7)
                usleep(300);
            round_trip(cmp, i);
        }
    check_cache("after the round trips", expected(1));
    /* Every rank's Requests are answered once all are through. */
    MP_OK(tern_barrier());
    MP_CHECK(atomic_load(&in_handler_rc) == TERN_ERR_INVALID &&
                 strstr(in_handler_msg, "handler") != NULL,
             "tern_wait_until_u64 in a handler gave %d ('%s'), expected TERN_ERR_INVALID",
             atomic_load(&in_handler_rc), in_handler_msg);
    /* The checks before the direct entry. */
    const volatile uint64_t *u = (const volatile uint64_t *)&up;
    MP_OK(tern_wait_until_u64(u, TERN_CMP_GE, 0)); /* true at once */
    MP_EXPECT(tern_wait_until_u64(NULL, TERN_CMP_EQ, 0), TERN_ERR_INVALID, "NULL");
    MP_EXPECT(tern_wait_until_u64(u, 99, 0), TERN_ERR_INVALID, "comparison 99");

    MP_OK(tern_barrier());
    int size = n;
    MP_OK(tern_finalize());
    TEST_CHECK_AS("rank", me, atomic_load(&tn_core_direct_wait) == 0,
                  "after tern_finalize: cached %d, expected 0",
                  atomic_load(&tn_core_direct_wait));
    TEST_CHECK_AS("rank", me, tn_core_direct_wait_inputs() == 0,
                  "after tern_finalize: the inputs say %d", tn_core_direct_wait_inputs());
    if (me == 0)
        printf("wait_direct: PASS on %d ranks\n", size);
    return 0;
}
