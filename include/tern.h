/* Tern: one-sided communication for PGAS runtimes and applications.
 *
 * A job is a set of ranks 0..tern_size()-1. Each rank owns a segment, a
 * fixed range of memory allocated at tern_init that every other rank can
 * read and write with put and get. Remote addresses are addresses inside
 * the target rank's segment *as the target sees it* (tern_segment_query
 * gives every rank's base), or of its global variables (tern_static_query,
 * below); local addresses may be any memory.
 *
 * Every call returns a status: TERN_OK (0), TERN_INPROGRESS (1, a test that
 * is not done yet) or a negative TERN_ERR_* code (tern/status.h); with
 * TERN_ERROR_MODE=abort any error ends the job with a message instead.
 * C99 and C++ includable. */
#ifndef TERN_H
#define TERN_H

#include <stddef.h>
#include <stdint.h>

#include "tern/status.h"
#include "tern/fast.h"
#include "tern/am.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TERN_VERSION_MAJOR 0
#define TERN_VERSION_MINOR 1
#define TERN_VERSION_PATCH 0

/* Every call returns a tern_status_t (TERN_OK, TERN_INPROGRESS or a
 * negative TERN_ERR_*); every injection call takes a tern_flags_t. */
typedef int tern_status_t;
typedef unsigned tern_flags_t;

/* Version of the layout the inline calls below read (tern_fast_state_t,
 * tern_peer_fast_t) and of their contract with the library. A program
 * compiled against another one is refused at tern_init with a message. */
/* 4: tern_memory_report_t grew (node table); 5: put with signal inline
 * (tern_put_signal_ behind it). */
#define TERN_ABI_VERSION 5u

/* ---- start-up and shutdown ------------------------------------------- */

/* Thread levels, as in MPI. With TERN_THREAD_MULTIPLE every call may be
 * made from any thread at any time; put/get to shared-memory peers stay
 * lock-free at every level. */
enum {
    TERN_THREAD_SINGLE = 0,
    TERN_THREAD_FUNNELED = 1,
    TERN_THREAD_SERIALIZED = 2,
    TERN_THREAD_MULTIPLE = 3,
};

/* Behind tern_init: abi is the TERN_ABI_VERSION the caller was compiled
 * with. */
TERN_API tern_status_t tern_init_abi_(int *argc, char ***argv, int thread_level,
                                      unsigned abi);

/* Start Tern in this process: read TERN_* variables, join the job (through
 * ternrun, PMIx under mpirun/srun/prterun, or as a single rank when started
 * without a launcher), create and fault in the segment, map the segments of
 * the ranks on this node. Collective over all ranks.
 * thread_level: one of TERN_THREAD_*. argc/argv may be NULL.
 * Returns TERN_OK, TERN_ERR_CONFIG (a bad TERN_* value, named in the log),
 * TERN_ERR_NOMEM (segment larger than the memory available, or
 * TERN_HUGEPAGES=on and no huge pages for it), TERN_ERR_BOOT,
 * TERN_ERR_TIMEOUT, TERN_ERR_SYS, TERN_ERR_INVALID (already initialized, or
 * the program was compiled against another TERN_ABI_VERSION). */
static inline tern_status_t tern_init(int *argc, char ***argv, int thread_level)
{
    return tern_init_abi_(argc, argv, thread_level, TERN_ABI_VERSION);
}

/* Collective: waits until the active-message Requests this rank sent
 * through the network transport have been handled (tern/am.h), then for
 * all ranks, then releases everything tern_init made. Returns TERN_OK,
 * TERN_ERR_NOT_INIT, or the first error met on the way (the rest is done). */
TERN_API tern_status_t tern_finalize(void);

/* Ends the whole job at once: prints msg (may be NULL) naming this rank and
 * host, and every other rank is stopped by the launcher. exit_code is the
 * job's exit status, 0 included under ternrun and without a launcher (PMIx
 * launchers get 1 for 0: some do not end a job for status 0). Does not
 * return. */
TERN_API void tern_abort(int exit_code, const char *msg);

TERN_API int tern_initialized(void);  /* 1 between tern_init and tern_finalize */
TERN_API int tern_rank(void);         /* this rank, or -1 before init */
TERN_API int tern_size(void);         /* number of ranks, or 0 before init */
TERN_API int tern_thread_level(void); /* level granted by tern_init */

