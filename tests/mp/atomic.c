/* Atomic domains: every op on every type, blocking, event and nbi, to a
 * neighbour (values and fetched old values checked); then every rank
 * hammering one counter on rank 0 with each form, the result exact. Runs
 * in shm, net and mixed: the domain's implementation is whatever the job
 * allows (and, with TERN_OFI_ATOMICS=am, the active-message path), and the
 * same checks hold. */
#include <string.h>

#include "mp_util.h"

enum { NTYPES = 6 };
static const char *const names[NTYPES] = {"i32", "u32", "i64", "u64", "float", "double"};

/* One op of mode (TERN_AD_*_) with operands given as doubles (every value
 * used here is exact in every type); *old gets the fetched value. */
static int op_any(tern_ad_t ad, int type, int mode, int rank, void *addr, uint32_t op,
                  double a1, double a2, double *old)
{
    tern_event_t ev = TERN_EVENT_DONE;
    tern_event_t *evp = mode == TERN_AD_NB_ ? &ev : NULL;
    int rc;
    union {
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
        float f;
        double d;
    } r;
    memset(&r, 0, sizeof(r));
#define OP(T, C, field)                                                              \
    rc = mode == TERN_AD_BLOCK_                                                      \
             ? tern_ad_op_##T(ad, rank, addr, op, (C)a1, (C)a2, &r.field, 0)         \
         : mode == TERN_AD_NB_                                                       \
             ? tern_ad_op_nb_##T(ad, rank, addr, op, (C)a1, (C)a2, &r.field, evp, 0) \
             : tern_ad_op_nbi_##T(ad, rank, addr, op, (C)a1, (C)a2, &r.field, 0);    \
    if (rc == TERN_OK && mode == TERN_AD_NB_)                                        \
        rc = tern_event_wait(ev);                                                    \
    if (rc == TERN_OK && mode == TERN_AD_NBI_)                                       \
        rc = tern_nbi_sync(TERN_SYNC_REMOTE);                                        \
    *old = (double)r.field;
    switch (type) {
    case TERN_AT_I32: OP(i32, int32_t, i32); break;
    case TERN_AT_U32: OP(u32, uint32_t, u32); break;
    case TERN_AT_I64: OP(i64, int64_t, i64); break;
    case TERN_AT_U64: OP(u64, uint64_t, u64); break;
    case TERN_AT_FLOAT: OP(float, float, f); break;
    default: OP(double, double, d); break;
    }
#undef OP
    return rc;
}

/* op on a word holding 6 with a1 = 3 (CSWAP: a1 = 6 compared, a2 = 11 new): the
 * value after and the old value fetched (-1: not fetching). */
static const struct {
    uint32_t op;
    double after, fetched;
} cases[] = {
    {TERN_OP_GET, 6, 6},    {TERN_OP_SET, 3, -1},   {TERN_OP_SWAP, 3, 6},
    {TERN_OP_CSWAP, 11, 6}, {TERN_OP_ADD, 9, -1},   {TERN_OP_SUB, 3, -1},
    {TERN_OP_INC, 7, -1},   {TERN_OP_DEC, 5, -1},   {TERN_OP_AND, 2, -1},
    {TERN_OP_OR, 7, -1},    {TERN_OP_XOR, 5, -1},   {TERN_OP_MIN, 3, -1},
    {TERN_OP_MAX, 6, -1},   {TERN_OP_MULT, 18, -1}, {TERN_OP_FADD, 9, 6},
    {TERN_OP_FSUB, 3, 6},   {TERN_OP_FINC, 7, 6},   {TERN_OP_FDEC, 5, 6},
    {TERN_OP_FAND, 2, 6},   {TERN_OP_FOR, 7, 6},    {TERN_OP_FXOR, 5, 6},
    {TERN_OP_FMIN, 3, 6},   {TERN_OP_FMAX, 6, 6},   {TERN_OP_FMULT, 18, 6},
};
#define BITWISE \
    (TERN_OP_AND | TERN_OP_OR | TERN_OP_XOR | TERN_OP_FAND | TERN_OP_FOR | TERN_OP_FXOR)

