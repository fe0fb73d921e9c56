/* Data that carries its own flag: a collective's put to a network member
 * as one active message (a Long Request: the payload lands in the
 * member's segment, then the handler raises the sender's team flag), so
 * that the reader learns of the data one network latency after it was
 * sent, instead of after a put, its remote completion back at the writer
 * and a separate flag write (three latencies). Mapped members: a copy and
 * the flag store. */
#include <string.h>

#include "base/cfg.h"
#include "base/compiler.h"
#include "base/log.h"
#include "base/wait.h"
#include "core/am.h"
#include "core/coll.h"

enum { H_FLAG = TN_AMH_COLL, H_DATA = TN_AMH_COLL + 1 };

/* Args: slot, the sender's team rank, sequence number. Raises the flag to
 * seq unless it holds a later one already (wrap-around order), so a
 * message overtaken by a later one cannot lower it. */
static void on_flag(tern_am_token_t token, void *buf, size_t len, const tern_am_arg_t *a,
                    int nargs)
{
    (void)buf;
    (void)len;
    if (nargs != 3 || a[0] >= TERN_TEAMS_MAX || a[1] >= (uint64_t)tn_core.size) {
        int src = -1;
        tern_am_source(token, &src);
        tn_error("collective flag message from rank %d is malformed: ignored", src);
        return;
    }
    char *slot =
        (char *)tn_core.seg.data + tn_teams.pool_off + (size_t)a[0] * tn_teams.slot_size;
    tn_coll_flag_t *f = (tn_coll_flag_t *)(slot + (size_t)a[1] * sizeof(tn_coll_flag_t));
    uint32_t seq = (uint32_t)a[2];
    uint32_t v = atomic_load_explicit(&f->epoch, memory_order_relaxed);
    while ((int32_t)(seq - v) > 0 &&
           !atomic_compare_exchange_weak_explicit(
               &f->epoch, &v, seq, memory_order_release, memory_order_relaxed))
        ;
    /* No wake: a flag written from the network is polled, never slept on
     * (tn_coll_wait), and its second word is the barrier's (coll_sync.c). */
}

/* A leading part of data whose last part carries the flag: the payload
 * landed before the handler runs, nothing else to do. */
static void on_data(tern_am_token_t token, void *buf, size_t len, const tern_am_arg_t *a,
                    int nargs)
{
    (void)token;
    (void)buf;
    (void)len;
    (void)a;
    (void)nargs;
}

void tn_coll_am_init(void)
{
    tn_am_register_internal(H_FLAG, on_flag, "tern collective data+flag");
    tn_am_register_internal(H_DATA, on_data, "tern collective data");
}

/* The other members wait for this flag: the job ends (as the barrier's). */
static TN_NOINLINE void fail(int rc)
{
    char msg[160];
    snprintf(msg, sizeof(msg), "collective: sending a team flag (with data) failed: %s",
             tern_strerror(rc));
    tern_abort(1, msg);
}

void tn_coll_put_flag(tn_cteam_t *t, int j, void *dest, const void *src, size_t n,
                      uint32_t seq)
{
    int g = t->ranks[j];
    if (n == 0) { /* the flag alone (tn_coll_signal, network members) */
        tern_am_arg_t a[3] = {(uint64_t)t->slot, (uint64_t)t->rank, seq};
        int rc = tn_am_request_internal("collective", g, H_FLAG, TN_AM_SHORT, NULL, 0,
                                        NULL, a, 3, 0);
        if (rc != TERN_OK)
            fail(rc);
        return;
    }
    void *remote = tern_sym_addr(g, dest);
    void *mapped = tern_ptr(g, remote);
    if (mapped) {
        if (mapped != src)
            memcpy(mapped, src, n);
        tn_coll_signal(t, j, seq); /* a release store after the copy */
        return;
    }
    int rc;
    size_t max = tn_am_medium_max(g);
    if (n > max && tn_cfg.coll_put_flag_msgs > 0 &&
        n <= (size_t)tn_cfg.coll_put_flag_msgs * max &&
        tn_core_region(g, (uintptr_t)remote, n) == TN_REGION_SEG) {
        /* A few messages, the flag on the last one: no round trip (a put's
         * remote completion costs one). Its handler runs after the others'
         * data landed because messages from one rank to another are
         * handled in the order sent (credits, packing and the queue of
         * refused sends keep it; docs/design/active-messages.md), which
         * every eager collective relies on for its single message too. */
        for (; n > max; n -= max) {
            rc = tn_am_request_internal("collective", g, H_DATA, TN_AM_LONG, src, max,
                                        remote, NULL, 0, 0);
            if (rc != TERN_OK)
                fail(rc);
            src = (const char *)src + max;
            remote = (char *)remote + max;
        }
    }
    if (n > max || tn_core_region(g, (uintptr_t)remote, n) != TN_REGION_SEG) {
        /* Beyond one message, or into the peer's global variables (which
         * a Long message does not take): a put (blocking until remotely
         * complete, zero copy), then the flag. */
        rc = tn_core_put_strict(TERN_CTX_DEFAULT, g, remote, src, n, 0);
        if (rc == TERN_OK) {
            tn_coll_signal(t, j, seq);
            return;
        }
    } else {
        tern_am_arg_t a[3] = {(uint64_t)t->slot, (uint64_t)t->rank, seq};
        rc = tn_am_request_internal("collective", g, H_FLAG, TN_AM_LONG, src, n, remote,
                                    a, 3, 0);
    }
    if (rc != TERN_OK)
        fail(rc);
}
