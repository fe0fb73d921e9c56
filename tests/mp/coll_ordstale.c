/* Eager broadcasts of the world team above TERN_COLL_EAGER (16 KiB) go by
 * a put and an ordered flag write into the second word of the parent's
 * flag at the child (core/coll_eager.c, put_ordered), which the child
 * waits for as "flag - seq >= 0". Run with TERN_TEST_FAULT=collstale:N,
 * N = 2^31 - 64 (coll.cmake): the team's calls start at N with its flags
 * still 0, as after 2^31 calls that wrote no such word (small collectives:
 * stamps, records, messages; in jobs across nodes the world barrier is
 * tern_barrier's, which writes none of the team's flags). After 100 small
 * calls the count has passed 2^31, and a second word still 0 read as
 * written: the child passed its wait before the data came and copied an
 * old ring entry (the refresh every 2^28 calls wrote the first word
 * only). The root of each round enters late; every member checks its
 * data, with every member root once. */
#include "mp_util.h"

#include <time.h>

#define BYTES 32768

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int me = tern_rank(), n = tern_size();
    int64_t *v, *s;
    unsigned char *src, *dest;
    MP_OK(tern_alloc_sym(64, (void **)&v));
    MP_OK(tern_alloc_sym(64, (void **)&s));
    MP_OK(tern_alloc_sym(BYTES, (void **)&src));
    MP_OK(tern_alloc_sym(BYTES, (void **)&dest));
    for (int i = 0; i < 100; i++) {
        *v = me + i;
        MP_OK(tern_allreduce(TERN_TEAM_WORLD, s, v, 1, TERN_TYPE_INT64, TERN_RED_SUM));
        MP_CHECK(*s == (int64_t)n * (n - 1) / 2 + (int64_t)n * i,
                 "call %d: allreduce gave %lld", i, (long long)*s);
    }
    for (int root = 0; root < n; root++) {
        memset(dest, 0, BYTES);
        if (me == root) {
            for (size_t i = 0; i < BYTES; i++)
                src[i] = mp_pattern(root, i, 7);
            struct timespec d = {0, 200 * 1000 * 1000};
            nanosleep(&d, NULL);
        }
        MP_OK(tern_broadcast(TERN_TEAM_WORLD, dest, src, BYTES, root));
        size_t bad = 0;
        for (size_t i = 0; i < BYTES; i++)
            bad += dest[i] != mp_pattern(root, i, 7);
        MP_CHECK(bad == 0,
                 "broadcast of %d B from root %d: %zu bytes wrong (passed the wait "
                 "for its parent's ordered flag before the data came)",
                 BYTES, root, bad);
    }
    return mp_finish("coll_ordstale");
}
