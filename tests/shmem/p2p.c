/* Point-to-point synchronization for every standard AMO type: wait_until,
 * wait_until_all/any/some and their vector forms, test, test_all/any/some
 * and their vector forms, with and without status masks; the deprecated
 * short/ushort routines and shmem_wait; the C11 type-generic forms. Every
 * PE sets slot me of an array on every PE, after a delay so that waits
 * really wait. */
#include <stdint.h>
#include <unistd.h>

#include "shmem_test.h"

static int me, n, right, left;

#define TEST_P2P(T, N)                                                                   \
    static void test_##N(void *buf)                                                      \
    {                                                                                    \
        T *iv = buf;                                                                     \
        T cmpv[8];                                                                       \
        int st[8];                                                                       \
        size_t idx[8];                                                                   \
        for (int i = 0; i < n; i++) {                                                    \
            iv[i] = 0;                                                                   \
            cmpv[i] = (T)(i + 1);                                                        \
            st[i] = 0;                                                                   \
        }                                                                                \
        iv[n] = 0;                                                                       \
        shmem_barrier_all();                                                             \
        /* nothing is set yet */                                                         \
        CHECK(shmem_##N##_test(&iv[0], SHMEM_CMP_EQ, 1) == 0, #N " test");               \
        CHECK(shmem_##N##_test_all(iv, n, NULL, SHMEM_CMP_GE, 1) == 0, #N " test_all");  \
        CHECK(shmem_##N##_test_any(iv, n, NULL, SHMEM_CMP_GE, 1) == SIZE_MAX,            \
              #N " test_any");                                                           \
        CHECK(shmem_##N##_test_some(iv, n, idx, NULL, SHMEM_CMP_GE, 1) == 0,             \
              #N " test_some");                                                          \
        CHECK(shmem_##N##_test_all_vector(iv, n, NULL, SHMEM_CMP_EQ, cmpv) == 0,         \
              #N " test_all_vector");                                                    \
        CHECK(shmem_##N##_test_any_vector(iv, n, NULL, SHMEM_CMP_EQ, cmpv) == SIZE_MAX,  \
              #N " test_any_vector");                                                    \
        CHECK(shmem_##N##_test_some_vector(iv, n, idx, NULL, SHMEM_CMP_EQ, cmpv) == 0,   \
              #N " test_some_vector");                                                   \
        /* empty sets */                                                                 \
        CHECK(shmem_##N##_test_all(iv, 0, NULL, SHMEM_CMP_EQ, 1) == 1, #N " empty all"); \
        CHECK(shmem_##N##_wait_until_any(iv, 0, NULL, SHMEM_CMP_EQ, 1) == SIZE_MAX,      \
              #N " empty any");                                                          \
        CHECK(shmem_##N##_wait_until_some(iv, 0, idx, NULL, SHMEM_CMP_EQ, 1) == 0,       \
              #N " empty some");                                                         \
        shmem_##N##_wait_until_all(iv, 0, NULL, SHMEM_CMP_EQ, 1);                        \
        shmem_barrier_all();                                                             \
        /* every PE sets slot me everywhere, PE 0 late */                                \
        if (me == 0)                                                                     \
            usleep(2000);                                                                \
        for (int pe = 0; pe < n; pe++)                                                   \
            shmem_##N##_p(&iv[me], (T)(me + 1), pe);                                     \
        /* any: collect every slot once, masking the ones seen */                        \
        for (int k = 0; k < n; k++) {                                                    \
            size_t i = shmem_##N##_wait_until_any(iv, n, st, SHMEM_CMP_GE, 1);           \
            CHECK(i < (size_t)n && !st[i] && iv[i] == (T)(i + 1),                        \
                  #N " wait_until_any returned %zu", i);                                 \
            st[i] = 1;                                                                   \
        }                                                                                \
        CHECK(shmem_##N##_wait_until_any(iv, n, st, SHMEM_CMP_GE, 1) == SIZE_MAX,        \
              #N " any over a masked set");                                              \
        CHECK(shmem_##N##_test_all(iv, n, st, SHMEM_CMP_EQ, 99) == 1,                    \
              #N " test_all over a masked set");                                         \
        shmem_##N##_wait_until_all(iv, n, NULL, SHMEM_CMP_GE, 1);                        \
        shmem_##N##_wait_until_all_vector(iv, n, NULL, SHMEM_CMP_EQ, cmpv);              \
        size_t k = shmem_##N##_wait_until_some(iv, n, idx, NULL, SHMEM_CMP_NE, 0);       \
        CHECK(k == (size_t)n, #N " wait_until_some found %zu of %d", k, n);              \
        for (size_t j = 0; j < k; j++)                                                   \
            CHECK(idx[j] == j, #N " some: index %zu is %zu", j, idx[j]);                 \
        k = shmem_##N##_wait_until_some_vector(iv, n, idx, NULL, SHMEM_CMP_LE, cmpv);    \
        CHECK(k == (size_t)n, #N " wait_until_some_vector found %zu", k);                \
        size_t a = shmem_##N##_wait_until_any_vector(iv, n, NULL, SHMEM_CMP_EQ, cmpv);   \
        CHECK(a < (size_t)n, #N " wait_until_any_vector");                               \
        CHECK(shmem_##N##_test_all(iv, n, NULL, SHMEM_CMP_GT, 0) == 1, #N " test_all");  \
        CHECK(shmem_##N##_test_all_vector(iv, n, NULL, SHMEM_CMP_EQ, cmpv) == 1,         \
              #N " test_all_vector");                                                    \
        CHECK(shmem_##N##_test_any(iv, n, NULL, SHMEM_CMP_LT, (T)(n + 1)) < (size_t)n,   \
              #N " test_any");                                                           \
        CHECK(shmem_##N##_test_any_vector(iv, n, NULL, SHMEM_CMP_GE, cmpv) < (size_t)n,  \
              #N " test_any_vector");                                                    \
        CHECK(shmem_##N##_test_some(iv, n, idx, NULL, SHMEM_CMP_LE, (T)n) == (size_t)n,  \
              #N " test_some");                                                          \
        CHECK(shmem_##N##_test_some_vector(iv, n, idx, NULL, SHMEM_CMP_NE, cmpv) == 0,   \
              #N " test_some_vector");                                                   \
        /* test_any returns every satisfied entry over a series of calls */              \
        int seen = 0;                                                                    \
        for (int c = 0; c < 4 * n; c++)                                                  \
            seen |= 1 << shmem_##N##_test_any(iv, n, NULL, SHMEM_CMP_GT, 0);             \
        CHECK(seen == (1 << n) - 1, #N " test_any returned only 0x%x", seen);            \
        /* one variable, each comparison; the left neighbour counts up */                \
        shmem_barrier_all();                                                             \
        for (int v = 1; v <= 3; v++) {                                                   \
            if (me % 2)                                                                  \
                usleep(500);                                                             \
            shmem_##N##_p(&iv[n], (T)v, right);                                          \
            shmem_##N##_wait_until(&iv[n], SHMEM_CMP_GE, (T)v);                          \
            shmem_##N##_wait_until(&iv[n], SHMEM_CMP_EQ, (T)v);                          \
            shmem_##N##_wait_until(&iv[n], SHMEM_CMP_GT, (T)(v - 1));                    \
            shmem_##N##_wait_until(&iv[n], SHMEM_CMP_NE, (T)0);                          \
            shmem_##N##_wait_until(&iv[n], SHMEM_CMP_LT, (T)(v + 1));                    \
            shmem_##N##_wait_until(&iv[n], SHMEM_CMP_LE, (T)v);                          \
            CHECK(shmem_##N##_test(&iv[n], SHMEM_CMP_EQ, (T)v), #N " test %d", v);       \
            shmem_barrier_all();                                                         \
        }                                                                                \
        /* signed types: negative values order below zero */                             \
        if ((T)-1 < (T)1) {                                                              \
            shmem_##N##_p(&iv[n], (T)-7, right);                                         \
            shmem_##N##_wait_until(&iv[n], SHMEM_CMP_LT, (T)0);                          \
            CHECK(shmem_##N##_test(&iv[n], SHMEM_CMP_LE, (T)-7), #N " negative");        \
        } else { /* unsigned: the largest value is above everything */                   \
            shmem_##N##_p(&iv[n], (T)-1, right);                                         \
            shmem_##N##_wait_until(&iv[n], SHMEM_CMP_GT, (T)(n + 5));                    \
        }                                                                                \
        shmem_barrier_all();                                                             \
    }
TSHMEM_AMO_STD_TYPES(TEST_P2P)
/* short and unsigned short: every form too (Sandia OpenSHMEM's tests call
 * the all/any/some ones; they were not there before) */
TEST_P2P(short, short)
TEST_P2P(unsigned short, ushort)

static void test_deprecated(void *buf)
{
    short *s = buf;
    unsigned short *us = (unsigned short *)((char *)buf + 64);
    long *l = (long *)((char *)buf + 128);
    int *i = (int *)((char *)buf + 192);
    long long *ll = (long long *)((char *)buf + 256);
    memset(buf, 0, 320);
    shmem_barrier_all();
    shmem_short_p(s, -2, right);
    shmem_ushort_p(us, 60000, right);
    shmem_long_p(l, 3, right);
    shmem_int_p(i, 4, right);
    shmem_longlong_p(ll, 5, right);
    shmem_short_wait_until(s, SHMEM_CMP_LT, 0);
    shmem_ushort_wait_until(us, SHMEM_CMP_GT, 50000);
    CHECK(shmem_short_test(s, SHMEM_CMP_EQ, -2) &&
              shmem_ushort_test(us, SHMEM_CMP_EQ, 60000),
          "short/ushort test");
    shmem_wait(l, 0);
    shmem_long_wait(l, 0);
    shmem_int_wait(i, 0);
    shmem_longlong_wait(ll, 0);
    shmem_short_wait(s, 0);
    (shmem_wait_until)(l, SHMEM_CMP_EQ, 3); /* the long-only function of 1.3 */
    CHECK(*l == 3 && *i == 4 && *ll == 5, "shmem_wait");
    shmem_barrier_all();
}

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
static void test_generic(void *buf)
{
    int *a = buf;
    unsigned long long *u = (unsigned long long *)((char *)buf + 64);
    short *s = (short *)((char *)buf + 128);
    size_t idx[4];
    memset(buf, 0, 192);
    shmem_barrier_all();
    shmem_p(&a[0], 11, right);
    shmem_p(&u[0], 12ULL, right);
    shmem_p(s, (short)13, right);
    shmem_wait_until(&a[0], SHMEM_CMP_EQ, 11);
    shmem_wait_until(&u[0], SHMEM_CMP_GE, 12ULL);
    shmem_wait_until(s, SHMEM_CMP_EQ, (short)13);
    CHECK(shmem_test(&a[0], SHMEM_CMP_EQ, 11) && shmem_test(s, SHMEM_CMP_NE, (short)0),
          "generic test");
    shmem_wait_until_all(a, 1, NULL, SHMEM_CMP_EQ, 11);
    CHECK(shmem_wait_until_any(u, 1, NULL, SHMEM_CMP_EQ, 12ULL) == 0, "generic any");
    CHECK(shmem_wait_until_some(a, 1, idx, NULL, SHMEM_CMP_EQ, 11) == 1, "generic some");
    int av[1] = {11};
    shmem_wait_until_all_vector(a, 1, NULL, SHMEM_CMP_EQ, av);
    CHECK(shmem_wait_until_any_vector(a, 1, NULL, SHMEM_CMP_EQ, av) == 0 &&
              shmem_wait_until_some_vector(a, 1, idx, NULL, SHMEM_CMP_EQ, av) == 1,
          "generic vector waits");
    CHECK(shmem_test_all(a, 1, NULL, SHMEM_CMP_EQ, 11) == 1 &&
              shmem_test_any(a, 1, NULL, SHMEM_CMP_EQ, 11) == 0 &&
              shmem_test_some(a, 1, idx, NULL, SHMEM_CMP_EQ, 11) == 1 &&
              shmem_test_all_vector(a, 1, NULL, SHMEM_CMP_EQ, av) == 1 &&
              shmem_test_any_vector(a, 1, NULL, SHMEM_CMP_EQ, av) == 0 &&
              shmem_test_some_vector(a, 1, idx, NULL, SHMEM_CMP_EQ, av) == 1,
          "generic tests");
    unsigned short *us = (unsigned short *)(s + 4);
    *us = 14;
    shmem_wait_until_all(s, 1, NULL, SHMEM_CMP_EQ, (short)13);
    CHECK(shmem_wait_until_any(us, 1, NULL, SHMEM_CMP_EQ, (unsigned short)14) == 0 &&
              shmem_wait_until_some(s, 1, idx, NULL, SHMEM_CMP_EQ, (short)13) == 1 &&
              shmem_test_all(us, 1, NULL, SHMEM_CMP_EQ, (unsigned short)14) == 1 &&
              shmem_test_any(s, 1, NULL, SHMEM_CMP_EQ, (short)13) == 0 &&
              shmem_test_some(us, 1, idx, NULL, SHMEM_CMP_EQ, (unsigned short)14) == 1,
          "generic short/ushort all/any/some");
    shmem_barrier_all();
}
#endif

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    CHECK(n <= 7, "this test takes at most 7 PEs");
    void *buf = shmem_malloc(512);
    CHECK(buf != NULL, "shmem_malloc");
#define RUN_P2P(T, N) test_##N(buf);
    TSHMEM_AMO_STD_TYPES(RUN_P2P)
    test_short(buf);
    test_ushort(buf);
    test_deprecated(buf);
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
    test_generic(buf);
#endif
    shmem_free(buf);
    return finish("shmem p2p");
}
