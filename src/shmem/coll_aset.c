/* The deprecated active-set collectives (PE_start, 2^logPE_stride,
 * PE_size, pSync, pWrk). They run on a team of exactly the active set:
 * the world team when the set is every PE; any other set would need a
 * team made collectively over every PE, which these calls cannot ask of
 * PEs outside the set, so they end the job with a message saying to use
 * the team routines (a known gap, docs/shmem.md). pSync and pWrk are not
 * used: Tern's collectives keep their own synchronization and space, so
 * pSync stays at SHMEM_SYNC_VALUE as the specification requires. */
#include <stdlib.h>
#include <string.h>

#include "tshmem.h"

static shmem_team_t aset_team(const char *call, int PE_start, int logPE_stride,
                              int PE_size)
{
    if (PE_start == 0 && (logPE_stride == 0 || PE_size == 1) &&
        (uint32_t)PE_size == tshmem_g.npes)
        return SHMEM_TEAM_WORLD;
    tshmem_fatal(
        "%s: the active set (PE_start %d, logPE_stride %d, PE_size %d) is not "
        "every PE; Tern's OpenSHMEM runs active-set collectives on all PEs only: "
        "use a team (shmem_team_split_strided) and the team routines",
        call, PE_start, logPE_stride, PE_size);
}

static void check(const char *call, int rc)
{
    if (rc != 0)
        tshmem_fatal("%s failed (see above)", call);
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    (void)pSync;
    shmem_team_t t = aset_team("shmem_barrier", PE_start, logPE_stride, PE_size);
    shmem_quiet();
    check("shmem_barrier", shmem_team_sync(t));
}

void tshmem_sync_aset_(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    (void)pSync;
    check("shmem_sync",
          shmem_team_sync(aset_team("shmem_sync", PE_start, logPE_stride, PE_size)));
}

void(shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    tshmem_sync_aset_(PE_start, logPE_stride, PE_size, pSync);
}

/* The deprecated broadcast leaves the root's dest as it was: the root
 * keeps a copy and puts it back (its dest is written by no one else). */
static void aset_broadcast(const char *call, shmem_team_t t, void *dest,
                           const void *source, size_t n, int root)
{
    void *keep = NULL;
    if (shmem_team_my_pe(t) == root && dest != source && n) {
        keep = malloc(n);
        if (!keep)
            tshmem_fatal("%s: no memory for %zu bytes", call, n);
        memcpy(keep, dest, n);
    }
    check(call, shmem_broadcastmem(t, dest, source, n, root));
    if (keep) {
        memcpy(dest, keep, n);
        free(keep);
    }
}

