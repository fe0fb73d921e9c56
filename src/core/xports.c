/* The transports of a job, as core sees them: which ones the registry
 * says this job needs, created in registry order, their ops tables
 * checked and completed, their capabilities queried once, one chosen per
 * peer, and the peer and fast tables filled from them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cfg.h"
#include "base/log.h"
#include "base/wait.h"
#include "core/am.h"
#include "core/core.h"

int tn_core_xport_complete(const tn_xport_entry_t *e, const tn_xport_ops_t *in,
                           tn_xport_ops_t *out)
{
    if (!in || in->size < TN_XPORT_OPS_MIN_SIZE) {
        tn_error("transport '%s' has an ops table of %zu bytes, shorter than the %zu "
                 "this core needs: it was built against another Tern",
                 e->name, in ? in->size : 0, (size_t)TN_XPORT_OPS_MIN_SIZE);
        return TERN_ERR_INVALID;
    }
    if (!in->name || !in->destroy) {
        tn_error("transport '%s' has no %s in its ops table", e->name,
                 !in->name ? "name" : "destroy");
        return TERN_ERR_INVALID;
    }
    const tn_xport_ops_t stubs = {
        .size = sizeof(tn_xport_ops_t),
        .query = tn_xport_no_query,
        .poll = tn_xport_no_poll,
        .rma = tn_xport_no_rma,
        .peer_map = tn_xport_no_peer_map,
        .set_recv = tn_xport_no_set_recv,
        .msg_prepare = tn_xport_no_msg_prepare,
        .msg_commit = tn_xport_no_msg_commit,
        .summary = tn_xport_no_summary,
        .copy_info = tn_xport_no_copy_info,
        .amo = tn_xport_no_amo,
        .msg_send = tn_xport_msg_send_prepared,
        .mem = tn_xport_no_mem,
        .msg_queue = tn_xport_no_msg_queue,
        .msg_inqueues = tn_xport_no_msg_inqueues,
    };
    *out = stubs;
    memcpy(out, in, in->size < sizeof(*out) ? in->size : sizeof(*out));
    out->size = sizeof(*out);
#define TN_FILL(op) \
    if (!out->op)   \
    out->op = stubs.op
    TN_FILL(query);
    TN_FILL(poll);
    TN_FILL(rma);
    TN_FILL(peer_map);
    TN_FILL(set_recv);
    TN_FILL(msg_prepare);
    TN_FILL(msg_commit);
    TN_FILL(summary);
    TN_FILL(copy_info);
    TN_FILL(amo);
    TN_FILL(msg_send);
    TN_FILL(mem);
    TN_FILL(msg_queue);
    TN_FILL(msg_inqueues);
#undef TN_FILL
    return TERN_OK;
}

/* The class of rank as seen from this one (node_of: each rank's node). */
static unsigned reach_of(int rank, const int *node_of)
{
    if (rank == tn_core.rank)
        return TN_REACH_SELF;
    return node_of[rank] == tn_core.node ? TN_REACH_NODE : TN_REACH_NET;
}

/* The classes present anywhere in the job (the same on every rank, so
 * that every rank creates the same transports: creation is collective). */
static unsigned reach_in_job(void)
{
    unsigned r = TN_REACH_SELF;
    if (tn_core.nnodes > 1)
        r |= TN_REACH_NET;
    if (tn_core.nnodes < tn_core.size) /* some node has two ranks */
        r |= TN_REACH_NODE;
    return r;
}

/* Whether a job whose ranks see the classes reach creates entry e. */
static int created_in(const tn_xport_entry_t *e, unsigned reach)
{
    return e->when == TN_CREATE_ALWAYS || (e->reach & reach);
}

/* Whether this job creates entry e (the same answer on every rank). */
static int created(const tn_xport_entry_t *e)
{
    return created_in(e, reach_in_job());
}

