/* Accumulate: every type, blocking and nbi, with and without scale, to the
 * right neighbour (values exact); every rank (and, with argument T, T
 * threads of each rank under TERN_THREAD_MULTIPLE) accumulating into one
 * array of rank 0 at once, spanning several messages over the network
 * (the integer and float sums exact: nothing lost to a race); 1 MiB to
 * the neighbour (pipelined messages); and bad input, each refused with a
 * message naming what is wrong. shm, net and mixed. */
#include <string.h>

#include "mp_util.h"

enum { N = 3000, ROUNDS = 4, BIG = 1 << 17, MAXT = 8 };
static const int types[4] = {TERN_AT_I32, TERN_AT_I64, TERN_AT_FLOAT, TERN_AT_DOUBLE};
static const char *const tnames[4] = {"i32", "i64", "float", "double"};

static int me, n, nthreads = 1;

/* Element i of a buffer of type, as or from a double (every value used is
 * an integer or half-integer exact in every type). */
static double get(int type, const void *b, size_t i)
{
    switch (type) {
    case TERN_AT_I32: return ((const int32_t *)b)[i];
    case TERN_AT_I64: return (double)((const int64_t *)b)[i];
    case TERN_AT_FLOAT: return ((const float *)b)[i];
    default: return ((const double *)b)[i];
    }
}
static void set(int type, void *b, size_t i, double v)
{
    switch (type) {
    case TERN_AT_I32: ((int32_t *)b)[i] = (int32_t)v; break;
    case TERN_AT_I64: ((int64_t *)b)[i] = (int64_t)v; break;
    case TERN_AT_FLOAT: ((float *)b)[i] = (float)v; break;
    default: ((double *)b)[i] = v; break;
    }
}

static char *zone; /* symmetric: the target arrays */
static int cur_type;

/* Contention: R rounds of src[i] = (i % 5) + 1 scaled by (me + 1) into
 * rank 0's array, blocking and nbi alternating. */
static void *hammer(void *arg)
{
    (void)arg;
    char src[N * 8], scale[8];
    for (size_t i = 0; i < N; i++)
        set(cur_type, src, i, (double)(i % 5) + 1);
    set(cur_type, scale, 0, me + 1);
    void *dst = tern_sym_addr(0, zone);
    for (int r = 0; r < ROUNDS; r++) {
        if (r % 2)
            MP_OK(tern_acc_nbi(0, dst, src, N, cur_type, scale, 0));
        else
            MP_OK(tern_acc(0, dst, src, N, cur_type, scale, 0));
    }
    MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));
    return NULL;
}

