/* Global and static variables as symmetric data objects: globals and
 * function-local statics of several types and sizes, in the data (with
 * initial values, which must survive shmem_init) and in the bss (a 3 MiB
 * array among them), reached with put, get, p, g, iput, iget, put_nbi,
 * get_nbi, AMOs, put_signal, a lock, team collectives and the deprecated
 * active-set forms with pSync and pWrk as globals; shmem_ptr and
 * shmem_addr_accessible on globals. Byte-exact, with every PE writing to
 * its right neighbour. */
#include <stdint.h>

#include "shmem_test.h"

#define BIG (3u << 20) /* a bss array well above 1 MiB */

/* data: initial values that shmem_init must keep */
long g_init[64] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                   17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
                   33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48,
                   49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64};
double g_dinit = 2.5;
static char s_text[32] = "symmetric static text";

/* bss */
static unsigned char s_big[BIG];
int g_int;
static short s_short[7];
long long g_ll[5];
float g_float[3];
uint64_t g_sig;
long g_lock;
static long s_counter;
static long s_psync[SHMEM_REDUCE_SYNC_SIZE];
static long s_pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long s_bsync[SHMEM_BCAST_SYNC_SIZE];
long g_src[16], g_dst[16 * 8];
static long s_strided[32];

static int me, npes, right, left;

/* A function-local static: symmetric as well. */
static long *local_static(void)
{
    static long inside[4];
    return inside;
}

static void check_initial(void)
{
    for (int i = 0; i < 64; i++)
        CHECK(g_init[i] == i + 1, "g_init[%d] = %ld after shmem_init, not %d", i,
              g_init[i], i + 1);
    CHECK(g_dinit == 2.5, "g_dinit = %g after shmem_init", g_dinit);
    CHECK(strcmp(s_text, "symmetric static text") == 0, "s_text = '%s'", s_text);
    for (size_t i = 0; i < BIG; i += 4096)
        CHECK(s_big[i] == 0, "bss byte %zu is %u", i, s_big[i]);
}

static void rma(void)
{
    /* the big array: a put of all of it, then a get back */
    unsigned char *tmp = malloc(BIG);
    CHECK(tmp != NULL, "malloc");
    fill(tmp, BIG, me, 1);
    shmem_putmem(s_big, tmp, BIG, right);
    shmem_barrier_all();
    long bad = mismatch(s_big, BIG, left, 1);
    CHECK(bad < 0, "s_big byte %ld from PE %d", bad, left);
    memset(tmp, 0, BIG);
    shmem_getmem(tmp, s_big, BIG, right);
    bad = mismatch(tmp, BIG, me, 1);
    CHECK(bad < 0, "get of PE %d's s_big: byte %ld", right, bad);
    free(tmp);

    /* p and g of several types */
    shmem_int_p(&g_int, 1000 + me, right);
    shmem_short_p(&s_short[3], (short)(200 + me), right);
    shmem_longlong_p(&g_ll[4], 5000000000LL + me, right);
    shmem_float_p(&g_float[1], 0.5f + (float)me, right);
    shmem_double_p(&g_dinit, 10.0 + me, right);
    shmem_long_p(&local_static()[2], 77 + me, right);
    shmem_barrier_all();
    CHECK(g_int == 1000 + left, "g_int %d", g_int);
    CHECK(s_short[3] == 200 + left && s_short[2] == 0, "s_short %d", s_short[3]);
    CHECK(g_ll[4] == 5000000000LL + left, "g_ll %lld", g_ll[4]);
    CHECK(g_float[1] == 0.5f + (float)left, "g_float %g", g_float[1]);
    CHECK(g_dinit == 10.0 + left, "g_dinit %g", g_dinit);
    CHECK(local_static()[2] == 77 + left, "local static %ld", local_static()[2]);
    CHECK(shmem_int_g(&g_int, right) == 1000 + me, "g of g_int");
    CHECK(shmem_longlong_g(&g_ll[4], right) == 5000000000LL + me, "g of g_ll");
    CHECK(shmem_long_g(&g_init[63], right) == 64, "g of an initialized global");

    /* put and get of a data array, iput and iget, nbi */
    long src[16];
    for (int i = 0; i < 16; i++)
        src[i] = me * 100 + i;
    shmem_long_put(g_init, src, 16, right);
    shmem_long_iput(s_strided, src, 3, 2, 8, right); /* target 0,3,..,21 */
    shmem_barrier_all();
    for (int i = 0; i < 16; i++)
        CHECK(g_init[i] == left * 100 + i, "g_init[%d] = %ld", i, g_init[i]);
    CHECK(g_init[16] == 17, "g_init[16] was overwritten: %ld", g_init[16]);
    for (int i = 0; i < 24; i++)
        CHECK(s_strided[i] == (i % 3 == 0 ? left * 100 + i / 3 * 2 : 0),
              "s_strided[%d] = %ld", i, s_strided[i]);
    long back[8];
    shmem_long_iget(back, s_strided, 1, 3, 8, right);
    for (int i = 0; i < 8; i++)
        CHECK(back[i] == me * 100 + 2 * i, "iget [%d] = %ld", i, back[i]);
    char text[32];
    shmem_getmem_nbi(text, s_text, sizeof(text), right);
    shmem_longlong_put_nbi(&g_ll[0], (long long *)&src[5], 1, right);
    shmem_quiet();
    CHECK(strcmp(text, "symmetric static text") == 0, "get_nbi of s_text: '%s'", text);
    shmem_barrier_all();
    CHECK(g_ll[0] == left * 100 + 5, "put_nbi: g_ll[0] = %lld", g_ll[0]);
    /* a created context */
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "ctx_create");
    shmem_ctx_int_p(ctx, &g_int, -me, right);
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    CHECK(g_int == -left, "ctx p: g_int %d", g_int);
}