int tn_core_xports_plan(tn_ctrl_space_t *space)
{
    size_t n = tn_xport_count();
    tn_core.xport_ctrl = malloc(n * sizeof(size_t));
    if (!tn_core.xport_ctrl)
        return TERN_ERR_NOMEM;
    /* Claims are sized for the largest node, so that their offsets are
     * the same on every rank whatever its node. */
    int largest = tn_core.largest_node;
    for (size_t i = 0; i < n; i++) {
        const tn_xport_entry_t *e = tn_xport_entry(i);
        tn_core.xport_ctrl[i] = SIZE_MAX;
        if (created(e) && e->ctrl_bytes)
            tn_core.xport_ctrl[i] = tn_ctrl_alloc(space, e->ctrl_bytes(largest), 64);
    }
    return TERN_OK;
}

size_t tn_core_xports_ctrl_bytes(int node_ranks)
{
    /* TERN_SHM=0 makes every rank a node of its own (core/nodes.c) */
    int largest = tn_cfg.shm && node_ranks > 1 ? node_ranks : 1;
    unsigned reach = TN_REACH_SELF;
    if (node_ranks > 1)
        reach |= tn_cfg.shm ? TN_REACH_NODE : TN_REACH_NET;
    tn_ctrl_space_t space = {0};
    for (size_t i = 0; i < tn_xport_count(); i++) {
        const tn_xport_entry_t *e = tn_xport_entry(i);
        if (created_in(e, reach) && e->ctrl_bytes)
            tn_ctrl_alloc(&space, e->ctrl_bytes(largest), 64);
    }
    return space.used;
}

static int create_all(tn_xport_job_t *job)
{
    size_t n = tn_xport_count();
    tn_core.xports = calloc(n, sizeof(*tn_core.xports));
    if (!tn_core.xports)
        return TERN_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        const tn_xport_entry_t *e = tn_xport_entry(i);
        if (!created(e))
            continue;
        tn_core_xport_t *xp = &tn_core.xports[tn_core.nxports];
        tn_xport_t *x = NULL;
        job->ctrl_off = tn_core.xport_ctrl ? tn_core.xport_ctrl[i] : SIZE_MAX;
        int rc = e->create(job, &x);
        if (rc != TERN_OK)
            return rc;
        rc = tn_core_xport_complete(e, x->ops, &xp->ops);
        if (rc != TERN_OK) {
            if (x->ops && x->ops->size >= TN_XPORT_OPS_MIN_SIZE && x->ops->destroy)
                x->ops->destroy(x);
            return rc;
        }
        xp->x = x;
        xp->entry = e;
        xp->ops.query(x, &xp->caps);
        tn_core.nxports++;
        if (xp->caps.flags & TN_XCAP_POLL)
            tn_core.needs_poll = 1;
    }
    return TERN_OK;
}

/* The fast paths of small messages (core/am.h): the first transport with
 * direct queues (xport/msgq.h) has its incoming queues drained by
 * progress itself, in place of its poll, and its outgoing queues written
 * by the Short and Medium sends; every other transport that needs it is
 * polled. Also caches each peer's largest Medium. */
static int setup_direct(void)
{
    tn_core.polled = calloc((size_t)tn_core.nxports + 1, sizeof(*tn_core.polled));
    if (!tn_core.polled)
        return TERN_ERR_NOMEM;
    tn_core_xport_t *direct = NULL;
    for (int i = 0; i < tn_core.nxports; i++) {
        tn_core_xport_t *xp = &tn_core.xports[i];
        tn_msgq_t *in = NULL;
        int n = (xp->caps.flags & TN_XCAP_MSG) && !direct
                    ? xp->ops.msg_inqueues(xp->x, &in)
                    : 0;
        if (n > 0) {
            direct = xp;
            tn_core.msg_in = in;
            tn_core.msg_nin = n;
        } else if (xp->ops.poll != tn_xport_no_poll) { /* self: nothing to poll */
            tn_core.polled[tn_core.npolled++] = xp;
        }
    }
    for (int i = 0; i < tn_core.span; i++) {
        tn_peer_t *p = &tn_core.peers[i];
        int r = tn_core.span_first + i;
        p->msgq = p->msg && p->msg == direct ? direct->ops.msg_queue(direct->x, r) : NULL;
        p->am_medium_max = tn_am_medium_max(r);
    }
    tn_core.remote.msgq = NULL;      /* direct queues reach local ranks only */
    if (tn_core.span < tn_core.size) /* a rank outside the span */
        tn_core.remote.am_medium_max =
            tn_am_medium_max(tn_core.span_first ? 0 : tn_core.span);
    return TERN_OK;
}

