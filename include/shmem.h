/* OpenSHMEM 1.6 on Tern (libtshmem): the standard C interface.
 *
 * Implemented so far: library setup, exit and query; thread support;
 * memory management (symmetric heap); communication contexts; blocking and
 * non-blocking RMA for every standard RMA type, the sized and the mem
 * forms, with and without a context, and their C11 type-generic forms;
 * fence, quiet, pe_quiet; barrier_all and sync_all; point-to-point
 * synchronization (wait_until and test with their all/any/some and
 * vector forms); atomic memory operations (every type, the nbi and
 * deprecated forms); signaling operations; distributed locks.
 * docs/shmem.md lists what is not there yet (teams, collectives, sessions,
 * the profiling interface, global and static variables as symmetric
 * objects).
 *
 * C99 and C++ includable; the type-generic interfaces need C11. Per the
 * specification this header declares only OpenSHMEM names, plus helpers
 * with the implementation prefix TSHMEM_ / tshmem_ (never call these
 * directly). Tern's own extensions are in shmemx.h. */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define TSHMEM_API __attribute__((visibility("default")))
#else
#define TSHMEM_API
#endif

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
#define TSHMEM_NORETURN _Noreturn
#elif defined(__GNUC__)
#define TSHMEM_NORETURN __attribute__((noreturn))
#else
#define TSHMEM_NORETURN
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- library constants ------------------------------------------------ */

#define SHMEM_MAJOR_VERSION  1
#define SHMEM_MINOR_VERSION  6
#define SHMEM_MAX_NAME_LEN   256
#define SHMEM_VENDOR_STRING  "Tern OpenSHMEM"
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION /* deprecated names */
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN  SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

/* Thread levels: the values of Tern's TERN_THREAD_*. */
#define SHMEM_THREAD_SINGLE     0
#define SHMEM_THREAD_FUNNELED   1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE   3

/* Comparison operators of the point-to-point routines (Tern's TERN_CMP_*). */
#define SHMEM_CMP_EQ  0
#define SHMEM_CMP_NE  1
#define SHMEM_CMP_GT  2
#define SHMEM_CMP_GE  3
#define SHMEM_CMP_LT  4
#define SHMEM_CMP_LE  5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

/* Signal operators of the put-with-signal routines (Tern's TERN_SIGNAL_*). */
#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* Context options (shmem_ctx_create). */
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE    (1L << 1)
#define SHMEM_CTX_NOSTORE    (1L << 2)

/* Hints of shmem_malloc_with_hints. */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE  (1L << 1)

/* ---- handles ------------------------------------------------------------- */

/* A communication context. SHMEM_CTX_DEFAULT is the address of the
 * library's default context object, a link-time constant. */
typedef struct tshmem_ctx_s *shmem_ctx_t;
extern TSHMEM_API struct tshmem_ctx_s tshmem_ctx_default_;
#define SHMEM_CTX_DEFAULT (&tshmem_ctx_default_)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

/* ---- library setup, exit and query --------------------------------------- */

TSHMEM_API void shmem_init(void);
TSHMEM_API int shmem_init_thread(int requested, int *provided);
TSHMEM_API void shmem_query_thread(int *provided);
TSHMEM_API void shmem_finalize(void);
TSHMEM_API void shmem_query_initialized(int *initialized);
TSHMEM_API TSHMEM_NORETURN void shmem_global_exit(int status);
TSHMEM_API int shmem_my_pe(void);
TSHMEM_API int shmem_n_pes(void);
TSHMEM_API int shmem_pe_accessible(int pe);
TSHMEM_API int shmem_addr_accessible(const void *addr, int pe);
TSHMEM_API void *shmem_ptr(const void *dest, int pe);
TSHMEM_API void shmem_info_get_version(int *major, int *minor);
TSHMEM_API void shmem_info_get_name(char *name);
/* deprecated */
TSHMEM_API void start_pes(int npes);
TSHMEM_API int _my_pe(void);
TSHMEM_API int _num_pes(void);

/* ---- memory management ------------------------------------------------------ */

TSHMEM_API void *shmem_malloc(size_t size);
TSHMEM_API void *shmem_calloc(size_t count, size_t size);
TSHMEM_API void *shmem_realloc(void *ptr, size_t size);
TSHMEM_API void *shmem_align(size_t alignment, size_t size);
TSHMEM_API void *shmem_malloc_with_hints(size_t size, long hints);
TSHMEM_API void shmem_free(void *ptr);
/* deprecated */
TSHMEM_API void *shmalloc(size_t size);
TSHMEM_API void *shmemalign(size_t alignment, size_t size);
TSHMEM_API void *shrealloc(void *ptr, size_t size);
TSHMEM_API void shfree(void *ptr);

/* ---- communication contexts ------------------------------------------------- */

TSHMEM_API int shmem_ctx_create(long options, shmem_ctx_t *ctx);
TSHMEM_API void shmem_ctx_destroy(shmem_ctx_t ctx);

/* ---- type lists -------------------------------------------------------------- */

/* X(TYPE, TYPENAME) for the standard RMA types (spec table "Standard RMA
 * Types and Names"). */
#define TSHMEM_RMA_TYPES(X)          \
    X(float, float)                  \
    X(double, double)                \
    X(long double, longdouble)       \
    X(char, char)                    \
    X(signed char, schar)            \
    X(short, short)                  \
    X(int, int)                      \
    X(long, long)                    \
    X(long long, longlong)           \
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
    X(size_t, size)                  \
    X(ptrdiff_t, ptrdiff)

