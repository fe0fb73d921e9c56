/* Start-up exchange of every rank's CPU set (and of each node leader's
 * copy calibration), made when the shm transport is created; from them
 * each rank's distance class to every local peer and the copy policy that
 * tern_copy_ follows (docs/design/topology.md). */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern/status.h>
#include <tern/topo.h>

#include "base/cfg.h"
#include "base/log.h"
#include "base/time.h"
#include "xport/shm/shm_copy.h"

#define TP_VERSION   1u
#define TP_CPU_WORDS 32   /* CPUs 0..2047 travel; a set beyond is cut (flag) */
#define TP_CALIB     0x1u /* hot/cold below are the sender's calibration */
#define TP_CUT       0x2u /* the sender has CPUs above 2047 */

/* One rank's contribution; the same size on every rank (the bootstrap
 * allgather needs that), 296 bytes. */
typedef struct tp_blob {
    uint32_t version;
    uint32_t flags;
    uint64_t cpus[TP_CPU_WORDS]; /* OS indexes of the PUs it may run on */
    int32_t isa;
    int32_t reserved;
    uint64_t hot, cold; /* crossovers, SIZE_MAX for never */
    uint64_t hot_islands;
} tp_blob_t;
_Static_assert(sizeof(tp_blob_t) == 8 + 8 * TP_CPU_WORDS + 8 + 24, "no padding");
/* The public classes are the internal ones. */
_Static_assert((int)TERN_DIST_SAME_L3 == (int)TN_DIST_L3 &&
                   (int)TERN_DIST_SAME_NUMA == (int)TN_DIST_NUMA &&
                   (int)TERN_DIST_OTHER_NUMA == (int)TN_DIST_XNUMA &&
                   (int)TERN_DIST_OTHER_PACKAGE == (int)TN_DIST_XPKG,
               "distance classes");

/* The state this file fills in place (shm_copy.h). */
static tn_shm_copy_state_t *const st = &tn_shm_copy_state;

static void to_words(hwloc_const_bitmap_t set, tp_blob_t *b)
{
    int i;
    hwloc_bitmap_foreach_begin(i, set)
    {
        if (i >= 64 * TP_CPU_WORDS) {
            b->flags |= TP_CUT;
            break;
        }
        b->cpus[i / 64] |= 1ull << (i % 64);
    }
    hwloc_bitmap_foreach_end();
}

static void from_words(const tp_blob_t *b, hwloc_bitmap_t set)
{
    hwloc_bitmap_zero(set);
    for (int w = 0; w < TP_CPU_WORDS; w++)
        for (int k = 0; k < 64; k++)
            if (b->cpus[w] >> k & 1)
                hwloc_bitmap_set(set, (unsigned)(w * 64 + k));
}

/* This rank's CPUs: its affinity (or, in a simulated topology, ternrun's
 * plan for it). */
static void my_cpus(const tn_topo_t *t, hwloc_bitmap_t out)
{
    if (t) {
        tn_topo_my_cpuset(t, out);
        return;
    }
    cpu_set_t s;
    hwloc_bitmap_zero(out);
    if (sched_getaffinity(0, sizeof(s), &s) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &s))
                hwloc_bitmap_set(out, (unsigned)c);
}

static const char *thr_text(size_t v, char *buf, size_t len)
{
    if (v == TN_COPY_NEVER)
        snprintf(buf, len, "never");
    else if (v == 0)
        snprintf(buf, len, "always");
    else
        tn_format_bytes(v, buf, len);
    return buf;
}

/* ", and at 2 MiB" for the islands of a policy, "" without. */
static const char *islands_text(uint64_t m)
{
    static char buf[160];
    size_t off = 0;
    buf[0] = '\0';
    for (int b = 0; b < 64 && off + 24 < sizeof(buf); b++)
        if (m >> b & 1) {
            char s[32];
            tn_format_bytes((size_t)1 << b, s, sizeof(s));
            off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s",
                                    off ? ", " : ", and at ", s);
        }
    return buf;
}

/* Ranks of this node whose CPU sets span several L3 caches (or domains),
 * so that their distance to peers depends on the scheduler: warned about
 * once per node, by its leader, where the machine has such choices. */
