/* tern-info's view of the machine: hwloc topology, huge pages (segments
 * use them), and the binding of the calling process inside a job. */
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <hwloc.h>

#include "base/log.h"
#include "base/topo.h"
#include "base/cfg.h"
#include "mem/segment.h"
#include "tern_info.h"

/* The CPUs this process may run on, from sched_getaffinity, as an hwloc
 * bitmap (caller frees); NULL on failure. Sized for any CPU count. */
static hwloc_bitmap_t affinity_bitmap(void)
{
    for (int ncpu = 1024; ncpu <= (1 << 20); ncpu *= 2) {
        cpu_set_t *set = CPU_ALLOC(ncpu);
        size_t sz = CPU_ALLOC_SIZE(ncpu);
        if (!set)
            return NULL;
        if (sched_getaffinity(0, sz, set) != 0) {
            CPU_FREE(set);
            continue; /* EINVAL: the kernel's mask is larger */
        }
        hwloc_bitmap_t bm = hwloc_bitmap_alloc();
        for (int i = 0; bm && i < ncpu; i++)
            if (CPU_ISSET_S(i, sz, set))
                hwloc_bitmap_set(bm, (unsigned)i);
        CPU_FREE(set);
        return bm;
    }
    return NULL;
}

static void list_text(hwloc_const_bitmap_t bm, char *buf, size_t len)
{
    if (!bm || hwloc_bitmap_iszero(bm))
        snprintf(buf, len, "none");
    else
        hwloc_bitmap_list_snprintf(buf, len, bm);
}

/* ---- topology ------------------------------------------------------------ */

/* Lists the objects of one type (NUMA domains or L3 caches), each with its
 * memory or size and its PUs; past 16 objects, one summary line. */
static void print_objs(FILE *out, hwloc_topology_t h, hwloc_obj_type_t type,
                       const char *label)
{
    int n = hwloc_get_nbobjs_by_type(h, type);
    char size[32], pus[256];
    for (int i = 0; i < n && i < 16; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(h, type, (unsigned)i);
        size_t bytes = 0;
        if (type == HWLOC_OBJ_NUMANODE)
            bytes = (size_t)o->attr->numanode.local_memory;
        else if (o->attr)
            bytes = (size_t)o->attr->cache.size;
        tn_format_bytes(bytes, size, sizeof(size));
        list_text(o->cpuset, pus, sizeof(pus));
        char name[24];
        snprintf(name, sizeof(name), "%s %d", label, i);
        fprintf(out, "    %-9s %10s   PUs %s\n", name, size, pus);
    }
    if (n > 16)
        fprintf(out, "    ... %d more (lstopo shows them all)\n", n - 16);
}

/* Cores (logical indexes) whose CPUs lie inside set, list form. */
static void cores_in(hwloc_topology_t h, hwloc_const_cpuset_t set, char *buf, size_t len)
{
    hwloc_bitmap_t cores = hwloc_bitmap_alloc();
    hwloc_obj_type_t type =
        hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
    int n = hwloc_get_nbobjs_by_type(h, type);
    for (int i = 0; cores && i < n; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(h, type, (unsigned)i);
        if (o->cpuset && hwloc_bitmap_isincluded(o->cpuset, set))
            hwloc_bitmap_set(cores, (unsigned)i);
    }
    list_text(cores, buf, len);
    hwloc_bitmap_free(cores);
}

