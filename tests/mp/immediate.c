/* The IMMEDIATE contract (docs/concepts.md): a call refused with
 * TERN_ERR_AGAIN has polled the transport once, so a plain retry loop
 * completes. With TERN_OFI_TX_DEPTH=1 nearly every nbi put is refused
 * first; a cap on the retries turns a livelock into a failure. */
#include "mp_util.h"

#define OPS         2000
#define MAX_RETRIES 20000000L

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size(), right = (me + 1) % n, left = (me + n - 1) % n;
    uint64_t *slots;
    MP_OK(tern_alloc_sym(OPS * sizeof(uint64_t), (void **)&slots));
    uint64_t *dst = tern_sym_addr(right, slots);
    static uint64_t src[OPS];
    long retries = 0;
    for (int i = 0; i < OPS; i++) {
        src[i] = ((uint64_t)me << 32) | (uint64_t)i;
        int st;
        while ((st = tern_put_nbi(right, &dst[i], &src[i], sizeof(uint64_t),
                                  TERN_FLAG_IMMEDIATE)) == TERN_ERR_AGAIN)
            MP_CHECK(++retries < MAX_RETRIES, "op %d: refused %ld times: livelock", i,
                     retries);
        MP_OK(st);
    }
    MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));
    MP_OK(tern_barrier());
    for (int i = 0; i < OPS; i++)
        MP_CHECK(slots[i] == (((uint64_t)left << 32) | (uint64_t)i), "slot %d", i);
    if (me == 0)
        printf("immediate: %ld refusals before %d puts went through\n", retries, OPS);
    return mp_finish("immediate");
}
