/* Active messages on every configuration: each rank runs Request/Reply
 * round trips of every category with every rank (itself included), with
 * fixed and negotiated payload; a flood of Short Requests to the right
 * neighbour, whose receiver sleeps between polls, arrives exactly once
 * and in order; bad input gets its error and a message naming what was
 * wrong, while the neighbour's Requests run handlers that check their own
 * refused calls (on the progress thread too). TEST_AM_FLOOD sets the flood's
 * length: messages in the whole job, split evenly over the senders
 * (default 10^5). */
#include <stdatomic.h>
#include <unistd.h>

#include "mp_util.h"

enum { H_PING = 1, H_PONG, H_ECHO, H_ECHOED, H_LONG, H_LONGED, H_FLOOD, H_BAD, H_NEG };

#define ROUNDS         20
#define LONG_MAX_BYTES (256u << 10)

/* Counters in the segment, so that tern_wait_until_u64 sees the handlers'
 * updates (and the wait itself runs them). */
typedef struct counters {
    uint64_t pongs, echoed, longed, neg, flood_seen, flood_bad, bad_ok;
} counters_t;
static counters_t *cnt;
static char *landing;    /* Long Requests land here: one slot per sender */
static char *reply_area; /* Long Replies land here */
static size_t medium_max;
static uint64_t *flood_next; /* per sender: next sequence number expected */
static int me, n;

static void bump(uint64_t *c)
{
    __atomic_fetch_add(c, 1, __ATOMIC_RELEASE);
}

/* The token of a ping handler that has returned (bad_input: refused). */
static tern_am_token_t kept_token;
/* The same, of this thread's last ping (on_echo: refused in a later
 * handler on the same thread). */
static _Thread_local tern_am_token_t kept_here;

static void on_ping(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                    int na)
{
    int src = -1;
    __atomic_store_n(&kept_token, t, __ATOMIC_RELEASE);
    kept_here = t;
    MP_OK(tern_am_source(t, &src));
    MP_CHECK(buf == NULL && len == 0 && na == TERN_AM_MAX_ARGS, "Short: buf %p len %zu",
             buf, len);
    for (int i = 0; i < na; i++)
        MP_CHECK(a[i] == (uint64_t)src * 1000 + (uint64_t)i, "Short argument %d: %llu", i,
                 (unsigned long long)a[i]);
    tern_am_arg_t back = (tern_am_arg_t)me;
    MP_OK(tern_am_reply_short(t, H_PONG, &back, 1, 0));
}

static void on_pong(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                    int na)
{
    int src = -1;
    MP_OK(tern_am_source(t, &src));
    MP_CHECK(na == 1 && a[0] == (uint64_t)src && !buf && !len, "pong from %d", src);
    MP_EXPECT(tern_am_reply_short(t, H_PONG, NULL, 0, 0), TERN_ERR_INVALID,
              "a Reply handler cannot reply");
    bump(&cnt->pongs);
}

static void on_echo(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                    int na)
{
    int src = -1;
    MP_OK(tern_am_source(t, &src));
    MP_CHECK(na == 2 && a[1] == len, "echo: %d args, len %zu", na, len);
    for (size_t i = 0; i < len; i++)
        MP_CHECK(((unsigned char *)buf)[i] == mp_pattern(src, i, (unsigned)a[0]),
                 "Medium byte %zu from %d", i, src);
    /* A token kept from an earlier handler on this thread is refused in
     * this one too (it was accepted while every handler's token was the
     * same address: active-messages.md, twenty-fourth pass). */
    if (kept_here) {
        MP_EXPECT(tern_am_reply_short(kept_here, H_PONG, NULL, 0, 0), TERN_ERR_INVALID,
                  "not inside the handler");
        MP_EXPECT(tern_am_source(kept_here, &src), TERN_ERR_INVALID, "token");
        MP_OK(tern_am_source(t, &src));
    }
    MP_OK(tern_am_reply_medium(t, H_ECHOED, buf, len, a, na, 0));
    /* One Reply per Request; waiting in a handler is refused. Checked in
     * every handler, whichever thread runs it (with the progress thread,
     * while the main thread captures its own errors: overlap()). */
    MP_EXPECT(tern_am_reply_short(t, H_PONG, NULL, 0, 0), TERN_ERR_INVALID,
              "answered already");
    MP_EXPECT(tern_barrier(), TERN_ERR_INVALID, "inside an active-message handler");
    MP_EXPECT(tern_poll(), TERN_ERR_INVALID, "inside an active-message handler");
    /* Refused even with nothing outstanding (their fast path checks too). */
    MP_EXPECT(tern_quiet(), TERN_ERR_INVALID, "inside an active-message handler");
    MP_EXPECT(tern_fence(), TERN_ERR_INVALID, "inside an active-message handler");
    MP_EXPECT(tern_nbi_sync(TERN_SYNC_REMOTE), TERN_ERR_INVALID,
              "inside an active-message handler");
    MP_EXPECT(tern_am_request_short(src, H_PING, NULL, 0, 0), TERN_ERR_INVALID,
              "inside an active-message handler");
    MP_EXPECT(tern_am_register(77, on_echo, "late"), TERN_ERR_INVALID,
              "inside an active-message handler");
    mp_capture_begin();
    void *p = tern_alloc(64);
    const char *msg = mp_capture_end();
    MP_CHECK(p == NULL && strstr(msg, "must not allocate"),
             "tern_alloc in a handler: %p, '%s'", p, msg);
}