static void print_nics(FILE *out, const tn_topo_t *t)
{
    if (!t->has_io) {
        fprintf(out, "  network devices not looked for\n");
        return;
    }
    if (t->nnics == 0) {
        fprintf(out, "  network devices none that hwloc can see\n");
        return;
    }
    fprintf(out, "  network devices %d (nearest first for ternrun --map-by dist:NAME)\n",
            t->nnics);
    hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(t->h);
    for (int i = 0; i < t->nnics; i++) {
        const tn_topo_nic_t *n = &t->nics[i];
        char names[160] = "", cores[128], pus[128], where[96];
        size_t off = 0;
        for (int k = 0; k < n->nnames; k++)
            off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s",
                                    k ? ", " : "", n->names[k]);
        cores_in(t->h, n->cpuset, cores, sizeof(cores));
        list_text(n->cpuset, pus, sizeof(pus));
        if (hwloc_bitmap_isincluded(all, n->cpuset))
            snprintf(where, sizeof(where), "no locality known: every core is as near");
        else if (n->numa >= 0)
            snprintf(where, sizeof(where), "NUMA %d, package %d", n->numa, n->package);
        else if (n->package >= 0)
            snprintf(where, sizeof(where), "package %d", n->package);
        else
            snprintf(where, sizeof(where), "%s",
                     hwloc_obj_type_string(n->ancestor->type));
        fprintf(out, "    %-14s PCI %s\n", names, n->pci[0] ? n->pci : "?");
        fprintf(out, "    %-14s nearest cores %s (PUs %s; %s)\n", "", cores, pus, where);
    }
}

void ti_print_topology(FILE *out)
{
    const tn_topo_t *t = tn_topo_get_io();
    fprintf(out, "\nTopology (hwloc, from %s)\n", t ? t->source : "nowhere");
    if (!t) {
        fprintf(out, "  hwloc could not load the topology; Tern assumes "
                     "one NUMA domain\n");
        return;
    }
    char mem[32], size[32], pus[256];
    tn_format_bytes(t->mem_bytes, mem, sizeof(mem));
    fprintf(out, "  packages       %d\n", t->npackages);
    fprintf(out, "  NUMA domains   %d\n", t->nnuma);
    print_objs(out, t->h, HWLOC_OBJ_NUMANODE, "NUMA");
    if (t->nl3 > 0) {
        tn_format_bytes(t->l3_bytes, size, sizeof(size));
        fprintf(out, "  L3 caches      %d\n", t->nl3);
        print_objs(out, t->h, HWLOC_OBJ_L3CACHE, "L3");
    } else {
        fprintf(out, "  L3 caches      none\n");
    }
    fprintf(out, "  cores          %d\n", t->ncores);
    hwloc_bitmap_t aff = affinity_bitmap();
    list_text(aff, pus, sizeof(pus));
    fprintf(out, "  PUs            %d (this process may run on %d: %s)\n", t->npus,
            aff ? hwloc_bitmap_weight(aff) : tn_topo_allowed_pus(), aff ? pus : "?");
    hwloc_bitmap_free(aff);
    fprintf(out, "  memory         %s\n", mem);
    print_nics(out, t);
    if (!t->thissystem)
        fprintf(out, "  (simulated: not this machine; binding and memory placement are "
                     "planned, not applied)\n");
}

/* ---- huge pages ---------------------------------------------------------- */

/* First line of a small file into buf without the newline; 0 or -1. */
static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char *ok = fgets(buf, (int)len, f);
    fclose(f);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

static long read_long(const char *path)
{
    char line[64];
    return read_line(path, line, sizeof(line)) == 0 ? atol(line) : -1;
}

