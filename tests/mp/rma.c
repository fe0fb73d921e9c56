/* Put and get, blocking, with events and nbi, to every peer (self, shm),
 * at sizes from 1 byte to 1 MiB and odd offsets; every byte checked. Two
 * modes reuse the source at once: a blocking put on a TERN_ORDER_NONE
 * context (it may return at local completion) and an nbi put after a
 * local sync; the source is overwritten as soon as the call returns, and
 * the target must hold the bytes of before (ofi: bounce slots and
 * FI_INJECT_COMPLETE, ofi_rma.c "Local completion at once"). */
#include <string.h>

#include "mp_util.h"

static const size_t sizes[] = {1, 7, 8, 64, 100, 4096, 16384, 16385, 65536 + 3, 1 << 20};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define MAXSZ  ((1 << 20) + 64)

enum { BLOCKING, EVENTS, NBI, EARLY, LOCAL_SYNC, NMODES };

/* Fills src with the pattern of (me, mode, size index). */
static void fill(char *src, size_t len, int me, int mode, size_t si)
{
    for (size_t i = 0; i < len; i++)
        src[i] = (char)mp_pattern(me, i, (unsigned)(mode * 100 + si));
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    /* One landing zone per writer on every rank. */
    char *zone;
    MP_OK(tern_alloc_sym((size_t)n * MAXSZ, (void **)&zone));
    char *src = malloc(MAXSZ), *dst = malloc(MAXSZ);
    MP_CHECK(src && dst, "malloc");
    tern_ctx_t none;
    MP_OK(tern_ctx_create(TERN_ORDER_NONE, &none));

    for (int mode = 0; mode < NMODES; mode++) {
        for (size_t si = 0; si < NSIZES; si++) {
            size_t len = sizes[si];
            size_t off = (si * 13) % 61; /* unaligned on purpose */
            for (int d = 0; d < n; d++) {
                int peer = (me + d) % n;
                fill(src, len, me, mode, si);
                char *rdst = (char *)tern_sym_addr(peer, zone + (size_t)me * MAXSZ) + off;
                if (mode == BLOCKING) {
                    MP_OK(tern_put(peer, rdst, src, len, 0));
                } else if (mode == EVENTS) {
                    tern_event_t lc, rc;
                    MP_OK(tern_put_nb(peer, rdst, src, len, &lc, &rc, 0));
                    MP_OK(tern_event_wait(lc));
                    MP_OK(tern_event_wait(rc));
                } else if (mode == EARLY) {
                    MP_OK(tern_ctx_put(none, peer, rdst, src, len, 0));
                    memset(src, 0xa5, len); /* reusable: the put has its bytes */
                    MP_OK(tern_ctx_quiet(none));
                    fill(src, len, me, mode, si);
                } else {
                    MP_OK(tern_put_nbi(peer, rdst, src, len, 0));
                }
                if (mode == LOCAL_SYNC) {
                    MP_OK(tern_nbi_sync(TERN_SYNC_LOCAL));
                    memset(src, 0x5a, len);
                    MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));
                    fill(src, len, me, mode, si);
                }
                if (mode == NBI)
                    MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));
                /* Read it back with a get of the other kind. */
                memset(dst, 0, len);
                if (mode == BLOCKING || mode >= EARLY) {
                    MP_OK(tern_get(dst, peer, rdst, len, 0));
                } else if (mode == EVENTS) {
                    tern_event_t ev;
                    MP_OK(tern_get_nb(dst, peer, rdst, len, &ev, 0));
                    MP_OK(tern_event_wait_all(&ev, 1));
                } else {
                    MP_OK(tern_get_nbi(dst, peer, rdst, len, 0));
                    MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));
                }
                MP_CHECK(memcmp(dst, src, len) == 0,
                         "mode %d size %zu peer %d: get returned other bytes", mode, len,
                         peer);
            }
            MP_OK(tern_barrier());
            /* Every writer's bytes arrived in my zone. */
            for (int w = 0; w < n; w++) {
                const char *z = zone + (size_t)w * MAXSZ + off;
                for (size_t i = 0; i < len; i++)
                    MP_CHECK(z[i] == (char)mp_pattern(w, i, (unsigned)(mode * 100 + si)),
                             "mode %d size %zu: byte %zu from rank %d wrong", mode, len,
                             i, w);
            }
            MP_OK(tern_barrier());
        }
    }
    MP_OK(tern_ctx_destroy(none));
    free(src);
    free(dst);
    MP_OK(tern_free_sym(zone));
    return mp_finish("rma");
}
