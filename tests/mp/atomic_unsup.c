/* Atomic domains when the provider lacks an op (TERN_TEST_FAULT=noamo:fmult
 * makes the provider's atomics lack fmult): a set without it still takes
 * the provider's atomics (under auto, unless the provider emulates them
 * in software: am then, for that reason); a set with it takes the
 * active-message path under TERN_OFI_ATOMICS=auto (the reason names fmult) and works, and is
 * refused under TERN_OFI_ATOMICS=net with TERN_ERR_UNSUPPORTED and a message naming
 * the op and the provider, on every rank alike. On one node every domain is
 * CPU atomics. */
#include <string.h>

#include "mp_util.h"

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    const char *mode = getenv("TERN_OFI_ATOMICS");
    int net_only = mode && strcmp(mode, "net") == 0;
    int all_mapped = 1;
    for (int r = 0; r < tern_size(); r++)
        all_mapped &= mp_mapped(r);
    tern_ad_t ad;
    int impl;
    char why[640];

    /* Without the missing op: the provider's atomics (or cpu). */
    MP_OK(tern_ad_create(TERN_AT_U64, TERN_OP_FADD | TERN_OP_CSWAP, 0, &ad));
    MP_OK(tern_ad_info(ad, &impl, why, sizeof(why)));
    /* (Under auto, a provider that emulates atomics in software gives am:
     * the reason says so.) */
    int expect = all_mapped                             ? TERN_AD_IMPL_CPU
                 : !net_only && strstr(why, "emulated") ? TERN_AD_IMPL_AM
                                                        : TERN_AD_IMPL_NET;
    MP_CHECK(impl == expect, "impl %d: %s", impl, why);
    MP_OK(tern_ad_destroy(ad));

    /* With it. */
    mp_capture_begin();
    int rc = tern_ad_create(TERN_AT_U64, TERN_OP_FADD | TERN_OP_FMULT, 0, &ad);
    const char *msg = mp_capture_end();
    if (all_mapped) {
        MP_OK(rc);
        MP_OK(tern_ad_info(ad, &impl, NULL, 0));
        MP_CHECK(impl == TERN_AD_IMPL_CPU, "implementation %d on one node", impl);
        MP_OK(tern_ad_destroy(ad));
    } else if (net_only) {
        MP_CHECK(rc == TERN_ERR_UNSUPPORTED, "create returned %d", rc);
        MP_CHECK(strstr(msg, "does not carry out fmult on u64") &&
                     strstr(msg, "TERN_OFI_ATOMICS=net") && strstr(msg, "provider"),
                 "message: %s", msg);
        if (me == 0)
            printf("refused as it should be: %s", msg);
    } else {
        MP_OK(rc);
        MP_OK(tern_ad_info(ad, &impl, why, sizeof(why)));
        MP_CHECK(impl == TERN_AD_IMPL_AM &&
                     strstr(why, "does not carry out fmult on u64"),
                 "impl %d: %s", impl, why);
        if (me == 0)
            printf("fallback: %s\n", why);
        /* It works: every rank multiplies rank 0's word by 3 and adds 1 to
         * its own word on its right. */
        uint64_t *w;
        MP_OK(tern_alloc_sym(2 * sizeof(uint64_t), (void **)&w));
        w[0] = 1;
        w[1] = 0;
        MP_OK(tern_barrier());
        int n = tern_size();
        uint64_t old;
        MP_OK(
            tern_ad_op_u64(ad, 0, tern_sym_addr(0, &w[0]), TERN_OP_FMULT, 3, 0, &old, 0));
        MP_OK(tern_ad_op_u64(ad, (me + 1) % n, tern_sym_addr((me + 1) % n, &w[1]),
                             TERN_OP_FADD, 1, 0, &old, 0));
        MP_CHECK(old == 0, "fetched %llu", (unsigned long long)old);
        MP_OK(tern_barrier());
        uint64_t expect = 1;
        for (int r = 0; r < n; r++)
            expect *= 3;
        if (me == 0)
            MP_CHECK(w[0] == expect, "product %llu, not %llu", (unsigned long long)w[0],
                     (unsigned long long)expect);
        MP_CHECK(w[1] == 1, "sum %llu", (unsigned long long)w[1]);
        MP_OK(tern_barrier());
        MP_OK(tern_ad_destroy(ad));
    }
    return mp_finish("atomic_unsup");
}
