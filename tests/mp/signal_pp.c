/* Put with signal as a ping-pong of many small rounds: the waiter checks
 * every byte of the data as soon as tern_wait_until_u64 returns, so a
 * signal seen before its data fails here. The rounds cycle through the
 * six comparisons of the wait (on one node each has its own polling
 * loop), set and add, blocking and nbi, sizes of 1 to 300 bytes, and data
 * on the signal word's own cache line or on another. Pairs me ^ 1, then
 * (4 ranks or more) pairs n/2 apart: in mixed, one pair inside a node and
 * one across. In shm, net and mixed. */
#include <string.h>

#include "mp_util.h"

#define ROUNDS 600
#define MAXLEN 300
#define TOP    (1ull << 40) /* the falling word counts down from here */

/* Signal words, each on a cache line of its own: W_UP rises (set or
 * add), W_DOWN falls (set), W_LINE rises and shares its line with the
 * data of the rounds that put data there (bytes 0..55 of the line). */
enum { W_UP = 0, W_DOWN = 8, W_LINE_DATA = 16, W_LINE = 23, NWORDS = 24 };

static uint64_t *sig;
static unsigned char *buf, src[MAXLEN];

/* The values that the partner has left in this rank's words; the same as
 * this rank has left in the partner's, as both sides send the same
 * rounds. */
typedef struct words {
    uint64_t up, down, line;
} words_t;

/* Round k: the word, the update, the wait's comparison and operand, and
 * where the data goes. */
typedef struct round {
    int word, op, cmp;
    uint64_t value, wait_for, next;
    size_t len;
    unsigned char *data; /* this rank's address of the data */
} round_t;

static round_t plan(long k, const words_t *w)
{
    round_t r;
    r.cmp = (int)(k % 6);
    int falling = r.cmp == TERN_CMP_LT || r.cmp == TERN_CMP_LE;
    int on_line = !falling && k % 4 == 0;
    r.word = falling ? W_DOWN : on_line ? W_LINE : W_UP;
    uint64_t cur = falling ? w->down : on_line ? w->line : w->up;
    r.next = falling ? cur - 1 : cur + 1;
    r.op = !falling && (k / 6) % 2 ? TERN_SIGNAL_ADD : TERN_SIGNAL_SET;
    r.value = r.op == TERN_SIGNAL_ADD ? 1 : r.next;
    /* EQ, GE, LE wait for the new value; NE, GT, LT for a change from
     * the current one. */
    int exact = r.cmp == TERN_CMP_EQ || r.cmp == TERN_CMP_GE || r.cmp == TERN_CMP_LE;
    r.wait_for = exact ? r.next : cur;
    r.len = on_line ? 1 + (size_t)k % 56 : 1 + (size_t)(k * 37) % MAXLEN;
    r.data = on_line ? (unsigned char *)&sig[W_LINE_DATA] : buf;
    return r;
}

static void send(int p, long k, const round_t *r)
{
    for (size_t i = 0; i < r->len; i++)
        src[i] = mp_pattern(tern_rank(), i, (unsigned)k);
    void *dst = tern_sym_addr(p, r->data);
    uint64_t *w = tern_sym_addr(p, &sig[r->word]);
    if (k & 1)
        MP_OK(tern_put_signal(p, dst, src, r->len, w, r->value, r->op, 0));
    else
        MP_OK(tern_put_signal_nbi(p, dst, src, r->len, w, r->value, r->op, 0));
}

static void receive(int p, long k, const round_t *r)
{
    MP_OK(tern_wait_until_u64(&sig[r->word], r->cmp, r->wait_for));
    for (size_t i = 0; i < r->len; i++)
        MP_CHECK(r->data[i] == mp_pattern(p, i, (unsigned)k),
                 "round %ld from rank %d (comparison %d, %zu bytes%s): byte %zu seen "
                 "as %u with the signal",
                 k, p, r->cmp, r->len, r->data == buf ? "" : " on the signal's line", i,
                 r->data[i]);
    MP_CHECK(sig[r->word] == r->next, "round %ld: signal word %llu, expected %llu", k,
             (unsigned long long)sig[r->word], (unsigned long long)r->next);
}

/* ROUNDS rounds with p, the lower rank first; p == me: the rank sends to
 * itself. */
static void pingpong(int p)
{
    int me = tern_rank();
    words_t w = {0, TOP, 0};
    memset(sig, 0, NWORDS * sizeof(uint64_t));
    sig[W_DOWN] = TOP;
    memset(buf, 0, MAXLEN);
    MP_OK(tern_barrier());
    for (long k = 1; k <= ROUNDS; k++) {
        round_t r = plan(k, &w);
        if (me <= p)
            send(p, k, &r);
        receive(p, k, &r);
        if (me > p)
            send(p, k, &r);
        /* The partner overwrites this round's data only after this rank's
         * answer (k + 1 comes after it). */
        if (r.word == W_DOWN)
            w.down = r.next;
        else if (r.word == W_LINE)
            w.line = r.next;
        else
            w.up = r.next;
    }
    MP_OK(tern_quiet());
    MP_OK(tern_barrier());
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    MP_OK(tern_alloc_sym(MAXLEN, (void **)&buf));
    MP_OK(tern_alloc_sym(NWORDS * sizeof(uint64_t), (void **)&sig));
    pingpong((me ^ 1) < n ? me ^ 1 : me);
    if (n >= 4)
        pingpong((me + n / 2) % n);
    MP_OK(tern_free_sym(sig));
    MP_OK(tern_free_sym(buf));
    return mp_finish("signal_pp");
}
