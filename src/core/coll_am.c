/* Data that carries its own flag: a collective's put to a network member
 * as one active message (a Long Request: the payload lands in the
 * member's segment, then the handler raises the sender's team flag), so
 * that the reader learns of the data one network latency after it was
 * sent, instead of after a put, its remote completion back at the writer
 * and a separate flag write (three latencies). Mapped members: a copy and
 * the flag store. An eager allreduce's region goes as one Medium message
 * instead, whose handler combines it straight into the partial of a
 * member that waits for it already (tn_coll_put_region). */
#include <string.h>

#include "base/cfg.h"
#include "base/compiler.h"
#include "base/log.h"
#include "base/wait.h"
#include "core/am.h"
#include "core/coll.h"

enum { H_FLAG = TN_AMH_COLL, H_DATA = TN_AMH_COLL + 1, H_REGION = TN_AMH_COLL + 2 };

/* Raises the flag of team rank `from` in slot `slot` to seq unless it
 * holds a later one already (wrap-around order), so a message overtaken
 * by a later one cannot lower it. Release: the data before it. */
static void raise_flag(uint64_t slot, uint64_t from, uint32_t seq)
{
    char *s =
        (char *)tn_core.seg.data + tn_teams.pool_off + (size_t)slot * tn_teams.slot_size;
    tn_coll_flag_t *f = (tn_coll_flag_t *)(s + (size_t)from * sizeof(tn_coll_flag_t));
    uint32_t v = atomic_load_explicit(&f->epoch, memory_order_relaxed);
    while ((int32_t)(seq - v) > 0 &&
           !atomic_compare_exchange_weak_explicit(
               &f->epoch, &v, seq, memory_order_release, memory_order_relaxed))
        ;
    /* No wake: a flag written from the network is polled, never slept on
     * (tn_coll_wait), and its second word is the barrier's (coll_sync.c). */
}

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
    raise_flag(a[0], a[1], (uint32_t)a[2]);
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

/* An eager allreduce region (tn_coll_put_region). Args: slot, the
 * sender's team rank, sequence number, the region's offset from the start
 * of the team pool (where a Long message would have written it: the
 * receiver's ring). Where the receiver posted its partial for this sender
 * and call (tn_coll_region_wait), combines the payload into it straight
 * out of the receive buffer: one pass over the data where the copy into
 * the ring and the waiter's combine from it were two. Else copies the
 * payload into the ring, as a Long message would have. Then raises the
 * flag: the waiter reads the partial, or the ring, after it. */
static void on_region(tern_am_token_t token, void *buf, size_t len,
                      const tern_am_arg_t *a, int nargs)
{
    size_t pool = TERN_TEAMS_MAX * tn_teams.slot_size + tn_teams.world_ring;
    if (nargs != 4 || a[0] >= TERN_TEAMS_MAX || a[1] >= (uint64_t)tn_core.size ||
        a[3] > pool || len > pool - a[3]) {
        int src = -1;
        tern_am_source(token, &src);
        tn_error("collective region message from rank %d is malformed: ignored", src);
        return;
    }
    tn_cteam_t *t = &tn_teams.t[a[0]];
    int from = (int)a[1];
    uint32_t seq = (uint32_t)a[2];
    int want = from + 1;
    if (atomic_load_explicit(&t->rpost, memory_order_acquire) == want && t->rseq == seq &&
        len == t->rcount * t->res && (uintptr_t)buf % t->res == 0 &&
        atomic_compare_exchange_strong_explicit(&t->rpost, &want, TN_RPOST_TAKEN,
                                                memory_order_acquire,
                                                memory_order_relaxed)) {
        if (from > t->rank) /* lower member's partial first, as the waiter would */
            t->rfn(t->racc, buf, t->rcount);
        else
            t->rrfn(t->racc, buf, t->rcount);
    } else {
        TN_PEER_WRITES_BEGIN(); /* the sender's region, as a Long message's */
        memcpy((char *)tn_core.seg.data + tn_teams.pool_off + a[3], buf, len);
        TN_PEER_WRITES_END();
    }
    raise_flag(a[0], a[1], seq);
}

void tn_coll_am_init(void)
{
    tn_am_register_internal(H_FLAG, on_flag, "tern collective data+flag");
    tn_am_register_internal(H_DATA, on_data, "tern collective data");
    tn_am_register_internal(H_REGION, on_region, "tern collective allreduce region");
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

void tn_coll_put_region(tn_cteam_t *t, int j, void *dest, const void *src, size_t n,
                        uint32_t seq)
{
    int g = t->ranks[j];
    void *remote = tern_sym_addr(g, dest);
    char *pool = (char *)tn_core.seg.data + tn_teams.pool_off;
    if (n == 0 || tern_ptr(g, remote) || n > tn_am_medium_max(g) ||
        (char *)dest < t->ring || (char *)dest + n > t->ring + t->rsize) {
        tn_coll_put_flag(t, j, dest, src, n, seq);
        return;
    }
    tern_am_arg_t a[4] = {(uint64_t)t->slot, (uint64_t)t->rank, seq,
                          (uint64_t)((char *)dest - pool)};
    int rc = tn_am_request_internal("collective", g, H_REGION, TN_AM_MEDIUM, src, n, NULL,
                                    a, 4, 0);
    if (rc != TERN_OK)
        fail(rc);
}

int tn_coll_region_wait(tn_cteam_t *t, int j, uint32_t seq, void *acc, size_t count,
                        size_t es, tn_red_fn fn, tn_red_fn rfn)
{
    t->racc = acc;
    t->rfn = fn;
    t->rrfn = rfn;
    t->rcount = count;
    t->res = es;
    t->rseq = seq;
    atomic_store_explicit(&t->rpost, j + 1, memory_order_release);
    tn_coll_wait(t, j, seq);
    /* The handler of j's region has run (the flag is raised after it), so
     * nothing else reads or writes rpost now. */
    int taken = atomic_load_explicit(&t->rpost, memory_order_acquire) == TN_RPOST_TAKEN;
    atomic_store_explicit(&t->rpost, 0, memory_order_relaxed);
    return taken;
}
