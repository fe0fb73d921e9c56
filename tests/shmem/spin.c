/* Progress while spinning: PE 0 spins on a word of its own (or of a PE
 * mapped on its node) with one routine per phase (blocking fetching AMOs
 * on the inline and the library paths, an nbi fetch and quiet,
 * signal_fetch, test, wait_until) while every other PE does a blocking
 * fetch-add on a counter at PE 0 and the last of them then sets the word.
 * Over the active-message path of atomics (TERN_OFI_ATOMICS=am, net and
 * mixed) each fetch-add is a Request that PE 0 must serve from inside its
 * spin; a spin that drives no progress never sees the word change, and
 * the PE reports the routine after a few seconds instead of hanging.
 * Argument: R, the rounds per phase (20). */
#include <stdint.h>

#include "shmem_test.h"

enum {
    LONG_FETCH,   /* shmem_long_atomic_fetch: shmem.h's inline path */
    INT_FETCH,    /* shmem_int_atomic_fetch: the library */
    LONG_CSWAP,   /* shmem_long_atomic_compare_swap: inline */
    U64_FOR,      /* shmem_uint64_atomic_fetch_or: the library */
    DOUBLE_FETCH, /* shmem_double_atomic_fetch: the library, not inline in Tern */
    FETCH_NBI,    /* shmem_long_atomic_fetch_nbi and shmem_quiet */
    SIGNAL_FETCH, /* shmem_signal_fetch */
    LONG_TEST,    /* shmem_long_test */
    LONG_WAIT,    /* shmem_long_wait_until */
    INT_WAIT,     /* shmem_int_wait_until */
    PEER_FETCH,   /* shmem_long_atomic_fetch of a node peer's word */
    NPHASES
};
static const char *const names[NPHASES] = {"shmem_long_atomic_fetch",
                                           "shmem_int_atomic_fetch",
                                           "shmem_long_atomic_compare_swap",
                                           "shmem_uint64_atomic_fetch_or",
                                           "shmem_double_atomic_fetch",
                                           "shmem_long_atomic_fetch_nbi+shmem_quiet",
                                           "shmem_signal_fetch",
                                           "shmem_long_test",
                                           "shmem_long_wait_until",
                                           "shmem_int_wait_until",
                                           "shmem_long_atomic_fetch (node peer's word)"};

static long lflag, cnt;
static int iflag;
static uint64_t uflag, sig;
static double dflag;
static int peer; /* a PE other than 0 mapped at PE 0, or -1 */

/* 1 when the phase's word is set, read with the phase's routine. */
static int seen(int ph)
{
    long v = 0;
    switch (ph) {
    case LONG_FETCH: return shmem_long_atomic_fetch(&lflag, 0) != 0;
    case INT_FETCH: return shmem_int_atomic_fetch(&iflag, 0) != 0;
    case LONG_CSWAP: return shmem_long_atomic_compare_swap(&lflag, 1, 1, 0) == 1;
    case U64_FOR: return shmem_uint64_atomic_fetch_or(&uflag, 0, 0) != 0;
    case DOUBLE_FETCH: return shmem_double_atomic_fetch(&dflag, 0) != 0.0;
    case FETCH_NBI:
        shmem_long_atomic_fetch_nbi(&v, &lflag, 0);
        shmem_quiet();
        return v != 0;
    case SIGNAL_FETCH: return shmem_signal_fetch(&sig) != 0;
    case LONG_TEST: return shmem_long_test(&lflag, SHMEM_CMP_NE, 0);
    case LONG_WAIT: shmem_long_wait_until(&lflag, SHMEM_CMP_NE, 0); return 1;
    case INT_WAIT: shmem_int_wait_until(&iflag, SHMEM_CMP_NE, 0); return 1;
    default: return shmem_long_atomic_fetch(&lflag, peer) != 0;
    }
}

/* The last PE to arrive sets the phase's word at its owner. */
static void set_word(int ph)
{
    switch (ph) {
    case INT_FETCH:
    case INT_WAIT: shmem_int_atomic_set(&iflag, 1, 0); break;
    case U64_FOR: shmem_uint64_atomic_set(&uflag, 1, 0); break;
    case DOUBLE_FETCH: shmem_double_atomic_set(&dflag, 1.0, 0); break;
    case SIGNAL_FETCH: shmem_signal_set(&sig, 1, 0); break;
    case PEER_FETCH: shmem_long_atomic_set(&lflag, 1, peer); break;
    default: shmem_long_atomic_set(&lflag, 1, 0); break;
    }
}

int main(int argc, char **argv)
{
    int R = argc > 1 ? atoi(argv[1]) : 20;
    shmem_init();
    CHECK(R > 0, "R = %s: the round count must be a positive integer", argv[1]);
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (me == 0) {
        peer = -1;
        for (int q = 1; q < n && peer < 0; q++)
            if (shmem_ptr(&lflag, q))
                peer = q;
        for (int q = 1; q < n; q++)
            shmem_int_p(&peer, peer, q);
    }
    shmem_barrier_all();
    long want = 0;
    for (int ph = 0; ph < NPHASES; ph++) {
        if (ph == PEER_FETCH && peer < 0)
            continue; /* no PE of PE 0's node besides itself */
        for (int r = 0; r < R; r++) {
            shmem_barrier_all(); /* every word is clear */
            if (me == 0) {
                if (n == 1)
                    set_word(ph);
                double t0 = now();
                for (long k = 0; !seen(ph); k++)
                    CHECK((k & 1023) || now() - t0 < 10,
                          "spinning on %s for 10 s (round %d): the other PEs' "
                          "operations at this PE were not served (no progress)",
                          names[ph], r);
                want += n - 1;
                CHECK(cnt == want, "%s round %d: counter %ld, want %ld", names[ph], r,
                      cnt, want);
                lflag = 0;
                iflag = 0;
                uflag = 0;
                dflag = 0;
                sig = 0;
            } else {
                long c = shmem_long_atomic_fetch_add(&cnt, 1, 0);
                if (c % (n - 1) == n - 2) /* the last of this round */
                    set_word(ph);
            }
            shmem_barrier_all(); /* PE 0 has seen the word */
            if (ph == PEER_FETCH && me == peer)
                lflag = 0;
        }
        if (me == 0)
            printf("spin: %s served %d rounds\n", names[ph], R);
    }
    return finish("spin");
}