/* cpu on one node. Across nodes: am under TERN_OFI_ATOMICS=am or
 * TERN_TEST_FAULT=noamo:OP, net under TERN_OFI_ATOMICS=net (tcp has every
 * op); under auto the provider's atomics where its NIC applies them, am
 * where it emulates them in software (tcp;ofi_rxm, shm, ...: the reason
 * says "emulated"). 1 when impl is right for why. */
static int impl_ok(int impl, const char *why)
{
    int all_mapped = 1;
    for (int r = 0; r < tern_size(); r++)
        all_mapped &= mp_mapped(r);
    if (all_mapped)
        return impl == TERN_AD_IMPL_CPU;
    const char *m = getenv("TERN_OFI_ATOMICS"), *f = getenv("TERN_TEST_FAULT");
    if ((m && strcmp(m, "am") == 0) || (f && strncmp(f, "noamo:", 6) == 0))
        return impl == TERN_AD_IMPL_AM;
    if (m && strcmp(m, "net") == 0)
        return impl == TERN_AD_IMPL_NET;
    return impl == (strstr(why, "emulated") ? TERN_AD_IMPL_AM : TERN_AD_IMPL_NET);
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size(), right = (me + 1) % n;
    uint64_t *words; /* [NTYPES] per-op words, then [NTYPES] counters */
    MP_OK(tern_alloc_sym(2 * NTYPES * sizeof(uint64_t), (void **)&words));
    memset(words, 0, 2 * NTYPES * sizeof(uint64_t));
    MP_OK(tern_barrier());
    /* The contention count: tests/mp/kill_mid.sh makes it long enough for a
     * kill to land in it (above 2^24 / (3 n) the float sum is inexact). */
    const char *ce = getenv("TEST_ATOMIC_COUNT");
    const long M = ce ? atol(ce) : 100;

    for (int t = 0; t < NTYPES; t++) {
        uint32_t set = TERN_OPS_ALL_ & (t >= TERN_AT_FLOAT ? ~BITWISE : ~0u);
        tern_ad_t ad;
        MP_OK(tern_ad_create(t, set, 0, &ad));
        int impl;
        char why[640];
        MP_OK(tern_ad_info(ad, &impl, why, sizeof(why)));
        if (me == 0 && t == TERN_AT_U64)
            printf("u64 domain: %s\n", why);
        MP_CHECK(impl_ok(impl, why), "implementation %d: %s", impl, why);
        if (t == TERN_AT_U64) { /* TERN_AD_PROVIDER takes emulated provider ops */
            tern_ad_t pd;
            int pimpl;
            char pwhy[640];
            MP_OK(tern_ad_create(t, set, TERN_AD_PROVIDER, &pd));
            MP_OK(tern_ad_info(pd, &pimpl, pwhy, sizeof(pwhy)));
            int emulated = strstr(why, "emulated") != NULL;
            MP_CHECK(emulated ? pimpl == TERN_AD_IMPL_NET : pimpl == impl,
                     "TERN_AD_PROVIDER gave implementation %d (%s) where the default "
                     "gave %d (%s)",
                     pimpl, pwhy, impl, why);
            MP_OK(tern_ad_destroy(pd));
        }
        /* The head both inline paths read (tern/atomic.h and the
         * OpenSHMEM layer's tshmem/fast.h): the live marker on cpu and am
         * domains, nothing on net ones. */
        const tern_ad_fast_t_ *head = (const tern_ad_fast_t_ *)ad;
        MP_CHECK(head->cpu == (impl == TERN_AD_IMPL_NET ? 0u : TERN_AD_CPU_LIVE_) &&
                     head->type == t && head->ops == set,
                 "domain head {0x%x, %d, 0x%x} for impl %d, type %d", head->cpu,
                 head->type, head->ops, impl, t);
        void *w = tern_sym_addr(right, &words[t]);
        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
            if (!(cases[c].op & set))
                continue;
            int mode = (int)(c % 3);
            double old;
            MP_OK(op_any(ad, t, TERN_AD_BLOCK_, right, w, TERN_OP_SET, 6, 0, &old));
            MP_OK(op_any(ad, t, mode, right, w, cases[c].op,
                         cases[c].op == TERN_OP_CSWAP ? 6 : 3,
                         cases[c].op == TERN_OP_CSWAP ? 11 : 0, &old));
            if (cases[c].fetched >= 0)
                MP_CHECK(old == cases[c].fetched, "%s op 0x%x mode %d fetched %g, not %g",
                         names[t], cases[c].op, mode, old, cases[c].fetched);
            MP_OK(op_any(ad, t, TERN_AD_BLOCK_, right, w, TERN_OP_GET, 0, 0, &old));
            MP_CHECK(old == cases[c].after, "%s op 0x%x mode %d left %g, not %g",
                     names[t], cases[c].op, mode, old, cases[c].after);
        }
        /* A CSWAP that does not match leaves the word. */
        double old;
        MP_OK(op_any(ad, t, TERN_AD_BLOCK_, right, w, TERN_OP_SET, 6, 0, &old));
        MP_OK(op_any(ad, t, TERN_AD_BLOCK_, right, w, TERN_OP_CSWAP, 5, 11, &old));
        MP_OK(op_any(ad, t, TERN_AD_BLOCK_, right, w, TERN_OP_GET, 0, 0, &old));
        MP_CHECK(old == 6, "%s: a failed cswap changed the word to %g", names[t], old);

        /* Contention: every rank adds 1 M times in each form to rank 0. */
        void *ctr = tern_sym_addr(0, &words[NTYPES + t]);
        MP_OK(tern_barrier());
        MP_MARK("contention");
        for (long i = 0; i < M; i++) {
            MP_OK(op_any(ad, t, TERN_AD_BLOCK_, 0, ctr, TERN_OP_FADD, 1, 0, &old));
            MP_OK(op_any(ad, t, TERN_AD_NB_, 0, ctr, TERN_OP_INC, 0, 0, &old));
        }
        for (long i = 0; i < M; i++) { /* nbi back to back, one sync */
            switch (t) {
            case TERN_AT_I32:
                MP_OK(tern_ad_op_nbi_i32(ad, 0, ctr, TERN_OP_ADD, 1, 0, NULL, 0));
                break;
            case TERN_AT_U32:
                MP_OK(tern_ad_op_nbi_u32(ad, 0, ctr, TERN_OP_ADD, 1, 0, NULL, 0));
                break;
            case TERN_AT_I64:
                MP_OK(tern_ad_op_nbi_i64(ad, 0, ctr, TERN_OP_ADD, 1, 0, NULL, 0));
                break;
            case TERN_AT_U64:
                MP_OK(tern_ad_op_nbi_u64(ad, 0, ctr, TERN_OP_ADD, 1, 0, NULL, 0));
                break;
            case TERN_AT_FLOAT:
                MP_OK(tern_ad_op_nbi_float(ad, 0, ctr, TERN_OP_ADD, 1, 0, NULL, 0));
                break;
            default:
                MP_OK(tern_ad_op_nbi_double(ad, 0, ctr, TERN_OP_ADD, 1, 0, NULL, 0));
                break;
            }
        }
        MP_OK(tern_quiet());
        MP_OK(tern_barrier());
        MP_OK(op_any(ad, t, TERN_AD_BLOCK_, 0, ctr, TERN_OP_GET, 0, 0, &old));
        MP_CHECK(old == 3.0 * M * n, "%s counter %g, not %ld", names[t], old, 3 * M * n);
        MP_OK(tern_barrier());
        MP_OK(tern_ad_destroy(ad));
        MP_CHECK(head->cpu == 0, "destroyed domain's head still says live");
    }
    return mp_finish("atomic");
}
