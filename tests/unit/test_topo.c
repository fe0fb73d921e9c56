/* The topology model: counts, network devices and their locality, nearest
 * device, NUMA domains of a CPU set and distance classes, checked against
 * tables on this machine, 2 packages x 8 cores, and 2 packages x 4 NUMA x
 * 2 L3 with two NICs (XML); and malformed XML and synthetic input. */
#include <stdlib.h>
#include <unistd.h>

#include "topo_fixtures.h"

typedef struct {
    const char *a, *b; /* CPU sets */
    int dist;
} dist_row_t;

static void check_dists(const tn_topo_t *t, const char *name, const dist_row_t *rows,
                        int n)
{
    for (int i = 0; i < n; i++) {
        hwloc_bitmap_t a = cpus(rows[i].a), b = cpus(rows[i].b);
        int d = (int)tn_topo_distance(t, a, b), back = (int)tn_topo_distance(t, b, a);
        TCHECK(d == rows[i].dist && back == d,
               "%s: cpus %s to %s: %s (back %s), expected %s", name, rows[i].a, rows[i].b,
               tn_dist_name(d), tn_dist_name(back), tn_dist_name(rows[i].dist));
        hwloc_bitmap_free(a);
        hwloc_bitmap_free(b);
    }
}

static void numa_of(const tn_topo_t *t, const char *set, const char *want)
{
    hwloc_bitmap_t s = cpus(set), d = hwloc_bitmap_alloc();
    char got[64];
    tn_topo_numa_of(t, s, d);
    hwloc_bitmap_list_snprintf(got, sizeof(got), d);
    TCHECK(strcmp(got, want) == 0, "NUMA of cpus %s: %s, expected %s", set, got, want);
    hwloc_bitmap_free(s);
    hwloc_bitmap_free(d);
}

static void nearest(const tn_topo_t *t, const char *set, const char *want)
{
    hwloc_bitmap_t s = cpus(set);
    const tn_topo_nic_t *n = tn_topo_nic_nearest(t, s);
    TCHECK(n && strcmp(n->name, want) == 0, "nearest NIC of cpus %s: %s, expected %s",
           set, n ? n->name : "none", want);
    hwloc_bitmap_free(s);
}