/* X(TYPE, TYPENAME) for the standard AMO types, which are also the types
 * of the point-to-point synchronization routines. */
#define TSHMEM_AMO_STD_TYPES(X)      \
    X(int, int)                      \
    X(long, long)                    \
    X(long long, longlong)           \
    X(unsigned int, uint)            \
    X(unsigned long, ulong)          \
    X(unsigned long long, ulonglong) \
    X(int32_t, int32)                \
    X(int64_t, int64)                \
    X(uint32_t, uint32)              \
    X(uint64_t, uint64)              \
    X(size_t, size)                  \
    X(ptrdiff_t, ptrdiff)

/* X(BITS) for the sized RMA routines (shmem_put8 .. shmem_put128). */
#define TSHMEM_RMA_SIZES(X) X(8) X(16) X(32) X(64) X(128)

/* ---- remote memory access ------------------------------------------------------ */

/* Blocking put (returns when source may be reused), p, iput and ibput;
 * blocking get (returns when dest holds the data), g, iget and ibget;
 * put_nbi and get_nbi (complete at the next quiet of the context). */
#define TSHMEM_DECL_RMA_(T, N)                                                         \
    TSHMEM_API void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);  \
    TSHMEM_API void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source,     \
                                        size_t nelems, int pe);                        \
    TSHMEM_API void shmem_##N##_p(T *dest, T value, int pe);                           \
    TSHMEM_API void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);      \
    TSHMEM_API void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst,          \
                                     ptrdiff_t sst, size_t nelems, int pe);            \
    TSHMEM_API void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source,    \
                                         ptrdiff_t dst, ptrdiff_t sst, size_t nelems,  \
                                         int pe);                                      \
    TSHMEM_API void shmem_##N##_ibput(T *dest, const T *source, ptrdiff_t dst,         \
                                      ptrdiff_t sst, size_t bsize, size_t nblocks,     \
                                      int pe);                                         \
    TSHMEM_API void shmem_ctx_##N##_ibput(shmem_ctx_t ctx, T *dest, const T *source,   \
                                          ptrdiff_t dst, ptrdiff_t sst, size_t bsize,  \
                                          size_t nblocks, int pe);                     \
    TSHMEM_API void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);  \
    TSHMEM_API void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source,     \
                                        size_t nelems, int pe);                        \
    TSHMEM_API T shmem_##N##_g(const T *source, int pe);                               \
    TSHMEM_API T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);          \
    TSHMEM_API void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst,          \
                                     ptrdiff_t sst, size_t nelems, int pe);            \
    TSHMEM_API void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source,    \
                                         ptrdiff_t dst, ptrdiff_t sst, size_t nelems,  \
                                         int pe);                                      \
    TSHMEM_API void shmem_##N##_ibget(T *dest, const T *source, ptrdiff_t dst,         \
                                      ptrdiff_t sst, size_t bsize, size_t nblocks,     \
                                      int pe);                                         \
    TSHMEM_API void shmem_ctx_##N##_ibget(shmem_ctx_t ctx, T *dest, const T *source,   \
                                          ptrdiff_t dst, ptrdiff_t sst, size_t bsize,  \
                                          size_t nblocks, int pe);                     \
    TSHMEM_API void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems,       \
                                        int pe);                                       \
    TSHMEM_API void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, \
                                            size_t nelems, int pe);                    \
    TSHMEM_API void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems,       \
                                        int pe);                                       \
    TSHMEM_API void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, \
                                            size_t nelems, int pe);
TSHMEM_RMA_TYPES(TSHMEM_DECL_RMA_)

#define TSHMEM_DECL_RMA_SIZED_(S)                                                        \
    TSHMEM_API void shmem_put##S(void *dest, const void *source, size_t nelems, int pe); \
    TSHMEM_API void shmem_ctx_put##S(shmem_ctx_t ctx, void *dest, const void *source,    \
                                     size_t nelems, int pe);                             \
    TSHMEM_API void shmem_iput##S(void *dest, const void *source, ptrdiff_t dst,         \
                                  ptrdiff_t sst, size_t nelems, int pe);                 \
    TSHMEM_API void shmem_ctx_iput##S(shmem_ctx_t ctx, void *dest, const void *source,   \
                                      ptrdiff_t dst, ptrdiff_t sst, size_t nelems,       \
                                      int pe);                                           \
    TSHMEM_API void shmem_ibput##S(void *dest, const void *source, ptrdiff_t dst,        \
                                   ptrdiff_t sst, size_t bsize, size_t nblocks, int pe); \
    TSHMEM_API void shmem_ctx_ibput##S(shmem_ctx_t ctx, void *dest, const void *source,  \
                                       ptrdiff_t dst, ptrdiff_t sst, size_t bsize,       \
                                       size_t nblocks, int pe);                          \
    TSHMEM_API void shmem_get##S(void *dest, const void *source, size_t nelems, int pe); \
    TSHMEM_API void shmem_ctx_get##S(shmem_ctx_t ctx, void *dest, const void *source,    \
                                     size_t nelems, int pe);                             \
    TSHMEM_API void shmem_iget##S(void *dest, const void *source, ptrdiff_t dst,         \
                                  ptrdiff_t sst, size_t nelems, int pe);                 \
    TSHMEM_API void shmem_ctx_iget##S(shmem_ctx_t ctx, void *dest, const void *source,   \
                                      ptrdiff_t dst, ptrdiff_t sst, size_t nelems,       \
                                      int pe);                                           \
    TSHMEM_API void shmem_ibget##S(void *dest, const void *source, ptrdiff_t dst,        \
                                   ptrdiff_t sst, size_t bsize, size_t nblocks, int pe); \
    TSHMEM_API void shmem_ctx_ibget##S(shmem_ctx_t ctx, void *dest, const void *source,  \
                                       ptrdiff_t dst, ptrdiff_t sst, size_t bsize,       \
                                       size_t nblocks, int pe);                          \
    TSHMEM_API void shmem_put##S##_nbi(void *dest, const void *source, size_t nelems,    \
                                       int pe);                                          \
    TSHMEM_API void shmem_ctx_put##S##_nbi(shmem_ctx_t ctx, void *dest,                  \
                                           const void *source, size_t nelems, int pe);   \
    TSHMEM_API void shmem_get##S##_nbi(void *dest, const void *source, size_t nelems,    \
                                       int pe);                                          \
    TSHMEM_API void shmem_ctx_get##S##_nbi(shmem_ctx_t ctx, void *dest,                  \
                                           const void *source, size_t nelems, int pe);
