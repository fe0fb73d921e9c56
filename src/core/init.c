/* tern_init / tern_finalize: configuration, bootstrap, segment, cross-map,
 * peer table - and the queries about the job. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cfg.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/stats.h"
#include "base/time.h"
#include "base/topo.h"
#include "base/wait.h"
#include "core/am.h"
#include "core/atomic.h"
#include "core/vis.h"
#include "core/coll.h"
#include "core/core.h"
#include "core/event.h"
#include "mem/validate.h"

tn_core_t tn_core = {.rank = TN_RANK_NONE, .lock = PTHREAD_MUTEX_INITIALIZER};
tern_fast_state_t tern_fast_;

/* Start-up's local steps end at points where every rank agrees on the
 * outcome (one allgather of statuses): when any rank failed, all of them
 * return the first failing rank's status, so that the program decides and
 * no rank is left waiting. *agreed is set when the result is a failure
 * that every rank knows of (the job need not be ended). */
static int agree(int rc, int *agreed)
{
    int *all = calloc((size_t)tn_core.size, sizeof(*all));
    *agreed = 0;
    if (!all)
        return rc != TERN_OK ? rc : TERN_ERR_NOMEM;
    int grc = tn_core.boot->ops->allgather(tn_core.boot, &rc, sizeof(rc), all);
    if (grc == TERN_OK) {
        int mine = rc;
        for (int r = 0; r < tn_core.size; r++)
            if (all[r] != TERN_OK) {
                if (mine == TERN_OK) /* a failing rank has said why */
                    tn_error("tern_init: rank %d could not start (%s), so no rank "
                             "starts",
                             r, tern_strerror(all[r]));
                rc = all[r];
                *agreed = 1;
                break;
            }
    } else if (rc == TERN_OK) {
        rc = grc;
    }
    free(all);
    return rc;
}

/* After the job is joined, a failure that the ranks did not agree on
 * would leave the others waiting in a collective: end the whole job (a
 * single rank just returns). */
static int init_fail(int status, const char *what)
{
    if (tn_core.boot && tn_core.boot->size > 1) {
        char msg[256];
        snprintf(msg, sizeof(msg), "tern_init failed: %s: %s", what,
                 tern_strerror(status));
        tn_core.boot->ops->abort(tn_core.boot, 1, msg);
    }
    return status;
}

/* Teardown in reverse order of start-up. */
static void release_all(void)
{
    tern_fast_.npeers = 0;
    tern_fast_.signal_cpu = 0;
    tern_fast_.peer = NULL;
    tn_teams_fini();
    tn_core_xports_destroy();
    tn_peertab_destroy();
    tn_am_fini();
    tn_team_destroy(&tn_core.world);
    tn_seg_destroy(&tn_core.seg);
    tn_heap_fini(&tn_core.heap);
    free(tn_core.fast);
    free(tn_core.peers);
    free(tn_core.local_ranks);
    free(tn_core.node_leaders);
    tn_core.node_leaders = NULL;
    memset(&tn_core.view, 0, sizeof(tn_core.view));
    memset(&tn_core.remote, 0, sizeof(tn_core.remote));
    tn_core.span = tn_core.span_first = 0;
    tn_core.fast = NULL;
    tn_core.peers = NULL;
    tn_core.local_ranks = NULL;
    memset(&tn_core.ctrl, 0, sizeof(tn_core.ctrl));
    if (tn_core.boot)
        tn_boot_destroy(tn_core.boot);
    tn_core.boot = NULL;
}

static int node_oversubscribed(void)
{
    return tn_core.host_ranks > tn_topo_job_pus(tn_topo_get());
}

/* The control area holds what start-up claimed in tn_core.ctrl (the world
 * team's barrier flags), rounded up to the segment's page size. */
