/* CPU atomics (base/amo.c): every op on every type gives the value and
 * the old value it must, and four threads adding to one word lose
 * nothing. */
#include <pthread.h>
#include <string.h>

#include "base/amo.h"
#include "unit_check.h"

static tn_aval_t v64(uint64_t u)
{
    tn_aval_t v;
    memset(&v, 0, sizeof(v));
    v.u64 = u;
    return v;
}

/* One op on a fresh word holding start; *after gets the word. */
static tn_aval_t run(int type, int op, tn_aval_t start, tn_aval_t a1, tn_aval_t a2,
                     tn_aval_t *after)
{
    _Alignas(8) tn_aval_t w = start, old;
    tn_amo_cpu(type, op, &w, &a1, &a2, &old);
    *after = w;
    return old;
}

static uint64_t counter;
static double dcounter;
static void *hammer(void *arg)
{
    (void)arg;
    tn_aval_t one = v64(1), d1, none = v64(0), old;
    d1.d = 1.0;
    for (int i = 0; i < 100000; i++) {
        tn_amo_cpu(TN_ATYPE_U64, TN_AOP_FADD, &counter, &one, &none, &old);
        tn_amo_cpu(TN_ATYPE_DOUBLE, TN_AOP_ADD, &dcounter, &d1, &none, &old);
    }
    return NULL;
}

int main(void)
{
    tn_aval_t w, old, z = v64(0);
    /* Integers, 32-bit signed. */
    tn_aval_t s = {.i32 = -5}, a = {.i32 = 7}, b = {.i32 = 9};
    old = run(TN_ATYPE_I32, TN_AOP_FADD, s, a, z, &w);
    CHECK(old.i32 == -5 && w.i32 == 2);
    old = run(TN_ATYPE_I32, TN_AOP_SUB, s, a, z, &w);
    CHECK(w.i32 == -12);
    old = run(TN_ATYPE_I32, TN_AOP_FMIN, s, a, z, &w);
    CHECK(old.i32 == -5 && w.i32 == -5);
    old = run(TN_ATYPE_I32, TN_AOP_MAX, s, a, z, &w);
    CHECK(w.i32 == 7);
    old = run(TN_ATYPE_I32, TN_AOP_FMULT, s, a, z, &w);
    CHECK(old.i32 == -5 && w.i32 == -35);
    old = run(TN_ATYPE_I32, TN_AOP_CSWAP, s, s, b, &w);
    CHECK(old.i32 == -5 && w.i32 == 9);
    old = run(TN_ATYPE_I32, TN_AOP_CSWAP, s, a, b, &w);
    CHECK(old.i32 == -5 && w.i32 == -5);
    /* Unsigned 32: wraps, min/max unsigned. */
    tn_aval_t u = {.u32 = 0}, m = {.u32 = 0xffffffffu};
    run(TN_ATYPE_U32, TN_AOP_DEC, u, z, z, &w);
    CHECK(w.u32 == 0xffffffffu);
    run(TN_ATYPE_U32, TN_AOP_MAX, u, m, z, &w);
    CHECK(w.u32 == 0xffffffffu);
    old = run(TN_ATYPE_U32, TN_AOP_FINC, m, z, z, &w);
    CHECK(old.u32 == 0xffffffffu && w.u32 == 0);
    /* 64-bit: bitwise, swap, get, set, signed min. */
    old = run(TN_ATYPE_U64, TN_AOP_FXOR, v64(0xf0f0), v64(0xff00), z, &w);
    CHECK(old.u64 == 0xf0f0 && w.u64 == 0x0ff0);
    run(TN_ATYPE_U64, TN_AOP_AND, v64(0xf0f0), v64(0xff00), z, &w);
    CHECK(w.u64 == 0xf000);
    old = run(TN_ATYPE_U64, TN_AOP_FOR, v64(0xf0f0), v64(0x000f), z, &w);
    CHECK(old.u64 == 0xf0f0 && w.u64 == 0xf0ff);
    old = run(TN_ATYPE_U64, TN_AOP_SWAP, v64(1), v64(2), z, &w);
    CHECK(old.u64 == 1 && w.u64 == 2);
    old = run(TN_ATYPE_U64, TN_AOP_GET, v64(3), v64(2), z, &w);
    CHECK(old.u64 == 3 && w.u64 == 3);
    run(TN_ATYPE_U64, TN_AOP_SET, v64(3), v64(4), z, &w);
    CHECK(w.u64 == 4);
    tn_aval_t neg = {.i64 = -1};
    run(TN_ATYPE_I64, TN_AOP_MIN, v64(3), neg, z, &w);
    CHECK(w.i64 == -1);
    run(TN_ATYPE_U64, TN_AOP_MIN, v64(3), neg, z, &w); /* unsigned: -1 is the largest */
    CHECK(w.u64 == 3);
    old = run(TN_ATYPE_I64, TN_AOP_FSUB, v64(3), neg, z, &w);
    CHECK(old.i64 == 3 && w.i64 == 4);
    /* Floating point. */
    tn_aval_t f = {.f = 1.5f}, g = {.f = 2.0f};
    old = run(TN_ATYPE_FLOAT, TN_AOP_FMULT, f, g, z, &w);
    CHECK(old.f == 1.5f && w.f == 3.0f);
    run(TN_ATYPE_FLOAT, TN_AOP_FDEC, f, z, z, &w);
    CHECK(w.f == 0.5f);
    tn_aval_t d = {.d = 1.25}, e = {.d = -2.5};
    old = run(TN_ATYPE_DOUBLE, TN_AOP_FADD, d, e, z, &w);
    CHECK(old.d == 1.25 && w.d == -1.25);
    run(TN_ATYPE_DOUBLE, TN_AOP_MIN, d, e, z, &w);
    CHECK(w.d == -2.5);
    run(TN_ATYPE_DOUBLE, TN_AOP_FMAX, d, e, z, &w);
    CHECK(w.d == 1.25);
    old = run(TN_ATYPE_DOUBLE, TN_AOP_CSWAP, d, d, e, &w);
    CHECK(old.d == 1.25 && w.d == -2.5);
    /* Contention: nothing lost. */
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        CHECK(pthread_create(&t[i], NULL, hammer, NULL) == 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    CHECK(counter == 400000 && dcounter == 400000.0);
    /* Names and sets. */
    char buf[64];
    tn_aop_set_names(TN_AOP_BIT(TN_AOP_FADD) | TN_AOP_BIT(TN_AOP_CSWAP), buf,
                     sizeof(buf));
    CHECK(strcmp(buf, "cswap, fadd") == 0);
    char all[TN_AOP_SET_NAMES_MAX + 8]; /* the bound holds every set */
    tn_aop_set_names(TN_AOPS_ALL, all, sizeof(all));
    CHECK(strlen(all) + 1 == TN_AOP_SET_NAMES_MAX);
    CHECK(strcmp(tn_atype_name(TN_ATYPE_DOUBLE), "double") == 0);
    CHECK((TN_AOPS_FETCHING & TN_AOP_BIT(TN_AOP_ADD)) == 0);
    CHECK((TN_AOPS_FETCHING & TN_AOP_BIT(TN_AOP_FMULT)) != 0);
    printf("amo cpu: PASS\n");
    return 0;
}
