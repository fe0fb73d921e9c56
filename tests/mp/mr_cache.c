/* Many private (non-segment) buffers larger than the 4 KiB bounce slots as
 * the local side of non-blocking puts and gets in flight at once, reused
 * across rounds, some freed and allocated again: every byte checked. Run
 * with TERN_OFI_MR_LOCAL=1 so each one needs a local registration (more
 * buffers than the registration cache holds, so it evicts and overflows). */
#include <string.h>

#include "mp_util.h"

#define NBUF   96
#define ROUNDS 4
#define SLOT   (64 * 1024)
#define FEW    8

static size_t buf_len(int i)
{
    return 4097 + (size_t)i * 523; /* 4097 .. 53 782 bytes, all above 4 KiB */
}

static void fill(char *b, int i, int me, unsigned salt)
{
    for (size_t k = 0; k < buf_len(i); k++)
        b[k] = (char)mp_pattern(me, k + (size_t)i * 977, salt);
}

static void check(const char *b, int i, int who, unsigned salt, const char *what)
{
    for (size_t k = 0; k < buf_len(i); k++)
        MP_CHECK(b[k] == (char)mp_pattern(who, k + (size_t)i * 977, salt),
                 "%s: buffer %d (%zu B) byte %zu wrong (salt %u)", what, i, buf_len(i), k,
                 salt);
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    int peer = (me + 1) % n, from = (me + n - 1) % n;
    /* Two landing slots per buffer: each buffer is put twice at once. */
    char *zone;
    MP_OK(tern_alloc_sym((size_t)2 * NBUF * SLOT, (void **)&zone));
    char *rzone = tern_sym_addr(peer, zone);
    char *mem[NBUF], *buf[NBUF];
    for (int i = 0; i < NBUF; i++) {
        mem[i] = malloc(buf_len(i) + 8);
        MP_CHECK(mem[i], "malloc");
        buf[i] = mem[i] + i % 8; /* unaligned starts too */
    }
    static tern_event_t lc[2 * NBUF], rc[2 * NBUF], gev[NBUF];
    for (unsigned r = 0; r < ROUNDS; r++) {
        unsigned salt = r * 2 + 1;
        int nbi = r % 2; /* events, then nbi, alternately */
        if (r == 2) {    /* new allocations, likely at freed addresses */
            for (int i = 0; i < NBUF; i += 2) {
                free(mem[i]);
                mem[i] = malloc(buf_len(i) + 8);
                MP_CHECK(mem[i], "malloc");
                buf[i] = mem[i] + i % 8;
            }
        }
        for (int i = 0; i < NBUF; i++)
            fill(buf[i], i, me, salt);
        /* Every buffer put to two slots, all in flight at once. */
        for (int i = 0; i < NBUF; i++)
            for (int h = 0; h < 2; h++) {
                char *dst = rzone + ((size_t)h * NBUF + (size_t)i) * SLOT;
                if (nbi)
                    MP_OK(tern_put_nbi(peer, dst, buf[i], buf_len(i), 0));
                else
                    MP_OK(tern_put_nb(peer, dst, buf[i], buf_len(i), &lc[h * NBUF + i],
                                      &rc[h * NBUF + i], 0));
            }
        if (nbi) {
            MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));
        } else {
            MP_OK(tern_event_wait_all(lc, 2 * NBUF));
            MP_OK(tern_event_wait_all(rc, 2 * NBUF));
        }
        MP_OK(tern_barrier());
        for (int h = 0; h < 2; h++)
            for (int i = 0; i < NBUF; i++)
                check(zone + ((size_t)h * NBUF + (size_t)i) * SLOT, i, from, salt,
                      h ? "put (second copy)" : "put");
        MP_OK(tern_barrier());
        /* Read the first copies back into the same (cleared) buffers, all
         * in flight at once. */
        for (int i = 0; i < NBUF; i++)
            memset(buf[i], 0, buf_len(i));
        for (int i = 0; i < NBUF; i++) {
            char *src = rzone + (size_t)i * SLOT;
            if (nbi)
                MP_OK(tern_get_nbi(buf[i], peer, src, buf_len(i), 0));
            else
                MP_OK(tern_get_nb(buf[i], peer, src, buf_len(i), &gev[i], 0));
        }
        if (nbi)
            MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));
        else
            MP_OK(tern_event_wait_all(gev, NBUF));
        for (int i = 0; i < NBUF; i++)
            check(buf[i], i, me, salt, "get");
        MP_OK(tern_barrier());
    }
    /* A few buffers reused over and over, whole and in parts (an inner
     * range is served by the registration of the whole buffer). */
    for (unsigned r = 0; r < 20; r++) {
        unsigned salt = 100 + r;
        for (int i = 0; i < FEW; i++)
            fill(buf[i], i, me, salt);
        for (int i = 0; i < FEW; i++) {
            size_t skip = r % 2 ? 100 : 0;
            MP_OK(tern_put_nb(peer, rzone + (size_t)i * SLOT + skip, buf[i] + skip,
                              buf_len(i) - skip, &lc[i], &rc[i], 0));
        }
        MP_OK(tern_event_wait_all(lc, FEW));
        MP_OK(tern_event_wait_all(rc, FEW));
        for (int i = 0; i < FEW; i++)
            memset(buf[i], 0, buf_len(i));
        for (int i = 0; i < FEW; i++)
            MP_OK(tern_get_nb(buf[i], peer, rzone + (size_t)i * SLOT, buf_len(i), &gev[i],
                              0));
        MP_OK(tern_event_wait_all(gev, FEW));
        for (int i = 0; i < FEW; i++) {
            /* The first 100 bytes of odd rounds are the previous round's. */
            size_t k0 = r % 2 ? 100 : 0;
            for (size_t k = 0; k < buf_len(i); k++)
                MP_CHECK(buf[i][k] == (char)mp_pattern(me, k + (size_t)i * 977,
                                                       k < k0 ? salt - 1 : salt),
                         "reuse round %u: buffer %d byte %zu wrong", r, i, k);
        }
    }
    MP_OK(tern_barrier());
    for (int i = 0; i < NBUF; i++)
        free(mem[i]);
    MP_OK(tern_free_sym(zone));
    return mp_finish("mr_cache");
}