static int create_segment(void)
{
    size_t pool = tn_teams_pool_size(); /* team slots and rings */
    tn_seg_opts_t o = {
        .size = tn_cfg.segment_size + pool,
        .extra = pool,
        /* the rings exist only in jobs across nodes (tn_teams_pool_size) */
        .extra_names =
            tn_core.nnodes > 1 && tn_cfg.coll_eager
                ? "TERN_COLL_WORLD_RING, TERN_COLL_EAGER x TERN_COLL_EAGER_DEPTH"
                : NULL,
        .ctrl_size = tn_core.ctrl.used,
        /* what makes it large: the shared-memory message queues (one per
         * rank of the largest node), xport/shm/shm_msg.c */
        .ctrl_names = TN_CFG_CTRL_NAMES,
        .hugepages = tn_cfg.hugepages,
        .faultin = tn_cfg.segment_faultin,
        .threads = (int)tn_cfg.faultin_threads,
        .local_ranks = tn_core.host_ranks,
    };
    int rc = tn_seg_create(&o, &tn_core.seg);
    if (rc != TERN_OK)
        return rc;
    return tn_heap_init(&tn_core.heap, tn_core.seg.size);
}

static void report(double t_begin, double t_boot_end, double t_map)
{
    tern_startup_report_t *r = &tn_core.report;
    memset(r, 0, sizeof(*r));
    r->t_boot = t_boot_end - t_begin;
    r->t_segment = tn_core.seg.t_create;
    r->t_faultin = tn_core.seg.t_faultin;
    r->t_crossmap = t_map;
    r->t_total = tn_time_s() - t_begin;
    r->segment_size = tn_core.seg.size;
    r->page_size = tn_core.seg.page_size;
    r->faultin_threads = tn_core.seg.faultin_threads;
    static const char *const modes[] = {"parallel", "serial", "none"};
    snprintf(r->faultin_mode, sizeof(r->faultin_mode), "%s",
             modes[tn_cfg.segment_faultin]);
    snprintf(r->page_note, sizeof(r->page_note), "%s", tn_core.seg.page_note);
    snprintf(r->boot_name, sizeof(r->boot_name), "%s", tn_core.boot->ops->name);
    if (tn_log_level >= TN_LOG_INFO &&
        (tn_core.rank == 0 || tn_log_level >= TN_LOG_DEBUG)) {
        tn_core_xports_report();
        char sz[32];
        tn_cfg_format_size(r->segment_size, sz, sizeof(sz));
        tn_info("started %d rank(s) on %d node(s) via %s; segment %s per rank, "
                "%zu KiB pages (%s)",
                tn_core.size, tn_core.nnodes, r->boot_name, sz, r->page_size / 1024,
                r->page_note);
        tn_info(
            "start-up: boot %.3f s, segment %.3f s, fault-in %.3f s (%s, %d "
            "thread(s), %.2f GB/s), cross-map %.3f s, total %.3f s",
            r->t_boot, r->t_segment, r->t_faultin, r->faultin_mode, r->faultin_threads,
            r->t_faultin > 0 ? (double)tn_core.seg.map_size / r->t_faultin / 1e9 : 0.0,
            r->t_crossmap, r->t_total);
        char seg[400];
        tn_seg_placement_text(&tn_core.seg.placement, seg, sizeof(seg));
        tn_info("segment memory: TERN_SEGMENT_NUMA %s; pages: %s", tn_core.seg.numa_text,
                seg);
        tn_core_memory_log();
    }
}

/* At exit() with the job up (no tern_finalize): tell the launcher before
 * the transports' endpoints close (the libraries' destructors run after
 * this handler), with the number of errors this rank logged. Peers whose
 * transfers to this rank then fail and exit with an error have logged
 * some: the launcher names this rank, not them (docs/design/launcher.md).
 * The progress thread stops first: it would go on answering the peers'
 * requests while the process ends, so that they write to this rank again
 * up to the moment its connections close, the writes that libfabric
 * 1.17's ofi_rxm crashes on when they fail (docs/design/progress-thread.md,
 * "The crash"). */
static void leaving_with(int status)
{
    if (!tn_core.initialized || !tn_core.boot)
        return;
    tn_core_progress_stop();
    /* With a non-zero status the bootstrap may wait here until the
     * launcher's signal ends this process, before the C library flushes
     * its streams: flush them now, or a program's buffered output is lost. */
    if (status != 0)
        fflush(NULL);
    unsigned long e = __atomic_load_n(&tn_log_errors, __ATOMIC_RELAXED);
    tn_boot_leaving(tn_core.boot, e > INT_MAX ? INT_MAX : (int)e, status);
}

