/* Compiler helpers shared by every layer. */
#ifndef TN_COMPILER_H
#define TN_COMPILER_H

#define tn_likely(x)    __builtin_expect(!!(x), 1)
#define tn_unlikely(x)  __builtin_expect(!!(x), 0)
#define TN_NOINLINE     __attribute__((noinline, cold))
#define TN_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
/* A small thread-local read on hot paths: initial-exec, one load from the
 * thread pointer instead of a __tls_get_addr call (libtern is linked by
 * programs, not dlopen'ed; a few bytes of static TLS). */
#define TN_TLS_FAST __attribute__((tls_model("initial-exec")))

/* For the few small functions of a fast path that GCC would keep out of
 * line (their callers are measured with callgrind: scripts/am-cost.sh). */
#define TN_ALWAYS_INLINE inline __attribute__((always_inline))
/* Reads of memory that AddressSanitizer must not check: the bytes between
 * a program's globals (their redzones) when the whole data segment is
 * copied (mem/static.c). */
#if defined(__GNUC__) || defined(__clang__)
#define TN_NO_ASAN __attribute__((no_sanitize_address))
#else
#define TN_NO_ASAN
#endif

#endif
