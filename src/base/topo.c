/* hwloc topology: loading (this machine, XML, synthetic), the network
 * devices with their locality, and the pure functions on CPU sets that
 * placement, distance classes and memory placement are built from. */
#include "base/topo.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern/status.h>

#include "base/log.h"

/* ---- loading ------------------------------------------------------------- */

static int count(hwloc_topology_t h, hwloc_obj_type_t t)
{
    int n = hwloc_get_nbobjs_by_type(h, t);
    return n < 0 ? 0 : n;
}

static hwloc_obj_t package_of(hwloc_topology_t h, hwloc_obj_t o)
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
            hwloc_obj_t pk = package_of(h, anc);
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
    if (tn_topo_load(&src, &t, err, sizeof(err)) != TERN_OK) {
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

/* ---- placement plans ------------------------------------------------------- */

typedef struct slot {
    hwloc_obj_t obj; /* core or PU */
    int group;       /* package or NUMA domain, for round-robin maps */
    int key1, key2;  /* dist order: nearer first */
} slot_t;

/* Logical index of the NUMA domain holding obj's CPUs (the first one). */
static int numa_index_of(const tn_topo_t *t, hwloc_obj_t obj)
{
    int n = count(t->h, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < n; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, (unsigned)i);
        if (o->cpuset && hwloc_bitmap_isincluded(obj->cpuset, o->cpuset))
            return i;
    }
    return 0;
}

static hwloc_obj_type_t slot_type(const tn_topo_t *t)
{
    return count(t->h, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
}

/* The usable slots (cores meeting allowed), in logical order. */
static int usable_slots(const tn_topo_t *t, hwloc_const_cpuset_t allowed, slot_t **out)
{
    hwloc_obj_type_t st = slot_type(t);
    int total = count(t->h, st), n = 0;
    slot_t *s = calloc((size_t)(total > 0 ? total : 1), sizeof(*s));
    if (!s)
        return -1;
    for (int i = 0; i < total; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(t->h, st, (unsigned)i);
        if (o && o->cpuset && hwloc_bitmap_intersects(o->cpuset, allowed))
            s[n++].obj = o;
    }
    *out = s;
    return n;
}

/* Distance of NUMA domains a and b (logical) from hwloc's matrix, or 0. */
static int numa_distance(const tn_topo_t *t, int a, int b)
{
    struct hwloc_distances_s *d[1];
    unsigned nr = 1;
    int v = 0;
    if (a < 0 || b < 0 ||
        hwloc_distances_get_by_type(t->h, HWLOC_OBJ_NUMANODE, &nr, d,
                                    HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) != 0 ||
        nr == 0)
        return 0;
    hwloc_obj_t oa = hwloc_get_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, (unsigned)a);
    hwloc_obj_t ob = hwloc_get_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, (unsigned)b);
    hwloc_uint64_t ab, ba;
    if (oa && ob && hwloc_distances_obj_pair_values(d[0], oa, ob, &ab, &ba) == 0)
        v = (int)ab;
    hwloc_distances_release(t->h, d[0]);
    return v;
}

static int cmp_dist(const void *pa, const void *pb)
{
    const slot_t *a = pa, *b = pb;
    if (a->key1 != b->key1)
        return a->key1 < b->key1 ? -1 : 1;
    if (a->key2 != b->key2)
        return a->key2 < b->key2 ? -1 : 1;
    return a->obj->logical_index < b->obj->logical_index ? -1 : 1;
}

/* Sorts slots nearest to nic first: the deeper the common ancestor of a
 * core and the device, the nearer; then hwloc's NUMA distances (when the
 * machine publishes them); then logical order. */
static void order_dist(const tn_topo_t *t, const tn_topo_nic_t *nic, slot_t *s, int n)
{
    for (int i = 0; i < n; i++) {
        hwloc_obj_t c = hwloc_get_common_ancestor_obj(t->h, s[i].obj, nic->ancestor);
        s[i].key1 = -(c ? c->depth : 0);
        s[i].key2 = numa_distance(t, numa_index_of(t, s[i].obj), nic->numa);
    }
    qsort(s, (size_t)n, sizeof(*s), cmp_dist);
}

/* Round-robin over groups (packages or NUMA domains) in ascending order,
 * each group's slots in their order: g0 s0, g1 s0, g0 s1, g1 s1, ... */