static void on_echoed(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                      int na)
{
    int src = -1;
    MP_OK(tern_am_source(t, &src));
    MP_CHECK(na == 2 && a[1] == len, "echoed: %d args", na);
    for (size_t i = 0; i < len; i++)
        MP_CHECK(((unsigned char *)buf)[i] == mp_pattern(me, i, (unsigned)a[0]),
                 "echoed byte %zu from %d", i, src);
    bump(&cnt->echoed);
}

/* Long Request: the payload is in place before the handler runs; the
 * Reply is a Long back into the requester's reply area (up to what a
 * Reply may carry to it). */
static void on_long(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                    int na)
{
    int src = -1;
    MP_OK(tern_am_source(t, &src));
    MP_CHECK(na == 3 && buf == landing + (size_t)src * LONG_MAX_BYTES, "Long at %p", buf);
    for (size_t i = 0; i < len; i++)
        MP_CHECK(((unsigned char *)buf)[i] == mp_pattern(src, i, (unsigned)a[0]),
                 "Long byte %zu of %zu from %d", i, len, src);
    size_t back = len < tern_am_max_long_reply(src) ? len : tern_am_max_long_reply(src);
    void *dest = tern_sym_addr(src, reply_area + (size_t)me * LONG_MAX_BYTES);
    tern_am_arg_t ra[3] = {a[0], back, 0};
    MP_OK(tern_am_reply_long(t, H_LONGED, buf, back, dest, ra, 3, 0));
}

static void on_longed(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                      int na)
{
    int src = -1;
    MP_OK(tern_am_source(t, &src));
    MP_CHECK(na == 3 && len == a[1], "Long Reply of %zu bytes", len);
    MP_CHECK(len == 0 || buf == reply_area + (size_t)src * LONG_MAX_BYTES,
             "Long Reply at %p", buf);
    for (size_t i = 0; i < len; i++)
        MP_CHECK(((unsigned char *)buf)[i] == mp_pattern(me, i, (unsigned)a[0]),
                 "Long Reply byte %zu from %d", i, src);
    bump(&cnt->longed);
}

/* Negotiated: the Reply's payload is generated straight into the buffer
 * Prepare returns. */
static void on_neg(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                   int na)
{
    int src = -1;
    MP_OK(tern_am_source(t, &src));
    if (a[0] == 1) { /* the Reply */
        for (size_t i = 0; i < len; i++)
            MP_CHECK(((unsigned char *)buf)[i] == (unsigned char)(i * 3 + src),
                     "negotiated Reply byte %zu", i);
        MP_CHECK(len == a[1], "negotiated Reply of %zu bytes, said %llu", len,
                 (unsigned long long)a[1]);
        bump(&cnt->neg);
        return;
    }
    (void)na;
    for (size_t i = 0; i < len; i++)
        MP_CHECK(((unsigned char *)buf)[i] == (unsigned char)(i ^ (size_t)src),
                 "negotiated byte %zu", i);
    tern_am_sd_t sd;
    MP_OK(tern_am_prepare_reply_medium(t, NULL, 1, len + 1, 2, 0, &sd));
    MP_CHECK(sd.len >= 1 && sd.len <= len + 1, "granted %zu", sd.len);
    size_t out = sd.len;
    for (size_t i = 0; i < out; i++)
        ((unsigned char *)sd.buf)[i] = (unsigned char)(i * 3 + me);
    tern_am_arg_t ra[2] = {1, out};
    MP_OK(tern_am_commit_reply_medium(&sd, H_NEG, out, ra));
}

