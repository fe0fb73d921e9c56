/* Put with signal (data, then an update of a signal word, in that order)
 * and the vector waits on signal words. On one node the signal is a CPU
 * atomic after a release fence. Across nodes signal words are updated by
 * the mechanism of an internal u64 {set, add} atomic domain. Where that
 * domain takes the active-message path (CPU atomics at the target), data
 * of up to the Medium size and the signal travel in one message whose
 * handler applies the signal after the data is in place; otherwise (the
 * provider's atomics, or longer data) the signal is issued once the data's
 * remote completion is known (docs/design/net-put.md, "Put with signal"). */
#include <pthread.h>
#include <stdatomic.h>

#include "base/cfg.h"
#include "base/compiler.h"
#include "base/log.h"
#include "base/wait.h"
#include "core/am.h"
#include "core/atomic.h"
#include "core/event.h"

/* The domain of signal updates across nodes, created at first use, and
 * whether it runs CPU atomics at the target (the am path): then a signal
 * may travel as a message, and a signal to a mapped peer is a CPU atomic
 * in place (sig_by_msg, read without the lock once set). */
static tern_ad_t sig_ad;
static _Atomic int sig_by_msg;
static pthread_mutex_t sig_lock = PTHREAD_MUTEX_INITIALIZER;

static int sig_domain(tern_ad_t *out)
{
    int rc = TERN_OK;
    pthread_mutex_lock(&sig_lock);
    if (!sig_ad || !tn_ad_get_quiet(sig_ad)) {
        rc = tern_ad_create(TERN_AT_U64, TERN_OP_SET | TERN_OP_ADD, 0, &sig_ad);
        int impl = -1;
        if (rc == TERN_OK)
            rc = tern_ad_info(sig_ad, &impl, NULL, 0);
        atomic_store_explicit(&sig_by_msg, rc == TERN_OK && impl == TERN_AD_IMPL_AM,
                              memory_order_relaxed);
    }
    *out = sig_ad;
    pthread_mutex_unlock(&sig_lock);
    return rc;
}

/* ---- across nodes: data and signal in one message ------------------------ */

enum { H_REQUEST = TN_AMH_SIGNAL };

/* Request: a Long of the data (the target's AM layer copies it to its place
 * before the handler runs; Short with no data), args [0] the signal word
 * (the target's address), [1] the value, [2] TERN_SIGNAL_SET or _ADD, [3]
 * the initiator's completion object. The handler's release store or add
 * publishes the data with the signal; it is a CPU atomic on the word, as
 * the am path's atomics (and this node's ranks') are, so concurrent adds
 * and atomics on the word lose nothing. Reply: [0] status, [1] completion. */
static void on_request(tern_am_token_t token, void *buf, size_t len,
                       const tern_am_arg_t *a, int nargs)
{
    (void)buf;
    (void)len;
    int st = TERN_OK, src = -1;
    uintptr_t w = nargs == 4 ? (uintptr_t)a[0] : 0;
    if (nargs != 4 || a[2] > TERN_SIGNAL_ADD || !w || (w & 7) ||
        tn_core_region(tn_core.rank, w, 8) < 0) {
        tern_am_source(token, &src);
        tn_error("put-with-signal request from rank %d is malformed (word %p, op %llu, "
                 "%d args): signal not applied",
                 src, (void *)w, nargs > 2 ? (unsigned long long)a[2] : 0ULL, nargs);
        st = TERN_ERR_INVALID;
    } else if (a[2] == TERN_SIGNAL_SET) {
        __atomic_store_n((uint64_t *)w, a[1], __ATOMIC_RELEASE);
    } else {
        __atomic_fetch_add((uint64_t *)w, a[1], __ATOMIC_RELEASE);
    }
    tn_am_reply_done("put with signal (message)", token, st, nargs == 4 ? a[3] : 0);
}

void tn_signal_am_init(void)
{
    tn_am_register_internal(H_REQUEST, on_request, "tern put-with-signal");
}

/* 1 when this put with signal to an unmapped rank goes as one message: the
 * signal domain runs CPU atomics at the target, the data fits a Medium
 * (and TERN_SIGNAL_MSG_MAX) and lies in the target's segment (a Long's destination), and this is
 * not a handler (which may not send Requests). */
static int by_message(int rank, const void *dst, size_t n)
{
    return atomic_load_explicit(&sig_by_msg, memory_order_relaxed) && !tn_am_in_handler &&
           (n == 0 || (n <= tn_cfg.signal_msg_max && n <= tn_am_medium_max(rank) &&
                       tn_core_region(rank, (uintptr_t)dst, n) == TN_REGION_SEG));
}

/* 1 when this put with signal (in a job on several nodes) completes in
 * the call without waiting, as a handler's must: the data and the signal
 * word are mapped here, and the signal domain takes CPU atomics on mapped
 * peers (the am path; the provider's atomics would go through the network
 * and be waited for). Elsewhere the data's remote completion or the
 * signal's atomic is waited for, and a handler cannot wait: nothing polls
 * while it runs (core/progress.c), so it would wait for ever. */
