/* Topologies the topology tests run on, and their check macro. The XML
 * fixtures live in tests/topo/, found next to this file. */
#ifndef TOPO_FIXTURES_H
#define TOPO_FIXTURES_H

#include <stdio.h>
#include <string.h>

#include <tern/status.h>

#include "base/topo.h"

static int topo_fails;

#define TCHECK(c, ...)                                                            \
    do {                                                                          \
        if (!(c)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #c); \
            fprintf(stderr, __VA_ARGS__);                                         \
            fputc('\n', stderr);                                                  \
            topo_fails++;                                                         \
        }                                                                         \
    } while (0)

/* 2 packages x 1 NUMA domain x 1 L3 x 8 cores. */
#define TOPO_2X8 "pack:2 numa:1 l3:1 core:8 pu:1"
/* 2 packages x 4 NUMA domains x 2 L3 x 2 cores, a NUMA latency matrix,
 * mlx5_0/ib0 (PCI 81:00.0) attached to package 1 and eth0 (PCI 05:00.0)
 * to NUMA domain 1 (cores 4-7). Core c: package c/16, NUMA c/4, L3 c/2. */
#define TOPO_XML_NIC "2pkg-4numa-2l3-nic.xml"

/* Path of a fixture in tests/topo/ (this file is in tests/unit/). */
static inline const char *topo_fixture(const char *name)
{
    static char path[1024];
    const char *here = __FILE__;
    const char *slash = strrchr(here, '/');
    int dir = slash ? (int)(slash - here) : 0;
    snprintf(path, sizeof(path), "%.*s%s../topo/%s", dir, here, slash ? "/" : "", name);
    return path;
}

static inline tn_topo_t *topo_synthetic(const char *desc)
{
    tn_topo_t *t = NULL;
    char err[256];
    tn_topo_src_t src = {.synthetic = desc, .io = 1};
    int rc = tn_topo_load(&src, &t, err, sizeof(err));
    TCHECK(rc == TERN_OK, "loading synthetic '%s': %s", desc, err);
    return rc == TERN_OK ? t : NULL;
}

static inline tn_topo_t *topo_xml(const char *name)
{
    tn_topo_t *t = NULL;
    char err[256];
    tn_topo_src_t src = {.xml_path = topo_fixture(name), .io = 1};
    int rc = tn_topo_load(&src, &t, err, sizeof(err));
    TCHECK(rc == TERN_OK, "loading %s: %s", name, err);
    return rc == TERN_OK ? t : NULL;
}

/* A CPU set from list text ("0-3,8"). */
static inline hwloc_bitmap_t cpus(const char *list)
{
    hwloc_bitmap_t b = hwloc_bitmap_alloc();
    hwloc_bitmap_list_sscanf(b, list);
    return b;
}

/* Is t this VM's shape (1 package, 1 NUMA domain, 1 L3, 2 cores)? The
 * tables for "this machine" were written for it. */
static inline int topo_is_this_vm(const tn_topo_t *t)
{
    return t->npackages == 1 && t->nnuma == 1 && t->nl3 == 1 && t->ncores == 2 &&
           t->npus == 2;
}

#endif
