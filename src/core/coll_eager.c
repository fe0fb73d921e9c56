/* Eager collectives of teams across nodes: small broadcast, fcollect,
 * all-to-all and allreduce whose data travels with its flag (tn_coll_put_flag: one
 * active message to a network member) into a ring entry of the receiver's
 * team slot, instead of into its dest. A sender then never waits for the
 * receiver to say that it entered (its dest is free): the receiver copies
 * the entry into its dest itself. MPI's eager protocol does the same with
 * private buffers; here the entries are symmetric, so that a Long message
 * lands the data in place without a handler copy.
 *
 * Reuse: the ring is a stream of bytes; a call takes its data's bytes
 * (rounded up to 64) after the previous call's, wrapping at the ring's
 * end, so a byte is used again one ring (depth x eager bytes) later.
 * Every member leaves a call only after it copied its part out, so after
 * a team barrier no member reads anything claimed earlier. An exchange
 * (fcollect, all-to-all, allreduce) tells as much without a barrier:
 * every member's result depends on data that every other member sent in
 * this call, so when a member has it, every member has entered this call
 * and left the earlier ones (all_entered). Before a claim that would
 * reuse a byte whose previous use may still be read, the team runs a
 * barrier (all members claim and count barriers and exchanges alike, so
 * all decide the same): with the default 32 KiB ring one 8-byte
 * broadcast in 512, one 4 KiB broadcast in 8, pays a barrier when nothing
 * else synchronizes the team; back-to-back exchanges of up to half the
 * ring never do. docs/design/collectives.md. */
#include <stdio.h>
#include <string.h>

#include "base/cfg.h"
#include "core/coll.h"
#include "core/event.h"

/* A network write of a collective failed: its reader would wait for
 * ever, so the job ends here with "<what> to rank <rank> failed: <cause>"
 * (rank -1, not known at a wait: "<what> failed: <cause>"). */
static __attribute__((noinline, noreturn)) void write_failed(const char *what, int rank,
                                                             int rc)
{
    char msg[160];
    if (rank >= 0)
        snprintf(msg, sizeof(msg), "%s to rank %d failed: %s", what, rank,
                 tern_strerror(rc));
    else
        snprintf(msg, sizeof(msg), "%s failed: %s", what, tern_strerror(rc));
    tern_abort(1, msg);
    __builtin_unreachable();
}

/* len bytes (rounded up to 64) of the ring for this team's next eager
 * collective: positions ecount .. ecount + len of an endless byte stream
 * laid over the ring (depth x eager bytes). A claim that would run past
 * the ring's end starts at its beginning instead, the skipped bytes
 * counted as used, so that the claim is contiguous. Runs the team barrier
 * first when a byte of it may still be read by a member: its previous
 * use, one ring earlier, came after the last barrier. An 8-byte call
 * takes 64 bytes, so small calls pay one barrier per 512 of them with the
 * default 32 KiB ring instead of one per entry count. */
static char *claim(tn_cteam_t *t, size_t len)
{
    uint64_t ring = t->rsize;
    uint64_t need = len ? (len + 63) & ~(uint64_t)63 : 64, at = t->ecount % ring;
    if (at + need > ring)
        t->ecount += ring - at;
    if (t->ecount + need - t->emark > ring)
        tn_coll_barrier(t); /* sets emark = ecount */
    else
        tn_coll_refresh(t);
    char *e = t->ring + (size_t)(t->ecount % ring);
    t->eat = t->ecount;
    t->ecount += need;
    return e;
}

/* An exchange of this call is complete here: this member holds data that
 * every member sent in this call (directly or through the members that
 * forwarded it), so every member has left every earlier eager call, as
 * after a barrier at this call's claim. Every member completes the call
 * and so moves the mark alike. Back-to-back exchanges of up to half the
 * ring then need no barrier (net, 4 ranks, fcollect of 4 KiB blocks: one
 * barrier every second call before). */
static void all_entered(tn_cteam_t *t)
{
    if (t->eat > t->emark)
        t->emark = t->eat;
}

/* Data of n bytes at from into this rank's ring bytes e at member j (a
 * network member reached with ordered unacknowledged writes), and this
 * rank's flag at j raised to seq in its second word, which j reads after
 * the data. Where the transport takes it (TN_XCAP_PUT_SIGNAL, n within
 * one fragment) the put carries the flag itself (TN_XPORT_FLAG_SIGNAL:
 * over tcp one message, a write with remote CQ data that j's poll turns
 * into the flag; collectives.md, "A write that carries its flag"); else a
 * non-blocking put, then the flag by an ordered unacknowledged write
 * behind it. Where the transport takes it the put has no remote completion
 * (TN_XPORT_FLAG_NOREMOTE: no acknowledgement from j), and its local
 * completion counts in t->comp; else its remote completion does. Either
 * way a failure ends the job in a later wait, and tn_coll_drain waits for
 * it. from must stay unchanged until the data is at j: ring bytes are
 * reused only after j left this call. */
static void put_ordered(tn_cteam_t *t, int j, char *e, const void *from, size_t n,
                        uint32_t seq, const char *what)
{
    int g = t->ranks[j];
    const tn_peer_t *p = tn_core_peer(g);
    uintptr_t raddr =
        tn_core_info(g)->data_base + (uintptr_t)(e - (char *)tn_core.seg.data);
    tn_rma_t op = {TN_RMA_PUT,    g, (void *)(uintptr_t)from,
                   (void *)raddr, n, TN_REGION_SEG};
    const tn_xport_caps_t *caps = &p->xport->caps;
    int noremote = (caps->flags & TN_XCAP_PUT_NOREMOTE) != 0;
    int signal = (caps->flags & TN_XCAP_PUT_SIGNAL) && n > 0 && n <= caps->rma_frag;
    if (signal) { /* this rank's flag at j: the word signal_ordered writes */
        op.signal = (void *)(uintptr_t)(tn_core_info(g)->data_base +
                                        (uintptr_t)(t->flags - (char *)tn_core.seg.data) +
                                        (size_t)t->rank * sizeof(tn_coll_flag_t) +
                                        offsetof(tn_coll_flag_t, sleeping));
        op.sigval = seq;
    }
    tn_xport_done_t done = {noremote ? &t->comp : NULL, noremote ? NULL : &t->comp};
    tn_comp_add(&t->comp, 1);
    unsigned flags =
        (noremote ? TN_XPORT_FLAG_NOREMOTE : 0) | (signal ? TN_XPORT_FLAG_SIGNAL : 0);
    int rc = tn_core_xport_rma(p->xport, &op, &done, flags);
    if (rc != TERN_OK) {
        tn_comp_add(&t->comp, -1);
        write_failed(what, g, rc);
    }
    if (!signal)
        tn_coll_signal_ordered(t, j, seq);
}