static void on_flood(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                     int na)
{
    (void)buf, (void)len;
    int src = -1;
    MP_OK(tern_am_source(t, &src));
    /* Exactly once, in order (am.h: per pair, on every transport). */
    if (na != 1 || a[0] != flood_next[src])
        bump(&cnt->flood_bad);
    flood_next[src] = a[0] + 1;
    bump(&cnt->flood_seen);
}

static void on_bad(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                   int na)
{
    (void)t, (void)buf, (void)len, (void)a, (void)na;
    MP_CHECK(0, "the bad-input handler ran: a refused message was sent");
}

static void wait_count(uint64_t *c, uint64_t v)
{
    MP_OK(tern_wait_until_u64((volatile uint64_t *)c, TERN_CMP_GE, v));
}

static void round_trips(void)
{
    tern_am_arg_t args[TERN_AM_MAX_ARGS];
    for (int i = 0; i < TERN_AM_MAX_ARGS; i++)
        args[i] = (tern_am_arg_t)me * 1000 + (tern_am_arg_t)i;
    unsigned char *buf = malloc(LONG_MAX_BYTES);
    MP_CHECK(buf, "malloc");
    uint64_t want = 0;
    for (int round = 0; round < ROUNDS; round++)
        for (int k = 0; k < n; k++) {
            int r = (me + k) % n;
            want++;
            MP_OK(tern_am_request_short(r, H_PING, args, TERN_AM_MAX_ARGS, 0));
            /* Lengths spread over the whole Medium range whatever its
             * size (TERN_AM_MEDIUM_MAX=64K: mp.am_big). */
            size_t len = round == 0 ? 0
                         : round == 1
                             ? medium_max
                             : (size_t)round * 331 * (medium_max / 1024) % medium_max;
            for (size_t i = 0; i < len; i++)
                buf[i] = mp_pattern(me, i, (unsigned)round);
            tern_am_arg_t ea[2] = {(tern_am_arg_t)round, len};
            MP_OK(tern_am_request_medium(r, H_ECHO, buf, len, ea, 2, 0));
            size_t ll = round == 0   ? 0
                        : round == 1 ? LONG_MAX_BYTES
                                     : (size_t)(round * 7919) % LONG_MAX_BYTES;
            for (size_t i = 0; i < ll; i++)
                buf[i] = mp_pattern(me, i, (unsigned)round);
            void *dest = tern_sym_addr(r, landing + (size_t)me * LONG_MAX_BYTES);
            tern_am_arg_t la[3] = {(tern_am_arg_t)round, ll, 0};
            MP_OK(tern_am_request_long(r, H_LONG, buf, ll, dest, la, 3, 0));
            /* Negotiated Request, generated in place, or in a buffer of
             * the client's (odd rounds); every fourth round one that fits
             * in a queue slot's line on shm (1-24 bytes with one
             * argument), in place and from the client's buffer. */
            tern_am_sd_t sd;
            size_t nl = round % 4 >= 2
                            ? 1 + (size_t)(round * 5 + k) % 24
                            : 1 + (size_t)round * 97 * (medium_max / 1024) % medium_max;
            unsigned char *cb = round % 2 ? buf : NULL;
            MP_OK(tern_am_prepare_request_medium(r, cb, nl, nl, 1, 0, &sd));
            MP_CHECK(sd.len == nl, "granted %zu of %zu", sd.len, nl);
            MP_CHECK(!cb || sd.buf == cb,
                     "Prepare did not hand back the client's buffer");
            for (size_t i = 0; i < nl; i++)
                ((unsigned char *)sd.buf)[i] = (unsigned char)(i ^ (size_t)me);
            tern_am_arg_t na[1] = {0};
            MP_OK(tern_am_commit_request_medium(&sd, H_NEG, nl, na));
            /* The Long slot at r is reused next round: wait for its Reply. */
            wait_count(&cnt->longed, want);
        }
    wait_count(&cnt->pongs, want);
    wait_count(&cnt->echoed, want);
    wait_count(&cnt->neg, want);
    free(buf);
}

static void flood(long count)
{
    int right = (me + 1) % n, left = (me + n - 1) % n;
    MP_MARK("flood");
    for (long i = 0; i < count; i++) {
        tern_am_arg_t a = (tern_am_arg_t)i;
        MP_OK(tern_am_request_short(right, H_FLOOD, &a, 1, 0));
        if (me % 2 == 1 && i % 20000 == 0)
            usleep(20000); /* a receiver that sleeps now and then */
    }
    wait_count(&cnt->flood_seen, (uint64_t)count);
    MP_CHECK(cnt->flood_bad == 0, "%llu flood messages out of order or malformed",
             (unsigned long long)cnt->flood_bad);
    MP_CHECK(flood_next[left] == (uint64_t)count, "flood: next expected %llu",
             (unsigned long long)flood_next[left]);
}

