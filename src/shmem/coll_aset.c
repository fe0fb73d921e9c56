/* The deprecated active-set collectives (PE_start, 2^logPE_stride,
 * PE_size, pSync, pWrk). When the set is every PE they run on the world
 * team with Tern's collectives, which keep their own synchronization and
 * space (pSync and pWrk untouched, so pSync stays at SHMEM_SYNC_VALUE as
 * the specification requires). Any other set cannot have a team (making
 * one is collective over every PE, and only the set's PEs call): those go
 * to coll_aset_sub.c, which synchronizes on pSync. A program's calls over
 * every PE mostly do not come here: shmem.h makes the Tern call itself
 * (tshmem/fast.h); these serve the rest, and the inline paths' failures
 * end in tshmem_aset_fail_. */

#include "coll_aset_sub.h"

/* The world team when the set is every PE; otherwise NULL with *a the
 * checked subset. */
static shmem_team_t aset_team(const char *call, int PE_start, int logPE_stride,
                              int PE_size, long *pSync, tshmem_aset_t *a)
{
    if (PE_start == 0 && (logPE_stride == 0 || PE_size == 1) &&
        (uint32_t)PE_size == tshmem_g.npes)
        return SHMEM_TEAM_WORLD;
    tshmem_aset_make(a, call, PE_start, logPE_stride, PE_size, pSync);
    return NULL;
}

static void check(const char *call, int rc)
{
    if (rc != 0)
        tshmem_fatal("%s failed (see above)", call);
}

void tshmem_aset_fail_(const char *inner, const char *call, int status)
{
    tshmem_error("%s: %s (see above)", inner, tern_strerror(status));
    tshmem_fatal("%s failed (see above)", call);
}

/* The bytes of nelems elements of es bytes; a count that overflows them
 * ends the job with a message (it fits no symmetric buffer). */
static size_t aset_bytes(const char *call, size_t nelems, size_t es)
{
    size_t n;
    if (TSHMEM_UNLIKELY(__builtin_mul_overflow(nelems, es, &n)))
        tshmem_fatal("%s: %zu elements of %zu bytes overflow the address space", call,
                     nelems, es);
    return n;
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    tshmem_aset_t a;
    shmem_team_t t =
        aset_team("shmem_barrier", PE_start, logPE_stride, PE_size, pSync, &a);
    shmem_quiet();
    if (!t)
        tshmem_aset_sync(&a);
    else
        check("shmem_barrier", shmem_team_sync(t));
}

void tshmem_sync_aset_(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    tshmem_aset_t a;
    shmem_team_t t = aset_team("shmem_sync", PE_start, logPE_stride, PE_size, pSync, &a);
    if (!t)
        tshmem_aset_sync(&a);
    else
        check("shmem_sync", shmem_team_sync(t));
}

void(shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    tshmem_sync_aset_(PE_start, logPE_stride, PE_size, pSync);
}

/* The deprecated broadcast leaves the root's dest as it was (the 1.6
 * text: "updated on all PEs other than the root"; the team form updates
 * every PE's): Tern's broadcast with TERN_BCAST_KEEP_ROOT, whose root
 * copies nothing into its dest. Initialized and with a root in range, it
 * calls Tern's world broadcast directly (the world team's rank is the
 * PE): through shmem_team_my_pe and shmem_broadcastmem's team checks it
 * took 15-25 ns more per 8-byte broadcast than tern_broadcast, on a 60-70
 * ns collective (2 PEs, shm, docs/design/shmem-bench.md). Before, the root
 * copied its dest aside and back around tern_broadcast, which writes it:
 * 1.39x the native call at 4 KiB. Not initialized, or a root out of
 * range: shmem_broadcastmem's checks name what is wrong (with 0 bytes, so
 * that nothing is written whatever it does) and the call fails. */
static void aset_broadcast(const char *call, void *dest, const void *source, size_t n,
                           int root)
{
    if (TSHMEM_UNLIKELY(tshmem_g.init_count == 0 || (unsigned)root >= tshmem_g.npes)) {
        shmem_broadcastmem(SHMEM_TEAM_WORLD, dest, source, 0, root);
        check(call, 1);
    }
    int rc = tern_broadcast_flags(TERN_TEAM_WORLD, dest, source, n, root,
                                  TERN_BCAST_KEEP_ROOT);
    if (TSHMEM_UNLIKELY(rc != TERN_OK))
        tshmem_aset_fail_("shmem_broadcast", call, rc);
}