/* Until this rank's flag of team rank j holds seq or later in its second
 * word, which only j's ordered unacknowledged writes raise (put_ordered's
 * flags and barriers), each behind every earlier put of j to this rank. */
static void wait_ordered(tn_cteam_t *t, int j, uint32_t seq)
{
    tn_coll_flag_t *in =
        (tn_coll_flag_t *)(t->flags + (size_t)j * sizeof(tn_coll_flag_t));
    tn_wait_t w = TN_WAIT_FRESH;
    while ((int32_t)(atomic_load_explicit(&in->sleeping, memory_order_acquire) - seq) < 0)
        tn_coll_wait_step(t, &w);
}

/* Whether an eager broadcast of nbytes goes between this member and
 * member j by put_ordered (the same answer at both ends: it depends on
 * sizes and the provider only, not on TN_XCAP_PUT_SIGNAL, which
 * put_ordered checks by itself), j being reached with ordered
 * unacknowledged writes (never a mapped member: a copy and a flag store,
 * tn_coll_put_flag): above TERN_COLL_EAGER (the world team's larger ring
 * takes such calls, and another team's where TERN_COLL_EAGER_DEPTH is 16
 * or more), where active messages would need a blocking put; and above
 * TERN_COLL_BCAST_PUT, where one write that carries its flag lands the
 * data in j's ring in place, against one Long message (the handler path
 * and a copy out of the receive buffer at j) or two above the Medium
 * limit: mixed, 2 PEs, shmem_broadcast64 16 KiB 14.1 -> 8.3 us, 8 KiB
 * 7.1 -> 6.9 (collectives.md, "Eager broadcast by the signalled write
 * from 4 KiB"). */
static int bcast_by_put(tn_cteam_t *t, int j, size_t nbytes)
{
    if (!tn_coll_can_order(t, j))
        return 0;
    return nbytes > tn_teams.eager || nbytes > (size_t)tn_cfg.coll_bcast_put;
}

/* Binomial tree rooted at root over tn_coll_tree_order's order (the
 * members of a node together, so that with nodes of 2^k members only node
 * leaders exchange network messages): a member waits for its parent's flag (the
 * data is then in its entry), forwards the entry to its children, the
 * largest subtree first, and copies it into dest. The root sends from its
 * src, copies it into its dest unless keep, and returns once its messages
 * are out (sent, not yet received). Calls above TERN_COLL_BCAST_PUT (and
 * those of up to an eighth of the team's ring where that is above
 * TERN_COLL_EAGER: the world team's ring) go by put_ordered to network
 * children, from the root's copy of src in its own ring. */
int tn_coll_eager_bcast(tn_cteam_t *t, void *dest, const void *src, size_t nbytes,
                        int root, int keep)
{
    if (!t->ring || (nbytes > tn_teams.eager && nbytes > t->rsize / 8))
        return 0;
    int n = t->size;
    char *e = claim(t, nbytes);
    int rel = tn_coll_tree_order(t, root); /* nodes together: leaders */
    uint32_t seq = ++t->seq;
    const void *from = rel ? e : src;
    int below = rel ? tn_lowbit(rel) : 1;
    if (rel == 0) {
        while (below < n)
            below <<= 1;
    } else {
        int parent = t->order[rel - below];
        if (bcast_by_put(t, parent, nbytes))
            wait_ordered(t, parent, seq);
        else
            tn_coll_wait(t, parent, seq);
    }
    for (int k = below >> 1; k >= 1; k >>= 1) {
        if (rel + k >= n)
            continue;
        int kid = t->order[rel + k];
        if (bcast_by_put(t, kid, nbytes)) {
            if (from != e) { /* the root: src may change once it returns */
                memcpy(e, from, nbytes);
                from = e;
            }
            put_ordered(t, kid, e, e, nbytes, seq, "broadcast: the network write");
        } else {
            tn_coll_put_flag(t, kid, e, from, nbytes, seq);
        }
    }
    const void *data = rel ? e : src;
    if (dest != data && !(rel == 0 && keep))
        memcpy(dest, data, nbytes);
    return 1;
}

/* Leader per node, for a team with several members on some node: each
 * member puts its block into its node leader's part of the ring (a copy
 * and a flag store: the leader is mapped), the leaders send their node's
 * blocks to every other leader with one flag each (the only network
 * messages: one per pair of nodes), and each leader tells its members,
 * who copy the whole result out of the leader's ring through the mapping.
 * Positions follow t->bynode (each node's members together). Each writer
 * writes a given flag once: member to leader, leader to leader, leader to
 * member. A member reads the leader's ring after the leader may have left
 * the call; those bytes are reused only after a team barrier, which the
 * member enters after it has read them. */
