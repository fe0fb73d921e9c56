/* Exactness under contention: every rank (and, with argument T, T threads
 * of each rank under TERN_THREAD_MULTIPLE) fetch-adds 1 to one word on
 * rank 0, M times, in batches of the three forms (blocking, event, nbi),
 * for every type. Every fetched value must be distinct (they are then a
 * permutation of 0 .. total-1) and the final value exact. Runs in shm, net
 * and mixed, with the implementation the job chooses (and, registered with
 * TERN_OFI_ATOMICS=am, the active-message path). */
#include <string.h>

#include "mp_util.h"

enum { NTYPES = 6, M = 96, BATCH = 16, MAXT = 8 };

typedef union {
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f;
    double d;
} val_t;

static int nthreads = 1;
static tern_ad_t ad;
static int type;
static void *ctr;      /* the word, on rank 0 */
static uint64_t *mine; /* [nthreads * M] this rank's fetched values (symmetric) */

static double as_double(const val_t *v)
{
    switch (type) {
    case TERN_AT_I32: return v->i32;
    case TERN_AT_U32: return v->u32;
    case TERN_AT_I64: return (double)v->i64;
    case TERN_AT_U64: return (double)v->u64;
    case TERN_AT_FLOAT: return v->f;
    default: return v->d;
    }
}

/* One FADD of 1 in mode; *ev set for TERN_AD_NB_. */
static int fadd(int mode, val_t *r, tern_event_t *ev)
{
#define OP(T, C, field)                                                                 \
    return mode == TERN_AD_BLOCK_                                                       \
               ? tern_ad_op_##T(ad, 0, ctr, TERN_OP_FADD, (C)1, (C)0, &r->field, 0)     \
           : mode == TERN_AD_NB_                                                        \
               ? tern_ad_op_nb_##T(ad, 0, ctr, TERN_OP_FADD, (C)1, (C)0, &r->field, ev, \
                                   0)                                                   \
               : tern_ad_op_nbi_##T(ad, 0, ctr, TERN_OP_FADD, (C)1, (C)0, &r->field, 0)
    switch (type) {
    case TERN_AT_I32: OP(i32, int32_t, i32);
    case TERN_AT_U32: OP(u32, uint32_t, u32);
    case TERN_AT_I64: OP(i64, int64_t, i64);
    case TERN_AT_U64: OP(u64, uint64_t, u64);
    case TERN_AT_FLOAT: OP(float, float, f);
    default: OP(double, double, d);
    }
#undef OP
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    val_t res[BATCH];
    tern_event_t evs[BATCH];
    for (int b = 0; b < M / BATCH; b++) {
        int mode = b % 3;
        memset(res, 0xff, sizeof(res));
        for (int i = 0; i < BATCH; i++)
            MP_OK(fadd(mode, &res[i], &evs[i]));
        if (mode == TERN_AD_NB_)
            MP_OK(tern_event_wait_all(evs, BATCH));
        if (mode == TERN_AD_NBI_)
            MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));
        for (int i = 0; i < BATCH; i++)
            mine[(size_t)t * M + (size_t)b * BATCH + (size_t)i] =
                (uint64_t)as_double(&res[i]);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_MULTIPLE);
    if (argc > 1)
        nthreads = atoi(argv[1]);
    MP_CHECK(nthreads >= 1 && nthreads <= MAXT, "threads %d", nthreads);
    int n = tern_size();
    size_t per = (size_t)nthreads * M, total = per * (size_t)n;
    uint64_t *word;
    MP_OK(tern_alloc_sym(sizeof(uint64_t), (void **)&word));
    MP_OK(tern_alloc_sym(per * sizeof(uint64_t), (void **)&mine));
    uint64_t *all = calloc(total, sizeof(*all));
    unsigned char *seen = calloc(total, 1);
    MP_CHECK(all && seen, "memory");
    ctr = tern_sym_addr(0, word);

    for (type = 0; type < NTYPES; type++) {
        MP_OK(tern_ad_create(type, TERN_OP_FADD | TERN_OP_GET | TERN_OP_SET, 0, &ad));
        if (me == 0 && type == TERN_AT_U64) {
            char why[640];
            MP_OK(tern_ad_info(ad, NULL, why, sizeof(why)));
            printf("%d rank(s) x %d thread(s): %s\n", n, nthreads, why);
        }
        *word = 0; /* every type's zero is all-zero bits */
        MP_OK(tern_barrier());
        mp_run_threads(nthreads, worker);
        MP_OK(tern_barrier());
        if (me == 0) {
            for (int r = 0; r < n; r++)
                MP_OK(tern_get(&all[(size_t)r * per], r, tern_sym_addr(r, mine),
                               per * sizeof(uint64_t), 0));
            memset(seen, 0, total);
            for (size_t i = 0; i < total; i++) {
                MP_CHECK(all[i] < total, "type %d: fetched %llu, beyond %zu", type,
                         (unsigned long long)all[i], total);
                MP_CHECK(!seen[all[i]], "type %d: value %llu fetched twice", type,
                         (unsigned long long)all[i]);
                seen[all[i]] = 1;
            }
            val_t fin;
            memset(&fin, 0, sizeof(fin));
            switch (type) {
            case TERN_AT_I32:
                MP_OK(tern_ad_op_i32(ad, 0, ctr, TERN_OP_GET, 0, 0, &fin.i32, 0));
                break;
            case TERN_AT_U32:
                MP_OK(tern_ad_op_u32(ad, 0, ctr, TERN_OP_GET, 0, 0, &fin.u32, 0));
                break;
            case TERN_AT_I64:
                MP_OK(tern_ad_op_i64(ad, 0, ctr, TERN_OP_GET, 0, 0, &fin.i64, 0));
                break;
            case TERN_AT_U64:
                MP_OK(tern_ad_op_u64(ad, 0, ctr, TERN_OP_GET, 0, 0, &fin.u64, 0));
                break;
            case TERN_AT_FLOAT:
                MP_OK(tern_ad_op_float(ad, 0, ctr, TERN_OP_GET, 0, 0, &fin.f, 0));
                break;
            default:
                MP_OK(tern_ad_op_double(ad, 0, ctr, TERN_OP_GET, 0, 0, &fin.d, 0));
                break;
            }
            MP_CHECK(as_double(&fin) == (double)total, "type %d: final %g, not %zu", type,
                     as_double(&fin), total);
        }
        MP_OK(tern_barrier());
        MP_OK(tern_ad_destroy(ad));
    }
    free(all);
    free(seen);
    return mp_finish("atomic_contend");
}
