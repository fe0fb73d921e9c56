/* Start-up exchange of every rank's CPU set (and of each node leader's
 * copy calibration); from them each rank's distance class to every local
 * peer and the copy thresholds that follow (docs/design/topology.md). */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern/topo.h>

#include "base/cfg.h"
#include "base/log.h"
#include "base/time.h"
#include "core/copy.h"
#include "core/core.h"

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

static tn_copy_policy_t policy;
static tn_copy_calib_t calib;
static char calib_origin[768];

const tn_copy_policy_t *tn_copy_policy_current(void)
{
    return &policy;
}

const tn_copy_calib_t *tn_copy_calib_current(const char **origin)
{
    if (origin)
        *origin = calib_origin;
    return &calib;
}

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
static void warn_unplaced(const tn_topo_t *t, const tp_blob_t *all)
{
    if (!t || (t->nl3 <= 1 && t->nnuma <= 1) || tn_core.local_rank != 0)
        return;
    char list[256], cpus[64] = "";
    size_t off = 0;
    int n = 0;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    for (int i = 0; set && i < tn_core.local_size; i++) {
        int r = tn_core.local_ranks[i];
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

static void report(const tn_topo_t *t, hwloc_const_bitmap_t me, int counts[TN_DIST_COUNT],
                   double seconds)
{
    char a[32], b[32], cpus[128], place[256], seg[400];
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
    int verbose = tn_core.rank == 0 || tn_log_level >= TN_LOG_DEBUG;
    if (!verbose || tn_log_level < TN_LOG_INFO)
        return;
    tn_info("place: %s (from this rank's CPU set%s)", place,
            t && !t->thissystem ? " planned by ternrun: simulated topology" : "");
    tn_seg_placement_text(&tn_core.seg.placement, seg, sizeof(seg));
    tn_info("segment memory: TERN_SEGMENT_NUMA %s; pages: %s", tn_core.seg.numa_text,
            seg);
    static const char *const modes[] = {"auto", "on", "off"};
    if (policy.mode == TN_SHM_TOPO_AUTO)
        tn_info("shm copies: TERN_SHM_TOPO=auto, %s non-temporal kernel; non-temporal "
                "from %s with the destination in this core's caches (self, same-L3 "
                "peers, gets)%s and from %s with it elsewhere (puts to peers outside "
                "this L3); calibration %s",
                tn_copy_isa_name(policy.isa), thr_text(calib.hot, a, sizeof(a)),
                islands_text(calib.hot_islands),
                thr_text(calib.cold < calib.hot ? calib.cold : calib.hot, b, sizeof(b)),
                calib_origin);
    else
        tn_info("shm copies: TERN_SHM_TOPO=%s: %s", modes[policy.mode],
                policy.mode == TN_SHM_TOPO_ON ? "non-temporal stores for every copy"
                                              : "regular copies only");
    char line[256];
    size_t off = 0;
    line[0] = '\0';
    for (int c = TN_DIST_L3; c < TN_DIST_COUNT; c++)
        if (counts[c] && off + 48 < sizeof(line))
            off += (size_t)snprintf(line + off, sizeof(line) - off,
                                    "%s%d %s (puts non-temporal from %s)",
                                    off ? ", " : "", counts[c], tn_dist_name(c),
                                    thr_text(policy.put[c], a, sizeof(a)));
    int leader = tn_core.local_rank == 0 && policy.mode == TN_SHM_TOPO_AUTO;
    tn_info("local peers: %s; topology step %.1f ms (CPU set exchange%s)",
            off ? line : "none", seconds * 1e3,
            !leader                                     ? ""
            : strncmp(calib_origin, "measured now", 12) ? ", calibration from the cache"
                                                        : ", calibration measured");
}

int tn_topo_peers_init(void)
{
    double t0 = tn_time_s();
    const tn_topo_t *t = tn_topo_get();
    if (!t && (getenv("HWLOC_XMLFILE") || getenv("HWLOC_SYNTHETIC")))
        return TERN_ERR_CONFIG; /* the bad topology was named when loading it */
    int n = tn_core.size;
    tp_blob_t mine;
    memset(&mine, 0, sizeof(mine));
    mine.version = TP_VERSION;
    hwloc_bitmap_t me = hwloc_bitmap_alloc(), peer = hwloc_bitmap_alloc();
    tp_blob_t *all = calloc((size_t)n, sizeof(*all));
    int rc = TERN_OK;
    if (!me || !peer || !all) {
        rc = TERN_ERR_NOMEM;
        goto out;
    }
    my_cpus(t, me);
    to_words(me, &mine);

    /* One rank per node measures (or reads the cache) while the others
     * wait in the exchange: every rank of a node gets the same table. */
    int mode = (int)tn_cfg.shm_topo;
    if (mode == TN_SHM_TOPO_AUTO && tn_core.local_rank == 0) {
        tn_copy_calib_obtain((int)tn_cfg.shm_calibrate, tn_cfg.shm_calib_dir, t, &calib,
                             calib_origin, sizeof(calib_origin));
        mine.flags |= TP_CALIB;
        mine.isa = calib.isa;
        mine.hot = calib.hot;
        mine.cold = calib.cold;
        mine.hot_islands = calib.hot_islands;
    }
    rc = tn_core.boot->ops->allgather(tn_core.boot, &mine, sizeof(mine), all);
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
    const tp_blob_t *lead = &all[tn_core.local_ranks[0]];
    if (mode == TN_SHM_TOPO_AUTO && tn_core.local_rank != 0) {
        memset(&calib, 0, sizeof(calib));
        calib.isa = lead->isa;
        calib.hot = lead->hot;
        calib.cold = lead->cold;
        calib.hot_islands = lead->hot_islands;
        snprintf(calib_origin, sizeof(calib_origin), "from local rank 0 (rank %d)",
                 tn_core.local_ranks[0]);
    }
    tn_copy_policy_make(mode, mode == TN_SHM_TOPO_AUTO ? &calib : NULL, &policy);

    int counts[TN_DIST_COUNT] = {0};
    for (int r = 0; r < n; r++) {
        tn_peer_t *p = &tn_core.peers[r];
        tern_peer_fast_t *f = &tn_core.fast[r];
        if (p->kind == TN_PEER_NET) {
            p->dist = -1;
            p->nt_put = p->nt_get = TN_COPY_NEVER;
            p->nt_islands = 0;
            continue;
        }
        if (p->kind == TN_PEER_SELF) {
            p->dist = TN_DIST_SELF;
        } else if (t) {
            from_words(&all[r], peer);
            p->dist = (int)tn_topo_distance(t, me, peer);
        } else {
            p->dist = TN_DIST_L3; /* no topology: assume the nearest */
        }
        counts[p->dist]++;
        p->nt_put = policy.put[p->dist];
        p->nt_get = policy.get[p->dist];
        p->nt_islands = policy.islands;
        f->copy_min = tn_copy_policy_min(&policy, p->dist);
    }
    warn_unplaced(t, all);
    report(t, me, counts, tn_time_s() - t0);
out:
    hwloc_bitmap_free(me);
    hwloc_bitmap_free(peer);
    free(all);
    return rc;
}

int tern_copy_info(int rank, tern_copy_info_t *out)
{
    TN_CHECK_INIT("tern_copy_info");
    if (!out)
        return tn_core_fail(TERN_ERR_INVALID, "tern_copy_info", "out is NULL");
    if (rank < 0 || rank >= tn_core.size)
        return tn_core_fail(TERN_ERR_RANK, "tern_copy_info", "rank %d is not in [0, %d)",
                            rank, tn_core.size);
    static const char *const modes[] = {"auto", "on", "off"};
    const tn_peer_t *p = &tn_core.peers[rank];
    tern_copy_info_t c;
    memset(&c, 0, sizeof(c));
    c.distance = p->dist;
    c.nt_put = p->nt_put;
    c.nt_get = p->nt_get;
    snprintf(c.mode, sizeof(c.mode), "%s", modes[policy.mode]);
    snprintf(c.isa, sizeof(c.isa), "%s", tn_copy_isa_name(policy.isa));
    c.hot = policy.mode == TN_SHM_TOPO_AUTO ? calib.hot : TN_COPY_NEVER;
    c.cold = policy.mode == TN_SHM_TOPO_AUTO ? calib.cold : TN_COPY_NEVER;
    c.nt_islands = p->nt_islands;
    snprintf(c.calibration, sizeof(c.calibration), "%.255s",
             policy.mode == TN_SHM_TOPO_AUTO ? calib_origin
                                             : "not used (TERN_SHM_TOPO is not auto)");
    *out = c;
    return TERN_OK;
}