/* Ranks that share this node (and so this process's memory bus).
 * tern_local_rank: index of this rank among them; tern_local_size: count;
 * tern_node_of(rank): node number (0..nodes-1) of rank, or -1 if bad. */
TERN_API int tern_local_rank(void);
TERN_API int tern_local_size(void);
TERN_API int tern_node_of(int rank);
TERN_API int tern_node_count(void);

/* ---- segments --------------------------------------------------------- */

/* Segment of rank: its base as the rank itself sees it, and its size.
 * Returns TERN_OK, TERN_ERR_RANK, TERN_ERR_NOT_INIT, TERN_ERR_INVALID. */
TERN_API tern_status_t tern_segment_query(int rank, void **base, size_t *size);

/* Behind tern_ptr for addresses outside the segment (the static region).
 * Not to be called directly. */
TERN_API void *tern_ptr_slow_(int rank, const void *remote_addr);

/* Address in this process through which [remote_addr, remote_addr+1) on
 * rank can be read and written with plain loads and stores (this rank or a
 * rank on the same node sharing memory), or NULL. remote_addr may be in
 * rank's segment or its static region. Like shmem_ptr. */
static inline void *tern_ptr(int rank, const void *remote_addr)
{
    intptr_t d;
    return tern_fast_ok_(rank, remote_addr, 1, &d) ? (char *)remote_addr + d
                                                   : tern_ptr_slow_(rank, remote_addr);
}

/* The static region: the program's global and static variables (the
 * executable's data and bss; not those of shared libraries) are remotely
 * accessible as well, like the segment, when every rank runs the same
 * executable (TERN_STATIC_DATA=1, the default). A remote address may be
 * in rank's segment or in its static region, as rank sees it: rank's
 * static base differs from this rank's under address-space randomization,
 * so translate with tern_sym_addr(rank, &variable). RMA (blocking, nb,
 * nbi), atomic domains, signals and the collectives' buffers accept such
 * addresses; they take the out-of-line path (the inline fast path serves
 * the segment only). Active messages' Long payloads, accumulate and the
 * VIS calls accept the segment only and say so.
 * tern_static_query: rank's static region, its base as rank sees it and
 * its size (0: none; a job whose ranks' regions differ in size has none,
 * with a warning at tern_init). Returns TERN_OK, TERN_ERR_RANK,
 * TERN_ERR_NOT_INIT, TERN_ERR_INVALID (base and size both NULL). */
TERN_API tern_status_t tern_static_query(int rank, void **base, size_t *size);

/* Allocate size bytes (aligned to 64) from this rank's own segment, so
 * that other ranks can reach them. NULL when the segment is full, size is 0,
 * or before init. tern_free(NULL) is a no-op; freeing anything else not
 * returned by tern_alloc is TERN_ERR_INVALID. Thread-safe. */
TERN_API void *tern_alloc(size_t size);
TERN_API tern_status_t tern_free(void *ptr);

/* Collective symmetric allocation: every rank calls it with the same size
 * and receives memory at the same offset of its own segment, so that
 * tern_sym_addr() maps it to any peer. Includes a barrier. Returns TERN_OK
 * with *out set, TERN_ERR_NOMEM, or TERN_ERR_MISMATCH when the ranks asked
 * for different sizes. tern_free_sym is collective as well. */
TERN_API tern_status_t tern_alloc_sym(size_t size, void **out);
TERN_API tern_status_t tern_free_sym(void *ptr);

/* Address on rank of the object at local_addr in this rank's segment,
 * assuming the same offset (symmetric allocation), or of the global
 * variable at local_addr (the same offset in rank's static region); NULL
 * if local_addr is in neither or rank is bad. */
TERN_API void *tern_sym_addr(int rank, const void *local_addr);

/* ---- RMA ---------------------------------------------------------------- */

/* Flags, accepted by every injection call. A bit this version does not
 * know is TERN_ERR_INVALID. */
#define TERN_FLAG_IMMEDIATE \
    0x1u                       /* never stall: return TERN_ERR_AGAIN where
                                    resources are exhausted */
