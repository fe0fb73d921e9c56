/* Put + flag ping-pong between pairs of ranks with tern_wait_until_u64:
 * the flag's put is ordered after the payload's (blocking puts). */
#include <signal.h>
#include <string.h>

#include "mp_util.h"

#define ITERS 2000
#define LEN   256

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    struct box {
        uint64_t flag;
        char data[LEN];
    } * box;
    MP_OK(tern_alloc_sym(sizeof(*box), (void **)&box));
    memset(box, 0, sizeof(*box));
    MP_OK(tern_barrier());
    int peer = me ^ 1;
    if (peer < n) {
        struct box *rbox = tern_sym_addr(peer, box);
        char msg[LEN];
        /* For the dead-peer test: this rank kills itself mid-exchange. */
        const char *die_rank = getenv("MP_DIE_RANK");
        uint64_t die_after =
            getenv("MP_DIE_AFTER") ? strtoull(getenv("MP_DIE_AFTER"), NULL, 10) : 0;
        for (uint64_t i = 1; i <= ITERS; i++) {
            if (die_rank && atoi(die_rank) == me && i == die_after)
                raise(SIGKILL);
            int my_turn = (me & 1) == 0;
            if (!my_turn) {
                MP_OK(tern_wait_until_u64(&box->flag, TERN_CMP_GE, i));
                for (int k = 0; k < LEN; k++)
                    MP_CHECK(box->data[k] ==
                                 (char)mp_pattern(peer, (size_t)k, (unsigned)i),
                             "iteration %llu byte %d", (unsigned long long)i, k);
            }
            for (int k = 0; k < LEN; k++)
                msg[k] = (char)mp_pattern(me, (size_t)k, (unsigned)i);
            MP_OK(tern_put(peer, rbox->data, msg, LEN, 0));
            MP_OK(tern_put(peer, &rbox->flag, &i, sizeof(i), 0));
            if (my_turn) {
                MP_OK(tern_wait_until_u64(&box->flag, TERN_CMP_GE, i));
                for (int k = 0; k < LEN; k++)
                    MP_CHECK(box->data[k] ==
                                 (char)mp_pattern(peer, (size_t)k, (unsigned)i),
                             "iteration %llu byte %d", (unsigned long long)i, k);
            }
        }
    }
    return mp_finish("pingpong");
}
