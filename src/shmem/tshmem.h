/* libtshmem internals: the state every OpenSHMEM call reads, symmetric
 * address translation, context handles and the error paths. The layer
 * uses only Tern's public API (tern.h). */
#ifndef TSHMEM_H
#define TSHMEM_H

#include <stddef.h>
#include <stdint.h>

#include <shmem.h>
#include <tern.h>

#define TSHMEM_LIKELY(x)    __builtin_expect(!!(x), 1)
#define TSHMEM_UNLIKELY(x)  __builtin_expect(!!(x), 0)
#define TSHMEM_NOINLINE     __attribute__((noinline, cold))
#define TSHMEM_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* A context: the Tern context its operations are counted in, and the
 * options it was created with. Handles are addresses of these objects:
 * the default context (tshmem_ctx_default_) or a slot of the table in
 * ctx.c, so a destroyed one is recognized by its magic. */
#define TSHMEM_CTX_LIVE 0x6374786cu
#define TSHMEM_CTX_DEAD 0x64656164u
struct tshmem_ctx_s {
    uint32_t magic;    /* TSHMEM_CTX_LIVE while usable */
    tern_ctx_t tctx;   /* where its nbi operations are counted */
    long options;      /* SHMEM_CTX_* given at creation */
    shmem_team_t team; /* shmem_team_create_ctx's team; NULL: the world */
    /* The AMOs' Tern context, in TERN_ORDER_PARTIAL mode: a non-fetching
     * AMO to a network PE returns once issued where the network keeps the
     * order of atomics (as the specification allows), and the PE's AMOs
     * still take effect in program order (Tern orders the atomics of one
     * domain on one context). amo_pending: 1 when AMOs may be
     * outstanding on it (written by the AMOs, cleared by
     * fence and quiet, which complete it first). */
    tern_ctx_t amo;
    int amo_pending; /* __atomic builtins, relaxed */
};

/* Library state. The first fields are what every RMA call reads; they are
 * written at initialization only. */
typedef struct tshmem_state {
    /* read by every call */
    uint32_t npes;                    /* 0 when not initialized */
    int debug;                        /* SHMEM_DEBUG: argument checks and messages */
    uintptr_t heap_base;              /* this PE's symmetric heap (its Tern segment) */
    size_t heap_size;                 /* bytes */
    const uintptr_t *peer_base;       /* heap base of every PE, as that PE sees it */
    const unsigned char *peer_mapped; /* 1: plain loads and stores reach the PE */
    int put_local; /* blocking puts to network PEs wait for local completion only */
    /* Global and static variables (Tern's static region): this PE's and
     * every PE's base, as that PE sees it; static_size 0: not accessible. */
    uintptr_t static_base;
    size_t static_size;
    const uintptr_t *peer_static;

    /* 1: some PE is not mapped here, so some reach this one by messages
     * only (the job spans nodes): tshmem_spin_poll, tshmem_amo_tctx */
    int spans_nodes;

    /* setup */
    int mype;
    int init_count;     /* inits not yet matched by a finalize: >0 initialized */
    int ever_finalized; /* the last finalize returned at least once */
    int tern_up;        /* tern_init done (kept until process exit) */
    int start_pes;      /* initialized by start_pes: finalize implicitly at exit */
    int thread_level;   /* provided */
    char host[64];
} tshmem_state_t;

extern tshmem_state_t tshmem_g;

/* ---- messages ---------------------------------------------------------------- */

/* "shmem[PE@host] error: " + message on stderr. */
TSHMEM_PRINTF(1, 2) void tshmem_error(const char *fmt, ...);
/* The same as a debug note (only printed with SHMEM_DEBUG). */
TSHMEM_PRINTF(1, 2) void tshmem_debug_note(const char *fmt, ...);
/* Print the message, then end the whole job with status 1. */
TSHMEM_PRINTF(1, 2) TSHMEM_NORETURN void tshmem_fatal(const char *fmt, ...);

/* ---- contexts ---------------------------------------------------------------- */

/* Context handle failed its check: NULL, destroyed, or not a context. */
TSHMEM_NOINLINE TSHMEM_NORETURN void tshmem_ctx_fail(const char *call, shmem_ctx_t ctx);
/* With SHMEM_DEBUG: ctx must be the default context or one of the table. */
void tshmem_ctx_debug_check(const char *call, shmem_ctx_t ctx);

