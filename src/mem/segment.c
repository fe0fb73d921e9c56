/* Segment creation: a memfd (no name in any file system, so nothing is
 * left behind), sized, mapped, given its NUMA policy (TERN_SEGMENT_NUMA),
 * faulted in, and its page placement read back. Peers on the node map it
 * through /proc/<pid>/fd/<fd>. */
#include "mem/segment.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <tern/status.h>

#include "base/cfg.h"
#include "base/log.h"
#include "base/time.h"
#include "base/topo.h"

#ifndef MFD_HUGETLB
#define MFD_HUGETLB 0x0004U
#endif

static size_t round_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

/* Enough memory for the segments of every local rank? The message goes to
 * err; the caller logs it (or tern-info shows it). */
static int check_memory(size_t need_per_rank, size_t ctrl, const tn_seg_opts_t *o,
                        int hugetlb, char *err, size_t errlen)
{
    int local_ranks = o->local_ranks;
    if (hugetlb)
        return TERN_OK; /* tn_huge_plan counted the free huge pages */
    size_t lr = (size_t)(local_ranks > 0 ? local_ranks : 1);
    size_t avail = tn_mem_available();
    if (avail && need_per_rank > avail / lr) {
        char need[32], have[32], each[32];
        tn_format_bytes(need_per_rank * lr, need, sizeof(need));
        tn_format_bytes(avail, have, sizeof(have));
        tn_format_bytes(avail / lr, each, sizeof(each));
        /* Name what is large: the runtime's own share may be the culprit. */
        char extra[320] = "";
        if (o->extra_names && o->extra * 2 >= o->size) {
            char x[32];
            tn_format_bytes(o->extra, x, sizeof(x));
            snprintf(extra, sizeof(extra), " or %s (%s of each segment)", o->extra_names,
                     x);
        } else if (o->ctrl_names && ctrl * 2 >= need_per_rank) {
            char x[32];
            tn_format_bytes(ctrl, x, sizeof(x));
            snprintf(extra, sizeof(extra), " or %s (%s of control area per rank)",
                     o->ctrl_names, x);
        }
        snprintf(err, errlen,
                 "segments of %zu rank(s) on this machine need %s of memory, "
                 "only %s is available: lower TERN_SEGMENT_SIZE%s (at most "
                 "about %s per rank here)",
                 lr, need, have, extra, each);
        return TERN_ERR_NOMEM;
    }
    return TERN_OK;
}

/* ---- NUMA placement (TERN_SEGMENT_NUMA) ----------------------------------- */

static void list_of(hwloc_const_bitmap_t b, char *buf, size_t len)
{
    if (hwloc_bitmap_iszero(b))
        snprintf(buf, len, "none");
    else
        hwloc_bitmap_list_snprintf(buf, len, b);
}

