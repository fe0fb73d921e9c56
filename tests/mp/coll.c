/* Teams and collectives: every collective on the world team, the node team
 * and split teams whose ranks are not contiguous (strided, 2-D rows and
 * columns), with data checked element by element on every member; the
 * split teams of one split run their collectives at the same time
 * (disjoint teams, concurrent). Reduction inputs are small integers, so
 * every result is exact in every type (tolerance 0); one floating sum of
 * inexact values is compared with a relative tolerance of 1e-12 and
 * checked to be the same bits on every member. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_util.h"

static char *sym_src, *sym_dst; /* symmetric, BUF bytes each */
#define BUF (1 << 19)

/* The parts of check_team to run: all of them, or those named in the
 * program's argument ("allreduce"), for the tests whose settings only
 * change what one collective does (coll.cmake). */
enum { PART_BARRIER = 1, PART_BCAST = 2, PART_ALLREDUCE = 4, PART_EXCHANGE = 8 };
static unsigned parts = PART_BARRIER | PART_BCAST | PART_ALLREDUCE | PART_EXCHANGE;

static const size_t tsize[TERN_TYPE_COUNT_] = {
    1, 1, 2, 2, 4, 4, 8, 8, sizeof(float), sizeof(double), sizeof(long double)};

static int is_float(int type)
{
    return type >= TERN_TYPE_FLOAT;
}
static int is_signed(int type)
{
    return type <= TERN_TYPE_UINT64 ? type % 2 == 0 : 1;
}

static void set_val(int type, void *b, size_t i, int64_t v)
{
    switch (type) {
    case TERN_TYPE_INT8: ((int8_t *)b)[i] = (int8_t)v; break;
    case TERN_TYPE_UINT8: ((uint8_t *)b)[i] = (uint8_t)v; break;
    case TERN_TYPE_INT16: ((int16_t *)b)[i] = (int16_t)v; break;
    case TERN_TYPE_UINT16: ((uint16_t *)b)[i] = (uint16_t)v; break;
    case TERN_TYPE_INT32: ((int32_t *)b)[i] = (int32_t)v; break;
    case TERN_TYPE_UINT32: ((uint32_t *)b)[i] = (uint32_t)v; break;
    case TERN_TYPE_INT64: ((int64_t *)b)[i] = v; break;
    case TERN_TYPE_UINT64: ((uint64_t *)b)[i] = (uint64_t)v; break;
    case TERN_TYPE_FLOAT: ((float *)b)[i] = (float)v; break;
    case TERN_TYPE_DOUBLE: ((double *)b)[i] = (double)v; break;
    default: ((long double *)b)[i] = (long double)v; break;
    }
}

static int64_t get_val(int type, const void *b, size_t i)
{
    switch (type) {
    case TERN_TYPE_INT8: return ((const int8_t *)b)[i];
    case TERN_TYPE_UINT8: return ((const uint8_t *)b)[i];
    case TERN_TYPE_INT16: return ((const int16_t *)b)[i];
    case TERN_TYPE_UINT16: return ((const uint16_t *)b)[i];
    case TERN_TYPE_INT32: return ((const int32_t *)b)[i];
    case TERN_TYPE_UINT32: return ((const uint32_t *)b)[i];
    case TERN_TYPE_INT64: return ((const int64_t *)b)[i];
    case TERN_TYPE_UINT64: return (int64_t)((const uint64_t *)b)[i];
    case TERN_TYPE_FLOAT: return (int64_t)((const float *)b)[i];
    case TERN_TYPE_DOUBLE: return (int64_t)((const double *)b)[i];
    default: return (int64_t)((const long double *)b)[i];
    }
}

/* Input of member r at index i: small enough that no result overflows
 * the narrowest type with 16 members. */
static int64_t input(int type, int op, int r, size_t i)
{
    int sg = is_signed(type);
    switch (op) {
    case TERN_RED_SUM: return (int64_t)((r * 7 + i * 3) % 11) - (sg ? 5 : 0);
    case TERN_RED_PROD:
        if ((r + i) % 4 == 0)
            return 2;
        return sg && (r + i) % 5 == 0 ? -1 : 1;
    case TERN_RED_MIN:
    case TERN_RED_MAX: return (int64_t)((r * 37 + i * 11) % 101) - (sg ? 50 : 0);
    default: {
        uint64_t bits = (uint64_t)(r + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)i * 0x3bull;
        return (int64_t)(bits >> (64 - 8 * tsize[type]));
    }
    }
}

/* The period in i of input(type, op, r, i), the same for every r, or 0
 * for the bitwise operations' hashed bits, which have none: i * 3 % 11,
 * (r + i) % 4 and % 5, i * 11 % 101. The expected result of an allreduce
 * at index i is then the one at i mod the period, computed once. */
#define INPUT_PERIOD_MAX 101
static size_t input_period(int op)
{
    switch (op) {
    case TERN_RED_SUM: return 11;
    case TERN_RED_PROD: return 20;
    case TERN_RED_MIN:
    case TERN_RED_MAX: return 101;
    default: return 0;
    }
}

static int64_t combine(int op, int64_t a, int64_t b)
{
    switch (op) {
    case TERN_RED_SUM: return a + b;
    case TERN_RED_PROD: return a * b;
    case TERN_RED_MIN: return b < a ? b : a;
    case TERN_RED_MAX: return b > a ? b : a;
    case TERN_RED_AND: return a & b;
    case TERN_RED_OR: return a | b;
    default: return a ^ b;
    }
}

/* The expected result of an allreduce of n members at index i, as the
 * type holds it (bit patterns compared within its width: the value goes
 * through the type). */
static int64_t allreduce_want(int type, int op, int n, size_t i)
{
    int64_t want = input(type, op, 0, i);
    for (int r = 1; r < n; r++)
        want = combine(op, want, input(type, op, r, i));
    set_val(type, sym_dst + BUF / 2, 0, want);
    return get_val(type, sym_dst + BUF / 2, 0);
}

