/* Events: each live operation has its own event; waiting or testing one
 * that was already released is TERN_ERR_INVALID and disturbs nobody (a
 * double wait once put the event on the free list twice, so that later
 * operations shared one event). Many events in flight, data checked. */
#include <string.h>

#include "mp_util.h"

#define N_OPS 64
#define LEN   4096

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size(), peer = (me + 1) % n;
    unsigned char *seg;
    MP_OK(tern_alloc_sym((size_t)N_OPS * LEN, (void **)&seg));
    static unsigned char src[N_OPS * LEN];
    for (size_t i = 0; i < sizeof(src); i++)
        src[i] = mp_pattern(me, i, 3);
    unsigned char *dst = tern_sym_addr(peer, seg);

    /* The reported defect: wait twice, then three more operations must get
     * three different events. */
    tern_event_t ev;
    MP_OK(tern_put_nb(peer, dst, src, 8, NULL, &ev, 0));
    MP_OK(tern_event_wait(ev));
    if (ev != TERN_EVENT_DONE) {
        MP_CHECK(tern_event_wait(ev) == TERN_ERR_INVALID, "second wait accepted");
        MP_CHECK(tern_event_test(ev) == TERN_ERR_INVALID, "test after release accepted");
    }
    tern_event_t e3[3];
    for (int i = 0; i < 3; i++)
        MP_OK(tern_put_nb(peer, dst + i * 8, src + i * 8, 8, NULL, &e3[i], 0));
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            MP_CHECK(e3[i] == TERN_EVENT_DONE || e3[i] != e3[j],
                     "operations %d and %d share an event", i, j);
    MP_OK(tern_event_wait_all(e3, 3));
    if (ev != TERN_EVENT_DONE)
        MP_CHECK(tern_event_wait(ev) == TERN_ERR_INVALID, "stale handle revived");
    MP_CHECK(tern_event_wait((tern_event_t)(uintptr_t)0x12345) == TERN_ERR_INVALID,
             "garbage accepted as an event");

    /* Many in flight: local and remote events, tests and waits mixed. */
    for (int round = 0; round < 8; round++) {
        tern_event_t lc[N_OPS], rc[N_OPS];
        for (int i = 0; i < N_OPS; i++)
            MP_OK(tern_put_nb(peer, dst + (size_t)i * LEN, src + (size_t)i * LEN, LEN,
                              &lc[i], &rc[i], 0));
        for (int i = 0; i < N_OPS; i++) {
            int st;
            while ((st = tern_event_test(lc[i])) == TERN_INPROGRESS)
                ;
            MP_OK(st);
        }
        MP_OK(tern_event_wait_all(rc, N_OPS));
    }
    MP_OK(tern_barrier());
    int left = (me + n - 1) % n;
    for (size_t i = 0; i < (size_t)N_OPS * LEN; i++)
        MP_CHECK(seg[i] == mp_pattern(left, i, 3), "byte %zu from rank %d", i, left);
    return mp_finish("events");
}
