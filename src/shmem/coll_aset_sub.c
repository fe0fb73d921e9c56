/* The deprecated active-set collectives on a set that is not every PE:
 * only the set's PEs call, so no team can be made; they synchronize on
 * the caller's symmetric pSync words and move data with puts.
 *
 * pSync words (SHMEM_*_SYNC_SIZE = 32 longs, SHMEM_SYNC_VALUE = 0) are
 * counters, only ever changed by a blocking put-with-signal of no data
 * (SHMEM_SIGNAL_ADD), so every update of one uses the single mechanism
 * Tern keeps for signal words (a CPU atomic on one node, the network or
 * active-message atomics across nodes) and is done when the call returns
 * (shmem_signal_add would complete only at the next quiet):
 *   [0, 30)  dissemination barrier: in round r, set PE i adds 1 to word r
 *            of set PE i + 2^r and waits for its own word r to reach 1,
 *            then takes 1 away. A PE that has already left the barrier
 *            and entered the next one only adds one more, which the slow
 *            PE keeps for that next call, so consecutive barriers on one
 *            pSync need nothing between them (as the specification
 *            allows); 30 rounds cover 2^30 PEs.
 *   [30]     chain word of collect (the next PE's offset + 1) and of the
 *            reductions (a partial result arrived).
 * Each word is brought back to 0 by the PE that owns it before it leaves,
 * so pSync is SHMEM_SYNC_VALUE again on return. pWrk is not needed: the
 * reductions combine in dest, which is symmetric and of the result's size.
 * Algorithms are linear in the set's size (chain reductions, puts to every
 * member) and meant for old programs' correctness, not speed. */
#include <stdlib.h>
#include <string.h>

#include "coll_aset_sub.h"

enum { W_CHAIN = 30 };

static uint64_t *word(long *pSync, int i)
{
    return (uint64_t *)&pSync[i];
}

/* Adds v to word w of pSync on pe, done at pe on return. */
static void add(long *pSync, int w, uint64_t v, int pe)
{
    uint64_t *s = word(pSync, w);
    shmem_putmem_signal(s, s, 0, s, v, SHMEM_SIGNAL_ADD, pe);
}

static int aset_pe(const tshmem_aset_t *a, int i)
{
    return a->start + i * a->stride;
}

int tshmem_aset_make(tshmem_aset_t *a, const char *call, int PE_start, int logPE_stride,
                     int PE_size, long *pSync)
{
    int n = (int)tshmem_g.npes, me = tshmem_g.mype;
    if (n <= 0)
        tshmem_fatal("%s: called before shmem_init", call);
    if (PE_start < 0 || PE_start >= n || logPE_stride < 0 || logPE_stride > 30 ||
        PE_size < 1 ||
        (int64_t)PE_start + (int64_t)(PE_size - 1) * ((int64_t)1 << logPE_stride) >= n)
        tshmem_fatal("%s: the active set (PE_start %d, logPE_stride %d, PE_size %d) is "
                     "not a set of the %d PEs",
                     call, PE_start, logPE_stride, PE_size, n);
    int stride = 1 << logPE_stride;
    if (me < PE_start || (me - PE_start) % stride || (me - PE_start) / stride >= PE_size)
        tshmem_fatal("%s: PE %d is not in the active set (PE_start %d, logPE_stride %d, "
                     "PE_size %d); only the set's PEs may call",
                     call, me, PE_start, logPE_stride, PE_size);
    if (!pSync || !shmem_addr_accessible(pSync, me) ||
        ((uintptr_t)pSync & (sizeof(long) - 1)))
        tshmem_fatal("%s: pSync %p is not an aligned symmetric array of "
                     "SHMEM_SYNC_SIZE longs",
                     call, (void *)pSync);
    a->start = PE_start;
    a->stride = stride;
    a->size = PE_size;
    a->idx = (me - PE_start) / stride;
    a->pSync = pSync;
    return 0;
}

/* Waits until my word w is at least 1 and takes that value away from it;
 * returns it. */
static uint64_t take(long *pSync, int w)
{
    uint64_t *s = word(pSync, w);
    uint64_t v = shmem_signal_wait_until(s, SHMEM_CMP_GE, 1);
    add(pSync, w, (uint64_t)0 - v, tshmem_g.mype);
    return v;
}

/* Waits for one arrival on word w and consumes only it. */
static void take_one(long *pSync, int w)
{
    uint64_t *s = word(pSync, w);
    (void)shmem_signal_wait_until(s, SHMEM_CMP_GE, 1);
    add(pSync, w, (uint64_t)0 - 1, tshmem_g.mype);
}

