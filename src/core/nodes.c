/* Grouping ranks into nodes from the bootstrap's node keys, and counting
 * the ranks on this machine from its host keys: one allgather, nodes
 * numbered in order of their lowest rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "base/log.h"
#include "core/core.h"

#define KEY_LEN 64

/* What each rank contributes: its node and the machine it runs on. */
typedef struct key_pair {
    char node[KEY_LEN];
    char host[KEY_LEN];
} key_pair_t;

/* Numbers the groups of ranks with equal node keys (by_key) or puts each
 * rank alone (not by_key), in order of their lowest rank: node_of[r] for
 * every rank, first[k] the lowest rank of group k. Returns the count. */
static int group_ranks(const key_pair_t *keys, int n, int by_key, int *node_of,
                       int *first)
{
    int nnodes = 0;
    for (int r = 0; r < n; r++) {
        int node = -1;
        for (int k = 0; by_key && k < nnodes && node < 0; k++)
            if (memcmp(keys[first[k]].node, keys[r].node, KEY_LEN) == 0)
                node = k;
        if (node < 0) {
            node = nnodes;
            first[nnodes++] = r;
        }
        node_of[r] = node;
    }
    return nnodes;
}

/* The program's view of nodes (tern_node_*, tern_local_*): machines as the
 * launcher grouped them, whatever TERN_SHM says. With shared memory on it
 * is the grouping of the transports; with it off (each rank a group of its
 * own there), it is computed here. view_of[r]: each rank's node in it. */
static void build_view(const key_pair_t *keys, int n, int *first, const int *node_of,
                       int *view_of)
{
    tn_node_view_t *v = &tn_core.view;
    if (tn_cfg.shm) {
        memcpy(view_of, node_of, (size_t)n * sizeof(int));
        v->nnodes = tn_core.nnodes;
        v->local_rank = tn_core.local_rank;
        v->local_size = tn_core.local_size;
        return;
    }
    v->nnodes = group_ranks(keys, n, 1, view_of, first);
    v->local_rank = v->local_size = 0;
    for (int r = 0; r < n; r++)
        if (view_of[r] == view_of[tn_core.rank]) {
            if (r == tn_core.rank)
                v->local_rank = v->local_size;
            v->local_size++;
        }
}

int tn_core_build_node_map(int **node_of_out, int **view_of_out)
{
    int n = tn_core.size;
    size_t keys_bytes = (size_t)n * sizeof(key_pair_t);
    key_pair_t *keys = tn_core_tmp_alloc(keys_bytes); /* zeroed */
    int *first = calloc((size_t)n, sizeof(int));      /* node -> its first rank */
    int *node_of = malloc((size_t)n * sizeof(int));
    int *view_of = malloc((size_t)n * sizeof(int));
    int rc;
    if (!keys || !first || !node_of || !view_of) {
        rc = TERN_ERR_NOMEM;
        goto out;
    }
    /* One allgather of both keys serves both groupings. */
    key_pair_t mine;
    memset(&mine, 0, sizeof(mine));
    snprintf(mine.node, KEY_LEN, "%s", tn_core.boot->node_key);
    snprintf(mine.host, KEY_LEN, "%s", tn_core.boot->host_key);
    rc = tn_core.boot->ops->allgather(tn_core.boot, &mine, sizeof(mine), keys);
    if (rc != TERN_OK)
        goto out;
    /* Ranks on this machine, whatever node they belong to (ternrun --nodes
     * simulates several on one host) and whatever TERN_SHM says: they
     * share its cores and memory (oversubscription, fault-in threads,
     * memory check). */
    tn_core.host_ranks = 0;
    for (int r = 0; r < n; r++)
        if (memcmp(keys[r].host, mine.host, KEY_LEN) == 0)
            tn_core.host_ranks++;
    tn_debug("host %s: %d rank(s) of the job run on it", mine.host, tn_core.host_ranks);

    /* Nodes are the groups of ranks sharing memory; with TERN_SHM=off no
     * rank shares memory with another, so each is a node of its own. */
    int nnodes = group_ranks(keys, n, tn_cfg.shm, node_of, first);
    tn_core.nnodes = nnodes;
    tn_core.node_leaders = malloc((size_t)nnodes * sizeof(int));
    if (!tn_core.node_leaders) {
        rc = TERN_ERR_NOMEM;
        goto out;
    }
    memcpy(tn_core.node_leaders, first, (size_t)nnodes * sizeof(int));
    /* Ranks of the largest node (first[] is free now: it counts). */
    memset(first, 0, (size_t)nnodes * sizeof(int));
    tn_core.largest_node = 0;
    for (int r = 0; r < n; r++)
        if (++first[node_of[r]] > tn_core.largest_node)
            tn_core.largest_node = first[node_of[r]];
    tn_core.node = node_of[tn_core.rank];
    int count = 0;
    for (int r = 0; r < n; r++)
        if (node_of[r] == tn_core.node)
            count++;
    tn_core.local_ranks = calloc((size_t)count, sizeof(int));
    if (!tn_core.local_ranks) {
        rc = TERN_ERR_NOMEM;
        goto out;
    }
    int li = 0;
    for (int r = 0; r < n; r++) {
        if (node_of[r] != tn_core.node)
            continue;
        if (r == tn_core.rank)
            tn_core.local_rank = li;
        tn_core.local_ranks[li++] = r;
    }
    tn_core.local_size = count;
    /* The ranks with private entries (core.h): this node's, and whatever
     * lies between them (nothing when a node's ranks are consecutive, as
     * ternrun and most launchers place them). */
    tn_core.span_first = tn_core.local_ranks[0];
    tn_core.span = tn_core.local_ranks[count - 1] - tn_core.local_ranks[0] + 1;
    tn_debug("node %d of %d, local rank %d of %d", tn_core.node, nnodes,
             tn_core.local_rank, count);
    build_view(keys, n, first, node_of, view_of);
    *node_of_out = node_of;
    *view_of_out = view_of;
    node_of = view_of = NULL;
out:
    tn_core_tmp_free(keys, keys_bytes);
    free(first);
    free(node_of);
    free(view_of);
    return rc;
}
