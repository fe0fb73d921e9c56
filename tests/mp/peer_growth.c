/* What a rank allocates for the peers it never contacts (issue 13): the
 * heap in use after tern_init (glibc's mallinfo2 over every arena and
 * mmapped chunk: Tern's allocations and the network provider's alike),
 * taken before any call that could contact a peer, minus the same before
 * tern_init. peer_growth.sh compares it between two job sizes. Also the
 * node-shared peer table (a row per rank, not in the heap) and bad ranks
 * against it. Prints "peer_growth: rank R of N heap H ..." per rank. */
#include <malloc.h>
#include <string.h>

#include "mp_util.h"

static size_t heap_in_use(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

int main(int argc, char **argv)
{
    /* Nothing printed before: stdout's buffer would be in the difference. */
    size_t before = heap_in_use();
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    size_t after = heap_in_use();
    int n = tern_size();
    tern_memory_report_t r;
    MP_OK(tern_memory_report(&r));
    MP_CHECK(r.net_addresses == 0 || !r.remote_peers,
             "%d network addresses resolved before any transfer", r.net_addresses);
    MP_CHECK(r.node_table_per_rank > 0 &&
                 r.node_table >= (size_t)n * r.node_table_per_rank,
             "node peer table of %zu B for %d ranks of %zu B", r.node_table, n,
             r.node_table_per_rank);

    /* Bad ranks: the table has a row for every rank of the job, no more. */
    MP_CHECK(tern_node_of(n) == -1 && tern_node_of(-1) == -1, "node of a bad rank");
    MP_CHECK(tern_node_of(n - 1) >= 0 && tern_node_of(n - 1) < tern_node_count(),
             "node of rank %d is %d of %d", n - 1, tern_node_of(n - 1),
             tern_node_count());
    void *base = NULL;
    size_t size = 0;
    MP_EXPECT(tern_segment_query(n, &base, &size), TERN_ERR_RANK, "rank");
    MP_OK(tern_segment_query(n - 1, &base, &size));
    MP_CHECK(base && size >= ((size_t)1 << 20), "rank %d's segment %p, %zu B", n - 1,
             base, size);
    char byte = 1;
    MP_EXPECT(tern_put(n, base, &byte, 1, 0), TERN_ERR_RANK, "rank");
    MP_EXPECT(tern_put(n - 1, (char *)base + size, &byte, 1, 0), TERN_ERR_RANGE,
              "outside the segment of rank");

    printf(
        "peer_growth: rank %d of %d heap %zu local %d remote %d nodes %d per_local %zu "
        "per_remote %zu node_table %zu\n",
        me, n, after > before ? after - before : 0, r.local_peers, r.remote_peers,
        r.remote_nodes, r.per_local_peer, r.per_remote_peer, r.node_table);
    fflush(stdout);
    return mp_finish("peer_growth");
}
