/* Progress while spinning on puts and gets: PE 0 reads flags in its own
 * heap (or in a node peer's) with one put or get routine per phase, and
 * calls nothing else, until every other PE has got a block from PE 0
 * (checked byte for byte) and put its flag there with a quiet: the
 * pattern of a lock made of puts and gets (tests-mellanox
 * lock:atomic_lock_stress). Over the network the others' gets and puts at
 * PE 0 are served only when PE 0 polls, and a put or get to a mapped PE
 * is a copy that polls nothing unless the library makes it poll now and
 * then; a spin that serves nothing is reported after 10 s instead of
 * hanging. Arguments: R, the rounds per phase (10); the first phase (0). */
#include <stdint.h>

#include "shmem_test.h"

enum {
    GETMEM,   /* shmem_getmem: shmem.h's inline path */
    INT_G,    /* shmem_int_g: inline */
    CTX_GET,  /* shmem_ctx_int_get: the library */
    GET_NBI,  /* shmem_int_get_nbi and shmem_quiet */
    PUT_GET,  /* shmem_putmem of a word of its own, shmem_fence, shmem_getmem */
    IGET,     /* shmem_int_iget: the library's strided path */
    PEER_GET, /* shmem_int_get of a node peer's flags */
    NPHASES
};
static const char *const names[NPHASES] = {"shmem_getmem",
                                           "shmem_int_g",
                                           "shmem_ctx_int_get",
                                           "shmem_int_get_nbi+shmem_quiet",
                                           "shmem_putmem+shmem_fence+shmem_getmem",
                                           "shmem_int_iget",
                                           "shmem_int_get (node peer's flags)"};

enum { BLOCK = 64, MAXPE = 64 };

/* The number of flags of PEs 1..n-1 set at owner, read with the phase's
 * routine into buf. */
static int count_set(int ph, const int *flag, int *buf, int *mine, int n, int owner)
{
    int c = 0;
    switch (ph) {
    case GETMEM: shmem_getmem(buf, flag, (size_t)n * sizeof(int), owner); break;
    case INT_G:
        for (int q = 1; q < n; q++)
            buf[q] = shmem_int_g(&flag[q], owner);
        break;
    case CTX_GET:
        shmem_ctx_int_get(SHMEM_CTX_DEFAULT, buf, flag, (size_t)n, owner);
        break;
    case GET_NBI:
        shmem_int_get_nbi(buf, flag, (size_t)n, owner);
        shmem_quiet();
        break;
    case PUT_GET: {
        int one = 1;
        shmem_putmem(mine, &one, sizeof(one), owner);
        shmem_fence();
        shmem_getmem(buf, flag, (size_t)n * sizeof(int), owner);
        break;
    }
    case IGET: shmem_int_iget(buf, flag, 1, 1, (size_t)n, owner); break;
    default: shmem_int_get(buf, flag, (size_t)n, owner); break;
    }
    for (int q = 1; q < n; q++)
        c += buf[q] != 0;
    return c;
}

int main(int argc, char **argv)
{
    int R = argc > 1 ? atoi(argv[1]) : 10;
    int first = argc > 2 ? atoi(argv[2]) : 0;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(R > 0, "R = %s: the round count must be a positive integer", argv[1]);
    CHECK(n <= MAXPE, "%d PEs: at most %d", n, MAXPE);
    int *flag = shmem_calloc(MAXPE, sizeof(int));
    int *mine = shmem_calloc(1, sizeof(int));
    int *peer = shmem_calloc(1, sizeof(int));
    unsigned char *block = shmem_malloc(BLOCK);
    CHECK(flag && mine && peer && block, "shmem_malloc failed");
    fill(block, BLOCK, me, 7);
    if (me == 0) {
        *peer = -1;
        for (int q = 1; q < n && *peer < 0; q++)
            if (shmem_ptr(flag, q))
                *peer = q;
        for (int q = 1; q < n; q++)
            shmem_int_p(peer, *peer, q);
    }
    shmem_barrier_all();
    int buf[MAXPE];
    for (int ph = first; ph < NPHASES; ph++) {
        if (ph == PEER_GET && *peer < 0)
            continue; /* no PE of PE 0's node besides itself */
        int owner = ph == PEER_GET ? *peer : 0;
        for (int r = 0; r < R; r++) {
            shmem_barrier_all(); /* every flag is clear */
            if (me == 0) {
                double t0 = now();
                for (long k = 0; count_set(ph, flag, buf, mine, n, owner) < n - 1; k++)
                    CHECK((k & 1023) || now() - t0 < 10,
                          "spinning on %s for 10 s (round %d): the other PEs' gets and "
                          "puts at this PE were not served (no progress)",
                          names[ph], r);
            } else {
                unsigned char got[BLOCK];
                shmem_getmem(got, block, BLOCK, 0);
                long bad = mismatch(got, BLOCK, 0, 7);
                CHECK(bad < 0, "%s round %d: byte %ld of PE 0's block is wrong",
                      names[ph], r, bad);
                int one = 1;
                shmem_putmem(&flag[me], &one, sizeof(one), owner);
                shmem_quiet();
            }
            shmem_barrier_all(); /* PE 0 has seen every flag */
            if (me == owner)
                memset(flag, 0, MAXPE * sizeof(int));
            *mine = 0;
        }
        if (me == 0)
            printf("rma_spin: %s served %d rounds\n", names[ph], R);
    }
    shmem_free(block);
    shmem_free(peer);
    shmem_free(mine);
    shmem_free(flag);
    return finish("rma_spin");
}
