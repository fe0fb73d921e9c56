/* Broadcast, fcollect, collect and all-to-all over a team. Small ones of
 * teams across nodes are eager (core/coll_eager.c); larger broadcasts of
 * such teams are a pipelined tree (core/coll_bcast.c), those of teams on
 * one node read the root's buffer in place (core/coll_node.c). The
 * gathers read every member's source in place (a
 * copy from the mapped segment, or a network get) between two team
 * barriers: the first says every source is ready and every dest free, the
 * second that nobody reads a source any more. */
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "core/coll.h"

int tn_coll_check_buf(const char *call, const char *what, const void *p, size_t n)
{
    uintptr_t b = (uintptr_t)tn_core.seg.data, a = (uintptr_t)p;
    if (!p && !n)
        return TERN_OK; /* nothing to touch: NULL is fine (OpenSHMEM's zero-length
                           collectives pass it) */
    if (!p)
        return tn_core_fail(TERN_ERR_INVALID, call, "%s is NULL with %zu bytes", what, n);
    if (a >= b && a - b <= tn_core.seg.size && n <= tn_core.seg.size - (a - b))
        return TERN_OK;
    if (tn_core_region(tn_core.rank, a, n) == TN_REGION_STATIC)
        return TERN_OK; /* a global variable: symmetric as well */
    return tn_core_fail(TERN_ERR_INVALID, call,
                        "%s [%p, +%zu) is not inside this rank's segment [%p, +%zu) nor "
                        "its global variables: collectives take symmetric memory "
                        "(tern_alloc_sym, or global and static variables)",
                        what, p, n, (void *)b, tn_core.seg.size);
}

static int overlap(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + nb && y < x + na;
}

/* Team, then the buffers; the same answer on every member when the
 * arguments are symmetric, so that no member waits for one that left. */
static tn_cteam_t *enter(tern_team_t team, const char *call, void *dest, size_t nd,
                         const void *src, size_t ns, int *rc)
{
    tn_cteam_t *t = tn_team_get(team, call);
    *rc = TERN_ERR_INVALID;
    if (!t)
        return NULL;
    if ((*rc = tn_coll_check_buf(call, "dest", dest, nd)) != TERN_OK ||
        (*rc = tn_coll_check_buf(call, "src", src, ns)) != TERN_OK)
        return NULL;
    return t;
}

/* A network transfer failed inside a collective: the other members are
 * waiting for this one, so the job ends (as the barrier does). */
static void must(int rc, const char *what)
{
    if (rc != TERN_OK) {
        char msg[160];
        snprintf(msg, sizeof(msg), "collective: %s failed: %s", what, tern_strerror(rc));
        tern_abort(1, msg);
    }
}

/* Root's node first, so that a binomial tree over positions crosses
 * between nodes only at its top levels: with nodes of 2^k members each
 * node's block is a subtree under its first member, so only those leaders
 * exchange network messages and the rest get the data through the mapping
 * (a copy and a flag store). With TERN_SHM=off (a node per rank) it is
 * root, then team order. O(n) per call. */
int tn_coll_tree_order(tn_cteam_t *t, int root)
{
    int n = t->size, k = 0, me = 0;
    int rnode = tn_core_info(t->ranks[root])->node;
    t->order[k++] = root;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            int j = t->bynode[i];
            int same = tn_core_info(t->ranks[j])->node == rnode;
            if (j != root && same == (pass == 0))
                t->order[k++] = j;
        }
    while (t->order[me] != t->rank)
        me++;
    return me;
}

/* Both broadcasts; keep: the root's dest is left as it was
 * (TERN_BCAST_KEEP_ROOT), which each algorithm honours where the root
 * would copy src into it. Inlined into each: no cost to tern_broadcast. */