TSHMEM_RMA_SIZES(TSHMEM_DECL_RMA_SIZED_)

TSHMEM_API void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
TSHMEM_API void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source,
                                 size_t nelems, int pe);
TSHMEM_API void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
TSHMEM_API void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source,
                                 size_t nelems, int pe);
TSHMEM_API void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
TSHMEM_API void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source,
                                     size_t nelems, int pe);
TSHMEM_API void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
TSHMEM_API void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source,
                                     size_t nelems, int pe);

/* ---- signaling operations ------------------------------------------------------- */

/* Put nelems elements to dest on pe, then update the signal word sig_addr
 * on pe (SHMEM_SIGNAL_SET: = signal; SHMEM_SIGNAL_ADD: += signal): a PE
 * that sees the signal sees the data. Blocking forms return when source
 * may be reused; the _nbi forms complete at the context's quiet. */
#define TSHMEM_DECL_PUT_SIGNAL_(T, N)                                                   \
    TSHMEM_API void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems,     \
                                           uint64_t *sig_addr, uint64_t signal,         \
                                           int sig_op, int pe);                         \
    TSHMEM_API void shmem_ctx_##N##_put_signal(                                         \
        shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, uint64_t *sig_addr,   \
        uint64_t signal, int sig_op, int pe);                                           \
    TSHMEM_API void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, \
                                               uint64_t *sig_addr, uint64_t signal,     \
                                               int sig_op, int pe);                     \
    TSHMEM_API void shmem_ctx_##N##_put_signal_nbi(                                     \
        shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, uint64_t *sig_addr,   \
        uint64_t signal, int sig_op, int pe);
TSHMEM_RMA_TYPES(TSHMEM_DECL_PUT_SIGNAL_)
#define TSHMEM_DECL_PUT_SIGNAL_SIZED_(S)                                                 \
    TSHMEM_API void shmem_put##S##_signal(void *dest, const void *source, size_t nelems, \
                                          uint64_t *sig_addr, uint64_t signal,           \
                                          int sig_op, int pe);                           \
    TSHMEM_API void shmem_ctx_put##S##_signal(                                           \
        shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,                  \
        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);                        \
    TSHMEM_API void shmem_put##S##_signal_nbi(void *dest, const void *source,            \
                                              size_t nelems, uint64_t *sig_addr,         \
                                              uint64_t signal, int sig_op, int pe);      \
    TSHMEM_API void shmem_ctx_put##S##_signal_nbi(                                       \
        shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,                  \
        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
TSHMEM_RMA_SIZES(TSHMEM_DECL_PUT_SIGNAL_SIZED_)
TSHMEM_API void shmem_putmem_signal(void *dest, const void *source, size_t nelems,
                                    uint64_t *sig_addr, uint64_t signal, int sig_op,
                                    int pe);
TSHMEM_API void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source,
                                        size_t nelems, uint64_t *sig_addr,
                                        uint64_t signal, int sig_op, int pe);
TSHMEM_API void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
                                        uint64_t *sig_addr, uint64_t signal, int sig_op,
                                        int pe);
TSHMEM_API void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest,
                                            const void *source, size_t nelems,
                                            uint64_t *sig_addr, uint64_t signal,
                                            int sig_op, int pe);
/* Update the signal word on pe without data (1.6); complete at quiet. */
TSHMEM_API void shmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe);
TSHMEM_API void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal,
                                     int pe);
TSHMEM_API void shmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe);
TSHMEM_API void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal,
                                     int pe);
/* The local signal word, read atomically; wait until it compares true
 * (SHMEM_CMP_*) and return the value that did. */
TSHMEM_API uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
TSHMEM_API uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp,
                                            uint64_t cmp_value);

/* ---- collectives without a team ------------------------------------------------ */

TSHMEM_API void shmem_barrier_all(void);
TSHMEM_API void shmem_sync_all(void);

/* ---- teams and collectives -------------------------------------------------------- */

#include "tshmem/coll.h"
#include "tshmem/compat.h" /* profiling control, sessions */

/* ---- point-to-point synchronization -------------------------------------------- */