static void warn_unplaced(const tn_xport_job_t *job, const tn_topo_t *t,
                          const tp_blob_t *all)
{
    if (!t || (t->nl3 <= 1 && t->nnuma <= 1) || job->local_rank != 0)
        return;
    char list[256], cpus[64] = "";
    size_t off = 0;
    int n = 0;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    for (int i = 0; set && i < job->local_size; i++) {
        int r = job->local_ranks[i];
        from_words(&all[r], set);
        if (tn_topo_is_placed(t, set))
            continue;
        if (n++ == 0)
            hwloc_bitmap_list_snprintf(cpus, sizeof(cpus), set);
        if (off + 16 < sizeof(list))
            off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%d",
                                    off ? "," : "", r);
    }
    hwloc_bitmap_free(set);
    if (n == 0)
        return;
    tn_warn("%d rank%s of this node (%s%s) %s not bound within one %s (rank %d may run "
            "on CPUs %s): %s distance to peers is taken as the widest %s CPU set "
            "allows, and copies with %s are chosen for that. Bind ranks (ternrun "
            "--bind-to core) for topology-aware copies",
            n, n == 1 ? "" : "s", list, off + 16 >= sizeof(list) ? ",..." : "",
            n == 1 ? "is" : "are", t->nl3 > 1 ? "L3 cache" : "NUMA domain", atoi(list),
            cpus, n == 1 ? "its" : "their", n == 1 ? "its" : "their",
            n == 1 ? "it" : "them");
}

static void report(const tn_xport_job_t *job, const tn_topo_t *t, hwloc_const_bitmap_t me,
                   int counts[TN_DIST_COUNT], double seconds)
{
    char a[32], b[32], cpus[128], place[256];
    hwloc_bitmap_list_snprintf(cpus, sizeof(cpus), me);
    snprintf(place, sizeof(place), "cpus %s", cpus);
    if (t) {
        hwloc_bitmap_t d = hwloc_bitmap_alloc();
        char dl[64] = "?";
        if (d) {
            tn_topo_numa_of(t, me, d);
            hwloc_bitmap_list_snprintf(dl, sizeof(dl), d);
            hwloc_bitmap_free(d);
        }
        snprintf(place + strlen(place), sizeof(place) - strlen(place), ", NUMA %s%s", dl,
                 tn_topo_is_placed(t, me) ? "" : " (not bound within one L3)");
    }
    int verbose = job->rank == 0 || tn_log_level >= TN_LOG_DEBUG;
    if (!verbose || tn_log_level < TN_LOG_INFO)
        return;
    tn_info("place: %s (from this rank's CPU set%s)", place,
            t && !t->thissystem ? " planned by ternrun: simulated topology" : "");
    static const char *const modes[] = {"auto", "on", "off"};
    if (st->policy.mode == TN_SHM_TOPO_AUTO)
        tn_info("shm copies: TERN_SHM_TOPO=auto, %s non-temporal kernel; non-temporal "
                "from %s with the destination in this core's caches (self, same-L3 "
                "peers, gets)%s and from %s with it elsewhere (puts to peers outside "
                "this L3); calibration %s",
                tn_copy_isa_name(st->policy.isa), thr_text(st->calib.hot, a, sizeof(a)),
                islands_text(st->calib.hot_islands),
                thr_text(st->calib.cold < st->calib.hot ? st->calib.cold : st->calib.hot,
                         b, sizeof(b)),
                st->origin);
    else
        tn_info("shm copies: TERN_SHM_TOPO=%s: %s", modes[st->policy.mode],
                st->policy.mode == TN_SHM_TOPO_ON ? "non-temporal stores for every copy"
                                                  : "regular copies only");
    char line[256];
    size_t off = 0;
    line[0] = '\0';
    for (int c = TN_DIST_L3; c < TN_DIST_COUNT; c++)
        if (counts[c] && off + 48 < sizeof(line))
            off += (size_t)snprintf(line + off, sizeof(line) - off,
                                    "%s%d %s (puts non-temporal from %s)",
                                    off ? ", " : "", counts[c], tn_dist_name(c),
                                    thr_text(st->policy.put[c], a, sizeof(a)));
    int leader = job->local_rank == 0 && st->policy.mode == TN_SHM_TOPO_AUTO;
    tn_info("local peers: %s; topology step %.1f ms (CPU set exchange%s)",
            off ? line : "none", seconds * 1e3,
            !leader                                   ? ""
            : strncmp(st->origin, "measured now", 12) ? ", calibration from the cache"
                                                      : ", calibration measured");
}