static TN_ALWAYS_INLINE tern_status_t bcast(const char *call, tern_team_t team,
                                            void *dest, const void *src, size_t nbytes,
                                            int root, int keep)
{
    TN_CHECK_INIT(call);
    TN_NOT_IN_HANDLER(call);
    int rc;
    tn_cteam_t *t = enter(team, call, dest, nbytes, src, nbytes, &rc);
    if (!t)
        return rc;
    int n = t->size;
    if (root < 0 || root >= n)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "root %d is not a team rank in [0, %d)", root, n);
    if (dest != src && overlap(dest, nbytes, src, nbytes))
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "dest and src overlap without being equal");
    if (nbytes == 0)
        return TERN_OK;
    if (t->all_mapped) {
        tn_coll_node_bcast(t, dest, src, nbytes, root, keep);
        return TERN_OK;
    }
    if (nbytes <= (size_t)tn_cfg.coll_bcast_eager &&
        tn_coll_eager_bcast(t, dest, src, nbytes, root, keep))
        return TERN_OK;
    tn_coll_pipe_bcast(t, dest, src, nbytes, root, keep);
    return TERN_OK;
}

tern_status_t tern_broadcast(tern_team_t team, void *dest, const void *src, size_t nbytes,
                             int root)
{
    return bcast("tern_broadcast", team, dest, src, nbytes, root, 0);
}

tern_status_t tern_broadcast_flags(tern_team_t team, void *dest, const void *src,
                                   size_t nbytes, int root, tern_flags_t flags)
{
    static const char call[] = "tern_broadcast_flags";
    if (flags & ~(tern_flags_t)TERN_BCAST_KEEP_ROOT) {
        TN_CHECK_INIT(call);
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "flags 0x%x: unknown bits 0x%x (known: "
                            "TERN_BCAST_KEEP_ROOT 0x%x)",
                            flags, flags & ~(tern_flags_t)TERN_BCAST_KEEP_ROOT,
                            TERN_BCAST_KEEP_ROOT);
    }
    return bcast(call, team, dest, src, nbytes, root, !!(flags & TERN_BCAST_KEEP_ROOT));
}

/* Reads len[p] bytes of member p at its src + src_off into dest +
 * dest_off[p], for every member, starting after this one (members do not
 * all read the same source at once). dest_off and len NULL: block bytes
 * at p * block (no table per member for the fixed-size collectives). */
static void gather(tn_cteam_t *t, char *dest, const size_t *dest_off, const char *src,
                   size_t src_off, const size_t *len, size_t block)
{
    int n = t->size;
    for (int s = 0; s < n; s++) {
        int p = (t->rank + s + 1) % n, g = t->ranks[p]; /* this member last */
        size_t l = len ? len[p] : block, o = dest_off ? dest_off[p] : (size_t)p * block;
        if (!l)
            continue;
        if (p == t->rank)
            memcpy(dest + o, src + src_off, l);
        else
            must(tern_get_nbi(dest + o, g, tern_sym_addr(g, src + src_off), l, 0),
                 "a gather get");
    }
    must(tern_nbi_sync(TERN_SYNC_REMOTE), "a gather get");
}

/* Pushed exchange of a team across nodes, after one barrier (every dest
 * free, every src ready): member me sends nbytes at src + src_step * p to
 * member p's dest + me * nbytes with its flag (one message up to the
 * Medium limit), starting after itself, copies its own block, and waits
 * for every member's flag. No exit barrier: nobody reads a src after its
 * owner sent it, and every write into this dest is awaited here. */
static void push_all(tn_cteam_t *t, char *dest, const char *src, size_t src_step,
                     size_t nbytes)
{
    int n = t->size, me = t->rank;
    tn_coll_barrier(t);
    uint32_t seq = ++t->seq;
    char *mine = dest + (size_t)me * nbytes;
    for (int s = 1; s < n; s++) {
        int p = (me + s) % n;
        tn_coll_put_flag(t, p, mine, src + src_step * (size_t)p, nbytes, seq);
    }
    memcpy(mine, src + src_step * (size_t)me, nbytes);
    for (int s = 1; s < n; s++)
        tn_coll_wait(t, (me - s + n) % n, seq);
}

/* Puts in flight per member in push_large: enough to keep several
 * connections busy while the remote completions of earlier ones come
 * back. */
