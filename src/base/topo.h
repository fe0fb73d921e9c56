/* The node's topology from hwloc: packages, NUMA domains, L3 caches, cores,
 * hardware threads and PCI network devices with their locality. One
 * process-wide copy is loaded on first use - from this machine, or from
 * what HWLOC_XMLFILE / HWLOC_SYNTHETIC name - and tests load any other
 * shape with tn_topo_load(). Everything derived from a topology here
 * (distance classes, placement plans, nearest devices) is a pure function
 * of the topology and CPU sets, so that decisions can be checked on
 * machines we do not have (docs/design/topology.md). */
#ifndef TN_TOPO_H
#define TN_TOPO_H

#include <hwloc.h>
#include <stddef.h>

#define TN_TOPO_NIC_NAMES 4

/* A network device: one PCI function with its OS names ("mlx5_0" and
 * "ib0" for one ConnectX port, "eth0", "hsn0", "cxi0"). */
typedef struct tn_topo_nic {
    char name[32];                     /* main name: the OpenFabrics one if any */
    char names[TN_TOPO_NIC_NAMES][32]; /* every OS name, names[0] == name */
    int nnames;
    char pci[16];          /* PCI bus id "0000:3b:00.0", "" if unknown */
    hwloc_bitmap_t cpuset; /* CPUs nearest to it (its locality); the
                               whole machine when hwloc does not know */
    hwloc_obj_t ancestor;  /* first non-I/O object above it */
    int numa;              /* logical index of its nearest NUMA domain,
                               -1 when its locality spans several */
    int package;           /* logical index of its package, -1 if none */
} tn_topo_nic_t;

typedef struct tn_topo {
    hwloc_topology_t h;
    int npackages;
    int nnuma; /* NUMA domains (at least 1) */
    int nl3;   /* L3 caches (0 if none) */
    int ncores;
    int npus;         /* hardware threads */
    size_t l3_bytes;  /* size of one L3 (0 if none) */
    size_t mem_bytes; /* total memory of the node */
    int thissystem;   /* describes the machine we run on: binding and
                        memory placement can be applied */
    int has_io;       /* PCI devices were looked for */
    int nnics;
    tn_topo_nic_t *nics;
    char source[192]; /* "this machine", "HWLOC_XMLFILE=...", "synthetic ..." */
} tn_topo_t;

/* Where tn_topo_load takes a topology from: at most one of xml_path,
 * xml_buffer and synthetic; none of them: this machine (ignoring the
 * HWLOC_* variables). io: also PCI network devices (costs ~15 ms on a
 * real machine, nothing for XML and synthetic input). */
typedef struct tn_topo_src {
    const char *xml_path;
    const char *xml_buffer;
    const char *synthetic;
    int io;
} tn_topo_src_t;

/* Loads a topology. Returns TERN_OK, or TERN_ERR_CONFIG for input hwloc
 * cannot read (a malformed XML file or synthetic description, a missing
 * file) with the reason in err, or TERN_ERR_SYS. */
int tn_topo_load(const tn_topo_src_t *src, tn_topo_t **out, char *err, size_t errlen);
void tn_topo_destroy(tn_topo_t *t);

/* The process's topology, loaded on first call from HWLOC_XMLFILE or
 * HWLOC_SYNTHETIC when set (a malformed one is an error, logged once),
 * else from this machine. NULL (after logging why) if it cannot be
 * loaded. tn_topo_get_io() also has the network devices; once it has been
 * called, tn_topo_get() returns that topology too. */
const tn_topo_t *tn_topo_get(void);
const tn_topo_t *tn_topo_get_io(void);
/* Private memory the process's topologies took: RssAnon growth across
 * their loading (hwloc's objects), for memory accounting. */
size_t tn_topo_bytes(void);
void tn_topo_release(void);

/* cpuset of NUMA domain i of the process's topology (logical order); NULL
 * if out of range. */
hwloc_const_cpuset_t tn_topo_numa_cpuset(int i);
/* Number of PUs this process may run on (its affinity mask). */
int tn_topo_allowed_pus(void);
/* The CPUs that this host's ranks of a job share, for judging
 * oversubscription: the machine's PUs, or fewer when this process may run
 * on more than one but not all of them (the whole job started under
 * taskset or a cgroup: its ranks share that set). A rank bound to a single
 * CPU (ternrun binding) says nothing about the others' CPUs: the machine
 * counts. t may be NULL (no topology: the online CPUs). */
int tn_topo_job_pus(const tn_topo_t *t);

/* The CPUs this process stands on in t: its affinity when t describes this
 * machine; in a simulated topology the set ternrun planned for the rank
 * (TERN_BOOT_CPUSET), else every CPU of t. Returns 1 when the set came from
 * a real binding or plan, 0 when it is the whole machine by default. */
int tn_topo_my_cpuset(const tn_topo_t *t, hwloc_bitmap_t out);

/* ---- places ------------------------------------------------------------ */

/* NUMA domains (logical indexes) whose CPUs meet set, into out; returns
 * how many. A set without CPUs counts as the whole machine. */
int tn_topo_numa_of(const tn_topo_t *t, hwloc_const_cpuset_t set, hwloc_bitmap_t out);

/* The network device named name (any of its OS names or its PCI bus id),
 * or NULL. */
const tn_topo_nic_t *tn_topo_nic_find(const tn_topo_t *t, const char *name);
/* The device nearest to set (deepest common ancestor, then the first in
 * hwloc order), or NULL when t has none. */
const tn_topo_nic_t *tn_topo_nic_nearest(const tn_topo_t *t, hwloc_const_cpuset_t set);

/* Distance classes between two ranks of a node, nearest first. */
typedef enum {
    TN_DIST_SELF = 0,
    TN_DIST_L3 = 1,    /* both CPU sets inside one L3 cache */
    TN_DIST_NUMA = 2,  /* inside one NUMA domain, not one L3 */
    TN_DIST_XNUMA = 3, /* inside one package, not one NUMA domain */
    TN_DIST_XPKG = 4,  /* not inside one package */
    TN_DIST_COUNT
} tn_dist_t;

const char *tn_dist_name(int d); /* "self", "same-l3", "same-numa", ... */
/* Class of two ranks from their CPU sets: the smallest of L3, NUMA domain
 * and package that holds both sets. An unbound rank (a set spanning
 * several L3s) is as far from its peers as its set is wide, never nearer
 * than what the scheduler may make of it. Never returns TN_DIST_SELF. */
tn_dist_t tn_topo_distance(const tn_topo_t *t, hwloc_const_cpuset_t a,
                           hwloc_const_cpuset_t b);
/* 1 when set lies inside one L3 (or one NUMA domain where there is no
 * L3): a rank on it has one distance to each peer whatever the scheduler
 * does. */
int tn_topo_is_placed(const tn_topo_t *t, hwloc_const_cpuset_t set);

/* The package holding o (o itself if it is one), NULL for none. */
hwloc_obj_t tn_topo_package_of(hwloc_topology_t h, hwloc_obj_t o);

#endif
