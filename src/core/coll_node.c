/* Broadcast and allreduce for teams whose members all share memory: every
 * member reads the others' buffers in place through the cross-mapped
 * segments, between team barriers, instead of the tree's hand-offs.
 *
 * Small (up to tn_teams.fast bytes), allreduce: each member copies its src
 * into one half of its fast area, one barrier, and each member combines
 * all halves in place. The halves alternate, so a half is written again
 * two small allreduces later, after the barrier of the one between, which
 * every member passes only once it finished reading the earlier one: no
 * exit barrier. Small fcollect and alltoall use the same halves the same
 * way. Small broadcast: one way, see below.
 * Large: broadcast reads the root's src between an entry and an exit
 * barrier; allreduce is core/coll_reduce.c's reduce-scatter. One member
 * computes each element, in the same order, so all get the same bits. */
#include <string.h>

#include "core/coll.h"

/* The address of buf (this rank's segment) in member j's segment, as
 * mapped here. */
static const char *at(tn_cteam_t *t, int j, const void *buf)
{
    int g = t->ranks[j];
    return (const char *)tern_ptr(g, tern_sym_addr(g, buf));
}

/* The allreduce half for the next small allreduce. */
static char *reduce_half(tn_cteam_t *t)
{
    char *h = t->fast + (size_t)t->par * tn_teams.fast;
    t->par ^= 1;
    return h;
}

void tn_coll_node_bcast(tn_cteam_t *t, void *dest, const void *src, size_t nbytes,
                        int root)
{
    int me = t->rank, n = t->size;
    if (nbytes <= tn_teams.fast) {
        /* One way: the root fills one of its two broadcast halves and
         * signals every member, who copies it out and acknowledges. The
         * root waits for the acknowledgements of a half's last use only
         * when it fills that half again. Which half: the parity of the
         * small broadcasts this root made, counted alike everywhere. */
        uint32_t seq = ++t->seq;
        int p = (int)(t->bcount[root]++ & 1);
        char *h = t->fast + (size_t)(2 + p) * tn_teams.fast;
        if (me == root) {
            for (int j = 0; j < n; j++)
                if (j != me)
                    tn_coll_wait(t, j, t->bseq[p]);
            t->bseq[p] = seq;
            memcpy(h, src, nbytes);
            for (int j = 0; j < n; j++)
                if (j != me)
                    tn_coll_signal(t, j, seq);
            if (dest != src)
                memcpy(dest, h, nbytes);
        } else {
            tn_coll_wait(t, root, seq);
            memcpy(dest, at(t, root, h), nbytes);
            tn_coll_signal(t, root, seq); /* done with the root's half */
        }
        return;
    }
    tn_coll_barrier(t); /* the root's src is ready, every dest is free */
    if (me != root)
        memcpy(dest, at(t, root, src), nbytes);
    else if (dest != src)
        memcpy(dest, src, nbytes);
    tn_coll_barrier(t); /* nobody reads the root's src any more */
}

void tn_coll_node_gather(tn_cteam_t *t, void *dest, const void *src, size_t copy,
                         size_t at_off, size_t len)
{
    char *h = reduce_half(t);
    memcpy(h, src, copy);
    tn_coll_barrier(t);
    for (int j = 0; j < t->size; j++)
        memcpy((char *)dest + (size_t)j * len, at(t, j, h + at_off), len);
}

void tn_coll_node_allreduce(tn_cteam_t *t, void *dest, const void *src, size_t count,
                            size_t es, void (*fn)(void *, const void *, size_t))
{
    int n = t->size;
    size_t bytes = count * es;
    char *h = reduce_half(t);
    memcpy(h, src, bytes); /* src may change (or be dest) after the barrier */
    tn_coll_barrier(t);
    memcpy(dest, at(t, 0, h), bytes);
    for (int j = 1; j < n; j++)
        fn(dest, at(t, j, h), count);
}
