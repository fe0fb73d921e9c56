/* RMA, byte-exact: put, p, iput, ibput, get, g, iget, ibget, put_nbi and
 * get_nbi for every standard RMA type, the sized forms and mem, each on
 * the default context (through the library's functions, and called by
 * name, which shmem.h inlines for PEs on the node: put, get and their
 * nbi forms) and on a created one; the C11 type-generic forms;
 * a large transfer. Each PE writes to its right neighbour and reads from
 * it; every element outside the transferred ones must stay untouched. */
#include <stdint.h>

#include "shmem_test.h"

enum { NE = 37, CAP = 8 * NE }; /* elements per transfer; elements per buffer */

static int me, n, right, left;
static shmem_ctx_t ctx; /* a created context */
static unsigned salt;

#define SENTINEL 0x5a

/* Fills this PE's symmetric buffer with the sentinel, before a round,
 * once no neighbour still reads it. */
static void clear(void *buf, size_t bytes)
{
    shmem_barrier_all();
    memset(buf, SENTINEL, bytes);
    shmem_barrier_all();
}

/* Checks bytes [0, total) of buf: elements at es-sized positions that
 * `hit` selects hold pe's pattern for salt (indexed by the source
 * element), all others the sentinel. */
typedef int (*hit_fn)(size_t elem, size_t *src_elem);
static void check_pattern(const char *what, const unsigned char *buf, size_t total,
                          size_t es, int pe, unsigned s, hit_fn hit)
{
    for (size_t e = 0; e < total / es; e++) {
        size_t se;
        int in = hit(e, &se);
        for (size_t b = 0; b < es; b++) {
            unsigned char want = in ? pat(pe, se * es + b, s) : SENTINEL;
            CHECK(buf[e * es + b] == want,
                  "%s: byte %zu of element %zu is 0x%02x, not 0x%02x", what, b, e,
                  buf[e * es + b], want);
        }
    }
}

/* Contiguous: element e < NE came from source element e. */
static int hit_contig(size_t e, size_t *se)
{
    *se = e;
    return e < NE;
}
/* iput with target stride 3 and source stride 2, NE/3 elements:
 * target element 3k came from source element 2k. */
static int hit_iput(size_t e, size_t *se)
{
    *se = e / 3 * 2;
    return e % 3 == 0 && e / 3 < NE / 3;
}
/* ibput of 5 blocks of 3 with target stride 7 and source stride 4:
 * target element 7b+j came from source element 4b+j. */
static int hit_ibput(size_t e, size_t *se)
{
    *se = e / 7 * 4 + e % 7;
    return e % 7 < 3 && e / 7 < 5;
}
/* iget with target (local) stride 2 and source (remote) stride 3:
 * local element 2k came from remote element 3k. */
static int hit_iget(size_t e, size_t *se)
{
    *se = e / 2 * 3;
    return e % 2 == 0 && e / 2 < NE / 3;
}
/* ibget of 5 blocks of 3, local stride 4, remote stride 7. */
static int hit_ibget(size_t e, size_t *se)
{
    *se = e / 4 * 7 + e % 4;
    return e % 4 < 3 && e / 4 < 5;
}

/* The rounds: each issues one kind of transfer for every type at once
 * (phase 0), then, after one barrier, checks them all (phase 1), so that
 * the test needs few barriers. */
enum { R_PUT, R_P, R_IPUT, R_IBPUT, R_STRIDED_GET, R_NBI, NROUNDS };

/* ROUND_BODY(T, es) is written once for the typed routines and the sized
 * ones: the caller declares the routines as put/cput (no context/context),
 * get/cget, iput/ciput, ibput/cibput, iget/ciget, ibget/cibget, pnbi/cpnbi
 * and gnbi/cgnbi. */
