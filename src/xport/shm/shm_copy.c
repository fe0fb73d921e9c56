/* tern_copy_: the copy behind the RMA fast path for sizes at or above a
 * peer's copy_min, choosing regular or non-temporal stores by direction,
 * size and distance class; the policy it asks, with the per-machine
 * calibration cache; the queries on both. */
#include "xport/shm/shm_copy.h"

#include <errno.h>
#include <gnu/libc-version.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tern.h>

#include "base/log.h"
#include "base/stats.h"

tn_shm_copy_state_t tn_shm_copy_state;

/* Reached only for n >= copy_min (the smallest size the policy streams
 * for the peer's class, either direction), i.e. for copies large enough
 * that the loads and compares below are free next to the copy. A put
 * writes into the peer's segment as mapped here; anything else is a get
 * (self copies within the segment count as puts). */
void tern_copy_(int rank, void *dst, const void *src, size_t n)
{
    const tn_shm_copy_state_t *st = &tn_shm_copy_state;
    const tn_shm_copy_peer_t *p = &st->peers[rank - st->first]; /* mapped: in span */
    int put = (uintptr_t)dst - p->lo < p->size;
    /* n may be 0 when statistics route every copy here */
    int nt = tn_copy_policy_nt(&st->policy, p->dist, put, n);
    if (__builtin_expect(tn_stats_on, 0))
        tn_stats_copy(p->dist == TN_DIST_SELF ? TN_STAT_SELF : TN_STAT_SHM, put, n, nt);
    if (nt)
        tn_copy_nt(dst, src, n);
    else
        memcpy(dst, src, n);
}

size_t tn_shm_copy_min(int rank)
{
    const tn_shm_copy_state_t *st = &tn_shm_copy_state;
    unsigned i = (unsigned)(rank - st->first);
    if (i >= (unsigned)st->npeers || st->peers[i].dist < 0)
        return SIZE_MAX;
    return tn_copy_policy_min(&st->policy, st->peers[i].dist);
}

void tn_shm_copy_info(int rank, tern_copy_info_t *out)
{
    static const char *const modes[] = {"auto", "on", "off"};
    const tn_shm_copy_state_t *st = &tn_shm_copy_state;
    const tn_copy_policy_t *p = &st->policy;
    unsigned i = (unsigned)(rank - st->first);
    int dist = i < (unsigned)st->npeers ? st->peers[i].dist : -1;
    int auto_mode = p->mode == TN_SHM_TOPO_AUTO;
    memset(out, 0, sizeof(*out));
    out->distance = dist;
    out->nt_put = dist >= 0 ? p->put[dist] : TN_COPY_NEVER;
    out->nt_get = dist >= 0 ? p->get[dist] : TN_COPY_NEVER;
    out->nt_islands = dist >= 0 ? p->islands : 0;
    snprintf(out->mode, sizeof(out->mode), "%s", modes[p->mode]);
    snprintf(out->isa, sizeof(out->isa), "%s", tn_copy_isa_name(p->isa));
    out->hot = auto_mode ? st->calib.hot : TN_COPY_NEVER;
    out->cold = auto_mode ? st->calib.cold : TN_COPY_NEVER;
    snprintf(out->calibration, sizeof(out->calibration), "%.255s",
             auto_mode ? st->origin : "not used (TERN_SHM_TOPO is not auto)");
}

const tn_copy_policy_t *tn_copy_policy_current(void)
{
    return &tn_shm_copy_state.policy;
}

const tn_copy_calib_t *tn_copy_calib_current(const char **origin)
{
    if (origin)
        *origin = tn_shm_copy_state.origin;
    return &tn_shm_copy_state.calib;
}

/* ---- policy ------------------------------------------------------------------ */