/* Tern context of a live handle. Cost: one load and a compare. */
static inline tern_ctx_t tshmem_tctx(shmem_ctx_t ctx, const char *call)
{
    if (TSHMEM_UNLIKELY(tshmem_g.debug))
        tshmem_ctx_debug_check(call, ctx);
    if (TSHMEM_UNLIKELY(!ctx || ctx->magic != TSHMEM_CTX_LIVE))
        tshmem_ctx_fail(call, ctx);
    return ctx->tctx;
}

/* The Tern context of the AMOs of the live context ctx; marks it pending
 * in a job that spans nodes, where an AMO may go through the network (to
 * any PE, mapped ones too, when the domain uses the network's atomics)
 * and return before it is done. Cost: a load and a branch on one node. */
static inline tern_ctx_t tshmem_amo_tctx(shmem_ctx_t ctx)
{
    if (TSHMEM_UNLIKELY(tshmem_g.spans_nodes) &&
        !__atomic_load_n(&ctx->amo_pending, __ATOMIC_RELAXED))
        __atomic_store_n(&ctx->amo_pending, 1, __ATOMIC_RELAXED);
    return ctx->amo;
}

/* Quiet of a context, shared by shmem_ctx_quiet, barrier_all and the
 * memory routines. */
void tshmem_ctx_quiet_(shmem_ctx_t ctx, const char *call);
/* Default context set-up and teardown (ctx.c), called by init/finalize. */
int tshmem_ctx_init(void);
void tshmem_ctx_fini(void);
void tshmem_alloc_fini(void);

/* ---- symmetric addresses --------------------------------------------------------- */

/* A bad PE, or an RMA call before shmem_init: says so and ends the job. */
TSHMEM_NOINLINE TSHMEM_NORETURN void tshmem_bad_pe(const char *call, int pe);
/* A Tern error from a transfer: names the symmetric address and PE. */
TSHMEM_NOINLINE TSHMEM_NORETURN void tshmem_rma_fail(const char *call, int status, int pe,
                                                     const void *sym, size_t n);
/* Debug checks of a transfer's symmetric range and local buffer. */
void tshmem_rma_debug_check(const char *call, int pe, const void *sym, const void *local,
                            size_t n);

/* tshmem_remote for what is not in the heap: a global variable's address
 * on pe (the same offset from pe's static base), or sym itself (not
 * symmetric: Tern's check then names it). */
void *tshmem_remote_static(int pe, const void *sym);

/* Address on pe of the symmetric object at sym: the same offset from pe's
 * heap base (objects of shmem_malloc and the like), or from its static
 * base (global and static variables, out of line). pe must be valid.
 * Cost for the heap: a subtract, a compare, a load and an add. */
static inline void *tshmem_remote(int pe, const void *sym)
{
    uintptr_t off = (uintptr_t)sym - tshmem_g.heap_base;
    if (TSHMEM_LIKELY(off < tshmem_g.heap_size))
        return (void *)(tshmem_g.peer_base[pe] + off);
    return tshmem_remote_static(pe, sym);
}

/* 1 when [sym, sym+n) is symmetric here: in the heap or among the global
 * and static variables. */
static inline int tshmem_is_sym(const void *sym, size_t n)
{
    uintptr_t a = (uintptr_t)sym, h = a - tshmem_g.heap_base,
              s = a - tshmem_g.static_base;
    return (h <= tshmem_g.heap_size && n <= tshmem_g.heap_size - h) ||
           (tshmem_g.static_size && s <= tshmem_g.static_size &&
            n <= tshmem_g.static_size - s);
}

/* "the symmetric heap [a, b) and the global variables [c, d)" for
 * messages (a static buffer). */
const char *tshmem_sym_ranges(void);

/* Checks pe and the byte count of nelems elements of size es, and returns
 * the byte count. */
static inline size_t tshmem_rma_args(const char *call, int pe, size_t nelems, size_t es)
{
    size_t n;
    if (TSHMEM_UNLIKELY((unsigned)pe >= tshmem_g.npes))
        tshmem_bad_pe(call, pe);
    if (TSHMEM_UNLIKELY(__builtin_mul_overflow(nelems, es, &n)))
        tshmem_fatal("%s: %zu elements of %zu bytes overflow the address space", call,
                     nelems, es);
    return n;
}