/* The transport of a peer of class cls: the first created one that
 * reaches its class; and the first that reaches it and carries messages
 * (rank: for the message). */
static int choose(tn_peer_t *p, unsigned cls, int rank)
{
    p->kind = cls == TN_REACH_SELF   ? TN_PEER_SELF
              : cls == TN_REACH_NODE ? TN_PEER_SHM
                                     : TN_PEER_NET;
    p->msg = NULL;
    for (int i = 0; i < tn_core.nxports; i++)
        if ((tn_core.xports[i].entry->reach & cls) &&
            (tn_core.xports[i].caps.flags & TN_XCAP_MSG)) {
            p->msg = &tn_core.xports[i];
            break;
        }
    for (int i = 0; i < tn_core.nxports; i++)
        if (tn_core.xports[i].entry->reach & cls) {
            p->xport = &tn_core.xports[i];
            return TERN_OK;
        }
    char built[128] = "";
    for (size_t i = 0; i < tn_xport_count(); i++)
        snprintf(built + strlen(built), sizeof(built) - strlen(built), "%s%s",
                 i ? ", " : "", tn_xport_entry(i)->name);
    if (cls == TN_REACH_NET)
        tn_error("the job spans %d nodes (or TERN_SHM=off), but this Tern was built "
                 "without a network transport (it has: %s): install libfabric-dev "
                 "and rebuild, or run all ranks on one node with shared memory",
                 tn_core.nnodes, built);
    else
        tn_error("no transport of this Tern (%s) reaches rank %d", built, rank);
    return TERN_ERR_UNSUPPORTED;
}

/* Fills the span's entries of rank r from its transport: mapped here
 * (self, shm: the fast path copies), or not (every access takes the slow
 * path). */
static void fill_peer(int r, const tn_seg_info_t *info)
{
    tn_peer_t *p = &tn_core.peers[r - tn_core.span_first];
    tern_peer_fast_t *f = &tn_core.fast[r];
    p->ctrl = NULL;
    p->static_mapped = 0;
    p->static_delta = 0;
    f->base = (uintptr_t)info->data_base;
    f->size = 0;
    f->delta = 0;
    f->copy_min = UINTPTR_MAX;
    tn_xport_map_t m;
    tn_core_xport_t *xp = p->xport;
    /* (The inline atomics rely on base and size being multiples of 64:
     * whole pages, as segments are; anything else takes the slow path.) */
    if ((xp->caps.flags & TN_XCAP_MAPPED) && !((info->data_base | info->size) & 63) &&
        xp->ops.peer_map(xp->x, r, &m) == TERN_OK) {
        f->size = (uintptr_t)info->size;
        f->delta = m.delta;
        f->copy_min = m.copy_min;
        p->ctrl = (char *)(uintptr_t)(info->data_base - info->ctrl_size + m.delta);
        p->static_mapped = info->static_size && m.static_mapped;
        p->static_delta = p->static_mapped ? m.static_delta : 0;
    }
}

/* The network transport as created offers the ordered unacknowledged
 * writes it planned (tn_xport_entry_t.unacked_plan): the job's record
 * size was agreed from the plans, so a transport that offered less would
 * make this rank choose another record form than its peers. */
static int check_unacked(uint32_t planned)
{
    for (int i = 0; i < tn_core.nxports; i++) {
        const tn_core_xport_t *xp = &tn_core.xports[i];
        if (!(xp->entry->reach & TN_REACH_NET) || !xp->entry->unacked_plan)
            continue;
        unsigned need = TN_XCAP_PUT_UNACKED | TN_XCAP_ORDER_PUT;
        size_t got = (xp->caps.flags & need) == need && xp->caps.inject >= 4
                         ? xp->caps.unacked
                         : 0;
        if (got != planned) {
            tn_error("internal: transport %s offers unacknowledged writes of %zu B, "
                     "but planned %u B before it was created",
                     xp->entry->name, got, planned);
            return TERN_ERR_MISMATCH;
        }
    }
    return TERN_OK;
}

