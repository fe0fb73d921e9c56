/* A known set of operations for tests/mp/stats.sh: each rank puts 10 x 100
 * bytes (blocking, nb, nbi) and gets 5 x 50 bytes from its right
 * neighbour, and makes one bad call. */
#include "mp_util.h"

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int right = (me + 1) % tern_size();
    char *seg, buf[100] = {0};
    MP_OK(tern_alloc_sym(4096, (void **)&seg));
    char *dst = tern_sym_addr(right, seg);
    for (int i = 0; i < 4; i++)
        MP_OK(tern_put(right, dst + i * 100, buf, 100, 0));
    for (int i = 4; i < 7; i++) {
        tern_event_t ev;
        MP_OK(tern_put_nb(right, dst + i * 100, buf, 100, NULL, &ev, 0));
        MP_OK(tern_event_wait(ev));
    }
    for (int i = 7; i < 10; i++)
        MP_OK(tern_put_nbi(right, dst + i * 100, buf, 100, 0));
    MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));
    for (int i = 0; i < 5; i++)
        MP_OK(tern_get(buf, right, dst + i * 50, 50, 0));
    char *base;
    size_t size;
    MP_OK(tern_segment_query(right, (void **)&base, &size));
    MP_CHECK(tern_put(right, base - 8, buf, 8, 0) == TERN_ERR_RANGE, "bad call accepted");
    return mp_finish("stats_ops");
}
