/* The deprecated spellings that SGI-era programs still use and the
 * specification (1.6, Annex B) still requires: the header directory mpp
 * (<mpp/shmem.h>, <mpp/shmemx.h>) and the _SHMEM_* library constants,
 * here sizing and setting the pSync and pWrk arrays of the deprecated
 * active-set barrier, broadcast, collect and reduction over every PE and
 * over the odd PEs. tests-uh, tests-cray and gups-shmem did not compile
 * without them. */
#include <mpp/shmem.h>
#include <mpp/shmemx.h>

#include "shmem_test.h"

#if _SHMEM_SYNC_VALUE != SHMEM_SYNC_VALUE ||                           \
    _SHMEM_BCAST_SYNC_SIZE != SHMEM_BCAST_SYNC_SIZE ||                 \
    _SHMEM_BARRIER_SYNC_SIZE != SHMEM_BARRIER_SYNC_SIZE ||             \
    _SHMEM_REDUCE_SYNC_SIZE != SHMEM_REDUCE_SYNC_SIZE ||               \
    _SHMEM_COLLECT_SYNC_SIZE != SHMEM_COLLECT_SYNC_SIZE ||             \
    _SHMEM_REDUCE_MIN_WRKDATA_SIZE != SHMEM_REDUCE_MIN_WRKDATA_SIZE || \
    _SHMEM_MAJOR_VERSION != SHMEM_MAJOR_VERSION || _SHMEM_CMP_EQ != SHMEM_CMP_EQ
#error "a _SHMEM_ constant differs from its SHMEM_ name"
#endif

static long bar_sync[_SHMEM_BARRIER_SYNC_SIZE];
static long bc_sync[_SHMEM_BCAST_SYNC_SIZE];
static long col_sync[_SHMEM_COLLECT_SYNC_SIZE];
static long red_sync[_SHMEM_REDUCE_SYNC_SIZE];
static long red_wrk[_SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
static long src[4], dst[4 * 64], sum, one;

static void clear(long *p, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = _SHMEM_SYNC_VALUE;
}

/* The collectives over the PEs start, start + 2^log, ... (size of them). */
static void run(int start, int log, int size)
{
    int me = shmem_my_pe();
    int stride = 1 << log;
    if (me < start || (me - start) % stride != 0 || (me - start) / stride >= size)
        return;
    shmem_barrier(start, log, size, bar_sync);
    for (int i = 0; i < 4; i++)
        src[i] = 100L * me + i;
    clear(dst, 4 * 64);
    shmem_barrier(start, log, size, bar_sync);
    shmem_broadcast64(dst, src, 4, 0, start, log, size, bc_sync);
    if (me != start)
        for (int i = 0; i < 4; i++)
            CHECK(dst[i] == 100L * start + i, "broadcast dst[%d] = %ld", i, dst[i]);
    shmem_barrier(start, log, size, bar_sync);
    shmem_fcollect64(dst, src, 4, start, log, size, col_sync);
    for (int k = 0; k < size; k++)
        for (int i = 0; i < 4; i++)
            CHECK(dst[4 * k + i] == 100L * (start + k * stride) + i, "fcollect dst[%d]",
                  4 * k + i);
    one = me + 1;
    shmem_long_sum_to_all(&sum, &one, 1, start, log, size, red_wrk, red_sync);
    long want = 0;
    for (int k = 0; k < size; k++)
        want += start + k * stride + 1;
    CHECK(sum == want, "sum_to_all %ld, expected %ld", sum, want);
    shmem_barrier(start, log, size, bar_sync);
}

int main(void)
{
    shmem_init();
    int n = shmem_n_pes();
    CHECK(n <= 64, "at most 64 PEs");
    clear(bar_sync, _SHMEM_BARRIER_SYNC_SIZE);
    clear(bc_sync, _SHMEM_BCAST_SYNC_SIZE);
    clear(col_sync, _SHMEM_COLLECT_SYNC_SIZE);
    clear(red_sync, _SHMEM_REDUCE_SYNC_SIZE);
    shmem_barrier_all();
    run(0, 0, n);
    shmem_barrier_all();
    if (n >= 2)
        run(1, 1, n / 2); /* the odd PEs */
    return finish("shmem.legacy");
}