static void test_xml_nic(void)
{
    tn_topo_t *t = topo_xml(TOPO_XML_NIC);
    if (!t)
        return;
    TCHECK(t->npackages == 2 && t->nnuma == 8 && t->nl3 == 16 && t->ncores == 32 &&
               t->npus == 32,
           "counts %d %d %d %d %d", t->npackages, t->nnuma, t->nl3, t->ncores, t->npus);
    TCHECK(!t->thissystem, "an XML topology is not this system");
    TCHECK(t->nnics == 2, "%d NICs, expected 2", t->nnics);
    const tn_topo_nic_t *ib = tn_topo_nic_find(t, "mlx5_0");
    TCHECK(ib && tn_topo_nic_find(t, "ib0") == ib &&
               tn_topo_nic_find(t, "0000:81:00.0") == ib &&
               tn_topo_nic_find(t, "81:00.0") == ib,
           "mlx5_0 found by every name");
    if (ib) {
        char set[64];
        hwloc_bitmap_list_snprintf(set, sizeof(set), ib->cpuset);
        TCHECK(strcmp(ib->name, "mlx5_0") == 0 && ib->nnames == 2 &&
                   strcmp(ib->names[1], "ib0") == 0,
               "names %s/%s", ib->names[0], ib->names[1]);
        TCHECK(strcmp(set, "16-31") == 0 && ib->package == 1 && ib->numa == -1,
               "mlx5_0 locality %s package %d numa %d", set, ib->package, ib->numa);
        TCHECK(strcmp(ib->pci, "0000:81:00.0") == 0, "pci %s", ib->pci);
    }
    const tn_topo_nic_t *eth = tn_topo_nic_find(t, "eth0");
    if (eth) {
        char set[64];
        hwloc_bitmap_list_snprintf(set, sizeof(set), eth->cpuset);
        TCHECK(strcmp(set, "4-7") == 0 && eth->numa == 1 && eth->package == 0,
               "eth0 locality %s numa %d package %d", set, eth->numa, eth->package);
    } else {
        TCHECK(0, "eth0 not found");
    }
    TCHECK(tn_topo_nic_find(t, "mlx5_1") == NULL, "no mlx5_1");

    /* core c: package c/16, NUMA c/4, L3 c/2 */
    static const dist_row_t rows[] = {
        {"0", "1", TN_DIST_L3},
        {"0", "2", TN_DIST_NUMA},
        {"0", "3", TN_DIST_NUMA},
        {"0", "4", TN_DIST_XNUMA},
        {"3", "15", TN_DIST_XNUMA},
        {"0", "16", TN_DIST_XPKG},
        {"15", "16", TN_DIST_XPKG},
        {"20", "21", TN_DIST_L3},
        {"20", "23", TN_DIST_NUMA},
        {"20", "31", TN_DIST_XNUMA},
        {"0", "0", TN_DIST_L3}, /* two ranks on one core */
        /* unbound or widely bound ranks: as far as their sets are wide */
        {"0-1", "1", TN_DIST_L3},
        {"0-3", "1", TN_DIST_NUMA},
        {"0-15", "3", TN_DIST_XNUMA},
        {"0-31", "0", TN_DIST_XPKG},
        {"16-19", "20-23", TN_DIST_XNUMA},
        {"", "5", TN_DIST_XPKG}, /* no CPU known: the whole machine */
    };
    check_dists(t, "xml", rows, (int)(sizeof(rows) / sizeof(rows[0])));
    numa_of(t, "0", "0");
    numa_of(t, "3-9", "0-2");
    numa_of(t, "16-31", "4-7");
    numa_of(t, "", "0-7");
    nearest(t, "0", "eth0"); /* package 0: eth0 is on it */
    nearest(t, "5", "eth0");
    nearest(t, "20", "mlx5_0"); /* package 1 */
    nearest(t, "16-31", "mlx5_0");
    hwloc_bitmap_t s = cpus("0-1");
    TCHECK(tn_topo_is_placed(t, s), "0-1 is one L3");
    hwloc_bitmap_list_sscanf(s, "0-3");
    TCHECK(!tn_topo_is_placed(t, s), "0-3 spans two L3s");
    hwloc_bitmap_free(s);

    /* A simulated topology: the rank's place is ternrun's plan. */
    hwloc_bitmap_t me = hwloc_bitmap_alloc();
    setenv("TERN_BOOT_CPUSET", "20-21", 1);
    tn_topo_my_cpuset(t, me);
    char got[64];
    hwloc_bitmap_list_snprintf(got, sizeof(got), me);
    TCHECK(strcmp(got, "20-21") == 0, "planned cpuset %s", got);
    setenv("TERN_BOOT_CPUSET", "40-41", 1); /* not in this topology */
    tn_topo_my_cpuset(t, me);
    hwloc_bitmap_list_snprintf(got, sizeof(got), me);
    TCHECK(strcmp(got, "0-31") == 0, "a plan outside the topology counts as unbound: %s",
           got);
    unsetenv("TERN_BOOT_CPUSET");
    hwloc_bitmap_free(me);
    tn_topo_destroy(t);
}

static void test_2x8(void)
{
    tn_topo_t *t = topo_synthetic(TOPO_2X8);
    if (!t)
        return;
    TCHECK(t->npackages == 2 && t->nnuma == 2 && t->nl3 == 2 && t->ncores == 16,
           "counts %d %d %d %d", t->npackages, t->nnuma, t->nl3, t->ncores);
    TCHECK(t->nnics == 0 && tn_topo_nic_nearest(t, NULL) == NULL, "no NIC");
    static const dist_row_t rows[] = {
        {"0", "7", TN_DIST_L3},   {"0", "8", TN_DIST_XPKG},    {"9", "15", TN_DIST_L3},
        {"0-7", "3", TN_DIST_L3}, {"0-15", "3", TN_DIST_XPKG},
    };
    check_dists(t, "2x8", rows, (int)(sizeof(rows) / sizeof(rows[0])));
    numa_of(t, "7-8", "0-1");
    tn_topo_destroy(t);
}

/* The same rules without an L3 level: one NUMA domain per package. */
static void test_no_l3(void)
{
    tn_topo_t *t = topo_synthetic("pack:2 numa:2 core:4 pu:2");
    if (!t)
        return;
    TCHECK(t->nl3 == 0 && t->nnuma == 4 && t->npus == 32, "counts");
    static const dist_row_t rows[] = {
        {"0-1", "2-3", TN_DIST_NUMA}, /* two cores of NUMA 0 */
        {"0", "8", TN_DIST_XNUMA},    /* NUMA 0 and 1, package 0 */
        {"0", "16", TN_DIST_XPKG},
    };
    check_dists(t, "no-l3", rows, (int)(sizeof(rows) / sizeof(rows[0])));
    hwloc_bitmap_t s = cpus("0-7");
    TCHECK(tn_topo_is_placed(t, s), "one NUMA domain, no L3: placed");
    hwloc_bitmap_free(s);
    tn_topo_destroy(t);
}