#define TERN_FLAGS_KNOWN_ 0x1u /* every flag bit defined above */

/* Completion event of a non-blocking operation. TERN_EVENT_DONE stands for
 * an operation that was already complete when the call returned. */
typedef struct tern_event_s *tern_event_t;
#define TERN_EVENT_DONE ((tern_event_t)0)

/* A context: an ordering and completion domain for implicit (nbi)
 * operations, as OpenSHMEM contexts are. Every RMA call has a tern_ctx_
 * form taking one; the short forms (tern_put, ...) use TERN_CTX_DEFAULT,
 * whose nbi operations are tracked per calling thread. A created context
 * tracks the nbi operations of every thread that uses it. The operations
 * that handlers start on the progress thread (TERN_PROGRESS_THREAD=1),
 * where no application code runs, are completed (and their errors
 * returned, once) by any thread's sync of TERN_CTX_DEFAULT. */
typedef struct tern_ctx_s *tern_ctx_t;
#define TERN_CTX_DEFAULT ((tern_ctx_t)0)

/* Ordering modes of a context's blocking puts and blocking atomics that
 * return no value, to network peers (a blocking put with signal always
 * delivers its data before its signal, and its signal returns as such an
 * atomic does; a contiguous accumulate returns early in none only);
 * docs/design/ordering.md says what each costs on each transport.
 * - TERN_ORDER_STRICT: the call returns once the operation is visible at
 *   its target, so all blocking operations are seen in program order by
 *   every rank (the default, TERN_ORDER=strict).
 * - TERN_ORDER_PARTIAL: blocking operations of one kind (puts; atomics of
 *   one domain) to one target are applied in program order; a put and a
 *   later atomic, a put and a later get, or operations to two targets,
 *   may be seen in either order. Where the network keeps that order the call returns when its
 *   source is reusable; elsewhere it waits as strict does.
 * - TERN_ORDER_NONE: the call returns when its source is reusable;
 *   tern_ctx_fence orders, tern_ctx_quiet completes, as for nbi calls.
 * Calls that return data (gets, fetching atomics) return with it in every
 * mode, and operations on mapped (shared-memory) peers are complete when
 * they return, so these peers see program order in every mode. A barrier
 * (tern_barrier, tern_team_barrier, tern_team_barrier_nb) completes the
 * blocking operations that returned early before it starts: they are
 * visible to every rank after it, as in strict. */
#define TERN_ORDER_STRICT  1
#define TERN_ORDER_PARTIAL 2
#define TERN_ORDER_NONE    3

/* Create a context. options: 0 (the mode TERN_ORDER sets) or one
 * TERN_ORDER_* mode; any other value is TERN_ERR_INVALID. Returns TERN_OK
 * with *out set, TERN_ERR_NOMEM, TERN_ERR_NOT_INIT. tern_ctx_destroy first
 * completes the context's nbi operations (as tern_ctx_quiet) and returns
 * their first error (from inside an active-message handler, which must not
 * wait: TERN_ERR_INVALID, the context kept); a destroyed or unknown
 * context is TERN_ERR_INVALID in every call that takes it. */
TERN_API tern_status_t tern_ctx_create(tern_flags_t options, tern_ctx_t *out);
TERN_API tern_status_t tern_ctx_destroy(tern_ctx_t ctx);

/* The context's ordering mode (TERN_ORDER_*) in *mode: TERN_OK, or
 * TERN_ERR_INVALID (bad context, mode NULL). */
TERN_API tern_status_t tern_ctx_order(tern_ctx_t ctx, int *mode);

/* Out-of-line path of every inline RMA call below (errors, network
 * peers): op is one of TERN_RMA_*_ . Not to be called directly. */
enum {
    TERN_RMA_PUT_ = 0, /* blocking */
    TERN_RMA_GET_,
    TERN_RMA_PUT_NB_,
    TERN_RMA_GET_NB_,
    TERN_RMA_PUT_NBI_,
    TERN_RMA_GET_NBI_,
};
TERN_API tern_status_t tern_rma_slow_(tern_ctx_t ctx, int op, int rank, void *local,
                                      const void *remote, size_t n, tern_event_t *lc,
                                      tern_event_t *rc, tern_flags_t flags);