static void check_allreduce(tern_team_t team, const char *tname, int type, int op,
                            size_t count, int inplace)
{
    int me = tern_team_rank(team), n = tern_team_size(team);
    char *dst = inplace ? sym_src : sym_dst;
    for (size_t i = 0; i < count; i++) {
        set_val(type, sym_src, i, input(type, op, me, i));
        if (!inplace)
            set_val(type, sym_dst, i, 99);
    }
    MP_OK(tern_allreduce(team, dst, sym_src, count, type, op));
    /* Every element against its expected value: from the table of one
     * period, or computed where the inputs have none. */
    size_t period = input_period(op), j = 0;
    int64_t want_at[INPUT_PERIOD_MAX];
    for (size_t k = 0; k < period && k < count; k++)
        want_at[k] = allreduce_want(type, op, n, k);
    for (size_t i = 0; i < count; i++) {
        int64_t want = period ? want_at[j] : allreduce_want(type, op, n, i);
        if (period && ++j == period)
            j = 0;
        int64_t got = get_val(type, dst, i);
        MP_CHECK(got == want,
                 "%s: allreduce type %d op %d count %zu%s: [%zu] = %lld, expected %lld",
                 tname, type, op, count, inplace ? " in place" : "", i, (long long)got,
                 (long long)want);
    }
    MP_OK(tern_team_barrier(team)); /* sym_src is reused at once */
}

static void check_float_sum(tern_team_t team, const char *tname, size_t count)
{
    int me = tern_team_rank(team), n = tern_team_size(team);
    double *src = (double *)sym_src, *dst = (double *)sym_dst;
    for (size_t i = 0; i < count; i++)
        src[i] = 0.1 * (me + 1) * (double)(i + 1) + 1e-3 / (me + 1);
    MP_OK(tern_allreduce(team, dst, src, count, TERN_TYPE_DOUBLE, TERN_RED_SUM));
    for (size_t i = 0; i < count; i++) {
        double want = 0;
        for (int r = 0; r < n; r++)
            want += 0.1 * (r + 1) * (double)(i + 1) + 1e-3 / (r + 1);
        MP_CHECK(fabs(dst[i] - want) <= 1e-12 * fabs(want),
                 "%s: double sum [%zu] = %.17g, "
                 "expected %.17g within 1e-12 relative",
                 tname, i, dst[i], want);
    }
    /* The same bits everywhere: gather every member's first and last. */
    double *mine = (double *)(sym_src + BUF / 2), *all = (double *)(sym_dst + BUF / 2);
    mine[0] = dst[0];
    mine[1] = dst[count - 1];
    MP_OK(tern_fcollect(team, all, mine, 2 * sizeof(double)));
    for (int r = 0; r < n; r++)
        MP_CHECK(memcmp(&all[2 * r], mine, 2 * sizeof(double)) == 0,
                 "%s: member %d's double sum differs in its bits from this one's", tname,
                 r);
    MP_OK(tern_team_barrier(team));
}

/* Floating min and max of +0 and -0 (equal, different bits), count
 * elements, member r's element i negative when r + i is odd: whichever
 * operand an algorithm keeps, every member must hold the same bits. */
static void check_signed_zeros(tern_team_t team, const char *tname, size_t count)
{
    int me = tern_team_rank(team), n = tern_team_size(team);
    double *src = (double *)sym_src, *dst = (double *)sym_dst;
    for (int op = TERN_RED_MIN; op <= TERN_RED_MAX; op++) {
        for (size_t i = 0; i < count; i++)
            src[i] = (me + i) % 2 ? -0.0 : 0.0;
        MP_OK(tern_allreduce(team, dst, src, count, TERN_TYPE_DOUBLE, op));
        uint64_t h = 0; /* the result's sign bits, element by element */
        for (size_t i = 0; i < count; i++) {
            MP_CHECK(dst[i] == 0.0, "%s: min/max of zeros [%zu] = %g", tname, i, dst[i]);
            h = h * 31 + (signbit(dst[i]) ? 1 : 2);
        }
        uint64_t *mine = (uint64_t *)(sym_src + BUF / 2),
                 *all = (uint64_t *)(sym_dst + BUF / 2);
        mine[0] = h;
        MP_OK(tern_fcollect(team, all, mine, sizeof(uint64_t)));
        for (int r = 0; r < n; r++)
            MP_CHECK(all[r] == h,
                     "%s: op %d of signed zeros (%zu): member %d's bits differ from "
                     "this one's",
                     tname, op, count, r);
        MP_OK(tern_team_barrier(team));
    }
}

/* A size variable as the library reads it (digits with an optional K or
 * M), or def when unset. */
static size_t env_size(const char *name, size_t def)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return def;
    char *end;
    size_t b = strtoull(v, &end, 10);
    if (*end == 'K' || *end == 'k')
        b <<= 10;
    else if (*end == 'M' || *end == 'm')
        b <<= 20;
    return b;
}

/* TERN_COLL_EAGER as the library reads it, rounded up to 64 bytes, or its
 * default: the bound of the eager collectives across nodes. */
static size_t eager_bound(void)
{
    return (env_size("TERN_COLL_EAGER", 16384) + 63) & ~(size_t)63;
}

/* tern_broadcast_flags with TERN_BCAST_KEEP_ROOT of nb bytes from root:
 * every other member's dest gets the root's src, the root's dest keeps
 * the pattern it held, and the byte after nb is untouched everywhere,
 * each checked byte by byte on this member. No barrier: dest is written
 * here before the call, which every member enters before a member writes
 * its dest. */
static void check_keep_root(tern_team_t team, const char *tname, size_t nb, int root,
                            unsigned tag)
{
    int me = tern_team_rank(team);
    for (size_t i = 0; i < nb; i++)
        sym_src[i] = (char)mp_pattern(me, i, tag);
    for (size_t i = 0; i <= nb; i++)
        sym_dst[i] = (char)~mp_pattern(me, i, tag);
    MP_OK(tern_broadcast_flags(team, sym_dst, sym_src, nb, root, TERN_BCAST_KEEP_ROOT));
    for (size_t i = 0; i <= nb; i++) {
        unsigned char want = me != root && i < nb
                                 ? mp_pattern(root, i, tag)
                                 : (unsigned char)~mp_pattern(me, i, tag);
        MP_CHECK((unsigned char)sym_dst[i] == want,
                 "%s: keep-root broadcast root %d of %zu B: byte %zu on member %d is "
                 "0x%02x, not 0x%02x",
                 tname, root, nb, i, me, (unsigned char)sym_dst[i], want);
    }
}

/* Call `it` of a loop of broadcasts without barriers (what names the
 * loop): nb bytes from root, the pattern of root and pat, this member
 * sleeping late_us first (0: not late); every byte checked before the
 * next call reuses dest. */
