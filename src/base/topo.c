/* hwloc topology: loading (this machine, XML, synthetic), the network
 * devices with their locality, and the pure functions on CPU sets that
 * placement, distance classes and memory placement are built from. */
#include "base/topo.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern/status.h>

#include "base/log.h"
#include "base/mem.h"

/* ---- loading ------------------------------------------------------------- */

static int count(hwloc_topology_t h, hwloc_obj_type_t t)
{
    int n = hwloc_get_nbobjs_by_type(h, t);
    return n < 0 ? 0 : n;
}

hwloc_obj_t tn_topo_package_of(hwloc_topology_t h, hwloc_obj_t o)
{
    if (o && o->type == HWLOC_OBJ_PACKAGE)
        return o;
    return o ? hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_PACKAGE, o) : NULL;
}

/* Logical index of the only NUMA domain of nodeset, or -1. */
static int single_numa(hwloc_topology_t h, hwloc_const_nodeset_t ns)
{
    if (!ns || hwloc_bitmap_weight(ns) != 1)
        return -1;
    hwloc_obj_t n =
        hwloc_get_numanode_obj_by_os_index(h, (unsigned)hwloc_bitmap_first(ns));
    return n ? (int)n->logical_index : -1;
}

static void nic_add_name(tn_topo_nic_t *nic, const char *name, int main_name)
{
    if (nic->nnames >= TN_TOPO_NIC_NAMES)
        return;
    int at = nic->nnames++;
    if (main_name) { /* the OpenFabrics name leads: it is what providers use */
        memmove(nic->names[1], nic->names[0], sizeof(nic->names[0]) * (size_t)at);
        at = 0;
    }
    snprintf(nic->names[at], sizeof(nic->names[at]), "%s", name);
    snprintf(nic->name, sizeof(nic->name), "%s", nic->names[0]);
}

/* One entry per PCI function that has a network or OpenFabrics OS
 * device. */
static int find_nics(tn_topo_t *t)
{
    hwloc_topology_t h = t->h;
    int max = 0;
    for (hwloc_obj_t o = hwloc_get_next_osdev(h, NULL); o; o = hwloc_get_next_osdev(h, o))
        max++;
    if (max == 0)
        return 0;
    hwloc_obj_t *owner = calloc((size_t)max, sizeof(*owner));
    t->nics = calloc((size_t)max, sizeof(*t->nics));
    if (!owner || !t->nics) {
        free(owner);
        return -1;
    }
    for (hwloc_obj_t o = hwloc_get_next_osdev(h, NULL); o;
         o = hwloc_get_next_osdev(h, o)) {
        hwloc_obj_osdev_type_t ty = o->attr->osdev.type;
        if (ty != HWLOC_OBJ_OSDEV_NETWORK && ty != HWLOC_OBJ_OSDEV_OPENFABRICS)
            continue;
        hwloc_obj_t pci =
            o->parent && o->parent->type == HWLOC_OBJ_PCI_DEVICE ? o->parent : o;
        tn_topo_nic_t *nic = NULL;
        for (int i = 0; i < t->nnics; i++)
            if (owner[i] == pci)
                nic = &t->nics[i];
        if (!nic) {
            owner[t->nnics] = pci;
            nic = &t->nics[t->nnics++];
            if (pci->type == HWLOC_OBJ_PCI_DEVICE)
                snprintf(nic->pci, sizeof(nic->pci), "%04x:%02x:%02x.%01x",
                         pci->attr->pcidev.domain, pci->attr->pcidev.bus,
                         pci->attr->pcidev.dev, pci->attr->pcidev.func);
            hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(h, o);
            if (!anc)
                anc = hwloc_get_root_obj(h);
            nic->ancestor = anc;
            nic->cpuset = hwloc_bitmap_dup(anc->cpuset);
            nic->numa = t->nnuma == 1 ? 0 : single_numa(h, anc->nodeset);
            hwloc_obj_t pk = tn_topo_package_of(h, anc);
            nic->package = pk ? (int)pk->logical_index : (t->npackages == 1 ? 0 : -1);
            if (!nic->cpuset) {
                free(owner);
                return -1;
            }
        }
        nic_add_name(nic, o->name ? o->name : "?", ty == HWLOC_OBJ_OSDEV_OPENFABRICS);
    }
    free(owner);
    return 0;
}

