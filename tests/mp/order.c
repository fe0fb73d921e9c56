/* Ordering modes (tern.h: TERN_ORDER_*, TERN_ORDER): what each mode
 * promises about blocking puts and non-fetching atomics, checked where a
 * violation is observable: the partner reads the data with plain loads
 * once it sees the flag that followed it. Every context also fences where
 * its mode does not order (atomics then a put in partial; everything in
 * none). TEST_ORDER_BREAK=1 leaves those fences out, which shows that the
 * checks can fail (docs/design/ordering.md). Bad options and queries too. */
#include <stdlib.h>
#include <string.h>

#include <tern.h>
#include <tern/atomic.h>

#include "mp_util.h"

enum { K = 32, ROUNDS = 12, BIG = 16384, NCASE = 4 };

/* The partner's view: every rank writes into its partner's area. */
typedef struct area {
    uint64_t slot[K];
    uint64_t cnt[NCASE];  /* counters the atomics add to */
    uint64_t flag[NCASE]; /* the flag that follows each case's data */
    uint64_t ack[NCASE];  /* the partner checked the round */
    unsigned char big[BIG];
} area_t;

/* The cases: the kinds of the data operations and of the flag. */
enum { PUT_PUT, AMO_AMO, AMO_PUT, PUT_AMO };
static const char *const case_name[NCASE] = {"puts then a put", "adds then a set",
                                             "adds then a put", "puts then a set"};

static area_t *area;
static tern_ad_t ad;
static int me, n, partner;
static tern_ctx_t strict; /* carries the acknowledgements */

/* Whether mode orders case c without a fence (tern.h's promises). */
static int ordered(int mode, int c)
{
    if (mode == TERN_ORDER_STRICT)
        return 1;
    if (mode == TERN_ORDER_PARTIAL)
        return c == PUT_PUT || c == AMO_AMO; /* one kind, one target */
    return 0;
}

static uint64_t value(int round, int c)
{
    return (uint64_t)round * 16 + (uint64_t)c + 1;
}

/* Sends round's data and flag of case c to the partner on ctx. */
static void send_case(tern_ctx_t ctx, int mode, int round, int c)
{
    uint64_t v = value(round, c);
    area_t *pa = tern_sym_addr(partner, area);
    if (c == PUT_PUT || c == PUT_AMO) {
        static unsigned char big[BIG];
        memset(big, (int)(v & 0xff), BIG);
        MP_OK(tern_ctx_put(ctx, partner, pa->big, big, BIG, 0));
        for (int i = 0; i < K; i++) {
            uint64_t x = v * 1000 + (uint64_t)i;
            MP_OK(tern_ctx_put(ctx, partner, &pa->slot[i], &x, 8, 0));
        }
    } else {
        for (int i = 0; i < K; i++)
            MP_OK(tern_ctx_ad_op_u64(ctx, ad, partner, &pa->cnt[c], TERN_OP_ADD, 1, 0,
                                     NULL, 0));
    }
    if (!ordered(mode, c) && !getenv("TEST_ORDER_BREAK"))
        MP_OK(tern_ctx_fence(ctx));
    if (c == PUT_PUT || c == AMO_PUT)
        MP_OK(tern_ctx_put(ctx, partner, &pa->flag[c], &v, 8, 0));
    else
        MP_OK(tern_ctx_ad_op_u64(ctx, ad, partner, &pa->flag[c], TERN_OP_SET, v, 0, NULL,
                                 0));
}

/* Waits for the flag of case c from the partner that sends to this rank
 * and checks what came before it; returns the number of wrong items. */
static int check_case(int round, int c)
{
    uint64_t v = value(round, c);
    MP_OK(tern_wait_until_u64(&area->flag[c], TERN_CMP_EQ, v));
    int bad = 0;
    if (c == PUT_PUT || c == PUT_AMO) {
        for (int i = 0; i < K; i++)
            bad += __atomic_load_n(&area->slot[i], __ATOMIC_ACQUIRE) !=
                   v * 1000 + (uint64_t)i;
        bad += area->big[0] != (unsigned char)v || area->big[BIG - 1] != (unsigned char)v;
    } else {
        uint64_t got = __atomic_load_n(&area->cnt[c], __ATOMIC_ACQUIRE);
        bad += got != (uint64_t)K * (uint64_t)round;
    }
    return bad;
}