static void leader_fcollect(tn_cteam_t *t, char *e, void *dest, const void *src,
                            size_t nbytes, uint32_t seq)
{
    int n = t->size, me = t->rank, mp = 0;
    while (t->bynode[mp] != me)
        mp++;
    int node = tn_core_info(t->ranks[me])->node, lo = mp, hi = mp + 1;
    while (lo > 0 && tn_core_info(t->ranks[t->bynode[lo - 1]])->node == node)
        lo--;
    while (hi < n && tn_core_info(t->ranks[t->bynode[hi]])->node == node)
        hi++;
    int leader = t->bynode[lo];
    if (me != leader) {
        tn_coll_put_flag(t, leader, e + (size_t)mp * nbytes, src, nbytes, seq);
        tn_coll_wait(t, leader, seq); /* the leader's ring holds everything */
        int g = t->ranks[leader];
        e = tern_ptr(g, tern_sym_addr(g, e));
    } else {
        memcpy(e + (size_t)mp * nbytes, src, nbytes);
        for (int p = lo + 1; p < hi; p++)
            tn_coll_wait(t, t->bynode[p], seq);
        size_t at = (size_t)lo * nbytes, len = (size_t)(hi - lo) * nbytes;
        for (int a = 0; a < n;) { /* a: the first position of a node */
            int b = a + 1, an = tn_core_info(t->ranks[t->bynode[a]])->node;
            while (b < n && tn_core_info(t->ranks[t->bynode[b]])->node == an)
                b++;
            if (a != lo)
                tn_coll_put_flag(t, t->bynode[a], e + at, e + at, len, seq);
            a = b;
        }
        for (int a = 0; a < n;) {
            int b = a + 1, an = tn_core_info(t->ranks[t->bynode[a]])->node;
            while (b < n && tn_core_info(t->ranks[t->bynode[b]])->node == an)
                b++;
            if (a != lo)
                tn_coll_wait(t, t->bynode[a], seq);
            a = b;
        }
        for (int p = lo + 1; p < hi; p++)
            tn_coll_signal(t, t->bynode[p], seq);
    }
    for (int p = 0; p < n; p++)
        memcpy((char *)dest + (size_t)t->bynode[p] * nbytes, e + (size_t)p * nbytes,
               nbytes);
}

/* Whether some node holds more than one member of t (bynode order puts
 * them next to each other). */
static int shares_nodes(const tn_cteam_t *t)
{
    for (int p = 1; p < t->size; p++)
        if (tn_core_info(t->ranks[t->bynode[p]])->node ==
            tn_core_info(t->ranks[t->bynode[p - 1]])->node)
            return 1;
    return 0;
}

/* Node of the member at position p of t->bynode. */
static int node_at(const tn_cteam_t *t, int p)
{
    return tn_core_info(t->ranks[t->bynode[p]])->node;
}

/* One past the last position of the node whose members start at a. */
static int node_end(const tn_cteam_t *t, int a)
{
    int b = a + 1;
    while (b < t->size && node_at(t, b) == node_at(t, a))
        b++;
    return b;
}

/* Bruck's allgather: position p of a member's entry holds the block of
 * member rank + p. In the round of distance d (1, 2, 4, ...) each member
 * sends its first min(d, n - d) blocks, which it holds after the earlier
 * rounds, to positions d.. of member rank - d, and waits for those of
 * member rank + d. ceil(log2 n) messages per member, any n; the distances
 * are distinct mod n, so each member writes another's flag at most once. */
int tn_coll_eager_fcollect(tn_cteam_t *t, void *dest, const void *src, size_t nbytes)
{
    int n = t->size, me = t->rank;
    size_t total = nbytes * (size_t)n;
    if (!t->ring || total > tn_teams.eager)
        return 0;
    char *e = claim(t, total);
    uint32_t seq = ++t->seq;
    if (shares_nodes(t)) {
        leader_fcollect(t, e, dest, src, nbytes, seq);
        all_entered(t);
        return 1;
    }
    memcpy(e, src, nbytes);
    for (int d = 1; d < n; d <<= 1) {
        size_t cnt = (size_t)(d < n - d ? d : n - d);
        tn_coll_put_flag(t, (me - d + n) % n, e + (size_t)d * nbytes, e, cnt * nbytes,
                         seq);
        tn_coll_wait(t, (me + d) % n, seq);
    }
    /* Rotate: positions [0, n - me) are members me.., the rest 0..me - 1. */
    size_t head = (size_t)(n - me) * nbytes;
    memcpy((char *)dest + (size_t)me * nbytes, e, head);
    memcpy(dest, e + head, total - head);
    all_entered(t);
    return 1;
}

/* All-to-all with one leader per node, for a team with several members on
 * some node (a mixed job): every member copies its blocks through the
 * mapping into its node leader's claim and raises the leader's flag; the
 * leader sends each other leader, in one message, the blocks of its
 * node's members for that node's members (the only network traffic: one
 * message per pair of nodes instead of one per pair of members), raises
 * its members' flags once every other leader's message is in, and each
 * member copies its blocks out of the leader's claim through the mapping.
 * Positions are t->bynode's (each node's members together); node A holds
 * positions [a_A, a_A + m_A). The claim is an inbox then an outbox of
 * most x n blocks each (most: the largest node's members): the inbox of
 * node B's leader holds, from source node A at block a_A m_B, m_B rows
 * (its members) of m_A blocks (A's members); the outbox of A's leader
 * holds for node B, at block a_B m_A, the same rows as B's inbox expects
 * from A, so a leader sends one contiguous region. Taken up to
 * TERN_COLL_LEADER_MAX bytes of result per member where the claim takes
 * at most half the ring; returns 0 (not taken) otherwise. As in leader_fcollect, a member
 * reads its leader's claim after the leader may have left the call: those
 * bytes are reused only after a team barrier, which it enters after. */
