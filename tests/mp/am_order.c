/* Per-pair order of active-message Requests (include/tern/am.h, "Order"):
 * every rank sends TEST_ORDER_COUNT (default 10^5) numbered Requests to
 * its right neighbour and, with 3 ranks or more, as many to its left one,
 * a mix that takes every send path of every transport (Short by inject,
 * Short with 16 arguments, Medium small and up to the largest, negotiated
 * Medium, Long in place and Long by a network write), while odd ranks
 * sleep now and then outside Tern so that their senders run out of
 * credits and pack. Each handler checks that its message is the next one
 * of its sender, that no other handler of that sender is running, and its
 * payload. TEST_ORDER_POLLERS=k adds k threads per rank that only poll
 * (TERN_THREAD_MULTIPLE), so that handlers run on several threads.
 * TEST_ORDER_PUTBACK=1: every eighth handler also puts to its sender
 * (tern_put_nbi of 8 bytes, and every 64th of a few KiB, from inside the
 * handler), which over the network needs a transmit descriptor while both
 * ranks flood each other (with TERN_OFI_TX_DEPTH=4 they run out); the
 * sender checks after a quiet and a barrier that every put landed. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "mp_util.h"

enum { H_SEQ = 20 };
enum { SLOTS = 1024, SLOT = 64, BIG_SLOTS = 4, BIG_EVERY = 4096 };

static int me, n, right, left;
static size_t medium_max, big_len;
static long count;
static char *landing; /* per sender: SLOTS small Long slots, then BIG_SLOTS big */
static _Atomic uint64_t *next_seq, *got;
static _Atomic int *busy;
static _Atomic long bad;
static _Atomic int stop;
static int putback;
/* Put back by the handlers (TEST_ORDER_PUTBACK): per target rank t, word k
 * is set by t's handler of this rank's message 8k+1 (its seq + 1), and
 * every 64th of those also writes PB_BIG bytes into t's big slot. */
enum { PB_BIG = 3000, PB_BIG_SLOTS = 8 };
static uint64_t *echo;                             /* [n][count / 8 + 1] */
static unsigned char *echo_big;                    /* [n][PB_BIG_SLOTS][PB_BIG] */
static unsigned char pb_src[PB_BIG_SLOTS][PB_BIG]; /* constant once set */
static uint64_t *pb_val; /* [count / 8 + 1]: 8k + 2, the sources of the words */

static size_t area_bytes(void)
{
    return (size_t)SLOTS * SLOT + (size_t)BIG_SLOTS * big_len;
}

/* Where sender src's Long number seq lands at this rank (in the sender's
 * view: the same offset at the target). */
static size_t long_offset(int src, uint64_t seq, size_t *len)
{
    size_t base = (size_t)src * area_bytes();
    if (seq % BIG_EVERY == 7) {
        *len = big_len;
        return base + (size_t)SLOTS * SLOT +
               (size_t)(seq / BIG_EVERY % BIG_SLOTS) * big_len;
    }
    *len = 8 + (size_t)(seq / 8 % (SLOT - 8));
    return base + (size_t)(seq / 8 % SLOTS) * SLOT;
}

/* The payload of message seq: its bytes are a function of seq and i. */
static unsigned char byte_of(uint64_t seq, size_t i)
{
    return (unsigned char)(seq * 7 + i * 13 + (i >> 8));
}

static size_t medium_len(uint64_t seq)
{
    if (seq % 64 == 5)
        return medium_max;
    return 8 + (size_t)(seq * 131 % 3000) % (medium_max - 8);
}

static void fail(int src, const char *what, uint64_t want, uint64_t seen)
{
    if (atomic_fetch_add(&bad, 1) < 5)
        fprintf(stderr, "rank %d: from rank %d: %s (expected %llu, saw %llu)\n", me, src,
                what, (unsigned long long)want, (unsigned long long)seen);
}

static void check_bytes(int src, uint64_t seq, const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len; i += 1 + i / 64) /* every byte of the first 64 */
        if (p[i] != byte_of(seq, i)) {
            fail(src, "payload byte differs", byte_of(seq, i), p[i]);
            return;
        }
    if (len && p[len - 1] != byte_of(seq, len - 1))
        fail(src, "last payload byte differs", byte_of(seq, len - 1), p[len - 1]);
}