static void order_round_robin(slot_t *s, int n)
{
    slot_t *tmp = malloc((size_t)n * sizeof(*tmp));
    char *used = calloc((size_t)n, 1);
    if (!tmp || !used) {
        free(tmp);
        free(used);
        return; /* keep packed order */
    }
    int maxg = 0;
    for (int i = 0; i < n; i++)
        if (s[i].group > maxg)
            maxg = s[i].group;
    int k = 0;
    while (k < n)
        for (int g = 0; g <= maxg; g++)
            for (int i = 0; i < n; i++)
                if (!used[i] && s[i].group == g) {
                    used[i] = 1;
                    tmp[k++] = s[i];
                    break;
                }
    memcpy(s, tmp, (size_t)n * sizeof(*s));
    free(tmp);
    free(used);
}

int tn_topo_dist_order(const tn_topo_t *t, const tn_topo_nic_t *nic,
                       hwloc_const_cpuset_t allowed, int *order, int max)
{
    slot_t *s;
    int n =
        usable_slots(t, allowed ? allowed : hwloc_topology_get_allowed_cpuset(t->h), &s);
    if (n < 0)
        return -1;
    order_dist(t, nic, s, n);
    for (int i = 0; i < n && i < max; i++)
        order[i] = (int)s[i].obj->logical_index;
    free(s);
    return n < max ? n : max;
}

static void nic_names(const tn_topo_t *t, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < t->nnics && off + 40 < len; i++)
        for (int k = 0; k < t->nics[i].nnames && off + 40 < len; k++)
            off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
                                    t->nics[i].names[k]);
}

static const char *bind_name(int b)
{
    switch (b) {
    case TN_BIND_CORE: return "core";
    case TN_BIND_L3: return "l3";
    case TN_BIND_NUMA: return "numa";
    case TN_BIND_PACKAGE: return "package";
    default: return "none";
    }
}

/* The object of the binding level holding slot obj; NULL for none. */
static hwloc_obj_t bind_obj(const tn_topo_t *t, int bind, hwloc_obj_t obj)
{
    switch (bind) {
    case TN_BIND_CORE: return obj;
    case TN_BIND_L3: return hwloc_get_ancestor_obj_by_type(t->h, HWLOC_OBJ_L3CACHE, obj);
    case TN_BIND_NUMA:
        return hwloc_get_obj_by_type(t->h, HWLOC_OBJ_NUMANODE,
                                     (unsigned)numa_index_of(t, obj));
    case TN_BIND_PACKAGE: {
        hwloc_obj_t p = package_of(t->h, obj);
        return p ? p : hwloc_get_root_obj(t->h);
    }
    default: return NULL;
    }
}

