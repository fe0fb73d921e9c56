/* Topology-aware copies: what Tern decided for the copies with a rank whose
 * segment is mapped here (self or a shared-memory peer). For tools,
 * benchmarks and runtimes that want to know why a transfer costs what it
 * costs. Include after <tern.h>; C99 and C++ includable. */
#ifndef TERN_TOPO_H
#define TERN_TOPO_H

#include <stddef.h>

#include "api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Distance classes of two ranks of a node, nearest first. */
enum {
    TERN_DIST_SELF = 0,
    TERN_DIST_SAME_L3 = 1,    /* both ranks' CPU sets inside one L3 */
    TERN_DIST_SAME_NUMA = 2,  /* inside one NUMA domain, not one L3 */
    TERN_DIST_OTHER_NUMA = 3, /* inside one package, not one domain */
    TERN_DIST_OTHER_PACKAGE = 4,
};

typedef struct tern_copy_info {
    int distance;                  /* TERN_DIST_*, or -1 for a rank not on this node */
    size_t nt_put;                 /* puts to the rank of this many bytes or more use */
    size_t nt_get;                 /* non-temporal stores, and gets from it; SIZE_MAX:
                         never (regular copies only) */
    unsigned long long nt_islands; /* bit b: non-temporal stores also for
                         sizes in [2^b, 2^(b+1)), both directions */
    char mode[8];                  /* TERN_SHM_TOPO in force: "auto", "on" or "off" */
    char isa[8];                   /* the non-temporal kernel: "avx512", "avx2", "sse2",
                         "none" */
    size_t hot, cold;              /* the calibration (auto): crossovers with the
                         destination in this core's caches and elsewhere */
    char calibration[256];         /* where the calibration came from */
} tern_copy_info_t;

/* Fills *out for rank. Returns TERN_OK, TERN_ERR_NOT_INIT, TERN_ERR_RANK,
 * TERN_ERR_INVALID (out is NULL). */
TERN_API int tern_copy_info(int rank, tern_copy_info_t *out);

#ifdef __cplusplus
}
#endif
#endif
