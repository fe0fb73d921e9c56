/* Remote atomics (included by tern.h). An atomic domain is created for
 * one data type and a set of operations; the operations of one domain on
 * one word are atomic with respect to each other, from every rank. Each
 * domain picks one implementation for its whole op set and every peer
 * (tern_ad_info says which and why):
 *   TERN_AD_IMPL_CPU  every rank's segment is mapped by every rank that
 *                     can reach it (one node): CPU atomics in place;
 *   TERN_AD_IMPL_NET  the job spans nodes and the network provider
 *                     carries out every op of the set for the type in
 *                     its NIC (or TERN_OFI_ATOMICS=net): all targets,
 *                     this rank and node-local ones included, go
 *                     through the network so that no two mechanisms meet
 *                     on one word;
 *   TERN_AD_IMPL_AM   the job spans nodes and the provider lacks an op
 *                     or emulates its atomics in software (ofi_rxm,
 *                     tcp, shm, ...: the am path batches many in
 *                     flight), or TERN_OFI_ATOMICS=am: targets on this
 *                     node run CPU atomics in place, the others get an active
 *                     message whose handler runs the op with CPU atomics
 *                     at the target, so every op on a word is a CPU
 *                     atomic on it. Its target makes progress when it
 *                     calls Tern (or with TERN_PROGRESS_THREAD=1).
 * TERN_OFI_ATOMICS=net refuses the am path: creation returns
 * TERN_ERR_UNSUPPORTED naming the ops the provider lacks.
 * Operations on a word are atomic only with respect to operations of
 * domains with the same type on that word, not to puts or plain stores. */
#ifndef TERN_ATOMIC_H
#define TERN_ATOMIC_H

#ifndef TERN_H
#error "include <tern.h>, not <tern/atomic.h>"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Data types of atomic domains. */
enum {
    TERN_AT_I32 = 0, /* int32_t */
    TERN_AT_U32,     /* uint32_t */
    TERN_AT_I64,     /* int64_t */
    TERN_AT_U64,     /* uint64_t */
    TERN_AT_FLOAT,   /* float */
    TERN_AT_DOUBLE,  /* double */
};

/* Operations: one bit each, so that a domain takes their OR as its set and
 * every call takes exactly one. Operands: a1 is the operand (CSWAP: the
 * value compared), a2 CSWAP's new value; the others ignore them. Fetching
 * operations (GET, SWAP, CSWAP, F*) store the old value in *result. */
#define TERN_OP_GET   (1u << 0)  /* result = *addr */
#define TERN_OP_SET   (1u << 1)  /* *addr = a1 */
#define TERN_OP_SWAP  (1u << 2)  /* result = *addr, *addr = a1 */
#define TERN_OP_CSWAP (1u << 3)  /* result = *addr; if it == a1: *addr = a2 */
#define TERN_OP_ADD   (1u << 4)  /* *addr += a1 (integers wrap) */
#define TERN_OP_SUB   (1u << 5)  /* *addr -= a1 */
#define TERN_OP_INC   (1u << 6)  /* *addr += 1 */
#define TERN_OP_DEC   (1u << 7)  /* *addr -= 1 */
#define TERN_OP_AND   (1u << 8)  /* *addr &= a1 (integer types only) */
#define TERN_OP_OR    (1u << 9)  /* *addr |= a1 (integer types only) */
#define TERN_OP_XOR   (1u << 10) /* *addr ^= a1 (integer types only) */
#define TERN_OP_MIN   (1u << 11) /* *addr = min(*addr, a1) */
#define TERN_OP_MAX   (1u << 12) /* *addr = max(*addr, a1) */
#define TERN_OP_MULT  (1u << 13) /* *addr *= a1 */
#define TERN_OP_FADD  (1u << 14) /* the fetching forms of ADD .. MULT */
#define TERN_OP_FSUB  (1u << 15)
#define TERN_OP_FINC  (1u << 16)
#define TERN_OP_FDEC  (1u << 17)
#define TERN_OP_FAND  (1u << 18)
#define TERN_OP_FOR   (1u << 19)
#define TERN_OP_FXOR  (1u << 20)
#define TERN_OP_FMIN  (1u << 21)
#define TERN_OP_FMAX  (1u << 22)
#define TERN_OP_FMULT (1u << 23)
#define TERN_OPS_ALL_ 0xffffffu /* every TERN_OP_* bit */

