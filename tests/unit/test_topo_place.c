/* Placement plans (what ternrun binds each rank to) for every binding
 * and mapping on 2 packages x 4 NUMA x 2 L3 with two NICs, 2 packages x
 * 8 cores and this machine, the order of --map-by dist, and the requests
 * that cannot be met: checked against tables written here. */
#include <stdlib.h>

#include "place.h"
#include "topo_fixtures.h"

typedef struct {
    int n, bind, map;
    const char *device;
    int over;
    const char *allowed; /* NULL: all */
    const char *want;    /* "cpuset/unit/numa/nic;" per rank */
} plan_row_t;

static void check_plan(const tn_topo_t *t, const char *name, const plan_row_t *r)
{
    tn_place_t p[64];
    char note[512], err[512], got[4096];
    hwloc_bitmap_t allowed = r->allowed ? cpus(r->allowed) : NULL;
    tn_place_req_t req = {.n = r->n,
                          .bind = r->bind,
                          .map = r->map,
                          .device = r->device,
                          .oversubscribe = r->over,
                          .allowed = allowed};
    int rc = tn_topo_place(t, &req, p, note, sizeof(note), err, sizeof(err));
    TCHECK(rc == TERN_OK, "%s n=%d bind=%d map=%d: %s", name, r->n, r->bind, r->map, err);
    if (rc == TERN_OK) {
        size_t off = 0;
        for (int i = 0; i < r->n; i++) {
            char set[64];
            hwloc_bitmap_list_snprintf(set, sizeof(set), p[i].cpuset);
            off +=
                (size_t)snprintf(got + off, sizeof(got) - off, "%s/%s/%s/%s;", set,
                                 p[i].unit, p[i].numa, p[i].nic ? p[i].nic->name : "-");
        }
        TCHECK(strcmp(got, r->want) == 0,
               "%s n=%d bind=%d map=%d%s%s:\n  got  %s\n  want %s", name, r->n, r->bind,
               r->map, r->device ? " dist:" : "", r->device ? r->device : "", got,
               r->want);
        tn_topo_place_free(p, r->n);
    }
    if (allowed)
        hwloc_bitmap_free(allowed);
}

/* A request that must fail with a message containing each of the words. */
static void check_error(const tn_topo_t *t, const char *name, int n, int bind, int map,
                        const char *device, const char *w1, const char *w2)
{
    tn_place_t p[64];
    char note[512], err[512] = "";
    tn_place_req_t req = {.n = n, .bind = bind, .map = map, .device = device};
    int rc = tn_topo_place(t, &req, p, note, sizeof(note), err, sizeof(err));
    TCHECK(rc == TERN_ERR_CONFIG && strstr(err, w1) && (!w2 || strstr(err, w2)),
           "%s: rc %d, message '%s' (wanted '%s' and '%s')", name, rc, err, w1,
           w2 ? w2 : "");
}

static void check_order(const tn_topo_t *t, const char *dev, const char *want)
{
    int order[64];
    char got[512];
    size_t off = 0;
    int n = tn_topo_dist_order(t, tn_topo_nic_find(t, dev), NULL, order, 64);
    for (int i = 0; i < n; i++)
        off += (size_t)snprintf(got + off, sizeof(got) - off, "%s%d", i ? "," : "",
                                order[i]);
    TCHECK(strcmp(got, want) == 0, "dist order for %s:\n  got  %s\n  want %s", dev, got,
           want);
}

