/* The node's topology, from hwloc, loaded once per process. hwloc's own
 * HWLOC_XMLFILE / HWLOC_SYNTHETIC variables let tests load other shapes. */
#ifndef TN_TOPO_H
#define TN_TOPO_H

#include <hwloc.h>
#include <stddef.h>

typedef struct tn_topo {
    hwloc_topology_t h;
    int npackages;
    int nnuma;    /* NUMA domains (at least 1) */
    int nl3;      /* L3 caches (0 if none) */
    int ncores;
    int npus;     /* hardware threads */
    size_t l3_bytes; /* size of one L3 (0 if none) */
    size_t mem_bytes;/* total memory of the node */
} tn_topo_t;

/* Loaded on first call; NULL (after logging why) if hwloc fails. */
const tn_topo_t *tn_topo_get(void);
void tn_topo_release(void);

/* cpuset of NUMA domain i (0-based, logical order); NULL if out of range. */
hwloc_const_cpuset_t tn_topo_numa_cpuset(int i);
/* Number of PUs this process may run on (its affinity mask). */
int tn_topo_allowed_pus(void);

#endif
