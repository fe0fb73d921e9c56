/* A rank's segment: one shared-memory object (memfd) holding a small
 * control area for the shm transport followed by the user segment, faulted
 * in at creation, and mappable by the other processes of the node. */
#ifndef TN_SEGMENT_H
#define TN_SEGMENT_H

#include <stddef.h>
#include <sys/types.h>

enum { TN_HUGE_TRY = 0, TN_HUGE_ON = 1, TN_HUGE_OFF = 2 };     /* TERN_HUGEPAGES */
enum { TN_FAULTIN_PARALLEL = 0, TN_FAULTIN_SERIAL = 1, TN_FAULTIN_NONE = 2 };

typedef struct tn_seg_opts {
    size_t size;        /* user bytes asked for (TERN_SEGMENT_SIZE) */
    size_t ctrl_size;   /* bytes of control area wanted before the data */
    int hugepages;      /* TN_HUGE_* */
    int faultin;        /* TN_FAULTIN_* */
    int threads;        /* fault-in workers; 0 = cores of node / local ranks */
    int local_ranks;    /* ranks creating a segment on this node now */
} tn_seg_opts_t;

typedef struct tn_seg {
    void *map;          /* start of the mapping (control area) */
    size_t map_size;    /* control area + data, a multiple of page_size */
    void *data;         /* user segment: map + ctrl_size */
    size_t size;        /* user bytes (rounded up to page_size) */
    size_t ctrl_size;   /* control area bytes, a multiple of page_size */
    size_t page_size;   /* page size backing the mapping */
    int hugetlb;        /* backed by hugetlbfs pages (mappings need alignment) */
    int fd;             /* memfd; closed once every local peer mapped it */
    int faultin_threads;
    double t_create, t_faultin;
    char page_note[256];/* how the page size came about */
} tn_seg_t;

/* Create and fault in a segment. Returns TERN_OK, TERN_ERR_NOMEM (not
 * enough memory for all local ranks' segments: the message says how much
 * is needed and available and which variable to lower), TERN_ERR_CONFIG
 * (TERN_HUGEPAGES=on without huge pages), TERN_ERR_SYS. */
int tn_seg_create(const tn_seg_opts_t *opts, tn_seg_t *out);
/* Close the memfd (after peers mapped it); the mapping stays. */
void tn_seg_close_fd(tn_seg_t *seg);
void tn_seg_destroy(tn_seg_t *seg);

/* Map another process's segment through /proc/<pid>/fd/<fd>. */
int tn_seg_map_peer(pid_t pid, int fd, size_t map_size, void **out);
void tn_seg_unmap_peer(void *map, size_t map_size);

/* Touch every page of [addr, addr+len) with the given mode and threads
 * (0 = automatic for local_ranks ranks per node); returns the number of
 * threads used. Pages are written, so they are allocated for good. */
int tn_faultin(void *addr, size_t len, size_t page_size, int mode,
               int threads, int local_ranks);

/* Page size plan for a shared segment of map_size bytes (per rank, with
 * local_ranks ranks on the node): fills *use_hugetlb, *thp, page size and a
 * note; returns TERN_OK or TERN_ERR_CONFIG when mode is TN_HUGE_ON and no
 * huge pages can be had. */
int tn_huge_plan(size_t map_size, int local_ranks, int mode, int *use_hugetlb,
                 int *thp, size_t *page_size, char *note, size_t notelen);

/* Bytes of the mapping containing addr that the kernel backs with
 * transparent huge pages (ShmemPmdMapped in /proc/self/smaps). */
size_t tn_thp_mapped_bytes(const void *addr);

/* Bytes of memory that a new segment can still take on this node
 * (MemAvailable, capped by the cgroup limit). */
size_t tn_mem_available(void);

#endif