void tn_copy_policy_make(int mode, const tn_copy_calib_t *calib, tn_copy_policy_t *out)
{
    memset(out, 0, sizeof(*out));
    out->mode = mode;
    out->isa = (int)tn_copy_isa_best();
    for (int c = 0; c < TN_DIST_COUNT; c++) {
        size_t put = TN_COPY_NEVER, get = TN_COPY_NEVER;
        if (out->isa == TN_COPY_ISA_NONE) {
            /* no non-temporal kernel: regular copies whatever the mode */
        } else if (mode == TN_SHM_TOPO_ON) {
            put = get = 0;
        } else if (mode == TN_SHM_TOPO_AUTO && calib) {
            size_t hot = calib->hot, cold = calib->cold < hot ? calib->cold : hot;
            put = c <= TN_DIST_L3 ? hot : cold;
            get = hot;
        }
        out->put[c] = put;
        out->get[c] = get;
    }
    if (out->isa != TN_COPY_ISA_NONE && mode == TN_SHM_TOPO_AUTO && calib)
        out->islands = calib->hot_islands;
}

size_t tn_copy_policy_min(const tn_copy_policy_t *p, int dist)
{
    size_t m = p->put[dist] < p->get[dist] ? p->put[dist] : p->get[dist];
    if (p->islands) {
        size_t island = (size_t)1 << __builtin_ctzll((unsigned long long)p->islands);
        m = island < m ? island : m;
    }
    return m;
}

void tn_copy_calib_estimate(const tn_topo_t *t, tn_copy_calib_t *out)
{
    memset(out, 0, sizeof(*out));
    out->isa = (int)tn_copy_isa_best();
    out->hot = t && t->l3_bytes ? t->l3_bytes : (size_t)32 << 20;
    out->cold = (size_t)64 << 10;
}

/* ---- the calibration cache ------------------------------------------------------ */