#define PUT(d, sr, k)     (with_ctx ? cput(ctx, d, sr, k, right) : put(d, sr, k, right))
#define GET(d, sr, k)     (with_ctx ? cget(ctx, d, sr, k, right) : get(d, sr, k, right))
#define PUT_NBI(d, sr, k) (with_ctx ? cpnbi(ctx, d, sr, k, right) : pnbi(d, sr, k, right))
#define GET_NBI(d, sr, k) (with_ctx ? cgnbi(ctx, d, sr, k, right) : gnbi(d, sr, k, right))
#define IPUT(d, sr, a, b, k) \
    (with_ctx ? ciput(ctx, d, sr, a, b, k, right) : iput(d, sr, a, b, k, right))
#define IGET(d, sr, a, b, k) \
    (with_ctx ? ciget(ctx, d, sr, a, b, k, right) : iget(d, sr, a, b, k, right))
#define IBPUT(d, sr, a, b, bs, nb)                      \
    (with_ctx ? cibput(ctx, d, sr, a, b, bs, nb, right) \
              : ibput(d, sr, a, b, bs, nb, right))
#define IBGET(d, sr, a, b, bs, nb)                      \
    (with_ctx ? cibget(ctx, d, sr, a, b, bs, nb, right) \
              : ibget(d, sr, a, b, bs, nb, right))
#define ROUND_BODY(T, es)                                                           \
    const size_t total = CAP * (es);                                                \
    T *src = (T *)srcbuf, *got = (T *)gotbuf;                                       \
    unsigned char *u = region;                                                      \
    fill(src, CAP *(es), me, s);                                                    \
    switch (round) {                                                                \
    case R_PUT:                                                                     \
        if (phase == 0) {                                                           \
            PUT((T *)u, src, NE);                                                   \
        } else {                                                                    \
            check_pattern(what, u, total, es, left, s, hit_contig);                 \
            memset(got, SENTINEL, total); /* what the right one received is mine */ \
            GET(got, (T *)u, NE);                                                   \
            check_pattern(what, (void *)got, total, es, me, s, hit_contig);         \
        }                                                                           \
        break;                                                                      \
    case R_IPUT:                                                                    \
        if (phase == 0)                                                             \
            IPUT((T *)u, src, 3, 2, NE / 3); /* target stride 3, source stride 2 */ \
        else                                                                        \
            check_pattern(what, u, total, es, left, s, hit_iput);                   \
        break;                                                                      \
    case R_IBPUT:                                                                   \
        if (phase == 0)                                                             \
            IBPUT((T *)u, src, 7, 4, 3, 5); /* 5 blocks of 3, strides 7 and 4 */    \
        else                                                                        \
            check_pattern(what, u, total, es, left, s, hit_ibput);                  \
        break;                                                                      \
    case R_STRIDED_GET: /* from a neighbour holding my contiguous pattern */        \
        if (phase == 0) {                                                           \
            PUT((T *)u, src, CAP);                                                  \
        } else {                                                                    \
            memset(got, SENTINEL, total);                                           \
            IGET(got, (T *)u, 2, 3, NE / 3);                                        \
            check_pattern(what, (void *)got, total, es, me, s, hit_iget);           \
            memset(got, SENTINEL, total);                                           \
            IBGET(got, (T *)u, 4, 7, 3, 5);                                         \
            check_pattern(what, (void *)got, total, es, me, s, hit_ibget);          \
        }                                                                           \
        break;                                                                      \
    case R_NBI:                                                                     \
        if (phase == 0) {                                                           \
            PUT_NBI((T *)u, src, NE);                                               \
        } else {                                                                    \
            check_pattern(what, u, total, es, left, s, hit_contig);                 \
            memset(got, SENTINEL, total);                                           \
            GET_NBI(got, (T *)u, NE);                                               \
            if (with_ctx)                                                           \
                shmem_ctx_quiet(ctx);                                               \
            else                                                                    \
                shmem_quiet();                                                      \
            check_pattern(what, (void *)got, total, es, me, s, hit_contig);         \
        }                                                                           \
        break;                                                                      \
    }

static unsigned char srcbuf[CAP * 16], gotbuf[CAP * 16];

/* The block routines called by name (shmem.h's inline paths,
 * tshmem/fast.h), behind pointers of the library functions' types. */