#define TSHMEM_DECL_P2P_(T, N)                                                           \
    TSHMEM_API void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);               \
    TSHMEM_API void shmem_##N##_wait_until_all(T *ivars, size_t nelems,                  \
                                               const int *status, int cmp, T cmp_value); \
    TSHMEM_API size_t shmem_##N##_wait_until_any(                                        \
        T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);               \
    TSHMEM_API size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems,               \
                                                  size_t *indices, const int *status,    \
                                                  int cmp, T cmp_value);                 \
    TSHMEM_API void shmem_##N##_wait_until_all_vector(                                   \
        T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values);       \
    TSHMEM_API size_t shmem_##N##_wait_until_any_vector(                                 \
        T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values);       \
    TSHMEM_API size_t shmem_##N##_wait_until_some_vector(                                \
        T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,            \
        const T *cmp_values);                                                            \
    TSHMEM_API int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                      \
    TSHMEM_API int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status,      \
                                        int cmp, T cmp_value);                           \
    TSHMEM_API size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status,   \
                                           int cmp, T cmp_value);                        \
    TSHMEM_API size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,    \
                                            const int *status, int cmp, T cmp_value);    \
    TSHMEM_API int shmem_##N##_test_all_vector(                                          \
        T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values);       \
    TSHMEM_API size_t shmem_##N##_test_any_vector(                                       \
        T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values);       \
    TSHMEM_API size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems,              \
                                                   size_t *indices, const int *status,   \
                                                   int cmp, const T *cmp_values);
TSHMEM_AMO_STD_TYPES(TSHMEM_DECL_P2P_)

/* short and unsigned short: wait_until and test deprecated (1.5); the
 * all/any/some/vector forms are Sandia OpenSHMEM's, kept for its programs */
TSHMEM_DECL_P2P_(short, short)
TSHMEM_DECL_P2P_(unsigned short, ushort)
/* deprecated (1.4 and 1.5) */
TSHMEM_API void shmem_wait(long *ivar, long cmp_value);
TSHMEM_API void shmem_short_wait(short *ivar, short cmp_value);
TSHMEM_API void shmem_int_wait(int *ivar, int cmp_value);
TSHMEM_API void shmem_long_wait(long *ivar, long cmp_value);
TSHMEM_API void shmem_longlong_wait(long long *ivar, long long cmp_value);
/* The long-only C function of OpenSHMEM 1.3; in C11 the type-generic
 * shmem_wait_until below takes its place. */
TSHMEM_API void shmem_wait_until(long *ivar, int cmp, long cmp_value);

/* ---- atomic memory operations ------------------------------------------------- */

/* X(TYPE, TYPENAME) for the extended AMO types beyond the standard ones
 * (fetch, set, swap and their nbi forms), and for the bitwise AMO types
 * (and, or, xor and their fetching forms). */
#define TSHMEM_AMO_FP_TYPES(X) X(float, float) X(double, double)
#define TSHMEM_AMO_BITWISE_TYPES(X)  \
    X(unsigned int, uint)            \
    X(unsigned long, ulong)          \
    X(unsigned long long, ulonglong) \
    X(int32_t, int32)                \
    X(int64_t, int64)                \
    X(uint32_t, uint32)              \
    X(uint64_t, uint64)

/* Blocking AMOs return when done (fetching ones with the old value);
 * non-fetching ones are ordered by fence and completed by quiet like puts;
 * the _nbi forms store the old value into *fetch by the next quiet of the
 * context. One mechanism per type keeps every AMO on a word atomic with
 * respect to the others of the same type. */
#define TSHMEM_DECL_AMO_EXT_(T, N)                                                       \
    TSHMEM_API T shmem_##N##_atomic_fetch(const T *source, int pe);                      \
    TSHMEM_API T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe); \
    TSHMEM_API void shmem_##N##_atomic_set(T *dest, T value, int pe);                    \
    TSHMEM_API void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value,        \
                                               int pe);                                  \
    TSHMEM_API T shmem_##N##_atomic_swap(T *dest, T value, int pe);                      \
    TSHMEM_API T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe); \
    TSHMEM_API void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe);     \
    TSHMEM_API void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch,          \
                                                     const T *source, int pe);           \
    TSHMEM_API void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);     \
    TSHMEM_API void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest,  \
                                                    T value, int pe);
TSHMEM_AMO_STD_TYPES(TSHMEM_DECL_AMO_EXT_)
TSHMEM_AMO_FP_TYPES(TSHMEM_DECL_AMO_EXT_)

#define TSHMEM_DECL_AMO_STD_(T, N)                                                     \
    TSHMEM_API T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);    \
    TSHMEM_API T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, \
                                                     T value, int pe);                 \
    TSHMEM_API T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                        \
    TSHMEM_API T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe);   \
    TSHMEM_API void shmem_##N##_atomic_inc(T *dest, int pe);                           \
    TSHMEM_API void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe);      \
    TSHMEM_API T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);               \
    TSHMEM_API T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value,   \
                                                  int pe);                             \
    TSHMEM_API void shmem_##N##_atomic_add(T *dest, T value, int pe);                  \
    TSHMEM_API void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value,      \
                                               int pe);                                \
    TSHMEM_API void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond,     \
                                                        T value, int pe);              \
    TSHMEM_API void shmem_ctx_##N##_atomic_compare_swap_nbi(                           \
        shmem_ctx_t ctx, T *fetch, T *dest, T cond, T value, int pe);                  \
    TSHMEM_API void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);       \
    TSHMEM_API void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch,    \
                                                         T *dest, int pe);             \
    TSHMEM_API void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value,       \
                                                     int pe);                          \
    TSHMEM_API void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch,    \
                                                         T *dest, T value, int pe);
TSHMEM_AMO_STD_TYPES(TSHMEM_DECL_AMO_STD_)

#define TSHMEM_DECL_AMO_BIT_OP_(T, N, OP)                                              \
    TSHMEM_API T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe);              \
    TSHMEM_API T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value,  \
                                                   int pe);                            \
    TSHMEM_API void shmem_##N##_atomic_##OP(T *dest, T value, int pe);                 \
    TSHMEM_API void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value,     \
                                                int pe);                               \
    TSHMEM_API void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value,    \
                                                        int pe);                       \
    TSHMEM_API void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, \
                                                            T *dest, T value, int pe);