#define TN_XCHG_WINDOW 8

/* Pushed exchange above the Medium limit, for teams not all mapped, with
 * readiness by pairs instead of an entry barrier: the call takes two
 * sequence numbers, ready (its first) and data (its second). On entry
 * member me tells every other member that its dest is free by raising its
 * flag there to ready (the barrier's signal: an ordered unacknowledged
 * write where the transport takes one, else a flag message or a store,
 * the same way as its data flag below, so that ready never overtakes an
 * earlier call's data flag and data never overtakes ready), first to the
 * members that send to it first. Member me puts block p only once p's
 * flag here reached ready: p entered this call, so it has left every
 * earlier one and nothing of it still reads its dest (its own src is read
 * by its own puts only). The blocks go to the members in the order their
 * ready arrives (members me + 1, me + 2, ... among those ready at once),
 * so a member that is late holds back only its own block: with 8 ranks on
 * 2 vCPUs the 1 MiB all-to-all at rank 0 went from 1.14 to 0.94 times
 * MPI's (the fixed order me + 1, me + 2, ... behind each member's ready,
 * or behind a barrier, gave 1.11 and 1.14; docs/design/collectives.md,
 * "Readiness by pairs"). Member me puts block p
 * (src + src_step * p) straight into member p's dest + me * nbytes by
 * non-blocking puts of at most TERN_COLL_XCHG_PIECE bytes (a 1 MiB block
 * as one put took a 2-rank exchange 1.2-1.45x as long as two of 512 KiB;
 * at 4 members whole blocks and 512 KiB are level, 256 KiB slower, so one
 * size serves every team: docs/design/collectives.md, "Exchanges in
 * pieces" and "Piece size by team size"), at most TN_XCHG_WINDOW in
 * flight, and raises its flag at p behind the block's last piece: an
 * ordered unacknowledged write right after that put where the transport
 * allows it (as the pipelined broadcast does; the puts then have no
 * remote completion at all, tn_core_put_flagged), else a flag once every
 * piece completed remotely. Its own block is copied while the puts fly.
 * It leaves once every put of its own completed (locally where the flag
 * is ordered behind it: the provider is done with src) and every member's
 * flag says its block is here: nobody reads a src after its owner's puts
 * completed, and every write into this dest is awaited here, so no exit
 * barrier. Before, each member read the others' srcs by network gets
 * between two barriers: each get waited for its owner's progress to
 * start, and the local copy stopped the transfer
 * (docs/design/collectives.md, "Large exchanges over the network"). */