static void bcast_call(tern_team_t team, const char *tname, const char *what, int it,
                       int root, size_t nb, unsigned pat, unsigned late_us)
{
    int me = tern_team_rank(team);
    for (size_t i = 0; i < nb; i++)
        sym_src[i] = (char)mp_pattern(me, i, pat);
    if (late_us)
        usleep(late_us);
    MP_OK(tern_broadcast(team, sym_dst, sym_src, nb, root));
    for (size_t i = 0; i < nb; i++)
        MP_CHECK((unsigned char)sym_dst[i] == mp_pattern(root, i, pat),
                 "%s: %s broadcast %d (root %d, %zu B): byte %zu", tname, what, it, root,
                 nb, i);
}

/* Microseconds that fcollect_call and alltoall_call sleep between the
 * call's return and the check of dest (0: none): a member that reads its
 * result late while the others are already in the next call. */
static unsigned check_late_us;

/* Call `it` of a loop of exchanges without barriers (what names the
 * loop): an fcollect of nb bytes per member, the pattern of each member
 * and pat, every byte checked (after check_late_us). */
static void fcollect_call(tern_team_t team, const char *tname, const char *what, int it,
                          size_t nb, unsigned pat)
{
    int me = tern_team_rank(team), n = tern_team_size(team);
    for (size_t i = 0; i < nb; i++)
        sym_src[i] = (char)mp_pattern(me, i, pat);
    MP_OK(tern_fcollect(team, sym_dst, sym_src, nb));
    if (check_late_us)
        usleep(check_late_us);
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < nb; i++)
            MP_CHECK((unsigned char)sym_dst[(size_t)r * nb + i] == mp_pattern(r, i, pat),
                     "%s: %s exchange %d, fcollect %zu B: member %d byte %zu", tname,
                     what, it, nb, r, i);
}

/* The same for an all-to-all: block j for member j carries pat + j. */
static void alltoall_call(tern_team_t team, const char *tname, const char *what, int it,
                          size_t nb, unsigned pat)
{
    int me = tern_team_rank(team), n = tern_team_size(team);
    for (int j = 0; j < n; j++)
        for (size_t i = 0; i < nb; i++)
            sym_src[(size_t)j * nb + i] = (char)mp_pattern(me, i, pat + (unsigned)j);
    MP_OK(tern_alltoall(team, sym_dst, sym_src, nb));
    if (check_late_us)
        usleep(check_late_us);
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < nb; i++)
            MP_CHECK((unsigned char)sym_dst[(size_t)r * nb + i] ==
                         mp_pattern(r, i, pat + (unsigned)me),
                     "%s: %s exchange %d, alltoall %zu B: block from member %d byte %zu",
                     tname, what, it, nb, r, i);
}

/* One broadcast of nb bytes from root, one fcollect and one all-to-all of
 * nb bytes per member, each checked byte by byte on this member. */
static void check_sized(tern_team_t team, const char *tname, size_t nb, int root,
                        unsigned tag)
{
    int me = tern_team_rank(team);
    for (size_t i = 0; i < nb; i++)
        sym_src[i] = (char)mp_pattern(me, i, tag);
    memset(sym_dst, 0xee, nb);
    MP_OK(tern_broadcast(team, sym_dst, sym_src, nb, root));
    for (size_t i = 0; i < nb; i++)
        MP_CHECK((unsigned char)sym_dst[i] == mp_pattern(root, i, tag),
                 "%s: broadcast root %d of %zu B: byte %zu", tname, root, nb, i);
    fcollect_call(team, tname, "sized", 0, nb, tag);
    MP_OK(tern_team_barrier(team)); /* src is rewritten */
    alltoall_call(team, tname, "sized", 0, nb, tag);
    MP_OK(tern_team_barrier(team));
}

static void check_barriers(tern_team_t team, const char *tname)
{
    int me = tern_team_rank(team), n = tern_team_size(team);
    /* Barrier: each member writes the round into its slot on every member. */
    uint64_t *slots = (uint64_t *)sym_dst;
    for (uint64_t round = 1; round <= 20; round++) {
        for (int p = 0; p < n; p++) {
            int g = tern_team_translate(team, p, TERN_TEAM_WORLD);
            MP_OK(tern_put(g, tern_sym_addr(g, &slots[me]), &round, sizeof(round), 0));
        }
        MP_OK(tern_team_barrier(team));
        for (int p = 0; p < n; p++)
            MP_CHECK(slots[p] == round, "%s: barrier round %llu: slot %d holds %llu",
                     tname, (unsigned long long)round, p, (unsigned long long)slots[p]);
        MP_OK(tern_team_barrier(team));
    }

    /* Non-blocking barrier: the same check, completed by a wait or by
     * testing until done (which polls). */
    for (uint64_t round = 21; round <= 30; round++) {
        for (int p = 0; p < n; p++) {
            int g = tern_team_translate(team, p, TERN_TEAM_WORLD);
            MP_OK(tern_put(g, tern_sym_addr(g, &slots[me]), &round, sizeof(round), 0));
        }
        tern_event_t ev;
        MP_OK(tern_team_barrier_nb(team, &ev));
        if (round % 2) {
            MP_OK(tern_event_wait(ev));
        } else {
            int rc;
            while ((rc = tern_event_test(ev)) == TERN_INPROGRESS)
                ;
            MP_OK(rc);
        }
        for (int p = 0; p < n; p++)
            MP_CHECK(slots[p] == round, "%s: nb barrier round %llu: slot %d holds %llu",
                     tname, (unsigned long long)round, p, (unsigned long long)slots[p]);
        MP_OK(tern_team_barrier(team));
    }
    /* A barrier at once after an eager fcollect, one member late each
     * time: the others' data messages and then their barrier flags
     * (unacknowledged RMA writes to network members, core/coll_sync.c)
     * reach it close together. Its wait for data must see only the data
     * message's flag, whose handler may run after the later write landed. */
    for (int it = 0; it < 12; it++) {
        size_t nb = it % 2 ? 8 : 200;
        for (size_t i = 0; i < nb; i++)
            sym_src[i] = (char)mp_pattern(me, i, (unsigned)(100 + it));
        if (me == it % n)
            usleep(2000);
        MP_OK(tern_fcollect(team, sym_dst, sym_src, nb));
        MP_OK(tern_team_barrier(team));
        for (int r = 0; r < n; r++)
            for (size_t i = 0; i < nb; i++)
                MP_CHECK((unsigned char)sym_dst[(size_t)r * nb + i] ==
                             mp_pattern(r, i, (unsigned)(100 + it)),
                         "%s: fcollect %d (%zu B) then barrier: member %d byte %zu",
                         tname, it, nb, r, i);
        /* An eager broadcast's root does not wait for its receivers: its
         * data message and its barrier write leave back to back. */
        int root = (it + 1) % n;
        size_t bn = it % 2 ? 8 : 4000;
        for (size_t i = 0; i < bn; i++)
            sym_src[i] = (char)mp_pattern(me, i, (unsigned)(200 + it));
        if (me == it % n && me != root)
            usleep(2000);
        MP_OK(tern_broadcast(team, sym_dst, sym_src, bn, root));
        MP_OK(tern_team_barrier(team));
        for (size_t i = 0; i < bn; i++)
            MP_CHECK((unsigned char)sym_dst[i] ==
                         mp_pattern(root, i, (unsigned)(200 + it)),
                     "%s: broadcast %d (%zu B) from %d then barrier: byte %zu", tname, it,
                     bn, root, i);
        MP_OK(tern_team_barrier(team)); /* sym_src is rewritten */
    }
    MP_OK(tern_team_barrier(team));
}

