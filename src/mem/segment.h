/* A rank's segment: one shared-memory object (memfd) holding a small
 * control area for the shm transport followed by the user segment, faulted
 * in at creation, and mappable by the other processes of the node. */
#ifndef TN_SEGMENT_H
#define TN_SEGMENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/topo.h"

enum { TN_HUGE_TRY = 0, TN_HUGE_ON = 1, TN_HUGE_OFF = 2 }; /* TERN_HUGEPAGES */
enum { TN_FAULTIN_PARALLEL = 0, TN_FAULTIN_SERIAL = 1, TN_FAULTIN_NONE = 2 };

/* TERN_SEGMENT_NUMA: where the segment's pages go. */
enum {
    TN_SEG_NUMA_INTERLEAVE = 0, /* round-robin over every domain */
    TN_SEG_NUMA_LOCAL = 1,      /* the domains of the rank's CPUs */
    TN_SEG_NUMA_BIND = 2,       /* one named domain (bind:N) */
    TN_SEG_NUMA_FIRSTTOUCH = 3
}; /* no policy: where first touched */

#define TN_SEG_NUMA_MAX 64 /* domains counted by the read-back */

/* The request: a policy and the domains it names (logical indexes). */
typedef struct tn_seg_numa_plan {
    int mode;             /* TN_SEG_NUMA_* */
    hwloc_bitmap_t nodes; /* domains the pages may go to */
    char text[128];       /* "interleave over NUMA 0-7", for reports */
} tn_seg_numa_plan_t;

/* Pages of a mapping per NUMA domain, read back from the kernel. */
typedef struct tn_seg_placement {
    int ndomains;                    /* 0: not read back (see note) */
    uint64_t pages[TN_SEG_NUMA_MAX]; /* by logical domain index */
    uint64_t sampled;                /* pages asked about */
    uint64_t absent;                 /* not (yet) backed by memory */
    char policy[64];                 /* get_mempolicy of the mapping */
    char note[96];                   /* why not read back, if so */
} tn_seg_placement_t;

typedef struct tn_seg_opts {
    size_t size;             /* user bytes asked for (TERN_SEGMENT_SIZE) */
    size_t ctrl_size;        /* bytes of control area wanted before the data */
    size_t extra;            /* of size, bytes the runtime adds (team rings) */
    const char *extra_names; /* the variables that size extra, for errors */
    const char *ctrl_names;  /* the variables that size ctrl_size, for errors */
    int hugepages;           /* TN_HUGE_* */
    int faultin;             /* TN_FAULTIN_* */
    int threads;             /* fault-in workers; 0 = cores of node / local ranks */
    int local_ranks;         /* ranks creating a segment on this node now */
    const char *numa;        /* TERN_SEGMENT_NUMA text; NULL: tn_cfg's value */
} tn_seg_opts_t;

typedef struct tn_seg {
    void *map;        /* start of the mapping (control area) */
    size_t map_size;  /* control area + data, a multiple of page_size */
    void *data;       /* user segment: map + ctrl_size */
    size_t size;      /* user bytes (rounded up to page_size) */
    size_t ctrl_size; /* control area bytes, a multiple of page_size */
    size_t page_size; /* page size backing the mapping */
    int hugetlb;      /* backed by hugetlbfs pages (mappings need alignment) */
    int fd;           /* memfd; closed once every local peer mapped it */
    int faultin_threads;
    double t_create, t_faultin;
    char page_note[256];          /* how the page size came about */
    int numa_mode;                /* TN_SEG_NUMA_* requested */
    char numa_text[200];          /* the request and whether it was applied */
    tn_seg_placement_t placement; /* what the kernel did, after fault-in */
} tn_seg_t;

/* What tn_seg_create decides before it allocates anything. */
typedef struct tn_seg_plan {
    const tn_topo_t *topo;   /* this process's topology, or NULL */
    tn_seg_numa_plan_t numa; /* TERN_SEGMENT_NUMA */
    int hugetlb, thp;        /* page kind (tn_huge_plan) */
    size_t page_size, ctrl_size, size, map_size;
    char page_note[480]; /* why these pages; or why huge pages cannot be had */
} tn_seg_plan_t;