static void push_large(tn_cteam_t *t, char *dest, const char *src, size_t src_step,
                       size_t nbytes)
{
    int n = t->size, me = t->rank;
    uint32_t ready = ++t->seq, seq = ++t->seq;
    for (int s = 1; s < n; s++) /* me - 1 sends to me first */
        tn_coll_signal_ready(t, (me - s + n) % n, ready);
    char *mine = dest + (size_t)me * nbytes;
    /* Each block in pieces of TERN_COLL_XCHG_PIECE; piece q of the call is
     * piece q % k of the block for member to[q / k]. */
    size_t pb = (size_t)tn_cfg.coll_xchg_piece;
    if (!pb || pb > nbytes)
        pb = nbytes;
    uint64_t k = (nbytes + pb - 1) / pb, total = (uint64_t)(n - 1) * k, put = 0, done = 0;
    tern_event_t ev[TN_XCHG_WINDOW];
    int *to = t->xorder, *started = t->xorder + n;
    memset(started, 0, (size_t)n * sizeof(int));
    /* Members in to[]; members me + 1 .. me + first - 1 have all started. */
    int nto = 0, first = 1, got = 1, copied = 0;
    for (tn_wait_t w = TN_WAIT_FRESH;;) {
        int moved = 0;
        for (int s = first; s < n && nto < n - 1; s++) {
            int p = (me + s) % n;
            if (!started[p] && tn_coll_ready(t, p, ready)) {
                started[p] = 1;
                to[nto++] = p;
                moved = 1;
            }
            if (started[p] && s == first)
                first++;
        }
        while (put < (uint64_t)nto * k && put - done < TN_XCHG_WINDOW) {
            int p = to[put / k], g = t->ranks[p];
            size_t off = (size_t)(put % k) * pb,
                   len = nbytes - off < pb ? nbytes - off : pb;
            void *at = tern_sym_addr(g, mine + off);
            const char *from = src + src_step * (size_t)p + off;
            tern_event_t *e = &ev[put % TN_XCHG_WINDOW];
            int last = put % k == k - 1;
            if (tn_coll_can_order(t, p)) { /* no remote completion: the flag */
                must(tn_core_put_flagged("exchange", g, at, from, len, e),
                     "an exchange put");
                if (last)
                    tn_coll_signal_ordered(t, p, seq);
            } else { /* the flag after remote completion */
                must(tern_put_nb(g, at, from, len, NULL, e, 0), "an exchange put");
            }
            put++;
            moved = 1;
        }
        if (!copied) {
            memcpy(mine, src + src_step * (size_t)me, nbytes);
            copied = moved = 1;
        }
        while (done < put) {
            int rc = tern_event_test(ev[done % TN_XCHG_WINDOW]);
            if (rc == TERN_INPROGRESS)
                break;
            must(rc, "an exchange put");
            int p = to[done / k];
            if (done % k == k - 1 && !tn_coll_can_order(t, p))
                tn_coll_signal(t, p, seq);
            done++;
            moved = 1;
        }
        while (got < n) {
            int j = (me - got + n) % n;
            if (!tn_coll_flag_steps(t, j, seq - 1, 1, tn_coll_can_order(t, j)))
                break;
            got++;
            moved = 1;
        }
        if (done == total && got == n)
            break;
        if (moved)
            tn_wait_progressed(&w);
        else
            tn_coll_wait_step(t, &w);
    }
}

/* Whether blocks of nbytes go by push_all: each one message (a team whose
 * members all share memory reads in place instead). */
static int pushed(const tn_cteam_t *t, size_t nbytes)
{
    return !t->all_mapped && nbytes <= tn_cfg.am_medium_max;
}

tern_status_t tern_fcollect(tern_team_t team, void *dest, const void *src, size_t nbytes)
{
    static const char call[] = "tern_fcollect";
    TN_CHECK_INIT(call);
    TN_NOT_IN_HANDLER(call);
    int rc;
    tn_cteam_t *t = tn_team_get(team, call);
    if (!t)
        return TERN_ERR_INVALID;
    size_t total = nbytes * (size_t)t->size;
    if (nbytes && total / nbytes != (size_t)t->size)
        return tn_core_fail(TERN_ERR_INVALID, call, "%zu bytes times %d members overflow",
                            nbytes, t->size);
    if (!enter(team, call, dest, total, src, nbytes, &rc))
        return rc;
    if (overlap(dest, total, src, nbytes))
        return tn_core_fail(TERN_ERR_INVALID, call, "dest and src overlap");
    if (nbytes == 0)
        return TERN_OK; /* the same on every member: nothing to exchange */
    if (t->all_mapped && nbytes <= TN_COLL_FAST) {
        tn_coll_node_gather(t, dest, src, nbytes, 0, nbytes);
        return TERN_OK;
    }
    if (!t->all_mapped && (tn_coll_small_exchange(t, dest, src, 0, nbytes) ||
                           tn_coll_eager_fcollect(t, dest, src, nbytes)))
        return TERN_OK;
    if (pushed(t, nbytes)) {
        push_all(t, dest, src, 0, nbytes);
        return TERN_OK;
    }
    if (!t->all_mapped) {
        push_large(t, dest, src, 0, nbytes);
        return TERN_OK;
    }
    tn_coll_barrier(t);
    gather(t, dest, NULL, src, 0, NULL, nbytes);
    tn_coll_barrier(t);
    return TERN_OK;
}