int tn_topo_place(const tn_topo_t *t, const tn_place_req_t *req, tn_place_t *out,
                  char *note, size_t notelen, char *err, size_t errlen)
{
    note[0] = '\0';
    memset(out, 0, sizeof(*out) * (size_t)req->n);
    hwloc_bitmap_t allowed = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(t->h));
    if (!allowed) {
        snprintf(err, errlen, "out of memory");
        return TERN_ERR_NOMEM;
    }
    if (req->allowed)
        hwloc_bitmap_and(allowed, allowed, req->allowed);
    if (hwloc_bitmap_iszero(allowed)) {
        snprintf(err, errlen,
                 "no CPU of the topology is usable (the allowed "
                 "set does not meet it)");
        hwloc_bitmap_free(allowed);
        return TERN_ERR_CONFIG;
    }
    slot_t *s = NULL;
    int ns = usable_slots(t, allowed, &s);
    int rc = TERN_OK;
    const char *unit_name = slot_type(t) == HWLOC_OBJ_CORE ? "core" : "PU";
    const char *cores = slot_type(t) == HWLOC_OBJ_CORE ? "cores" : "PUs";
    int bind = req->bind;
    if (ns <= 0) {
        snprintf(err, errlen, ns < 0 ? "out of memory" : "no usable core");
        rc = ns < 0 ? TERN_ERR_NOMEM : TERN_ERR_CONFIG;
        goto out;
    }
    if (bind == TN_BIND_AUTO) {
        if (req->n <= ns) {
            bind = TN_BIND_CORE;
            snprintf(note, notelen,
                     "binding each rank to a core (default: %d ranks, "
                     "%d %s usable)",
                     req->n, ns, cores);
        } else {
            bind = TN_BIND_NONE;
            snprintf(note, notelen,
                     "not binding (default): %d ranks but only %d %s "
                     "usable, so ranks would share %s; --bind-to core "
                     "--oversubscribe forces round-robin, --bind-to "
                     "numa binds to domains",
                     req->n, ns, cores, cores);
        }
    } else if (bind != TN_BIND_NONE && req->n > ns) {
        if (!req->oversubscribe) {
            snprintf(err, errlen,
                     "%d ranks but only %d %s usable for --bind-to %s: "
                     "ranks would share %s. Run at most %d ranks, or add "
                     "--oversubscribe to share them round-robin, or use "
                     "--bind-to none",
                     req->n, ns, cores, bind_name(bind), cores, ns);
            rc = TERN_ERR_CONFIG;
            goto out;
        }
        snprintf(note, notelen, "oversubscribed: %d ranks on %d %s, up to %d per %s",
                 req->n, ns, cores, (req->n + ns - 1) / ns, unit_name);
    }
    if (bind == TN_BIND_L3 && t->nl3 == 0) {
        snprintf(err, errlen,
                 "--bind-to l3: this node has no L3 cache that hwloc can "
                 "see; use --bind-to numa or package");
        rc = TERN_ERR_CONFIG;
        goto out;
    }

    switch (req->map) {
    case TN_MAP_SPREAD:
    case TN_MAP_NUMA:
        for (int i = 0; i < ns; i++) {
            if (req->map == TN_MAP_NUMA) {
                s[i].group = numa_index_of(t, s[i].obj);
            } else {
                hwloc_obj_t p = package_of(t->h, s[i].obj);
                s[i].group = p ? (int)p->logical_index : 0;
            }
        }
        order_round_robin(s, ns);
        break;
    case TN_MAP_DIST: {
        const tn_topo_nic_t *nic = tn_topo_nic_find(t, req->device);
        if (!nic) {
            char names[256];
            nic_names(t, names, sizeof(names));
            if (names[0])
                snprintf(err, errlen,
                         "--map-by dist:%s: no network device named '%s' "
                         "on this node; its devices are: %s (tern-info "
                         "lists them with their nearest cores)",
                         req->device ? req->device : "", req->device ? req->device : "",
                         names);
            else
                snprintf(err, errlen,
                         "--map-by dist:%s: this node has no network "
                         "device that hwloc can see (tern-info lists the "
                         "topology)",
                         req->device ? req->device : "");
            rc = TERN_ERR_CONFIG;
            goto out;
        }
        order_dist(t, nic, s, ns);
        break;
    }
    default: break;
    }

    for (int i = 0; i < req->n; i++) {
        tn_place_t *p = &out[i];
        hwloc_obj_t slot = s[i % ns].obj;
        hwloc_obj_t b = bind_obj(t, bind, slot);
        p->cpuset = hwloc_bitmap_alloc();
        if (!p->cpuset) {
            snprintf(err, errlen, "out of memory");
            rc = TERN_ERR_NOMEM;
            goto out;
        }
        if (b) {
            hwloc_bitmap_and(p->cpuset, b->cpuset, allowed);
            p->bound = 1;
            p->slot = (int)slot->logical_index;
            const char *un = bind == TN_BIND_CORE   ? unit_name
                             : bind == TN_BIND_L3   ? "L3"
                             : bind == TN_BIND_NUMA ? "NUMA"
                                                    : "package";
            if (b->type == HWLOC_OBJ_MACHINE)
                snprintf(p->unit, sizeof(p->unit), "machine");
            else
                snprintf(p->unit, sizeof(p->unit), "%s %u", un, b->logical_index);
        } else {
            hwloc_bitmap_copy(p->cpuset, allowed);
            p->slot = -1;
            snprintf(p->unit, sizeof(p->unit), "not bound");
        }
        hwloc_bitmap_t doms = hwloc_bitmap_alloc();
        if (doms) {
            tn_topo_numa_of(t, p->cpuset, doms);
            hwloc_bitmap_list_snprintf(p->numa, sizeof(p->numa), doms);
            hwloc_bitmap_free(doms);
        }
        p->nic = tn_topo_nic_nearest(t, p->cpuset);
    }
out:
    if (rc != TERN_OK)
        tn_topo_place_free(out, req->n);
    free(s);
    hwloc_bitmap_free(allowed);
    return rc;
}

void tn_topo_place_free(tn_place_t *p, int n)
{
    for (int i = 0; p && i < n; i++) {
        hwloc_bitmap_free(p[i].cpuset);
        p[i].cpuset = NULL;
    }
}