/* Implementations (tern_ad_info). */
enum { TERN_AD_IMPL_CPU = 1, TERN_AD_IMPL_NET = 2, TERN_AD_IMPL_AM = 3 };

typedef struct tern_ad_s *tern_ad_t;

/* tern_ad_create flag: where the job spans nodes and the network provider
 * carries out every op of the set, use it (TERN_AD_IMPL_NET) even when it
 * emulates atomics in software, where TERN_OFI_ATOMICS=auto would take the
 * am path. The am path carries many nbi ops in flight ~10x faster. On
 * both paths a blocking non-fetching op on a TERN_ORDER_PARTIAL context
 * returns once issued where the transport keeps the order of such ops to
 * one peer (the provider's atomic order; on the am path the order of
 * Requests, tern/am.h). */
#define TERN_AD_PROVIDER 0x100u

/* Create an atomic domain for type (TERN_AT_*) and the operations in ops
 * (an OR of TERN_OP_*). Local: no communication; the implementation is
 * chosen from facts that every rank shares (the job's nodes, the network
 * provider), so every rank that creates a domain with the same type and
 * set (and flags) chooses the same one, and ranks must use such domains
 * for a word. flags: 0 or TERN_AD_PROVIDER. Returns TERN_OK with *out set; TERN_ERR_INVALID
 * (unknown type, empty set or unknown op bits, a bitwise op for float or double, bad
 * flags, out NULL); TERN_ERR_UNSUPPORTED (the job spans nodes and the
 * network provider lacks an op of the set and TERN_OFI_ATOMICS=net, or
 * no transport carries active messages to a peer: the message names it);
 * TERN_ERR_NOMEM (more than 1024 live domains); TERN_ERR_NOT_INIT. */
TERN_API tern_status_t tern_ad_create(int type, uint32_t ops, tern_flags_t flags,
                                      tern_ad_t *out);
/* Destroy a domain (its operations must be complete). A destroyed or
 * unknown domain is TERN_ERR_INVALID in every call that takes it. */
TERN_API tern_status_t tern_ad_destroy(tern_ad_t ad);
/* Which implementation ad uses (*impl: TERN_AD_IMPL_*, may be NULL) and
 * why, as one line into why (may be NULL). TERN_VERBOSE=1 logs the same
 * line when a domain is created. */
TERN_API tern_status_t tern_ad_info(tern_ad_t ad, int *impl, char *why, size_t len);

/* The out-of-line entry behind the typed calls below; not to be called
 * directly. mode: TERN_AD_BLOCK_, TERN_AD_NB_ or TERN_AD_NBI_. */
enum { TERN_AD_BLOCK_ = 0, TERN_AD_NB_, TERN_AD_NBI_ };
TERN_API tern_status_t tern_ad_op_(tern_ctx_t ctx, tern_ad_t ad, int type, int mode,
                                   int rank, void *addr, uint32_t op, const void *a1,
                                   const void *a2, void *result, tern_event_t *ev,
                                   tern_flags_t flags);

/* Typed calls, for each type T (i32, u32, i64, u64, float, double) with C
 * type C. addr is a naturally aligned C in rank's segment (as rank sees
 * it). Every call checks that the domain's type is T, that op is one bit
 * of the domain's set, and the address; result may be NULL only for
 * non-fetching ops.
 *   tern_ctx_ad_op_T(ctx, ad, rank, addr, op, a1, a2, result, flags)
 *       blocking: done (and *result set) when it returns; a non-fetching
 *       op to a network peer on a context whose ordering mode is
 *       TERN_ORDER_PARTIAL or TERN_ORDER_NONE may return once issued, and
 *       is then completed by the context's fence or quiet (tern.h);
 *   tern_ctx_ad_op_nb_T(ctx, ad, rank, addr, op, a1, a2, result, ev, flags)
 *       *ev completes when the op is done and *result set (ev NULL: waits);
 *   tern_ctx_ad_op_nbi_T(ctx, ad, rank, addr, op, a1, a2, result, flags)
 *       completed by tern_ctx_nbi_sync(ctx, TERN_SYNC_REMOTE) / quiet;
 * and tern_ad_op_T, tern_ad_op_nb_T, tern_ad_op_nbi_T on TERN_CTX_DEFAULT.
 * Returns TERN_OK, TERN_ERR_INVALID (bad domain, type mismatch, op not in
 * the set or not one bit, misaligned address, NULL result of a fetching
 * op, bad flags or context), TERN_ERR_RANK, TERN_ERR_RANGE (address
 * outside rank's segment), TERN_ERR_AGAIN (TERN_FLAG_IMMEDIATE only), or
 * the error of an operation that failed (TERN_ERR_PEER).
 * Inside an active-message handler use the nbi and event forms: an op
 * of a net domain that cannot be issued at once (no network descriptor)
 * is queued in order with the handler's RMA and issued by later
 * progress, counted as issued; its fetched value lands in *result when
 * it completes (the sync or event outside the handler). A blocking op
 * that would wait (any op to a peer not reached by CPU atomics, except a
 * non-fetching one the context lets return once issued) is refused from
 * a handler with TERN_ERR_INVALID naming the call. An op of an am domain
 * (TERN_AD_IMPL_AM: tcp;ofi_rxm's default across nodes) to such a peer
 * is an active-message Request, which a handler must not send: refused
 * in every form (TERN_ERR_INVALID, the message names TERN_AD_PROVIDER);
 * create the domain with TERN_AD_PROVIDER to issue atomics from
 * handlers. */
