/* OpenSHMEM 1.6 teams and collectives (included by shmem.h; do not include
 * it directly). Teams are Tern teams (tern/team.h); collectives run on
 * them, with Tern's algorithms. Every collective routine returns 0 on
 * success and nonzero on a bad team or argument (a message says which). */
#ifndef TSHMEM_COLL_H
#define TSHMEM_COLL_H

#ifndef SHMEM_H
#error "include <shmem.h>, not <tshmem/coll.h>"
#endif

/* ---- teams ------------------------------------------------------------------ */

typedef struct tshmem_team_s *shmem_team_t;
typedef struct {
    int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

extern TSHMEM_API struct tshmem_team_s tshmem_team_world_, tshmem_team_shared_;
#define SHMEM_TEAM_WORLD   (&tshmem_team_world_)
#define SHMEM_TEAM_SHARED  (&tshmem_team_shared_)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

/* -1 for SHMEM_TEAM_INVALID or a destroyed team. */
TSHMEM_API int shmem_team_my_pe(shmem_team_t team);
TSHMEM_API int shmem_team_n_pes(shmem_team_t team);
TSHMEM_API int shmem_team_get_config(shmem_team_t team, long config_mask,
                                     shmem_team_config_t *config);
TSHMEM_API int shmem_team_translate_pe(shmem_team_t src_team, int src_pe,
                                       shmem_team_t dest_team);
/* stride > 0 keeps the parent's order, stride < 0 reverses it, stride 0
 * needs size 1 (OpenSHMEM 1.6). */
TSHMEM_API int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride,
                                        int size, const shmem_team_config_t *config,
                                        long config_mask, shmem_team_t *new_team);
TSHMEM_API int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                                   const shmem_team_config_t *xaxis_config,
                                   long xaxis_mask, shmem_team_t *xaxis_team,
                                   const shmem_team_config_t *yaxis_config,
                                   long yaxis_mask, shmem_team_t *yaxis_team);
TSHMEM_API void shmem_team_destroy(shmem_team_t team);
TSHMEM_API int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
TSHMEM_API int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);
TSHMEM_API void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);

/* ---- synchronization ----------------------------------------------------------- */

TSHMEM_API int shmem_team_sync(shmem_team_t team);
/* Deprecated active-set forms (PE_start, 2^logPE_stride, PE_size; pSync
 * of SHMEM_*_SYNC_SIZE longs set to SHMEM_SYNC_VALUE). A set that is not
 * every PE synchronizes on pSync: 30 barrier rounds (2^30 PEs) and a chain
 * word, hence 32 longs. */
TSHMEM_API void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
TSHMEM_API void tshmem_sync_aset_(int PE_start, int logPE_stride, int PE_size,
                                  long *pSync);
/* A deprecated active-set collective over every PE failed in Tern's call
 * (the inline paths of tshmem/fast.h): "inner: <status> (see above)", then
 * the job ends with "call failed (see above)", as in the library's path. */
TSHMEM_API TSHMEM_NORETURN void tshmem_aset_fail_(const char *inner, const char *call,
                                                  int status);

#define SHMEM_SYNC_VALUE              0L
#define SHMEM_SYNC_SIZE               32
#define SHMEM_BCAST_SYNC_SIZE         32
#define SHMEM_BARRIER_SYNC_SIZE       32
#define SHMEM_REDUCE_SYNC_SIZE        32
#define SHMEM_COLLECT_SYNC_SIZE       32
#define SHMEM_ALLTOALL_SYNC_SIZE      32
#define SHMEM_ALLTOALLS_SYNC_SIZE     32
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
/* The deprecated names (specification 1.6, Annex "_SHMEM_* Library
 * Constants"), which SGI-era programs and test suites still use. */
#define _SHMEM_SYNC_VALUE              SHMEM_SYNC_VALUE
#define _SHMEM_BCAST_SYNC_SIZE         SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE       SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE        SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE       SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* ---- data movement ------------------------------------------------------------ */

