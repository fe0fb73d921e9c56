/* Atomic memory operations: for every standard AMO type, fetch, set,
 * swap, compare_swap (failing and succeeding), fetch_inc, inc, fetch_add,
 * add and the nbi fetching forms on the right neighbour, with the plain
 * names and (second round) the ctx names on a created context; the
 * bitwise ops on the bitwise types; fetch/set/swap on float and double;
 * the C11 generic and the deprecated names; and contention: every PE
 * fetch-adds one word on PE 0 and on the last PE, the fetched values must
 * be distinct and the sum exact. Values use the whole width of the type. */
#include <stdint.h>

#include "shmem_test.h"

enum { K = 300 }; /* contended increments per PE */

static int me, n, right, left;
static shmem_ctx_t ctx;

/* A value of the full width of T, different per PE and salt. */
#define VAL(T, pe, salt) ((T)(0x9e3779b97f4a7c15ull * (uint64_t)((pe)*16 + (salt) + 1)))

/* Round 0: plain names, round 1: shmem_ctx_ names on ctx. */
#define A0(N, op, ...)   shmem_##N##_atomic_##op(__VA_ARGS__)
#define A1(N, op, ...)   shmem_ctx_##N##_atomic_##op(ctx, __VA_ARGS__)
#define Q0()             shmem_quiet()
#define Q1()             shmem_ctx_quiet(ctx)
#define A(R, N, op, ...) A##R(N, op, __VA_ARGS__)
#define Q(R)             Q##R()

/* The standard and extended ops on x (symmetric) of the right neighbour;
 * each PE checks what its left neighbour left in its own x. */