#define TSHMEM_DEF_ASET_SIZED_(B)                                                       \
    void shmem_broadcast##B(void *dest, const void *source, size_t nelems, int PE_root, \
                            int PE_start, int logPE_stride, int PE_size, long *pSync)   \
    {                                                                                   \
        const char *call = "shmem_broadcast" #B;                                        \
        tshmem_aset_t a;                                                                \
        shmem_team_t t = aset_team(call, PE_start, logPE_stride, PE_size, pSync, &a);   \
        if (!t)                                                                         \
            tshmem_aset_broadcast(&a, dest, source, aset_bytes(call, nelems, B / 8),    \
                                  PE_root);                                             \
        else                                                                            \
            aset_broadcast(call, dest, source, aset_bytes(call, nelems, B / 8),         \
                           PE_root);                                                    \
    }                                                                                   \
    void shmem_collect##B(void *dest, const void *source, size_t nelems, int PE_start,  \
                          int logPE_stride, int PE_size, long *pSync)                   \
    {                                                                                   \
        const char *call = "shmem_collect" #B;                                          \
        tshmem_aset_t a;                                                                \
        shmem_team_t t = aset_team(call, PE_start, logPE_stride, PE_size, pSync, &a);   \
        if (!t)                                                                         \
            tshmem_aset_collect(&a, dest, source, aset_bytes(call, nelems, B / 8), 0);  \
        else                                                                            \
            check(call,                                                                 \
                  shmem_collectmem(t, dest, source, aset_bytes(call, nelems, B / 8)));  \
    }                                                                                   \
    void shmem_fcollect##B(void *dest, const void *source, size_t nelems, int PE_start, \
                           int logPE_stride, int PE_size, long *pSync)                  \
    {                                                                                   \
        const char *call = "shmem_fcollect" #B;                                         \
        tshmem_aset_t a;                                                                \
        shmem_team_t t = aset_team(call, PE_start, logPE_stride, PE_size, pSync, &a);   \
        if (!t)                                                                         \
            tshmem_aset_collect(&a, dest, source, aset_bytes(call, nelems, B / 8), 1);  \
        else                                                                            \
            check(call,                                                                 \
                  shmem_fcollectmem(t, dest, source, aset_bytes(call, nelems, B / 8))); \
    }                                                                                   \
    void shmem_alltoall##B(void *dest, const void *source, size_t nelems, int PE_start, \
                           int logPE_stride, int PE_size, long *pSync)                  \
    {                                                                                   \
        const char *call = "shmem_alltoall" #B;                                         \
        tshmem_aset_t a;                                                                \
        shmem_team_t t = aset_team(call, PE_start, logPE_stride, PE_size, pSync, &a);   \
        if (!t)                                                                         \
            tshmem_aset_alltoall(&a, dest, source, aset_bytes(call, nelems, B / 8));    \
        else                                                                            \
            check(call,                                                                 \
                  shmem_alltoallmem(t, dest, source, aset_bytes(call, nelems, B / 8))); \
    }                                                                                   \
    void shmem_alltoalls##B(void *dest, const void *source, ptrdiff_t dst,              \
                            ptrdiff_t sst, size_t nelems, int PE_start,                 \
                            int logPE_stride, int PE_size, long *pSync)                 \
    {                                                                                   \
        const char *call = "shmem_alltoalls" #B;                                        \
        tshmem_aset_t a;                                                                \
        shmem_team_t t = aset_team(call, PE_start, logPE_stride, PE_size, pSync, &a);   \
        if (!t)                                                                         \
            tshmem_aset_alltoalls(&a, dest, source, dst, sst, nelems, B);               \
        else                                                                            \
            check(call, shmem_uint##B##_alltoalls(t, dest, source, dst, sst, nelems));  \
    }
TSHMEM_DEF_ASET_SIZED_(32)
TSHMEM_DEF_ASET_SIZED_(64)

/* The combining step of a subset's reduction: acc = acc OP mine. */
#define TSHMEM_ASET_OP_and(x, y)  ((x) & (y))
#define TSHMEM_ASET_OP_or(x, y)   ((x) | (y))
#define TSHMEM_ASET_OP_xor(x, y)  ((x) ^ (y))
#define TSHMEM_ASET_OP_max(x, y)  ((x) > (y) ? (x) : (y))
#define TSHMEM_ASET_OP_min(x, y)  ((x) < (y) ? (x) : (y))
#define TSHMEM_ASET_OP_sum(x, y)  ((x) + (y))
#define TSHMEM_ASET_OP_prod(x, y) ((x) * (y))
#define TSHMEM_DEF_COMBINE_(T, N, OP)                                     \
    static void combine_##N##_##OP(void *acc, const void *mine, size_t n) \
    {                                                                     \
        T *x = acc;                                                       \
        const T *y = mine;                                                \
        for (size_t i = 0; i < n; i++)                                    \
            x[i] = TSHMEM_ASET_OP_##OP(x[i], y[i]);                       \
    }

#define TSHMEM_DEF_TOALL_(T, N, OP)                                                     \
    TSHMEM_DEF_COMBINE_(T, N, OP)                                                       \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start, \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync) \
    {                                                                                   \
        (void)pWrk;                                                                     \
        const char *call = "shmem_" #N "_" #OP "_to_all";                               \
        if (nreduce < 0)                                                                \
            tshmem_fatal("%s: nreduce %d is negative", call, nreduce);                  \
        tshmem_aset_t a;                                                                \
        shmem_team_t t = aset_team(call, PE_start, logPE_stride, PE_size, pSync, &a);   \
        if (!t)                                                                         \
            tshmem_aset_reduce(&a, call, dest, source, (size_t)nreduce, sizeof(T),      \
                               combine_##N##_##OP);                                     \
        else                                                                            \
            check(call, shmem_##N##_##OP##_reduce(t, dest, source, (size_t)nreduce));   \
    }
/* Bitwise: the team routines exist for the exact-width types; these are
 * of the same sizes on LP64 (checked). */
#define TSHMEM_DEF_TOALL_AS_(T, N, OP, W)                                               \
    TSHMEM_DEF_COMBINE_(T, N, OP)                                                       \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start, \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync) \
    {                                                                                   \
        _Static_assert(sizeof(T) == sizeof(W##_t), #T " is not " #W "_t");              \
        (void)pWrk;                                                                     \
        const char *call = "shmem_" #N "_" #OP "_to_all";                               \
        if (nreduce < 0)                                                                \
            tshmem_fatal("%s: nreduce %d is negative", call, nreduce);                  \
        tshmem_aset_t a;                                                                \
        shmem_team_t t = aset_team(call, PE_start, logPE_stride, PE_size, pSync, &a);   \
        if (!t)                                                                         \
            tshmem_aset_reduce(&a, call, dest, source, (size_t)nreduce, sizeof(T),      \
                               combine_##N##_##OP);                                     \
        else                                                                            \
            check(call, shmem_##W##_##OP##_reduce(                                      \
                            t, (W##_t *)dest, (const W##_t *)source, (size_t)nreduce)); \
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