tern_status_t tern_collect(tern_team_t team, void *dest, const void *src, size_t nbytes)
{
    static const char call[] = "tern_collect";
    TN_CHECK_INIT(call);
    TN_NOT_IN_HANDLER(call);
    int rc;
    tn_cteam_t *t = enter(team, call, dest, 0, src, nbytes, &rc);
    if (!t)
        return rc;
    if (!t->off) { /* the team's first: its table of sizes and offsets */
        t->off = malloc((size_t)t->size * sizeof(size_t));
        t->len = malloc((size_t)t->size * sizeof(size_t));
        if (!t->off || !t->len) {
            free(t->off);
            free(t->len);
            t->off = t->len = NULL;
            return tn_core_fail(TERN_ERR_NOMEM, call,
                                "no memory for the sizes of %d members", t->size);
        }
    }
    /* Every member's size, read from its scratch after the first barrier. */
    uint64_t *mine = (uint64_t *)t->scratch;
    *mine = nbytes;
    tn_coll_barrier(t);
    int n = t->size;
    for (int s = 1; s < n; s++) {
        int p = (t->rank + s) % n, g = t->ranks[p];
        must(tern_get_nbi(&t->len[p], g, tern_sym_addr(g, mine), sizeof(uint64_t), 0),
             "a collect size get");
    }
    _Static_assert(sizeof(size_t) == sizeof(uint64_t), "sizes are read as size_t");
    t->len[t->rank] = nbytes;
    must(tern_nbi_sync(TERN_SYNC_REMOTE), "a collect size get");
    size_t total = 0;
    for (int p = 0; p < n; p++) {
        t->off[p] = total;
        total += t->len[p];
    }
    /* The same total on every member: the same answer everywhere. */
    rc = tn_coll_check_buf(call, "dest (for the sum of the sizes)", dest, total);
    if (rc == TERN_OK && overlap(dest, total, src, nbytes))
        rc = tn_core_fail(TERN_ERR_INVALID, call, "dest and src overlap");
    if (rc == TERN_OK)
        gather(t, dest, t->off, src, 0, t->len, 0);
    tn_coll_barrier(t);
    return rc;
}

tern_status_t tern_alltoall(tern_team_t team, void *dest, const void *src, size_t nbytes)
{
    static const char call[] = "tern_alltoall";
    TN_CHECK_INIT(call);
    TN_NOT_IN_HANDLER(call);
    int rc;
    tn_cteam_t *t = tn_team_get(team, call);
    if (!t)
        return TERN_ERR_INVALID;
    size_t total = nbytes * (size_t)t->size;
    if (nbytes && total / nbytes != (size_t)t->size)
        return tn_core_fail(TERN_ERR_INVALID, call, "%zu bytes times %d members overflow",
                            nbytes, t->size);
    if (!enter(team, call, dest, total, src, total, &rc))
        return rc;
    if (overlap(dest, total, src, total))
        return tn_core_fail(TERN_ERR_INVALID, call, "dest and src overlap");
    if (nbytes == 0)
        return TERN_OK; /* the same on every member: nothing to exchange */
    if (t->all_mapped && total <= TN_COLL_FAST) {
        tn_coll_node_gather(t, dest, src, total, (size_t)t->rank * nbytes, nbytes);
        return TERN_OK;
    }
    if (!t->all_mapped && (tn_coll_small_exchange(t, dest, src, nbytes, nbytes) ||
                           tn_coll_eager_alltoall(t, dest, src, nbytes)))
        return TERN_OK;
    if (pushed(t, nbytes)) {
        push_all(t, dest, src, nbytes, nbytes);
        return TERN_OK;
    }
    if (!t->all_mapped) {
        push_large(t, dest, src, nbytes, nbytes);
        return TERN_OK;
    }
    /* Pairwise: member p's block for this one, at p's src + rank * nbytes;
     * in step s each member reads from rank + s, so no two read one
     * member's source in the same step. */
    tn_coll_barrier(t);
    gather(t, dest, NULL, src, (size_t)t->rank * nbytes, NULL, nbytes);
    tn_coll_barrier(t);
    return TERN_OK;
}
