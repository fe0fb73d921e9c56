/* Segment creation: a memfd (no name in any file system, so nothing is
 * left behind), sized, mapped, interleaved over NUMA domains, faulted in.
 * Peers on the node map it through /proc/<pid>/fd/<fd>. */
#include "mem/segment.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <tern/status.h>

#include "base/cfg.h"
#include "base/log.h"
#include "base/time.h"
#include "base/topo.h"

#ifndef MFD_HUGETLB
#define MFD_HUGETLB 0x0004U
#endif

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

static int check_memory(size_t need_per_rank, int local_ranks, int hugetlb)
{
    if (hugetlb)
        return TERN_OK; /* tn_huge_plan counted the free huge pages */
    size_t lr = (size_t)(local_ranks > 0 ? local_ranks : 1);
    size_t avail = tn_mem_available();
    if (avail && need_per_rank > avail / lr) {
        char need[32], have[32], each[32];
        tn_format_bytes(need_per_rank * lr, need, sizeof(need));
        tn_format_bytes(avail, have, sizeof(have));
        tn_format_bytes(avail / lr, each, sizeof(each));
        tn_error("segments of %zu rank(s) on this node need %s of memory, "
                 "only %s is available: lower TERN_SEGMENT_SIZE (at most "
                 "about %s per rank here)",
                 lr, need, have, each);
        return TERN_ERR_NOMEM;
    }
    return TERN_OK;
}

/* Interleave the pages over every NUMA domain of the node; a no-op on a
 * machine with one domain. */
static void interleave(void *addr, size_t len)
{
    const tn_topo_t *t = tn_topo_get();
    if (!t || t->nnuma < 2)
        return;
    hwloc_const_nodeset_t all = hwloc_topology_get_topology_nodeset(t->h);
    if (hwloc_set_area_membind(t->h, addr, len, all, HWLOC_MEMBIND_INTERLEAVE,
                               HWLOC_MEMBIND_BYNODESET) != 0)
        tn_warn("could not interleave the segment over %d NUMA domains (%s); "
                "pages land where they are first touched", t->nnuma,
                strerror(errno));
}

/* What THP actually gave, read back after fault-in. */
static void thp_readback(tn_seg_t *s)
{
    size_t huge = tn_thp_mapped_bytes(s->map);
    double pct = 100.0 * (double)huge / (double)s->map_size;
    if (pct >= 50.0)
        s->page_size = 2u << 20;
    snprintf(s->page_note, sizeof(s->page_note),
             "transparent huge pages: %.0f%% of the segment in 2 MiB pages", pct);
}

int tn_seg_create(const tn_seg_opts_t *opts, tn_seg_t *out)
{
    tn_seg_t s;
    memset(&s, 0, sizeof(s));
    s.fd = -1;
    double t0 = tn_time_s();
    if (opts->size == 0) {
        tn_error("TERN_SEGMENT_SIZE=0: a segment needs at least one byte "
                 "(the default is 64M)");
        return TERN_ERR_CONFIG;
    }
    size_t small = (size_t)sysconf(_SC_PAGESIZE);
    size_t est = round_up(opts->size, small) + round_up(opts->ctrl_size, small);
    if (est < opts->size) {
        tn_error("TERN_SEGMENT_SIZE=%zu overflows", opts->size);
        return TERN_ERR_CONFIG;
    }
    int thp = 0;
    int rc = tn_huge_plan(est, opts->local_ranks, opts->hugepages, &s.hugetlb,
                          &thp, &s.page_size, s.page_note, sizeof(s.page_note));
    if (rc != TERN_OK)
        return rc;
    s.ctrl_size = round_up(opts->ctrl_size ? opts->ctrl_size : small, s.page_size);
    s.size = round_up(opts->size, s.page_size);
    s.map_size = s.ctrl_size + s.size;
    rc = check_memory(s.map_size, opts->local_ranks, s.hugetlb);
    if (rc != TERN_OK)
        return rc;

    s.fd = memfd_create("tern-segment", MFD_CLOEXEC | (s.hugetlb ? MFD_HUGETLB : 0));
    if (s.fd < 0) {
        tn_error("memfd_create for the segment failed: %s", strerror(errno));
        return TERN_ERR_SYS;
    }
    if (ftruncate(s.fd, (off_t)s.map_size) != 0) {
        tn_error("sizing the %zu-byte segment failed: %s: lower TERN_SEGMENT_SIZE",
                 s.map_size, strerror(errno));
        close(s.fd);
        return errno == ENOMEM || errno == ENOSPC ? TERN_ERR_NOMEM : TERN_ERR_SYS;
    }
    s.map = mmap(NULL, s.map_size, PROT_READ | PROT_WRITE, MAP_SHARED, s.fd, 0);
    if (s.map == MAP_FAILED) {
        int e = errno;
        tn_error("mapping the %zu-byte segment failed: %s%s", s.map_size,
                 strerror(e), s.hugetlb ? " (hugetlb pages: try TERN_HUGEPAGES=off)" : "");
        close(s.fd);
        return e == ENOMEM ? TERN_ERR_NOMEM : TERN_ERR_SYS;
    }
    if (thp && madvise(s.map, s.map_size, MADV_HUGEPAGE) != 0)
        snprintf(s.page_note, sizeof(s.page_note),
                 "4 KiB pages: madvise(MADV_HUGEPAGE) refused: %s", strerror(errno));
    interleave(s.map, s.map_size);
    s.data = (char *)s.map + s.ctrl_size;
    double t1 = tn_time_s();
    s.t_create = t1 - t0;

    int used = tn_faultin(s.map, s.map_size, s.page_size, opts->faultin,
                          opts->threads, opts->local_ranks);
    if (used < 0) {
        munmap(s.map, s.map_size);
        close(s.fd);
        return used;
    }
    s.faultin_threads = used;
    s.t_faultin = tn_time_s() - t1;
    if (thp && opts->faultin != TN_FAULTIN_NONE)
        thp_readback(&s);
    *out = s;
    return TERN_OK;
}

void tn_seg_close_fd(tn_seg_t *seg)
{
    if (seg->fd >= 0)
        close(seg->fd);
    seg->fd = -1;
}

void tn_seg_destroy(tn_seg_t *seg)
{
    tn_seg_close_fd(seg);
    if (seg->map)
        munmap(seg->map, seg->map_size);
    memset(seg, 0, sizeof(*seg));
    seg->fd = -1;
}

int tn_seg_map_peer(pid_t pid, int fd, size_t map_size, void **out)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
    int pfd = open(path, O_RDWR | O_CLOEXEC);
    if (pfd < 0) {
        tn_error("cannot open the segment of local process %d (%s): %s", (int)pid,
                 path, strerror(errno));
        return TERN_ERR_SYS;
    }
    void *p = mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);
    int e = errno;
    close(pfd);
    if (p == MAP_FAILED) {
        tn_error("cannot map the %zu-byte segment of local process %d: %s",
                 map_size, (int)pid, strerror(e));
        return TERN_ERR_SYS;
    }
    *out = p;
    return TERN_OK;
}

void tn_seg_unmap_peer(void *map, size_t map_size)
{
    if (map)
        munmap(map, map_size);
}
