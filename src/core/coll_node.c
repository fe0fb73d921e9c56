/* Broadcast and allreduce for teams whose members all share memory: every
 * member reads the others' buffers in place through the cross-mapped
 * segments, between team barriers, instead of the tree's hand-offs.
 *
 * Small (up to TN_COLL_FAST bytes), allreduce: each member copies its src
 * into one half of its fast area, one barrier, and each member combines
 * all halves in place. The halves alternate, so a half is written again
 * two small allreduces later, after the barrier of the one between, which
 * every member passes only once it finished reading the earlier one: no
 * exit barrier. Small fcollect and alltoall use the same halves the same
 * way. Small broadcast: one way, through lines of the root's area
 * (small_bcast).
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
    char *h = t->fast + (size_t)t->par * TN_COLL_FAST;
    t->par ^= 1;
    return h;
}

/* Small broadcast, one way: the root copies src into lines of its
 * broadcast area and signals every member, who copies it out and
 * acknowledges. A call claims the next ceil(nbytes / 64) lines after the
 * previous call of the same root (from line 0 when they would pass the
 * area's end), counted alike on every member; the root waits for the
 * acknowledgements of those lines' last use only when it claims them
 * again. So an 8-byte broadcast's root runs up to 32 calls ahead of its
 * slowest receiver (2 with whole halves before): with more ranks than
 * cores each receiver, once scheduled, copies out every call the root
 * made meanwhile, and the hand-off between processes is paid once per
 * many calls rather than every second one. 4 and 8 ranks on 2 cores,
 * 8 B: docs/design/collectives.md. */
static void small_bcast(tn_cteam_t *t, void *dest, const void *src, size_t nbytes,
                        int root)
{
    int me = t->rank, n = t->size;
    uint32_t seq = ++t->seq, k = (uint32_t)((nbytes + 63) / 64);
    uint32_t line = t->bcount[root];
    if (line + k > TN_COLL_BLINES)
        line = 0;
    t->bcount[root] = line + k;
    char *h = t->fast + 2 * TN_COLL_FAST + (size_t)line * 64;
    if (me == root) {
        uint32_t last = t->bline[line];
        for (uint32_t l = line + 1; l < line + k; l++)
            if ((int32_t)(t->bline[l] - last) > 0)
                last = t->bline[l];
        for (int j = 0; j < n; j++)
            if (j != me)
                tn_coll_wait(t, j, last);
        for (uint32_t l = line; l < line + k; l++)
            t->bline[l] = seq;
        memcpy(h, src, nbytes);
        for (int j = 0; j < n; j++)
            if (j != me)
                tn_coll_signal(t, j, seq);
        if (dest != src)
            memcpy(dest, h, nbytes);
    } else {
        tn_coll_wait(t, root, seq);
        memcpy(dest, at(t, root, h), nbytes);
        tn_coll_signal(t, root, seq); /* done with the root's lines */
    }
}

void tn_coll_node_bcast(tn_cteam_t *t, void *dest, const void *src, size_t nbytes,
                        int root)
{
    int me = t->rank;
    if (nbytes <= TN_COLL_FAST) {
        small_bcast(t, dest, src, nbytes, root);
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