#define TEST_STD(T, N, R)                                                               \
    static void std_##N##_##R(T *x)                                                     \
    {                                                                                   \
        T v0 = VAL(T, me, 0), v1 = VAL(T, me, 1), v2 = VAL(T, me, 2), f;                \
        *x = 0;                                                                         \
        shmem_barrier_all();                                                            \
        A(R, N, set, x, v0, right);                                                     \
        Q(R);                                                                           \
        shmem_barrier_all();                                                            \
        CHECK(*x == VAL(T, left, 0), #N " r" #R " set: %lld want %lld", (long long)*x,  \
              (long long)VAL(T, left, 0));                                              \
        shmem_barrier_all(); /* before the left neighbour goes on with x */             \
        CHECK(A(R, N, fetch, x, right) == v0, #N " r" #R " fetch");                     \
        CHECK(A(R, N, swap, x, v1, right) == v0, #N " r" #R " swap");                   \
        CHECK(A(R, N, compare_swap, x, v0, v2, right) == v1,                            \
              #N " r" #R " failing cswap");                                             \
        CHECK(A(R, N, fetch, x, right) == v1, #N " r" #R " failing cswap changed x");   \
        CHECK(A(R, N, compare_swap, x, v1, v2, right) == v1, #N " r" #R " cswap");      \
        CHECK(A(R, N, fetch_inc, x, right) == v2, #N " r" #R " fetch_inc");             \
        A(R, N, inc, x, right);                                                         \
        CHECK(A(R, N, fetch_add, x, (T)5, right) == (T)((unsigned long long)v2 + 2u),   \
              #N " r" #R " fetch_add");                                                 \
        A(R, N, add, x, v1, right);                                                     \
        Q(R);                                                                           \
        CHECK(A(R, N, fetch, x, right) ==                                               \
                  (T)((unsigned long long)v2 + 7u + (unsigned long long)v1),            \
              #N " r" #R " add");                                                       \
        /* nbi fetching forms, completed by quiet */                                    \
        T g[5];                                                                         \
        memset(g, 0, sizeof(g));                                                        \
        A(R, N, fetch_nbi, &g[0], x, right);                                            \
        Q(R);                                                                           \
        A(R, N, swap_nbi, &g[1], x, v0, right);                                         \
        Q(R);                                                                           \
        A(R, N, compare_swap_nbi, &g[2], x, v0, v1, right);                             \
        Q(R);                                                                           \
        A(R, N, fetch_inc_nbi, &g[3], x, right);                                        \
        Q(R);                                                                           \
        A(R, N, fetch_add_nbi, &g[4], x, (T)-3, right);                                 \
        Q(R);                                                                           \
        T want[5] = {(T)((unsigned long long)v2 + 7u + (unsigned long long)v1),         \
                     (T)((unsigned long long)v2 + 7u + (unsigned long long)v1), v0, v1, \
                     (T)((unsigned long long)v1 + 1u)};                                 \
        CHECK(memcmp(g, want, sizeof(g)) == 0, #N " r" #R " nbi fetches");              \
        f = A(R, N, fetch, x, right);                                                   \
        CHECK(f == (T)((unsigned long long)v1 - 2u), #N " r" #R " after nbi");          \
        shmem_barrier_all();                                                            \
        CHECK(*x == (T)((unsigned long long)VAL(T, left, 1) - 2u),                      \
              #N " r" #R " final value at target");                                     \
    }
#define TEST_STD2(T, N) TEST_STD(T, N, 0) TEST_STD(T, N, 1)
TSHMEM_AMO_STD_TYPES(TEST_STD2)

/* and, or, xor and their fetching and nbi forms, against a local model. */
#define TEST_BIT(T, N, R)                                                              \
    static void bit_##N##_##R(T *x)                                                    \
    {                                                                                  \
        T m = VAL(T, me, 3), a = VAL(T, me, 4), b = VAL(T, me, 5), c = VAL(T, me, 6);  \
        T g[3];                                                                        \
        shmem_barrier_all();                                                           \
        A(R, N, set, x, m, right);                                                     \
        CHECK(A(R, N, fetch_and, x, a, right) == m, #N " r" #R " fetch_and");          \
        m &= a;                                                                        \
        CHECK(A(R, N, fetch_or, x, b, right) == m, #N " r" #R " fetch_or");            \
        m |= b;                                                                        \
        CHECK(A(R, N, fetch_xor, x, c, right) == m, #N " r" #R " fetch_xor");          \
        m ^= c;                                                                        \
        A(R, N, and, x, b, right);                                                     \
        m &= b;                                                                        \
        A(R, N, or, x, c, right);                                                      \
        m |= c;                                                                        \
        A(R, N, xor, x, a, right);                                                     \
        m ^= a;                                                                        \
        Q(R);                                                                          \
        CHECK(A(R, N, fetch, x, right) == m, #N " r" #R " and/or/xor");                \
        A(R, N, fetch_and_nbi, &g[0], x, c, right);                                    \
        Q(R);                                                                          \
        A(R, N, fetch_or_nbi, &g[1], x, a, right);                                     \
        Q(R);                                                                          \
        A(R, N, fetch_xor_nbi, &g[2], x, b, right);                                    \
        Q(R);                                                                          \
        T want[3] = {m, (T)(m & c), (T)((m & c) | a)};                                 \
        CHECK(memcmp(g, want, sizeof(g)) == 0, #N " r" #R " nbi bitwise fetches");     \
        m = (T)(((m & c) | a) ^ b);                                                    \
        shmem_barrier_all();                                                           \
        T lm = VAL(T, left, 3);                                                        \
        lm = (T)(((((((((lm & VAL(T, left, 4)) | VAL(T, left, 5)) ^ VAL(T, left, 6)) & \
                      VAL(T, left, 5)) |                                               \
                     VAL(T, left, 6)) ^                                                \
                    VAL(T, left, 4)) &                                                 \
                   VAL(T, left, 6)) |                                                  \
                  VAL(T, left, 4)) ^                                                   \
                 VAL(T, left, 5));                                                     \
        CHECK(*x == lm && A(R, N, fetch, x, right) == m, #N " r" #R " bitwise final"); \
        shmem_barrier_all();                                                           \
    }
#define TEST_BIT2(T, N) TEST_BIT(T, N, 0) TEST_BIT(T, N, 1)
TSHMEM_AMO_BITWISE_TYPES(TEST_BIT2)

/* float and double: fetch, set, swap and the nbi forms, bit-exact. */
#define TEST_FP(T, N, R)                                                                \
    static void fp_##N##_##R(T *x)                                                      \
    {                                                                                   \
        T v0 = (T)(me + 0.25), v1 = (T)(-1.0 / (me + 3)), g[2];                         \
        shmem_barrier_all();                                                            \
        A(R, N, set, x, v0, right);                                                     \
        Q(R);                                                                           \
        CHECK(A(R, N, fetch, x, right) == v0, #N " r" #R " set/fetch");                 \
        CHECK(A(R, N, swap, x, v1, right) == v0, #N " r" #R " swap");                   \
        A(R, N, fetch_nbi, &g[0], x, right);                                            \
        Q(R);                                                                           \
        A(R, N, swap_nbi, &g[1], x, v0, right);                                         \
        Q(R);                                                                           \
        CHECK(memcmp(&g[0], &v1, sizeof(T)) == 0 && memcmp(&g[1], &v1, sizeof(T)) == 0, \
              #N " r" #R " nbi");                                                       \
        shmem_barrier_all();                                                            \
        T lv = (T)(left + 0.25);                                                        \
        CHECK(memcmp(x, &lv, sizeof(T)) == 0, #N " r" #R " final");                     \
    }
#define TEST_FP2(T, N) TEST_FP(T, N, 0) TEST_FP(T, N, 1)
TSHMEM_AMO_FP_TYPES(TEST_FP2)

/* Contention: K fetch-adds of 1 from every PE on one word of PE target;
 * the n*K fetched values are gathered on PE 0, which checks that they are
 * exactly 0 .. n*K-1. Then K non-fetching adds of me+1 from every PE:
 * the exact sum. */
#define TEST_CONTEND(T, N)                                                           \
    static void contend_##N(T *x, T *all, int target)                                \
    {                                                                                \
        T got[K];                                                                    \
        *x = 0;                                                                      \
        shmem_barrier_all();                                                         \
        for (int i = 0; i < K; i++)                                                  \
            got[i] = i % 2 ? shmem_##N##_atomic_fetch_add(x, (T)1, target)           \
                           : shmem_##N##_atomic_fetch_inc(x, target);                \
        shmem_##N##_put(all + (size_t)me * K, got, K, 0);                            \
        shmem_barrier_all();                                                         \
        if (me == 0) {                                                               \
            unsigned char *seen = calloc((size_t)n * K, 1);                          \
            for (int i = 0; i < n * K; i++) {                                        \
                CHECK((uint64_t)all[i] < (uint64_t)(n * K) && !seen[all[i]],         \
                      #N " contention: fetched value %lld repeated or out of range", \
                      (long long)all[i]);                                            \
                seen[all[i]] = 1;                                                    \
            }                                                                        \
            free(seen);                                                              \
        }                                                                            \
        if (me == target)                                                            \
            CHECK(*x == (T)(n * K), #N " contention: sum %lld", (long long)*x);      \
        shmem_barrier_all();                                                         \
        *x = 0;                                                                      \
        shmem_barrier_all();                                                         \
        for (int i = 0; i < K; i++)                                                  \
            shmem_##N##_atomic_add(x, (T)(me + 1), target);                          \
        shmem_barrier_all();                                                         \
        if (me == target)                                                            \
            CHECK(*x == (T)((T)K * n * (n + 1) / 2), #N " contention: add sum %lld", \
                  (long long)*x);                                                    \
        shmem_barrier_all();                                                         \
    }
TEST_CONTEND(int, int)
TEST_CONTEND(long, long)
TEST_CONTEND(unsigned int, uint)
TEST_CONTEND(uint64_t, uint64)
TEST_CONTEND(size_t, size)

/* The C11 generic forms and the deprecated names. */
static void generic_and_deprecated(void *buf)
{
    long *l = buf;
    int *i = (int *)(l + 1);
    double *d = (double *)(l + 2);
    uint64_t *u = (uint64_t *)(l + 3);
    long long *ll = (long long *)(l + 4);
    float *fl = (float *)(l + 5);
    *l = 0;
    *i = 0;
    *u = 0;
    shmem_barrier_all();
    shmem_atomic_set(l, 40L, right);
    CHECK(shmem_atomic_fetch_add(l, 2L, right) == 40, "generic fetch_add");
    CHECK(shmem_atomic_fetch(ctx, l, right) == 42, "generic ctx fetch");
    shmem_atomic_inc(ctx, l, right);
    shmem_ctx_quiet(ctx);
    CHECK(shmem_atomic_compare_swap(l, 43L, 7L, right) == 43, "generic cswap");
    shmem_atomic_set(d, 2.5, right);
    CHECK(shmem_atomic_swap(d, 0.5, right) == 2.5, "generic double swap");
    shmem_atomic_set(u, UINT64_C(0xff00ff00ff00ff00), right);
    CHECK(shmem_atomic_fetch_xor(u, UINT64_C(0xffff), right) ==
              UINT64_C(0xff00ff00ff00ff00),
          "generic fetch_xor");
    shmem_atomic_and(ctx, u, UINT64_C(0xf0f0), right);
    shmem_ctx_quiet(ctx);
    uint64_t g = 0;
    shmem_atomic_fetch_or_nbi(&g, u, UINT64_C(1), right);
    shmem_quiet();
    CHECK(g == UINT64_C(0xf0), "generic fetch_or_nbi: %llx", (unsigned long long)g);
    int ig = -1;
    shmem_atomic_fetch_inc_nbi(ctx, &ig, i, right);
    shmem_ctx_quiet(ctx);
    CHECK(ig == 0, "generic ctx fetch_inc_nbi");
    /* deprecated: i is 1, l is 7. A PE's AMOs on a word take effect in
     * program order in libtshmem, so a fetch sees an earlier set without a
     * quiet. */
    CHECK(shmem_int_cswap(i, 1, 10, right) == 1, "shmem_int_cswap");
    CHECK(shmem_int_fadd(i, 5, right) == 10, "shmem_int_fadd");
    CHECK(shmem_int_finc(i, right) == 15, "shmem_int_finc");
    shmem_int_inc(i, right);
    shmem_int_add(i, 3, right);
    shmem_int_set(i, shmem_int_fetch(i, right) * 2, right);
    CHECK(shmem_int_swap(i, 0, right) == 40, "shmem_int deprecated chain");
    CHECK(shmem_long_finc(l, right) == 7 && shmem_long_fadd(l, 2, right) == 8,
          "shmem_long_finc/fadd");
    CHECK(shmem_long_swap(l, 100, right) == 10 && (shmem_swap)(l, 5, right) == 100,
          "shmem_long_swap, shmem_swap");
    shmem_long_inc(l, right);
    shmem_long_add(l, 4, right);
    shmem_long_set(l, shmem_long_fetch(l, right) + 1, right);
    CHECK(shmem_long_cswap(l, 11, 0, right) == 11, "shmem_long chain");
    shmem_longlong_set(ll, 5, right);
    CHECK(shmem_longlong_finc(ll, right) == 5 && shmem_longlong_fadd(ll, 4, right) == 6 &&
              shmem_longlong_cswap(ll, 10, 1, right) == 10 &&
              shmem_longlong_swap(ll, 0, right) == 1 &&
              shmem_longlong_fetch(ll, right) == 0,
          "shmem_longlong deprecated");
    shmem_longlong_inc(ll, right);
    shmem_longlong_add(ll, 2, right);
    shmem_float_set(fl, 1.5f, right);
    CHECK(shmem_float_swap(fl, 3.0f, right) == 1.5f &&
              shmem_float_fetch(fl, right) == 3.0f,
          "shmem_float deprecated");
    shmem_double_set(d, 0.75, right);
    CHECK(shmem_double_swap(d, 1.0, right) == 0.75 && shmem_double_fetch(d, right) == 1.0,
          "shmem_double deprecated");
    /* the deprecated generic names */
    CHECK(shmem_finc(l, right) == 0 && shmem_fadd(l, 3L, right) == 1, "shmem_finc/fadd");
    shmem_inc(l, right);
    shmem_add(l, 1L, right);
    CHECK(shmem_cswap(l, 6L, 9L, right) == 6 && shmem_swap(l, 0L, right) == 9,
          "shmem_cswap/swap generic");
    shmem_set(d, 8.0, right);
    CHECK(shmem_fetch(d, right) == 8.0, "shmem_set/fetch generic");
    shmem_barrier_all();
    CHECK(*l == 0 && *i == 0 && *ll == 3 && *fl == 3.0f && *d == 8.0,
          "final values l=%ld i=%d ll=%lld", *l, *i, *ll);
    shmem_barrier_all();
}

/* Non-fetching AMOs may return before they are done at the target (they
 * do over the network, where its atomics keep their order); a fence then
 * a put of a flag, or a quiet then the put, must still deliver them first.
 * Each PE adds to its right neighbour's word K times, orders, then puts
 * the flag; the neighbour waits for the flag and checks the word. Rounds:
 * default context with fence, the created one with fence, default with
 * quiet. */
static void order_then_flag(void)
{
    long *w = shmem_calloc(2, sizeof(long)); /* w[0] the word, w[1] the flag */
    CHECK(w, "shmem_calloc");
    shmem_barrier_all();
    for (int round = 0; round < 3; round++) {
        shmem_ctx_t c = round == 1 ? ctx : SHMEM_CTX_DEFAULT;
        for (int k = 0; k < K; k++)
            shmem_ctx_long_atomic_add(c, &w[0], (long)me + 1 + k, right);
        if (round == 2)
            shmem_quiet();
        else
            shmem_ctx_fence(c);
        shmem_ctx_long_p(c, &w[1], round + 1, right);
        shmem_long_wait_until(&w[1], SHMEM_CMP_EQ, round + 1);
        long want = (long)(round + 1) * ((long)K * (left + 1) + (long)K * (K - 1) / 2);
        CHECK(w[0] == want,
              "round %d: the word is %ld after the flag, want %ld (adds "
              "not complete before the flag)",
              round, w[0], want);
        shmem_ctx_quiet(ctx);
        shmem_barrier_all();
    }
    shmem_free(w);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create");
    void *buf = shmem_calloc(1, 64);
    void *all = shmem_calloc((size_t)n * K, sizeof(uint64_t));
    CHECK(buf && all, "shmem_calloc");

#define RUN_STD(T, N) std_##N##_0(buf), std_##N##_1(buf);
    TSHMEM_AMO_STD_TYPES(RUN_STD)
#define RUN_BIT(T, N) bit_##N##_0(buf), bit_##N##_1(buf);
    TSHMEM_AMO_BITWISE_TYPES(RUN_BIT)
#define RUN_FP(T, N) fp_##N##_0(buf), fp_##N##_1(buf);
    TSHMEM_AMO_FP_TYPES(RUN_FP)
    generic_and_deprecated(buf);
    order_then_flag();
    for (int t = 0; t < 2; t++) {
        int target = t ? n - 1 : 0;
        contend_int(buf, all, target);
        contend_long(buf, all, target);
        contend_uint(buf, all, target);
        contend_uint64(buf, all, target);
        contend_size(buf, all, target);
    }
    shmem_ctx_destroy(ctx);
    shmem_free(all);
    shmem_free(buf);
    return finish("amo");
}