TERN_API tern_status_t tern_event_test_slow_(tern_event_t ev);
TERN_API tern_status_t tern_event_wait_slow_(tern_event_t ev);

/* Orders a fast-path put before the caller's later stores (a flag after
 * the payload): free on x86, a real barrier on weakly ordered CPUs. */
#if defined(__GNUC__)
#define TERN_PUT_FENCE_() __atomic_thread_fence(__ATOMIC_RELEASE)
#else
#define TERN_PUT_FENCE_() ((void)0)
#endif

/* 1 when a transfer with these flags and addresses takes the inline copy.
 * The flag test folds away when flags is a constant. */
#define TERN_FAST_(rank, remote, n, flags, d) \
    TERN_LIKELY_(!((flags) & ~TERN_FLAGS_KNOWN_) && tern_fast_ok_(rank, remote, n, d))

/* Blocking put: copy n bytes from local src to dst on rank. Returns once
 * the data is visible at the target (remote completion), or, on a context
 * whose ordering mode is TERN_ORDER_PARTIAL or TERN_ORDER_NONE, possibly
 * once src is reusable (see TERN_ORDER_STRICT above).
 * Returns TERN_OK, TERN_ERR_RANK, TERN_ERR_RANGE (dst range outside the
 * peer's segment; the log names rank, address and segment range),
 * TERN_ERR_OVERFLOW, TERN_ERR_INVALID (bad flag, context or buffer),
 * TERN_ERR_NOT_INIT, TERN_ERR_AGAIN (only with TERN_FLAG_IMMEDIATE), or the
 * error of a transfer that failed (TERN_ERR_PEER: the peer died or cannot
 * be reached). Cost to a mapped peer: bounds check and memcpy, inlined.
 * The local buffer is used like memcpy's argument: it is not validated on
 * the fast path, nor is ctx. */
static inline tern_status_t tern_ctx_put(tern_ctx_t ctx, int rank, void *dst,
                                         const void *src, size_t n, tern_flags_t flags)
{
    intptr_t d;
    if (TERN_FAST_(rank, dst, n, flags, &d)) {
        tern_fast_copy_(rank, (char *)dst + d, src, n);
        TERN_PUT_FENCE_();
        return TERN_OK;
    }
    return tern_rma_slow_(ctx, TERN_RMA_PUT_, rank, (void *)src, dst, n, 0, 0, flags);
}

/* Blocking get: copy n bytes from src on rank into local dst. Same
 * statuses as tern_ctx_put. */
static inline tern_status_t tern_ctx_get(tern_ctx_t ctx, void *dst, int rank,
                                         const void *src, size_t n, tern_flags_t flags)
{
    intptr_t d;
    if (TERN_FAST_(rank, src, n, flags, &d)) {
        tern_fast_copy_(rank, dst, (const char *)src + d, n);
        return TERN_OK;
    }
    return tern_rma_slow_(ctx, TERN_RMA_GET_, rank, dst, src, n, 0, 0, flags);
}

/* Non-blocking put with explicit events. *lc (if lc is not NULL) completes
 * when src may be reused (local completion); *rc (if not NULL) when the data
 * is visible at the target (remote completion, implies local). With rc NULL
 * the call waits for remote completion itself. Events must be completed
 * with tern_event_test/wait/wait_all. Statuses as tern_ctx_put; on an error
 * return no event is created; a transfer that fails after it started
 * reports its error through its events. */
static inline tern_status_t tern_ctx_put_nb(tern_ctx_t ctx, int rank, void *dst,
                                            const void *src, size_t n, tern_event_t *lc,
                                            tern_event_t *rc, tern_flags_t flags)
{
    intptr_t d;
    if (TERN_FAST_(rank, dst, n, flags, &d)) {
        /* A copy is complete, locally and remotely, when it returns. */
        tern_fast_copy_(rank, (char *)dst + d, src, n);
        TERN_PUT_FENCE_();
        if (lc)
            *lc = TERN_EVENT_DONE;
        if (rc)
            *rc = TERN_EVENT_DONE;
        return TERN_OK;
    }
    return tern_rma_slow_(ctx, TERN_RMA_PUT_NB_, rank, (void *)src, dst, n, lc, rc,
                          flags);
}