/* What every rank takes from all the segment descriptions alike: the
 * collectives' record size, the job's smallest unacknowledged write
 * (tn_core.unacked_job); and the settings that must be the same on every
 * rank (the TN_CFG_JOB entries of base/cfg_vars.h: for example the
 * collectives' thresholds, from which each member derives the same
 * algorithm and sequence numbers; the Medium limit and shared-memory
 * queue size, from which the receive buffers and queues' layout follow;
 * TERN_SHM, which groups the ranks into nodes; the network credits and
 * provider settings; tests/mp/cfg_agree.cmake says what each one broke),
 * and what the network transport will use that no TERN_* variable covers
 * (xport_job: the provider it chose, a user's FI_* settings), else
 * TERN_ERR_CONFIG on every rank, after rank 0 and the first rank that
 * differs have listed theirs. */
static int agree_job(const tn_seg_info_t *all, int n, const char *xport_job)
{
    tn_core.unacked_job = all[0].unacked;
    for (int i = 1; i < n; i++)
        if (all[i].unacked < tn_core.unacked_job)
            tn_core.unacked_job = all[i].unacked;
    int r = 1;
    while (r < n && all[r].cfg_job == all[0].cfg_job)
        r++;
    if (r == n)
        return TERN_OK;
    int others = 0;
    for (int i = r; i < n; i++)
        others += all[i].cfg_job != all[0].cfg_job;
    char list[2560];
    tn_cfg_job_list(&tn_cfg, list, sizeof(list));
    size_t used = strlen(list);
    if (*xport_job)
        snprintf(list + used, sizeof(list) - used, " %s", xport_job);
    if (tn_core.rank == 0)
        tn_error("settings that must be the same on every rank differ: rank %d's "
                 "(and %d rank(s) in all) from rank 0's; set them alike in every "
                 "rank's environment%s. Rank 0 has: %s",
                 r, others,
                 *xport_job ? " (ofi_provider: the network provider chosen from "
                              "TERN_OFI_PROVIDER, FI_PROVIDER and the node's devices; "
                              "FI_*: libfabric's variables in force, - where unset)"
                            : "",
                 list);
    else if (tn_core.rank == r)
        tn_error("settings that must be the same on every rank differ from rank 0's; "
                 "rank %d has: %s",
                 r, list);
    /* Every rank is here: let both messages out before any rank's failed
     * start-up ends the job. */
    (void)tn_core.boot->ops->barrier(tn_core.boot);
    return TERN_ERR_CONFIG;
}

