/* Memory accounting (issue 13): what Tern holds per rank, tallied by each
 * module from the sizes of its own allocations, split by what the sizes
 * grow with; and the process's private resident memory, to measure what
 * others (the network provider) add. */
#ifndef TN_MEM_H
#define TN_MEM_H

#include <stddef.h>

/* Bytes a module holds, by what they are multiplied with. Private memory
 * is malloc'd; shared memory lies in this rank's mapping (the control
 * area before the segment). Each module adds its own (+=). */
typedef struct tn_mem_tally {
    size_t fixed;       /* private, independent of the job's size */
    size_t each_rank;   /* private, per rank of the job (tables indexed by
                           every rank, this one included) */
    size_t each_local;  /* private, per rank of this node (self included) */
    size_t each_span;   /* private, per rank of the span from this node's
                           lowest rank to its highest: its ranks, and any
                           rank of another node numbered between them */
    size_t each_remote; /* private, per rank of other nodes */
    size_t each_node;   /* private, per node of the job */
    size_t shared_fixed;
    size_t shared_each_local; /* shared, per rank of this node (self included) */
    size_t untouched;         /* of the private bytes: buffers whose pages are
                                 resident only once used */
    long net_addresses;       /* network addresses in the address vector */
    size_t each_contacted;    /* private, per network address in it (the
                                 rank's entry, made at first contact) */
} tn_mem_tally_t;

/* RssAnon of this process (private resident memory) in bytes from
 * /proc/self/status, or 0 where it cannot be read. Costs an open and a
 * read: start-up and reports only. */
size_t tn_mem_rss_anon(void);

/* Growth of RssAnon from before to now, 0 when it shrank or is unknown. */
static inline size_t tn_mem_growth(size_t before)
{
    size_t now = tn_mem_rss_anon();
    return before && now > before ? now - before : 0;
}

#endif