static void fill_counts(tn_topo_t *t)
{
    hwloc_topology_t h = t->h;
    t->npackages = count(h, HWLOC_OBJ_PACKAGE);
    t->nnuma = count(h, HWLOC_OBJ_NUMANODE);
    if (t->nnuma < 1)
        t->nnuma = 1;
    t->nl3 = count(h, HWLOC_OBJ_L3CACHE);
    t->ncores = count(h, HWLOC_OBJ_CORE);
    t->npus = count(h, HWLOC_OBJ_PU);
    if (t->ncores < 1)
        t->ncores = t->npus;
    hwloc_obj_t l3 = hwloc_get_obj_by_type(h, HWLOC_OBJ_L3CACHE, 0);
    t->l3_bytes = l3 && l3->attr ? (size_t)l3->attr->cache.size : 0;
    t->mem_bytes = (size_t)hwloc_get_root_obj(h)->total_memory;
    t->thissystem = hwloc_topology_is_thissystem(h);
}

int tn_topo_load(const tn_topo_src_t *src, tn_topo_t **out, char *err, size_t errlen)
{
    tn_topo_t *t = calloc(1, sizeof(*t));
    if (!t || hwloc_topology_init(&t->h) != 0) {
        snprintf(err, errlen, "hwloc_topology_init failed: %s", strerror(errno));
        free(t);
        return TERN_ERR_SYS;
    }
    int rc = 0;
    const char *what = "this machine";
    if (src->synthetic) {
        rc = hwloc_topology_set_synthetic(t->h, src->synthetic);
        what = "synthetic description";
        snprintf(t->source, sizeof(t->source), "synthetic '%.160s'", src->synthetic);
    } else if (src->xml_path) {
        rc = hwloc_topology_set_xml(t->h, src->xml_path);
        what = "XML file";
        snprintf(t->source, sizeof(t->source), "XML file %.170s", src->xml_path);
    } else if (src->xml_buffer) {
        rc = hwloc_topology_set_xmlbuffer(t->h, src->xml_buffer,
                                          (int)strlen(src->xml_buffer) + 1);
        what = "XML text";
        snprintf(t->source, sizeof(t->source), "XML text");
    } else {
        snprintf(t->source, sizeof(t->source), "this machine");
    }
    if (rc != 0) {
        int e = errno;
        snprintf(err, errlen, "hwloc cannot read the %s %s%.200s%s: %s", what,
                 src->xml_path    ? "'"
                 : src->synthetic ? "'"
                                  : "",
                 src->xml_path    ? src->xml_path
                 : src->synthetic ? src->synthetic
                                  : "",
                 src->xml_path || src->synthetic ? "'" : "",
                 e == ENOENT   ? "no such file"
                 : e == EINVAL ? "malformed"
                               : strerror(e));
        hwloc_topology_destroy(t->h);
        free(t);
        return TERN_ERR_CONFIG;
    }
    if (src->io)
        hwloc_topology_set_io_types_filter(t->h, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(t->h) != 0) {
        snprintf(err, errlen, "hwloc cannot load the topology from the %s: %s", what,
                 strerror(errno));
        hwloc_topology_destroy(t->h);
        free(t);
        return src->synthetic || src->xml_path || src->xml_buffer ? TERN_ERR_CONFIG
                                                                  : TERN_ERR_SYS;
    }
    fill_counts(t);
    t->has_io = src->io;
    if (src->io && find_nics(t) != 0) {
        snprintf(err, errlen, "out of memory listing network devices");
        tn_topo_destroy(t);
        return TERN_ERR_NOMEM;
    }
    *out = t;
    return TERN_OK;
}

void tn_topo_destroy(tn_topo_t *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nnics; i++)
        hwloc_bitmap_free(t->nics[i].cpuset);
    free(t->nics);
    hwloc_topology_destroy(t->h);
    free(t);
}

/* ---- the process's topology ------------------------------------------------ */

static tn_topo_t *plain, *with_io;  /* loaded on demand */
static int plain_failed, io_failed; /* logged once */
static pthread_mutex_t topo_lock = PTHREAD_MUTEX_INITIALIZER;

/* From HWLOC_SYNTHETIC or HWLOC_XMLFILE (hwloc's order) when set. We pass
 * them to hwloc ourselves: hwloc alone would silently fall back to this
 * machine when they are malformed. */
static size_t topo_bytes; /* RssAnon growth across the loads (topo_lock) */