static void bad_input(void)
{
    char buf[64] = {0};
    tern_am_arg_t args[TERN_AM_MAX_ARGS + 1] = {0};
    int r = (me + 1) % n;
    MP_EXPECT(tern_am_request_short(r, 200, NULL, 0, 0), TERN_ERR_INVALID,
              "handler index 200 is not registered");
    MP_EXPECT(tern_am_request_short(r, 300, NULL, 0, 0), TERN_ERR_INVALID, "300");
    MP_EXPECT(tern_am_request_short(r, H_BAD, args, TERN_AM_MAX_ARGS + 1, 0),
              TERN_ERR_INVALID, "at most 16");
    MP_EXPECT(tern_am_request_short(n, H_BAD, NULL, 0, 0), TERN_ERR_RANK, "rank");
    MP_EXPECT(tern_am_request_short(r, H_BAD, NULL, 0, 0x100), TERN_ERR_INVALID, "flags");
    char *big = calloc(1, medium_max + 1);
    MP_EXPECT(tern_am_request_medium(r, H_BAD, big, medium_max + 1, NULL, 0, 0),
              TERN_ERR_INVALID, "at most");
    free(big);
    void *base;
    size_t size;
    MP_OK(tern_segment_query(r, &base, &size));
    MP_EXPECT(
        tern_am_request_long(r, H_BAD, buf, 64, (char *)base + size - 8, NULL, 0, 0),
        TERN_ERR_RANGE, "outside the segment");
    tern_am_sd_t sd;
    memset(&sd, 0, sizeof(sd));
    MP_EXPECT(tern_am_commit_request_medium(&sd, H_BAD, 1, NULL), TERN_ERR_INVALID,
              "no Request prepared");
    MP_OK(tern_am_prepare_request_medium(r, NULL, 8, 8, 0, 0, &sd));
    MP_EXPECT(tern_am_commit_request_medium(&sd, H_BAD, 9, NULL), TERN_ERR_INVALID,
              "over the 8 bytes");
    MP_EXPECT(tern_am_commit_request_medium(&sd, H_BAD, 1, NULL), TERN_ERR_INVALID,
              "committed already");
    /* Arguments announced at Prepare, none given at Commit: refused, the
     * room given back by a void message (which copied the NULL arguments
     * into its head, SIGSEGV, until that head carried none). */
    MP_OK(tern_am_prepare_request_medium(r, NULL, 8, 8, 2, 0, &sd));
    MP_EXPECT(tern_am_commit_request_medium(&sd, H_BAD, 8, NULL), TERN_ERR_INVALID,
              "args is NULL with 2 arguments");
    MP_OK(tern_am_prepare_request_medium(r, NULL, 8, 8, 0, 0, &sd));
    MP_EXPECT(tern_am_commit_request_medium(&sd, 200, 8, NULL), TERN_ERR_INVALID,
              "handler index 200 is not registered");
    MP_EXPECT(tern_am_reply_short(NULL, H_BAD, NULL, 0, 0), TERN_ERR_INVALID,
              "not inside the handler");
    int src;
    MP_EXPECT(tern_am_source(NULL, &src), TERN_ERR_INVALID, "token");
    /* A made-up token (never read) and one kept from a handler that has
     * returned, on this thread or the progress thread, are refused by every
     * Reply call and by tern_am_source. */
    tern_am_token_t kept = __atomic_load_n(&kept_token, __ATOMIC_ACQUIRE);
    MP_CHECK(kept != NULL, "no ping handled here before bad_input");
    tern_am_token_t bad[2] = {(tern_am_token_t)(void *)buf, kept};
    for (int i = 0; i < 2; i++) {
        MP_EXPECT(tern_am_reply_short(bad[i], H_BAD, NULL, 0, 0), TERN_ERR_INVALID,
                  "not inside the handler");
        MP_EXPECT(tern_am_reply_medium(bad[i], H_BAD, buf, 8, NULL, 0, 0),
                  TERN_ERR_INVALID, "not inside the handler");
        MP_EXPECT(tern_am_reply_long(bad[i], H_BAD, buf, 8, buf, NULL, 0, 0),
                  TERN_ERR_INVALID, "not inside the handler");
        MP_EXPECT(tern_am_prepare_reply_medium(bad[i], NULL, 1, 8, 0, 0, &sd),
                  TERN_ERR_INVALID, "not inside the handler");
        MP_EXPECT(tern_am_source(bad[i], &src), TERN_ERR_INVALID, "token");
    }
    MP_EXPECT(tern_am_register(-1, on_bad, "x"), TERN_ERR_INVALID, "not in [0, 256)");
    MP_EXPECT(tern_am_register(H_PING, on_bad, "x"), TERN_ERR_INVALID, "taken by 'ping'");
    MP_EXPECT(tern_am_register(9, NULL, "x"), TERN_ERR_INVALID, "NULL");
}