/* The head of every domain, read by the inline path (and by the
 * OpenSHMEM layer's, include/tshmem/fast.h): cpu is TERN_AD_CPU_LIVE_
 * while the domain is live and uses CPU atomics on every mapped peer (cpu
 * and am domains; the inline path checks that the target is mapped), 0
 * otherwise. Part of TERN_ABI_VERSION. */
typedef struct tern_ad_fast_ {
    uint32_t cpu;
    int32_t type;
    uint32_t ops;
} tern_ad_fast_t_;
#define TERN_AD_CPU_LIVE_  0x61646370u
#define TERN_OPS_FETCHING_ (TERN_OP_GET | TERN_OP_SWAP | TERN_OP_CSWAP | 0xffc000u)

#if defined(__GNUC__)
/* 1 when the op can run inline: a cpu domain of this type, op one bit of
 * its set, known flags, a result for a fetching op, and an aligned word
 * mapped here (*d set). The op tests fold away for a constant op. Four
 * branches: the two that guard the loads (domain pointer; rank and the
 * live cpu mark), then the head's other checks or-ed into one word, then
 * the segment range. With a
 * branch per check (the && chain this replaced) two ranks fetch-adding one
 * word ran at 0.50-0.89x (median 0.78) the raw atomic's aggregate rate
 * on Zen 4, and at 0.96-1.12x (median 1.00) with these
 * (docs/design/atomics.md, "Hot-spot: fewer branches between the locked
 * ops"). */
static inline int tern_ad_fast_ok_(tern_ad_t ad, int type, int rank, void *addr,
                                   uint32_t op, const void *result, tern_flags_t flags,
                                   size_t size, intptr_t *d)
{
    const tern_ad_fast_t_ *f = (const tern_ad_fast_t_ *)ad;
    /* The live mark first, alone: only a live cpu domain is read further
     * (a handle that is not a domain may be shorter than one). */
    if (!TERN_LIKELY_(
            f && (((unsigned)rank < tern_fast_.npeers) & (f->cpu == TERN_AD_CPU_LIVE_))))
        return 0;
    const tern_peer_fast_t *p = &tern_fast_.peer[rank];
    *d = p->delta;
    /* base and size are multiples of 64: an aligned word of at most 64
     * bytes whose first byte is in range lies wholly in range. */
    uint32_t bad = ((uint32_t)f->type ^ (uint32_t)type) | (uint32_t) !(op & f->ops) |
                   (op & (op - 1)) | (uint32_t)(flags & ~TERN_FLAGS_KNOWN_) |
                   (uint32_t)(!result && (op & TERN_OPS_FETCHING_)) |
                   (uint32_t)((uintptr_t)addr & (size - 1));
    return TERN_LIKELY_(!bad) && TERN_LIKELY_((uintptr_t)addr - p->base < p->size);
}

/* Inline path of the integer types when the domain is cpu: the locked
 * instruction after ~20 others for a constant op (scripts/amo-cost.sh:
 * 28 instructions per fetch-add loop iteration against 5 for the raw
 * atomic, no store before the locked one); returns 1 when done
 * (MIN, MAX, MULT and their fetching forms are left to the library, as
 * are float and double). Sequentially consistent, as the library's. */
