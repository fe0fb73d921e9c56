/* A target that dies while a fetching atomic waits for its mailbox reply
 * (core/atomic_mbox.c): rank 0 fetch-adds at rank 1 until rank 1, after a
 * barrier, exits without warning. The first fetches said hello, so the
 * later ones go by the mailbox and wait in memory for a write that will
 * never come. The launcher must end the job naming rank 1 (the test
 * passes on that message), and nothing hangs (the test's timeout). */
#include <unistd.h>

#include "mp_util.h"

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    uint64_t *word;
    MP_OK(tern_alloc_sym(sizeof(uint64_t), (void **)&word));
    *word = 0;
    tern_ad_t ad;
    MP_OK(tern_ad_create(TERN_AT_U64, TERN_OP_FADD, 0, &ad));
    MP_OK(tern_barrier());
    uint64_t *at1 = tern_sym_addr(1, word), old = 0;
    for (int i = 0; me == 0 && i < 100; i++)
        MP_OK(tern_ad_op_u64(ad, 1, at1, TERN_OP_FADD, 1, 0, &old, 0));
    MP_OK(tern_barrier());
    if (me == 1)
        _exit(9); /* dies without a word, rank 0's next request unserved */
    for (long i = 0; i < 100000000L; i++)
        if (me == 0)
            MP_OK(tern_ad_op_u64(ad, 1, at1, TERN_OP_FADD, 1, 0, &old, 0));
        else
            MP_OK(tern_poll());
    MP_CHECK(0, "rank %d was never stopped", me);
    return 1;
}
