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

/* ThreadSanitizer builds (TERN_SANITIZE=thread): writes that deliver a
 * peer's data into this rank's segment (the provider's progress, a Long
 * payload copied into place), which a NIC would make by DMA and whose
 * ordering before the reader's load comes through another process (a
 * flag, a message), which ThreadSanitizer cannot see. The writes between
 * BEGIN and END are not recorded; synchronization still is. */
#if defined(__SANITIZE_THREAD__) /* GCC */
#define TN_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) /* clang */
#define TN_TSAN 1
#endif
#endif
#if defined(TN_TSAN)
void AnnotateIgnoreWritesBegin(const char *file, int line);
void AnnotateIgnoreWritesEnd(const char *file, int line);
#define TN_PEER_WRITES_BEGIN() AnnotateIgnoreWritesBegin(__FILE__, __LINE__)
#define TN_PEER_WRITES_END()   AnnotateIgnoreWritesEnd(__FILE__, __LINE__)
#else
#define TN_PEER_WRITES_BEGIN() ((void)0)
#define TN_PEER_WRITES_END()   ((void)0)
#endif

#endif