static void amo_signal_lock(void)
{
    s_counter = 0;
    g_sig = 0;
    shmem_barrier_all();
    /* every PE adds to PE 0's counter; fetches are distinct */
    long got = shmem_long_atomic_fetch_add(&s_counter, 1, 0);
    CHECK(got >= 0 && got < npes, "fetch_add returned %ld", got);
    shmem_barrier_all();
    shmem_long_atomic_add(&s_counter, 10, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK(s_counter == 11L * npes, "counter %ld, not %ld", s_counter, 11L * npes);
    shmem_barrier_all();
    long old = shmem_long_atomic_compare_swap(&s_counter, 11L * npes, -1, 0);
    shmem_barrier_all();
    CHECK(shmem_long_atomic_fetch(&s_counter, 0) == -1, "cswap winner");
    (void)old;
    int iold = shmem_int_atomic_swap(&g_int, me, right);
    CHECK(iold == -me, "swap old %d", iold);
    shmem_barrier_all();

    /* put with signal into the right neighbour's globals */
    long payload[4] = {me, me + 1, me + 2, me + 3};
    shmem_long_put_signal(local_static(), payload, 4, &g_sig, 1 + me, SHMEM_SIGNAL_SET,
                          right);
    shmem_signal_wait_until(&g_sig, SHMEM_CMP_EQ, 1 + left);
    for (int i = 0; i < 4; i++)
        CHECK(local_static()[i] == left + i, "signal payload [%d] %ld", i,
              local_static()[i]);
    shmem_barrier_all();
    shmem_signal_add(&g_sig, 5, right);
    shmem_barrier_all();
    CHECK(shmem_signal_fetch(&g_sig) == (uint64_t)(1 + left + 5), "signal_add %llu",
          (unsigned long long)g_sig);

    /* a lock that is a global */
    for (int k = 0; k < 3; k++) {
        shmem_set_lock(&g_lock);
        long v = shmem_long_g(&s_counter, 0);
        shmem_long_p(&s_counter, v + 1, 0);
        shmem_quiet();
        shmem_clear_lock(&g_lock);
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK(s_counter == -1 + 3L * npes, "locked counter %ld", s_counter);
    shmem_barrier_all();
}

static void collectives(void)
{
    for (int i = 0; i < 16; i++)
        g_src[i] = me * 16 + i;
    memset(g_dst, 0, sizeof(g_dst));
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        s_psync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
        s_bsync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    /* team forms on global buffers */
    CHECK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, g_dst, g_src, 16) == 0, "sum_reduce");
    for (int i = 0; i < 16; i++)
        CHECK(g_dst[i] == 16L * npes * (npes - 1) / 2 + (long)npes * i, "sum [%d] %ld", i,
              g_dst[i]);
    CHECK(shmem_long_broadcast(SHMEM_TEAM_WORLD, g_dst, g_src, 16, npes - 1) == 0,
          "broadcast");
    for (int i = 0; i < 16; i++)
        CHECK(g_dst[i] == (npes - 1) * 16 + i, "broadcast [%d] %ld", i, g_dst[i]);
    CHECK(shmem_long_fcollect(SHMEM_TEAM_WORLD, g_dst, g_src, 4) == 0, "fcollect");
    for (int p = 0; p < npes; p++)
        for (int i = 0; i < 4; i++)
            CHECK(g_dst[p * 4 + i] == p * 16 + i, "fcollect [%d]", p * 4 + i);
    CHECK(shmem_long_alltoall(SHMEM_TEAM_WORLD, g_dst, g_src, 2) == 0, "alltoall");
    for (int p = 0; p < npes; p++)
        for (int i = 0; i < 2; i++)
            CHECK(g_dst[p * 2 + i] == p * 16 + me * 2 + i, "alltoall [%d] %ld", p * 2 + i,
                  g_dst[p * 2 + i]);
    /* the deprecated active-set forms with pSync and pWrk as globals */
    shmem_long_sum_to_all(g_dst, g_src, 8, 0, 0, npes, s_pwrk, s_psync);
    for (int i = 0; i < 8; i++)
        CHECK(g_dst[i] == 16L * npes * (npes - 1) / 2 + (long)npes * i, "sum_to_all [%d]",
              i);
    shmem_barrier(0, 0, npes, s_psync);
    g_dst[0] = -7;
    shmem_broadcast64(g_dst, g_src, 8, 0, 0, 0, npes, s_bsync);
    for (int i = 0; i < 8; i++)
        CHECK(me == 0 ? (i == 0 ? g_dst[i] == -7 : 1) : g_dst[i] == i,
              "broadcast64 [%d] %ld", i, g_dst[i]);
    shmem_barrier_all();
}

