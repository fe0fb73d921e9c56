/* Calls between a negotiated-payload Prepare and its Commit
 * (include/tern/am.h): a Short, a Medium and a Long Request, a second
 * Prepare (to the same rank and to another), a barrier and a poll are
 * refused with an error naming the pending Prepare, sending nothing; a
 * non-blocking put goes (as from a handler), and a blocking one goes to a
 * peer of the node and is refused for a network peer. Inside a Request
 * handler, a Reply between tern_am_prepare_reply_medium and its Commit is
 * refused the same way. The committed messages then arrive exactly once
 * and in order (per-pair order: every rank's last Short, sent after them,
 * is handled after them), the refused ones never, and the puts land.
 * On shm the Prepare holds the peer's queue: before, a Short sent there
 * meanwhile lost a message. */
#include <string.h>

#include "mp_util.h"

enum { H_MSG = 1, H_SHORT, H_ASK, H_ANSWER };
enum { ROUNDS = 50, PAYLOAD = 200, PUT = 64 };

/* Counters and the put landing area in the segment (tern_wait_until_u64
 * sees the handlers' updates). */
typedef struct counters {
    uint64_t msgs, shorts, answers, bad;
    uint64_t last_tag; /* the last Short's tag from the left neighbour */
} counters_t;
static counters_t *cnt;
static unsigned char *landing; /* [2][ROUNDS][PUT]: nbi and blocking puts */
static int me, n, right, left;

static void bump(uint64_t *c)
{
    __atomic_fetch_add(c, 1, __ATOMIC_RELEASE);
}

static unsigned char pat(int rank, uint64_t round, size_t i)
{
    return (unsigned char)(rank * 31 + round * 7 + i);
}

/* The committed Medium: its round's payload from the left neighbour, in
 * order (one per round). */
static void on_msg(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                   int na)
{
    int src = -1;
    tern_am_source(t, &src);
    uint64_t want = __atomic_load_n(&cnt->msgs, __ATOMIC_ACQUIRE);
    int ok = src == left && na == 1 && len == PAYLOAD && a[0] == want;
    for (size_t i = 0; ok && i < len; i++)
        ok = ((unsigned char *)buf)[i] == pat(src, a[0], i);
    if (!ok)
        bump(&cnt->bad);
    bump(&cnt->msgs);
}

/* A Short: tag 1 sent after each Commit; tag 2, the last, after all. Any
 * other tag is one of the refused sends, which must never arrive. */
static void on_short(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                     int na)
{
    (void)t, (void)buf, (void)len;
    if (na != 1 || (a[0] != 1 && a[0] != 2))
        bump(&cnt->bad);
    __atomic_store_n(&cnt->last_tag, a[0], __ATOMIC_RELEASE);
    bump(&cnt->shorts);
}

/* A Request whose handler prepares its Reply, tries another Reply in
 * between (refused), then commits. */
static void on_ask(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                   int na)
{
    (void)buf, (void)len, (void)na;
    tern_am_sd_t sd;
    MP_OK(tern_am_prepare_reply_medium(t, NULL, 16, 16, 1, 0, &sd));
    memset(sd.buf, 0x5a, 16);
    tern_am_arg_t r[1] = {a[0]};
    MP_EXPECT(tern_am_reply_short(t, H_ANSWER, r, 1, 0), TERN_ERR_INVALID,
              "called between tern_am_prepare_reply_medium");
    MP_OK(tern_am_commit_reply_medium(&sd, H_ANSWER, 16, r));
}

static void on_answer(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                      int na)
{
    (void)t, (void)a, (void)na;
    if (len != 16 || ((unsigned char *)buf)[15] != 0x5a)
        bump(&cnt->bad);
    bump(&cnt->answers);
}

/* One round: Prepare to the right neighbour, the refused calls and the
 * puts, Commit, then a Short that must go. */
