/* tern-info --memory: inside a job, what Tern holds per rank (the figures
 * of tern_memory_report), with what each figure means, printed by rank 0. */
#include <stdio.h>

#include <tern.h>

#include "tern_info.h"

static void row(const char *name, size_t bytes, const char *what)
{
    printf("  %-22s %12zu B  %s\n", name, bytes, what);
}

int ti_print_memory(int argc, char **argv)
{
    int rc = tern_init(&argc, &argv, TERN_THREAD_SINGLE);
    if (rc != TERN_OK) {
        fprintf(stderr, "tern-info --memory: tern_init failed: %s\n", tern_strerror(rc));
        return 1;
    }
    tern_memory_report_t r;
    rc = tern_memory_report(&r);
    if (rc == TERN_OK && tern_rank() == 0) {
        printf("Memory of rank 0 of %d (tern_memory_report; TERN_VERBOSE=1 prints it "
               "at start-up)\n",
               tern_size());
        printf("  %d local peer(s) (shared memory), %d remote peer(s) on %d other "
               "node(s) (network)\n",
               r.local_peers, r.remote_peers, r.remote_nodes);
        printf("Tern's own private memory, counted from the sizes of its allocations:\n");
        row("fixed", r.fixed,
            "whatever the job's size: transports, operation descriptors, network "
            "message buffers, segment heap, events, this rank's own table entries");
        row("per local peer", r.per_local_peer,
            "each other rank of this node: peer and fast-path entries, its mapping, "
            "message-queue state (and the network tables, which have a row per rank)");
        row("per remote peer", r.per_remote_peer,
            "each rank of another node, contacted or not: the pointer to its network "
            "entry, message credits");
        row("per remote node", r.per_remote_node, "each other node: its leader");
        char what[160];
        snprintf(what, sizeof(what),
                 "each network peer contacted (%d so far): its address, registration "
                 "and keys",
                 r.net_addresses);
        row("per contacted peer", r.per_contacted_peer, what);
        row("own", r.own, "fixed + the peers times their parts");
        row("  of it untouched", r.untouched,
            "buffers allocated whole, resident only once messages use them");
        printf("Shared memory in this rank's mapping (before its segment):\n");
        row("shared fixed", r.shared_fixed,
            "barrier flags, this rank's own queue, room claimed for larger nodes");
        row("shared per local peer", r.shared_per_local_peer,
            "the message queue from each local peer (TERN_AM_SHM_QUEUE)");
        row("shared", r.shared, "in all");
        row("node peer table", r.node_table,
            "once per node: a row per rank of the job, written by the node's lowest "
            "rank, read in place by all its ranks");
        row("  per rank of the job", r.node_table_per_rank, "its row");
        printf("Measured (growth of RssAnon in /proc/self/status):\n");
        row("topology", r.topology, "hwloc's objects, across their loading");
        row("provider", r.provider,
            "the network provider, across its loading and opening (its later growth, "
            "e.g. a connection per peer contacted, is not seen)");
        row("total", r.total, "own + topology + provider");
        row("tern_init growth", r.init_growth,
            "all of tern_init, for comparison with total");
        row("segment", r.segment, "the user segment (TERN_SEGMENT_SIZE, shared memory)");
        fflush(stdout);
    }
    int frc = tern_finalize();
    if (rc != TERN_OK || frc != TERN_OK) {
        fprintf(stderr, "tern-info --memory: %s\n",
                tern_strerror(rc != TERN_OK ? rc : frc));
        return 1;
    }
    return 0;
}