/* Bad input here while the left neighbour's Requests run handlers that
 * make refused calls of their own: with the progress thread
 * (TERN_PROGRESS_THREAD=1, in a job with network peers) those handlers
 * run there, at the same time, and both threads capture their errors. */
#define OVERLAP 32
static void overlap(void)
{
    int r = (me + 1) % n;
    uint64_t want = __atomic_load_n(&cnt->echoed, __ATOMIC_ACQUIRE) + OVERLAP;
    unsigned char buf[64];
    for (size_t i = 0; i < sizeof(buf); i++)
        buf[i] = mp_pattern(me, i, 7);
    tern_am_arg_t ea[2] = {7, sizeof(buf)};
    for (int i = 0; i < OVERLAP; i++) {
        MP_OK(tern_am_request_medium(r, H_ECHO, buf, sizeof(buf), ea, 2, 0));
        bad_input();
    }
    wait_count(&cnt->echoed, want);
}

/* Medium Requests of every length from 0 to 40 bytes, each echoed back
 * as a Medium Reply: on shm those up to 16 bytes (two arguments) are
 * copied into the slot's line by tn_msgq_copy_small, 8-byte words of which
 * the last ends at the payload's end (overlapping the one before for
 * lengths not a multiple of 8); both handlers check every byte. The
 * source starts one byte into the buffer, at an odd address. */
#define SMALL_LENS 41
static void small_lengths(void)
{
    int r = (me + 1) % n;
    uint64_t want = __atomic_load_n(&cnt->echoed, __ATOMIC_ACQUIRE) + SMALL_LENS;
    unsigned char buf[SMALL_LENS + 1];
    for (size_t len = 0; len < SMALL_LENS; len++) {
        for (size_t i = 0; i < len; i++)
            buf[1 + i] = mp_pattern(me, i, (unsigned)len);
        tern_am_arg_t ea[2] = {len, len};
        MP_OK(tern_am_request_medium(r, H_ECHO, buf + 1, len, ea, 2, 0));
        /* The buffer is the caller's again: the next length's bytes
         * differ at every position, so a stale copy would be seen. */
    }
    wait_count(&cnt->echoed, want);
}

int main(int argc, char **argv)
{
    me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    n = tern_size();
    MP_OK(tern_alloc_sym(sizeof(counters_t), (void **)&cnt));
    MP_OK(tern_alloc_sym((size_t)n * LONG_MAX_BYTES, (void **)&landing));
    MP_OK(tern_alloc_sym((size_t)n * LONG_MAX_BYTES, (void **)&reply_area));
    memset(cnt, 0, sizeof(*cnt));
    flood_next = calloc((size_t)n, sizeof(*flood_next));
    MP_CHECK(flood_next, "calloc");
    MP_OK(tern_am_register(H_PING, on_ping, "ping"));
    MP_OK(tern_am_register(H_PONG, on_pong, "pong"));
    MP_OK(tern_am_register(H_ECHO, on_echo, "echo"));
    MP_OK(tern_am_register(H_ECHOED, on_echoed, "echoed"));
    MP_OK(tern_am_register(H_LONG, on_long, "long"));
    MP_OK(tern_am_register(H_LONGED, on_longed, "longed"));
    MP_OK(tern_am_register(H_FLOOD, on_flood, "flood"));
    MP_OK(tern_am_register(H_BAD, on_bad, "bad"));
    MP_OK(tern_am_register(H_NEG, on_neg, "negotiated"));
    MP_OK(tern_am_register(H_PING, on_ping, "ping")); /* the same again: fine */
    medium_max = tern_am_max_medium(-1);
    MP_CHECK(medium_max >= 1024, "largest Medium to every rank: %zu", medium_max);
    MP_OK(tern_barrier()); /* everyone registered */

    round_trips();
    MP_OK(tern_barrier());
    const char *fl = getenv("TEST_AM_FLOOD");
    long total = fl ? atol(fl) : 100000;
    flood((total + n - 1) / n);
    MP_OK(tern_barrier());
    overlap();
    MP_OK(tern_barrier());
    small_lengths();
    MP_OK(tern_barrier());
    free(flood_next);
    return mp_finish("am");
}
