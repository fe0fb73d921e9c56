/* Put with signal (data, then an update of a signal word, in that order)
 * and the vector waits on signal words. On one node the signal is a CPU
 * atomic after a release fence; across nodes it is an atomic of an
 * internal u64 {set, add} domain, which goes through the network for
 * every target (the same coherence rule as atomic domains), issued once
 * the data's remote completion is known. */
#include <pthread.h>
#include <stdatomic.h>

#include "base/compiler.h"
#include "base/log.h"
#include "base/wait.h"
#include "core/atomic.h"
#include "core/event.h"

/* The domain of signal updates across nodes, created at first use. */
static tern_ad_t sig_ad;
static pthread_mutex_t sig_lock = PTHREAD_MUTEX_INITIALIZER;

static int sig_domain(tern_ad_t *out)
{
    int rc = TERN_OK;
    pthread_mutex_lock(&sig_lock);
    if (!sig_ad || !tn_ad_get_quiet(sig_ad))
        rc = tern_ad_create(TERN_AT_U64, TERN_OP_SET | TERN_OP_ADD, 0, &sig_ad);
    *out = sig_ad;
    pthread_mutex_unlock(&sig_lock);
    return rc;
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
    if (rc == TERN_OK) /* waits for the data's remote completion, in every
                          ordering mode: the signal may not pass it */
        rc = tn_core_put_strict(ctx, rank, dst, src, n, flags);
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
    for (uint64_t iter = 0;; iter++) {
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
        if (!tn_wait_progress_hook && (iter & 63) == 63)
            tn_core_progress();
        tn_wait_step(iter);
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
