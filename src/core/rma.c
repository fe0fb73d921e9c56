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

/* Both sides of a transfer: the remote range, then the local buffer. */
static int check(const char *call, int rank, const void *remote, const void *local,
                 size_t n)
{
    int rc = check_remote(call, rank, remote, n);
    return rc == TERN_OK ? check_local(call, local, n) : rc;
}

/* Put to a peer without a mapping (network): through its transport. */
static int put_xport(int rank, void *dst, const void *src, size_t n,
                     const tn_xport_done_t *done, unsigned flags)
{
    tn_xport_t *x = tn_core.peers[rank].xport;
    if (!x)
        return tn_core_fail(TERN_ERR_UNSUPPORTED, "put",
                            "rank %d is on another node and this build has no "
                            "network transport",
                            rank);
    return x->ops->put(x, rank, dst, src, n, done, flags);
}

static int get_xport(void *dst, int rank, const void *src, size_t n,
                     const tn_xport_done_t *done, unsigned flags)
{
    tn_xport_t *x = tn_core.peers[rank].xport;
    if (!x)
        return tn_core_fail(TERN_ERR_UNSUPPORTED, "get",
                            "rank %d is on another node and this build has no "
                            "network transport",
                            rank);
    return x->ops->get(x, dst, rank, src, n, done, flags);
}

int tern_put_slow_(int rank, void *dst, const void *src, size_t n, unsigned flags)
{
    int rc = check("tern_put", rank, dst, src, n);
    return rc != TERN_OK ? rc
                         : tn_event_run_blocking_put(rank, dst, src, n, flags, put_xport);
}

int tern_get_slow_(void *dst, int rank, const void *src, size_t n, unsigned flags)
{
    int rc = check("tern_get", rank, src, dst, n);
    return rc != TERN_OK ? rc
                         : tn_event_run_blocking_get(dst, rank, src, n, flags, get_xport);
}

int tern_put_nb_slow_(int rank, void *dst, const void *src, size_t n, tern_event_t *lc,
                      tern_event_t *rc_ev, unsigned flags)
{
    int rc = check("tern_put_nb", rank, dst, src, n);
    return rc != TERN_OK
               ? rc
               : tn_event_start_put(rank, dst, src, n, lc, rc_ev, flags, put_xport);
}

int tern_get_nb_slow_(void *dst, int rank, const void *src, size_t n, tern_event_t *done,
                      unsigned flags)
{
    int rc = check("tern_get_nb", rank, src, dst, n);
    return rc != TERN_OK ? rc
                         : tn_event_start_get(dst, rank, src, n, done, flags, get_xport);
}

int tern_put_nbi_slow_(int rank, void *dst, const void *src, size_t n, unsigned flags)
{
    int rc = check("tern_put_nbi", rank, dst, src, n);
    return rc != TERN_OK ? rc : tn_nbi_start_put(rank, dst, src, n, flags, put_xport);
}

int tern_get_nbi_slow_(void *dst, int rank, const void *src, size_t n, unsigned flags)
{
    int rc = check("tern_get_nbi", rank, src, dst, n);
    return rc != TERN_OK ? rc : tn_nbi_start_get(dst, rank, src, n, flags, get_xport);
}
