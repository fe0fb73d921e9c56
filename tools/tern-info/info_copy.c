/* tern-info --copy: inside a job, the topology-aware copy decisions - each
 * local rank's distance class to every other, the calibration and the
 * copy chosen for each size and class; --calibrate: measure the two copy
 * curves now and keep them in the cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tern.h>

#include "base/cfg.h"
#include "base/log.h"
#include "base/topo.h"
#include "xport/shm/shm_copy.h"
#include "core/core.h"
#include "tern_info.h"

static const char *thr_text(size_t v, char *buf, size_t len)
{
    if (v == TN_COPY_NEVER)
        return "never";
    if (v == 0)
        return "always";
    tn_format_bytes(v, buf, len);
    return buf;
}

static void print_curve(FILE *out, const char *what, const tn_copy_point_t *pt, int n,
                        size_t cross)
{
    char a[32], b[32];
    fprintf(out, "    %s: non-temporal from %s\n", what, thr_text(cross, a, sizeof(a)));
    for (int i = 0; i < n; i++) {
        tn_format_bytes(pt[i].size, b, sizeof(b));
        fprintf(out, "      %10s  regular %6.2f GB/s  non-temporal %6.2f GB/s  %s\n", b,
                pt[i].reg, pt[i].nt,
                pt[i].nt > pt[i].reg ? "<- non-temporal faster" : "");
    }
}

static void print_calib(FILE *out, const tn_copy_calib_t *c, const char *origin)
{
    fprintf(out, "  calibration: %s\n", origin);
    if (c->nhot == 0 && c->ncold == 0) {
        char a[32], b[32];
        fprintf(out, "    destination in this core's caches: non-temporal from %s\n",
                thr_text(c->hot, a, sizeof(a)));
        fprintf(out, "    destination elsewhere: non-temporal from %s\n",
                thr_text(c->cold, b, sizeof(b)));
        return;
    }
    if (c->fallback) {
        /* the curves below were measured but are not what the copies use */
        char a[32], b[32];
        fprintf(out,
                "    used: the estimate: non-temporal from %s with the destination in "
                "this core's caches, from %s with it elsewhere\n",
                thr_text(c->hot, a, sizeof(a)), thr_text(c->cold, b, sizeof(b)));
    }
    size_t hot = c->fallback ? tn_copy_crossover(c->hot_pt, c->nhot) : c->hot;
    uint64_t islands =
        c->fallback ? tn_copy_islands(c->hot_pt, c->nhot, hot) : c->hot_islands;
    const char *tag = c->fallback ? " (measured, not used)" : "";
    char what[96];
    snprintf(what, sizeof(what), "destination in this core's caches (hot)%s", tag);
    print_curve(out, what, c->hot_pt, c->nhot, hot);
    for (int b = 0; b < 64; b++)
        if (islands >> b & 1) {
            char s[32];
            tn_format_bytes((size_t)1 << b, s, sizeof(s));
            fprintf(out, "      and from %s to twice that (faster there too)\n", s);
        }
    snprintf(what, sizeof(what), "destination evicted first (cold)%s", tag);
    print_curve(out, what, c->cold_pt, c->ncold,
                c->fallback ? tn_copy_crossover(c->cold_pt, c->ncold) : c->cold);
}

int ti_print_calibrate(void)
{
    tn_config_t cfg;
    if (tn_cfg_load(&cfg) != TERN_OK)
        return 1;
    const tn_topo_t *t = tn_topo_get();
    tn_copy_calib_t c;
    char origin[768];
    tn_copy_calib_obtain(TN_CALIB_ALWAYS, cfg.shm_calib_dir, t, &c, origin,
                         sizeof(origin));
    printf("Copy calibration (%s non-temporal kernel)\n", tn_copy_isa_name(c.isa));
    print_calib(stdout, &c, origin);
    return 0;
}

/* The decision table: 64 B to 128 MiB, doubling, then the thresholds in
 * force. */