#define TSHMEM_DECL_AMO_BIT_(T, N)     \
    TSHMEM_DECL_AMO_BIT_OP_(T, N, and) \
    TSHMEM_DECL_AMO_BIT_OP_(T, N, or)  \
    TSHMEM_DECL_AMO_BIT_OP_(T, N, xor)
TSHMEM_AMO_BITWISE_TYPES(TSHMEM_DECL_AMO_BIT_)

/* deprecated (OpenSHMEM 1.3 names, deprecated since 1.4) */
#define TSHMEM_AMO_DEP_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define TSHMEM_DECL_AMO_DEP_EXT_(T, N)                         \
    TSHMEM_API T shmem_##N##_fetch(const T *source, int pe);   \
    TSHMEM_API void shmem_##N##_set(T *dest, T value, int pe); \
    TSHMEM_API T shmem_##N##_swap(T *dest, T value, int pe);
TSHMEM_AMO_DEP_TYPES(TSHMEM_DECL_AMO_DEP_EXT_)
TSHMEM_AMO_FP_TYPES(TSHMEM_DECL_AMO_DEP_EXT_)
#define TSHMEM_DECL_AMO_DEP_STD_(T, N)                                \
    TSHMEM_API T shmem_##N##_cswap(T *dest, T cond, T value, int pe); \
    TSHMEM_API T shmem_##N##_finc(T *dest, int pe);                   \
    TSHMEM_API void shmem_##N##_inc(T *dest, int pe);                 \
    TSHMEM_API T shmem_##N##_fadd(T *dest, T value, int pe);          \
    TSHMEM_API void shmem_##N##_add(T *dest, T value, int pe);
TSHMEM_AMO_DEP_TYPES(TSHMEM_DECL_AMO_DEP_STD_)
/* OpenSHMEM 1.0's swap of a long; in C11 shmem_swap is type-generic
 * (below) and this function is reached as (shmem_swap)(...). */
TSHMEM_API long(shmem_swap)(long *dest, long value, int pe);

/* ---- memory ordering --------------------------------------------------------- */

TSHMEM_API void shmem_fence(void);
TSHMEM_API void shmem_ctx_fence(shmem_ctx_t ctx);
TSHMEM_API void shmem_quiet(void);
TSHMEM_API void shmem_ctx_quiet(shmem_ctx_t ctx);
TSHMEM_API void shmem_pe_quiet(const int *target_pes, size_t npes);
TSHMEM_API void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes);

/* ---- distributed locks ---------------------------------------------------------- */

/* lock: a symmetric long, zero before its first use. set_lock waits for
 * the lock (first come, first served); test_lock takes it only if free
 * (0) and returns 1 otherwise; clear_lock completes the caller's
 * operations on the default context (a quiet), then releases it. */
TSHMEM_API void shmem_set_lock(long *lock);
TSHMEM_API int shmem_test_lock(long *lock);
TSHMEM_API void shmem_clear_lock(long *lock);

/* deprecated cache management: no-ops (memory is coherent) */
TSHMEM_API void shmem_clear_cache_inv(void);
TSHMEM_API void shmem_set_cache_inv(void);
TSHMEM_API void shmem_clear_cache_line_inv(void *dest);
TSHMEM_API void shmem_set_cache_line_inv(void *dest);
TSHMEM_API void shmem_udcflush(void);
TSHMEM_API void shmem_udcflush_line(void *dest);

/* ---- C11 type-generic interfaces ------------------------------------------------ */

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)

/* Selected for an argument of a type the generic routine does not take:
 * the compiler then reports calling this name, which is not a function. */
extern int tshmem_unsupported_argument_type_for_this_generic_routine;
#define TSHMEM_BAD_TYPE_ tshmem_unsupported_argument_type_for_this_generic_routine

#define TSHMEM_ARG1_(a, ...)    a
#define TSHMEM_ARG2_(a, b, ...) b
/* The element type a call is about, as an unevaluated expression: *dest
 * when the first argument is not a context, *(second argument) when it is.
 * The other case yields a char so that both branches stay valid C. */
#define TSHMEM_ELEM_NOCTX_(a)  (*_Generic((a), shmem_ctx_t : (char *)0, default : (a)))
#define TSHMEM_ELEM_CTX_(a, b) (*_Generic((a), shmem_ctx_t : (b), default : (char *)0))

/* clang-format 14 splits _Generic associations across lines
 * ("float\n : f, double\n : g"); they read better one per line. */
/* clang-format off */
/* One association per distinct C type; the exact-width, size_t and
 * ptrdiff_t types are typedefs of these. */
#define TSHMEM_RMA_SEL_(pre, op, e)                                                      \
    _Generic((e),                                                                        \
        float: shmem_##pre##float_##op,                                                  \
        double: shmem_##pre##double_##op,                                                \
        long double: shmem_##pre##longdouble_##op,                                       \
        char: shmem_##pre##char_##op,                                                    \
        signed char: shmem_##pre##schar_##op,                                            \
        short: shmem_##pre##short_##op,                                                  \
        int: shmem_##pre##int_##op,                                                      \
        long: shmem_##pre##long_##op,                                                    \
        long long: shmem_##pre##longlong_##op,                                           \
        unsigned char: shmem_##pre##uchar_##op,                                          \
        unsigned short: shmem_##pre##ushort_##op,                                        \
        unsigned int: shmem_##pre##uint_##op,                                            \
        unsigned long: shmem_##pre##ulong_##op,                                          \
        unsigned long long: shmem_##pre##ulonglong_##op,                                 \
        default: TSHMEM_BAD_TYPE_)