/* Every case, ROUNDS times, on ctx; the partner acknowledges each round
 * before the next overwrites it. */
static void run_mode(tern_ctx_t ctx, const char *what)
{
    int mode = 0;
    MP_OK(tern_ctx_order(ctx, &mode));
    memset(area, 0, sizeof(*area));
    MP_OK(tern_barrier());
    int bad[NCASE] = {0};
    for (int round = 1; round <= ROUNDS; round++)
        for (int c = 0; c < NCASE; c++) {
            send_case(ctx, mode, round, c);
            bad[c] += check_case(round, c);
            uint64_t r = (uint64_t)round;
            MP_OK(tern_ctx_put(strict, partner,
                               &((area_t *)tern_sym_addr(partner, area))->ack[c], &r, 8,
                               0));
            MP_OK(tern_wait_until_u64(&area->ack[c], TERN_CMP_GE, r));
        }
    MP_OK(tern_ctx_quiet(ctx));
    for (int c = 0; c < NCASE; c++)
        MP_CHECK(bad[c] == 0, "%s (mode %d), %s: %d items seen before their data", what,
                 mode, case_name[c], bad[c]);
    MP_OK(tern_barrier());
}

int main(int argc, char **argv)
{
    me = mp_init(&argc, &argv, 0);
    n = tern_size();
    /* Ranks n/2 apart: on the other simulated node in mixed. */
    partner = n % 2 == 0 ? (me + n / 2) % n : me;
    MP_OK(tern_alloc_sym(sizeof(area_t), (void **)&area));
    MP_OK(tern_ad_create(TERN_AT_U64, TERN_OP_ADD | TERN_OP_SET, 0, &ad));
    MP_OK(tern_ctx_create(TERN_ORDER_STRICT, &strict));

    /* The default context takes TERN_ORDER's mode; so does option 0. */
    const char *env = getenv("TERN_ORDER");
    int want = !env || !strcmp(env, "strict") ? TERN_ORDER_STRICT
               : !strcmp(env, "partial")      ? TERN_ORDER_PARTIAL
                                              : TERN_ORDER_NONE;
    int mode = 0;
    MP_OK(tern_ctx_order(TERN_CTX_DEFAULT, &mode));
    MP_CHECK(mode == want, "default context: mode %d, TERN_ORDER says %d", mode, want);
    tern_ctx_t c0;
    MP_OK(tern_ctx_create(0, &c0));
    MP_OK(tern_ctx_order(c0, &mode));
    MP_CHECK(mode == want, "context of option 0: mode %d, TERN_ORDER says %d", mode,
             want);
    MP_OK(tern_ctx_destroy(c0));

    static const struct {
        int mode;
        const char *name;
    } modes[] = {{TERN_ORDER_STRICT, "strict context"},
                 {TERN_ORDER_PARTIAL, "partial context"},
                 {TERN_ORDER_NONE, "none context"}};
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        tern_ctx_t ctx;
        MP_OK(tern_ctx_create((tern_flags_t)modes[i].mode, &ctx));
        MP_OK(tern_ctx_order(ctx, &mode));
        MP_CHECK(mode == modes[i].mode, "%s reports mode %d", modes[i].name, mode);
        run_mode(ctx, modes[i].name);
        MP_OK(tern_ctx_destroy(ctx));
    }
    run_mode(TERN_CTX_DEFAULT, "default context");

    /* Bad input: an option that is no mode, a NULL or dead query. */
    tern_ctx_t bad;
    MP_EXPECT(tern_ctx_create(4, &bad), TERN_ERR_INVALID,
              "options 0x4: not 0 (TERN_ORDER's mode) or one of TERN_ORDER_STRICT");
    MP_EXPECT(tern_ctx_create(0x100 | TERN_ORDER_NONE, &bad), TERN_ERR_INVALID,
              "options 0x103");
    MP_EXPECT(tern_ctx_order(strict, NULL), TERN_ERR_INVALID, "mode is NULL");
    MP_OK(tern_ctx_create(TERN_ORDER_NONE, &bad));
    MP_OK(tern_ctx_destroy(bad));
    MP_EXPECT(tern_ctx_order(bad, &mode), TERN_ERR_INVALID, "destroyed");

    MP_OK(tern_barrier());
    MP_OK(tern_ctx_destroy(strict));
    MP_OK(tern_ad_destroy(ad));
    return mp_finish("order");
}