/* on_exit gives the status: with a non-zero one the bootstrap may keep
 * this rank (and its endpoints) alive until the launcher ends the job
 * (boot.h leaving). */
#ifdef __GLIBC__
static void leaving_at_exit(int status, void *arg)
{
    (void)arg;
    leaving_with(status & 0xff);
}
#else
static void leaving_at_exit(void)
{
    leaving_with(-1);
}
#endif

tern_status_t tern_init_abi_(int *argc, char ***argv, int thread_level, unsigned abi)
{
    if (abi != TERN_ABI_VERSION)
        return tn_core_fail(TERN_ERR_INVALID, "tern_init",
                            "this program was compiled against Tern ABI %u, but the "
                            "library it runs with is ABI %u (Tern %d.%d.%d): rebuild "
                            "the program against this Tern's tern.h",
                            abi, TERN_ABI_VERSION, TERN_VERSION_MAJOR, TERN_VERSION_MINOR,
                            TERN_VERSION_PATCH);
    if (tn_core.initialized)
        return tn_core_fail(TERN_ERR_INVALID, "tern_init", "Tern is already initialized");
    if (tn_core.rank == TN_RANK_FINALIZED)
        return tn_core_fail(TERN_ERR_INVALID, "tern_init",
                            "Tern cannot be initialized again after tern_finalize");
    if (thread_level < TERN_THREAD_SINGLE || thread_level > TERN_THREAD_MULTIPLE)
        return tn_core_fail(TERN_ERR_INVALID, "tern_init",
                            "thread level %d is not one of TERN_THREAD_*", thread_level);
    double t0 = tn_time_s();
    size_t rss0 = tn_mem_rss_anon();
    /* Parse and validate, as tern-info -c does. A rank whose configuration
     * fails still joins the job, so that all ranks agree on the failure
     * instead of waiting for it. */
    int crc = tn_cfg_check(&tn_cfg);
    tn_core.error_abort = tn_cfg.error_mode == TN_ERROR_MODE_ABORT;
    tn_core.thread_level = thread_level;
    tn_core_effects_update();
    tn_wait_policy.mode = tn_cfg.wait_mode;
    tn_wait_policy.spin_count = tn_cfg.spin_count;
    tn_wait_policy.yield_count = tn_cfg.yield_count;
    tn_wait_policy.spin_ns = tn_cfg.spin_us > 0 ? (uint64_t)tn_cfg.spin_us * 1000 : 0;
    tn_wait_policy.net_ticks =
        tn_cfg.net_poll_ns > 0 ? tn_wait_ticks_of_ns((uint64_t)tn_cfg.net_poll_ns) : 0;
    /* Every step polls for 256 intervals after network traffic: a reply
     * over tcp comes back well within that (a round trip 12-75 us here). */
    tn_wait_policy.net_quiet_ticks = tn_wait_policy.net_ticks * 256;

    int rc = tn_boot_create(tn_cfg.boot_timeout, &tn_core.boot);
    if (rc != TERN_OK)
        return crc != TERN_OK ? crc : rc;
    tn_core.rank = tn_core.boot->rank;
    tn_core.size = tn_core.boot->size;
    tn_log_set_rank(tn_core.rank);
    int agreed = 0;
    int *node_of = NULL, *view_of = NULL; /* each rank's node, until the
                                             node's peer table holds them */
    rc = crc;
    if (rc == TERN_OK && *tn_cfg.trace && tn_trace_open(tn_cfg.trace, tn_core.rank) != 0)
        rc = TERN_ERR_CONFIG;
    tn_stats_on = (int)tn_cfg.stats;
    rc = agree(rc, &agreed);
    if (rc != TERN_OK)
        goto fail;
    rc = tn_core_build_node_map(&node_of, &view_of);
    if (rc != TERN_OK)
        goto fail;
    tn_wait_policy.oversubscribed = node_oversubscribed();
    tn_core_direct_wait_update();
    /* The program's global variables move into shared memory now, before
     * Tern starts a thread that could write one of them (setenv's
     * environ, in the program's bss when it refers to it). */
    tn_core_static_prepare();
    /* A transport's fixed start-up cost (loading libfabric) overlaps the
     * segment's creation. */
    tn_xport_prepare(TN_REACH_SELF | TN_REACH_NODE |
                     (tn_core.nnodes > 1 ? TN_REACH_NET : 0));
    double t_boot = tn_time_s();

    /* Every claim on the control area is made here, before the segment
     * exists, in the same order on every rank. */
    rc = tn_team_world_plan(&tn_core.world, &tn_core.ctrl);
    if (rc == TERN_OK)
        rc = tn_core_xports_plan(&tn_core.ctrl);
    if (rc == TERN_OK)
        tn_acc_plan(&tn_core.ctrl);
    if (rc == TERN_OK) /* last: a rank that claims none shifts no other claim */
        tn_ad_mbox_plan(&tn_core.ctrl);
    if (rc != TERN_OK)
        goto fail;
    rc = agree(create_segment(), &agreed);
    if (rc != TERN_OK)
        goto fail;
    double t_map0 = tn_time_s();
    rc = tn_core_xports_init(node_of, view_of);
    free(node_of);
    free(view_of);
    node_of = view_of = NULL;
    if (rc == TERN_OK) /* before any peer may write a team flag */
        rc = tn_teams_init();
    if (rc != TERN_OK)
        goto fail;
    double t_map = tn_time_s() - t_map0;
    /* Tern's own active-message handlers (atomics and accumulate by
     * message, packed non-contiguous puts), before the barrier below lets
     * any peer send. Only a job with network peers sends to them (a node's
     * ranks reach each other's memory directly; TERN_SHM=off keeps one
     * node, so the node count alone does not say it); registering makes
     * every wait drive progress, which shared memory alone does not need. */
    for (int r = 0; r < tn_core.size; r++)
        if (tn_core_peer(r)->kind == TN_PEER_NET) {
            rc = tn_am_done_init();
            tn_ad_am_init();
            tn_acc_am_init();
            tn_vis_am_init();
            tn_coll_am_init();
            tn_signal_am_init();
            tn_pagg_init();
            break;
        }
    if (rc != TERN_OK)
        goto fail;

    rc = tn_core.boot->ops->init_done(tn_core.boot);
    if (rc == TERN_OK)
        rc = tn_core.boot->ops->barrier(tn_core.boot);
    if (rc != TERN_OK)
        goto fail;
    if (tn_stats_on) /* count fast-path copies in tern_copy_ */
        for (int r = 0; r < tn_core.size; r++)
            tn_core.fast[r].copy_min = 0;
    tern_fast_.peer = tn_core.fast;
    /* Across nodes a signal word's updates all go through one atomic
     * domain (core/signal.c), which may use the network. */
    tern_fast_.signal_cpu = tn_core.nnodes <= 1;
    tern_fast_.npeers = (uint32_t)tn_core.size;
    tn_core.initialized = 1;
    static int leaving_set; /* tern_init runs at most once per process */
    if (!leaving_set++)
#ifdef __GLIBC__
        on_exit(leaving_at_exit, NULL);
#else
        atexit(leaving_at_exit);
#endif
    /* Start-up's exchanges (every rank's descriptions, CPU sets, the
     * bootstrap's copies of them) were freed but their heap pages stay
     * resident, in proportion to the job: give them back. */
    malloc_trim(0);
    tn_core.init_growth = tn_mem_growth(rss0);
    report(t0, t_boot, t_map);
    return TERN_OK;

fail:
    free(node_of);
    free(view_of);
    if (!agreed)
        rc = init_fail(rc, "start-up could not complete");
    else /* every rank leaves the job, as after tern_finalize */
        tn_core.boot->ops->fini(tn_core.boot);
    release_all();
    tn_core.rank = TN_RANK_NONE;
    tn_core.size = 0;
    return rc;
}