static int leader_alltoall(tn_cteam_t *t, void *dest, const void *src, size_t nb)
{
    int n = t->size, me = t->rank, mp = 0, most = 0;
    for (int a = 0; a < n;) {
        int b = node_end(t, a);
        most = b - a > most ? b - a : most;
        a = b;
    }
    /* Up to half the ring: a claim of the whole ring would cost a team
     * barrier per call (mixed, 4 ranks, 2 KiB blocks: 68 us against 48 for
     * the direct exchange). */
    size_t half = (size_t)most * (size_t)n * nb;
    if ((size_t)n * nb > (size_t)tn_cfg.coll_leader_max ||
        4 * half > (size_t)tn_teams.depth * tn_teams.eager)
        return 0;
    char *e = claim(t, 2 * half);
    uint32_t seq = ++t->seq;
    while (t->bynode[mp] != me)
        mp++;
    int lo = mp, hi = mp + 1;
    while (lo > 0 && node_at(t, lo - 1) == node_at(t, mp))
        lo--;
    while (hi < n && node_at(t, hi) == node_at(t, mp))
        hi++;
    int ma = hi - lo, s = mp - lo, leader = t->bynode[lo];
    char *le = e; /* the leader's claim, through the mapping */
    if (me != leader) {
        int g = t->ranks[leader];
        le = tern_ptr(g, tern_sym_addr(g, e));
    }
    /* My block for each member, into the leader's inbox (my node) or outbox. */
    for (int b0 = 0; b0 < n;) {
        int b1 = node_end(t, b0);
        char *to = b0 == lo ? le + (size_t)lo * (size_t)ma * nb
                            : le + half + (size_t)b0 * (size_t)ma * nb;
        for (int i = 0; i < b1 - b0; i++)
            memcpy(to + ((size_t)i * (size_t)ma + (size_t)s) * nb,
                   (const char *)src + (size_t)t->bynode[b0 + i] * nb, nb);
        b0 = b1;
    }
    if (me != leader) {
        tn_coll_signal(t, leader, seq); /* my blocks are in */
        tn_coll_wait(t, leader, seq);   /* everything is in its inbox */
    } else {
        for (int p = lo + 1; p < hi; p++)
            tn_coll_wait(t, t->bynode[p], seq);
        for (int b0 = 0; b0 < n;) { /* node B's rows to its leader */
            int b1 = node_end(t, b0);
            size_t mb = (size_t)(b1 - b0);
            if (b0 != lo)
                tn_coll_put_flag(t, t->bynode[b0], e + (size_t)lo * mb * nb,
                                 e + half + (size_t)b0 * (size_t)ma * nb,
                                 mb * (size_t)ma * nb, seq);
            b0 = b1;
        }
        for (int b0 = 0; b0 < n;) {
            int b1 = node_end(t, b0);
            if (b0 != lo)
                tn_coll_wait(t, t->bynode[b0], seq);
            b0 = b1;
        }
        for (int p = lo + 1; p < hi; p++)
            tn_coll_signal(t, t->bynode[p], seq);
    }
    /* My row of each source node's region of the inbox. */
    for (int a0 = 0; a0 < n;) {
        int a1 = a0 + 1;
        while (a1 < n && node_at(t, a1) == node_at(t, a0))
            a1++;
        size_t mA = (size_t)(a1 - a0);
        const char *row = le + ((size_t)a0 * (size_t)ma + (size_t)s * mA) * nb;
        for (int q = a0; q < a1; q++)
            memcpy((char *)dest + (size_t)t->bynode[q] * nb, row + (size_t)(q - a0) * nb,
                   nb);
        a0 = a1;
    }
    all_entered(t);
    return 1;
}

/* Direct: each member sends block j of its src to position rank of member
 * j's entry, all at once (n - 1 messages, one network latency), then
 * copies the blocks out as their flags arrive. */
int tn_coll_eager_alltoall(tn_cteam_t *t, void *dest, const void *src, size_t nbytes)
{
    int n = t->size, me = t->rank;
    if (!t->ring || nbytes * (size_t)n > tn_teams.eager)
        return 0;
    if (shares_nodes(t) && leader_alltoall(t, dest, src, nbytes))
        return 1;
    char *e = claim(t, nbytes * (size_t)n);
    uint32_t seq = ++t->seq;
    const char *s = src;
    char *d = dest;
    for (int k = 1; k < n; k++) {
        int j = (me + k) % n;
        tn_coll_put_flag(t, j, e + (size_t)me * nbytes, s + (size_t)j * nbytes, nbytes,
                         seq);
    }
    memcpy(d + (size_t)me * nbytes, s + (size_t)me * nbytes, nbytes);
    for (int k = 1; k < n; k++) {
        int j = (me - k + n) % n;
        tn_coll_wait(t, j, seq);
        memcpy(d + (size_t)j * nbytes, e + (size_t)j * nbytes, nbytes);
    }
    all_entered(t);
    return 1;
}

/* Allreduce with one leader per node, for a team with 3 or more members
 * on some node (a mixed job; with 2 per node, recursive doubling pairs
 * them through the mapping first and the leader measured no better), up
 * to TERN_COLL_LEADER_MAX bytes where its regions fit the ring: each member puts its src into
 * region (its index in its node) of its leader's claim (a copy and a flag store); the
 * leader combines its own src with them in that order into node region a
 * (its node's index), sends that partial to region a of every other
 * leader (one message per pair of nodes: the only network traffic),
 * combines all node regions in node order into region 0 and raises its
 * members' flags; they copy region 0 out through the mapping. Every
 * partial is computed once, by its leader, and every leader combines the
 * same partials in the same order, so every member gets the same bits.
 * Regions: the largest node's members, then one per node. Returns 0 (not
 * taken) when they do not fit the ring. A member reads its leader's ring
 * after the leader may have left the call, as in leader_fcollect. */
static int leader_allreduce(tn_cteam_t *t, void *dest, const void *src, size_t count,
                            size_t es, tn_red_fn fn)
{
    int n = t->size, me = t->rank, mp = 0, nodes = 0, most = 0, mynode = 0;
    size_t bytes = count * es, reg = (bytes + 63) & ~(size_t)63;
    for (int a = 0; a < n;) { /* a: the first position of a node */
        int b = node_end(t, a);
        most = b - a > most ? b - a : most;
        for (int p = a; p < b; p++)
            if (t->bynode[p] == me) {
                mp = p;
                mynode = nodes;
            }
        nodes++;
        a = b;
    }
    if (most < 3 ||
        (size_t)(most + nodes) * reg > (size_t)tn_teams.depth * tn_teams.eager)
        return 0;
    char *e = claim(t, (size_t)(most + nodes) * reg);
    char *part = e + (size_t)most * reg; /* node regions */
    uint32_t seq = ++t->seq;
    int lo = mp;
    while (lo > 0 && node_at(t, lo - 1) == node_at(t, mp))
        lo--;
    int leader = t->bynode[lo];
    if (me != leader) {
        tn_coll_put_flag(t, leader, e + (size_t)(mp - lo) * reg, src, bytes, seq);
        tn_coll_wait(t, leader, seq); /* region 0 of its ring holds the result */
        int g = t->ranks[leader];
        memcpy(dest, tern_ptr(g, tern_sym_addr(g, e)), bytes);
        all_entered(t);
        return 1;
    }
    int hi = lo + 1;
    while (hi < n && node_at(t, hi) == node_at(t, lo))
        hi++;
    char *mine = part + (size_t)mynode * reg;
    memcpy(mine, src, bytes);
    for (int p = lo + 1; p < hi; p++) {
        tn_coll_wait(t, t->bynode[p], seq);
        fn(mine, e + (size_t)(p - lo) * reg, count);
    }
    for (int a = 0; a < n;) { /* the partial to every other leader */
        int b = node_end(t, a);
        if (a != lo)
            tn_coll_put_flag(t, t->bynode[a], mine, mine, bytes, seq);
        a = b;
    }
    for (int a = 0; a < n;) {
        int b = node_end(t, a);
        if (a != lo)
            tn_coll_wait(t, t->bynode[a], seq);
        a = b;
    }
    memcpy(e, part, bytes);
    for (int k = 1; k < nodes; k++)
        fn(e, part + (size_t)k * reg, count);
    for (int p = lo + 1; p < hi; p++)
        tn_coll_signal(t, t->bynode[p], seq);
    memcpy(dest, e, bytes);
    all_entered(t);
    return 1;
}