int tn_shm_copy_setup(const tn_xport_job_t *job, const uintptr_t *lo)
{
    double t0 = tn_time_s();
    const tn_topo_t *t = tn_topo_get();
    if (!t && (getenv("HWLOC_XMLFILE") || getenv("HWLOC_SYNTHETIC")))
        return TERN_ERR_CONFIG; /* the bad topology was named when loading it */
    int n = job->size;
    tp_blob_t mine;
    memset(&mine, 0, sizeof(mine));
    mine.version = TP_VERSION;
    hwloc_bitmap_t me = hwloc_bitmap_alloc(), peer = hwloc_bitmap_alloc();
    tp_blob_t *all = calloc((size_t)n, sizeof(*all));
    tn_shm_copy_peer_t *peers = calloc((size_t)job->span, sizeof(*peers));
    int rc = TERN_OK;
    if (!me || !peer || !all || !peers) {
        rc = TERN_ERR_NOMEM;
        goto out;
    }
    my_cpus(t, me);
    to_words(me, &mine);

    /* One rank per node measures (or reads the cache) while the others
     * wait in the exchange: every rank of a node gets the same table. */
    int mode = (int)tn_cfg.shm_topo;
    if (mode == TN_SHM_TOPO_AUTO && job->local_rank == 0) {
        tn_copy_calib_obtain((int)tn_cfg.shm_calibrate, tn_cfg.shm_calib_dir, t,
                             &st->calib, st->origin, sizeof(st->origin));
        mine.flags |= TP_CALIB;
        mine.isa = st->calib.isa;
        mine.hot = st->calib.hot;
        mine.cold = st->calib.cold;
        mine.hot_islands = st->calib.hot_islands;
    }
    rc = job->boot->ops->allgather(job->boot, &mine, sizeof(mine), all);
    if (rc != TERN_OK)
        goto out;
    for (int r = 0; r < n; r++)
        if (all[r].version != TP_VERSION) {
            tn_error("rank %d runs a Tern with another start-up format (%u, here %u): "
                     "run one build of Tern in a job",
                     r, all[r].version, TP_VERSION);
            rc = TERN_ERR_BOOT;
            goto out;
        }
    const tp_blob_t *lead = &all[job->local_ranks[0]];
    if (mode == TN_SHM_TOPO_AUTO && job->local_rank != 0) {
        memset(&st->calib, 0, sizeof(st->calib));
        st->calib.isa = lead->isa;
        st->calib.hot = lead->hot;
        st->calib.cold = lead->cold;
        st->calib.hot_islands = lead->hot_islands;
        snprintf(st->origin, sizeof(st->origin), "from local rank 0 (rank %d)",
                 job->local_ranks[0]);
    }
    tn_copy_policy_make(mode, mode == TN_SHM_TOPO_AUTO ? &st->calib : NULL, &st->policy);

    int counts[TN_DIST_COUNT] = {0};
    for (int r = job->span_first; r < job->span_first + job->span; r++) {
        tn_shm_copy_peer_t *p = &peers[r - job->span_first];
        if (!lo[r - job->span_first]) {
            p->dist = -1; /* not mapped: never copied by tern_copy_ */
            continue;
        }
        p->lo = lo[r - job->span_first];
        p->size = (uintptr_t)job->segs[r].size;
        if (r == job->rank) {
            p->dist = TN_DIST_SELF;
        } else if (t) {
            from_words(&all[r], peer);
            p->dist = (int)tn_topo_distance(t, me, peer);
        } else {
            p->dist = TN_DIST_L3; /* no topology: assume the nearest */
        }
        counts[p->dist]++;
    }
    tn_shm_copy_state.peers = peers;
    tn_shm_copy_state.first = job->span_first;
    tn_shm_copy_state.npeers = job->span;
    peers = NULL;
    warn_unplaced(job, t, all);
    report(job, t, me, counts, tn_time_s() - t0);
out:
    hwloc_bitmap_free(me);
    hwloc_bitmap_free(peer);
    free(all);
    free(peers);
    return rc;
}

void tn_shm_copy_teardown(void)
{
    free(tn_shm_copy_state.peers);
    tn_shm_copy_state.peers = NULL;
    tn_shm_copy_state.npeers = 0;
}