/* TERN_STATS: this rank's table, and the job's sum from rank 0 (one
 * allgather through the bootstrap, which works under every launcher). */
static int report_stats(void)
{
    tn_stats_t mine, job;
    tn_stats_sum(&mine);
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "tern[%d@%s] stats:", tn_core.rank, tn_log_host());
    tn_stats_print(stderr, prefix, &mine);
    tn_stats_t *all = calloc((size_t)tn_core.size, sizeof(*all));
    if (!all)
        return TERN_ERR_NOMEM;
    int rc = tn_core.boot->ops->allgather(tn_core.boot, &mine, sizeof(mine), all);
    if (rc == TERN_OK && tn_core.rank == 0) {
        memset(&job, 0, sizeof(job));
        for (int r = 0; r < tn_core.size; r++)
            tn_stats_add(&job, &all[r]);
        snprintf(prefix, sizeof(prefix), "tern[job of %d] stats:", tn_core.size);
        tn_stats_print(stderr, prefix, &job);
    }
    fflush(stderr);
    free(all);
    return rc;
}

tern_status_t tern_finalize(void)
{
    TN_CHECK_INIT("tern_finalize");
    TN_NOT_IN_HANDLER("tern_finalize");
    int rc = tn_ctx_fini();
    /* Every Request sent before is handled before any rank leaves the
     * barrier and closes its endpoints (tn_am_quiesce). */
    int brc = tn_am_quiesce("tern_finalize");
    if (rc == TERN_OK)
        rc = brc;
    brc = tern_barrier();
    if (rc == TERN_OK)
        rc = brc;
    /* Every rank's last network writes (the barrier's flags) must have
     * landed before any endpoint closes: drain the acknowledged ones, then
     * agree through the launcher, which does not need the network
     * transport (an unacknowledged flag has landed once its reader left
     * the barrier, before the launcher's barrier). */
    int drc = tn_team_drain(&tn_core.world);
    if (rc == TERN_OK)
        rc = drc;
    drc = tn_teams_drain();
    if (rc == TERN_OK)
        rc = drc;
    if (tn_stats_on) {
        drc = report_stats();
        if (rc == TERN_OK)
            rc = drc;
    }
    drc = tn_core.boot->ops->barrier(tn_core.boot);
    if (rc == TERN_OK)
        rc = drc;
    tn_core_lock();
    tn_core.initialized = 0;
    tn_core_unlock();
    if (tn_core.boot) {
        int frc = tn_core.boot->ops->fini(tn_core.boot);
        if (rc == TERN_OK)
            rc = frc;
    }
    release_all();
    tn_event_fini();
    tn_ad_agg_fini();
    tn_pagg_fini();
    tn_ad_mbox_fini();
    tn_stats_fini();
    tn_stats_on = 0;
    tn_trace_close();
    tn_core.rank = TN_RANK_FINALIZED;
    tn_core.size = 0;
    return rc;
}