#define DIRECT_TYPE(T, N)                                      \
    static void dput_##N(T *d, const T *sr, size_t k, int pe)  \
    {                                                          \
        shmem_##N##_put(d, sr, k, pe);                         \
    }                                                          \
    static void dget_##N(T *d, const T *sr, size_t k, int pe)  \
    {                                                          \
        shmem_##N##_get(d, sr, k, pe);                         \
    }                                                          \
    static void dpnbi_##N(T *d, const T *sr, size_t k, int pe) \
    {                                                          \
        shmem_##N##_put_nbi(d, sr, k, pe);                     \
    }                                                          \
    static void dgnbi_##N(T *d, const T *sr, size_t k, int pe) \
    {                                                          \
        shmem_##N##_get_nbi(d, sr, k, pe);                     \
    }
TSHMEM_RMA_TYPES(DIRECT_TYPE)
#define DIRECT_SIZED(S)                                              \
    static void dput_##S(void *d, const void *sr, size_t k, int pe)  \
    {                                                                \
        shmem_put##S(d, sr, k, pe);                                  \
    }                                                                \
    static void dget_##S(void *d, const void *sr, size_t k, int pe)  \
    {                                                                \
        shmem_get##S(d, sr, k, pe);                                  \
    }                                                                \
    static void dpnbi_##S(void *d, const void *sr, size_t k, int pe) \
    {                                                                \
        shmem_put##S##_nbi(d, sr, k, pe);                            \
    }                                                                \
    static void dgnbi_##S(void *d, const void *sr, size_t k, int pe) \
    {                                                                \
        shmem_get##S##_nbi(d, sr, k, pe);                            \
    }
TSHMEM_RMA_SIZES(DIRECT_SIZED)

/* with_ctx: 0 the default context through the library's functions, 1 the
 * created context, 2 the default context with put, get and their nbi
 * forms called by name (the rest as 0). */
