/* tern_memory_report: Tern's memory per rank, tallied from the sizes of
 * core's and every transport's allocations and split into a fixed part,
 * a part per local peer, per remote peer and per remote node; the
 * provider's share as its transport measured it (docs/design/scale.md). */
#include <string.h>
#include <sys/mman.h>

#include "base/cfg.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/topo.h"
#include "core/coll.h"
#include "core/core.h"
#include "core/event.h"

void *tn_core_tmp_alloc(size_t bytes)
{
    void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void tn_core_tmp_free(void *p, size_t bytes)
{
    if (p)
        munmap(p, bytes ? bytes : 1);
}

/* Core's own tables: per rank of the job the fast-path entry (the
 * inline path indexes it by rank); over the span of this node's ranks the
 * peer entries (every rank outside it shares one; what every rank knows
 * of every other is in the node-shared peer table, counted apart), per local rank its global rank,
 * per node its leader; fixed: the transport table, the barrier's flag sources (log2 of the node and
 * node counts: small enough to call fixed), the segment heap's
 * bookkeeping and the event slabs. */
static void core_tally(tn_mem_tally_t *t)
{
    t->each_span += sizeof(*tn_core.peers);
    t->each_rank += sizeof(*tn_core.fast);
    t->each_local += sizeof(*tn_core.local_ranks);
    t->each_node += sizeof(*tn_core.node_leaders);
    t->fixed +=
        tn_xport_count() * (sizeof(*tn_core.xports) + sizeof(*tn_core.xport_ctrl));
    t->fixed += (size_t)((tn_core.world.node.rounds ? tn_core.world.node.rounds : 1) +
                         (tn_core.world.net.rounds ? tn_core.world.net.rounds : 1)) *
                sizeof(uint32_t);
    t->fixed += tn_heap_bytes(&tn_core.heap) + tn_event_bytes();
}

/* The figures now; tn_core must be initialized (or at its last step). */
static void fill(tern_memory_report_t *r)
{
    tn_mem_tally_t t;
    size_t provider = 0;
    memset(&t, 0, sizeof(t));
    memset(r, 0, sizeof(*r));
    core_tally(&t);
    tn_teams_tally(&t);
    int private_copy = 0;
    if (tn_peertab_bytes(&private_copy) && private_copy) /* not shared after all */
        t.each_rank += sizeof(tn_peer_info_t);
    for (int i = 0; i < tn_core.nxports; i++)
        tn_core.xports[i].ops.mem(tn_core.xports[i].x, &t, &provider);
    r->local_peers = tn_core.local_size - 1;
    r->remote_peers = tn_core.size - tn_core.local_size;
    r->remote_nodes = tn_core.nnodes - 1;
    /* This rank's own entries of the tables per rank, per local rank and
     * per node are part of what it pays whatever the job; the span's
     * entries count per local rank, those of other nodes' ranks numbered
     * between this node's (none when a node's ranks are consecutive) in
     * the fixed part. */
    size_t between = (size_t)(tn_core.span - tn_core.local_size) * t.each_span;
    r->fixed = t.fixed + between + t.each_rank + t.each_local + t.each_span + t.each_node;
    r->per_local_peer = t.each_rank + t.each_local + t.each_span;
    r->per_remote_peer = t.each_rank + t.each_remote;
    r->per_remote_node = t.each_node;
    r->net_addresses = (int)t.net_addresses;
    r->per_contacted_peer = t.each_contacted;
    r->own = r->fixed + (size_t)r->local_peers * r->per_local_peer +
             (size_t)r->remote_peers * r->per_remote_peer +
             (size_t)r->remote_nodes * r->per_remote_node +
             (size_t)r->net_addresses * r->per_contacted_peer;
    /* The control area is claimed for the largest node (the same offsets
     * on every rank): what this node's ranks do not use is in the fixed
     * part. */
    size_t queues = t.shared_each_local * (size_t)tn_core.local_size;
    r->shared_per_local_peer = t.shared_each_local;
    r->shared_fixed = tn_core.seg.ctrl_size > queues - t.shared_each_local
                          ? tn_core.seg.ctrl_size - (queues - t.shared_each_local)
                          : 0;
    r->shared = r->shared_fixed + (size_t)r->local_peers * r->shared_per_local_peer;
    r->untouched = t.untouched;
    r->topology = tn_topo_bytes();
    r->provider = provider;
    r->total = r->own + r->topology + r->provider;
    r->init_growth = tn_core.init_growth;
    r->segment = tn_core.seg.size;
    r->node_table_per_rank = sizeof(tn_peer_info_t);
    r->node_table = private_copy ? 0 : tn_peertab_bytes(&private_copy);
}

tern_status_t tern_memory_report(tern_memory_report_t *out)
{
    TN_CHECK_INIT("tern_memory_report");
    if (!out)
        return tn_core_fail(TERN_ERR_INVALID, "tern_memory_report", "out is NULL");
    tn_core_lock();
    fill(out);
    tn_core_unlock();
    return TERN_OK;
}

static void fmt(size_t bytes, char *buf, size_t len)
{
    if (bytes < 10 * 1024)
        snprintf(buf, len, "%zu B", bytes);
    else if (bytes < (size_t)10 << 20)
        snprintf(buf, len, "%.1f KiB", (double)bytes / 1024);
    else
        snprintf(buf, len, "%.1f MiB", (double)bytes / (1 << 20));
}

void tn_core_memory_log(void)
{
    tern_memory_report_t r;
    fill(&r);
    char own[32], fx[32], pl[32], pr[32], pn[32], sh[32], sf[32], sp[32], pv[32], tot[32],
        gr[32], un[32], tp[32];
    fmt(r.own, own, sizeof(own));
    fmt(r.fixed, fx, sizeof(fx));
    fmt(r.per_local_peer, pl, sizeof(pl));
    fmt(r.per_remote_peer, pr, sizeof(pr));
    fmt(r.per_remote_node, pn, sizeof(pn));
    fmt(r.shared, sh, sizeof(sh));
    fmt(r.shared_fixed, sf, sizeof(sf));
    fmt(r.shared_per_local_peer, sp, sizeof(sp));
    fmt(r.provider, pv, sizeof(pv));
    fmt(r.untouched, un, sizeof(un));
    fmt(r.topology, tp, sizeof(tp));
    fmt(r.total, tot, sizeof(tot));
    fmt(r.init_growth, gr, sizeof(gr));
    tn_info("memory: Tern's own private %s = fixed %s + %d local peer(s) x %s + %d "
            "remote peer(s) x %s + %d remote node(s) x %s (%s of it buffers not touched "
            "yet); shared %s = fixed %s + %d local peer(s) x %s; topology %s and "
            "provider %s (measured); private total %s, RssAnon grew %s in tern_init",
            own, fx, r.local_peers, pl, r.remote_peers, pr, r.remote_nodes, pn, un, sh,
            sf, r.local_peers, sp, tp, pv, tot, gr);
}