/* A region of the eager allreduce (n bytes from "from" into "to", this
 * rank's symmetric address, at member j) with its flag raised to seq.
 * Above one Medium message (TERN_AM_MEDIUM_MAX) or an entry
 * (TERN_COLL_EAGER), both job-wide, so the same answer at both ends, to a
 * member reached with ordered unacknowledged writes: into j's ring (every
 * round's region and the fold) by put_ordered, one write that raises the
 * flag in j's second word on arrival where the transport takes it (over
 * tcp one message, where tn_coll_put_flag sent two Medium messages up to
 * TERN_COLL_EAGER and a put and a flag write above it; collectives.md,
 * "Allreduce regions by the signalled write"), its local completion
 * counted in t->comp, which region_wait drains before "from" may change;
 * into j's dest (the fold's result) a put with no remote completion and
 * the flag write behind it, *lc its local completion. Else
 * tn_coll_put_flag (*lc done). */
static int region_by_put(tn_cteam_t *t, int j, size_t n)
{
    return (n > tn_teams.eager || n > (size_t)tn_cfg.am_medium_max) &&
           tn_coll_can_order(t, j);
}

static void region_send(tn_cteam_t *t, int j, void *to, const void *from, size_t n,
                        uint32_t seq, tern_event_t *lc)
{
    *lc = TERN_EVENT_DONE;
    if (!region_by_put(t, j, n)) {
        tn_coll_put_flag(t, j, to, from, n, seq);
        return;
    }
    if ((char *)to >= t->ring && (char *)to + n <= t->ring + t->rsize) {
        put_ordered(t, j, to, from, n, seq, "allreduce: the network write");
        return;
    }
    int g = t->ranks[j];
    int rc = tn_core_put_flagged("allreduce", g, tern_sym_addr(g, to), from, n, lc);
    if (rc != TERN_OK)
        write_failed("allreduce: the network write", g, rc);
    tn_coll_signal_ordered(t, j, seq);
}

/* Until member j's region of n bytes sent by region_send is here; then
 * until this member's own write to j is locally complete (lc, or
 * put_ordered's in t->comp). */
static void region_wait(tn_cteam_t *t, int j, size_t n, uint32_t seq, tern_event_t lc)
{
    int rc;
    if (region_by_put(t, j, n)) {
        wait_ordered(t, j, seq);
        rc = tn_coll_drain(t);
        if (rc != TERN_OK)
            write_failed("allreduce: a network write", t->ranks[j], rc);
    } else {
        tn_coll_wait(t, j, seq);
    }
    rc = tern_event_wait(lc);
    if (rc != TERN_OK)
        write_failed("allreduce: a network write", t->ranks[j], rc);
}

/* Whether no two members of t share a node. */
static int one_per_node(const tn_cteam_t *t)
{
    for (int p = 1; p < t->size; p++)
        if (node_at(t, p) == node_at(t, p - 1))
            return 0;
    return 1;
}

/* Recursive doubling over the largest power of two p <= n, the data with
 * its flag into the partner's entry: in round r member i sends its
 * partial to member i ^ 2^r's region r and combines the partner's into
 * its own (ceil(log2 n) network latencies; the pulled tree took three per
 * level); a region of one message to a network member is combined by its
 * handler straight out of the receive buffer where this member waits for
 * it already (tn_coll_put_region: one pass over the data, where the copy
 * into the ring and the combine were two; net, 2 ranks, 8 KiB new/old
 * 0.87-0.98 per pair in three sittings, collectives.md, "8 KiB allreduce
 * and 4-8 KiB broadcast at 2 PEs against OSHMEM"). Members p.. first
 * send their src to member i - p's fold region and get the result into
 * their dest at the end. Both partners of a round compute (lower half's
 * partial) op (upper half's), the same operands in the same order, so
 * every member ends with the same bits even for floating min/max with
 * signed zeros or NaNs. Regions are rounded to 64 bytes; the call takes
 * the entries that ceil(log2 n) regions (plus the fold) need, at most the
 * whole ring of the slots (half of it with 2 members) or half the team's
 * own ring if that is more (3 members or more, each on its own node: the
 * world team's). */