static int in_place(int rank, void *dst, size_t n, uint64_t *sig)
{
    return atomic_load_explicit(&sig_by_msg, memory_order_relaxed) &&
           tn_core_mapped(rank, sig, 8) && (n == 0 || tn_core_mapped(rank, dst, n));
}

/* The message: blocking calls wait for its Reply (the signal applied, so
 * the data in place) unless the context's mode lets a blocking
 * non-fetching atomic return once sent (the Requests of one thread to one
 * peer run in order: TN_XCAP_ORDER_MSG); nbi and early returns are
 * counted in the context, so its quiet, fence and nbi sync wait for the
 * Reply. Costs one message and its Reply instead of the data's
 * acknowledgement plus the signal's round trip. */
static int put_signal_msg(const char *call, tern_ctx_t ctx, int rank, void *dst,
                          const void *src, size_t n, uint64_t *sig, uint64_t value,
                          int sig_op, tern_flags_t flags, int nbi)
{
    struct tern_ctx_s *c = tn_ctx_get(ctx, call);
    if (!c)
        return TERN_ERR_INVALID;
    /* This thread's combined atomics to rank leave first, as before any
     * op that goes alone (core/atomic_agg.c). */
    int rc = tn_ad_agg_on() ? tn_ad_agg_before(call, rank, flags) : TERN_OK;
    if (rc != TERN_OK)
        return rc;
    int early = nbi || tn_ctx_early(c, tn_core_peer(rank)->msg, TN_XCAP_ORDER_MSG);
    tn_comp_t mine;
    tn_comp_t *cp = early ? &c->rc : &mine;
    if (!early)
        tn_comp_init(&mine, 0);
    tern_am_arg_t a[4] = {(uint64_t)(uintptr_t)sig, value, (uint64_t)sig_op,
                          (uint64_t)(uintptr_t)cp};
    tn_comp_add(cp, 1);
    rc = n ? tn_am_request_internal(call, rank, H_REQUEST, TN_AM_LONG, src, n, dst, a, 4,
                                    flags)
           : tn_am_request_internal(call, rank, H_REQUEST, TN_AM_SHORT, NULL, 0, NULL, a,
                                    4, flags);
    if (rc != TERN_OK) {
        tn_comp_add(cp, -1);
        return rc;
    }
    if (!early)
        return tn_comp_wait(&mine);
    if (!nbi)
        tn_ctx_mark_early(c);
    return TERN_OK;
}

/* Checks what a put's own checks do not: the op, and the signal word. */
static TN_NOINLINE int check_signal(const char *call, int rank, uint64_t *sig, int sig_op)
{
    TN_CHECK_INIT(call);
    if (sig_op != TERN_SIGNAL_SET && sig_op != TERN_SIGNAL_ADD)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "signal op %d is not TERN_SIGNAL_SET or TERN_SIGNAL_ADD",
                            sig_op);
    if (rank < 0 || rank >= tn_core.size)
        return tn_core_fail(TERN_ERR_RANK, call, "rank %d is not in [0, %d)", rank,
                            tn_core.size);
    uintptr_t a = (uintptr_t)sig;
    if (a & 7)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "signal address %p is not 8-byte aligned", (void *)sig);
    if (tn_core_region(rank, a, 8) < 0)
        return tn_core_range_fail(call, rank, sig, 8);
    return TERN_OK;
}

static int put_signal(const char *call, tern_ctx_t ctx, int rank, void *dst,
                      const void *src, size_t n, uint64_t *sig, uint64_t value,
                      int sig_op, tern_flags_t flags, int nbi)
{
    TN_CHECK_INIT(call);
    /* The inline path leaves a NULL src with bytes to copy to this one
     * (tern/signal.h); a signal alone (n 0) may have none. */
    if (tn_unlikely(!src && n))
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "src is NULL with %zu bytes to put (NULL only with 0 bytes: "
                            "a signal alone)",
                            n);
    if (tn_core.nnodes <= 1) {
        /* Every peer is mapped: the copy completes in the call. */
        intptr_t d = 0;
        if (tn_unlikely((unsigned)sig_op > TERN_SIGNAL_ADD || ((uintptr_t)sig & 7) ||
                        !tern_fast_ok_(rank, sig, 8, &d))) {
            int rc = check_signal(call, rank, sig, sig_op);
            char *m = rc == TERN_OK ? tn_core_mapped(rank, sig, 8) : NULL;
            if (!m) /* a global variable of an unmapped rank cannot be */
                return rc != TERN_OK ? rc : tn_core_range_fail(call, rank, sig, 8);
            d = (intptr_t)((uintptr_t)m - (uintptr_t)sig); /* a global variable */
        }
        /* A signal alone (n 0, src may be NULL) copies nothing. */
        int rc = n ? tn_core_put_strict(ctx, rank, dst, src, n, flags) : TERN_OK;
        if (rc != TERN_OK)
            return rc;
        _Atomic uint64_t *w = (_Atomic uint64_t *)((char *)sig + d);
        if (sig_op == TERN_SIGNAL_SET)
            atomic_store_explicit(w, value, memory_order_release);
        else
            atomic_fetch_add_explicit(w, value, memory_order_release);
        return TERN_OK;
    }
    int rc = check_signal(call, rank, sig, sig_op);
    tern_ad_t ad;
    if (rc == TERN_OK)
        rc = sig_domain(&ad);
    if (rc != TERN_OK)
        return rc;
    if (tn_unlikely(tn_am_in_handler) && !in_place(rank, dst, n, sig))
        TN_NOT_IN_HANDLER(call);
    if (!tn_core_mapped(rank, sig, 8) && by_message(rank, dst, n)) {
        rc = n ? tn_core_check_seg(call, rank, dst, n) : TERN_OK;
        return rc == TERN_OK ? put_signal_msg(call, ctx, rank, dst, src, n, sig, value,
                                              sig_op, flags, nbi)
                             : rc;
    }
    /* Waits for the data's remote completion, in every ordering mode: the
     * signal, an atomic, may not pass it. */
    rc = n ? tn_core_put_strict(ctx, rank, dst, src, n, flags) : TERN_OK;
    if (rc != TERN_OK)
        return rc;
    uint32_t op = sig_op == TERN_SIGNAL_SET ? TERN_OP_SET : TERN_OP_ADD;
    return nbi ? tern_ctx_ad_op_nbi_u64(ctx, ad, rank, sig, op, value, 0, NULL, flags)
               : tern_ctx_ad_op_u64(ctx, ad, rank, sig, op, value, 0, NULL, flags);
}

