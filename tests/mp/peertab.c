/* The peer table read in place from the node's shared copy or, where that
 * cannot be made or mapped, from a private copy in each rank (issue 13;
 * TERN_TEST_FAULT=peertab:create or peertab:map forces it): whichever a
 * rank reads, every rank's row must say what that rank says of itself,
 * transfers to every rank must land, and bad ranks and addresses must be
 * refused against it. Argument: "shared" (no fault: every rank reads the
 * node's table), "create" (no table made: every rank keeps a copy) or
 * "map" (the node's lowest rank has the table, the others a copy). */
#include <stdint.h>

#include "mp_util.h"

/* What a rank says of itself, put into every rank's slot for it. */
typedef struct rec {
    int64_t node;
    uint64_t base, size;
    uint64_t tag; /* rank + 1: the put has landed */
} rec_t;

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    const char *want = argc > 1 ? argv[1] : "shared";
    MP_CHECK(!strcmp(want, "shared") || !strcmp(want, "create") || !strcmp(want, "map"),
             "argument '%s' is not shared, create or map", want);

    /* Which copy this rank reads: the report counts the node's table only
     * where it is mapped. */
    int leader = 0;
    while (tern_node_of(leader) != tern_node_of(me))
        leader++;
    int copy = !strcmp(want, "create") || (!strcmp(want, "map") && me != leader);
    tern_memory_report_t r;
    MP_OK(tern_memory_report(&r));
    if (copy)
        MP_CHECK(r.node_table == 0, "a private copy expected, node table of %zu B mapped",
                 r.node_table);
    else
        MP_CHECK(r.node_table >= (size_t)n * r.node_table_per_rank,
                 "node table of %zu B for %d ranks of %zu B", r.node_table, n,
                 r.node_table_per_rank);

    rec_t *slots;
    MP_OK(tern_alloc_sym((size_t)n * sizeof(*slots), (void **)&slots));
    memset(slots, 0, (size_t)n * sizeof(*slots));
    void *base = NULL;
    size_t size = 0;
    MP_OK(tern_segment_query(me, &base, &size));
    rec_t mine = {.node = tern_node_of(me),
                  .base = (uint64_t)(uintptr_t)base,
                  .size = size,
                  .tag = (uint64_t)me + 1};
    MP_OK(tern_barrier());
    for (int p = 0; p < n; p++)
        MP_OK(tern_put(p, tern_sym_addr(p, &slots[me]), &mine, sizeof(mine), 0));
    MP_OK(tern_barrier());

    for (int p = 0; p < n; p++) {
        const rec_t *s = &slots[p];
        MP_CHECK(s->tag == (uint64_t)p + 1, "rank %d's record never landed", p);
        MP_CHECK(tern_node_of(p) == s->node, "rank %d: node %d in the table, %lld said",
                 p, tern_node_of(p), (long long)s->node);
        MP_OK(tern_segment_query(p, &base, &size));
        MP_CHECK((uint64_t)(uintptr_t)base == s->base && size == s->size,
                 "rank %d: segment %p+%zu in the table, 0x%llx+%llu said", p, base, size,
                 (unsigned long long)s->base, (unsigned long long)s->size);
        rec_t got;
        MP_OK(tern_get(&got, p, tern_sym_addr(p, &slots[p]), sizeof(got), 0));
        MP_CHECK(!memcmp(&got, s, sizeof(got)), "rank %d: got another record than it put",
                 p);
    }

    /* Bad ranks and addresses, against this rank's copy. */
    MP_CHECK(tern_node_of(n) == -1 && tern_node_of(-1) == -1, "node of a bad rank");
    char byte = 1;
    MP_EXPECT(tern_segment_query(n, &base, &size), TERN_ERR_RANK, "rank");
    MP_EXPECT(tern_put(n, base, &byte, 1, 0), TERN_ERR_RANK, "rank");
    MP_OK(tern_segment_query(n - 1, &base, &size));
    MP_EXPECT(tern_put(n - 1, (char *)base + size, &byte, 1, 0), TERN_ERR_RANGE,
              "outside the segment of rank");
    MP_OK(tern_free_sym(slots));
    printf("peertab: rank %d reads %s (node table %zu B)\n", me,
           copy ? "a private copy" : "the node's table", r.node_table);
    return mp_finish("peertab");
}
