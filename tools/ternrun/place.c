/* Placement plans for ternrun (place.h): usable cores ordered by the
 * mapping, widened by the binding level. */
#include "place.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern/status.h>

static int type_count(hwloc_topology_t h, hwloc_obj_type_t t)
{
    int n = hwloc_get_nbobjs_by_type(h, t);
    return n < 0 ? 0 : n;
}

typedef struct slot {
    hwloc_obj_t obj; /* core or PU */
    int group;       /* package or NUMA domain, for round-robin maps */
    int key1, key2;  /* dist order: nearer first */
} slot_t;

/* Logical index of the NUMA domain holding obj's CPUs (the first one). */
static int numa_index_of(const tn_topo_t *t, hwloc_obj_t obj)
{
    int n = type_count(t->h, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < n; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, (unsigned)i);
        if (o->cpuset && hwloc_bitmap_isincluded(obj->cpuset, o->cpuset))
            return i;
    }
    return 0;
}

static hwloc_obj_type_t slot_type(const tn_topo_t *t)
{
    return type_count(t->h, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
}

/* The usable slots (cores meeting allowed), in logical order. */
static int usable_slots(const tn_topo_t *t, hwloc_const_cpuset_t allowed, slot_t **out)
{
    hwloc_obj_type_t st = slot_type(t);
    int total = type_count(t->h, st), n = 0;
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
        hwloc_obj_t p = tn_topo_package_of(t->h, obj);
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
                hwloc_obj_t p = tn_topo_package_of(t->h, s[i].obj);
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