tern_status_t tern_put_signal_(tern_ctx_t ctx, int rank, void *dst, const void *src,
                               size_t n, uint64_t *sig, uint64_t value, int sig_op,
                               tern_flags_t flags, int nbi)
{
    return put_signal(nbi ? "tern_put_signal_nbi" : "tern_put_signal", ctx, rank, dst,
                      src, n, sig, value, sig_op, flags, nbi);
}

/* ---- waiting on several words ------------------------------------------ */

enum { WAIT_ALL, WAIT_ANY, WAIT_SOME };
static const char *const wait_calls[] = {
    "tern_wait_until_all_u64", "tern_wait_until_any_u64", "tern_wait_until_some_u64"};

/* Waits per mode; fills indices (some; any: the first) and *count. */
static int wait_vec(int mode, const volatile uint64_t *addrs, size_t n, const int *status,
                    int cmp, uint64_t value, size_t *indices, size_t *count)
{
    const char *call = wait_calls[mode];
    TN_CHECK_INIT(call);
    TN_NOT_IN_HANDLER(call); /* nothing polls inside a handler */
    if ((!addrs && n) || ((uintptr_t)addrs & 7))
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "addrs %p is NULL or not 8-byte aligned", (void *)addrs);
    if (cmp < TERN_CMP_EQ || cmp > TERN_CMP_LE)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "comparison %d is not a TERN_CMP_* value", cmp);
    if (mode != WAIT_ALL && (!indices || (mode == WAIT_SOME && !count)))
        return tn_core_fail(TERN_ERR_INVALID, call, "an output pointer is NULL");
    size_t live = 0;
    for (size_t i = 0; i < n; i++)
        live += !status || !status[i];
    if (mode != WAIT_ALL && live == 0)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "no word to wait for (n is 0 or every status is set): "
                            "this would wait forever");
    const _Atomic uint64_t *a = (const _Atomic uint64_t *)addrs;
    for (tn_wait_t w = TN_WAIT_FRESH;;) {
        size_t hits = 0;
        for (size_t i = 0; i < n; i++) {
            if (status && status[i])
                continue;
            if (tn_cmp_u64(atomic_load_explicit(&a[i], memory_order_acquire), cmp,
                           value)) {
                if (mode != WAIT_ALL)
                    indices[hits] = i;
                hits++;
                if (mode == WAIT_ANY)
                    return TERN_OK;
            }
        }
        if ((mode == WAIT_ALL && hits == live) || (mode == WAIT_SOME && hits)) {
            if (count)
                *count = hits;
            return TERN_OK;
        }
        if (!tn_wait_progress_hook && (w.iter & 63) == 63 && tn_core_progress() > 0)
            tn_wait_progressed(&w);
        tn_wait_next(&w);
    }
}

tern_status_t tern_wait_until_all_u64(const volatile uint64_t *addrs, size_t n,
                                      const int *status, int cmp, uint64_t value)
{
    return wait_vec(WAIT_ALL, addrs, n, status, cmp, value, NULL, NULL);
}

tern_status_t tern_wait_until_any_u64(const volatile uint64_t *addrs, size_t n,
                                      const int *status, int cmp, uint64_t value,
                                      size_t *index)
{
    return wait_vec(WAIT_ANY, addrs, n, status, cmp, value, index, NULL);
}

tern_status_t tern_wait_until_some_u64(const volatile uint64_t *addrs, size_t n,
                                       const int *status, int cmp, uint64_t value,
                                       size_t *indices, size_t *count)
{
    return wait_vec(WAIT_SOME, addrs, n, status, cmp, value, indices, count);
}