static void round_of(uint64_t r, unsigned char *src, int mapped)
{
    char needle[128];
    snprintf(needle, sizeof needle,
             "called between tern_am_prepare_request_medium (to rank %d) and its Commit",
             right);
    tern_am_sd_t sd, sd2;
    MP_OK(tern_am_prepare_request_medium(right, NULL, PAYLOAD, PAYLOAD, 1, 0, &sd));
    MP_CHECK(sd.len == PAYLOAD, "granted %zu", sd.len);
    for (size_t i = 0; i < PAYLOAD; i++)
        ((unsigned char *)sd.buf)[i] = pat(me, r, i);
    tern_am_arg_t bad[1] = {100 + r};
    MP_EXPECT(tern_am_request_short(right, H_SHORT, bad, 1, 0), TERN_ERR_INVALID, needle);
    MP_EXPECT(tern_am_request_medium(right, H_SHORT, src, 32, bad, 1, 0),
              TERN_ERR_INVALID, needle);
    void *dest = tern_sym_addr(right, landing);
    MP_EXPECT(tern_am_request_long(right, H_SHORT, src, 32, dest, bad, 1, 0),
              TERN_ERR_INVALID, needle);
    MP_EXPECT(tern_am_prepare_request_medium(right, NULL, 8, 8, 1, 0, &sd2),
              TERN_ERR_INVALID, needle);
    MP_EXPECT(tern_am_prepare_request_medium(left, NULL, 8, 8, 1, 0, &sd2),
              TERN_ERR_INVALID, needle);
    MP_EXPECT(tern_barrier(), TERN_ERR_INVALID, needle);
    MP_EXPECT(tern_poll(), TERN_ERR_INVALID, needle);
    /* Puts: a non-blocking one goes (as from a handler); a blocking one
     * waits for a network peer, so there it is refused. */
    for (size_t i = 0; i < PUT; i++)
        src[i] = pat(me, r, i + 1);
    MP_OK(tern_put_nbi(right, tern_sym_addr(right, landing + r * PUT), src, PUT, 0));
    unsigned char *bsrc = src + PUT;
    for (size_t i = 0; i < PUT; i++)
        bsrc[i] = pat(me, r, i + 2);
    void *bdst = tern_sym_addr(right, landing + (ROUNDS + r) * PUT);
    if (mapped)
        MP_OK(tern_put(right, bdst, bsrc, PUT, 0));
    else
        MP_EXPECT(tern_put(right, bdst, bsrc, PUT, 0), TERN_ERR_INVALID, needle);
    tern_am_arg_t a[1] = {r};
    MP_OK(tern_am_commit_request_medium(&sd, H_MSG, PAYLOAD, a));
    /* Committed: the thread sends again. The nbi put's source may be
     * reused once it is synced. */
    tern_am_arg_t one[1] = {1};
    MP_OK(tern_am_request_short(right, H_SHORT, one, 1, 0));
    MP_OK(tern_quiet());
    if (!mapped && r + 1 == ROUNDS) /* the refused blocking puts: by hand */
        for (uint64_t k = 0; k < ROUNDS; k++) {
            for (size_t i = 0; i < PUT; i++)
                bsrc[i] = pat(me, k, i + 2);
            MP_OK(tern_put(right, tern_sym_addr(right, landing + (ROUNDS + k) * PUT),
                           bsrc, PUT, 0));
        }
}

int main(int argc, char **argv)
{
    me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    n = tern_size();
    if (n < 2) {
        printf("am_between: needs 2 ranks or more; skipped\n");
        MP_OK(tern_finalize());
        return 77;
    }
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    MP_OK(tern_alloc_sym(sizeof(counters_t), (void **)&cnt));
    MP_OK(tern_alloc_sym((size_t)2 * ROUNDS * PUT, (void **)&landing));
    memset(cnt, 0, sizeof(*cnt));
    memset(landing, 0, (size_t)2 * ROUNDS * PUT);
    MP_OK(tern_am_register(H_MSG, on_msg, "msg"));
    MP_OK(tern_am_register(H_SHORT, on_short, "short"));
    MP_OK(tern_am_register(H_ASK, on_ask, "ask"));
    MP_OK(tern_am_register(H_ANSWER, on_answer, "answer"));
    MP_OK(tern_barrier());

    int mapped = tern_ptr(right, tern_sym_addr(right, landing)) != NULL;
    unsigned char src[2 * PUT];
    for (uint64_t r = 0; r < ROUNDS; r++)
        round_of(r, src, mapped);
    tern_am_arg_t ask[1] = {7};
    MP_OK(tern_am_request_short(right, H_ASK, ask, 1, 0));
    MP_OK(tern_wait_until_u64((volatile uint64_t *)&cnt->answers, TERN_CMP_GE, 1));
    tern_am_arg_t last[1] = {2};
    MP_OK(tern_am_request_short(right, H_SHORT, last, 1, 0));
    /* The left neighbour's last Short is handled after everything it sent
     * before (per-pair order): then every count is final. */
    MP_OK(tern_wait_until_u64((volatile uint64_t *)&cnt->last_tag, TERN_CMP_EQ, 2));
    MP_OK(tern_barrier()); /* the puts to this rank have landed */
    MP_CHECK(cnt->msgs == ROUNDS, "%llu committed Mediums arrived from rank %d, sent %d",
             (unsigned long long)cnt->msgs, left, ROUNDS);
    MP_CHECK(cnt->shorts == ROUNDS + 1, "%llu Shorts arrived from rank %d, sent %d",
             (unsigned long long)cnt->shorts, left, ROUNDS + 1);
    MP_CHECK(cnt->answers == 1, "%llu Replies arrived, 1 sent",
             (unsigned long long)cnt->answers);
    MP_CHECK(cnt->bad == 0, "%llu messages were wrong, out of order or refused ones",
             (unsigned long long)cnt->bad);
    size_t miss = 0;
    for (uint64_t r = 0; r < ROUNDS; r++)
        for (size_t i = 0; i < PUT; i++) {
            miss += landing[r * PUT + i] != pat(left, r, i + 1);
            miss += landing[(ROUNDS + r) * PUT + i] != pat(left, r, i + 2);
        }
    MP_CHECK(miss == 0, "%zu bytes put by rank %d between Prepare and Commit are wrong",
             miss, left);
    return mp_finish("am_between");
}
