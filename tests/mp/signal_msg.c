/* Put with signal by sizes around the one-message limit (data and signal
 * in one active message across nodes, docs/design/net-put.md): the data
 * must be in place, byte for byte, when the signal is seen, also when the
 * source is overwritten as soon as an nbi call returns; quiet completes
 * data and signal; signal adds from every rank mixed with atomic adds of
 * an atomic domain on the same word lose nothing; bad input. In shm, net
 * and mixed (partners n/2 apart: on the other simulated node). */
#include <string.h>

#include "mp_util.h"

#define ROUNDS 40
#define K      200 /* adds per rank in the exact-count part */
#define MAXLEN (16 * 1024 + 8)

/* Signal words: [0] data signal, [1] acknowledgement, [2] count word,
 * [3] quiet check; one cache line each. */
enum { W_DATA = 0, W_ACK = 8, W_COUNT = 16, W_QUIET = 24, NWORDS = 32 };

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    /* Pairs n/2 apart, each rank the partner of its partner; with an odd
     * count the last one talks to itself. */
    int half = n / 2;
    int partner = me < half ? me + half : me < 2 * half ? me - half : me;
    unsigned char *buf, *src = malloc(MAXLEN);
    uint64_t *sig;
    MP_CHECK(src != NULL, "malloc");
    MP_OK(tern_alloc_sym(MAXLEN, (void **)&buf));
    MP_OK(tern_alloc_sym(NWORDS * sizeof(uint64_t), (void **)&sig));
    memset(sig, 0, NWORDS * sizeof(uint64_t));
    MP_OK(tern_barrier());

    /* Sizes around the limit: the largest Medium to the partner (8K by
     * default, also TERN_SIGNAL_MSG_MAX's default), one less, one more. */
    size_t m = tern_am_max_medium(partner);
    if (m == 0 || m + 1 > MAXLEN)
        m = 8192;
    size_t sizes[] = {0, 1, 8, 100, 4096, m - 1, m, m + 1, 16 * 1024};
    unsigned char *pb = tern_sym_addr(partner, buf);
    uint64_t *ps = tern_sym_addr(partner, sig);
    uint64_t seq = 0;
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        size_t len = sizes[si];
        int add = si & 1; /* SET and ADD alternate by size */
        for (int r = 0; r < ROUNDS; r++) {
            seq++;
            unsigned salt = (unsigned)(seq * 7 + si);
            for (size_t i = 0; i < len; i++)
                src[i] = mp_pattern(me, i, salt);
            uint64_t v = add ? 1 : seq;
            int op = add ? TERN_SIGNAL_ADD : TERN_SIGNAL_SET;
            if (r & 1) {
                MP_OK(tern_put_signal(partner, pb, src, len, &ps[W_DATA], v, op, 0));
            } else {
                MP_OK(tern_put_signal_nbi(partner, pb, src, len, &ps[W_DATA], v, op, 0));
                memset(src, 0xee, len); /* the source is reusable at return */
            }
            MP_OK(tern_wait_until_u64(&sig[W_DATA], TERN_CMP_EQ, seq));
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < len; i++)
                if (buf[i] != mp_pattern(partner, i, salt) && bad++ == 0)
                    first = i;
            MP_CHECK(bad == 0,
                     "%zu-byte put with signal (%s, %s), round %d: %zu bytes stale when "
                     "the signal was seen, first at %zu",
                     len, r & 1 ? "blocking" : "nbi", add ? "add" : "set", r, bad, first);
            /* The partner may overwrite buf once this rank has checked it. */
            MP_OK(tern_put_signal_nbi(partner, pb, src, 0, &ps[W_ACK], 1, TERN_SIGNAL_ADD,
                                      0));
            MP_OK(tern_wait_until_u64(&sig[W_ACK], TERN_CMP_EQ, seq));
        }
    }
    MP_OK(tern_quiet());
    MP_OK(tern_barrier());

    /* Quiet completes data and signal: after it and a barrier the partner
     * reads both with plain loads, without waiting. */
    for (size_t i = 0; i < 4096; i++)
        src[i] = mp_pattern(me, i, 999);
    MP_OK(tern_put_signal_nbi(partner, pb, src, 4096, &ps[W_QUIET], 77, TERN_SIGNAL_SET,
                              0));
    MP_OK(tern_quiet());
    MP_OK(tern_barrier());
    MP_CHECK(__atomic_load_n(&sig[W_QUIET], __ATOMIC_ACQUIRE) == 77,
             "signal not there after the sender's quiet and a barrier");
    for (size_t i = 0; i < 4096; i++)
        MP_CHECK(buf[i] == mp_pattern(partner, i, 999), "byte %zu after quiet", i);
    MP_OK(tern_barrier());

    /* Exact count: every rank adds to rank 0's word by put-with-signal adds
     * (nbi and blocking, with data) and by an atomic domain's adds (nbi and
     * blocking) and fetch-adds, interleaved. */
    tern_ad_t ad;
    MP_OK(tern_ad_create(TERN_AT_U64, TERN_OP_ADD | TERN_OP_FADD, 0, &ad));
    uint64_t *w0 = tern_sym_addr(0, &sig[W_COUNT]);
    unsigned char *piece = tern_sym_addr(0, buf + (size_t)me * 64);
    uint64_t last = 0;
    for (int i = 0; i < K; i++) {
        MP_OK(tern_put_signal_nbi(0, piece, src, 16, w0, 1, TERN_SIGNAL_ADD, 0));
        MP_OK(tern_ad_op_nbi_u64(ad, 0, w0, TERN_OP_ADD, 2, 0, NULL, 0));
        if (i % 8 == 0) {
            MP_OK(tern_put_signal(0, piece, src, 64, w0, 3, TERN_SIGNAL_ADD, 0));
            MP_OK(tern_ad_op_u64(ad, 0, w0, TERN_OP_ADD, 5, 0, NULL, 0));
            uint64_t old = 0;
            MP_OK(tern_ad_op_u64(ad, 0, w0, TERN_OP_FADD, 7, 0, &old, 0));
            MP_CHECK(old >= last, "fetched %llu after %llu", (unsigned long long)old,
                     (unsigned long long)last);
            last = old;
        }
    }
    MP_OK(tern_quiet());
    MP_OK(tern_barrier());
    uint64_t per = (uint64_t)K * 3 + (uint64_t)((K + 7) / 8) * (3 + 5 + 7);
    if (me == 0) {
        uint64_t got = __atomic_load_n(&sig[W_COUNT], __ATOMIC_ACQUIRE);
        MP_CHECK(got == per * (uint64_t)n, "count word %llu, expected %llu",
                 (unsigned long long)got, (unsigned long long)(per * (uint64_t)n));
    }
    MP_OK(tern_barrier());
    MP_OK(tern_ad_destroy(ad));

    /* Bad input at sizes the message would carry. */
    uint64_t one = 1;
    MP_EXPECT(tern_put_signal(partner, &one, src, 8, &ps[W_DATA], 1, TERN_SIGNAL_SET, 0),
              TERN_ERR_RANGE, "outside");
    if (!mp_mapped(partner)) /* the inline path does not check src */
        MP_EXPECT(
            tern_put_signal_nbi(partner, pb, NULL, 8, &ps[W_DATA], 1, TERN_SIGNAL_SET, 0),
            TERN_ERR_INVALID, "NULL");
    MP_OK(tern_quiet());
    MP_CHECK(sig[W_DATA] == seq, "a refused put with signal changed the word");
    free(src);
    return mp_finish("signal_msg");
}