/* Non-blocking get: *done completes when dst holds the data (done NULL:
 * the call waits). */
static inline tern_status_t tern_ctx_get_nb(tern_ctx_t ctx, void *dst, int rank,
                                            const void *src, size_t n, tern_event_t *done,
                                            tern_flags_t flags)
{
    intptr_t d;
    if (TERN_FAST_(rank, src, n, flags, &d)) {
        tern_fast_copy_(rank, dst, (const char *)src + d, n);
        if (done)
            *done = TERN_EVENT_DONE;
        return TERN_OK;
    }
    return tern_rma_slow_(ctx, TERN_RMA_GET_NB_, rank, dst, src, n, 0, done, flags);
}

/* Implicit non-blocking (nbi) put and get: no event; completion is
 * collected by tern_ctx_nbi_sync / tern_ctx_quiet on the same context
 * (for TERN_CTX_DEFAULT: of the calling thread). Statuses as tern_ctx_put;
 * a failure after the start is returned by the sync. */
static inline tern_status_t tern_ctx_put_nbi(tern_ctx_t ctx, int rank, void *dst,
                                             const void *src, size_t n,
                                             tern_flags_t flags)
{
    intptr_t d;
    if (TERN_FAST_(rank, dst, n, flags, &d)) {
        tern_fast_copy_(rank, (char *)dst + d, src, n);
        return TERN_OK;
    }
    return tern_rma_slow_(ctx, TERN_RMA_PUT_NBI_, rank, (void *)src, dst, n, 0, 0, flags);
}

static inline tern_status_t tern_ctx_get_nbi(tern_ctx_t ctx, void *dst, int rank,
                                             const void *src, size_t n,
                                             tern_flags_t flags)
{
    intptr_t d;
    if (TERN_FAST_(rank, src, n, flags, &d)) {
        tern_fast_copy_(rank, dst, (const char *)src + d, n);
        return TERN_OK;
    }
    return tern_rma_slow_(ctx, TERN_RMA_GET_NBI_, rank, dst, src, n, 0, 0, flags);
}

/* The default-context forms: the same calls at the same cost. */
static inline tern_status_t tern_put(int rank, void *dst, const void *src, size_t n,
                                     tern_flags_t flags)
{
    return tern_ctx_put(TERN_CTX_DEFAULT, rank, dst, src, n, flags);
}
static inline tern_status_t tern_get(void *dst, int rank, const void *src, size_t n,
                                     tern_flags_t flags)
{
    return tern_ctx_get(TERN_CTX_DEFAULT, dst, rank, src, n, flags);
}
static inline tern_status_t tern_put_nb(int rank, void *dst, const void *src, size_t n,
                                        tern_event_t *lc, tern_event_t *rc,
                                        tern_flags_t flags)
{
    return tern_ctx_put_nb(TERN_CTX_DEFAULT, rank, dst, src, n, lc, rc, flags);
}
static inline tern_status_t tern_get_nb(void *dst, int rank, const void *src, size_t n,
                                        tern_event_t *done, tern_flags_t flags)
{
    return tern_ctx_get_nb(TERN_CTX_DEFAULT, dst, rank, src, n, done, flags);
}
static inline tern_status_t tern_put_nbi(int rank, void *dst, const void *src, size_t n,
                                         tern_flags_t flags)
{
    return tern_ctx_put_nbi(TERN_CTX_DEFAULT, rank, dst, src, n, flags);
}
static inline tern_status_t tern_get_nbi(void *dst, int rank, const void *src, size_t n,
                                         tern_flags_t flags)
{
    return tern_ctx_get_nbi(TERN_CTX_DEFAULT, dst, rank, src, n, flags);
}

/* Test an event: TERN_OK (complete; the event is released and must not be
 * used again), TERN_INPROGRESS, or the error of a failed operation (the
 * event is released as well). Polls. Testing or waiting on an event that
 * was already released is TERN_ERR_INVALID, and so is a value that is not
 * an event; the events of other operations are never disturbed. */
static inline tern_status_t tern_event_test(tern_event_t ev)
{
    return ev == TERN_EVENT_DONE ? TERN_OK : tern_event_test_slow_(ev);
}
/* Wait for an event (polling, then yielding per TERN_WAIT_MODE); releases
 * it. Statuses as tern_event_test, without TERN_INPROGRESS. */