int tn_core_xports_init(const int *node_of, const int *view_of)
{
    int n = tn_core.size;
    tn_seg_info_t mine = {
        .data_base = (uint64_t)(uintptr_t)tn_core.seg.data,
        .size = tn_core.seg.size,
        .map_size = tn_core.seg.map_size,
        .ctrl_size = tn_core.seg.ctrl_size,
        .pid = (int32_t)getpid(),
        .fd = tn_core.seg.fd,
        .static_base = (uint64_t)(uintptr_t)tn_core.stat.base,
        .static_size = tn_core.stat.size,
        .static_fd = tn_core.stat.fd,
        .ptab_fd = -1,
    };
    /* Every rank's description, for this start-up only (the rows kept
     * are in the node-shared table): a table of this size goes back to
     * the system when freed. */
    size_t all_bytes = (size_t)n * sizeof(tn_seg_info_t);
    tn_seg_info_t *all = tn_core_tmp_alloc(all_bytes);
    int span = tn_core.span;
    tn_core.peers = calloc((size_t)span, sizeof(*tn_core.peers));
    tn_core.fast = malloc((size_t)n * sizeof(*tn_core.fast));
    int rc = TERN_ERR_NOMEM;
    if (!all || !tn_core.peers || !tn_core.fast)
        goto out;
    rc = tn_peertab_prepare(view_of, &mine.ptab_fd);
    if (rc != TERN_OK)
        goto out;
    /* This rank's largest ordered unacknowledged write, travelling with
     * its segment: every rank then knows the job's smallest. */
    for (size_t i = 0; i < tn_xport_count(); i++) {
        const tn_xport_entry_t *e = tn_xport_entry(i);
        if (created(e) && (e->reach & TN_REACH_NET) && e->unacked_plan) {
            size_t u = e->unacked_plan();
            mine.unacked = u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;
            break;
        }
    }
    /* The network transport's settings that must agree join the
     * fingerprint of the TN_CFG_JOB variables (FNV-1a continued). */
    char xport_job[512] = "";
    for (size_t i = 0; i < tn_xport_count(); i++) {
        const tn_xport_entry_t *e = tn_xport_entry(i);
        if (created(e) && (e->reach & TN_REACH_NET) && e->job_settings) {
            e->job_settings(xport_job, sizeof(xport_job));
            break;
        }
    }
    uint64_t fp = tn_cfg_job_fingerprint(&tn_cfg);
    for (const unsigned char *c = (const unsigned char *)xport_job; *c; c++)
        fp = (fp ^ *c) * 1099511628211ull;
    mine.cfg_job = (uint32_t)fp;
    rc = tn_core.boot->ops->allgather(tn_core.boot, &mine, sizeof(mine), all);
    if (rc != TERN_OK)
        goto out;
    rc = agree_job(all, n, xport_job);
    if (rc != TERN_OK)
        goto out;
    tn_core_static_agree(all);
    rc = tn_peertab_fill(all, node_of, view_of);
    if (rc != TERN_OK)
        goto out;
    tn_xport_job_t job = {
        .boot = tn_core.boot,
        .rank = tn_core.rank,
        .size = n,
        .node = node_of,
        .nnodes = tn_core.nnodes,
        .local_ranks = tn_core.local_ranks,
        .local_size = tn_core.local_size,
        .local_rank = tn_core.local_rank,
        .span_first = tn_core.span_first,
        .span = span,
        .segs = all,
        .map = tn_core.seg.map,
        .map_size = tn_core.seg.map_size,
        /* The progress thread uses only the network transport, which is
         * thread-safe whatever this says (core/progress.c, thread_step):
         * the shared-memory queues take no turns for it. */
        .threads = tn_core.thread_level == TERN_THREAD_MULTIPLE,
    };
    rc = create_all(&job);
    if (rc != TERN_OK)
        goto out;
    rc = check_unacked(mine.unacked);
    if (rc != TERN_OK)
        goto out;
    /* Every local peer holds its own mapping now, and the node's peer
     * table is written: the memfds can go. */
    rc = tn_core.boot->ops->barrier(tn_core.boot);
    if (rc != TERN_OK)
        goto out;
    tn_seg_close_fd(&tn_core.seg);
    tn_static_close_fd(&tn_core.stat);
    tn_peertab_close();
    /* Fast-path entries: mapped ranks are filled below, every other
     * takes the slow path. */
    for (int r = 0; r < n; r++)
        tn_core.fast[r] = (tern_peer_fast_t){.base = (uintptr_t)all[r].data_base,
                                             .copy_min = UINTPTR_MAX};
    /* The span's own entries, and the one entry of every network peer
     * outside it (a rank of another node). */
    for (int i = 0; i < span && rc == TERN_OK; i++) {
        int r = tn_core.span_first + i;
        rc = choose(&tn_core.peers[i], reach_of(r, node_of), r);
        if (rc == TERN_OK)
            fill_peer(r, &all[r]);
    }
    if (rc == TERN_OK && tn_core.nnodes > 1) {
        int other = 0; /* a rank of another node, for the message */
        while (node_of[other] == tn_core.node)
            other++;
        rc = choose(&tn_core.remote, TN_REACH_NET, other);
    }
    if (rc != TERN_OK)
        goto out;
    /* Incoming messages go to the active-message layer. */
    for (int i = 0; i < tn_core.nxports; i++)
        if (tn_core.xports[i].caps.flags & TN_XCAP_MSG)
            tn_core.xports[i].ops.set_recv(tn_core.xports[i].x, tn_am_recv, NULL);
    rc = setup_direct();
    if (rc != TERN_OK)
        goto out;
    /* Manual-progress transports move data only when polled: every wait
     * drives them. */
    if (tn_core.needs_poll)
        tn_wait_progress_hook = tn_core_progress;
    if (tn_core.npolled > 0 && tn_core.msg_nin > 0 && tn_cfg.net_poll_ns > 0) {
        /* A mixed job: node-local waits poll the network once per
         * TERN_NET_POLL_NS of spinning (base/wait.h, tn_wait_local_hook). */
        tn_wait_local_hook = tn_core_progress_local;
        tn_wait_net_hook = tn_core_progress_net;
        tn_wait_relax_hook = tn_core_wait_relax;
    } else if (tn_core.npolled > 0) {
        tn_wait_relax_hook = tn_core_wait_polled;
    } else if (tn_core.msg_nin > 0) {
        tn_wait_relax_hook = tn_core_wait_relax;
    }
    rc = tn_core_progress_start();
    tn_core_direct_wait_update();
out:
    tn_core_tmp_free(all, all_bytes);
    return rc;
}