/* op(...) and op(ctx, ...) for the RMA routines. */
#define TSHMEM_RMA_GENERIC_(op, ...)                                                     \
    _Generic(TSHMEM_ARG1_(__VA_ARGS__, 0),                                               \
        shmem_ctx_t: TSHMEM_RMA_SEL_(ctx_, op,                                           \
                                     TSHMEM_ELEM_CTX_(TSHMEM_ARG1_(__VA_ARGS__, 0),      \
                                                      TSHMEM_ARG2_(__VA_ARGS__, 0, 0))), \
        default: TSHMEM_RMA_SEL_(, op, TSHMEM_ELEM_NOCTX_(TSHMEM_ARG1_(__VA_ARGS__, 0)))) \
    (__VA_ARGS__)

/* The point-to-point routines: the standard AMO types, and short and
 * unsigned short (deprecated for wait_until and test; Sandia OpenSHMEM's
 * for the others). */
#define TSHMEM_P2P_SEL_SHORT_(op, e)                                                     \
    _Generic((e),                                                                        \
        short: shmem_short_##op,                                                         \
        unsigned short: shmem_ushort_##op,                                               \
        int: shmem_int_##op,                                                             \
        long: shmem_long_##op,                                                           \
        long long: shmem_longlong_##op,                                                  \
        unsigned int: shmem_uint_##op,                                                   \
        unsigned long: shmem_ulong_##op,                                                 \
        unsigned long long: shmem_ulonglong_##op,                                        \
        default: TSHMEM_BAD_TYPE_)
/* The bitwise reductions: unsigned types and the exact-width signed ones. */
#define TSHMEM_BIT_SEL_(op, e)                                                           \
    _Generic((e),                                                                        \
        unsigned char: shmem_uchar_##op,                                                 \
        unsigned short: shmem_ushort_##op,                                               \
        unsigned int: shmem_uint_##op,                                                   \
        unsigned long: shmem_ulong_##op,                                                 \
        unsigned long long: shmem_ulonglong_##op,                                        \
        signed char: shmem_int8_##op,                                                    \
        short: shmem_int16_##op,                                                         \
        int: shmem_int32_##op,                                                           \
        long: shmem_int64_##op,                                                          \
        default: TSHMEM_BAD_TYPE_)
/* The sum and product reductions and the scans: the types of
 * TSHMEM_RMA_SEL_ and the two complex types ("integer, real, or complex
 * types supported for the SUM operation", 1.6 Table teamreducetypes). */
#define TSHMEM_ARITH_SEL_(op, e)                                                         \
    _Generic((e),                                                                        \
        float: shmem_float_##op,                                                         \
        double: shmem_double_##op,                                                       \
        long double: shmem_longdouble_##op,                                              \
        char: shmem_char_##op,                                                           \
        signed char: shmem_schar_##op,                                                   \
        short: shmem_short_##op,                                                         \
        int: shmem_int_##op,                                                             \
        long: shmem_long_##op,                                                           \
        long long: shmem_longlong_##op,                                                  \
        unsigned char: shmem_uchar_##op,                                                 \
        unsigned short: shmem_ushort_##op,                                               \
        unsigned int: shmem_uint_##op,                                                   \
        unsigned long: shmem_ulong_##op,                                                 \
        unsigned long long: shmem_ulonglong_##op,                                        \
        double _Complex: shmem_complexd_##op,                                            \
        float _Complex: shmem_complexf_##op,                                             \
        default: TSHMEM_BAD_TYPE_)
/* clang-format on */

#define shmem_put(...)     TSHMEM_RMA_GENERIC_(put, __VA_ARGS__)
#define shmem_p(...)       TSHMEM_RMA_GENERIC_(p, __VA_ARGS__)
#define shmem_iput(...)    TSHMEM_RMA_GENERIC_(iput, __VA_ARGS__)
#define shmem_ibput(...)   TSHMEM_RMA_GENERIC_(ibput, __VA_ARGS__)
#define shmem_get(...)     TSHMEM_RMA_GENERIC_(get, __VA_ARGS__)
#define shmem_g(...)       TSHMEM_RMA_GENERIC_(g, __VA_ARGS__)
#define shmem_iget(...)    TSHMEM_RMA_GENERIC_(iget, __VA_ARGS__)
#define shmem_ibget(...)   TSHMEM_RMA_GENERIC_(ibget, __VA_ARGS__)
#define shmem_put_nbi(...) TSHMEM_RMA_GENERIC_(put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) TSHMEM_RMA_GENERIC_(get_nbi, __VA_ARGS__)

#define shmem_put_signal(...)     TSHMEM_RMA_GENERIC_(put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) TSHMEM_RMA_GENERIC_(put_signal_nbi, __VA_ARGS__)

#define shmem_wait_until(ivar, ...) \
    TSHMEM_P2P_SEL_SHORT_(wait_until, *(ivar))(ivar, __VA_ARGS__)
#define shmem_test(ivar, ...) TSHMEM_P2P_SEL_SHORT_(test, *(ivar))(ivar, __VA_ARGS__)
#define shmem_wait_until_all(ivars, ...) \
    TSHMEM_P2P_SEL_SHORT_(wait_until_all, *(ivars))(ivars, __VA_ARGS__)
#define shmem_wait_until_any(ivars, ...) \
    TSHMEM_P2P_SEL_SHORT_(wait_until_any, *(ivars))(ivars, __VA_ARGS__)