static void test_xml(void)
{
    tn_topo_t *t = topo_xml(TOPO_XML_NIC);
    if (!t)
        return;
    static const plan_row_t rows[] = {
        {4, TN_BIND_CORE, TN_MAP_PACKED, NULL, 0, NULL,
         "0/core 0/0/eth0;1/core 1/0/eth0;2/core 2/0/eth0;3/core 3/0/eth0;"},
        {4, TN_BIND_AUTO, TN_MAP_SPREAD, NULL, 0, NULL,
         "0/core 0/0/eth0;16/core 16/4/mlx5_0;1/core 1/0/eth0;17/core 17/4/mlx5_0;"},
        {8, TN_BIND_CORE, TN_MAP_NUMA, NULL, 0, NULL,
         "0/core 0/0/eth0;4/core 4/1/eth0;8/core 8/2/eth0;12/core 12/3/eth0;"
         "16/core 16/4/mlx5_0;20/core 20/5/mlx5_0;24/core 24/6/mlx5_0;28/core "
         "28/7/mlx5_0;"},
        {9, TN_BIND_CORE, TN_MAP_NUMA, NULL, 0, NULL,
         "0/core 0/0/eth0;4/core 4/1/eth0;8/core 8/2/eth0;12/core 12/3/eth0;"
         "16/core 16/4/mlx5_0;20/core 20/5/mlx5_0;24/core 24/6/mlx5_0;28/core "
         "28/7/mlx5_0;"
         "1/core 1/0/eth0;"},
        /* nearest to the InfiniBand NIC of package 1 first */
        {4, TN_BIND_CORE, TN_MAP_DIST, "mlx5_0", 0, NULL,
         "16/core 16/4/mlx5_0;17/core 17/4/mlx5_0;18/core 18/4/mlx5_0;19/core "
         "19/4/mlx5_0;"},
        {2, TN_BIND_NUMA, TN_MAP_DIST, "ib0", 0, NULL,
         "16-19/NUMA 4/4/mlx5_0;16-19/NUMA 4/4/mlx5_0;"},
        /* eth0 sits on NUMA 1: its cores, then NUMA 0 (distance 11) */
        {6, TN_BIND_CORE, TN_MAP_DIST, "eth0", 0, NULL,
         "4/core 4/1/eth0;5/core 5/1/eth0;6/core 6/1/eth0;7/core 7/1/eth0;"
         "0/core 0/0/eth0;1/core 1/0/eth0;"},
        {4, TN_BIND_L3, TN_MAP_SPREAD, NULL, 0, NULL,
         "0-1/L3 0/0/eth0;16-17/L3 8/4/mlx5_0;0-1/L3 0/0/eth0;16-17/L3 8/4/mlx5_0;"},
        {3, TN_BIND_PACKAGE, TN_MAP_PACKED, NULL, 0, NULL,
         "0-15/package 0/0-3/eth0;0-15/package 0/0-3/eth0;0-15/package 0/0-3/eth0;"},
        {2, TN_BIND_PACKAGE, TN_MAP_SPREAD, NULL, 0, NULL,
         "0-15/package 0/0-3/eth0;16-31/package 1/4-7/mlx5_0;"},
        {2, TN_BIND_NONE, TN_MAP_PACKED, NULL, 0, NULL,
         "0-31/not bound/0-7/eth0;0-31/not bound/0-7/eth0;"},
        /* more ranks than cores: auto does not bind */
        {33, TN_BIND_AUTO, TN_MAP_PACKED, NULL, 0, "0-1",
         "0-1/not bound/0/eth0;0-1/not bound/0/eth0;0-1/not bound/0/eth0;0-1/not "
         "bound/0/eth0;"
         "0-1/not bound/0/eth0;0-1/not bound/0/eth0;0-1/not bound/0/eth0;0-1/not "
         "bound/0/eth0;"
         "0-1/not bound/0/eth0;0-1/not bound/0/eth0;0-1/not bound/0/eth0;0-1/not "
         "bound/0/eth0;"
         "0-1/not bound/0/eth0;0-1/not bound/0/eth0;0-1/not bound/0/eth0;0-1/not "
         "bound/0/eth0;"
         "0-1/not bound/0/eth0;0-1/not bound/0/eth0;0-1/not bound/0/eth0;0-1/not "
         "bound/0/eth0;"
         "0-1/not bound/0/eth0;0-1/not bound/0/eth0;0-1/not bound/0/eth0;0-1/not "
         "bound/0/eth0;"
         "0-1/not bound/0/eth0;0-1/not bound/0/eth0;0-1/not bound/0/eth0;0-1/not "
         "bound/0/eth0;"
         "0-1/not bound/0/eth0;0-1/not bound/0/eth0;0-1/not bound/0/eth0;0-1/not "
         "bound/0/eth0;"
         "0-1/not bound/0/eth0;"},
        /* --oversubscribe: round-robin over the usable cores */
        {3, TN_BIND_CORE, TN_MAP_PACKED, NULL, 1, "20-21",
         "20/core 20/5/mlx5_0;21/core 21/5/mlx5_0;20/core 20/5/mlx5_0;"},
        /* an outer binding is respected */
        {3, TN_BIND_CORE, TN_MAP_DIST, "eth0", 0, "0-3,16-17",
         "0/core 0/0/eth0;1/core 1/0/eth0;2/core 2/0/eth0;"},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        check_plan(t, "xml", &rows[i]);
    check_order(t, "mlx5_0",
                "16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,"
                "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15");
    check_order(t, "eth0",
                "4,5,6,7,0,1,2,3,8,9,10,11,12,13,14,15,"
                "16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31");

    /* the auto binding explains itself */
    tn_place_t p[40];
    char note[512], err[512];
    tn_place_req_t req = {.n = 40, .bind = TN_BIND_AUTO};
    TCHECK(tn_topo_place(t, &req, p, note, sizeof(note), err, sizeof(err)) == TERN_OK &&
               strstr(note, "not binding (default): 40 ranks but only 32 cores"),
           "note: %s", note);
    tn_topo_place_free(p, 40);

    check_error(t, "unknown device", 2, TN_BIND_CORE, TN_MAP_DIST, "mlx5_9",
                "no network device named 'mlx5_9'", "eth0, mlx5_0, ib0");
    check_error(t, "oversubscribed core binding", 33, TN_BIND_CORE, TN_MAP_PACKED, NULL,
                "33 ranks but only 32 cores", "--oversubscribe");
    check_error(t, "oversubscribed numa binding", 40, TN_BIND_NUMA, TN_MAP_SPREAD, NULL,
                "40 ranks but only 32 cores", "--bind-to numa");
    tn_topo_destroy(t);
}

static void test_2x8(void)
{
    tn_topo_t *t = topo_synthetic(TOPO_2X8);
    if (!t)
        return;
    static const plan_row_t rows[] = {
        {4, TN_BIND_CORE, TN_MAP_SPREAD, NULL, 0, NULL,
         "0/core 0/0/-;8/core 8/1/-;1/core 1/0/-;9/core 9/1/-;"},
        {3, TN_BIND_L3, TN_MAP_NUMA, NULL, 0, NULL,
         "0-7/L3 0/0/-;8-15/L3 1/1/-;0-7/L3 0/0/-;"},
        {2, TN_BIND_NUMA, TN_MAP_PACKED, NULL, 0, NULL, "0-7/NUMA 0/0/-;0-7/NUMA 0/0/-;"},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        check_plan(t, "2x8", &rows[i]);
    check_error(t, "dist without devices", 2, TN_BIND_CORE, TN_MAP_DIST, "mlx5_0",
                "no network device that hwloc can see", NULL);
    check_error(t, "17 on 16 cores", 17, TN_BIND_CORE, TN_MAP_PACKED, NULL,
                "17 ranks but only 16 cores", NULL);
    tn_topo_destroy(t);

    t = topo_synthetic("pack:1 numa:1 core:4 pu:1"); /* no L3 */
    if (t) {
        check_error(t, "no L3", 2, TN_BIND_L3, TN_MAP_PACKED, NULL, "no L3 cache", NULL);
        tn_topo_destroy(t);
    }
}

static void test_this_machine(void)
{
    tn_topo_t *t = NULL;
    char err[256];
    tn_topo_src_t src = {.io = 1};
    if (tn_topo_load(&src, &t, err, sizeof(err)) != TERN_OK) {
        TCHECK(0, "this machine: %s", err);
        return;
    }
    if (topo_is_this_vm(t)) {
        static const plan_row_t rows[] = {
            {2, TN_BIND_AUTO, TN_MAP_PACKED, NULL, 0, NULL,
             "0/core 0/0/eth0;1/core 1/0/eth0;"},
            {2, TN_BIND_CORE, TN_MAP_DIST, "eth0", 0, NULL,
             "0/core 0/0/eth0;1/core 1/0/eth0;"},
            {2, TN_BIND_L3, TN_MAP_SPREAD, NULL, 0, NULL,
             "0-1/L3 0/0/eth0;0-1/L3 0/0/eth0;"},
            {3, TN_BIND_CORE, TN_MAP_PACKED, NULL, 1, NULL,
             "0/core 0/0/eth0;1/core 1/0/eth0;0/core 0/0/eth0;"},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
            check_plan(t, "this machine", &rows[i]);
        check_error(t, "3 on this VM", 3, TN_BIND_CORE, TN_MAP_PACKED, NULL,
                    "3 ranks but only 2 cores", NULL);
        check_error(t, "no mlx5_0 here", 2, TN_BIND_CORE, TN_MAP_DIST, "mlx5_0",
                    "no network device named 'mlx5_0'", "eth0");
    } else {
        printf("this machine is not the 2-core VM the table was written for: skipped\n");
    }
    tn_topo_destroy(t);
}

int main(void)
{
    test_xml();
    test_2x8();
    test_this_machine();
    if (topo_fails) {
        fprintf(stderr, "FAIL: %d check(s)\n", topo_fails);
        return 1;
    }
    printf("PASS: placement plans\n");
    return 0;
}