size_t tn_topo_bytes(void)
{
    pthread_mutex_lock(&topo_lock);
    size_t b = topo_bytes;
    pthread_mutex_unlock(&topo_lock);
    return b;
}

static tn_topo_t *load_process(int io)
{
    tn_topo_src_t src = {.io = io};
    const char *syn = getenv("HWLOC_SYNTHETIC"), *xml = getenv("HWLOC_XMLFILE");
    const char *var = NULL;
    if (syn && *syn) {
        src.synthetic = syn;
        var = "HWLOC_SYNTHETIC";
    } else if (xml && *xml) {
        src.xml_path = xml;
        var = "HWLOC_XMLFILE";
    }
    char err[512];
    tn_topo_t *t = NULL;
    size_t rss0 = tn_mem_rss_anon();
    int rc = tn_topo_load(&src, &t, err, sizeof(err));
    topo_bytes += tn_mem_growth(rss0);
    if (rc != TERN_OK) {
        if (var)
            tn_error("%s: %s: fix it or unset %s", var, err, var);
        else
            tn_warn("%s; assuming one NUMA domain", err);
        return NULL;
    }
    if (var)
        snprintf(t->source, sizeof(t->source), "%s=%.170s", var,
                 src.synthetic ? src.synthetic : src.xml_path);
    return t;
}

const tn_topo_t *tn_topo_get(void)
{
    pthread_mutex_lock(&topo_lock);
    if (!with_io && !plain && !plain_failed) {
        plain = load_process(0);
        plain_failed = !plain;
    }
    const tn_topo_t *t = with_io ? with_io : plain;
    pthread_mutex_unlock(&topo_lock);
    return t;
}

const tn_topo_t *tn_topo_get_io(void)
{
    pthread_mutex_lock(&topo_lock);
    if (!with_io && !io_failed) {
        with_io = load_process(1);
        io_failed = !with_io;
    }
    pthread_mutex_unlock(&topo_lock);
    return with_io;
}

void tn_topo_release(void)
{
    pthread_mutex_lock(&topo_lock);
    tn_topo_destroy(plain);
    tn_topo_destroy(with_io);
    plain = with_io = NULL;
    plain_failed = io_failed = 0;
    pthread_mutex_unlock(&topo_lock);
}

hwloc_const_cpuset_t tn_topo_numa_cpuset(int i)
{
    const tn_topo_t *t = tn_topo_get();
    if (!t)
        return NULL;
    hwloc_obj_t o = hwloc_get_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, (unsigned)i);
    return o ? o->cpuset : NULL;
}

int tn_topo_allowed_pus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return 1;
    int n = CPU_COUNT(&set);
    return n > 0 ? n : 1;
}

int tn_topo_job_pus(const tn_topo_t *t)
{
    int pus = t ? t->npus : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (t && !t->thissystem)
        return pus; /* a simulated machine: the test sets its own layout */
    int allowed = tn_topo_allowed_pus();
    return allowed > 1 && allowed < pus ? allowed : pus;
}

int tn_topo_my_cpuset(const tn_topo_t *t, hwloc_bitmap_t out)
{
    hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(t->h);
    if (t->thissystem) {
        if (hwloc_get_cpubind(t->h, out, HWLOC_CPUBIND_THREAD) == 0 &&
            !hwloc_bitmap_iszero(out))
            return 0;
        hwloc_bitmap_copy(out, all);
        return -1;
    }
    /* Simulated topology: the CPU set ternrun planned for this rank. */
    const char *plan = getenv("TERN_BOOT_CPUSET");
    if (plan && *plan && hwloc_bitmap_list_sscanf(out, plan) == 0 &&
        hwloc_bitmap_isincluded(out, all) && !hwloc_bitmap_iszero(out))
        return 0;
    hwloc_bitmap_copy(out, all);
    return 0;
}

/* ---- places ----------------------------------------------------------------- */

/* set, or the whole machine when set has no CPU of t. */
static hwloc_bitmap_t effective(const tn_topo_t *t, hwloc_const_cpuset_t set)
{
    hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(t->h);
    hwloc_bitmap_t e = hwloc_bitmap_alloc();
    if (!e)
        return NULL;
    if (set)
        hwloc_bitmap_and(e, set, all);
    if (hwloc_bitmap_iszero(e))
        hwloc_bitmap_copy(e, all);
    return e;
}