int tn_coll_eager_allreduce(tn_cteam_t *t, void *dest, const void *src, size_t count,
                            size_t es, tn_red_fn fn, tn_red_fn rfn)
{
    int n = t->size, me = t->rank, p = 1, rounds = 0;
    size_t bytes = count * es, reg = (bytes + 63) & ~(size_t)63;
    while (2 * p <= n) {
        p *= 2;
        rounds++;
    }
    int extra = n - p;
    size_t need = (size_t)(rounds + (extra > 0)) * reg;
    if (!t->ring || bytes > tn_cfg.coll_tree_max)
        return 0;
    if (bytes <= (size_t)tn_cfg.coll_leader_max &&
        leader_allreduce(t, dest, src, count, es, fn))
        return 1;
    size_t ring = (size_t)tn_teams.depth * tn_teams.eager;
    /* Members each on their own node may claim up to half their team's
     * own ring: the world team's (TERN_COLL_WORLD_RING) takes them up to
     * TERN_COLL_TREE_MAX, which was halving and doubling or the ring
     * allreduce above 16 KiB at 3 and 4 members, a third to a half slower
     * over tcp, and at 2 members the exchange of core/coll_rhd.c, 5-20%
     * slower from 24 to 64 KiB (it waits for the partner to enter before
     * it writes into its dest; here nobody waits for a receiver).
     * Members sharing a node keep the slots' ring: there halving and
     * doubling's first rounds stay in shared memory and less crosses the
     * network (docs/design/collectives.md, "Network writes with no remote
     * completion", the last paragraphs). */
    size_t fit = ring;
    if (n >= 2 && t->rsize / 2 > ring && one_per_node(t))
        fit = (size_t)(t->rsize / 2);
    if (need > fit)
        return 0;
    /* Two members in the slots' ring: a claim of more than half of it
     * makes every call pay the ring's barrier (two such claims never fit
     * together), and the exchange of core/coll_rhd.c, the same one step
     * straight into dest, is faster there (docs/design/collectives.md,
     * "Network allreduce: where the time goes"). */
    if (n == 2 && 2 * need > fit && bytes <= (size_t)tn_cfg.coll_rhd_max &&
        bytes <= (size_t)tn_cfg.coll_rhd_pair_max)
        return 0;
    char *e = claim(t, need);
    char *fold = e + (size_t)rounds * reg;
    uint32_t seq = ++t->seq;
    tern_event_t lc;
    if (me >= p) { /* its partner sends the result into its dest */
        region_send(t, me - p, fold, src, bytes, seq, &lc);
        region_wait(t, me - p, bytes, seq, lc);
        all_entered(t);
        return 1;
    }
    char *acc = dest; /* free since this member entered; src is read once */
    if (dest != src)
        memcpy(dest, src, bytes);
    if (me < extra) {
        region_wait(t, me + p, bytes, seq, TERN_EVENT_DONE);
        fn(acc, fold, count);
    }
    for (int r = 0; r < rounds; r++) {
        int peer = me ^ (1 << r);
        char *in = e + (size_t)r * reg;
        if (!region_by_put(t, peer, bytes)) {
            /* One message (or a copy, to a mapped member): its handler
             * combines it into acc where this member is waiting already
             * (tn_coll_region_wait). */
            tn_coll_put_region(t, peer, in, acc, bytes, seq);
            if (tn_coll_region_wait(t, peer, seq, acc, count, es, fn, rfn))
                continue;
        } else {
            region_send(t, peer, in, acc, bytes, seq, &lc);
            region_wait(t, peer, bytes, seq, lc);
        }
        if (peer > me) {
            fn(acc, in, count);
        } else {
            fn(in, acc, count);
            acc = in;
        }
    }
    if (acc != dest)
        memcpy(dest, acc, bytes);
    if (me < extra) {
        region_send(t, me + p, dest, dest, bytes, seq, &lc);
        if (tern_event_wait(lc) != TERN_OK)
            tern_abort(1, "allreduce: a network write of the result failed (cause "
                          "logged above)");
    }
    all_entered(t);
    return 1;
}

/* Small exchanges by stamped records (tn_coll_small_*). A record is one
 * 128-byte line of the receiver's claim, written by one sender: the data
 * (len bytes, zero-padded to words), then a stamp (the call's sequence
 * number and len), then a check word over both, as one unacknowledged
 * inject write. The receiver polls the stamp, then reads the record and
 * accepts it when the check word matches: the provider copies a write
 * into place with no promised order among its bytes, on whichever thread
 * polls (a progress thread), so a reader may see part of it; a torn read
 * passes with probability 2^-64 (as atomic_mbox.c's slots). A record of an
 * earlier call at the same bytes carries another stamp; the ring reuses
 * bytes only once every member has read them (claim). No message, so no
 * completion at either end: over tcp a message costs its receiver the
 * provider's completion signal (2.2 us, shmem-atomics.md). A record is
 * at most the transport's unacknowledged write (caps.unacked: over
 * tcp;ofi_rxm 128 bytes, asked for at start-up, xport/ofi/ofi_setup.c
 * widen_inject), so up to 112 bytes of data; more goes as a wide record
 * (an allreduce, or fcollect or all-to-all blocks, up to
 * TERN_COLL_WIDE_MAX, below) or by message
 * (collectives.md, "Stamped records of 112 bytes"). Sender and receiver
 * must choose the same form, so the size is the job's smallest
 * (tn_core.unacked_job, from every rank's at start-up: core/xports.c),
 * not this rank's own: a member whose provider grants less (or lacks
 * ordered unacknowledged writes: 0) lowers it for every member. */
#define REC 128
/* Wide records (an allreduce, or fcollect or all-to-all blocks, of more
 * than xmax bytes, up to t->wmax:
 * TERN_COLL_WIDE_MAX, at most TN_COLL_WIDE_LIMIT): the same layout (data,
 * stamp, check word) in a line of the record's size rounded up to 64,
 * written as one put with local completion only
 * (TN_XPORT_FLAG_NOREMOTE: over tcp;ofi_rxm one fi_writemsg with
 * FI_INJECT_COMPLETE, no acknowledgement from the receiver), which the
 * receiver polls in its memory as a record; no message, so none of the
 * receiver's message handling. The sender keeps the record until its
 * local completion (wide_wait). Over tcp;ofi_rxm a write above 128 B
 * completes at its sender (the provider's completion signal there), so
 * the gain is the receiver's message path only (collectives.md, "512 B
 * over tcp;ofi_rxm: the wide record"). The receiver does not rely on
 * the bytes of one write landing in order (tcp;ofi_rxm's comp_order is
 * FI_ORDER_NONE, no FI_ORDER_DATA): the check word tells a whole record
 * from a torn one, as for the small records. */
#define WREC (TN_COLL_WIDE_LIMIT + 16)

int tn_coll_small_max(const tn_cteam_t *t)
{
    size_t inject = tn_core.unacked_job < REC ? tn_core.unacked_job : REC;
    if (!t->ring || t->size < 2 || tn_teams.depth * tn_teams.eager < 4 * REC)
        return 0;
    for (int p = 0; p < t->size; p++) {
        if (p > 0 && node_at(t, p) == node_at(t, p - 1))
            return 0; /* members share a node: leaders, or the mapping */
        int g = t->ranks[p];
        if (g == tn_core.rank)
            continue;
        const tn_peer_t *peer = tn_core_peer(g);
        if (!tn_core_flag_unacked(peer) || peer->xport->caps.unacked < inject)
            return 0; /* not as planned: the job's size overstates this rank's */
    }
    return inject < 3 * sizeof(uint64_t) ? 0 : (int)((inject & ~(size_t)7) - 16);
}