int tn_seg_numa_plan(const tn_topo_t *t, const char *spec, hwloc_const_cpuset_t cpus,
                     tn_seg_numa_plan_t *out, char *err, size_t errlen)
{
    tn_seg_numa_plan_t p = {.mode = TN_SEG_NUMA_INTERLEAVE};
    const char *s = spec && *spec ? spec : "interleave";
    int nnuma = t ? t->nnuma : 1;
    long dom = -1;
    if (strcmp(s, "interleave") == 0) {
        p.mode = TN_SEG_NUMA_INTERLEAVE;
    } else if (strcmp(s, "local") == 0) {
        p.mode = TN_SEG_NUMA_LOCAL;
    } else if (strcmp(s, "firsttouch") == 0) {
        p.mode = TN_SEG_NUMA_FIRSTTOUCH;
    } else if (strncmp(s, "bind:", 5) == 0) {
        char *end;
        errno = 0;
        dom = strtol(s + 5, &end, 10);
        /* digits only: strtol also took " 1" and "+1" */
        if (s[5] < '0' || s[5] > '9' || errno || *end || dom < 0) {
            snprintf(err, errlen,
                     "TERN_SEGMENT_NUMA='%s': bind needs a NUMA domain "
                     "number, as in bind:0 (domains 0 to %d here)",
                     s, nnuma - 1);
            return TERN_ERR_CONFIG;
        }
        if (dom >= nnuma) {
            char range[32];
            snprintf(range, sizeof(range), nnuma == 1 ? "bind:0" : "bind:0 to bind:%d",
                     nnuma - 1);
            snprintf(err, errlen,
                     "TERN_SEGMENT_NUMA=%s: this node has %d NUMA "
                     "domain%s, no domain %ld: use %s, local or interleave "
                     "(tern-info lists the domains)",
                     s, nnuma, nnuma == 1 ? "" : "s", dom, range);
            return TERN_ERR_CONFIG;
        }
        p.mode = TN_SEG_NUMA_BIND;
    } else {
        snprintf(err, errlen,
                 "TERN_SEGMENT_NUMA='%s' is not one of interleave, local, "
                 "bind:N (N a NUMA domain), firsttouch",
                 s);
        return TERN_ERR_CONFIG;
    }
    p.nodes = hwloc_bitmap_alloc();
    if (!p.nodes) {
        snprintf(err, errlen, "out of memory");
        return TERN_ERR_NOMEM;
    }
    char list[64];
    switch (p.mode) {
    case TN_SEG_NUMA_INTERLEAVE:
    case TN_SEG_NUMA_FIRSTTOUCH:
        hwloc_bitmap_set_range(p.nodes, 0, nnuma - 1);
        list_of(p.nodes, list, sizeof(list));
        snprintf(p.text, sizeof(p.text),
                 p.mode == TN_SEG_NUMA_INTERLEAVE ? "interleave over NUMA %s"
                                                  : "first touch (NUMA %s)",
                 list);
        break;
    case TN_SEG_NUMA_LOCAL:
        if (t)
            tn_topo_numa_of(t, cpus, p.nodes);
        else
            hwloc_bitmap_set(p.nodes, 0);
        list_of(p.nodes, list, sizeof(list));
        snprintf(p.text, sizeof(p.text), "local: bind to NUMA %s%s", list,
                 hwloc_bitmap_weight(p.nodes) > 1 ? " (this rank's CPUs span them)" : "");
        break;
    case TN_SEG_NUMA_BIND:
        hwloc_bitmap_set(p.nodes, (unsigned)dom);
        snprintf(p.text, sizeof(p.text), "bind to NUMA %ld", dom);
        break;
    }
    *out = p;
    return TERN_OK;
}

void tn_seg_numa_plan_free(tn_seg_numa_plan_t *p)
{
    hwloc_bitmap_free(p->nodes);
    p->nodes = NULL;
}

/* Sets the memory policy of the mapping as planned (also on a node with
 * one domain, where it changes nothing but is read back all the same); a
 * simulated topology cannot be applied. */
static void numa_apply(const tn_topo_t *t, const tn_seg_numa_plan_t *p, void *addr,
                       size_t len, char *text, size_t textlen)
{
    if (!t) {
        snprintf(text, textlen, "%s (no topology: not applied)", p->text);
        return;
    }
    if (!t->thissystem) {
        snprintf(text, textlen, "%s (simulated topology: not applied)", p->text);
        return;
    }
    hwloc_membind_policy_t pol =
        p->mode == TN_SEG_NUMA_INTERLEAVE   ? HWLOC_MEMBIND_INTERLEAVE
        : p->mode == TN_SEG_NUMA_FIRSTTOUCH ? HWLOC_MEMBIND_FIRSTTOUCH
                                            : HWLOC_MEMBIND_BIND;
    /* the plan holds logical indexes; hwloc wants OS ones */
    hwloc_nodeset_t os = hwloc_bitmap_alloc();
    int i;
    hwloc_bitmap_foreach_begin(i, p->nodes)
    {
        hwloc_obj_t o = hwloc_get_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, (unsigned)i);
        if (o && os)
            hwloc_bitmap_set(os, o->os_index);
    }
    hwloc_bitmap_foreach_end();
    if (!os ||
        hwloc_set_area_membind(t->h, addr, len, os, pol, HWLOC_MEMBIND_BYNODESET) != 0) {
        tn_warn("could not set the segment's NUMA policy (%s: %s); pages land "
                "where they are first touched",
                p->text, strerror(errno));
        snprintf(text, textlen, "%s (FAILED: %s)", p->text, strerror(errno));
    } else {
        snprintf(text, textlen, "%s", p->text);
    }
    hwloc_bitmap_free(os);
}