#define shmem_wait_until_some(ivars, ...) \
    TSHMEM_P2P_SEL_SHORT_(wait_until_some, *(ivars))(ivars, __VA_ARGS__)
#define shmem_wait_until_all_vector(ivars, ...) \
    TSHMEM_P2P_SEL_SHORT_(wait_until_all_vector, *(ivars))(ivars, __VA_ARGS__)
#define shmem_wait_until_any_vector(ivars, ...) \
    TSHMEM_P2P_SEL_SHORT_(wait_until_any_vector, *(ivars))(ivars, __VA_ARGS__)
#define shmem_wait_until_some_vector(ivars, ...) \
    TSHMEM_P2P_SEL_SHORT_(wait_until_some_vector, *(ivars))(ivars, __VA_ARGS__)
#define shmem_test_all(ivars, ...) \
    TSHMEM_P2P_SEL_SHORT_(test_all, *(ivars))(ivars, __VA_ARGS__)
#define shmem_test_any(ivars, ...) \
    TSHMEM_P2P_SEL_SHORT_(test_any, *(ivars))(ivars, __VA_ARGS__)
#define shmem_test_some(ivars, ...) \
    TSHMEM_P2P_SEL_SHORT_(test_some, *(ivars))(ivars, __VA_ARGS__)
#define shmem_test_all_vector(ivars, ...) \
    TSHMEM_P2P_SEL_SHORT_(test_all_vector, *(ivars))(ivars, __VA_ARGS__)
#define shmem_test_any_vector(ivars, ...) \
    TSHMEM_P2P_SEL_SHORT_(test_any_vector, *(ivars))(ivars, __VA_ARGS__)
#define shmem_test_some_vector(ivars, ...) \
    TSHMEM_P2P_SEL_SHORT_(test_some_vector, *(ivars))(ivars, __VA_ARGS__)

/* Collectives and reductions on the element type of dest. */
#define shmem_broadcast(team, dest, ...) \
    TSHMEM_RMA_SEL_(, broadcast, *(dest))(team, dest, __VA_ARGS__)
#define shmem_collect(team, dest, ...) \
    TSHMEM_RMA_SEL_(, collect, *(dest))(team, dest, __VA_ARGS__)
#define shmem_fcollect(team, dest, ...) \
    TSHMEM_RMA_SEL_(, fcollect, *(dest))(team, dest, __VA_ARGS__)
#define shmem_alltoall(team, dest, ...) \
    TSHMEM_RMA_SEL_(, alltoall, *(dest))(team, dest, __VA_ARGS__)
#define shmem_alltoalls(team, dest, ...) \
    TSHMEM_RMA_SEL_(, alltoalls, *(dest))(team, dest, __VA_ARGS__)
#define shmem_and_reduce(team, dest, ...) \
    TSHMEM_BIT_SEL_(and_reduce, *(dest))(team, dest, __VA_ARGS__)
#define shmem_or_reduce(team, dest, ...) \
    TSHMEM_BIT_SEL_(or_reduce, *(dest))(team, dest, __VA_ARGS__)
#define shmem_xor_reduce(team, dest, ...) \
    TSHMEM_BIT_SEL_(xor_reduce, *(dest))(team, dest, __VA_ARGS__)
#define shmem_max_reduce(team, dest, ...) \
    TSHMEM_RMA_SEL_(, max_reduce, *(dest))(team, dest, __VA_ARGS__)
#define shmem_min_reduce(team, dest, ...) \
    TSHMEM_RMA_SEL_(, min_reduce, *(dest))(team, dest, __VA_ARGS__)
#define shmem_sum_reduce(team, dest, ...) \
    TSHMEM_ARITH_SEL_(sum_reduce, *(dest))(team, dest, __VA_ARGS__)
#define shmem_prod_reduce(team, dest, ...) \
    TSHMEM_ARITH_SEL_(prod_reduce, *(dest))(team, dest, __VA_ARGS__)
#define shmem_sum_inscan(team, dest, ...) \
    TSHMEM_ARITH_SEL_(sum_inscan, *(dest))(team, dest, __VA_ARGS__)
#define shmem_sum_exscan(team, dest, ...) \
    TSHMEM_ARITH_SEL_(sum_exscan, *(dest))(team, dest, __VA_ARGS__)

/* The AMOs: the extended types (float and double too), the standard
 * types, and the bitwise types, whose int and long are int32_t and
 * int64_t. */
/* clang-format off */
#define TSHMEM_AMO_SEL_EXT_(pre, op, e)                                                  \
    _Generic((e),                                                                        \
        float: shmem_##pre##float_##op,                                                  \
        double: shmem_##pre##double_##op,                                                \
        int: shmem_##pre##int_##op,                                                      \
        long: shmem_##pre##long_##op,                                                    \
        long long: shmem_##pre##longlong_##op,                                           \
        unsigned int: shmem_##pre##uint_##op,                                            \
        unsigned long: shmem_##pre##ulong_##op,                                          \
        unsigned long long: shmem_##pre##ulonglong_##op,                                 \
        default: TSHMEM_BAD_TYPE_)
#define TSHMEM_AMO_SEL_STD_(pre, op, e)                                                  \
    _Generic((e),                                                                        \
        int: shmem_##pre##int_##op,                                                      \
        long: shmem_##pre##long_##op,                                                    \
        long long: shmem_##pre##longlong_##op,                                           \
        unsigned int: shmem_##pre##uint_##op,                                            \
        unsigned long: shmem_##pre##ulong_##op,                                          \
        unsigned long long: shmem_##pre##ulonglong_##op,                                 \
        default: TSHMEM_BAD_TYPE_)
