/* Instructions per active message on shared memory, counted by callgrind
 * (repeatable on a noisy machine): a message to oneself goes through the
 * same queue, send, poll and dispatch as one to a node peer, so each loop
 * is the whole software path of one message. Run by scripts/am-cost.sh,
 * which divides each loop's inclusive count by the iterations. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <tern.h>

#define ITERS 100000

static volatile uint64_t handled;

static void on_msg(tern_am_token_t t, void *b, size_t l, const tern_am_arg_t *a, int n)
{
    (void)t, (void)b, (void)l, (void)a, (void)n;
    handled++;
}

static void on_request(tern_am_token_t t, void *b, size_t l, const tern_am_arg_t *a,
                       int n)
{
    (void)b, (void)l, (void)n;
    tern_am_reply_short(t, 3, a, 1, 0);
}

/* Answers a Medium Request with a Medium Reply of the same length from a
 * buffer of its own (as tern-bench am_lat does). */
static void on_request_medium(tern_am_token_t t, void *b, size_t l,
                              const tern_am_arg_t *a, int n)
{
    static char reply[1024];
    (void)b, (void)n;
    tern_am_reply_medium(t, 3, reply, l, a, 1, 0);
}

__attribute__((noinline)) void loop_poll_empty(void)
{
    for (int i = 0; i < ITERS; i++)
        tern_poll();
}

/* A Short Request with one argument, polled until its handler ran. */
__attribute__((noinline)) void loop_short(int me)
{
    tern_am_arg_t a[1] = {7};
    for (int i = 0; i < ITERS; i++) {
        unsigned long want = handled + 1;
        tern_am_request_short(me, 1, a, 1, 0);
        while (handled != want)
            tern_poll();
    }
}

/* An 8-byte Medium Request with one argument. */
__attribute__((noinline)) void loop_medium8(int me)
{
    tern_am_arg_t a[1] = {7};
    char p[8] = {0};
    for (int i = 0; i < ITERS; i++) {
        unsigned long want = handled + 1;
        tern_am_request_medium(me, 1, p, 8, a, 1, 0);
        while (handled != want)
            tern_poll();
    }
}

/* An 8-byte negotiated-payload Medium Request (Prepare, the payload
 * written into the buffer it returns, Commit) with one argument. */
__attribute__((noinline)) void loop_neg8(int me)
{
    tern_am_arg_t a[1] = {7};
    for (int i = 0; i < ITERS; i++) {
        unsigned long want = handled + 1;
        tern_am_sd_t sd;
        tern_am_prepare_request_medium(me, NULL, 8, 8, 1, 0, &sd);
        memset(sd.buf, i, 8);
        tern_am_commit_request_medium(&sd, 1, 8, a);
        while (handled != want)
            tern_poll();
    }
}

/* ITERS 1 KiB Medium Requests with one argument to handler h (header in
 * the slot, payload in the data ring), each awaited. */
static inline void medium1k_loop(int me, int h)
{
    tern_am_arg_t a[1] = {7};
    static char p[1024];
    for (int i = 0; i < ITERS; i++) {
        unsigned long want = handled + 1;
        tern_am_request_medium(me, h, p, sizeof p, a, 1, 0);
        while (handled != want)
            tern_poll();
    }
}

/* A 1 KiB Medium Request (handler 1 only counts it). */
__attribute__((noinline)) void loop_medium1k(int me)
{
    medium1k_loop(me, 1);
}

/* A 1 KiB Medium Request answered by a 1 KiB Medium Reply: two messages,
 * the ping-pong's path (the Reply held until its Request is consumed,
 * both carrying ACKs, both going back to their ring's start). */
__attribute__((noinline)) void loop_round_trip1k(int me)
{
    medium1k_loop(me, 4);
}

/* An 8-byte Long Request with one argument, into this rank's segment. */
__attribute__((noinline)) void loop_long8(int me, char *dest)
{
    tern_am_arg_t a[1] = {7};
    char p[8] = {0};
    for (int i = 0; i < ITERS; i++) {
        unsigned long want = handled + 1;
        tern_am_request_long(me, 1, p, 8, dest, a, 1, 0);
        while (handled != want)
            tern_poll();
    }
}

/* ITERS Requests to handler h (a Short, or a Medium of len bytes) each
 * awaited in tern_wait_until_u64, as tern-bench am_lat waits: the waiting
 * call's steps run the handlers (the Request's, whose Reply's handler
 * counts). */
static inline void wait_loop(int me, int h, size_t len)
{
    tern_am_arg_t a[1] = {7};
    static char p[1024];
    for (int i = 0; i < ITERS; i++) {
        uint64_t want = handled + 1;
        if (len)
            tern_am_request_medium(me, h, p, len, a, 1, 0);
        else
            tern_am_request_short(me, h, a, 1, 0);
        tern_wait_until_u64(&handled, TERN_CMP_GE, want);
    }
}

/* A Short Request and its Short Reply, awaited. */
__attribute__((noinline)) void loop_wait_rt(int me)
{
    wait_loop(me, 2, 0);
}

/* A 1 KiB Medium Request and its 1 KiB Medium Reply, awaited. */
__attribute__((noinline)) void loop_wait_rt1k(int me)
{
    wait_loop(me, 4, 1024);
}

/* A Short Request answered by a Short Reply: two messages. */
__attribute__((noinline)) void loop_round_trip(int me)
{
    tern_am_arg_t a[1] = {7};
    for (int i = 0; i < ITERS; i++) {
        unsigned long want = handled + 1;
        tern_am_request_short(me, 2, a, 1, 0);
        while (handled != want)
            tern_poll();
    }
}

int main(int argc, char **argv)
{
    if (tern_init(&argc, &argv, TERN_THREAD_SINGLE) != TERN_OK)
        return 1;
    int me = tern_rank();
    if (tern_am_register(1, on_msg, "message") != TERN_OK ||
        tern_am_register(2, on_request, "request") != TERN_OK ||
        tern_am_register(3, on_msg, "reply") != TERN_OK ||
        tern_am_register(4, on_request_medium, "medium request") != TERN_OK)
        return 1;
    loop_poll_empty();
    loop_short(me);
    loop_medium8(me);
    loop_neg8(me);
    loop_round_trip(me);
    char *dest;
    if (tern_alloc_sym(64, (void **)&dest) != TERN_OK)
        return 1;
    loop_medium1k(me);
    loop_round_trip1k(me);
    loop_long8(me, dest);
    loop_wait_rt(me);
    loop_wait_rt1k(me);
    printf("iterations %d, handled %llu\n", ITERS, (unsigned long long)handled);
    return tern_finalize() == TERN_OK && handled == 9ull * ITERS ? 0 : 1;
}