static void on_seq(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                   int na)
{
    int src = -1;
    MP_OK(tern_am_source(t, &src));
    if (atomic_exchange(&busy[src], 1))
        fail(src, "two handlers of one sender ran at once", 0, 1);
    uint64_t seq = a[0],
             want = atomic_load_explicit(&next_seq[src], memory_order_relaxed);
    if (seq != want)
        fail(src, "out of order", want, seq);
    atomic_store_explicit(&next_seq[src], seq + 1, memory_order_relaxed);
    int kind = (int)(seq % 8);
    if (na != (kind == 3 ? TERN_AM_MAX_ARGS : 1) ||
        (kind == 3 && a[TERN_AM_MAX_ARGS - 1] != (seq ^ 0x5a5a)))
        fail(src, "arguments differ", kind == 3 ? TERN_AM_MAX_ARGS : 1, (uint64_t)na);
    if (kind == 4 || kind == 5 || kind == 6) {
        size_t want_len = kind == 4 ? 24 : kind == 5 ? medium_len(seq) : 1 + seq % 512;
        if (len != want_len)
            fail(src, "Medium length differs", want_len, len);
        else
            check_bytes(src, seq, buf, len);
    } else if (kind == 7) {
        size_t want_len;
        char *want_at = landing + long_offset(src, seq, &want_len);
        if (len != want_len || buf != want_at)
            fail(src, "Long length or place differs", want_len, len);
        else
            check_bytes(src, seq, buf, len);
    }
    if (putback && kind == 1) { /* RMA from a handler: must not wait */
        uint64_t k = seq / 8;
        size_t per = (size_t)(count / 8 + 1);
        MP_OK(tern_put_nbi(src, tern_sym_addr(src, &echo[(size_t)me * per + k]),
                           &pb_val[k], 8, 0));
        if (k % 64 == 0) {
            size_t slot = k / 64 % PB_BIG_SLOTS;
            MP_OK(tern_put_nbi(
                src,
                tern_sym_addr(src,
                              echo_big + ((size_t)me * PB_BIG_SLOTS + slot) * PB_BIG),
                pb_src[slot], PB_BIG, 0));
        }
    }
    atomic_store(&busy[src], 0);
    atomic_fetch_add_explicit(&got[src], 1, memory_order_release);
}

/* After a quiet and a barrier: every put of the handlers at rank t (which
 * received from this rank) landed. */
static void check_putback(int t)
{
    size_t per = (size_t)(count / 8 + 1);
    long missing = 0;
    for (long k = 0; 8 * k + 1 < count; k++) {
        uint64_t v = echo[(size_t)t * per + (size_t)k];
        if (v != (uint64_t)(8 * k + 2) && missing++ < 3)
            fprintf(stderr, "rank %d: put back by rank %d for message %ld: %llu\n", me, t,
                    8 * k + 1, (unsigned long long)v);
    }
    MP_CHECK(missing == 0, "%ld puts back from rank %d missing or wrong", missing, t);
    long big = (count - 2) / 64 + 1; /* k multiples of 64 with 8k+1 < count */
    for (size_t slot = 0; slot < PB_BIG_SLOTS && (long)slot < big; slot++)
        MP_CHECK(memcmp(echo_big + ((size_t)t * PB_BIG_SLOTS + slot) * PB_BIG,
                        pb_src[slot], PB_BIG) == 0,
                 "a big put back from rank %d differs (slot %zu)", t, slot);
}

static void send_one(int to, uint64_t seq, unsigned char *buf)
{
    tern_am_arg_t a[TERN_AM_MAX_ARGS] = {seq};
    switch (seq % 8) {
    case 3:
        a[TERN_AM_MAX_ARGS - 1] = seq ^ 0x5a5a;
        MP_OK(tern_am_request_short(to, H_SEQ, a, TERN_AM_MAX_ARGS, 0));
        return;
    case 4:
    case 5: {
        size_t len = seq % 8 == 4 ? 24 : medium_len(seq);
        for (size_t i = 0; i < len; i++)
            buf[i] = byte_of(seq, i);
        MP_OK(tern_am_request_medium(to, H_SEQ, buf, len, a, 1, 0));
        return;
    }
    case 6: { /* negotiated, generated in place */
        size_t len = 1 + seq % 512;
        tern_am_sd_t sd;
        MP_OK(tern_am_prepare_request_medium(to, NULL, len, len, 1, 0, &sd));
        for (size_t i = 0; i < len; i++)
            ((unsigned char *)sd.buf)[i] = byte_of(seq, i);
        MP_OK(tern_am_commit_request_medium(&sd, H_SEQ, len, a));
        return;
    }
    case 7: {
        size_t len;
        size_t off = long_offset(me, seq, &len);
        for (size_t i = 0; i < len; i++)
            buf[i] = byte_of(seq, i);
        MP_OK(tern_am_request_long(to, H_SEQ, buf, len, tern_sym_addr(to, landing + off),
                                   a, 1, 0));
        return;
    }
    default: MP_OK(tern_am_request_short(to, H_SEQ, a, 1, 0));
    }
}