int ti_print_copy(int argc, char **argv)
{
    int rc = tern_init(&argc, &argv, TERN_THREAD_SINGLE);
    if (rc != TERN_OK) {
        fprintf(stderr, "tern-info --copy: tern_init failed: %s\n", tern_strerror(rc));
        return 1;
    }
    int ls = tn_core.local_size; /* ranks sharing memory with this one */
    int *row;
    /* every rank publishes its classes to the node's ranks; the node's
     * first rank prints them all */
    rc = tern_alloc_sym(sizeof(int) * (size_t)ls, (void **)&row);
    if (rc != TERN_OK) {
        fprintf(stderr, "tern-info --copy: %s\n", tern_strerror(rc));
        tern_finalize();
        return 1;
    }
    for (int i = 0; i < ls; i++) {
        tern_copy_info_t ci;
        tern_copy_info(tn_core.local_ranks[i], &ci);
        row[i] = ci.distance;
    }
    tern_barrier();
    if (tn_core.local_rank == 0) {
        const tn_copy_policy_t *p = tn_copy_policy_current();
        const char *origin;
        const tn_copy_calib_t *c = tn_copy_calib_current(&origin);
        static const char *const modes[] = {"auto", "on", "off"};
        static const char abbrev[] = "s3nxp";
        int present[TN_DIST_COUNT] = {0};
        printf("Copies with shared-memory peers on %s (TERN_SHM_TOPO=%s, %s non-temporal "
               "kernel)\n",
               tn_log_host(), modes[p->mode], tn_copy_isa_name(p->isa));
        if (p->mode == TN_SHM_TOPO_AUTO)
            print_calib(stdout, c, origin);
        printf("  distance classes (s self, 3 same L3, n same NUMA domain, x other NUMA "
               "domain, p other package):\n");
        int *theirs = malloc(sizeof(int) * (size_t)ls);
        for (int i = 0; theirs && i < ls; i++) {
            int r = tn_core.local_ranks[i];
            tern_get(theirs, r, tern_sym_addr(r, row), sizeof(int) * (size_t)ls, 0);
            printf("    rank %-4d", r);
            for (int k = 0; k < ls && k < 64; k++) {
                int d = theirs[k];
                printf(" %c", d >= 0 && d < TN_DIST_COUNT ? abbrev[d] : '?');
                if (d >= 0 && d < TN_DIST_COUNT)
                    present[d] = 1;
            }
            printf("%s\n", ls > 64 ? " ..." : "");
        }
        free(theirs);
        printf("  decisions (R regular copy, N non-temporal stores; * classes in this "
               "job):\n");
        printf("    %10s", "size");
        for (int d = 0; d < TN_DIST_COUNT; d++) {
            char h[32];
            snprintf(h, sizeof(h), "%s%s", tn_dist_name(d), present[d] ? "*" : "");
            printf(" %19s", h);
        }
        printf("\n    %10s", "");
        for (int d = 0; d < TN_DIST_COUNT; d++)
            printf(" %9s %9s", "put", "get");
        printf("\n");
        for (size_t n = 64; n <= ((size_t)128 << 20); n *= 2) {
            char b[32];
            tn_format_bytes(n, b, sizeof(b));
            printf("    %10s", b);
            for (int d = 0; d < TN_DIST_COUNT; d++)
                printf(" %9c %9c", tn_copy_policy_nt(p, d, 1, n) ? 'N' : 'R',
                       tn_copy_policy_nt(p, d, 0, n) ? 'N' : 'R');
            printf("\n");
        }
        printf("    %10s", "from");
        for (int d = 0; d < TN_DIST_COUNT; d++) {
            char a[32], b[32];
            printf(" %9s %9s", thr_text(p->put[d], a, sizeof(a)),
                   thr_text(p->get[d], b, sizeof(b)));
        }
        printf("\n");
        fflush(stdout);
    }
    tern_barrier();
    tern_free_sym(row);
    return tern_finalize() == TERN_OK ? 0 : 1;
}
