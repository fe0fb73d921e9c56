/* Eager collectives of teams across nodes: small broadcast, fcollect and
 * all-to-all whose data travels with its flag (tn_coll_put_flag: one
 * active message to a network member) into a ring entry of the receiver's
 * team slot, instead of into its dest. A sender then never waits for the
 * receiver to say that it entered (its dest is free): the receiver copies
 * the entry into its dest itself. MPI's eager protocol does the same with
 * private buffers; here the entries are symmetric, so that a Long message
 * lands the data in place without a handler copy.
 *
 * Entry reuse: use u of the ring takes entry u mod depth, which use
 * u - depth took before. Every member leaves a use only after it copied
 * its entry out, so after a team barrier no member reads any earlier
 * entry. Before use u, a team whose last barrier was at use mark <=
 * u - depth runs one (all members count uses and barriers alike, so all
 * decide the same): with depth 8, one broadcast in 8 pays a barrier when
 * nothing else synchronizes the team. docs/design/collectives.md. */
#include <string.h>

#include "core/coll.h"

/* The ring entry of this team's next eager collective; runs the team
 * barrier first when the entry may still be read by a member. */
static char *next_entry(tn_cteam_t *t)
{
    if (t->ecount - t->emark >= tn_teams.depth)
        tn_coll_barrier(t); /* sets emark = ecount */
    return t->ring + (size_t)(t->ecount++ % tn_teams.depth) * tn_teams.eager;
}

/* Binomial tree rooted at root over tn_coll_tree_order's order (the
 * members of a node together, so that with nodes of 2^k members only node
 * leaders exchange network messages): a member waits for its parent's flag (the
 * data is then in its entry), forwards the entry to its children, the
 * largest subtree first, and copies it into dest. The root sends from its
 * src and returns once its messages are out (sent, not yet received). */
int tn_coll_eager_bcast(tn_cteam_t *t, void *dest, const void *src, size_t nbytes,
                        int root)
{
    if (!t->ring || nbytes > tn_teams.eager)
        return 0;
    int n = t->size;
    char *e = next_entry(t);
    int rel = tn_coll_tree_order(t, root); /* nodes together: leaders */
    uint32_t seq = ++t->seq;
    const void *from = src;
    int below = rel ? tn_lowbit(rel) : 1;
    if (rel == 0) {
        while (below < n)
            below <<= 1;
    } else {
        tn_coll_wait(t, t->order[rel - below], seq);
        from = e;
    }
    for (int k = below >> 1; k >= 1; k >>= 1)
        if (rel + k < n)
            tn_coll_put_flag(t, t->order[rel + k], e, from, nbytes, seq);
    if (dest != from)
        memcpy(dest, from, nbytes);
    return 1;
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
    char *e = next_entry(t);
    uint32_t seq = ++t->seq;
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
    char *e = next_entry(t);
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
    return 1;
}