static void check_bcasts(tern_team_t team, const char *tname)
{
    int me = tern_team_rank(team), n = tern_team_size(team);
    /* Broadcast from every root, small and large (and into src on root). */
    static const size_t bsz[] = {1, 8, 1000, 100000};
    for (int root = 0; root < n; root++)
        for (size_t k = 0; k < sizeof(bsz) / sizeof(bsz[0]); k++) {
            size_t nb = bsz[k];
            for (size_t i = 0; i < nb; i++) {
                sym_src[i] = (char)mp_pattern(me, i, (unsigned)(root + k));
                sym_dst[i] = (char)0xee;
            }
            MP_OK(tern_broadcast(team, sym_dst, sym_src, nb, root));
            for (size_t i = 0; i < nb; i++)
                MP_CHECK((unsigned char)sym_dst[i] ==
                             mp_pattern(root, i, (unsigned)(root + k)),
                         "%s: broadcast root %d of %zu B: byte %zu", tname, root, nb, i);
            MP_OK(tern_team_barrier(team));
        }

    /* The root's dest left as it was (TERN_BCAST_KEEP_ROOT), from every
     * root, back to back: around the node team's switches (quarters up to
     * 12 bytes, lines of 60, TN_COLL_FAST 1024, then barriers), eager and
     * pipelined across nodes (100000 B from the last root only: the bounds
     * below take the larger sizes from several); and with dest == src on
     * every member. */
    static const size_t ksz[] = {1, 8, 12, 13, 60, 61, 1024, 1025, 100000};
    for (int root = 0; root < n; root++)
        for (size_t k = 0; k < sizeof(ksz) / sizeof(ksz[0]); k++)
            if (ksz[k] < 100000 || root == n - 1)
                check_keep_root(team, tname, ksz[k], root, (unsigned)(50 + root + k));
    for (size_t i = 0; i < 300; i++)
        sym_dst[i] = (char)mp_pattern(me, i, 77);
    MP_OK(tern_broadcast_flags(team, sym_dst, sym_dst, 300, n - 1, TERN_BCAST_KEEP_ROOT));
    for (size_t i = 0; i < 300; i++)
        MP_CHECK((unsigned char)sym_dst[i] == mp_pattern(n - 1, i, 77),
                 "%s: in-place keep-root broadcast: byte %zu", tname, i);
    MP_OK(tern_team_barrier(team));

    /* Back to back, no barrier between: rotating roots, small and large,
     * each checked before the next call reuses dest (as OpenSHMEM allows). */
    for (int it = 0; it < 60; it++) {
        size_t nb = it % 3 == 2 ? 9000 : (size_t)(it % 50) + 1;
        bcast_call(team, tname, "back-to-back", it, it % n, nb, (unsigned)it, 0);
    }
    /* One root far ahead: a team on one node claims lines of the root's
     * broadcast area call after call (core/coll_node.c), wrapping at its
     * end with mixed sizes, and reuses lines while a member lags. */
    for (int it = 0; it < 240; it++) {
        static const size_t lsz[] = {8, 64, 65, 700, 1024, 1, 129, 60, 61, 120, 121};
        int root = (it / 80) % n;
        int late = me == (root + 1) % n && it % 37 == 5;
        bcast_call(team, tname, "run-ahead", it, root, lsz[it % 11], (unsigned)(300 + it),
                   late ? 1000 : 0);
    }
    /* Small broadcasts whose root changes call after call, without a
     * barrier: every root's lines (60 bytes and a stamp each) wrap many
     * times, a member reads one root's stamps while another root's lines
     * are being rewritten, and a lagging member finds many calls of
     * several roots waiting for it. */
    for (int it = 0; it < 400; it++) {
        static const size_t csz[] = {8, 60, 1, 240, 61, 16, 1024, 8, 180};
        int root = (it * 7 + it / 5) % n;
        int late = me == (it / 50) % n && it % 50 == 17;
        bcast_call(team, tname, "changing-root", it, root, csz[it % 9],
                   (unsigned)(600 + it), late ? 1000 : 0);
    }
    /* Eager broadcasts back to back across nodes, around the eager and
     * Medium bounds, the root changing every call and a member late now
     * and then: about 3 MiB of claims, so the ring (the world team's
     * TERN_COLL_WORLD_RING, 512 KiB; 32 KiB for the others) wraps several
     * times and a late member is passed by many calls. Above 16 KiB the
     * world team's calls are eager by puts (up to 64 KiB), the other
     * teams' pipelined. */
    for (int it = 0; it < 150; it++) {
        static const size_t esz[] = {4095, 4096,  4097, 16384, 16383, 1000,  16385,
                                     8192, 65536, 8193, 32768, 64,    65535, 32769};
        int root = (it * 3 + it / 7) % n;
        int late = me == (it / 30 + 1) % n && it % 30 == 13;
        bcast_call(team, tname, "ring-wrapping", it, root, esz[it % 14],
                   (unsigned)(1100 + it), late ? 1500 : 0);
    }
}