int tn_topo_numa_of(const tn_topo_t *t, hwloc_const_cpuset_t set, hwloc_bitmap_t out)
{
    hwloc_bitmap_zero(out);
    hwloc_bitmap_t e = effective(t, set);
    int total = count(t->h, HWLOC_OBJ_NUMANODE);
    for (int i = 0; e && i < total; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, (unsigned)i);
        if (o && o->cpuset && hwloc_bitmap_intersects(o->cpuset, e))
            hwloc_bitmap_set(out, o->logical_index);
    }
    hwloc_bitmap_free(e);
    if (hwloc_bitmap_iszero(out))
        hwloc_bitmap_set(out, 0); /* no NUMA object: one domain */
    return hwloc_bitmap_weight(out);
}

const tn_topo_nic_t *tn_topo_nic_find(const tn_topo_t *t, const char *name)
{
    for (int i = 0; name && i < t->nnics; i++) {
        const tn_topo_nic_t *n = &t->nics[i];
        for (int k = 0; k < n->nnames; k++)
            if (strcmp(n->names[k], name) == 0)
                return n;
        if (n->pci[0] && (strcmp(n->pci, name) == 0 ||
                          strcmp(n->pci + 5, name) == 0)) /* without domain */
            return n;
    }
    return NULL;
}

/* Smallest normal object covering set (set non-empty). */
static hwloc_obj_t covering(const tn_topo_t *t, hwloc_const_cpuset_t set)
{
    hwloc_obj_t o = hwloc_get_obj_covering_cpuset(t->h, set);
    return o ? o : hwloc_get_root_obj(t->h);
}

const tn_topo_nic_t *tn_topo_nic_nearest(const tn_topo_t *t, hwloc_const_cpuset_t set)
{
    if (t->nnics == 0)
        return NULL;
    hwloc_bitmap_t e = effective(t, set);
    if (!e)
        return &t->nics[0];
    hwloc_obj_t where = covering(t, e);
    const tn_topo_nic_t *best = NULL;
    int best_depth = -1;
    for (int i = 0; i < t->nnics; i++) {
        hwloc_obj_t c = hwloc_get_common_ancestor_obj(t->h, where, t->nics[i].ancestor);
        int d = c ? c->depth : 0;
        if (d > best_depth) {
            best_depth = d;
            best = &t->nics[i];
        }
    }
    hwloc_bitmap_free(e);
    return best;
}

const char *tn_dist_name(int d)
{
    static const char *const names[] = {"self", "same-l3", "same-numa", "other-numa",
                                        "other-package"};
    return d >= 0 && d < TN_DIST_COUNT ? names[d] : "?";
}

/* Is set inside one object of type? */
static int inside_one(const tn_topo_t *t, hwloc_obj_type_t type, hwloc_const_cpuset_t set)
{
    int n = count(t->h, type);
    for (int i = 0; i < n; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(t->h, type, (unsigned)i);
        if (o && o->cpuset && hwloc_bitmap_isincluded(set, o->cpuset))
            return 1;
    }
    return 0;
}

tn_dist_t tn_topo_distance(const tn_topo_t *t, hwloc_const_cpuset_t a,
                           hwloc_const_cpuset_t b)
{
    hwloc_bitmap_t ea = effective(t, a), eb = effective(t, b);
    tn_dist_t d = TN_DIST_XPKG;
    if (ea && eb) {
        hwloc_bitmap_or(ea, ea, eb);
        if (t->nl3 > 0 && inside_one(t, HWLOC_OBJ_L3CACHE, ea))
            d = TN_DIST_L3;
        else if (t->nnuma == 1 || inside_one(t, HWLOC_OBJ_NUMANODE, ea))
            d = TN_DIST_NUMA;
        else if (t->npackages <= 1 || inside_one(t, HWLOC_OBJ_PACKAGE, ea))
            d = TN_DIST_XNUMA;
    }
    hwloc_bitmap_free(ea);
    hwloc_bitmap_free(eb);
    return d;
}

int tn_topo_is_placed(const tn_topo_t *t, hwloc_const_cpuset_t set)
{
    hwloc_bitmap_t e = effective(t, set);
    int placed = 0;
    if (e)
        placed = t->nl3 > 0 ? inside_one(t, HWLOC_OBJ_L3CACHE, e)
                            : t->nnuma == 1 || inside_one(t, HWLOC_OBJ_NUMANODE, e);
    hwloc_bitmap_free(e);
    return placed;
}
