/* hello_put: a complete small Tern program, meant to be copied as the
 * start of your own.
 *
 * Every rank owns an "inbox" in its segment (the memory other ranks can
 * reach). Each rank writes a greeting into the inbox of its right-hand
 * neighbour with a non-blocking put, reads it back with a blocking get,
 * and checks what its left-hand neighbour wrote into its own inbox.
 *
 * Build:  make                      (pkg-config, see Makefile)
 *    or:  cmake -S . -B build && cmake --build build
 * Run:    ternrun -n 4 ./hello_put  (or mpirun -n 4 ./hello_put with PMIx,
 *                                    or ./hello_put alone: one rank)
 * Exit status: 0 when every check passed on this rank, 1 otherwise. */
#include <stdio.h>
#include <string.h>

#include <tern.h>

#define MSG_LEN 64

/* Every Tern call returns a status: TERN_OK (0) or a negative error that
 * tern_strerror() describes. A failure here ends the whole job, so that no
 * rank is left waiting for one that gave up (setting TERN_ERROR_MODE=abort
 * makes Tern itself do this on any error). */
static void check(int status, const char *call)
{
    if (status != TERN_OK) {
        char msg[160];
        snprintf(msg, sizeof(msg), "hello_put: %s failed: %s", call,
                 tern_strerror(status));
        tern_abort(1, msg);
    }
}

int main(int argc, char **argv)
{
    /* Joins the job (ternrun, mpirun/srun through PMIx, or alone) and
     * creates this rank's segment. Collective: every rank calls it. */
    int status = tern_init(&argc, &argv, TERN_THREAD_SINGLE);
    if (status != TERN_OK) {
        fprintf(stderr, "hello_put: tern_init failed: %s\n", tern_strerror(status));
        return 1;
    }
    int me = tern_rank(), n = tern_size();
    int right = (me + 1) % n, left = (me + n - 1) % n;

    /* A symmetric allocation gives every rank its inbox at the same offset
     * of its own segment, so the address of any rank's inbox is found
     * locally with tern_sym_addr. Collective. */
    char *inbox;
    check(tern_alloc_sym(MSG_LEN, (void **)&inbox), "tern_alloc_sym");
    memset(inbox, 0, MSG_LEN);
    /* Nobody may write into an inbox before its owner has cleared it. */
    check(tern_barrier(), "tern_barrier");

    char msg[MSG_LEN] = {0};
    snprintf(msg, sizeof(msg), "hello from rank %d", me);

    /* Remote addresses are addresses in the target's segment as the
     * target sees them: here, the right neighbour's inbox. */
    char *remote_inbox = tern_sym_addr(right, inbox);

    /* Non-blocking put with two completion events: `sent` completes when
     * msg may be reused (local completion), `landed` when the bytes are
     * visible in the neighbour's inbox (remote completion). Other work can
     * go between the put and the waits. Pass NULL for an event you do not
     * need; every event you ask for must be waited for (or tested until
     * done) exactly once. */
    tern_event_t sent, landed;
    check(tern_put_nb(right, remote_inbox, msg, sizeof(msg), &sent, &landed, 0),
          "tern_put_nb");
    check(tern_event_wait(sent), "tern_event_wait(sent)");
    check(tern_event_wait(landed), "tern_event_wait(landed)");

    /* Blocking get: returns when `back` holds the bytes. */
    char back[MSG_LEN];
    check(tern_get(back, right, remote_inbox, sizeof(back), 0), "tern_get");

    /* After the barrier every rank's put has landed, so this inbox holds
     * the left neighbour's greeting. */
    check(tern_barrier(), "tern_barrier");
    char expected[MSG_LEN] = {0};
    snprintf(expected, sizeof(expected), "hello from rank %d", left);

    int ok = 1;
    if (memcmp(back, msg, MSG_LEN) != 0) {
        fprintf(stderr, "rank %d: read back \"%.*s\" from rank %d, wrote \"%s\"\n", me,
                MSG_LEN, back, right, msg);
        ok = 0;
    }
    if (memcmp(inbox, expected, MSG_LEN) != 0) {
        fprintf(stderr, "rank %d: inbox holds \"%.*s\", expected \"%s\"\n", me, MSG_LEN,
                inbox, expected);
        ok = 0;
    }
    if (ok)
        printf("rank %d of %d: got \"%s\"\n", me, n, inbox);

    /* Collective, and waits for every rank: nobody is still reading this
     * inbox when it is freed. */
    check(tern_free_sym(inbox), "tern_free_sym");
    check(tern_finalize(), "tern_finalize");
    return ok ? 0 : 1;
}