#ifndef MPOL_F_ADDR
#define MPOL_F_ADDR (1 << 1)
#endif

static const char *mpol_name(int mode)
{
    /* MPOL_DEFAULT, PREFERRED, BIND, INTERLEAVE, LOCAL, PREFERRED_MANY */
    static const char *const names[] = {
        "default",        "preferred",          "bind", "interleave", "local",
        "preferred-many", "weighted-interleave"};
    return mode >= 0 && mode < 7 ? names[mode] : "?";
}

void tn_seg_placement_read(const void *addr, size_t len, size_t page_size,
                           tn_seg_placement_t *out)
{
    memset(out, 0, sizeof(*out));
    const tn_topo_t *t = tn_topo_get();
    if (!t || !t->thissystem) {
        snprintf(out->note, sizeof(out->note), "%s",
                 t ? "simulated topology: not read back" : "no topology");
        return;
    }
    /* The policy of the mapping, as the kernel holds it. */
    int mode = -1;
    unsigned long mask[16] = {0};
    if (syscall(SYS_get_mempolicy, &mode, mask, sizeof(mask) * 8, addr, MPOL_F_ADDR) ==
        0) {
        char nodes[48] = "";
        size_t off = 0;
        for (unsigned b = 0; b < sizeof(mask) * 8 && off + 8 < sizeof(nodes); b++)
            if (mask[b / (8 * sizeof(long))] >> (b % (8 * sizeof(long))) & 1)
                off += (size_t)snprintf(nodes + off, sizeof(nodes) - off, "%s%u",
                                        off ? "," : "", b);
        snprintf(out->policy, sizeof(out->policy), "%s%s%s", mpol_name(mode),
                 nodes[0] ? " " : "", nodes);
    } else {
        snprintf(out->policy, sizeof(out->policy), "? (%s)", strerror(errno));
    }
    /* Where the pages are: a sample of at most 4096 pages, evenly spread
     * (about 0.3 ms; the share per domain to within a few 0.01%). */
    size_t npages = len / page_size;
    size_t want = npages < 4096 ? npages : 4096;
    if (want == 0)
        return;
    void **pages = malloc(want * sizeof(*pages));
    int *status = malloc(want * sizeof(*status));
    if (!pages || !status) {
        free(pages);
        free(status);
        snprintf(out->note, sizeof(out->note), "out of memory");
        return;
    }
    for (size_t i = 0; i < want; i++)
        pages[i] = (char *)addr + (npages * i / want) * page_size;
    if (syscall(SYS_move_pages, 0, (unsigned long)want, pages, NULL, status, 0) != 0) {
        snprintf(out->note, sizeof(out->note), "move_pages failed: %s", strerror(errno));
    } else {
        out->ndomains = t->nnuma < TN_SEG_NUMA_MAX ? t->nnuma : TN_SEG_NUMA_MAX;
        out->sampled = want;
        for (size_t i = 0; i < want; i++) {
            hwloc_obj_t o =
                status[i] >= 0
                    ? hwloc_get_numanode_obj_by_os_index(t->h, (unsigned)status[i])
                    : NULL;
            if (o && o->logical_index < TN_SEG_NUMA_MAX)
                out->pages[o->logical_index]++;
            else
                out->absent++;
        }
    }
    free(pages);
    free(status);
}

