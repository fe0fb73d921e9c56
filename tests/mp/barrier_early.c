/* A barrier completes the blocking puts, non-fetching atomics and
 * accumulates that returned early on a TERN_ORDER_PARTIAL or _NONE context (tern.h): every
 * rank writes its partner's area with blocking puts, adds and accumulates
 * on such a context, enters a barrier (tern_barrier, tern_team_barrier on the world
 * and on a split team, tern_team_barrier_nb then a wait), and the partner
 * reads the area with plain loads right after it, with no fence or quiet
 * by the writer. Over the network the writes are still in flight when
 * the barrier is entered unless the barrier completes them. */
#include <stdlib.h>
#include <string.h>

#include <tern.h>
#include <tern/atomic.h>
#include <tern/team.h>

#include "mp_util.h"

enum { K = 32, BIG = 65536, ROUNDS = 6, NBAR = 4, NACC = 8, KACC = 4 };

typedef struct area {
    uint64_t slot[K];
    uint64_t cnt;
    int64_t acc[NACC];
    unsigned char big[BIG];
} area_t;

static area_t *area;
static tern_ad_t ad;
static int me, n, partner, source;
static tern_team_t col; /* a split team holding each writer and its partner */

static const char *const bar_name[NBAR] = {"tern_barrier", "tern_team_barrier(world)",
                                           "tern_team_barrier_nb + wait",
                                           "tern_team_barrier(split team)"};

static void barrier(int kind)
{
    if (kind == 0) {
        MP_OK(tern_barrier());
    } else if (kind == 1) {
        MP_OK(tern_team_barrier(TERN_TEAM_WORLD));
    } else if (kind == 2) {
        tern_event_t ev;
        MP_OK(tern_team_barrier_nb(TERN_TEAM_WORLD, &ev));
        MP_OK(tern_event_wait(ev));
    } else {
        MP_OK(tern_team_barrier(col));
        MP_OK(tern_barrier()); /* the pairs of the other team too */
    }
}

static uint64_t value(int round, int kind, int i)
{
    return ((uint64_t)round << 32) | ((uint64_t)kind << 24) | (uint64_t)i;
}

static int64_t accs; /* accumulates of ones[] each rank received so far */

/* One round: writes, the barrier, the partner's reads. Returns the number
 * of values this rank found missing. acc_only: accumulates alone, so
 * that nothing else marks the context. */
static int round_trip(tern_ctx_t ctx, int round, int kind, int acc_only)
{
    area_t *pa = tern_sym_addr(partner, area);
    if (!acc_only) {
        static unsigned char big[BIG];
        memset(big, (int)(value(round, kind, 0) & 0xff) ^ 0x5a, BIG);
        MP_OK(tern_ctx_put(ctx, partner, pa->big, big, BIG, 0));
        for (int i = 0; i < K; i++) {
            uint64_t v = value(round, kind, i);
            MP_OK(tern_ctx_put(ctx, partner, &pa->slot[i], &v, 8, 0));
        }
        for (int i = 0; i < K; i++)
            MP_OK(tern_ctx_ad_op_u64(ctx, ad, partner, &pa->cnt, TERN_OP_ADD, 1, 0, NULL,
                                     0));
    }
    static const int64_t ones[NACC] = {1, 2, 3, 4, 5, 6, 7, 8};
    for (int i = 0; i < KACC; i++)
        MP_OK(tern_ctx_acc(ctx, partner, pa->acc, ones, NACC, TERN_AT_I64, NULL, 0));
    barrier(kind);
    int bad = 0;
    volatile area_t *a = area;
    if (!acc_only) {
        for (int i = 0; i < K; i++)
            bad += a->slot[i] != value(round, kind, i);
        unsigned char want = (unsigned char)((value(round, kind, 0) & 0xff) ^ 0x5a);
        for (int i = 0; i < BIG; i += 512)
            bad += a->big[i] != want || a->big[BIG - 1 - i] != want;
        static uint64_t adds;
        adds += K;
        bad += a->cnt != adds;
    }
    accs += KACC;
    for (int i = 0; i < NACC; i++)
        bad += a->acc[i] != accs * (i + 1);
    MP_OK(tern_barrier()); /* read before the next round overwrites */
    return bad;
}

int main(int argc, char **argv)
{
    me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    n = tern_size();
    partner = (me + n / 2) % n; /* on the other simulated node in mixed */
    source = (me - n / 2 + n) % n;
    (void)source;
    MP_OK(tern_alloc_sym(sizeof(area_t), (void **)&area));
    memset(area, 0, sizeof(area_t));
    MP_OK(tern_ad_create(TERN_AT_U64, TERN_OP_ADD, 0, &ad));
    /* Columns of a grid 2 wide hold ranks of one parity: a writer and its
     * partner (n/2 apart) when n/2 is even; else one column of all. */
    MP_OK(tern_team_split_2d(TERN_TEAM_WORLD, (n / 2) % 2 == 0 ? 2 : 1, NULL, &col));
    MP_OK(tern_barrier());

    static const int modes[] = {TERN_ORDER_PARTIAL, TERN_ORDER_NONE, 0};
    static const char *const mode_name[] = {"partial", "none", "default (TERN_ORDER)"};
    int round = 0, failed = 0;
    for (int m = 0; m < 3; m++) {
        tern_ctx_t ctx = TERN_CTX_DEFAULT;
        if (modes[m])
            MP_OK(tern_ctx_create(modes[m], &ctx));
        for (int kind = 0; kind < 2 * NBAR; kind++) {
            int bad_rounds = 0, acc_only = kind >= NBAR;
            for (int r = 0; r < ROUNDS; r++)
                bad_rounds += round_trip(ctx, ++round, kind % NBAR, acc_only) != 0;
            if (bad_rounds) {
                fprintf(
                    stderr,
                    "rank %d: %s context, %s%s: %d of %d rounds read before the writes "
                    "of rank %d were complete\n",
                    me, mode_name[m], bar_name[kind % NBAR],
                    acc_only ? " (accumulates only)" : "", bad_rounds, ROUNDS, source);
                failed = 1;
            }
        }
        if (modes[m])
            MP_OK(tern_ctx_destroy(ctx));
    }
    MP_CHECK(!failed, "a barrier left early-returned writes incomplete");
    MP_OK(tern_team_destroy(col));
    MP_OK(tern_ad_destroy(ad));
    MP_OK(tern_free_sym(area));
    return mp_finish("barrier_early");
}
