/* Instructions per non-contiguous put and get to self (the mapped-peer
 * path) against the hand-written copy loop of the same pieces: the
 * testvisperf motion of tern-bench vis (8-byte elements at 25% density in
 * the target from a packed buffer), K pieces per call. Run under callgrind
 * by scripts/vis-cost.sh, which divides each loop's inclusive count by the
 * iterations (one call each). noinline keeps each loop a function. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tern.h>

#ifndef K
#define K 512 /* pieces per call */
#endif
#ifndef ITERS
#define ITERS 100000
#endif
#define STRIDE 32
/* RT: the level counts read from a volatile, as tern-bench vis passes
 * them (c->levels): the compiler does not see them */
#ifdef RT
static volatile size_t lv1 = 1, lv3 = 3, lv8 = 8, lv32 = 32;
#define LV(n) lv##n
#else
#define LV(n) n
#endif

static size_t cnt1[1] = {K}, cnt3[3], cnt8[8], cnt32[32];
static ptrdiff_t ss1[1] = {8}, ds1[1] = {STRIDE}, ss3[3], ds3[3], ss8[8], ds8[8],
                 ss32[32], ds32[32];
static void *dl[K], *sl[K];
static tern_memvec_t dv[K], sv[K];

#define LOOP(name, body)                                              \
    __attribute__((noinline)) void name(char *seg, char *loc, int me) \
    {                                                                 \
        for (int i = 0; i < ITERS; i++) {                             \
            body;                                                     \
            __asm__ __volatile__("" ::: "memory");                    \
        }                                                             \
        (void)seg, (void)loc, (void)me;                               \
    }

LOOP(loop_raw, for (size_t j = 0; j < K; j++) memcpy(seg + j * STRIDE, loc + j * 8, 8))
LOOP(loop_raw_lists, for (size_t j = 0; j < K; j++) memcpy(dl[j], sl[j], 8))
LOOP(loop_s1, tern_put_strided_nbi(me, seg, ds1, loc, ss1, 8, cnt1, LV(1), 0))
LOOP(loop_s3, tern_put_strided_nbi(me, seg, ds3, loc, ss3, 8, cnt3, LV(3), 0))
LOOP(loop_s8, tern_put_strided_nbi(me, seg, ds8, loc, ss8, 8, cnt8, LV(8), 0))
LOOP(loop_s32, tern_put_strided_nbi(me, seg, ds32, loc, ss32, 8, cnt32, LV(32), 0))
LOOP(loop_indexed, tern_put_indexed_nbi(me, K, dl, 8, K, (const void *const *)sl, 8, 0))
LOOP(loop_vector, tern_put_vector_nbi(me, K, dv, K, sv, 0))
LOOP(loop_get_vector, tern_get_vector_nbi(K, sv, me, K, dv, 0))

/* K elements in levels dimensions: the element index split into factors
 * (of 2 for 32 levels, larger for fewer), as bench/vis.c's describe(). */
static void describe(size_t levels, size_t *count, ptrdiff_t *ss, ptrdiff_t *ds)
{
    size_t left = K, se = 8, de = STRIDE;
    for (size_t d = 0; d < levels; d++) {
        size_t f = d + 1 == levels ? left : left % 2 == 0 ? 2 : 1;
        if (levels <= 8 && d + 1 < levels)
            for (f = 1; f * f * 2 <= left && f < 64 && left % (f * 2) == 0; f *= 2)
                ;
        count[d] = f, ss[d] = (ptrdiff_t)se, ds[d] = (ptrdiff_t)de;
        se *= f, de *= f, left /= f;
    }
}

int main(int argc, char **argv)
{
    if (tern_init(&argc, &argv, TERN_THREAD_SINGLE) != TERN_OK)
        return 1;
    int me = tern_rank();
    char *seg = tern_alloc((size_t)K * STRIDE), *loc = malloc((size_t)K * 8);
    /* 3, 8 and 32 levels of the same motion, as tern-bench vis describes it */
    describe(3, cnt3, ss3, ds3);
    describe(8, cnt8, ss8, ds8);
    describe(32, cnt32, ss32, ds32);
    for (size_t j = 0; j < K; j++) {
        dl[j] = seg + j * STRIDE, sl[j] = loc + j * 8;
        dv[j] = (tern_memvec_t){dl[j], 8}, sv[j] = (tern_memvec_t){sl[j], 8};
    }
    loop_raw(seg, loc, me);
    loop_raw_lists(seg, loc, me);
    loop_s1(seg, loc, me);
    loop_s3(seg, loc, me);
    loop_s8(seg, loc, me);
    loop_s32(seg, loc, me);
    loop_indexed(seg, loc, me);
    loop_vector(seg, loc, me);
    loop_get_vector(seg, loc, me);
    printf("iterations %d, %d pieces a call\n", ITERS, K);
    tern_free(seg);
    return tern_finalize() == TERN_OK ? 0 : 1;
}