static void cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    while (f && fgets(line, sizeof(line), f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                c += strspn(c + 1, " \t") + 1;
                c[strcspn(c, "\n")] = '\0';
                snprintf(buf, len, "%s", c);
            }
            break;
        }
    }
    if (f)
        fclose(f);
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static int make_dirs(const char *dir)
{
    char tmp[640];
    snprintf(tmp, sizeof(tmp), "%s", dir);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(tmp, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

int tn_copy_calib_path(const char *cache_dir, const tn_topo_t *t, char *path, size_t len,
                       char *key, size_t keylen)
{
    char dir[400];
    if (cache_dir && strcmp(cache_dir, "none") == 0)
        return -1;
    if (cache_dir && *cache_dir) {
        snprintf(dir, sizeof(dir), "%s", cache_dir);
    } else {
        /* The user's cache; where there is none that can be written (no
         * HOME in a container, a read-only home), a directory of this user
         * in TMPDIR - measuring at every start would cost more. */
        const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
        const char *tmp = getenv("TMPDIR");
        dir[0] = '\0';
        if (xdg && *xdg)
            snprintf(dir, sizeof(dir), "%s/tern", xdg);
        else if (home && *home)
            snprintf(dir, sizeof(dir), "%s/.cache/tern", home);
        if (!dir[0] || make_dirs(dir) != 0 || access(dir, W_OK) != 0)
            snprintf(dir, sizeof(dir), "%s/tern-cache-%ld", tmp && *tmp ? tmp : "/tmp",
                     (long)getuid());
    }
    char model[160];
    cpu_model(model, sizeof(model));
    snprintf(key, keylen,
             "v3 cpu=%s isa=%s packages=%d numa=%d l3=%dx%zu cores=%d pus=%d libc=%s",
             model, tn_copy_isa_name(tn_copy_isa_best()), t ? t->npackages : 0,
             t ? t->nnuma : 0, t ? t->nl3 : 0, t ? t->l3_bytes : 0, t ? t->ncores : 0,
             t ? t->npus : 0, gnu_get_libc_version());
    snprintf(path, len, "%s/copy-%016llx.txt", dir, (unsigned long long)fnv1a(key));
    return 0;
}

static const char *size_or_never(size_t v, char *buf, size_t len)
{
    if (v == TN_COPY_NEVER)
        snprintf(buf, len, "never");
    else
        snprintf(buf, len, "%zu", v);
    return buf;
}

static int parse_size_or_never(const char *s, size_t *out)
{
    if (strncmp(s, "never", 5) == 0) {
        *out = TN_COPY_NEVER;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    *out = (size_t)v;
    return 0;
}

static int cache_read(const char *path, const char *key, tn_copy_calib_t *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    tn_copy_calib_t c;
    memset(&c, 0, sizeof(c));
    char line[512];
    int have_key = 0, have_hot = 0, have_cold = 0, have_isa = 0;
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        tn_copy_point_t pt;
        if (strncmp(line, "key ", 4) == 0)
            have_key = strcmp(line + 4, key) == 0;
        else if (strncmp(line, "isa ", 4) == 0)
            have_isa = sscanf(line + 4, "%d", &c.isa) == 1;
        else if (strncmp(line, "hot ", 4) == 0)
            have_hot = parse_size_or_never(line + 4, &c.hot) == 0;
        else if (strncmp(line, "cold ", 5) == 0)
            have_cold = parse_size_or_never(line + 5, &c.cold) == 0;
        else if (strncmp(line, "seconds ", 8) == 0)
            sscanf(line + 8, "%lf", &c.seconds);
        else if (strncmp(line, "disturbed ", 10) == 0)
            sscanf(line + 10, "%d", &c.disturbed);
        else if (strncmp(line, "spread ", 7) == 0)
            sscanf(line + 7, "%lf", &c.spread);
        else if (strncmp(line, "islands ", 8) == 0)
            c.hot_islands = strtoull(line + 8, NULL, 16);
        else if (sscanf(line, "hotpt %zu %lf %lf", &pt.size, &pt.reg, &pt.nt) == 3 &&
                 c.nhot < TN_COPY_CURVE_MAX)
            c.hot_pt[c.nhot++] = pt;
        else if (sscanf(line, "coldpt %zu %lf %lf", &pt.size, &pt.reg, &pt.nt) == 3 &&
                 c.ncold < TN_COPY_CURVE_MAX)
            c.cold_pt[c.ncold++] = pt;
    }
    fclose(f);
    if (!have_key || !have_hot || !have_cold || !have_isa ||
        c.isa != (int)tn_copy_isa_best())
        return -1;
    *out = c;
    return 0;
}

static void cache_write(const char *path, const char *key, const tn_copy_calib_t *c)
{
    char dir[600], tmp[640], a[32], b[32];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    if (make_dirs(dir) != 0) {
        tn_debug("copy calibration not cached: cannot create %s: %s", dir,
                 strerror(errno));
        return;
    }
    /* Written aside and renamed: ranks of concurrent jobs never read half
     * a file. */
    snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        tn_debug("copy calibration not cached: %s: %s", tmp, strerror(errno));
        return;
    }
    fprintf(f,
            "# Tern copy calibration (TERN_SHM_TOPO=auto): where non-temporal\n"
            "# stores become faster than regular ones on this kind of machine.\n"
            "# Delete this file (or set TERN_SHM_CALIBRATE=always) to measure again.\n");
    fprintf(f,
            "key %s\nisa %d\nhot %s\ncold %s\nislands %llx\nseconds %.3f\n"
            "disturbed %d\nspread %.3f\n",
            key, c->isa, size_or_never(c->hot, a, sizeof(a)),
            size_or_never(c->cold, b, sizeof(b)), (unsigned long long)c->hot_islands,
            c->seconds, c->disturbed, c->spread);
    fprintf(f, "# size_bytes regular_GB/s non_temporal_GB/s\n");
    for (int i = 0; i < c->nhot; i++)
        fprintf(f, "hotpt %zu %.3f %.3f\n", c->hot_pt[i].size, c->hot_pt[i].reg,
                c->hot_pt[i].nt);
    for (int i = 0; i < c->ncold; i++)
        fprintf(f, "coldpt %zu %.3f %.3f\n", c->cold_pt[i].size, c->cold_pt[i].reg,
                c->cold_pt[i].nt);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        tn_debug("copy calibration not cached: %s: %s", path, strerror(errno));
        unlink(tmp);
    }
}

