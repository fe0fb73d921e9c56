/* Placement plans: where each rank of a job runs, decided by ternrun
 * from the hwloc model before it starts the ranks (only the launcher
 * places processes; the library reads the binding it was given). */
#ifndef TERNRUN_PLACE_H
#define TERNRUN_PLACE_H

#include <stddef.h>

#include "base/topo.h"

enum {
    TN_BIND_AUTO,
    TN_BIND_CORE,
    TN_BIND_L3,
    TN_BIND_NUMA,
    TN_BIND_PACKAGE,
    TN_BIND_NONE
};
enum { TN_MAP_PACKED, TN_MAP_SPREAD, TN_MAP_NUMA, TN_MAP_DIST };

typedef struct tn_place_req {
    int n;                        /* ranks */
    int bind;                     /* TN_BIND_*; AUTO: core when n <= cores, else none */
    int map;                      /* TN_MAP_* */
    const char *device;           /* TN_MAP_DIST: the device's name */
    int oversubscribe;            /* allow more ranks than cores with a binding */
    hwloc_const_cpuset_t allowed; /* CPUs to use (outer binding); NULL: all */
} tn_place_req_t;

typedef struct tn_place {
    hwloc_bitmap_t cpuset;    /* where the rank may run */
    int bound;                /* cpuset is a binding, not just what is allowed */
    int slot;                 /* logical index of the core (or PU) it was
                              mapped to; -1 when not bound */
    char unit[32];            /* "core 3", "L3 1", "NUMA 2", "package 0",
                              "not bound" */
    char numa[32];            /* NUMA domains of cpuset, list form ("0-3") */
    const tn_topo_nic_t *nic; /* nearest network device, NULL if none */
} tn_place_t;

/* Plans where each of req->n ranks runs: the mapping orders the usable
 * cores (packed: in order; spread: round-robin over packages; numa:
 * round-robin over NUMA domains; dist: nearest to req->device first) and
 * rank i takes the i-th; the binding widens that core to its core, L3,
 * NUMA domain or package. Fills out[0..n-1] (free with tn_topo_place_free)
 * and a note on the choice made, and returns TERN_OK; or TERN_ERR_CONFIG
 * with the reason in err: an unknown device, more ranks than cores with a
 * binding and no oversubscribe, no usable CPU. */
int tn_topo_place(const tn_topo_t *t, const tn_place_req_t *req, tn_place_t *out,
                  char *note, size_t notelen, char *err, size_t errlen);
void tn_topo_place_free(tn_place_t *p, int n);

/* Cores (logical indexes) in the order TN_MAP_DIST uses for device nic,
 * into order[max]; returns how many. For tests and tern-info. */
int tn_topo_dist_order(const tn_topo_t *t, const tn_topo_nic_t *nic,
                       hwloc_const_cpuset_t allowed, int *order, int max);

#endif