static void check_allreduces(tern_team_t team, const char *tname)
{
    int me = tern_team_rank(team), n = tern_team_size(team);
    /* Small exchanges back to back without a barrier: allreduce, fcollect
     * and all-to-all whose src is up to 120 bytes go through the stamped
     * exchange slots of a team on one node (60 bytes per line: blocks
     * across a line's end), in turn with larger ones
     * through the allreduce halves, a member lagging now and then. */
    for (int it = 0; it < 300; it++) {
        static const size_t xsz[] = {8, 56, 24, 200, 8, 60, 1, 16, 61, 120, 121};
        size_t nb = xsz[it % 11];
        unsigned tag = 900 + (unsigned)it;
        if (me == (it / 40) % n && it % 40 == 11)
            usleep(1000);
        if (it % 3 == 0) {
            size_t count = (nb + 7) / 8;
            int64_t *x = (int64_t *)sym_src, *y = (int64_t *)sym_dst;
            for (size_t i = 0; i < count; i++)
                x[i] = (int64_t)(me + 1) * (it + 1) + (int64_t)i;
            MP_OK(tern_allreduce(team, y, x, count, TERN_TYPE_INT64, TERN_RED_SUM));
            for (size_t i = 0; i < count; i++)
                MP_CHECK(y[i] == (int64_t)n * (n + 1) / 2 * (it + 1) +
                                     (int64_t)n * (int64_t)i,
                         "%s: small exchange %d, allreduce of %zu: [%zu] = %lld", tname,
                         it, count, i, (long long)y[i]);
        } else if (it % 3 == 1) {
            fcollect_call(team, tname, "small", it, nb, tag);
        } else {
            alltoall_call(team, tname, "small", it, nb, tag);
        }
    }
    /* Small exchanges of teams with one member per node as stamped records
     * (core/coll_eager.c, tn_coll_small_*: up to 112 bytes per record over
     * tcp;ofi_rxm, which grants 128-byte inject writes when asked, 48 where
     * it does not), back to back without a barrier: sizes around the
     * record's limits changing call after call (records of another length
     * at the same ring bytes one ring later), allreduce in place every
     * other time, a member late now and then while its partners already
     * write into its ring for the next call. Fcollect of 4 or more
     * members goes by Bruck's allgather in records where its largest round
     * fits one: up to 14 B per block at 16 members, 28 at 8, 37 at 7, 56
     * at 4 (20 sizes: each meets all three collectives). */
    for (int it = 0; it < 400; it++) {
        static const size_t rsz[] = {1,  48, 7,   49, 8,  112, 40, 113, 47, 111,
                                     16, 14, 104, 15, 56, 28,  4,  29,  37, 38};
        size_t nb = rsz[it % (sizeof(rsz) / sizeof(rsz[0]))];
        unsigned tag = 2000 + (unsigned)it;
        if (me == (it / 50) % n && it % 50 == 17)
            usleep(1500);
        if (it % 3 == 0) {
            size_t count = (nb + 3) / 4;
            int32_t *x = (int32_t *)sym_src, *y = it % 2 ? x : (int32_t *)sym_dst;
            for (size_t i = 0; i < count; i++)
                x[i] = (int32_t)((me + 1) * (it + 1)) - (int32_t)i * me;
            MP_OK(tern_allreduce(team, y, x, count, TERN_TYPE_INT32, TERN_RED_SUM));
            for (size_t i = 0; i < count; i++)
                MP_CHECK(y[i] == (int32_t)(n * (n + 1) / 2 * (it + 1)) -
                                     (int32_t)i * (int32_t)(n * (n - 1) / 2),
                         "%s: record exchange %d, allreduce of %zu int32%s: [%zu] = %d",
                         tname, it, count, y == x ? " in place" : "", i, (int)y[i]);
        } else if (it % 3 == 1) {
            fcollect_call(team, tname, "record", it, nb, tag);
        } else {
            alltoall_call(team, tname, "record", it, nb, tag);
        }
    }
    for (int it = 0; it < 60; it++) {
        static const size_t bcount[] = {3, 3, 5000, 512, 3, 1024, 200};
        size_t count = bcount[it % 7]; /* 24 B to 40000 B, 4 and 8 KiB */
        int64_t *x = (int64_t *)sym_src, *y = (int64_t *)sym_dst;
        for (size_t i = 0; i < count; i++)
            x[i] = (int64_t)(me + 1) * (it + 1) + (int64_t)i;
        MP_OK(tern_allreduce(team, y, x, count, TERN_TYPE_INT64, TERN_RED_SUM));
        for (size_t i = 0; i < count; i++)
            MP_CHECK(y[i] ==
                         (int64_t)n * (n + 1) / 2 * (it + 1) + (int64_t)n * (int64_t)i,
                     "%s: back-to-back allreduce %d: [%zu] = %lld", tname, it, i,
                     (long long)y[i]);
    }
    /* Back to back around one Medium message (TERN_AM_MEDIUM_MAX, 8 KiB):
     * above it a region to a member across nodes goes as one write that
     * raises its flag (put_ordered), below as one message; the partner's
     * next write lands in this member's ring while it still combines, and
     * its own source (dest, in place every other call) changes only after
     * its write completed locally. A member late now and then. */
    for (int it = 0; it < 48; it++) {
        static const size_t mcount[] = {1024, 1025, 1536, 2048, 2049, 4097};
        size_t count = mcount[it % 6];
        int64_t *x = (int64_t *)sym_src, *y = (it / 6) % 2 ? x : (int64_t *)sym_dst;
        for (size_t i = 0; i < count; i++)
            x[i] = (int64_t)(me + 1) * (it + 1) + (int64_t)i;
        if (me == it % n && it % 5 == 2)
            usleep(300);
        MP_OK(tern_allreduce(team, y, x, count, TERN_TYPE_INT64, TERN_RED_SUM));
        for (size_t i = 0; i < count; i++)
            MP_CHECK(
                y[i] == (int64_t)n * (n + 1) / 2 * (it + 1) + (int64_t)n * (int64_t)i,
                "%s: back-to-back allreduce %d around the Medium size (%zu x 8 B%s): "
                "[%zu] = %lld",
                tname, it, count, y == x ? ", in place" : "", i, (long long)y[i]);
    }
    /* Back to back, claims of more than half the eager ring (2 members
     * across nodes: one region of 20000 B in the 32 KiB ring): an exchange
     * moves the ring's mark to its own claim only, so no two of these fit
     * the ring together and each one waits for the team first. */
    for (int it = 0; it < 30; it++) {
        size_t count = 2500;
        int64_t *x = (int64_t *)sym_src, *y = (int64_t *)sym_dst;
        for (size_t i = 0; i < count; i++)
            x[i] = (int64_t)(me + 1) * (it + 1) + (int64_t)i;
        if (me == it % n && it % 7 == 3)
            usleep(500);
        MP_OK(tern_allreduce(team, y, x, count, TERN_TYPE_INT64, TERN_RED_SUM));
        for (size_t i = 0; i < count; i++)
            MP_CHECK(y[i] ==
                         (int64_t)n * (n + 1) / 2 * (it + 1) + (int64_t)n * (int64_t)i,
                     "%s: back-to-back 20000 B allreduce %d: [%zu] = %lld", tname, it, i,
                     (long long)y[i]);
    }
    MP_OK(tern_team_barrier(team));

    /* Back to back above TERN_COLL_TREE_MAX (recursive halving and
     * doubling for 2^k members across nodes, else the ring), odd counts
     * (uneven halves) and multiples of 16 (exact halves: the last round an
     * exchange), 2048 and 2049 (16 KiB: half the slots' eager ring, above
     * which 2 members of a split team exchange instead; the world team of 2
     * members each on its own node stays eager in its own ring up to
     * TERN_COLL_TREE_MAX), half of them in place, each result checked
     * before the next call reuses dest, a member late now and then: a
     * partner that is ahead writes into this member's dest and ring. */
    for (int it = 0; it < 32; it++) {
        static const size_t acount[] = {8193, 8192, 5001, 4096, 32769, 32768, 2049, 2048};
        size_t count = acount[it % 8];
        int64_t *x = (int64_t *)sym_src, *y = (it / 8) % 2 ? x : (int64_t *)sym_dst;
        for (size_t i = 0; i < count; i++)
            x[i] = (int64_t)(me + 1) * (it + 1) - (int64_t)i * (me % 3);
        if (me == (it * 5) % n && it % 4 == 1)
            usleep(700);
        MP_OK(tern_allreduce(team, y, x, count, TERN_TYPE_INT64, TERN_RED_SUM));
        int64_t thirds = 0; /* sum of r % 3 over the members */
        for (int r = 0; r < n; r++)
            thirds += r % 3;
        for (size_t i = 0; i < count; i++)
            MP_CHECK(y[i] == (int64_t)n * (n + 1) / 2 * (it + 1) - (int64_t)i * thirds,
                     "%s: back-to-back allreduce %d (%zu x 8 B%s): [%zu] = %lld", tname,
                     it, count, y == x ? ", in place" : "", i, (long long)y[i]);
    }
    MP_OK(tern_team_barrier(team));

    /* Every type and operation, a short and a chunked count, in place. */
    for (int type = 0; type < TERN_TYPE_COUNT_; type++)
        for (int op = 0; op < TERN_RED_COUNT_; op++) {
            if (is_float(type) && op >= TERN_RED_AND)
                continue;
            check_allreduce(team, tname, type, op, 7, 0);
            check_allreduce(team, tname, type, op, 3000, op == TERN_RED_SUM);
        }
    check_float_sum(team, tname, 3000); /* more than one scratch chunk */
    check_float_sum(team, tname, 500);  /* 4000 B: eager across nodes */
    check_float_sum(team, tname, 3);
    check_float_sum(team, tname, 9001); /* 72 KiB: halving and doubling */
    check_signed_zeros(team, tname, 9001);
    /* 16 KiB and just above: half the slots' eager ring, the bound of the
     * eager allreduce at 2 members of a split team (above, their
     * exchange). */
    check_float_sum(team, tname, 2048);
    check_float_sum(team, tname, 2049);
    check_signed_zeros(team, tname, 2048);
    check_signed_zeros(team, tname, 2049);
    check_signed_zeros(team, tname, 5);
    /* 4000 B and 8 KiB across nodes: each region one message, combined
     * by its handler straight out of the receive buffer where the member
     * waits already (core/coll_am.c, on_region), in the waiter's order. */
    check_signed_zeros(team, tname, 500);
    check_signed_zeros(team, tname, 1024);

    /* Bytes at and around every bound of the allreduce algorithms: the
     * shared-memory fast area (1 KiB), the pushed tree's region at 2 to 16
     * members (4 KiB, 2 KiB, 1344 B, 1 KiB), the eager ring's fit (2 KiB
     * at 3 and 4 members in the coll_eager_fit test),
     * TERN_COLL_LEADER_MAX (4 KiB: the leader allreduce's bound at 7 and 8
     * members on 2 nodes), the fit of its regions in the default ring
     * (3264 B at 16 members on 2 nodes), the recursive doubling's fit in
     * the default ring (16 KiB at 3 and 4 members of a split team; the
     * world team's takes them to TERN_COLL_TREE_MAX) and TERN_COLL_TREE_MAX
     * (32 KiB, its fit at 2), the ring allreduce's pieces sent as messages
     * up to 16 KiB (2 members: 32 KiB) and as puts above, and a size that
     * takes many pieces and an empty last one in the coll_ring tests. */
    static const size_t rsz[] = {1,     63,    64,    65,    1023,  1024,  1025,  1343,
                                 1344,  1345,  2047,  2048,  2049,  3263,  3264,  3265,
                                 4095,  4096,  4097,  8191,  8192,  8193,  16383, 16384,
                                 16385, 32767, 32768, 32769, 65535, 65536, 65537, 200003};
    for (size_t k = 0; k < sizeof(rsz) / sizeof(rsz[0]); k++)
        check_allreduce(team, tname, TERN_TYPE_UINT8, TERN_RED_SUM, rsz[k], k % 2);
    for (size_t k = 0; k < sizeof(rsz) / sizeof(rsz[0]); k++)
        if (rsz[k] % 8 == 0)
            check_allreduce(team, tname, TERN_TYPE_INT64, TERN_RED_MAX, rsz[k] / 8, 0);
}