void tn_core_xports_destroy(void)
{
    tn_core_progress_stop();
    tn_wait_progress_hook = NULL;
    tn_wait_relax_hook = NULL;
    tn_wait_local_hook = NULL;
    tn_wait_net_hook = NULL;
    tn_core.msg_nin = 0;
    tn_core.msg_in = NULL;
    tn_core.npolled = 0;
    tn_core_direct_wait_update(); /* 0: no hook */
    free(tn_core.polled);
    tn_core.polled = NULL;
    for (int i = 0; tn_core.peers && i < tn_core.span; i++)
        tn_core.peers[i].msgq = NULL;
    tn_core.remote.msgq = NULL;
    for (int i = tn_core.nxports; i-- > 0;)
        tn_core.xports[i].ops.destroy(tn_core.xports[i].x);
    free(tn_core.xports);
    tn_core.xports = NULL;
    tn_core.nxports = 0;
    free(tn_core.xport_ctrl);
    tn_core.xport_ctrl = NULL;
    tn_core.needs_poll = 0;
}

void tn_core_xports_report(void)
{
    char line[256];
    size_t off = 0;
    line[0] = '\0';
    for (int i = 0; i < tn_core.nxports && off + 32 < sizeof(line); i++) {
        int n = 0;
        for (int r = 0; r < tn_core.size; r++)
            n += tn_core_peer(r)->xport == &tn_core.xports[i];
        off += (size_t)snprintf(line + off, sizeof(line) - off, "%s%s (%d rank%s)",
                                i ? ", " : "", tn_core.xports[i].ops.name, n,
                                n == 1 ? "" : "s");
    }
    tn_info("transports: %s", line);
    for (int i = 0; i < tn_core.nxports; i++) {
        tn_core_xport_t *xp = &tn_core.xports[i];
        if (xp->ops.summary == tn_xport_no_summary)
            continue; /* nothing beyond its name */
        char line[256];
        xp->ops.summary(xp->x, line, sizeof(line));
        tn_info("%s", line);
    }
}

int tern_copy_info(int rank, tern_copy_info_t *out)
{
    TN_CHECK_INIT("tern_copy_info");
    if (!out)
        return tn_core_fail(TERN_ERR_INVALID, "tern_copy_info", "out is NULL");
    if (rank < 0 || rank >= tn_core.size)
        return tn_core_fail(TERN_ERR_RANK, "tern_copy_info", "rank %d is not in [0, %d)",
                            rank, tn_core.size);
    /* The first transport with a copy policy answers for every rank. */
    for (int i = 0; i < tn_core.nxports; i++) {
        tn_core_xport_t *xp = &tn_core.xports[i];
        if (xp->ops.copy_info(xp->x, rank, out) == TERN_OK)
            return TERN_OK;
    }
    return tn_core_fail(TERN_ERR_UNSUPPORTED, "tern_copy_info",
                        "no transport of this job has a copy policy");
}