TSHMEM_API int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source,
                                  size_t nelems, int PE_root);
TSHMEM_API int shmem_collectmem(shmem_team_t team, void *dest, const void *source,
                                size_t nelems);
TSHMEM_API int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source,
                                 size_t nelems);
TSHMEM_API int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source,
                                 size_t nelems);
TSHMEM_API int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source,
                                  ptrdiff_t dst, ptrdiff_t sst, size_t nelems);

#define TSHMEM_DECL_COLL_(T, N)                                                       \
    TSHMEM_API int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, \
                                         size_t nelems, int PE_root);                 \
    TSHMEM_API int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source,   \
                                       size_t nelems);                                \
    TSHMEM_API int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source,  \
                                        size_t nelems);                               \
    TSHMEM_API int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source,  \
                                        size_t nelems);                               \
    TSHMEM_API int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, \
                                         ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
TSHMEM_RMA_TYPES(TSHMEM_DECL_COLL_)
#undef TSHMEM_DECL_COLL_

/* Deprecated active-set forms. */
#define TSHMEM_DECL_ASET_SIZED_(B)                                                    \
    TSHMEM_API void shmem_broadcast##B(void *dest, const void *source, size_t nelems, \
                                       int PE_root, int PE_start, int logPE_stride,   \
                                       int PE_size, long *pSync);                     \
    TSHMEM_API void shmem_collect##B(void *dest, const void *source, size_t nelems,   \
                                     int PE_start, int logPE_stride, int PE_size,     \
                                     long *pSync);                                    \
    TSHMEM_API void shmem_fcollect##B(void *dest, const void *source, size_t nelems,  \
                                      int PE_start, int logPE_stride, int PE_size,    \
                                      long *pSync);                                   \
    TSHMEM_API void shmem_alltoall##B(void *dest, const void *source, size_t nelems,  \
                                      int PE_start, int logPE_stride, int PE_size,    \
                                      long *pSync);                                   \
    TSHMEM_API void shmem_alltoalls##B(void *dest, const void *source, ptrdiff_t dst, \
                                       ptrdiff_t sst, size_t nelems, int PE_start,    \
                                       int logPE_stride, int PE_size, long *pSync);
TSHMEM_DECL_ASET_SIZED_(32)
TSHMEM_DECL_ASET_SIZED_(64)
#undef TSHMEM_DECL_ASET_SIZED_

/* ---- reductions ------------------------------------------------------------------ */

/* X(TYPE, TYPENAME) per class of the team reduction table: bitwise
 * (AND, OR, XOR), ordered (MAX, MIN), arithmetic (SUM, PROD). */
#define TSHMEM_RED_BIT_TYPES(X)      \
    X(unsigned char, uchar)          \
    X(unsigned short, ushort)        \
    X(unsigned int, uint)            \
    X(unsigned long, ulong)          \
    X(unsigned long long, ulonglong) \
    X(int8_t, int8)                  \
    X(int16_t, int16)                \
    X(int32_t, int32)                \
    X(int64_t, int64)                \
    X(uint8_t, uint8)                \
    X(uint16_t, uint16)              \
    X(uint32_t, uint32)              \
    X(uint64_t, uint64)              \
    X(size_t, size)
#define TSHMEM_RED_ORD_TYPES(X) \
    X(char, char)               \
    X(signed char, schar)       \
    X(short, short)             \
    X(int, int)                 \
    X(long, long)               \
    X(long long, longlong)      \
    X(ptrdiff_t, ptrdiff)       \
    TSHMEM_RED_BIT_TYPES(X)     \
    X(float, float)             \
    X(double, double)           \
    X(long double, longdouble)
#define TSHMEM_RED_ARITH_TYPES(X) \
    TSHMEM_RED_ORD_TYPES(X)       \
    X(double _Complex, complexd)  \
    X(float _Complex, complexf)

