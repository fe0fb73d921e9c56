/* TERN_SEGMENT_NUMA: the placement each value asks for on 2 packages x 4
 * NUMA x 2 L3 and 2 packages x 8 cores for ranks on given CPUs (tables);
 * bad values (bind:7 where there is no domain 7, malformed ones) are clear
 * errors before anything is allocated; on this machine every mode creates
 * a segment whose pages are read back where the request says. */
#include <stdlib.h>
#include <unistd.h>

#include "base/cfg.h"
#include "mem/segment.h"
#include "topo_fixtures.h"

typedef struct {
    const char *spec, *cpus;
    int mode;
    const char *nodes;
} numa_row_t;

static void check_plans(const tn_topo_t *t, const char *name, const numa_row_t *rows,
                        int n)
{
    for (int i = 0; i < n; i++) {
        tn_seg_numa_plan_t p;
        char err[320], got[64];
        hwloc_bitmap_t c = cpus(rows[i].cpus);
        int rc = tn_seg_numa_plan(t, rows[i].spec, c, &p, err, sizeof(err));
        TCHECK(rc == TERN_OK, "%s: %s: %s", name, rows[i].spec ? rows[i].spec : "(unset)",
               err);
        if (rc == TERN_OK) {
            hwloc_bitmap_list_snprintf(got, sizeof(got), p.nodes);
            TCHECK(p.mode == rows[i].mode && strcmp(got, rows[i].nodes) == 0,
                   "%s: %s on cpus %s: mode %d NUMA %s, expected mode %d NUMA %s", name,
                   rows[i].spec ? rows[i].spec : "(unset)", rows[i].cpus, p.mode, got,
                   rows[i].mode, rows[i].nodes);
            tn_seg_numa_plan_free(&p);
        }
        hwloc_bitmap_free(c);
    }
}

static void bad(const tn_topo_t *t, const char *spec, const char *w1, const char *w2)
{
    tn_seg_numa_plan_t p;
    char err[320] = "";
    int rc = tn_seg_numa_plan(t, spec, NULL, &p, err, sizeof(err));
    TCHECK(rc == TERN_ERR_CONFIG && strstr(err, w1) && (!w2 || strstr(err, w2)),
           "'%s': rc %d '%s'", spec, rc, err);
}

static void test_tables(void)
{
    tn_topo_t *t = topo_xml(TOPO_XML_NIC);
    if (t) {
        static const numa_row_t rows[] = {
            {NULL, "0", TN_SEG_NUMA_INTERLEAVE, "0-7"},
            {"interleave", "20", TN_SEG_NUMA_INTERLEAVE, "0-7"},
            {"local", "0", TN_SEG_NUMA_LOCAL, "0"},
            {"local", "21", TN_SEG_NUMA_LOCAL, "5"},
            {"local", "16-19", TN_SEG_NUMA_LOCAL, "4"},
            {"local", "3-4", TN_SEG_NUMA_LOCAL, "0-1"}, /* spans two domains */
            {"local", "0-31", TN_SEG_NUMA_LOCAL, "0-7"},
            {"bind:7", "0", TN_SEG_NUMA_BIND, "7"},
            {"bind:0", "31", TN_SEG_NUMA_BIND, "0"},
            {"firsttouch", "9", TN_SEG_NUMA_FIRSTTOUCH, "0-7"},
        };
        check_plans(t, "xml", rows, (int)(sizeof(rows) / sizeof(rows[0])));
        bad(t, "bind:8", "no domain 8", "bind:0 to bind:7");
        tn_topo_destroy(t);
    }
    t = topo_synthetic(TOPO_2X8);
    if (t) {
        static const numa_row_t rows[] = {
            {"interleave", "0", TN_SEG_NUMA_INTERLEAVE, "0-1"},
            {"local", "9", TN_SEG_NUMA_LOCAL, "1"},
            {"bind:1", "0", TN_SEG_NUMA_BIND, "1"},
        };
        check_plans(t, "2x8", rows, (int)(sizeof(rows) / sizeof(rows[0])));
        bad(t, "bind:7", "TERN_SEGMENT_NUMA=bind:7", "2 NUMA domains, no domain 7");
        bad(t, "bind:", "bind needs a NUMA domain number", NULL);
        bad(t, "bind:x", "bind needs a NUMA domain number", NULL);
        bad(t, "bind:-1", "bind needs a NUMA domain number", NULL);
        bad(t, "bind:1x", "bind needs a NUMA domain number", NULL);
        /* strtol skipped the space and the sign: bind:1 was taken */
        bad(t, "bind: 1", "bind needs a NUMA domain number", NULL);
        bad(t, "bind:+1", "bind needs a NUMA domain number", NULL);
        bad(t, "interleaved", "is not one of interleave, local, bind:N", NULL);
        bad(t, "LOCAL", "is not one of", NULL);
        tn_topo_destroy(t);
    }
}

