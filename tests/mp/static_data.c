/* The static region through the native API: globals reached with
 * tern_sym_addr, put/get (blocking, nb, nbi), an atomic domain,
 * put-with-signal, a broadcast into a global, tern_ptr; initial values of
 * the data kept across tern_init; and the refusals: a stack address, a
 * global of this rank passed untranslated, VIS and accumulate (segment
 * only). In shm, net and mixed. */
#include <string.h>

#include "mp_util.h"

#define N 4096

long g_data[8] = {11, 12, 13, 14, 15, 16, 17, 18}; /* data, initialized */
static unsigned char s_buf[N];                     /* bss */
static uint64_t s_word, s_sig;
static long s_bcast[16], s_bsrc[16];

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size(), right = (me + 1) % n, left = (me + n - 1) % n;
    for (int i = 0; i < 8; i++)
        MP_CHECK(g_data[i] == 11 + i, "g_data[%d] = %ld after tern_init", i, g_data[i]);
    void *base;
    size_t size, size0;
    MP_OK(tern_static_query(me, &base, &size));
    MP_OK(tern_static_query(0, NULL, &size0));
    MP_CHECK(size && size == size0 && (char *)base <= (char *)g_data &&
                 (char *)&s_buf[N] <= (char *)base + size,
             "static region [%p, +%zu) holds the globals", base, size);
    MP_CHECK(tern_ptr(me, &s_word) == (void *)&s_word, "tern_ptr to itself");
    MP_CHECK((tern_ptr(right, tern_sym_addr(right, &s_word)) != NULL) == mp_mapped(right),
             "tern_ptr of a global agrees with the segment's mapping");

    /* put, get, nb, nbi */
    unsigned char src[N];
    for (size_t i = 0; i < N; i++)
        src[i] = mp_pattern(me, i, 1);
    unsigned char *rb = tern_sym_addr(right, s_buf);
    MP_CHECK(rb != NULL, "tern_sym_addr of a global");
    MP_OK(tern_put(right, rb, src, N / 2, 0));
    tern_event_t ev;
    MP_OK(tern_put_nb(right, rb + N / 2, src + N / 2, N / 4, NULL, &ev, 0));
    MP_OK(tern_event_wait(ev));
    MP_OK(tern_put_nbi(right, rb + 3 * N / 4, src + 3 * N / 4, N / 4, 0));
    MP_OK(tern_quiet());
    MP_OK(tern_barrier());
    for (size_t i = 0; i < N; i++)
        MP_CHECK(s_buf[i] == mp_pattern(left, i, 1), "byte %zu from rank %d", i, left);
    unsigned char back[N];
    MP_OK(tern_get(back, right, rb, N, 0));
    MP_CHECK(memcmp(back, src, N) == 0, "get of rank %d's global", right);
    long d;
    MP_OK(tern_get_nbi(&d, right, tern_sym_addr(right, &g_data[7]), sizeof(d), 0));
    MP_OK(tern_quiet());
    MP_CHECK(d == 18, "get_nbi of an initialized global: %ld", d);

    /* an atomic domain: every rank adds to rank 0's global */
    tern_ad_t ad;
    MP_OK(tern_ad_create(TERN_AT_U64, TERN_OP_ADD | TERN_OP_FADD | TERN_OP_GET, 0, &ad));
    MP_OK(tern_barrier());
    uint64_t old;
    MP_OK(tern_ad_op_u64(ad, 0, tern_sym_addr(0, &s_word), TERN_OP_FADD, 3, 0, &old, 0));
    MP_OK(tern_barrier());
    MP_OK(tern_ad_op_u64(ad, 0, tern_sym_addr(0, &s_word), TERN_OP_GET, 0, 0, &old, 0));
    MP_CHECK(old == 3u * (uint64_t)n, "atomic sum %llu", (unsigned long long)old);
    MP_OK(tern_ad_destroy(ad));

    /* put with signal into globals */
    long v = 1000 + me;
    MP_OK(tern_put_signal(right, tern_sym_addr(right, &g_data[0]), &v, sizeof(v),
                          tern_sym_addr(right, &s_sig), 7, TERN_SIGNAL_ADD, 0));
    MP_OK(tern_wait_until_u64(&s_sig, TERN_CMP_EQ, 7));
    MP_CHECK(g_data[0] == 1000 + left, "signalled payload %ld", g_data[0]);

    /* a broadcast into a global */
    long mine[16];
    for (int i = 0; i < 16; i++)
        mine[i] = 100 * me + i;
    memcpy(s_bsrc, mine, sizeof(mine));
    MP_OK(tern_barrier());
    MP_OK(tern_broadcast(TERN_TEAM_WORLD, s_bcast, s_bsrc, sizeof(s_bcast), n - 1));
    for (int i = 0; i < 16; i++)
        MP_CHECK(s_bcast[i] == 100 * (n - 1) + i, "broadcast [%d] %ld", i, s_bcast[i]);

    /* refusals */
    long stack_var = 0;
    MP_EXPECT(tern_put(right, &stack_var, &v, sizeof(v), 0), TERN_ERR_RANGE,
              "not a symmetric address");
    if (n > 1 && !mp_remote_overlap(right, s_buf, sizeof(v)))
        MP_EXPECT(tern_put(right, s_buf, &v, sizeof(v), 0), TERN_ERR_RANGE,
                  "is a global variable of this rank, not of rank");
    int64_t one = 1;
    MP_EXPECT(
        tern_acc(right, tern_sym_addr(right, &s_word), &one, 1, TERN_AT_I64, NULL, 0),
        TERN_ERR_RANGE, "accepts addresses in the segment only");
    void *dl[1] = {tern_sym_addr(right, s_buf)};
    const void *sl[1] = {src};
    MP_EXPECT(tern_put_indexed(right, 1, dl, 8, 1, sl, 8, 0), TERN_ERR_RANGE,
              "a global or static variable of the program");
    MP_OK(tern_barrier());
    return mp_finish("static_data");
}