void ti_print_hugepages(FILE *out)
{
    char shmem[32], anon[32], b[32], b2[32];
    const char *thp = "/sys/kernel/mm/transparent_hugepage";
    char path[512];
    fprintf(out, "\nHuge pages (TERN_HUGEPAGES)\n");
    tn_format_bytes((size_t)sysconf(_SC_PAGESIZE), b, sizeof(b));
    fprintf(out, "  base page          %s\n", b);

    snprintf(path, sizeof(path), "%s/shmem_enabled", thp);
    tn_thp_setting(path, shmem, sizeof(shmem));
    snprintf(path, sizeof(path), "%s/enabled", thp);
    tn_thp_setting(path, anon, sizeof(anon));
    long pmd = read_long("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
    if (pmd > 0)
        tn_format_bytes((size_t)pmd, b, sizeof(b));
    else
        snprintf(b, sizeof(b), "?");
    fprintf(out, "  THP size           %s\n", b);
    fprintf(out, "  THP shared memory  %s (%s/shmem_enabled)\n", shmem, thp);
    fprintf(out, "  THP anonymous      %s (%s/enabled)\n", anon, thp);
    int thp_shm = strcmp(shmem, "always") == 0 || strcmp(shmem, "within_size") == 0 ||
                  strcmp(shmem, "advise") == 0 || strcmp(shmem, "force") == 0;

    /* hugetlb pools, one directory per page size; segments take pages of
     * the default size (Hugepagesize in /proc/meminfo) */
    long def_kb = tn_meminfo_value("Hugepagesize"), free_default = 0;
    DIR *d = opendir("/sys/kernel/mm/hugepages");
    struct dirent *e;
    int npools = 0;
    while (d && (e = readdir(d)) != NULL) {
        long kb;
        if (sscanf(e->d_name, "hugepages-%ldkB", &kb) != 1)
            continue;
        snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/%s/nr_hugepages",
                 e->d_name);
        long nr = read_long(path);
        snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/%s/free_hugepages",
                 e->d_name);
        long fr = read_long(path);
        tn_format_bytes((size_t)kb * 1024, b, sizeof(b));
        fprintf(out, "  hugetlb %-10s %ld reserved, %ld free%s\n", b, nr, fr,
                kb == def_kb ? " (default size: used by segments)" : "");
        if (kb == def_kb && fr > 0)
            free_default = fr;
        npools++;
    }
    if (d)
        closedir(d);
    if (npools == 0)
        fprintf(out, "  hugetlb            not available\n");

    struct statvfs vfs;
    if (statvfs("/dev/shm", &vfs) == 0) {
        tn_format_bytes((size_t)vfs.f_bavail * vfs.f_frsize, b, sizeof(b));
        tn_format_bytes((size_t)vfs.f_blocks * vfs.f_frsize, b2, sizeof(b2));
        fprintf(out, "  /dev/shm           %s free of %s\n", b, b2);
    }

    if (thp_shm || free_default > 0) {
        fprintf(out, "  => huge pages available to segments:%s%s\n",
                free_default > 0 ? " hugetlb pool" : "",
                thp_shm ? (free_default > 0 ? "; transparent (shared memory THP)"
                                            : " transparent (shared memory THP)")
                        : "");
    } else {
        fprintf(out,
                "  => no huge pages for shared-memory segments: THP for shared "
                "memory is\n"
                "     '%s' and no hugetlb pages of the default size are free. To "
                "allow\n     them (as root):\n"
                "     echo advise > %s/shmem_enabled\n"
                "     or reserve pages: sysctl vm.nr_hugepages=N\n",
                shmem, thp);
    }
}

/* ---- bindings ------------------------------------------------------------ */

static const char *membind_policy_name(hwloc_membind_policy_t p)
{
    switch (p) {
    case HWLOC_MEMBIND_DEFAULT: return "default (first touch)";
    case HWLOC_MEMBIND_FIRSTTOUCH: return "first touch (default)";
    case HWLOC_MEMBIND_BIND: return "bound";
    case HWLOC_MEMBIND_INTERLEAVE: return "interleaved";
    case HWLOC_MEMBIND_NEXTTOUCH: return "next touch";
    case HWLOC_MEMBIND_MIXED: return "mixed";
    }
    return "?";
}