#define TERN_AD_FAST_INT_(C)                                                            \
    static inline int tern_ad_fast_##C##_(tern_ad_t ad, int code, int rank, void *addr, \
                                          uint32_t op, C a1, C a2, C *result,           \
                                          tern_flags_t flags)                           \
    {                                                                                   \
        intptr_t d;                                                                     \
        if (!tern_ad_fast_ok_(ad, code, rank, addr, op, result, flags, sizeof(C), &d))  \
            return 0;                                                                   \
        C *w = (C *)((char *)addr + d), r;                                              \
        switch (op) {                                                                   \
        case TERN_OP_GET: r = __atomic_load_n(w, __ATOMIC_SEQ_CST); break;              \
        case TERN_OP_SET: __atomic_store_n(w, a1, __ATOMIC_SEQ_CST); return 1;          \
        case TERN_OP_SWAP: r = __atomic_exchange_n(w, a1, __ATOMIC_SEQ_CST); break;     \
        case TERN_OP_CSWAP:                                                             \
            r = a1;                                                                     \
            __atomic_compare_exchange_n(w, &r, a2, 0, __ATOMIC_SEQ_CST,                 \
                                        __ATOMIC_SEQ_CST);                              \
            break;                                                                      \
        case TERN_OP_ADD:                                                               \
        case TERN_OP_FADD: r = __atomic_fetch_add(w, a1, __ATOMIC_SEQ_CST); break;      \
        case TERN_OP_SUB:                                                               \
        case TERN_OP_FSUB: r = __atomic_fetch_sub(w, a1, __ATOMIC_SEQ_CST); break;      \
        case TERN_OP_INC:                                                               \
        case TERN_OP_FINC: r = __atomic_fetch_add(w, (C)1, __ATOMIC_SEQ_CST); break;    \
        case TERN_OP_DEC:                                                               \
        case TERN_OP_FDEC: r = __atomic_fetch_sub(w, (C)1, __ATOMIC_SEQ_CST); break;    \
        case TERN_OP_AND:                                                               \
        case TERN_OP_FAND: r = __atomic_fetch_and(w, a1, __ATOMIC_SEQ_CST); break;      \
        case TERN_OP_OR:                                                                \
        case TERN_OP_FOR: r = __atomic_fetch_or(w, a1, __ATOMIC_SEQ_CST); break;        \
        case TERN_OP_XOR:                                                               \
        case TERN_OP_FXOR: r = __atomic_fetch_xor(w, a1, __ATOMIC_SEQ_CST); break;      \
        default: return 0;                                                              \
        }                                                                               \
        if (op & TERN_OPS_FETCHING_)                                                    \
            *result = r;                                                                \
        return 1;                                                                       \
    }
TERN_AD_FAST_INT_(int32_t)
TERN_AD_FAST_INT_(uint32_t)
TERN_AD_FAST_INT_(int64_t)
TERN_AD_FAST_INT_(uint64_t)
#define TERN_AD_FAST_i32_ tern_ad_fast_int32_t_
#define TERN_AD_FAST_u32_ tern_ad_fast_uint32_t_
#define TERN_AD_FAST_i64_ tern_ad_fast_int64_t_
#define TERN_AD_FAST_u64_ tern_ad_fast_uint64_t_
#else
#define TERN_AD_FAST_i32_(ad, code, rank, addr, op, a1, a2, result, flags) 0
#define TERN_AD_FAST_u32_(ad, code, rank, addr, op, a1, a2, result, flags) 0
#define TERN_AD_FAST_i64_(ad, code, rank, addr, op, a1, a2, result, flags) 0
#define TERN_AD_FAST_u64_(ad, code, rank, addr, op, a1, a2, result, flags) 0
#endif
/* float and double: always the library (CAS loops). */
#define TERN_AD_FAST_float_(ad, code, rank, addr, op, a1, a2, result, flags)  0
#define TERN_AD_FAST_double_(ad, code, rank, addr, op, a1, a2, result, flags) 0

/* The library's entry with the operands passed by value: taking their
 * addresses in the inline function itself would store them to the stack
 * on every call, fast path included, and a locked instruction waits for
 * earlier stores to drain. */