static inline tern_status_t tern_event_wait(tern_event_t ev)
{
    return ev == TERN_EVENT_DONE ? TERN_OK : tern_event_wait_slow_(ev);
}
/* Wait for n events; entries may be TERN_EVENT_DONE and are set to it.
 * Returns the first error met, after all have completed. */
TERN_API tern_status_t tern_event_wait_all(tern_event_t *evs, size_t n);

#define TERN_SYNC_LOCAL  0x1u /* all nbi put sources reusable */
#define TERN_SYNC_REMOTE 0x2u /* all nbi puts visible, all nbi gets landed */

/* Wait until the context's nbi operations reach the completion level
 * asked (TERN_SYNC_LOCAL or TERN_SYNC_REMOTE). Returns TERN_OK or the first
 * error of an operation that failed since the last sync (reported once).
 * tern_ctx_nbi_test does not wait and returns TERN_INPROGRESS when not
 * complete. */
TERN_API tern_status_t tern_ctx_nbi_sync(tern_ctx_t ctx, unsigned level);
TERN_API tern_status_t tern_ctx_nbi_test(tern_ctx_t ctx, unsigned level);

/* Quiet: every nbi operation of the context is complete (remotely), as
 * tern_ctx_nbi_sync(ctx, TERN_SYNC_REMOTE). Fence: nbi puts of the context
 * issued before it become visible at their targets before those issued
 * after it; free to mapped peers, a quiet of the context's network puts
 * otherwise (see docs/design/api-shape.md). */
TERN_API tern_status_t tern_ctx_quiet(tern_ctx_t ctx);
TERN_API tern_status_t tern_ctx_fence(tern_ctx_t ctx);

/* The default context's sync, test, quiet and fence (calling thread). */
TERN_API tern_status_t tern_nbi_sync(unsigned level);
TERN_API tern_status_t tern_nbi_test(unsigned level);
TERN_API tern_status_t tern_quiet(void);
TERN_API tern_status_t tern_fence(void);

/* Make progress on every transport once; returns TERN_OK. Waiting calls
 * poll by themselves. */
TERN_API tern_status_t tern_poll(void);

/* ---- synchronization ---------------------------------------------------- */

/* Blocking barrier over all ranks; also orders: every put issued before it
 * (blocking or completed) is visible to every rank after it. That includes
 * blocking puts and atomics that returned early on a TERN_ORDER_PARTIAL or
 * _NONE context: the barrier first quiets every context holding such
 * operations (the calling thread's default context and every created
 * one), together with whatever nbi operations those contexts hold; nbi
 * operations of other contexts are not waited for (sync them). Another
 * thread's default context is completed by that thread's quiet or
 * barrier. Returns TERN_OK, or the first error of the operations it
 * completed (logged; the barrier is still done). */
TERN_API tern_status_t tern_barrier(void);

/* Comparison for tern_wait_until_u64. */
enum { TERN_CMP_EQ, TERN_CMP_NE, TERN_CMP_GT, TERN_CMP_GE, TERN_CMP_LT, TERN_CMP_LE };

/* Wait until *addr (a location in this rank's segment, normally written by
 * peers' puts, or any 8-byte-aligned word of this process that a handler
 * of this rank sets) compares true against value; polls and yields as the
 * wait mode says: once a handler is registered every check runs handlers
 * and a check that found nothing to do pauses the CPU (for about one pause,
 * watching this rank's shared-memory message queues meanwhile, so that a
 * message that arrives is handled at once), so it is the way to
 * wait for a Reply (see tern/am.h); without handlers and when spinning, it
 * polls as a hand-written spin does (load, compare, pause), with
 * progress every 64 polls. Returns TERN_OK or TERN_ERR_INVALID. */
TERN_API tern_status_t tern_wait_until_u64(const volatile uint64_t *addr, int cmp,
                                           uint64_t value);

/* ---- start-up report ---------------------------------------------------- */

/* What tern_init did, for tools and benchmarks (also printed with
 * TERN_VERBOSE=1). Times in seconds. */