int ti_print_binding(void)
{
    char who[160], where[256], numa[128], mem[192], cpus[256];
    const char *r = getenv("TERN_BOOT_RANK");
    const char *s = getenv("TERN_BOOT_SIZE");
    const char *node = getenv("TERN_BOOT_NODE");
    if (r)
        snprintf(who, sizeof(who), "rank %s/%s", r, s && *s ? s : "?");
    else if (getenv("PMIX_RANK"))
        snprintf(who, sizeof(who), "rank %s (PMIx)", getenv("PMIX_RANK"));
    else
        snprintf(who, sizeof(who), "not in a job (no TERN_BOOT_RANK)");
    snprintf(where, sizeof(where), "host %s%s%s pid %ld", tn_log_host(),
             node && *node ? " node " : "", node && *node ? node : "", (long)getpid());

    hwloc_bitmap_t aff = affinity_bitmap();
    if (!aff) {
        fprintf(stderr, "tern-info: sched_getaffinity failed\n");
        return 1;
    }
    list_text(aff, cpus, sizeof(cpus));
    int npu = hwloc_bitmap_weight(aff);
    const tn_topo_t *t = tn_topo_get();
    const char *scope = "";
    snprintf(numa, sizeof(numa), "NUMA ?");
    mem[0] = '\0';
    int ncores = -1;
    if (t) {
        hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(t->h);
        scope = hwloc_bitmap_isincluded(all, aff) ? " (every PU of the node)" : "";
        ncores = hwloc_get_nbobjs_inside_cpuset_by_type(t->h, aff, HWLOC_OBJ_CORE);
        /* the NUMA domains whose PUs this process may use */
        hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
        int nn = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_NUMANODE);
        for (int i = 0; nodes && i < nn; i++) {
            hwloc_obj_t o = hwloc_get_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, (unsigned)i);
            if (hwloc_bitmap_intersects(o->cpuset, aff))
                hwloc_bitmap_set(nodes, (unsigned)i);
        }
        char list[96];
        list_text(nodes, list, sizeof(list));
        int w = hwloc_bitmap_weight(nodes);
        snprintf(numa, sizeof(numa), "NUMA %s%s", list, w > 1 ? " (spans domains)" : "");
        hwloc_bitmap_free(nodes);

        hwloc_nodeset_t ns = hwloc_bitmap_alloc();
        hwloc_membind_policy_t pol;
        if (ns && hwloc_get_membind(t->h, ns, &pol, HWLOC_MEMBIND_BYNODESET) == 0) {
            if (pol == HWLOC_MEMBIND_DEFAULT || pol == HWLOC_MEMBIND_FIRSTTOUCH)
                snprintf(mem, sizeof(mem), ", memory %s", membind_policy_name(pol));
            else {
                /* the nodeset holds OS indices; show logical ones */
                hwloc_bitmap_t logical = hwloc_bitmap_alloc();
                for (int i = 0; logical && i < nn; i++) {
                    hwloc_obj_t o =
                        hwloc_get_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, (unsigned)i);
                    if (hwloc_bitmap_isset(ns, o->os_index))
                        hwloc_bitmap_set(logical, (unsigned)i);
                }
                list_text(logical, list, sizeof(list));
                hwloc_bitmap_free(logical);
                snprintf(mem, sizeof(mem), ", memory %s to NUMA %s",
                         membind_policy_name(pol), list);
            }
        }
        hwloc_bitmap_free(ns);
    }
    hwloc_bitmap_free(aff);

    /* one write, so that the lines of many ranks do not interleave */
    char line[1024];
    int n;
    if (ncores >= 0)
        n = snprintf(line, sizeof(line),
                     "%s %s: cpus %s (%d PU%s, %d whole core%s)%s, %s%s\n", who, where,
                     cpus, npu, npu == 1 ? "" : "s", ncores, ncores == 1 ? "" : "s",
                     scope, numa, mem);
    else
        n = snprintf(line, sizeof(line), "%s %s: cpus %s (%d PU%s), %s\n", who, where,
                     cpus, npu, npu == 1 ? "" : "s", numa);
    if (n < 0)
        return 1;
    size_t len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
    fflush(stdout);
    return write(STDOUT_FILENO, line, len) == (ssize_t)len ? 0 : 1;
}