static void check_exchanges(tern_team_t team, const char *tname)
{
    int me = tern_team_rank(team), n = tern_team_size(team);
    /* fcollect and collect. */
    static const size_t fsz[] = {8, 1000, 5000};
    for (size_t k = 0; k < 3; k++) {
        size_t nb = fsz[k];
        for (size_t i = 0; i < nb; i++)
            sym_src[i] = (char)mp_pattern(me, i, 7);
        memset(sym_dst, 0xee, nb * (size_t)n);
        MP_OK(tern_fcollect(team, sym_dst, sym_src, nb));
        for (int r = 0; r < n; r++)
            for (size_t i = 0; i < nb; i++)
                MP_CHECK((unsigned char)sym_dst[(size_t)r * nb + i] ==
                             mp_pattern(r, i, 7),
                         "%s: fcollect %zu B: member %d byte %zu", tname, nb, r, i);
        MP_OK(tern_team_barrier(team));
    }
    size_t mine = 3 * (size_t)me + 1;
    for (size_t i = 0; i < mine; i++)
        sym_src[i] = (char)mp_pattern(me, i, 9);
    MP_OK(tern_collect(team, sym_dst, sym_src, mine));
    size_t at = 0;
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < 3 * (size_t)r + 1; i++, at++)
            MP_CHECK((unsigned char)sym_dst[at] == mp_pattern(r, i, 9),
                     "%s: collect: member %d byte %zu", tname, r, i);
    MP_OK(tern_team_barrier(team));

    /* fcollect and all-to-all back to back, no barrier between: more calls
     * than the eager ring has entries (teams across nodes), sizes on both
     * sides of its bound, each checked before the next call. */
    for (int it = 0; it < 40; it++) {
        size_t nb = it % 4 == 3 ? 700 : (size_t)(it % 5) * 4 + 1;
        for (size_t i = 0; i < nb; i++)
            sym_src[i] = (char)mp_pattern(me, i, (unsigned)it);
        MP_OK(tern_fcollect(team, sym_dst, sym_src, nb));
        for (int r = 0; r < n; r++)
            for (size_t i = 0; i < nb; i++)
                MP_CHECK((unsigned char)sym_dst[(size_t)r * nb + i] ==
                             mp_pattern(r, i, (unsigned)it),
                         "%s: back-to-back fcollect %d (%zu B): member %d byte %zu",
                         tname, it, nb, r, i);
        for (int j = 0; j < n; j++)
            for (size_t i = 0; i < nb; i++)
                sym_src[(size_t)j * nb + i] = (char)mp_pattern(me, i, (unsigned)(it + j));
        MP_OK(tern_alltoall(team, sym_dst, sym_src, nb));
        for (int r = 0; r < n; r++)
            for (size_t i = 0; i < nb; i++)
                MP_CHECK((unsigned char)sym_dst[(size_t)r * nb + i] ==
                             mp_pattern(r, i, (unsigned)(it + me)),
                         "%s: back-to-back alltoall %d (%zu B): block from member %d "
                         "byte %zu",
                         tname, it, nb, r, i);
    }
    MP_OK(tern_team_barrier(team));

    /* fcollect and all-to-all of blocks above the Medium limit (8 KiB), back
     * to back without a barrier: teams across nodes push each block by a
     * put with its flag behind it and leave without an exit barrier, so a
     * member's next call (or its rewrite of src) must not reach a member
     * still reading. Now and then one member reads its result 3 ms late
     * while the others go on: a member puts into another's dest only once
     * that one has entered the call (readiness by pairs, no entry
     * barrier). */
    static const size_t lsz[] = {8193, 20000, 9000, 20000};
    for (int it = 0; it < 12; it++) {
        size_t nb = lsz[it % 4];
        unsigned tag = 50 + (unsigned)it;
        check_late_us = it % 3 == 1 && me == (it / 3) % n ? 3000 : 0;
        fcollect_call(team, tname, "back-to-back large", it, nb, tag);
        check_late_us = it % 3 == 2 && me == (it / 3 + 1) % n ? 3000 : 0;
        alltoall_call(team, tname, "back-to-back large", it, nb, tag);
    }
    check_late_us = 0;
    MP_OK(tern_team_barrier(team));

    /* Around the eager bound (TERN_COLL_EAGER, a broadcast's bytes and an
     * fcollect's or all-to-all's whole result) and the Medium limit (8 KiB,
     * where a ring write becomes a put and a flag): one byte under, at and
     * over each, without a barrier between broadcasts of rotating roots. */
    size_t bounds[2] = {eager_bound(), 8192};
    for (int k = 0; k < 2; k++)
        for (size_t d = 0; d < 3; d++) {
            size_t b = bounds[k] + d - 1;
            for (size_t i = 0; i < b; i++)
                sym_src[i] = (char)mp_pattern(me, i, (unsigned)(k + d));
            MP_OK(tern_broadcast(team, sym_dst, sym_src, b, (int)(k + d) % n));
            for (size_t i = 0; i < b; i++)
                MP_CHECK((unsigned char)sym_dst[i] ==
                             mp_pattern((int)(k + d) % n, i, (unsigned)(k + d)),
                         "%s: broadcast of %zu B: byte %zu", tname, b, i);
            check_keep_root(team, tname, b, (int)(k + d + 1) % n, (unsigned)(30 + k + d));
            size_t per = bounds[k] / (size_t)n + d - 1;
            if (per > 0)
                check_sized(team, tname, per, (int)d % n, (unsigned)(10 + k + d));
        }

    /* Around the bounds of the broadcast of teams across nodes: eager
     * (TERN_COLL_BCAST_EAGER), the pipelined tree's chunk
     * (TERN_COLL_PIPE_CHUNK) and chain (TERN_COLL_BCAST_CHAIN), and the
     * messages that carry a ring write with its flag
     * (TERN_COLL_PUT_FLAG_MSGS x TERN_AM_MEDIUM_MAX): one byte under, at
     * and over each, back to back with rotating roots; then more chunks
     * than a child's window of puts in flight (8). */
    size_t chunk = env_size("TERN_COLL_PIPE_CHUNK", 256 << 10);
    size_t pbound[5] = {env_size("TERN_COLL_BCAST_EAGER", 16 << 10), chunk,
                        env_size("TERN_COLL_BCAST_CHAIN", 256 << 10),
                        env_size("TERN_COLL_PUT_FLAG_MSGS", 2) *
                            env_size("TERN_AM_MEDIUM_MAX", 8 << 10),
                        chunk * 20 + 1};
    for (int k = 0; k < 5; k++)
        for (size_t d = 0; d < 3; d++) {
            size_t b = pbound[k] + d - 1;
            if (b == 0 || b > BUF || (k == 4 && d != 1))
                continue;
            int root = (int)(k + d) % n;
            for (size_t i = 0; i < b; i++)
                sym_src[i] = (char)mp_pattern(me, i, (unsigned)(20 + k + d));
            MP_OK(tern_broadcast(team, sym_dst, sym_src, b, root));
            for (size_t i = 0; i < b; i++)
                MP_CHECK((unsigned char)sym_dst[i] ==
                             mp_pattern(root, i, (unsigned)(20 + k + d)),
                         "%s: broadcast of %zu B from %d: byte %zu", tname, b, root, i);
            if (b < BUF)
                check_keep_root(team, tname, b, root, (unsigned)(40 + k + d));
        }
    MP_OK(tern_team_barrier(team));

    /* All-to-all: block j of member i carries (i, j). */
    static const size_t asz[] = {8, 300, 2000};
    for (size_t k = 0; k < 3; k++) {
        size_t nb = asz[k];
        for (int j = 0; j < n; j++)
            for (size_t i = 0; i < nb; i++)
                sym_src[(size_t)j * nb + i] = (char)mp_pattern(me, i, (unsigned)j);
        memset(sym_dst, 0xee, nb * (size_t)n);
        MP_OK(tern_alltoall(team, sym_dst, sym_src, nb));
        for (int r = 0; r < n; r++)
            for (size_t i = 0; i < nb; i++)
                MP_CHECK((unsigned char)sym_dst[(size_t)r * nb + i] ==
                             mp_pattern(r, i, (unsigned)me),
                         "%s: alltoall %zu B: block from member %d byte %zu", tname, nb,
                         r, i);
        MP_OK(tern_team_barrier(team));
    }
}