#define BAD(want, text, call)                                                           \
    do {                                                                                \
        mp_capture_begin();                                                             \
        int rc_ = (call);                                                               \
        const char *msg_ = mp_capture_end();                                            \
        MP_CHECK(rc_ == (want), "%s returned %d, not %d", #call, rc_, (want));          \
        MP_CHECK(strstr(msg_, text), "%s: message '%s' lacks '%s'", #call, msg_, text); \
    } while (0)

int main(int argc, char **argv)
{
    me = mp_init(&argc, &argv, TERN_THREAD_MULTIPLE);
    n = tern_size();
    if (argc > 1)
        nthreads = atoi(argv[1]);
    MP_CHECK(nthreads >= 1 && nthreads <= MAXT, "threads %d", nthreads);
    int right = (me + 1) % n, left = (me + n - 1) % n;
    MP_OK(tern_alloc_sym((size_t)BIG * 8, (void **)&zone));
    static char src[(size_t)BIG * 8];
    char *rz = tern_sym_addr(right, zone);

    for (int k = 0; k < 4; k++) {
        int t = types[k];
        /* To the right: dst[i] = i, then + 3 * s[i] (blocking), + s[i]
         * (nbi, no scale), with s[i] = i % 7 + rank. */
        for (size_t i = 0; i < N; i++) {
            set(t, zone, i, (double)i);
            set(t, src, i, (double)(i % 7) + me);
        }
        char three[8];
        set(t, three, 0, 3);
        MP_OK(tern_barrier());
        MP_OK(tern_acc(right, rz, src, N, t, three, 0));
        MP_OK(tern_acc_nbi(right, rz, src, N, t, NULL, 0));
        memset(src, 0, (size_t)N * 8); /* reusable once the call returns */
        MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));
        MP_OK(tern_barrier());
        for (size_t i = 0; i < N; i++) {
            double want = (double)i + 4.0 * ((double)(i % 7) + left);
            MP_CHECK(get(t, zone, i) == want, "%s: element %zu is %g, not %g", tnames[k],
                     i, get(t, zone, i), want);
        }

        /* Everyone into rank 0 at once. */
        memset(zone, 0, (size_t)N * 8);
        MP_OK(tern_barrier());
        cur_type = t;
        mp_run_threads(nthreads, hammer);
        MP_OK(tern_barrier());
        if (me == 0) {
            double ranks = (double)n * (n + 1) / 2; /* sum of the scales */
            for (size_t i = 0; i < N; i++) {
                double want = ROUNDS * nthreads * ranks * ((double)(i % 5) + 1);
                MP_CHECK(get(t, zone, i) == want,
                         "%s contention: element %zu is %g, not %g", tnames[k], i,
                         get(t, zone, i), want);
            }
        }
        MP_OK(tern_barrier());
    }

    /* 1 MiB of double to the right, pipelined: dst = 1 + 0.5 * (i % 1024). */
    double *dz = (double *)zone, *ds = (double *)src, half = 0.5;
    for (size_t i = 0; i < BIG; i++) {
        dz[i] = 1;
        ds[i] = (double)(i % 1024);
    }
    MP_OK(tern_barrier());
    MP_OK(tern_acc(right, rz, src, BIG, TERN_AT_DOUBLE, &half, 0));
    MP_OK(tern_barrier());
    for (size_t i = 0; i < BIG; i++)
        MP_CHECK(dz[i] == 1 + 0.5 * (double)(i % 1024), "big: element %zu is %g", i,
                 dz[i]);

    /* Bad input. */
    BAD(TERN_ERR_INVALID, "accumulate takes TERN_AT_I32",
        tern_acc(right, rz, src, 4, TERN_AT_U64, NULL, 0));
    BAD(TERN_ERR_INVALID, "type 9", tern_acc(right, rz, src, 4, 9, NULL, 0));
    BAD(TERN_ERR_INVALID, "not aligned to the 8 bytes of double",
        tern_acc(right, rz + 4, src, 4, TERN_AT_DOUBLE, NULL, 0));
    BAD(TERN_ERR_INVALID, "src is NULL",
        tern_acc(right, rz, NULL, 4, TERN_AT_I32, NULL, 0));
    BAD(TERN_ERR_RANK, "rank", tern_acc(n, rz, src, 4, TERN_AT_I32, NULL, 0));
    BAD(TERN_ERR_RANK, "rank", tern_acc_nbi(-1, rz, src, 4, TERN_AT_I32, NULL, 0));
    BAD(TERN_ERR_INVALID, "not TERN_FLAG_",
        tern_acc(right, rz, src, 4, TERN_AT_I32, NULL, 0x100));
    BAD(TERN_ERR_INVALID, "overflow",
        tern_acc(right, rz, src, SIZE_MAX / 2, TERN_AT_I64, NULL, 0));
    BAD(TERN_ERR_RANGE, "segment", tern_acc(right, src, src, 4, TERN_AT_I32, NULL, 0));
    BAD(TERN_ERR_RANGE, "segment",
        tern_acc(right, rz, src, (size_t)1 << 40, TERN_AT_I32, NULL, 0));
    BAD(TERN_ERR_INVALID, "is not a context",
        tern_ctx_acc_nbi((tern_ctx_t)src, right, rz, src, 4, TERN_AT_I32, NULL, 0));
    MP_OK(tern_acc(right, rz, NULL, 0, TERN_AT_I32, NULL, 0)); /* nothing to do */
    return mp_finish("acc");
}