#define TSHMEM_DEF_ASET_SIZED_(B)                                                        \
    void shmem_broadcast##B(void *dest, const void *source, size_t nelems, int PE_root,  \
                            int PE_start, int logPE_stride, int PE_size, long *pSync)    \
    {                                                                                    \
        (void)pSync;                                                                     \
        shmem_team_t t =                                                                 \
            aset_team("shmem_broadcast" #B, PE_start, logPE_stride, PE_size);            \
        aset_broadcast("shmem_broadcast" #B, t, dest, source, nelems *(B / 8), PE_root); \
    }                                                                                    \
    void shmem_collect##B(void *dest, const void *source, size_t nelems, int PE_start,   \
                          int logPE_stride, int PE_size, long *pSync)                    \
    {                                                                                    \
        (void)pSync;                                                                     \
        check("shmem_collect" #B,                                                        \
              shmem_collectmem(                                                          \
                  aset_team("shmem_collect" #B, PE_start, logPE_stride, PE_size), dest,  \
                  source, nelems *(B / 8)));                                             \
    }                                                                                    \
    void shmem_fcollect##B(void *dest, const void *source, size_t nelems, int PE_start,  \
                           int logPE_stride, int PE_size, long *pSync)                   \
    {                                                                                    \
        (void)pSync;                                                                     \
        check("shmem_fcollect" #B,                                                       \
              shmem_fcollectmem(                                                         \
                  aset_team("shmem_fcollect" #B, PE_start, logPE_stride, PE_size), dest, \
                  source, nelems *(B / 8)));                                             \
    }                                                                                    \
    void shmem_alltoall##B(void *dest, const void *source, size_t nelems, int PE_start,  \
                           int logPE_stride, int PE_size, long *pSync)                   \
    {                                                                                    \
        (void)pSync;                                                                     \
        check("shmem_alltoall" #B,                                                       \
              shmem_alltoallmem(                                                         \
                  aset_team("shmem_alltoall" #B, PE_start, logPE_stride, PE_size), dest, \
                  source, nelems *(B / 8)));                                             \
    }                                                                                    \
    void shmem_alltoalls##B(void *dest, const void *source, ptrdiff_t dst,               \
                            ptrdiff_t sst, size_t nelems, int PE_start,                  \
                            int logPE_stride, int PE_size, long *pSync)                  \
    {                                                                                    \
        (void)pSync;                                                                     \
        shmem_team_t t =                                                                 \
            aset_team("shmem_alltoalls" #B, PE_start, logPE_stride, PE_size);            \
        check("shmem_alltoalls" #B,                                                      \
              shmem_uint##B##_alltoalls(t, dest, source, dst, sst, nelems));             \
    }
TSHMEM_DEF_ASET_SIZED_(32)
TSHMEM_DEF_ASET_SIZED_(64)

#define TSHMEM_DEF_TOALL_(T, N, OP)                                                     \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start, \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync) \
    {                                                                                   \
        (void)pWrk, (void)pSync;                                                        \
        const char *call = "shmem_" #N "_" #OP "_to_all";                               \
        if (nreduce < 0)                                                                \
            tshmem_fatal("%s: nreduce %d is negative", call, nreduce);                  \
        check(call, shmem_##N##_##OP##_reduce(                                          \
                        aset_team(call, PE_start, logPE_stride, PE_size), dest, source, \
                        (size_t)nreduce));                                              \
    }
/* Bitwise: the team routines exist for the exact-width types; these are
 * of the same sizes on LP64 (checked). */
#define TSHMEM_DEF_TOALL_AS_(T, N, OP, W)                                                \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,  \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync)  \
    {                                                                                    \
        _Static_assert(sizeof(T) == sizeof(W##_t), #T " is not " #W "_t");               \
        (void)pWrk, (void)pSync;                                                         \
        const char *call = "shmem_" #N "_" #OP "_to_all";                                \
        if (nreduce < 0)                                                                 \
            tshmem_fatal("%s: nreduce %d is negative", call, nreduce);                   \
        check(call, shmem_##W##_##OP##_reduce(                                           \
                        aset_team(call, PE_start, logPE_stride, PE_size), (W##_t *)dest, \
                        (const W##_t *)source, (size_t)nreduce));                        \
    }
#define TSHMEM_DEF_TOALL_BIT_(T, N, W) \
    TSHMEM_DEF_TOALL_AS_(T, N, and, W) \
    TSHMEM_DEF_TOALL_AS_(T, N, or, W) TSHMEM_DEF_TOALL_AS_(T, N, xor, W)
TSHMEM_DEF_TOALL_BIT_(short, short, int16)
TSHMEM_DEF_TOALL_BIT_(int, int, int32)
TSHMEM_DEF_TOALL_BIT_(long, long, int64)
TSHMEM_DEF_TOALL_BIT_(long long, longlong, int64)
#define TSHMEM_DEF_TOALL_ORD_(T, N) \
    TSHMEM_DEF_TOALL_(T, N, max) TSHMEM_DEF_TOALL_(T, N, min)
#define TSHMEM_DEF_TOALL_ARITH_(T, N) \
    TSHMEM_DEF_TOALL_(T, N, sum) TSHMEM_DEF_TOALL_(T, N, prod)
TSHMEM_ASET_ORD_TYPES(TSHMEM_DEF_TOALL_ORD_)
TSHMEM_ASET_ARITH_TYPES(TSHMEM_DEF_TOALL_ARITH_)