static void pointers(void)
{
    long *heap = shmem_malloc(64);
    CHECK(heap != NULL, "shmem_malloc");
    long stack_var = 0;
    CHECK(shmem_addr_accessible(&g_int, right), "global not accessible");
    CHECK(shmem_addr_accessible(&s_big[BIG - 1], right), "bss end not accessible");
    CHECK(shmem_addr_accessible(local_static(), right), "local static not accessible");
    CHECK(!shmem_addr_accessible(&stack_var, right), "stack accessible");
    CHECK(shmem_ptr(&g_int, me) == (void *)&g_int, "shmem_ptr to myself");
    CHECK(shmem_ptr(&stack_var, me) == NULL, "shmem_ptr of a stack variable");
    /* non-NULL exactly where the heap is mapped: the PEs of this node */
    for (int pe = 0; pe < npes; pe++) {
        int *p = shmem_ptr(&g_int, pe);
        CHECK((p != NULL) == (shmem_ptr(heap, pe) != NULL),
              "shmem_ptr(&g_int, %d) = %p, of the heap %p", pe, (void *)p,
              shmem_ptr(heap, pe));
        const char *q = shmem_ptr(s_text, pe);
        if (q)
            CHECK(memcmp(q, "symmetric", 9) == 0, "s_text on PE %d through shmem_ptr",
                  pe);
    }
    const char *cfg = getenv("TERN_SHM");
    if (cfg && strcmp(cfg, "off") == 0) /* network only: no other PE is mapped */
        for (int pe = 0; pe < npes; pe++)
            CHECK(pe == me || shmem_ptr(&g_int, pe) == NULL, "PE %d mapped", pe);
    shmem_barrier_all();
    int *rp = shmem_ptr(&g_int, right);
    if (rp)
        *rp = 4242 + me;
    shmem_barrier_all();
    if (shmem_ptr(&g_int, left))
        CHECK(g_int == 4242 + left, "store through shmem_ptr: %d", g_int);
    shmem_free(heap);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    check_initial();
    shmem_barrier_all();
    rma();
    amo_signal_lock();
    collectives();
    pointers();
    return finish("globals");
}