typedef struct tern_startup_report {
    double t_boot;     /* joining the job and exchanging node identities */
    double t_segment;  /* creating and mapping the own segment */
    double t_faultin;  /* touching every page of it */
    double t_crossmap; /* exchanging and mapping the node's other segments */
    double t_total;    /* all of tern_init */
    size_t segment_size;
    size_t page_size; /* page size actually backing the segment */
    int faultin_threads;
    char faultin_mode[16]; /* "parallel", "serial" or "none" */
    char page_note[256];   /* how the page size came about, and why not huge */
    char boot_name[16];    /* "ternrun", "pmix" or "single" */
} tern_startup_report_t;

TERN_API tern_status_t tern_startup_report(tern_startup_report_t *out);

/* ---- memory report ------------------------------------------------------ */

/* What this rank's Tern holds in memory, in bytes, split by what it grows
 * with (also printed at init with TERN_VERBOSE=1: rank 0, or every rank
 * with TERN_VERBOSE=2; tern-info --memory explains the figures). Tern's
 * own figures are counted from the sizes of its allocations (tables sized
 * by rank counts, queues, descriptors, message buffers as allocated,
 * whether their pages were touched or not) at the time of the call. The
 * provider's share is measured: growth of the process's RssAnon across
 * the calls that load and open the network provider at start-up (its
 * later growth, such as one connection per peer contacted with ofi_rxm,
 * is not seen). See docs/design/scale.md. */
typedef struct tern_memory_report {
    int local_peers;  /* other ranks sharing memory with this one */
    int remote_peers; /* ranks reached through the network */
    int remote_nodes; /* other nodes of the job (TERN_SHM=off: every rank is
                         its own node) */
    /* Tern's private memory: own = fixed + local_peers * per_local_peer +
     * remote_peers * per_remote_peer + remote_nodes * per_remote_node +
     * net_addresses * per_contacted_peer (below). */
    size_t fixed; /* independent of the job's size, this rank's own table
                     entries included */
    size_t per_local_peer;
    size_t per_remote_peer;
    size_t per_remote_node;
    size_t own;
    /* Tern's shared memory in this rank's mapping (the control area before
     * the segment: message queues from each local peer, barrier flags):
     * shared = shared_fixed + local_peers * shared_per_local_peer. */
    size_t shared_fixed;
    size_t shared_per_local_peer;
    size_t shared;
    size_t untouched;   /* of own: buffers resident only once used (network
                         message buffers, allocated whole at start-up) */
    size_t topology;    /* the hardware topology (hwloc's objects), measured
                         as RssAnon growth across its loading */
    size_t provider;    /* the network provider's private memory (0: none) */
    size_t total;       /* own + topology + provider: private memory Tern
                         accounts for */
    size_t init_growth; /* RssAnon growth across tern_init, measured, for
                           comparison with total (libraries, topology, the
                           C library's own state are in it too) */
    size_t segment;     /* the user segment (shared memory), for reference */
    int net_addresses;  /* network addresses this rank has inserted into its
                           address vector: with TERN_OFI_LAZY_ADDR=1 (the
                           default) only the ranks it has contacted through
                           the network, else every rank of the job */
    /* The node-shared peer table: one row per rank of the job, kept once
     * per node in shared memory (written by the node's leader, read in
     * place by its ranks), not in any rank's private memory. */
    size_t node_table_per_rank; /* bytes of a row */
    size_t per_contacted_peer;  /* private bytes per network peer contacted
                                   (net_addresses of them), in own */
    size_t node_table;          /* bytes of this node's table (rows rounded up
                                   to pages); 0 where this rank could not map
                                   it and keeps a private copy (then in the
                                   per-peer parts) */
} tern_memory_report_t;

/* Fills *out with this rank's figures now. TERN_OK; TERN_ERR_INVALID when
 * out is NULL; TERN_ERR_NOT_INIT before tern_init or after
 * tern_finalize. */
TERN_API tern_status_t tern_memory_report(tern_memory_report_t *out);

#ifdef __cplusplus
}
#endif

#include "tern/atomic.h" /* remote atomics: atomic domains */
#include "tern/signal.h" /* put with signal, waiting on signal words */
#include "tern/team.h"   /* teams and collectives */
#include "tern/vis.h"    /* non-contiguous put and get */
#include "tern/acc.h"    /* accumulate */
#endif