#define TSHMEM_AMO_SEL_BIT_(pre, op, e)                                                  \
    _Generic((e),                                                                        \
        int: shmem_##pre##int32_##op,                                                    \
        long: shmem_##pre##int64_##op,                                                   \
        unsigned int: shmem_##pre##uint_##op,                                            \
        unsigned long: shmem_##pre##ulong_##op,                                          \
        unsigned long long: shmem_##pre##ulonglong_##op,                                 \
        default: TSHMEM_BAD_TYPE_)
/* op(...) and op(ctx, ...) over the type set K (EXT, STD, BIT). */
#define TSHMEM_AMO_GENERIC_(K, op, ...)                                                  \
    _Generic(TSHMEM_ARG1_(__VA_ARGS__, 0),                                               \
        shmem_ctx_t: TSHMEM_AMO_SEL_##K##_(ctx_, op,                                     \
                                     TSHMEM_ELEM_CTX_(TSHMEM_ARG1_(__VA_ARGS__, 0),      \
                                                      TSHMEM_ARG2_(__VA_ARGS__, 0, 0))), \
        default: TSHMEM_AMO_SEL_##K##_(, op,                                             \
                                       TSHMEM_ELEM_NOCTX_(TSHMEM_ARG1_(__VA_ARGS__, 0)))) \
    (__VA_ARGS__)
/* The deprecated generic names: no context, the 1.3 types. */
#define TSHMEM_AMO_SEL_DEP_(op, e)                                                       \
    _Generic((e),                                                                        \
        float: shmem_float_##op,                                                         \
        double: shmem_double_##op,                                                       \
        int: shmem_int_##op,                                                             \
        long: shmem_long_##op,                                                           \
        long long: shmem_longlong_##op,                                                  \
        default: TSHMEM_BAD_TYPE_)
#define TSHMEM_AMO_SEL_DEP_INT_(op, e)                                                   \
    _Generic((e),                                                                        \
        int: shmem_int_##op,                                                             \
        long: shmem_long_##op,                                                           \
        long long: shmem_longlong_##op,                                                  \
        default: TSHMEM_BAD_TYPE_)
/* clang-format on */

#define shmem_atomic_fetch(...) TSHMEM_AMO_GENERIC_(EXT, atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...)   TSHMEM_AMO_GENERIC_(EXT, atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...)  TSHMEM_AMO_GENERIC_(EXT, atomic_swap, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) \
    TSHMEM_AMO_GENERIC_(EXT, atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) TSHMEM_AMO_GENERIC_(EXT, atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) \
    TSHMEM_AMO_GENERIC_(STD, atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) \
    TSHMEM_AMO_GENERIC_(STD, atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...) TSHMEM_AMO_GENERIC_(STD, atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) \
    TSHMEM_AMO_GENERIC_(STD, atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...) TSHMEM_AMO_GENERIC_(STD, atomic_add, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) \
    TSHMEM_AMO_GENERIC_(STD, atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) \
    TSHMEM_AMO_GENERIC_(STD, atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) \
    TSHMEM_AMO_GENERIC_(STD, atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) \
    TSHMEM_AMO_GENERIC_(BIT, atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) TSHMEM_AMO_GENERIC_(BIT, atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) \
    TSHMEM_AMO_GENERIC_(BIT, atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_and(...) TSHMEM_AMO_GENERIC_(BIT, atomic_and, __VA_ARGS__)
#define shmem_atomic_or(...)  TSHMEM_AMO_GENERIC_(BIT, atomic_or, __VA_ARGS__)
#define shmem_atomic_xor(...) TSHMEM_AMO_GENERIC_(BIT, atomic_xor, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) \
    TSHMEM_AMO_GENERIC_(BIT, atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) \
    TSHMEM_AMO_GENERIC_(BIT, atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) \
    TSHMEM_AMO_GENERIC_(BIT, atomic_fetch_xor_nbi, __VA_ARGS__)

/* deprecated */
#define shmem_fetch(src, ...) TSHMEM_AMO_SEL_DEP_(fetch, *(src))(src, __VA_ARGS__)
#define shmem_set(dst, ...)   TSHMEM_AMO_SEL_DEP_(set, *(dst))(dst, __VA_ARGS__)
#define shmem_swap(dst, ...)  TSHMEM_AMO_SEL_DEP_(swap, *(dst))(dst, __VA_ARGS__)
#define shmem_cswap(dst, ...) TSHMEM_AMO_SEL_DEP_INT_(cswap, *(dst))(dst, __VA_ARGS__)
#define shmem_finc(dst, ...)  TSHMEM_AMO_SEL_DEP_INT_(finc, *(dst))(dst, __VA_ARGS__)
#define shmem_inc(dst, ...)   TSHMEM_AMO_SEL_DEP_INT_(inc, *(dst))(dst, __VA_ARGS__)
#define shmem_fadd(dst, ...)  TSHMEM_AMO_SEL_DEP_INT_(fadd, *(dst))(dst, __VA_ARGS__)
#define shmem_add(dst, ...)   TSHMEM_AMO_SEL_DEP_INT_(add, *(dst))(dst, __VA_ARGS__)

#endif /* C11 */

#ifdef __cplusplus
}
#endif

/* Inline fast paths of the hottest calls (tshmem/fast.h); libtshmem's own
 * sources define the functions themselves and go without. */
#if !defined(TSHMEM_NO_INLINE) && !defined(TSHMEM_BUILDING_)
#include "tshmem/fast.h"
#endif
#endif