/* Every member decides alike: xmax is the job's (tn_core.unacked_job),
 * TERN_COLL_WIDE_MAX is the same on every rank (TN_CFG_JOB), and every
 * other member is a network peer (xmax > 0: one member per node) whose
 * transport takes puts without remote completion (ofi always). */
int tn_coll_wide_max(const tn_cteam_t *t)
{
    size_t w = tn_cfg.coll_wide_max & ~(size_t)7;
    if (!t->xmax || w <= (size_t)t->xmax || w > TN_COLL_WIDE_LIMIT)
        return 0;
    for (int p = 0; p < t->size; p++) {
        int g = t->ranks[p];
        if (g == tn_core.rank)
            continue;
        const tn_peer_t *peer = tn_core_peer(g);
        if (peer->kind != TN_PEER_NET ||
            !(peer->xport->caps.flags & TN_XCAP_PUT_NOREMOTE))
            return 0;
    }
    return (int)w;
}

/* Data of len bytes with stamp seq into record rec (this rank's address)
 * of member j. A small record (lc NULL) is built on the stack and goes
 * as one unacknowledged inject write. A wide one is built in out
 * (WREC bytes, left alone until lc has no part outstanding) and goes as
 * one put without remote completion, counted in lc. */
static void rec_send(tn_cteam_t *t, int j, char *rec, const void *data, size_t len,
                     uint32_t seq, uint64_t *out, tn_comp_t *lc, const char *what)
{
    uint64_t small[REC / 8], *w = lc ? out : small;
    size_t k = (len + 7) / 8;
    if (k)
        w[k - 1] = 0; /* the padding of the last word */
    memcpy(w, data, len);
    w[k] = seq | (uint64_t)len << 32;
    w[k + 1] = tn_check_word(w, k + 1);
    int g = t->ranks[j];
    const tn_peer_t *p = tn_core_peer(g);
    uintptr_t raddr =
        tn_core_info(g)->data_base + (uintptr_t)(rec - (char *)tn_core.seg.data);
    if (!lc) {
        tn_core_write_unacked(p, g, raddr, w, (k + 2) * sizeof(uint64_t), "collective",
                              "record");
        return;
    }
    tn_rma_t op = {TN_RMA_PUT,   g, w, (void *)raddr, (k + 2) * sizeof(uint64_t),
                   TN_REGION_SEG};
    tn_xport_done_t done = {lc, NULL};
    tn_comp_add(lc, 1);
    int rc = tn_core_xport_rma(p->xport, &op, &done, TN_XPORT_FLAG_NOREMOTE);
    if (rc != TERN_OK) {
        tn_comp_add(lc, -1);
        write_failed(what, g, rc);
    }
}

/* Until every wide record counted in lc is locally complete (its buffer
 * free); a failed write ends the job (its reader would wait for ever),
 * naming what: "<collective>: the network write of a record". */
static void wide_wait(tn_comp_t *lc, const char *what)
{
    int rc = tn_comp_wait(lc);
    if (rc != TERN_OK)
        write_failed(what, -1, rc);
}

/* Waits, driving progress, for record rec of this call (seq, len bytes)
 * and reads it into w (at least len + 16 bytes rounded up to words): its
 * data in w's first len bytes. lc (or NULL): this member's wide records
 * in flight; one that failed ends the job here, not after this wait (its
 * partner may be waiting for it too). */
static void rec_recv(tn_cteam_t *t, const char *rec, uint64_t *w, size_t len,
                     uint32_t seq, tn_comp_t *lc, const char *what)
{
    const _Atomic uint64_t *r = (const _Atomic uint64_t *)(const void *)rec;
    size_t k = (len + 7) / 8;
    uint64_t stamp = seq | (uint64_t)len << 32;
    for (tn_wait_t wt = TN_WAIT_FRESH;;) {
        if (atomic_load_explicit(&r[k], memory_order_relaxed) == stamp) {
            for (size_t i = 0; i < k + 2; i++)
                w[i] = atomic_load_explicit(&r[i], memory_order_relaxed);
            atomic_thread_fence(memory_order_acquire);
            if (w[k] == stamp && w[k + 1] == tn_check_word(w, k + 1))
                return;
        }
        if (lc && tn_unlikely(tn_comp_status(lc) != TERN_OK))
            wide_wait(lc, what);
        tn_coll_wait_step(t, &wt);
    }
}

#define AR_REC "allreduce: the network write of a record"

/* The line of a wide record of len bytes of data: the data in words, the
 * stamp and the check word, rounded up to 64 bytes. */
static size_t wide_line(size_t len)
{
    return (((len + 7) & ~(size_t)7) + 16 + 63) & ~(size_t)63;
}

/* Recursive doubling over the largest power of two p <= n as in
 * tn_coll_eager_allreduce, each partial one record: round r's into record
 * r, a member p..'s src into record rounds of member i - p (the fold), its
 * result into record rounds + 1 of it. The same operands in the same
 * order on both partners, so every member ends with the same bits. Above
 * xmax (up to wmax) the records are wide: lines of the record's size, and
 * each member waits for its last record's local completion before it
 * builds the next one and before it returns. */
int tn_coll_small_allreduce(tn_cteam_t *t, void *dest, const void *src, size_t count,
                            size_t es, tn_red_fn fn)
{
    size_t bytes = count * es;
    int n = t->size, me = t->rank, p = 1, rounds = 0;
    int wide = bytes > (size_t)t->xmax;
    if (!t->xmax || bytes > (size_t)(wide ? t->wmax : t->xmax) || es > 16)
        return 0;
    size_t line = wide ? wide_line(bytes) : REC;
    while (2 * p <= n) {
        p *= 2;
        rounds++;
    }
    int extra = n - p;
    if (2 * (size_t)(rounds + 2) * line > (size_t)tn_teams.depth * tn_teams.eager)
        return 0; /* at most half the ring, as the exchanges' claims */
    char *e = claim(t, (size_t)(rounds + 2) * line);
    char *fold = e + (size_t)rounds * line, *res = fold + line;
    uint32_t seq = ++t->seq;
    /* out: the wide record being sent; in: the record read (data first). */
    _Alignas(16) uint64_t out[WREC / 8], in[WREC / 8];
    tn_comp_t lcs, *lc = wide ? &lcs : NULL;
    tn_comp_init(&lcs, 0);
    if (me >= p) {
        rec_send(t, me - p, fold, src, bytes, seq, out, lc, AR_REC);
        rec_recv(t, res, in, bytes, seq, lc, AR_REC);
        memcpy(dest, in, bytes);
        if (lc)
            wide_wait(lc, AR_REC);
        all_entered(t);
        return 1;
    }
    char *acc = dest; /* free since this member entered; src is read once */
    if (dest != src)
        memcpy(dest, src, bytes);
    if (me < extra) {
        rec_recv(t, fold, in, bytes, seq, lc, AR_REC);
        fn(acc, in, count);
    }
    for (int r = 0; r < rounds; r++) {
        int peer = me ^ (1 << r);
        rec_send(t, peer, e + (size_t)r * line, acc, bytes, seq, out, lc, AR_REC);
        rec_recv(t, e + (size_t)r * line, in, bytes, seq, lc, AR_REC);
        if (peer > me) {
            fn(acc, in, count);
        } else {
            fn(in, acc, count);
            memcpy(acc, in, bytes);
        }
        if (lc)
            wide_wait(lc, AR_REC); /* out is built again next round */
    }
    if (me < extra) {
        rec_send(t, me + p, res, acc, bytes, seq, out, lc, AR_REC);
        if (lc)
            wide_wait(lc, AR_REC);
    }
    all_entered(t);
    return 1;
}