/* ---- teams and collectives (team.c, coll.c) ------------------------------------ */

/* A team: the Tern team, its configuration, and its slot of the symmetric
 * scratch pool (the same slot on every member). Handles are addresses of
 * these: the two predefined ones or a slot of the table in team.c. */
#define TSHMEM_TEAM_LIVE 0x7465616du
#define TSHMEM_TEAMS_MAX 32 /* as TERN_TEAMS_MAX */
/* Symmetric bytes per team for collectives: 16 KiB, less in a small heap
 * (down to 1 KiB); set at initialization. */
extern size_t tshmem_scratch_bytes;
struct tshmem_team_s {
    uint32_t magic;
    tern_team_t tt;
    int reversed; /* negative stride: team PE i is Tern team rank size-1-i */
    int slot;     /* scratch slot */
    shmem_team_config_t config;
    long config_mask;
    int nctx; /* contexts made by shmem_team_create_ctx, alive */
};

/* The team behind a handle, or NULL after a message naming call (invalid
 * or destroyed). */
struct tshmem_team_s *tshmem_team_get(shmem_team_t team, const char *call);
/* Tern team rank of team PE pe (negative-stride teams are reversed). */
static inline int tshmem_team_trank(const struct tshmem_team_s *t, int pe)
{
    return t->reversed ? tern_team_size(t->tt) - 1 - pe : pe;
}
/* This team's symmetric scratch (TSHMEM_SCRATCH bytes). */
void *tshmem_team_scratch(const struct tshmem_team_s *t);
int tshmem_teams_init(void);
void tshmem_teams_fini(void);

/* ---- atomics ---------------------------------------------------------------- */

/* Creates the atomic domains of the AMOs (amo.c), once per process; 0. */
int tshmem_amo_init(void);
/* The domain of Tern atomic type (TERN_AT_*) that every AMO of that type
 * uses, or NULL if it could not be created: other layers that update
 * words with atomics (locks) use it so that one mechanism serves a word. */
tern_ad_t tshmem_amo_domain(int type);

/* ---- inline fast paths (fast.c, include/tshmem/fast.h) ------------------------ */

/* Turn shmem.h's inline paths on (end of an initialization; not under
 * SHMEM_DEBUG) and off (start of the last finalization). */
void tshmem_fast_on(void);
void tshmem_fast_off(void);

/* ---- waiting ---------------------------------------------------------------- */

/* Fetching AMOs served in place (a CPU atomic on a PE of this node, this
 * PE included), signal_fetch, and puts and gets to such PEs (copies) poll
 * nothing, and programs spin on them (`while (shmem_long_atomic_fetch(
 * &flag, me) == 0)`; a lock made of puts and gets at its owner,
 * tests-mellanox lock:atomic_lock_stress). Where some PE reaches this one
 * by messages only (active-message atomics, signals, a manual-progress
 * network provider, the network's gets served by the atomic mailbox),
 * such a spin would never serve it and the job would hang; so in those
 * jobs (tshmem_g.spans_nodes) every 1024th of these calls in a thread
 * polls Tern once, and shmem.h's inline AMOs are off (fast.c); its inline
 * puts and gets count in the same counter (tshmem/fast.h,
 * tshmem_fast_poll_). Cost: a load and a branch in a job on one node; a
 * thread-local increment and a branch otherwise, plus one tern_poll
 * every 1024 calls. The counter is initial-exec TLS: the general model
 * of a shared library's TLS called __tls_get_addr on every AMO (11 of
 * the layer's ~90 instructions per network AMO, callgrind); 4 bytes of
 * glibc's static TLS reserve, which also covers a dlopen (shmem4py). */
#define TSHMEM_TLS_IE __thread __attribute__((tls_model("initial-exec")))
extern TSHMEM_API TSHMEM_TLS_IE unsigned tshmem_spin_count_;
static inline void tshmem_spin_poll(void)
{
    if (TSHMEM_UNLIKELY(tshmem_g.spans_nodes) &&
        TSHMEM_UNLIKELY(++tshmem_spin_count_ % 1024u == 0))
        tern_poll();
}

/* One step of a wait after iter unsuccessful checks: drives Tern's
 * progress now and then and yields the CPU after a while. */
void tshmem_wait_step(uint64_t iter);

#endif