/* One round of type T named N in its region of the symmetric buffer. */
#define TEST_TYPE(T, N)                                                                  \
    static void test_##N(int round, int phase, void *region, int with_ctx, unsigned s)   \
    {                                                                                    \
        char what[64];                                                                   \
        int direct = with_ctx == 2;                                                      \
        with_ctx = with_ctx == 1;                                                        \
        snprintf(what, sizeof(what), "%s %s round %d", #N,                               \
                 with_ctx ? "ctx"                                                        \
                 : direct ? "default by name"                                            \
                          : "default",                                                   \
                 round);                                                                 \
        if (round == R_P) { /* p and g: compared as numbers, since a long double       \
                               passed by value keeps no padding bytes */ \
            T *sym = region;                                                             \
            for (size_t i = 0; i < NE && phase == 0; i++) {                              \
                T v = (T)((me * 41 + i) % 100);                                          \
                if (with_ctx)                                                            \
                    shmem_ctx_##N##_p(ctx, &sym[i], v, right);                           \
                else                                                                     \
                    shmem_##N##_p(&sym[i], v, right);                                    \
            }                                                                            \
            for (size_t i = 0; i < NE && phase == 1; i++) {                              \
                CHECK(sym[i] == (T)((left * 41 + i) % 100), "%s: p of element %zu",      \
                      what, i);                                                          \
                T v = with_ctx ? shmem_ctx_##N##_g(ctx, &sym[i], right)                  \
                               : shmem_##N##_g(&sym[i], right);                          \
                CHECK(v == (T)((me * 41 + i) % 100), "%s: g of element %zu", what, i);   \
            }                                                                            \
            for (size_t b = NE * sizeof(T); b < CAP * sizeof(T) && phase == 1; b++)      \
                CHECK(((unsigned char *)sym)[b] == SENTINEL, "%s: p wrote byte %zu",     \
                      what, b);                                                          \
            return;                                                                      \
        }                                                                                \
        __typeof__(&shmem_##N##_put) put = direct ? dput_##N : shmem_##N##_put,          \
                                     get = direct ? dget_##N : shmem_##N##_get,          \
                                     pnbi = direct ? dpnbi_##N : shmem_##N##_put_nbi,    \
                                     gnbi = direct ? dgnbi_##N : shmem_##N##_get_nbi;    \
        __typeof__(&shmem_ctx_##N##_put) cput = shmem_ctx_##N##_put,                     \
                                         cget = shmem_ctx_##N##_get,                     \
                                         cpnbi = shmem_ctx_##N##_put_nbi,                \
                                         cgnbi = shmem_ctx_##N##_get_nbi;                \
        __typeof__(&shmem_##N##_iput) iput = shmem_##N##_iput, iget = shmem_##N##_iget;  \
        __typeof__(&shmem_ctx_##N##_iput) ciput = shmem_ctx_##N##_iput,                  \
                                          ciget = shmem_ctx_##N##_iget;                  \
        __typeof__(&shmem_##N##_ibput) ibput = shmem_##N##_ibput,                        \
                                       ibget = shmem_##N##_ibget;                        \
        __typeof__(&shmem_ctx_##N##_ibput) cibput = shmem_ctx_##N##_ibput,               \
                                           cibget = shmem_ctx_##N##_ibget;               \
        ROUND_BODY(T, sizeof(T))                                                         \
    }
TSHMEM_RMA_TYPES(TEST_TYPE)

/* The sized routines on byte buffers: elements of S bits. */

#define TEST_SIZED(S)                                                                   \
    static void test_sized##S(int round, int phase, void *region, int with_ctx,         \
                              unsigned s)                                               \
    {                                                                                   \
        char what[64];                                                                  \
        int direct = with_ctx == 2;                                                     \
        with_ctx = with_ctx == 1;                                                       \
        snprintf(what, sizeof(what), "%d-bit %s round %d", S,                           \
                 with_ctx ? "ctx"                                                       \
                 : direct ? "default by name"                                           \
                          : "default",                                                  \
                 round);                                                                \
        if (round == R_P)                                                               \
            return; /* no sized p */                                                    \
        __typeof__(&shmem_put##S) put = direct ? dput_##S : shmem_put##S,               \
                                  get = direct ? dget_##S : shmem_get##S,               \
                                  pnbi = direct ? dpnbi_##S : shmem_put##S##_nbi,       \
                                  gnbi = direct ? dgnbi_##S : shmem_get##S##_nbi;       \
        __typeof__(&shmem_ctx_put##S) cput = shmem_ctx_put##S, cget = shmem_ctx_get##S, \
                                      cpnbi = shmem_ctx_put##S##_nbi,                   \
                                      cgnbi = shmem_ctx_get##S##_nbi;                   \
        __typeof__(&shmem_iput##S) iput = shmem_iput##S, iget = shmem_iget##S;          \
        __typeof__(&shmem_ctx_iput##S) ciput = shmem_ctx_iput##S,                       \
                                       ciget = shmem_ctx_iget##S;                       \
        __typeof__(&shmem_ibput##S) ibput = shmem_ibput##S, ibget = shmem_ibget##S;     \
        __typeof__(&shmem_ctx_ibput##S) cibput = shmem_ctx_ibput##S,                    \
                                        cibget = shmem_ctx_ibget##S;                    \
        ROUND_BODY(unsigned char, S / 8)                                                \
    }
TSHMEM_RMA_SIZES(TEST_SIZED)

typedef void (*round_fn)(int round, int phase, void *region, int with_ctx, unsigned s);
static const round_fn rounds[] = {
#define FN_TYPE(T, N) test_##N,
    TSHMEM_RMA_TYPES(FN_TYPE)
#define FN_SIZED(S) test_sized##S,
        TSHMEM_RMA_SIZES(FN_SIZED)};
enum { NFN = sizeof(rounds) / sizeof(rounds[0]), REGION = CAP * 16 };

/* mem forms, with a large transfer (network fragments, non-temporal
 * copies) and with odd sizes and offsets. */
static void test_mem(unsigned char *sym, size_t cap)
{
    static const size_t sizes[] = {1, 3, 64, 4095, 65537, 1 << 22};
    unsigned char *src = malloc(cap), *got = malloc(cap);
    CHECK(src && got, "malloc");
    for (int w = 0; w < 2; w++) {
        for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
            size_t len = sizes[k], off = k % 3;
            unsigned s = salt++;
            fill(src, len, me, s);
            clear(sym, len + 8);
            if (w) {
                shmem_ctx_putmem(ctx, sym + off, src, len, right);
                shmem_ctx_quiet(ctx);
            } else {
                shmem_putmem(sym + off, src, len, right);
            }
            shmem_barrier_all();
            for (size_t i = 0; i < off; i++)
                CHECK(sym[i] == SENTINEL, "putmem %zu: byte %zu before the range", len,
                      i);
            long bad = mismatch(sym + off, len, left, s);
            CHECK(bad < 0, "putmem %zu at +%zu: byte %ld differs", len, off, bad);
            CHECK(sym[off + len] == SENTINEL, "putmem %zu: byte after the range", len);
            memset(got, SENTINEL, len + 1);
            if (w)
                shmem_ctx_getmem(ctx, got, sym + off, len, right);
            else
                shmem_getmem(got, sym + off, len, right);
            bad = mismatch(got, len, me, s);
            CHECK(bad < 0 && got[len] == SENTINEL, "getmem %zu: byte %ld differs", len,
                  bad);
            /* nbi */
            s = salt++;
            fill(src, len, me, s);
            clear(sym, len + 8);
            if (w) {
                shmem_ctx_putmem_nbi(ctx, sym, src, len, right);
                shmem_ctx_quiet(ctx);
            } else {
                shmem_putmem_nbi(sym, src, len, right);
                shmem_quiet();
            }
            shmem_barrier_all();
            bad = mismatch(sym, len, left, s);
            CHECK(bad < 0, "putmem_nbi %zu: byte %ld differs", len, bad);
            memset(got, SENTINEL, len);
            if (w) {
                shmem_ctx_getmem_nbi(ctx, got, sym, len, right);
                shmem_ctx_quiet(ctx);
            } else {
                shmem_getmem_nbi(got, sym, len, right);
                shmem_quiet();
            }
            bad = mismatch(got, len, me, s);
            CHECK(bad < 0, "getmem_nbi %zu: byte %ld differs", len, bad);
        }
    }
    /* zero bytes: nothing happens */
    shmem_putmem(sym, src, 0, right);
    shmem_getmem(got, sym, 0, right);
    /* zero elements with null addresses: no-ops (1.6, "Undefined Behavior":
     * "len is 0, pointer is null: supported"); before, each ended the job
     * ("not a symmetric address") */
    shmem_putmem(NULL, NULL, 0, right);
    shmem_getmem(NULL, NULL, 0, right);
    shmem_putmem_nbi(NULL, NULL, 0, right);
    shmem_getmem_nbi(NULL, NULL, 0, right);
    shmem_ctx_putmem(ctx, NULL, NULL, 0, right);
    shmem_ctx_getmem_nbi(ctx, NULL, NULL, 0, right);
    shmem_long_put(NULL, NULL, 0, right);
    shmem_double_get(NULL, NULL, 0, right);
    shmem_put32_nbi(NULL, NULL, 0, right);
    shmem_ctx_get64(ctx, NULL, NULL, 0, right);
    shmem_int_iput(NULL, NULL, 1, 1, 0, right);
    shmem_int_iget(NULL, NULL, 1, 1, 0, right);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    free(src);
    free(got);
}

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* The C11 type-generic forms pick the typed routine. */
static void test_generic(void *symv)
{
    double *d = symv;
    long double *ld = symv;
    signed char *sc = symv;
    uint16_t *u16 = symv;
    size_t *sz = symv;
    char *c = symv;
    double dsrc[4] = {1.5, -2.25, 3e300, 0.125}, dgot[4] = {0};
    long double ldv = -7.0L / 3.0L;

    clear(symv, 256);
    shmem_put(d, dsrc, 4, right);
    shmem_barrier_all();
    CHECK(d[0] == 1.5 && d[1] == -2.25 && d[2] == 3e300 && d[3] == 0.125, "generic put");
    shmem_get(ctx, dgot, d, 4, right);
    CHECK(memcmp(dgot, dsrc, sizeof(dsrc)) == 0, "generic ctx get");
    shmem_barrier_all();
    clear(symv, 256);
    shmem_p(ld, ldv, right);
    shmem_p(ctx, &sc[32], (signed char)-5, right);
    shmem_p(&u16[40], (uint16_t)65000, right);
    shmem_p(ctx, &sz[12], (size_t)SIZE_MAX - 3, right);
    shmem_p(&c[120], 'x', right);
    shmem_barrier_all();
    CHECK(*ld == ldv && sc[32] == -5 && u16[40] == 65000 && sz[12] == SIZE_MAX - 3 &&
              c[120] == 'x',
          "generic p");
    CHECK(shmem_g(ld, right) == ldv && shmem_g(ctx, &sz[12], right) == SIZE_MAX - 3 &&
              shmem_g(&c[120], right) == 'x',
          "generic g");
    int isrc[8] = {1, 2, 3, 4, 5, 6, 7, 8}, igot[8] = {0};
    int *ia = symv;
    shmem_barrier_all();
    clear(symv, 256);
    shmem_iput(ia, isrc, 2, 1, 4, right);
    shmem_ibput(ctx, ia + 16, isrc, 4, 2, 2, 4, right);
    shmem_barrier_all();
    CHECK(ia[0] == 1 && ia[2] == 2 && ia[4] == 3 && ia[6] == 4 && ia[16] == 1 &&
              ia[17] == 2 && ia[20] == 3 && ia[21] == 4 && ia[28] == 7 && ia[29] == 8,
          "generic iput/ibput");
    shmem_iget(igot, ia, 1, 2, 4, right);
    CHECK(igot[0] == 1 && igot[1] == 2 && igot[2] == 3 && igot[3] == 4, "generic iget");
    shmem_ibget(ctx, igot, ia + 16, 2, 4, 2, 2, right);
    CHECK(igot[0] == 1 && igot[1] == 2 && igot[2] == 3 && igot[3] == 4, "generic ibget");
    shmem_barrier_all();
    clear(symv, 256);
    shmem_put_nbi(ctx, ia, isrc, 8, right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    memset(igot, 0, sizeof(igot));
    shmem_get_nbi(igot, ia, 8, right);
    shmem_quiet();
    CHECK(memcmp(igot, isrc, sizeof(isrc)) == 0, "generic put_nbi/get_nbi");
}
#endif

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    CHECK(shmem_ctx_create(0, &ctx) == 0 && ctx != SHMEM_CTX_INVALID, "shmem_ctx_create");

    unsigned char *sym = shmem_malloc((size_t)NFN * REGION);
    CHECK(sym != NULL, "shmem_malloc");
    for (int w = 0; w < 3; w++) {
        for (int r = 0; r < NROUNDS; r++) {
            clear(sym, (size_t)NFN * REGION);
            for (int phase = 0; phase < 2; phase++) {
                for (int k = 0; k < NFN; k++)
                    rounds[k](r, phase, sym + (size_t)k * REGION, w,
                              (unsigned)(k * 32 + r * 3 + w));
                if (phase == 0) {
                    /* shmem_barrier_all completes the default context only:
                     * a created context's puts (blocking ones are only
                     * locally complete) need its own quiet. */
                    if (w == 1)
                        shmem_ctx_quiet(ctx);
                    else if (r == R_NBI)
                        shmem_quiet();
                    shmem_barrier_all();
                }
            }
        }
    }
    size_t big = (1 << 22) + 16;
    void *large = shmem_malloc(big);
    CHECK(large != NULL, "shmem_malloc(%zu)", big);
    test_mem(large, big);
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
    test_generic(sym);
#endif
    shmem_free(large);
    shmem_free(sym);
    shmem_ctx_destroy(ctx);
    return finish("shmem rma");
}
