/* Put and get: the out-of-line paths behind tern.h's inline fast path
 * (errors, peers without a mapping) and the non-blocking forms. */
#include <stdint.h>

#include "base/compiler.h"
#include "core/core.h"
#include "core/event.h"

/* Checks rank and [addr, addr+n) against rank's segment; logs and returns
 * the error naming rank, address and the segment's range. */
static TN_NOINLINE int check_remote(const char *call, int rank, const void *addr,
                                    size_t n)
{
    TN_CHECK_INIT(call);
    if (rank < 0 || rank >= tn_core.size)
        return tn_core_fail(TERN_ERR_RANK, call, "rank %d is not in [0, %d)", rank,
                            tn_core.size);
    uintptr_t a = (uintptr_t)addr;
    if (a + n < a)
        return tn_core_fail(TERN_ERR_OVERFLOW, call,
                            "address %p + %zu bytes wraps around", addr, n);
    uintptr_t base = (uintptr_t)tn_core.peers[rank].seg.data_base;
    size_t size = (size_t)tn_core.peers[rank].seg.size;
    if (a < base || a + n > base + size)
        return tn_core_fail(TERN_ERR_RANGE, call,
                            "[%p, %p) is outside the segment of rank %d "
                            "[%p, %p) (%zu bytes)",
                            addr, (void *)(a + n), rank, (void *)base,
                            (void *)(base + size), size);
    return TERN_OK;
}

static TN_NOINLINE int check_local(const char *call, const void *buf, size_t n)
{
    if (!buf && n)
        return tn_core_fail(TERN_ERR_INVALID, call, "local buffer is NULL");
    return TERN_OK;
}

/* Put to a peer without a mapping (network): through its transport. */
static int put_xport(int rank, void *dst, const void *src, size_t n,
                     const tn_xport_done_t *done, unsigned flags)
{
    tn_xport_t *x = tn_core.peers[rank].xport;
    if (!x)
        return tn_core_fail(TERN_ERR_UNSUPPORTED, "put",
                            "rank %d is on another node and this build has no "
                            "network transport", rank);
    return x->ops->put(x, rank, dst, src, n, done, flags);
}

static int get_xport(void *dst, int rank, const void *src, size_t n,
                     const tn_xport_done_t *done, unsigned flags)
{
    tn_xport_t *x = tn_core.peers[rank].xport;
    if (!x)
        return tn_core_fail(TERN_ERR_UNSUPPORTED, "get",
                            "rank %d is on another node and this build has no "
                            "network transport", rank);
    return x->ops->get(x, dst, rank, src, n, done, flags);
}

int tern_put_slow_(int rank, void *dst, const void *src, size_t n, unsigned flags)
{
    int rc = check_remote("tern_put", rank, dst, n);
    if (rc == TERN_OK)
        rc = check_local("tern_put", src, n);
    if (rc != TERN_OK)
        return rc;
    intptr_t d;
    if (tern_fast_ok_(rank, dst, n, &d)) { /* only from non-inlined callers */
        tern_fast_copy_(rank, (char *)dst + d, src, n);
        return TERN_OK;
    }
    return tn_event_run_blocking_put(rank, dst, src, n, flags, put_xport);
}

int tern_get_slow_(void *dst, int rank, const void *src, size_t n, unsigned flags)
{
    int rc = check_remote("tern_get", rank, src, n);
    if (rc == TERN_OK)
        rc = check_local("tern_get", dst, n);
    if (rc != TERN_OK)
        return rc;
    intptr_t d;
    if (tern_fast_ok_(rank, src, n, &d)) {
        tern_fast_copy_(rank, dst, (const char *)src + d, n);
        return TERN_OK;
    }
    return tn_event_run_blocking_get(dst, rank, src, n, flags, get_xport);
}

int tern_put_nb(int rank, void *dst, const void *src, size_t n, tern_event_t *lc,
                tern_event_t *rc_ev, unsigned flags)
{
    intptr_t d;
    if (tn_likely(tern_fast_ok_(rank, dst, n, &d))) {
        /* A copy completes locally and remotely before returning. */
        tern_fast_copy_(rank, (char *)dst + d, src, n);
        if (lc)
            *lc = TERN_EVENT_DONE;
        if (rc_ev)
            *rc_ev = TERN_EVENT_DONE;
        return TERN_OK;
    }
    int rc = check_remote("tern_put_nb", rank, dst, n);
    if (rc == TERN_OK)
        rc = check_local("tern_put_nb", src, n);
    if (rc != TERN_OK)
        return rc;
    return tn_event_start_put(rank, dst, src, n, lc, rc_ev, flags, put_xport);
}

int tern_get_nb(void *dst, int rank, const void *src, size_t n, tern_event_t *done,
                unsigned flags)
{
    intptr_t d;
    if (tn_likely(tern_fast_ok_(rank, src, n, &d))) {
        tern_fast_copy_(rank, dst, (const char *)src + d, n);
        if (done)
            *done = TERN_EVENT_DONE;
        return TERN_OK;
    }
    int rc = check_remote("tern_get_nb", rank, src, n);
    if (rc == TERN_OK)
        rc = check_local("tern_get_nb", dst, n);
    if (rc != TERN_OK)
        return rc;
    return tn_event_start_get(dst, rank, src, n, done, flags, get_xport);
}

int tern_put_nbi(int rank, void *dst, const void *src, size_t n, unsigned flags)
{
    intptr_t d;
    if (tn_likely(tern_fast_ok_(rank, dst, n, &d))) {
        tern_fast_copy_(rank, (char *)dst + d, src, n);
        return TERN_OK;
    }
    int rc = check_remote("tern_put_nbi", rank, dst, n);
    if (rc == TERN_OK)
        rc = check_local("tern_put_nbi", src, n);
    if (rc != TERN_OK)
        return rc;
    return tn_nbi_start_put(rank, dst, src, n, flags, put_xport);
}

int tern_get_nbi(void *dst, int rank, const void *src, size_t n, unsigned flags)
{
    intptr_t d;
    if (tn_likely(tern_fast_ok_(rank, src, n, &d))) {
        tern_fast_copy_(rank, dst, (const char *)src + d, n);
        return TERN_OK;
    }
    int rc = check_remote("tern_get_nbi", rank, src, n);
    if (rc == TERN_OK)
        rc = check_local("tern_get_nbi", dst, n);
    if (rc != TERN_OK)
        return rc;
    return tn_nbi_start_get(dst, rank, src, n, flags, get_xport);
}