/* Sizes measured: the hot curve to 64 MiB (beyond the last-level cache of
 * most nodes' single cores, which is where it crosses), the cold one to
 * 4 MiB (it crosses within the first few sizes). */
#define CALIB_HOT_MAX  ((size_t)64 << 20)
#define CALIB_COLD_MAX ((size_t)4 << 20)
#define CALIB_RETRY_S  3600

/* The thresholds of the estimate in place of a measurement that is not
 * trusted; the measured curves stay for the reports. */
static void fall_back(const tn_topo_t *t, tn_copy_calib_t *c)
{
    tn_copy_calib_t est;
    tn_copy_calib_estimate(t, &est);
    c->hot = est.hot;
    c->cold = est.cold;
    c->hot_islands = 0;
    c->fallback = 1;
}

int tn_copy_calib_obtain(int calib_mode, const char *cache_dir, const tn_topo_t *t,
                         tn_copy_calib_t *out, char *origin, size_t originlen)
{
    tn_copy_calib_t est;
    tn_copy_calib_estimate(t, &est);
    if (calib_mode == TN_CALIB_NEVER) {
        *out = est;
        snprintf(origin, originlen,
                 "estimated from hwloc's L3 size, not measured "
                 "(TERN_SHM_CALIBRATE=never)");
        return TERN_OK;
    }
    char path[600], key[400], why[256];
    int cached =
        tn_copy_calib_path(cache_dir, t, path, sizeof(path), key, sizeof(key)) == 0;
    struct stat st;
    /* A measurement that is not trusted (taken on a busy machine) is kept
     * (measuring at every start would cost more than its error) but its
     * thresholds are not used, and it is taken again after an hour. The
     * file holds what was measured; the judgement is made on reading. */
    if (cached && calib_mode == TN_CALIB_AUTO && cache_read(path, key, out) == 0) {
        int trusted = tn_copy_calib_trust(out, est.hot, why, sizeof(why));
        if (trusted ||
            (stat(path, &st) == 0 && time(NULL) - st.st_mtime < CALIB_RETRY_S)) {
            if (!trusted)
                fall_back(t, out);
            snprintf(origin, originlen,
                     "measured on this kind of machine before, in %.2f s (cached in "
                     "%s)%s%s%s",
                     out->seconds, path, trusted ? "; used: " : "; not used: ", why,
                     trusted ? ""
                             : "; thresholds estimated from hwloc's L3 size "
                               "instead, measured again once the file is an hour old");
            return TERN_OK;
        }
    }
    int rc = tn_copy_calibrate(CALIB_HOT_MAX, CALIB_COLD_MAX, out);
    if (rc != TERN_OK) {
        *out = est;
        snprintf(origin, originlen, "estimated: measuring failed (%s)",
                 tern_strerror(rc));
        return TERN_OK;
    }
    if (cached)
        cache_write(path, key, out);
    int trusted = tn_copy_calib_trust(out, est.hot, why, sizeof(why));
    if (!trusted)
        fall_back(t, out);
    snprintf(origin, originlen, "measured now in %.2f s (%s%s)%s%s%s", out->seconds,
             cached ? "cached in " : "not cached: TERN_SHM_CALIB_DIR=none",
             cached ? path : "", trusted ? "; used: " : "; not used: ", why,
             trusted ? ""
                     : "; thresholds estimated from hwloc's L3 size instead, "
                       "measured again in an hour");
    return TERN_OK;
}
