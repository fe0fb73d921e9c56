/* hwloc topology, loaded once and shared by every layer. */
#include "base/topo.h"

#include <pthread.h>
#include <sched.h>

#include "base/log.h"

static tn_topo_t topo;
static int topo_state; /* 0 not loaded, 1 ok, -1 failed */
static pthread_mutex_t topo_lock = PTHREAD_MUTEX_INITIALIZER;

static int count(hwloc_obj_type_t t)
{
    int n = hwloc_get_nbobjs_by_type(topo.h, t);
    return n < 0 ? 0 : n;
}

static int load(void)
{
    if (hwloc_topology_init(&topo.h) != 0)
        return -1;
    if (hwloc_topology_load(topo.h) != 0) {
        hwloc_topology_destroy(topo.h);
        return -1;
    }
    topo.npackages = count(HWLOC_OBJ_PACKAGE);
    topo.nnuma = count(HWLOC_OBJ_NUMANODE);
    if (topo.nnuma < 1)
        topo.nnuma = 1;
    topo.nl3 = count(HWLOC_OBJ_L3CACHE);
    topo.ncores = count(HWLOC_OBJ_CORE);
    topo.npus = count(HWLOC_OBJ_PU);
    if (topo.ncores < 1)
        topo.ncores = topo.npus;
    hwloc_obj_t l3 = hwloc_get_obj_by_type(topo.h, HWLOC_OBJ_L3CACHE, 0);
    topo.l3_bytes = l3 && l3->attr ? (size_t)l3->attr->cache.size : 0;
    hwloc_obj_t root = hwloc_get_root_obj(topo.h);
    topo.mem_bytes = (size_t)root->total_memory;
    return 1;
}

const tn_topo_t *tn_topo_get(void)
{
    pthread_mutex_lock(&topo_lock);
    if (topo_state == 0) {
        topo_state = load();
        if (topo_state < 0)
            tn_warn("hwloc could not load this machine's topology; "
                    "assuming one NUMA domain");
    }
    pthread_mutex_unlock(&topo_lock);
    return topo_state > 0 ? &topo : NULL;
}

void tn_topo_release(void)
{
    pthread_mutex_lock(&topo_lock);
    if (topo_state > 0)
        hwloc_topology_destroy(topo.h);
    topo_state = 0;
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
