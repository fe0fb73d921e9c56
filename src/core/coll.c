/* Broadcast, fcollect, collect and all-to-all over a team. Small ones of
 * teams across nodes are eager (core/coll_eager.c). Broadcast is a
 * binomial tree that pushes into each member's dest once the member has
 * said it entered; the gathers read every member's source in place (a
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
    if (!p)
        return tn_core_fail(TERN_ERR_INVALID, call, "%s is NULL", what);
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
    int rnode = tn_core.peers[t->ranks[root]].node;
    t->order[k++] = root;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            int j = t->bynode[i];
            int same = tn_core.peers[t->ranks[j]].node == rnode;
            if (j != root && same == (pass == 0))
                t->order[k++] = j;
        }
    while (t->order[me] != t->rank)
        me++;
    return me;
}

tern_status_t tern_broadcast(tern_team_t team, void *dest, const void *src, size_t nbytes,
                             int root)
{
    static const char call[] = "tern_broadcast";
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
        tn_coll_node_bcast(t, dest, src, nbytes, root);
        return TERN_OK;
    }
    if (tn_coll_eager_bcast(t, dest, src, nbytes, root))
        return TERN_OK;
    int rel = tn_coll_tree_order(t, root);
    uint32_t seq = ++t->seq;
    int below = rel ? tn_lowbit(rel) : 1;
    if (rel == 0) {
        if (dest != src)
            memcpy(dest, src, nbytes);
        while (below < n)
            below <<= 1;
    } else {
        int parent = t->order[rel - below];
        tn_coll_signal(t, parent, seq); /* my dest is free */
        tn_coll_wait(t, parent, seq);   /* and holds the data */
    }
    /* Children rel + k for k < below, the largest subtree first. */
    for (int k = below >> 1; k >= 1; k >>= 1) {
        if (rel + k >= n)
            continue;
        int c = t->order[rel + k];
        tn_coll_wait(t, c, seq);                         /* c's dest is free */
        tn_coll_put_flag(t, c, dest, dest, nbytes, seq); /* data, then flag */
    }
    return TERN_OK;
}

/* Reads block_of(p) bytes of member p at its src + src_off into dest +
 * dest_off(p), for every member, starting after this one (members do not
 * all read the same source at once). */
static void gather(tn_cteam_t *t, char *dest, const size_t *dest_off, const char *src,
                   size_t src_off, const size_t *len)
{
    int n = t->size;
    for (int s = 1; s < n; s++) {
        int p = (t->rank + s) % n, g = t->ranks[p];
        if (len[p])
            must(tern_get_nbi(dest + dest_off[p], g, tern_sym_addr(g, src + src_off),
                              len[p], 0),
                 "a gather get");
    }
    if (len[t->rank])
        memcpy(dest + dest_off[t->rank], src + src_off, len[t->rank]);
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
    if (t->all_mapped && nbytes <= TN_COLL_FAST) {
        tn_coll_node_gather(t, dest, src, nbytes, 0, nbytes);
        return TERN_OK;
    }
    if (!t->all_mapped && tn_coll_eager_fcollect(t, dest, src, nbytes))
        return TERN_OK;
    if (pushed(t, nbytes)) {
        push_all(t, dest, src, 0, nbytes);
        return TERN_OK;
    }
    for (int p = 0; p < t->size; p++) {
        t->off[p] = (size_t)p * nbytes;
        t->len[p] = nbytes;
    }
    tn_coll_barrier(t);
    gather(t, dest, t->off, src, 0, t->len);
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
        gather(t, dest, t->off, src, 0, t->len);
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
    if (t->all_mapped && total <= TN_COLL_FAST) {
        tn_coll_node_gather(t, dest, src, total, (size_t)t->rank * nbytes, nbytes);
        return TERN_OK;
    }
    if (!t->all_mapped && tn_coll_eager_alltoall(t, dest, src, nbytes))
        return TERN_OK;
    if (pushed(t, nbytes)) {
        push_all(t, dest, src, nbytes, nbytes);
        return TERN_OK;
    }
    for (int p = 0; p < t->size; p++) {
        t->off[p] = (size_t)p * nbytes;
        t->len[p] = nbytes;
    }
    /* Pairwise: member p's block for this one, at p's src + rank * nbytes;
     * in step s each member reads from rank + s, so no two read one
     * member's source in the same step. */
    tn_coll_barrier(t);
    gather(t, dest, t->off, src, (size_t)t->rank * nbytes, t->len);
    tn_coll_barrier(t);
    return TERN_OK;
}