#define TERN_AD_DEFINE_(T, C, code)                                                      \
    static TERN_COLD_ tern_status_t tern_ad_slow_##T##_(                                 \
        tern_ctx_t ctx, tern_ad_t ad, int mode, int rank, void *addr, uint32_t op, C a1, \
        C a2, C *result, tern_event_t *ev, tern_flags_t flags)                           \
    {                                                                                    \
        return tern_ad_op_(ctx, ad, code, mode, rank, addr, op, &a1, &a2, result, ev,    \
                           flags);                                                       \
    }                                                                                    \
    static inline tern_status_t tern_ctx_ad_op_##T(                                      \
        tern_ctx_t ctx, tern_ad_t ad, int rank, void *addr, uint32_t op, C a1, C a2,     \
        C *result, tern_flags_t flags)                                                   \
    {                                                                                    \
        if (TERN_AD_FAST_##T##_(ad, code, rank, addr, op, a1, a2, result, flags))        \
            return TERN_OK;                                                              \
        return tern_ad_slow_##T##_(ctx, ad, TERN_AD_BLOCK_, rank, addr, op, a1, a2,      \
                                   result, 0, flags);                                    \
    }                                                                                    \
    static inline tern_status_t tern_ctx_ad_op_nb_##T(                                   \
        tern_ctx_t ctx, tern_ad_t ad, int rank, void *addr, uint32_t op, C a1, C a2,     \
        C *result, tern_event_t *ev, tern_flags_t flags)                                 \
    {                                                                                    \
        if (TERN_AD_FAST_##T##_(ad, code, rank, addr, op, a1, a2, result, flags)) {      \
            if (ev)                                                                      \
                *ev = TERN_EVENT_DONE;                                                   \
            return TERN_OK;                                                              \
        }                                                                                \
        return tern_ad_slow_##T##_(ctx, ad, TERN_AD_NB_, rank, addr, op, a1, a2, result, \
                                   ev, flags);                                           \
    }                                                                                    \
    static inline tern_status_t tern_ctx_ad_op_nbi_##T(                                  \
        tern_ctx_t ctx, tern_ad_t ad, int rank, void *addr, uint32_t op, C a1, C a2,     \
        C *result, tern_flags_t flags)                                                   \
    {                                                                                    \
        if (TERN_AD_FAST_##T##_(ad, code, rank, addr, op, a1, a2, result, flags))        \
            return TERN_OK;                                                              \
        return tern_ad_slow_##T##_(ctx, ad, TERN_AD_NBI_, rank, addr, op, a1, a2,        \
                                   result, 0, flags);                                    \
    }                                                                                    \
    static inline tern_status_t tern_ad_op_##T(tern_ad_t ad, int rank, void *addr,       \
                                               uint32_t op, C a1, C a2, C *result,       \
                                               tern_flags_t flags)                       \
    {                                                                                    \
        return tern_ctx_ad_op_##T(TERN_CTX_DEFAULT, ad, rank, addr, op, a1, a2, result,  \
                                  flags);                                                \
    }                                                                                    \
    static inline tern_status_t tern_ad_op_nb_##T(tern_ad_t ad, int rank, void *addr,    \
                                                  uint32_t op, C a1, C a2, C *result,    \
                                                  tern_event_t *ev, tern_flags_t flags)  \
    {                                                                                    \
        return tern_ctx_ad_op_nb_##T(TERN_CTX_DEFAULT, ad, rank, addr, op, a1, a2,       \
                                     result, ev, flags);                                 \
    }                                                                                    \
    static inline tern_status_t tern_ad_op_nbi_##T(tern_ad_t ad, int rank, void *addr,   \
                                                   uint32_t op, C a1, C a2, C *result,   \
                                                   tern_flags_t flags)                   \
    {                                                                                    \
        return tern_ctx_ad_op_nbi_##T(TERN_CTX_DEFAULT, ad, rank, addr, op, a1, a2,      \
                                      result, flags);                                    \
    }

TERN_AD_DEFINE_(i32, int32_t, TERN_AT_I32)
TERN_AD_DEFINE_(u32, uint32_t, TERN_AT_U32)
TERN_AD_DEFINE_(i64, int64_t, TERN_AT_I64)
TERN_AD_DEFINE_(u64, uint64_t, TERN_AT_U64)
TERN_AD_DEFINE_(float, float, TERN_AT_FLOAT)
TERN_AD_DEFINE_(double, double, TERN_AT_DOUBLE)

#ifdef __cplusplus
}
#endif
#endif