static void check_team(tern_team_t team, const char *tname)
{
    int me = tern_team_rank(team), n = tern_team_size(team);
    MP_CHECK(me >= 0 && me < n, "%s: team rank %d of %d", tname, me, n);
    MP_CHECK(tern_team_translate(team, me, TERN_TEAM_WORLD) == tern_rank(),
             "%s: team rank %d translates to world rank %d, not %d", tname, me,
             tern_team_translate(team, me, TERN_TEAM_WORLD), tern_rank());
    MP_CHECK(tern_team_translate(TERN_TEAM_WORLD, tern_rank(), team) == me,
             "%s: world rank does not translate back", tname);

    if (parts & PART_BARRIER)
        check_barriers(team, tname);
    /* One left pending: the next collective completes it first. */
    tern_event_t pending;
    MP_OK(tern_team_barrier_nb(team, &pending));
    if (parts & PART_BCAST)
        check_bcasts(team, tname);
    if (parts & PART_ALLREDUCE)
        check_allreduces(team, tname);
    if (parts & PART_EXCHANGE)
        check_exchanges(team, tname);
    MP_OK(tern_event_wait(pending)); /* completed by the collectives above */
    MP_OK(tern_team_barrier(team));
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    if (argc > 1) {
        static const struct {
            const char *name;
            unsigned part;
        } names[] = {{"barrier", PART_BARRIER},
                     {"bcast", PART_BCAST},
                     {"allreduce", PART_ALLREDUCE},
                     {"exchange", PART_EXCHANGE}};
        parts = 0;
        for (int a = 1; a < argc; a++) {
            unsigned part = 0;
            for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
                if (strcmp(argv[a], names[k].name) == 0)
                    part = names[k].part;
            MP_CHECK(part != 0, "unknown part '%s' (barrier, bcast, allreduce, exchange)",
                     argv[a]);
            parts |= part;
        }
    }
    MP_OK(tern_alloc_sym(BUF, (void **)&sym_src));
    MP_OK(tern_alloc_sym(BUF, (void **)&sym_dst));
    MP_CHECK(tern_team_size(TERN_TEAM_WORLD) == n &&
                 tern_team_rank(TERN_TEAM_WORLD) == me,
             "world team: rank %d size %d", tern_team_rank(TERN_TEAM_WORLD),
             tern_team_size(TERN_TEAM_WORLD));
    /* The node team: exactly the ranks whose segments are mapped here. */
    int mapped = 0;
    for (int r = 0; r < n; r++) {
        int t = tern_team_translate(TERN_TEAM_WORLD, r, TERN_TEAM_NODE);
        MP_CHECK((t >= 0) == mp_mapped(r), "rank %d: node team rank %d, mapped %d", r, t,
                 mp_mapped(r));
        mapped += mp_mapped(r);
    }
    MP_CHECK(tern_team_size(TERN_TEAM_NODE) == mapped, "node team of %d, %d mapped",
             tern_team_size(TERN_TEAM_NODE), mapped);
    /* Under mpirun with scripts/mpirun-nodes.sh: the simulated nodes took. */
    const char *want_nodes = getenv("MP_EXPECT_NODES");
    if (want_nodes)
        MP_CHECK(tern_node_count() == atoi(want_nodes), "%d nodes, expected %s",
                 tern_node_count(), want_nodes);
    check_team(TERN_TEAM_WORLD, "world");
    check_team(TERN_TEAM_NODE, "node");

    /* Even and odd ranks: disjoint, non-contiguous, run at the same time. */
    tern_team_t evens, odds = TERN_TEAM_INVALID;
    MP_OK(tern_team_split_strided(TERN_TEAM_WORLD, 0, 2, (n + 1) / 2, &evens));
    if (n > 1)
        MP_OK(tern_team_split_strided(TERN_TEAM_WORLD, 1, 2, n / 2, &odds));
    MP_CHECK((evens != TERN_TEAM_INVALID) == (me % 2 == 0), "evens membership");
    if (me % 2 == 0) {
        MP_CHECK(tern_team_size(evens) == (n + 1) / 2, "evens size %d",
                 tern_team_size(evens));
        check_team(evens, "evens");
    } else {
        MP_CHECK(odds != TERN_TEAM_INVALID && tern_team_size(odds) == n / 2, "odds");
        check_team(odds, "odds");
    }
    MP_OK(tern_barrier());
    MP_OK(tern_team_destroy(evens));
    MP_OK(tern_team_destroy(odds)); /* TERN_TEAM_INVALID: a no-op */

    /* Ranks 1, 4, 7, ...: stride 3. */
    if (n >= 3) {
        tern_team_t every3;
        MP_OK(tern_team_split_strided(TERN_TEAM_WORLD, 1, 3, (n - 1 + 2) / 3, &every3));
        if (every3 != TERN_TEAM_INVALID) {
            MP_CHECK((me - 1) % 3 == 0, "rank %d in the stride-3 team", me);
            check_team(every3, "stride3");
        }
        MP_OK(tern_team_destroy(every3));
    }

    /* 2-D: rows of 2 (or 3) columns; rows run at the same time, then
     * columns. */
    int xr = n % 3 == 0 ? 3 : 2;
    tern_team_t row, col;
    MP_OK(tern_team_split_2d(TERN_TEAM_WORLD, xr, &row, &col));
    MP_CHECK(tern_team_rank(row) == me % xr && tern_team_rank(col) == me / xr,
             "2-D split: row rank %d, column rank %d", tern_team_rank(row),
             tern_team_rank(col));
    check_team(row, "row");
    MP_OK(tern_barrier()); /* the column tests write into other rows' buffers */
    check_team(col, "column");
    MP_CHECK(tern_team_translate(row, 0, col) == (me % xr == 0 ? me / xr : -1),
             "translate row 0 to column");
    MP_OK(tern_team_destroy(row));
    MP_OK(tern_team_destroy(col));
    return mp_finish("coll");
}