/* Real segments on this machine, in every mode. */
static void test_real(void)
{
    const tn_topo_t *t = tn_topo_get();
    if (!t) {
        TCHECK(0, "no topology");
        return;
    }
    static const char *const modes[] = {"interleave", "local", "bind:0", "firsttouch"};
    for (int m = 0; m < 4; m++) {
        tn_seg_opts_t o = {.size = 8 << 20,
                           .ctrl_size = 4096,
                           .hugepages = TN_HUGE_OFF,
                           .faultin = TN_FAULTIN_PARALLEL,
                           .local_ranks = 1,
                           .numa = modes[m]};
        tn_seg_t s;
        int rc = tn_seg_create(&o, &s);
        TCHECK(rc == TERN_OK, "TERN_SEGMENT_NUMA=%s: %d", modes[m], rc);
        if (rc != TERN_OK)
            continue;
        const tn_seg_placement_t *p = &s.placement;
        uint64_t sum = p->absent;
        for (int d = 0; d < p->ndomains; d++)
            sum += p->pages[d];
        TCHECK(p->ndomains == t->nnuma && p->sampled == s.map_size / s.page_size &&
                   sum == p->sampled && p->absent == 0,
               "%s: %d domains, %llu of %llu pages placed, %llu absent (%s)", modes[m],
               p->ndomains, (unsigned long long)(sum - p->absent),
               (unsigned long long)p->sampled, (unsigned long long)p->absent, p->note);
        if (t->nnuma == 1)
            TCHECK(p->pages[0] == p->sampled, "%s: one domain holds every page",
                   modes[m]);
        if (m == 2) /* bind:0 */
            TCHECK(p->pages[0] == p->sampled, "bind:0: every page on NUMA 0");
        /* the policy the kernel holds for the mapping is the one asked for
         * (hwloc binds with MPOL_PREFERRED_MANY where the kernel has it,
         * MPOL_BIND before; first touch is MPOL_LOCAL or the default) */
        static const char *const policy[][2] = {{"interleave 0", "interleave 0"},
                                                {"bind 0", "preferred-many 0"},
                                                {"bind 0", "preferred-many 0"},
                                                {"local", "default"}};
        int ok = 0;
        for (int k = 0; k < 2; k++)
            ok |= strncmp(p->policy, policy[m][k], strlen(policy[m][k])) == 0;
        if (t->nnuma == 1 || m == 2) /* the node numbers are known */
            TCHECK(ok, "%s: the kernel's policy is '%s', expected '%s' or '%s'", modes[m],
                   p->policy, policy[m][0], policy[m][1]);
        if (t->nnuma >= 2 && m == 0)
            for (int d = 0; d < t->nnuma; d++) /* interleave: an equal share each */
                TCHECK(p->pages[d] * t->nnuma >= p->sampled * 9 / 10,
                       "interleave: NUMA %d holds %llu of %llu", d,
                       (unsigned long long)p->pages[d], (unsigned long long)p->sampled);
        char text[400];
        tn_seg_placement_text(p, text, sizeof(text));
        TCHECK(strstr(text, "NUMA 0 ") && strstr(text, "pages read back"), "text: %s",
               text);
        printf("  %-10s %s; %s\n", modes[m], s.numa_text, text);
        tn_seg_destroy(&s);
    }
    /* bind to a domain this machine does not have: a clear error, and no
     * segment */
    char spec[32];
    snprintf(spec, sizeof(spec), "bind:%d", t->nnuma < 7 ? 7 : t->nnuma);
    tn_seg_opts_t o = {.size = 1 << 20,
                       .ctrl_size = 4096,
                       .hugepages = TN_HUGE_OFF,
                       .local_ranks = 1,
                       .numa = spec};
    tn_seg_t s;
    TCHECK(tn_seg_create(&o, &s) == TERN_ERR_CONFIG, "%s must fail", spec);
    o.numa = "nowhere";
    TCHECK(tn_seg_create(&o, &s) == TERN_ERR_CONFIG, "nowhere must fail");
    /* unset (opts and table): interleave */
    o.numa = NULL;
    TCHECK(tn_seg_create(&o, &s) == TERN_OK && s.numa_mode == TN_SEG_NUMA_INTERLEAVE,
           "default is interleave");
    tn_seg_destroy(&s);
    /* nothing touched: nothing to read back */
    o.faultin = TN_FAULTIN_NONE;
    TCHECK(tn_seg_create(&o, &s) == TERN_OK && s.placement.ndomains == 0 &&
               strstr(s.placement.note, "none"),
           "no fault-in, no read-back");
    tn_seg_destroy(&s);
}

int main(void)
{
    test_tables();
    test_real();
    if (topo_fails) {
        fprintf(stderr, "FAIL: %d check(s)\n", topo_fails);
        return 1;
    }
    printf("PASS: segment NUMA placement\n");
    return 0;
}