void tern_abort(int exit_code, const char *msg)
{
    /* 0 is passed on: the job ends with status 0 where the launcher allows
     * it (ternrun, no launcher; OpenSHMEM's shmem_global_exit(0)). */
    if (tn_core.boot)
        tn_core.boot->ops->abort(tn_core.boot, exit_code, msg);
    tn_fatal(exit_code ? exit_code : 1, "job aborted: %s", msg ? msg : "(no message)");
}

int tern_initialized(void)
{
    return tn_core.initialized;
}
int tern_rank(void)
{
    return tn_core.initialized ? tn_core.rank : -1;
}
int tern_size(void)
{
    return tn_core.initialized ? tn_core.size : 0;
}
int tern_thread_level(void)
{
    return tn_core.thread_level;
}
int tern_local_rank(void)
{
    return tn_core.initialized ? tn_core.view.local_rank : -1;
}
int tern_local_size(void)
{
    return tn_core.initialized ? tn_core.view.local_size : 0;
}
int tern_node_count(void)
{
    return tn_core.initialized ? tn_core.view.nnodes : 0;
}

int tern_node_of(int rank)
{
    if (!tn_core.initialized || rank < 0 || rank >= tn_core.size)
        return -1;
    return tn_core_info(rank)->view_node;
}

tern_status_t tern_startup_report(tern_startup_report_t *out)
{
    TN_CHECK_INIT("tern_startup_report");
    if (!out)
        return tn_core_fail(TERN_ERR_INVALID, "tern_startup_report", "out is NULL");
    *out = tn_core.report;
    return TERN_OK;
}