void tn_seg_placement_text(const tn_seg_placement_t *p, char *buf, size_t len)
{
    if (p->ndomains == 0 || p->sampled == 0) {
        snprintf(buf, len, "not read back%s%s", p->note[0] ? ": " : "", p->note);
        return;
    }
    size_t off = 0;
    buf[0] = '\0';
    for (int d = 0; d < p->ndomains && off + 24 < len; d++)
        if (p->pages[d] || p->ndomains <= 8)
            off += (size_t)snprintf(buf + off, len - off, "%sNUMA %d %.0f%%",
                                    off ? ", " : "", d,
                                    100.0 * (double)p->pages[d] / (double)p->sampled);
    if (p->absent && off + 24 < len)
        off += (size_t)snprintf(buf + off, len - off, ", not backed %.0f%%",
                                100.0 * (double)p->absent / (double)p->sampled);
    if (off + 8 < len)
        snprintf(buf + off, len - off, " (%llu pages read back, policy %s)",
                 (unsigned long long)p->sampled, p->policy[0] ? p->policy : "?");
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

int tn_seg_plan(const tn_seg_opts_t *opts, tn_seg_plan_t *out, char *err, size_t errlen)
{
    tn_seg_plan_t p;
    memset(&p, 0, sizeof(p));
    if (opts->size == 0) {
        snprintf(err, errlen,
                 "TERN_SEGMENT_SIZE=0: a segment needs at least one byte "
                 "(the default is 64M)");
        return TERN_ERR_CONFIG;
    }
    size_t small = (size_t)sysconf(_SC_PAGESIZE);
    size_t ctrl = opts->ctrl_size ? opts->ctrl_size : small;
    size_t est = round_up(opts->size, small) + round_up(ctrl, small);
    if (est < opts->size) {
        snprintf(err, errlen, "TERN_SEGMENT_SIZE=%zu overflows", opts->size);
        return TERN_ERR_CONFIG;
    }
    /* The NUMA request first: a bad one must fail before any allocation. */
    p.topo = tn_topo_get();
    hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
    if (!cpus) {
        snprintf(err, errlen, "out of memory");
        return TERN_ERR_NOMEM;
    }
    if (p.topo)
        tn_topo_my_cpuset(p.topo, cpus);
    int rc = tn_seg_numa_plan(p.topo, opts->numa ? opts->numa : tn_cfg.segment_numa, cpus,
                              &p.numa, err, errlen);
    hwloc_bitmap_free(cpus);
    if (rc != TERN_OK)
        return rc;
    rc = tn_huge_plan(est, opts->local_ranks, opts->hugepages, &p.hugetlb, &p.thp,
                      &p.page_size, p.page_note, sizeof(p.page_note));
    if (rc != TERN_OK) {
        snprintf(err, errlen, "%s", p.page_note);
        goto fail;
    }
    p.ctrl_size = round_up(ctrl, p.page_size);
    p.size = round_up(opts->size, p.page_size);
    p.map_size = p.ctrl_size + p.size;
    rc = check_memory(p.map_size, p.ctrl_size, opts, p.hugetlb, err, errlen);
    if (rc != TERN_OK)
        goto fail;
    *out = p;
    return TERN_OK;
fail:
    tn_seg_numa_plan_free(&p.numa);
    return rc;
}

void tn_seg_plan_free(tn_seg_plan_t *p)
{
    tn_seg_numa_plan_free(&p->numa);
}

static int create_planned(const tn_seg_opts_t *opts, const tn_seg_plan_t *plan,
                          tn_seg_t *sp, double t0);

int tn_seg_create(const tn_seg_opts_t *opts, tn_seg_t *out)
{
    tn_seg_t s;
    memset(&s, 0, sizeof(s));
    s.fd = -1;
    double t0 = tn_time_s();
    tn_seg_plan_t plan;
    char err[480];
    int rc = tn_seg_plan(opts, &plan, err, sizeof(err));
    if (rc != TERN_OK) {
        tn_error("%s", err);
        return rc;
    }
    s.numa_mode = plan.numa.mode;
    rc = create_planned(opts, &plan, &s, t0);
    tn_seg_plan_free(&plan);
    if (rc == TERN_OK)
        *out = s;
    return rc;
}

/* Every rank's segment starts at an address that is a multiple of
 * TN_SEG_BASE_ALIGN, so the ranks' bases agree modulo any power of two up
 * to it and one symmetric offset aligned to such a power is aligned on
 * every rank (shmem_align of more than a page: before, the bases agreed
 * modulo the page size only, by where mmap put them, and tests-sos
 * shmemalign's 8 MiB failed on most runs). It costs address space only:
 * map_size + TN_SEG_BASE_ALIGN are reserved PROT_NONE, the segment is
 * mapped over its first aligned address and the rest is given back. */
#define TN_SEG_BASE_ALIGN ((size_t)1 << 30)

static void *map_aligned(int fd, size_t map_size)
{
    size_t span = map_size + TN_SEG_BASE_ALIGN;
    char *r =
        mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
        return MAP_FAILED;
    uintptr_t a =
        ((uintptr_t)r + TN_SEG_BASE_ALIGN - 1) & ~(uintptr_t)(TN_SEG_BASE_ALIGN - 1);
    void *p =
        mmap((void *)a, map_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        munmap(r, span);
        errno = e;
        return MAP_FAILED;
    }
    if (a > (uintptr_t)r)
        munmap(r, a - (uintptr_t)r);
    uintptr_t end = a + map_size, rend = (uintptr_t)r + span;
    if (rend > end)
        munmap((void *)end, rend - end);
    return p;
}

static int create_planned(const tn_seg_opts_t *opts, const tn_seg_plan_t *plan,
                          tn_seg_t *sp, double t0)
{
    tn_seg_t s = *sp;
    const tn_topo_t *topo = plan->topo;
    int thp = plan->thp;
    s.hugetlb = plan->hugetlb;
    s.page_size = plan->page_size;
    snprintf(s.page_note, sizeof(s.page_note), "%.*s", (int)sizeof(s.page_note) - 1,
             plan->page_note);
    s.ctrl_size = plan->ctrl_size;
    s.size = plan->size;
    s.map_size = plan->map_size;

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
    s.map = map_aligned(s.fd, s.map_size);
    if (s.map == MAP_FAILED) {
        int e = errno;
        tn_error("mapping the %zu-byte segment failed: %s%s", s.map_size, strerror(e),
                 s.hugetlb ? " (hugetlb pages: try TERN_HUGEPAGES=off)" : "");
        close(s.fd);
        return e == ENOMEM ? TERN_ERR_NOMEM : TERN_ERR_SYS;
    }
    if (thp && madvise(s.map, s.map_size, MADV_HUGEPAGE) != 0)
        snprintf(s.page_note, sizeof(s.page_note),
                 "4 KiB pages: madvise(MADV_HUGEPAGE) refused: %s", strerror(errno));
    numa_apply(topo, &plan->numa, s.map, s.map_size, s.numa_text, sizeof(s.numa_text));
    s.data = (char *)s.map + s.ctrl_size;
    double t1 = tn_time_s();
    s.t_create = t1 - t0;

    /* Workers spread over the domains only where no bind policy places
     * the pages (interleave, first touch). */
    int spread = plan->numa.mode == TN_SEG_NUMA_INTERLEAVE ||
                 plan->numa.mode == TN_SEG_NUMA_FIRSTTOUCH;
    int used = tn_faultin(s.map, s.map_size, s.page_size, opts->faultin, opts->threads,
                          opts->local_ranks, spread);
    if (used < 0) {
        munmap(s.map, s.map_size);
        close(s.fd);
        return used;
    }
    s.faultin_threads = used;
    s.t_faultin = tn_time_s() - t1;
    if (thp && opts->faultin != TN_FAULTIN_NONE)
        thp_readback(&s);
    if (opts->faultin != TN_FAULTIN_NONE)
        tn_seg_placement_read(s.map, s.map_size, s.page_size, &s.placement);
    else
        snprintf(s.placement.note, sizeof(s.placement.note),
                 "TERN_SEGMENT_FAULTIN=none: no page yet");
    *sp = s;
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
        tn_error("cannot open the segment of local process %d (%s): %s", (int)pid, path,
                 strerror(errno));
        return TERN_ERR_SYS;
    }
    void *p = mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);
    int e = errno;
    close(pfd);
    if (p == MAP_FAILED) {
        tn_error("cannot map the %zu-byte segment of local process %d: %s", map_size,
                 (int)pid, strerror(e));
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