#define TSHMEM_DECL_RED_(T, N, OP)                                       \
    TSHMEM_API int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, \
                                             const T *source, size_t nreduce);
#define TSHMEM_DECL_RED_BIT_(T, N) \
    TSHMEM_DECL_RED_(T, N, and) TSHMEM_DECL_RED_(T, N, or) TSHMEM_DECL_RED_(T, N, xor)
#define TSHMEM_DECL_RED_ORD_(T, N) TSHMEM_DECL_RED_(T, N, max) TSHMEM_DECL_RED_(T, N, min)
#define TSHMEM_DECL_RED_ARITH_(T, N)                                                   \
    TSHMEM_DECL_RED_(T, N, sum)                                                        \
    TSHMEM_DECL_RED_(T, N, prod)                                                       \
    TSHMEM_API int shmem_##N##_sum_inscan(shmem_team_t team, T *dest, const T *source, \
                                          size_t nelems);                              \
    TSHMEM_API int shmem_##N##_sum_exscan(shmem_team_t team, T *dest, const T *source, \
                                          size_t nelems);
TSHMEM_RED_BIT_TYPES(TSHMEM_DECL_RED_BIT_)
TSHMEM_RED_ORD_TYPES(TSHMEM_DECL_RED_ORD_)
TSHMEM_RED_ARITH_TYPES(TSHMEM_DECL_RED_ARITH_)

/* Deprecated active-set reductions: X(TYPE, TYPENAME) of the active-set
 * table; pWrk is not used (Tern's algorithms keep their own space). */
#define TSHMEM_ASET_BIT_TYPES(X) \
    X(short, short)              \
    X(int, int)                  \
    X(long, long)                \
    X(long long, longlong)
#define TSHMEM_ASET_ORD_TYPES(X) \
    TSHMEM_ASET_BIT_TYPES(X)     \
    X(float, float)              \
    X(double, double)            \
    X(long double, longdouble)
#define TSHMEM_ASET_ARITH_TYPES(X) \
    TSHMEM_ASET_ORD_TYPES(X)       \
    X(double _Complex, complexd)   \
    X(float _Complex, complexf)
#define TSHMEM_DECL_TOALL_(T, N, OP)                                                 \
    TSHMEM_API void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, \
                                              int PE_start, int logPE_stride,        \
                                              int PE_size, T *pWrk, long *pSync);
#define TSHMEM_DECL_TOALL_BIT_(T, N) \
    TSHMEM_DECL_TOALL_(T, N, and)    \
    TSHMEM_DECL_TOALL_(T, N, or) TSHMEM_DECL_TOALL_(T, N, xor)
#define TSHMEM_DECL_TOALL_ORD_(T, N) \
    TSHMEM_DECL_TOALL_(T, N, max) TSHMEM_DECL_TOALL_(T, N, min)
#define TSHMEM_DECL_TOALL_ARITH_(T, N) \
    TSHMEM_DECL_TOALL_(T, N, sum) TSHMEM_DECL_TOALL_(T, N, prod)
TSHMEM_ASET_BIT_TYPES(TSHMEM_DECL_TOALL_BIT_)
TSHMEM_ASET_ORD_TYPES(TSHMEM_DECL_TOALL_ORD_)
TSHMEM_ASET_ARITH_TYPES(TSHMEM_DECL_TOALL_ARITH_)

/* shmem_sync(team) (1.5) and the deprecated shmem_sync(PE_start,
 * logPE_stride, PE_size, pSync): told apart by the number of arguments.
 * (shmem_sync)(...) names the active-set function. */
TSHMEM_API void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
#define TSHMEM_SYNC_PICK_(a, b, c, d, name, ...) name
#define shmem_sync(...)                                                                \
    TSHMEM_SYNC_PICK_(__VA_ARGS__, tshmem_sync_aset_, tshmem_bad_sync_arity_,          \
                      tshmem_bad_sync_arity_, shmem_team_sync, tshmem_bad_sync_arity_) \
    (__VA_ARGS__)

#endif