static void *poller(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        MP_OK(tern_poll());
        sched_yield(); /* the node is oversubscribed: let the senders run */
    }
    MP_OK(tern_quiet()); /* the puts of handlers that ran on this thread */
    return NULL;
}

int main(int argc, char **argv)
{
    const char *pe = getenv("TEST_ORDER_POLLERS");
    int pollers = pe ? atoi(pe) : 0;
    me = mp_init(&argc, &argv, pollers ? TERN_THREAD_MULTIPLE : TERN_THREAD_SINGLE);
    n = tern_size();
    if (n < 2)
        return mp_finish("am_order"); /* no pair */
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    const char *ce = getenv("TEST_ORDER_COUNT");
    count = ce ? atol(ce) : 100000;
    medium_max = tern_am_max_medium(-1);
    MP_CHECK(medium_max >= 1024, "largest Medium: %zu", medium_max);
    /* Longer than any Medium: over the network it goes by a write. */
    big_len = medium_max + 4096;
    MP_OK(tern_alloc_sym((size_t)n * area_bytes(), (void **)&landing));
    next_seq = calloc((size_t)n, sizeof(*next_seq));
    got = calloc((size_t)n, sizeof(*got));
    busy = calloc((size_t)n, sizeof(*busy));
    unsigned char *buf = malloc(big_len);
    MP_CHECK(next_seq && got && busy && buf, "calloc");
    const char *pbe = getenv("TEST_ORDER_PUTBACK");
    putback = pbe && atoi(pbe);
    if (putback) {
        MP_CHECK(!getenv("TERN_PROGRESS_THREAD") ||
                     atoi(getenv("TERN_PROGRESS_THREAD")) == 0,
                 "TEST_ORDER_PUTBACK needs handlers on threads that quiet");
        MP_OK(tern_alloc_sym((size_t)n * (size_t)(count / 8 + 1) * 8, (void **)&echo));
        MP_OK(tern_alloc_sym((size_t)n * PB_BIG_SLOTS * PB_BIG, (void **)&echo_big));
        memset(echo, 0, (size_t)n * (size_t)(count / 8 + 1) * 8);
        memset(echo_big, 0, (size_t)n * PB_BIG_SLOTS * PB_BIG);
        pb_val = malloc((size_t)(count / 8 + 1) * sizeof(*pb_val));
        MP_CHECK(pb_val, "malloc");
        for (long k = 0; k <= count / 8; k++)
            pb_val[k] = (uint64_t)(8 * k + 2);
        for (size_t s = 0; s < PB_BIG_SLOTS; s++)
            for (size_t i = 0; i < PB_BIG; i++)
                pb_src[s][i] = (unsigned char)(s * 31 + i * 7 + 1);
    }
    MP_OK(tern_am_register(H_SEQ, on_seq, "sequence"));
    MP_OK(tern_barrier());
    pthread_t th[8];
    if (pollers > 8)
        pollers = 8;
    for (int i = 0; i < pollers; i++)
        MP_CHECK(pthread_create(&th[i], NULL, poller, NULL) == 0, "thread");

    int two = n > 2; /* a left neighbour distinct from the right one */
    MP_MARK("sending");
    for (long i = 0; i < count; i++) {
        send_one(right, (uint64_t)i, buf);
        if (two)
            send_one(left, (uint64_t)i, buf);
        if (me % 2 == 1 && i % 20000 == 19999)
            usleep(20000); /* a receiver that does not poll for a while */
    }
    /* Everything from both neighbours, handled on any thread. */
    while (atomic_load_explicit(&got[left], memory_order_acquire) < (uint64_t)count ||
           (two &&
            atomic_load_explicit(&got[right], memory_order_acquire) < (uint64_t)count))
        MP_OK(tern_poll());
    atomic_store(&stop, 1);
    for (int i = 0; i < pollers; i++)
        pthread_join(th[i], NULL);
    if (putback)
        MP_OK(tern_quiet()); /* the puts of handlers that ran on this thread */
    MP_OK(tern_barrier());
    if (putback) {
        check_putback(right);
        if (two)
            check_putback(left);
    }
    long nbad = atomic_load(&bad);
    MP_CHECK(nbad == 0, "%ld messages out of order, overlapping or damaged", nbad);
    uint64_t next = atomic_load(&next_seq[left]);
    MP_CHECK(next == (uint64_t)count, "from rank %d: next %llu", left,
             (unsigned long long)next);
    free(buf);
    free(busy);
    free(got);
    free(next_seq);
    return mp_finish("am_order");
}