void tshmem_aset_sync(const tshmem_aset_t *a)
{
    int r = 0;
    for (int dist = 1; dist < a->size; dist <<= 1, r++) {
        int to = aset_pe(a, (a->idx + dist) % a->size);
        add(a->pSync, r, 1, to);
        take_one(a->pSync, r);
    }
}

void tshmem_aset_broadcast(const tshmem_aset_t *a, void *dest, const void *source,
                           size_t bytes, int root)
{
    if (root < 0 || root >= a->size)
        tshmem_fatal(
            "shmem_broadcast: PE_root %d is not an index of the active set of %d "
            "PEs",
            root, a->size);
    if (a->idx == root && bytes) {
        for (int i = 0; i < a->size; i++)
            if (i != root)
                shmem_putmem(dest, source, bytes, aset_pe(a, i));
        shmem_quiet();
    }
    tshmem_aset_sync(a);
}

void tshmem_aset_collect(const tshmem_aset_t *a, void *dest, const void *source,
                         size_t bytes, int fixed)
{
    size_t off;
    if (fixed) {
        off = (size_t)a->idx * bytes;
    } else {
        /* offsets along the chain, sent as offset + 1 (0 is "nothing") */
        off = a->idx == 0 ? 0 : (size_t)(take(a->pSync, W_CHAIN) - 1);
        if (a->idx + 1 < a->size)
            add(a->pSync, W_CHAIN, (uint64_t)(off + bytes) + 1, aset_pe(a, a->idx + 1));
    }
    if (bytes) {
        for (int i = 0; i < a->size; i++)
            shmem_putmem((char *)dest + off, source, bytes, aset_pe(a, i));
        shmem_quiet();
    }
    tshmem_aset_sync(a);
}

void tshmem_aset_alltoall(const tshmem_aset_t *a, void *dest, const void *source,
                          size_t bytes)
{
    if (bytes) {
        for (int k = 1; k <= a->size; k++) { /* start with the next PE: spread the load */
            int i = (a->idx + k) % a->size;
            shmem_putmem((char *)dest + (size_t)a->idx * bytes,
                         (const char *)source + (size_t)i * bytes, bytes, aset_pe(a, i));
        }
        shmem_quiet();
    }
    tshmem_aset_sync(a);
}

void tshmem_aset_alltoalls(const tshmem_aset_t *a, void *dest, const void *source,
                           ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int bits)
{
    if (nelems) {
        for (int k = 1; k <= a->size; k++) {
            int i = (a->idx + k) % a->size;
            if (bits == 32)
                shmem_iput32((uint32_t *)dest + dst * (ptrdiff_t)(a->idx * nelems),
                             (const uint32_t *)source + sst * (ptrdiff_t)(i * nelems),
                             dst, sst, nelems, aset_pe(a, i));
            else
                shmem_iput64((uint64_t *)dest + dst * (ptrdiff_t)(a->idx * nelems),
                             (const uint64_t *)source + sst * (ptrdiff_t)(i * nelems),
                             dst, sst, nelems, aset_pe(a, i));
        }
        shmem_quiet();
    }
    tshmem_aset_sync(a);
}

void tshmem_aset_reduce(const tshmem_aset_t *a, const char *call, void *dest,
                        const void *source, size_t nelems, size_t es,
                        tshmem_aset_combine_fn combine)
{
    size_t bytes = nelems * es;
    if (!bytes) {
        tshmem_aset_sync(a);
        return;
    }
    /* dest may be source: keep this PE's contribution before anyone may
     * write into dest (the first sync) */
    void *mine = malloc(bytes);
    if (!mine)
        tshmem_fatal("%s: no memory for %zu bytes", call, bytes);
    memcpy(mine, source, bytes);
    tshmem_aset_sync(a);
    /* the chain: set PE i receives the result of 0..i-1 in dest, combines
     * its own into it and passes it on; the last has the whole result */
    if (a->idx == 0)
        memcpy(dest, mine, bytes);
    else {
        take_one(a->pSync, W_CHAIN);
        combine(dest, mine, nelems);
    }
    free(mine);
    if (a->idx + 1 < a->size)
        shmem_putmem_signal(dest, dest, bytes, word(a->pSync, W_CHAIN), 1,
                            SHMEM_SIGNAL_ADD, aset_pe(a, a->idx + 1));
    else {
        for (int i = 0; i + 1 < a->size; i++)
            shmem_putmem(dest, dest, bytes, aset_pe(a, i));
        shmem_quiet();
    }
    tshmem_aset_sync(a);
}
