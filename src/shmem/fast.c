/* The state read by shmem.h's inline fast paths (tshmem/fast.h): filled
 * at the end of an initialization, cleared at the start of the last
 * finalization; off under SHMEM_DEBUG so that every call is checked. */
#include "tshmem.h"

#include <tshmem/fast.h>

#include <stdlib.h>

TSHMEM_API tshmem_fast_t tshmem_fast_;
TSHMEM_API TSHMEM_TLS_IE unsigned tshmem_spin_count_;

/* shmem.h's inline puts' and gets' poll for compilers without __thread:
 * the library's (tshmem_spin_poll). */
TSHMEM_API void tshmem_fast_spin_(void)
{
    tshmem_spin_poll();
}

/* The inline puts' and gets' table (tshmem_fast_peer_t): made at the
 * first initialization and kept (a re-initialization finds the same
 * mappings, and a thread still in an inline call may read it while the
 * last finalization turns the paths off). Returns it, or NULL without
 * memory. */
static const tshmem_fast_peer_t *fast_peer_table(void)
{
    static tshmem_fast_peer_t *tab;
    if (tab)
        return tab;
    tshmem_fast_peer_t *t = calloc(tshmem_g.npes, sizeof(*t));
    if (!t)
        return NULL;
    for (uint32_t pe = 0; pe < tshmem_g.npes; pe++) {
        void *b, *local;
        size_t sz;
        if (!tshmem_g.peer_mapped[pe] ||
            tern_segment_query((int)pe, &b, &sz) != TERN_OK ||
            !(local = tern_ptr((int)pe, b)))
            continue; /* size 0: the library's path */
        t[pe].delta = (intptr_t)((uintptr_t)local - tshmem_g.heap_base);
        /* a peer's heap smaller than this one's bounds the range too */
        t[pe].size = sz < tshmem_g.heap_size ? sz : tshmem_g.heap_size;
        /* Tern's threshold for its topology-aware copy, set at tern_init */
        t[pe].copy_min = tern_fast_.peer[pe].copy_min;
    }
    tshmem_fast_.peer = tab = t;
    return tab;
}

void tshmem_fast_on(void)
{
    /* A PE that is not mapped here reaches this one by messages only:
     * then the AMOs poll now and then (tshmem_spin_poll). */
    int spin_poll = 0;
    for (uint32_t pe = 0; pe < tshmem_g.npes; pe++)
        spin_poll |= !tshmem_g.peer_mapped[pe];
    tshmem_g.spans_nodes = spin_poll;
    if (tshmem_g.debug)
        return;
    if (!fast_peer_table())
        return; /* no memory: every call goes to the library */
    tshmem_fast_.heap_base = tshmem_g.heap_base;
    tshmem_fast_.heap_size = tshmem_g.heap_size;
    tshmem_fast_.peer_base = tshmem_g.peer_base;
    /* The inline AMOs serve mapped PEs in place and poll nothing, so in
     * such a job they are left to the library (which polls): a job on one
     * node keeps them at the cost of the native call. */
    tshmem_fast_.ad_i64 = spin_poll ? NULL : tshmem_amo_domain(TERN_AT_I64);
    tshmem_fast_.ad_u64 = spin_poll ? NULL : tshmem_amo_domain(TERN_AT_U64);
    tshmem_fast_.one_node = !spin_poll;
    tshmem_fast_.npes = tshmem_g.npes; /* last: turns the paths on */
}

void tshmem_fast_off(void)
{
    tshmem_fast_.npes = 0;
    tshmem_g.spans_nodes = 0;
}