static void test_this_machine(void)
{
    tn_topo_t *t = NULL;
    char err[256];
    tn_topo_src_t src = {.io = 1};
    int rc = tn_topo_load(&src, &t, err, sizeof(err));
    TCHECK(rc == TERN_OK, "this machine: %s", err);
    if (!t)
        return;
    TCHECK(t->thissystem && t->npus >= 1 && t->nnuma >= 1, "this system");
    hwloc_bitmap_t me = hwloc_bitmap_alloc();
    TCHECK(tn_topo_my_cpuset(t, me) == 0 && !hwloc_bitmap_iszero(me), "own cpuset");
    /* every PU with itself: at most a NUMA domain apart */
    for (int i = 0; i < t->npus; i++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(t->h, HWLOC_OBJ_PU, (unsigned)i);
        int d = (int)tn_topo_distance(t, pu->cpuset, pu->cpuset);
        TCHECK(d == (t->nl3 ? TN_DIST_L3 : TN_DIST_NUMA), "PU %d with itself: %s", i,
               tn_dist_name(d));
    }
    if (topo_is_this_vm(t)) {
        /* the table for this VM: one L3 holds both cores */
        static const dist_row_t rows[] = {{"0", "1", TN_DIST_L3},
                                          {"0-1", "0", TN_DIST_L3}};
        check_dists(t, "this machine", rows, 2);
        numa_of(t, "0-1", "0");
        TCHECK(t->nnics == 1 && strcmp(t->nics[0].name, "eth0") == 0, "eth0 on this VM");
        nearest(t, "0", "eth0");
    } else {
        printf("this machine is not the 2-core VM the table was written for: only the "
               "general checks ran\n");
    }
    hwloc_bitmap_free(me);
    tn_topo_destroy(t);
}

static void test_bad_input(void)
{
    char err[256];
    tn_topo_t *t = NULL;
    tn_topo_src_t bad[] = {
        {.synthetic = "pack:2 foo:3"},
        {.synthetic = "pack:two"},
        {.synthetic = ""},
        {.xml_path = "/nonexistent/topology.xml"},
        {.xml_buffer = "<?xml version=\"1.0\"?>\n<topology version=\"2.0\"><object "
                       "type=\"Machine\""},
        {.xml_buffer = "this is not XML"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        int rc = tn_topo_load(&bad[i], &t, err, sizeof(err));
        TCHECK(rc == TERN_ERR_CONFIG && strstr(err, "hwloc cannot") != NULL,
               "bad input %zu: rc %d, '%s'", i, rc, err);
    }
    tn_topo_load(&bad[3], &t, err, sizeof(err));
    TCHECK(strstr(err, "/nonexistent/topology.xml") && strstr(err, "no such file"),
           "missing file named: %s", err);
    tn_topo_load(&bad[0], &t, err, sizeof(err));
    TCHECK(strstr(err, "'pack:2 foo:3'") && strstr(err, "malformed"), "%s", err);

    /* A malformed HWLOC_SYNTHETIC is an error, not a silent fall-back to
     * this machine (which hwloc alone would do). */
    setenv("HWLOC_SYNTHETIC", "pack:2 foo", 1);
    tn_topo_release();
    TCHECK(tn_topo_get() == NULL, "malformed HWLOC_SYNTHETIC: no topology");
    setenv("HWLOC_SYNTHETIC", TOPO_2X8, 1);
    tn_topo_release();
    const tn_topo_t *g = tn_topo_get();
    TCHECK(g && g->ncores == 16 && strstr(g->source, "HWLOC_SYNTHETIC"),
           "from the variable");
    unsetenv("HWLOC_SYNTHETIC");
    setenv("HWLOC_XMLFILE", topo_fixture(TOPO_XML_NIC), 1);
    tn_topo_release();
    g = tn_topo_get_io();
    TCHECK(g && g->nnics == 2 && tn_topo_get() == g, "HWLOC_XMLFILE with devices");
    unsetenv("HWLOC_XMLFILE");
    tn_topo_release();
}

int main(void)
{
    test_xml_nic();
    test_2x8();
    test_no_l3();
    test_this_machine();
    test_bad_input();
    if (topo_fails) {
        fprintf(stderr, "FAIL: %d check(s)\n", topo_fails);
        return 1;
    }
    printf("PASS: topology model\n");
    return 0;
}
