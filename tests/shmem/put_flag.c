/* A put, a fence and a flag put to the next PE of a ring, then a spin on
 * this PE's own flag with plain loads (no OpenSHMEM call) and a check of
 * the data that came before it: the pattern of tests-mellanox's data
 * suite (wait_for_put_completion), on heap and global buffers of sizes
 * 1 to 8 KiB. Over the network the spin needs the progress thread
 * (TERN_PROGRESS_THREAD=1); a flag seen before its data, or none within
 * 10 s, or the flag of an earlier round (the flag carries the round),
 * fails the PE naming the round. Arguments: R, rounds (200); the
 * buffers: 0 both in turn, 1 the heap's only, 2 the global one only; 1:
 * spin on shmem_int_atomic_fetch of the flag (polls now and then). */
#include <stdint.h>

#include "shmem_test.h"

enum { MAXN = 8192 };

static char gbuf[MAXN]; /* global destination (the static region) */
static int gflag;       /* global flag, as the suite's */
static char src[MAXN];

int main(int argc, char **argv)
{
    int R = argc > 1 ? atoi(argv[1]) : 200;
    int which = argc > 2 ? atoi(argv[2]) : 0;
    int amo = argc > 3 && atoi(argv[3]); /* spin on shmem_int_atomic_fetch */
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(R > 0, "R = %s: the round count must be a positive integer", argv[1]);
    char *hbuf = shmem_malloc(MAXN);
    CHECK(hbuf != NULL, "shmem_malloc failed");
    int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int r = 0; r < R; r++) {
        int global = which ? which == 2 : r & 1;
        char *dst = global ? gbuf : hbuf;
        size_t len = 1 + (size_t)r * 7919 % MAXN;
        unsigned salt = (unsigned)r;
        memset(dst, 0, len);
        fill(src, len, me, salt);
        shmem_barrier_all(); /* every destination is clear */
        shmem_char_put(dst, src, len, right);
        shmem_fence();
        shmem_int_p(&gflag, r + 1, right); /* the round in the flag: a stale one shows */
        double t0 = now();
        int seen;
        for (long k = 0; !(seen = amo ? shmem_int_atomic_fetch(&gflag, me)
                                      : __atomic_load_n(&gflag, __ATOMIC_ACQUIRE));
             k++)
            CHECK((k & 1023) || now() - t0 < 10,
                  "round %d: no flag from PE %d within 10 s (%zu bytes to the %s buffer)",
                  r, left, len, global ? "global" : "heap");
        gflag = 0;
        CHECK(
            seen == r + 1,
            "round %d: flag %d from PE %d, not %d: an earlier round's flag write landed "
            "again after this PE cleared it",
            r, seen, left, r + 1);
        long bad = mismatch(dst, len, left, salt);
        if (bad >= 0) { /* late or lost: look again after 0.2 s (the thread's progress) */
            size_t nbad = 0;
            for (size_t i = 0; i < len; i++)
                nbad += (unsigned char)dst[i] != pat(left, i, salt);
            double t1 = now();
            while (now() - t1 < 0.2)
                ;
            fprintf(stderr,
                    "PE %d: round %d: %zu of %zu bytes wrong at the flag, first %ld; "
                    "0.2 s later first wrong %ld\n",
                    me, r, nbad, len, bad, mismatch(dst, len, left, salt));
        }
        CHECK(
            bad < 0,
            "round %d: byte %ld of %zu from PE %d wrong after its flag (the %s buffer): "
            "the flag passed the data",
            r, bad, len, left, global ? "global" : "heap");
    }
    shmem_free(hbuf);
    return finish("put_flag");
}