/* Checks and plans a segment for opts without allocating it: the size,
 * the NUMA policy (tn_seg_numa_plan), the pages (tn_huge_plan), whether
 * the memory for opts->local_ranks segments is there. Logs nothing.
 * Returns TERN_OK (free with tn_seg_plan_free), or with the reason in err:
 * TERN_ERR_CONFIG (size 0; a TERN_SEGMENT_NUMA value that is malformed or
 * names a domain this node does not have), TERN_ERR_NOMEM (not enough
 * memory: how much is needed and available and which variable to lower;
 * TERN_HUGEPAGES=on and no huge pages for them). tn_seg_create and
 * tern-info -c (through tn_cfg_validate) use the same plan. */
int tn_seg_plan(const tn_seg_opts_t *opts, tn_seg_plan_t *out, char *err, size_t errlen);
void tn_seg_plan_free(tn_seg_plan_t *p);

/* Create and fault in a segment: tn_seg_plan (its message logged), then
 * the allocation. Returns TERN_OK, tn_seg_plan's errors, TERN_ERR_NOMEM
 * when the kernel refuses the memory, TERN_ERR_SYS. */
int tn_seg_create(const tn_seg_opts_t *opts, tn_seg_t *out);
/* Close the memfd (after peers mapped it); the mapping stays. */
void tn_seg_close_fd(tn_seg_t *seg);
void tn_seg_destroy(tn_seg_t *seg);

/* Map another process's segment through /proc/<pid>/fd/<fd>. */
int tn_seg_map_peer(pid_t pid, int fd, size_t map_size, void **out);
void tn_seg_unmap_peer(void *map, size_t map_size);

/* Touch every page of [addr, addr+len) with the given mode and threads
 * (0 = automatic for local_ranks ranks per node); returns the number of
 * threads used. Pages are written, so they are allocated for good. With
 * spread, workers are pinned one NUMA domain each and domain d touches
 * chunks d, d+D, ... (pages follow them under first touch); without, they
 * run where the caller may (a bind policy places the pages). */
int tn_faultin(void *addr, size_t len, size_t page_size, int mode, int threads,
               int local_ranks, int spread);

/* The placement TERN_SEGMENT_NUMA=spec asks for, on topology t for a rank
 * on CPUs cpus: interleave (every domain), local (the domains of cpus),
 * bind:N (domain N, logical index), firsttouch. NULL or "" is interleave.
 * Returns TERN_OK (free with tn_seg_numa_plan_free) or TERN_ERR_CONFIG
 * with the reason in err (malformed, or no domain N here). */
int tn_seg_numa_plan(const tn_topo_t *t, const char *spec, hwloc_const_cpuset_t cpus,
                     tn_seg_numa_plan_t *out, char *err, size_t errlen);
void tn_seg_numa_plan_free(tn_seg_numa_plan_t *p);

/* Reads back where the pages of [addr, addr+len) are (move_pages on up to
 * 4096 pages evenly spread, and get_mempolicy), counted per domain of
 * the process's topology. */
void tn_seg_placement_read(const void *addr, size_t len, size_t page_size,
                           tn_seg_placement_t *out);
/* "NUMA 0 50%, NUMA 1 50% (4096 pages read back)" into buf. */
void tn_seg_placement_text(const tn_seg_placement_t *p, char *buf, size_t len);

/* Page size plan for a shared segment of map_size bytes (per rank, with
 * local_ranks ranks on the node): fills *use_hugetlb, *thp, page size and a
 * note; returns TERN_OK, or TERN_ERR_NOMEM when mode is TN_HUGE_ON and no
 * huge pages can be had (the note then says what is missing and how to
 * get it; nothing is logged). */
int tn_huge_plan(size_t map_size, int local_ranks, int mode, int *use_hugetlb, int *thp,
                 size_t *page_size, char *note, size_t notelen);

/* Bytes of the mapping containing addr that the kernel backs with
 * transparent huge pages (ShmemPmdMapped in /proc/self/smaps). */
size_t tn_thp_mapped_bytes(const void *addr);

/* The selected (bracketed) word of a THP setting file such as
 * TN_THP_SHMEM ("always within_size advise [never] ..."), or
 * "unavailable" when it cannot be read. */
#define TN_THP_SHMEM "/sys/kernel/mm/transparent_hugepage/shmem_enabled"
void tn_thp_setting(const char *path, char *out, size_t len);

/* Value of a "Key: value [kB]" line of /proc/meminfo, or -1. */
long tn_meminfo_value(const char *key);

/* Bytes of memory that a new segment can still take on this node
 * (MemAvailable, capped by the cgroup limit). */
size_t tn_mem_available(void);

#endif