/* Fcollect of more than TN_COLL_XNET_DIRECT members by Bruck's
 * allgather, each round one record: position p holds member me + p's
 * block; in the round of distance d (1, 2, 4, ...) member me sends its
 * first min(d, n - d) blocks as record r of member me - d and reads
 * record r, from member me + d, into positions d... ceil(log2 n) writes
 * sent and received per member where the direct exchange takes n - 1 of
 * each: with 8 members on 2 cores the team's CPU per call, not its
 * latencies, sets the time (collectives.md, "Small fcollect of 4 to 16
 * members"). Taken where the largest round (most
 * blocks) fits a record; the positions a later round sends (below most)
 * are kept in held, so src is read once and dest only written. */
static int small_bruck(tn_cteam_t *t, void *dest, const void *src, size_t nbytes)
{
    int n = t->size, me = t->rank, rounds = 0;
    size_t most = 0;
    for (int d = 1; d < n; d <<= 1, rounds++)
        if ((size_t)(d < n - d ? d : n - d) > most)
            most = (size_t)(d < n - d ? d : n - d);
    if (most * nbytes > (size_t)t->xmax ||
        2 * (size_t)rounds * REC > (size_t)tn_teams.depth * tn_teams.eager)
        return 0;
    char *e = claim(t, (size_t)rounds * REC), *out = dest;
    char held[REC];
    uint64_t w[REC / 8];
    uint32_t seq = ++t->seq;
    memcpy(held, src, nbytes);
    memcpy(out + (size_t)me * nbytes, src, nbytes);
    for (int d = 1, r = 0; d < n; d <<= 1, r++) {
        size_t cnt = (size_t)(d < n - d ? d : n - d), len = cnt * nbytes;
        rec_send(t, (me - d + n) % n, e + (size_t)r * REC, held, len, seq, NULL, NULL,
                 "fcollect: the network write of a record");
        rec_recv(t, e + (size_t)r * REC, w, len, seq, NULL, NULL);
        const char *in = (const char *)w;
        size_t first = (size_t)((me + d) % n), run = (size_t)n - first;
        if (run > cnt)
            run = cnt; /* members me + d.. up to the team's end, then 0.. */
        memcpy(out + first * nbytes, in, run * nbytes);
        memcpy(out, in + run * nbytes, (cnt - run) * nbytes);
        if ((size_t)d < most)
            memcpy(held + (size_t)d * nbytes, in,
                   ((size_t)d + cnt > most ? most - (size_t)d : cnt) * nbytes);
    }
    all_entered(t);
    return 1;
}

/* Direct: member me sends block j (src + step * j) as record me of member
 * j, all at once (one network latency), copies its own, then reads
 * record j into dest + j * nbytes as each arrives. Fcollect (step 0) of
 * more than TN_COLL_XNET_DIRECT members: small_bruck where it fits.
 * Blocks above xmax (up to wmax) go as wide records: the claim holds n
 * lines that the others write and n more where this member builds its
 * record for member j (line n + j, left alone until its local
 * completion, waited for before the call returns; n - 1 records in
 * flight at once, so not on the stack). */
int tn_coll_small_exchange(tn_cteam_t *t, void *dest, const void *src, size_t step,
                           size_t nbytes)
{
    int n = t->size, me = t->rank;
    if (step == 0 && n > TN_COLL_XNET_DIRECT && t->xmax && nbytes &&
        small_bruck(t, dest, src, nbytes))
        return 1;
    int wide = nbytes > (size_t)t->xmax;
    size_t line = wide ? wide_line(nbytes) : REC, lines = (size_t)n * (wide ? 2 : 1);
    if (!t->xmax || nbytes > (size_t)(wide ? t->wmax : t->xmax) ||
        n > TN_COLL_XNET_MEMBERS || !nbytes ||
        2 * lines * line > (size_t)tn_teams.depth * tn_teams.eager)
        return 0;
    const char *what = step ? "alltoall: the network write of a record"
                            : "fcollect: the network write of a record";
    char *e = claim(t, lines * line), *d = dest;
    _Alignas(16) uint64_t w[WREC / 8];
    const char *s = src;
    uint32_t seq = ++t->seq;
    tn_comp_t lcs, *lc = wide ? &lcs : NULL;
    tn_comp_init(&lcs, 0);
    for (int k = 1; k < n; k++) {
        int j = (me + k) % n;
        uint64_t *out = wide ? (uint64_t *)(void *)(e + (size_t)(n + j) * line) : NULL;
        rec_send(t, j, e + (size_t)me * line, s + step * (size_t)j, nbytes, seq, out, lc,
                 what);
    }
    memcpy(d + (size_t)me * nbytes, s + step * (size_t)me, nbytes);
    for (int k = 1; k < n; k++) {
        int j = (me - k + n) % n;
        rec_recv(t, e + (size_t)j * line, w, nbytes, seq, lc, what);
        memcpy(d + (size_t)j * nbytes, w, nbytes);
    }
    if (lc)
        wide_wait(lc, what);
    all_entered(t);
    return 1;
}
