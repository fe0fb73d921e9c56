/* Where each rank runs: the plan is made with hwloc before any rank starts
 * and applied in the child before exec (spawn.c), so a rank's first touch
 * of memory already happens on its own core and NUMA domain. */
#include "ternrun.h"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/topo.h"

/* Binding units (cores or NUMA domains) that share CPUs with what this
 * process may use: an outer binding (taskset, a batch system's cgroup) is
 * respected, not escaped. Returns the count; sets are allowed ∩ unit. */
static int units_of(hwloc_topology_t h, hwloc_obj_type_t type,
                    hwloc_const_bitmap_t allowed, hwloc_bitmap_t *sets,
                    int *index, int max)
{
    int n = 0;
    int total = hwloc_get_nbobjs_by_type(h, type);
    for (int i = 0; i < total && n < max; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(h, type, (unsigned)i);
        if (!o || !o->cpuset || !hwloc_bitmap_intersects(o->cpuset, allowed))
            continue;
        sets[n] = hwloc_bitmap_alloc();
        hwloc_bitmap_and(sets[n], o->cpuset, allowed);
        index[n++] = (int)o->logical_index;
    }
    return n;
}

/* NUMA domains (logical indexes, list form) whose CPUs meet set. */
static void numa_of(hwloc_topology_t h, hwloc_const_bitmap_t set, char *buf,
                    size_t len)
{
    hwloc_bitmap_t doms = hwloc_bitmap_alloc();
    int total = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < total; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)i);
        if (o && o->cpuset && hwloc_bitmap_intersects(o->cpuset, set))
            hwloc_bitmap_set(doms, o->logical_index);
    }
    if (hwloc_bitmap_iszero(doms))
        snprintf(buf, len, "0");
    else
        hwloc_bitmap_list_snprintf(buf, len, doms);
    hwloc_bitmap_free(doms);
}

static void plan_nodes(tr_job_t *job)
{
    for (int i = 0; i < job->n; i++) {
        tr_rank_t *r = &job->ranks[i];
        if (job->nodes <= 1)
            snprintf(r->node, sizeof(r->node), "%s", job->host);
        else /* contiguous blocks, as a block-mapping launcher would */
            snprintf(r->node, sizeof(r->node), "%s#%d", job->host,
                     (int)((long)i * job->nodes / job->n));
    }
}

/* Without hwloc: no binding, the inherited affinity reported as is. */
static int plan_without_topology(tr_job_t *job)
{
    if (job->bind == TR_BIND_CORE || job->bind == TR_BIND_NUMA) {
        fprintf(stderr, "ternrun: cannot bind ranks: hwloc could not load "
                        "this machine's topology; use --bind-to none\n");
        return 1;
    }
    snprintf(job->bind_note, sizeof(job->bind_note),
             "not binding: hwloc could not load the topology");
    for (int i = 0; i < job->n; i++) {
        tr_rank_t *r = &job->ranks[i];
        snprintf(r->cpus_text, sizeof(r->cpus_text), "?");
        snprintf(r->numa_text, sizeof(r->numa_text), "?");
        snprintf(r->unit_text, sizeof(r->unit_text), "not bound");
    }
    return 0;
}

int tr_bind_plan(tr_job_t *job)
{
    plan_nodes(job);
    if (job->bind == TR_BIND_NONE && !job->report_bindings)
        return 0; /* nothing to compute, and no topology to load */
    const tn_topo_t *topo = tn_topo_get();
    if (!topo)
        return plan_without_topology(job);
    hwloc_topology_t h = topo->h;
    hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
    if (hwloc_get_cpubind(h, allowed, HWLOC_CPUBIND_PROCESS) != 0 ||
        hwloc_bitmap_iszero(allowed))
        hwloc_bitmap_copy(allowed, hwloc_topology_get_allowed_cpuset(h));

    enum { MAXU = 1024 };
    hwloc_bitmap_t *sets = calloc(MAXU, sizeof(*sets));
    int *index = calloc(MAXU, sizeof(*index));
    if (!sets || !index) {
        fprintf(stderr, "ternrun: out of memory planning bindings\n");
        return 1;
    }
    hwloc_obj_type_t core_type =
        hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE
                                                        : HWLOC_OBJ_PU;
    int ncores = units_of(h, core_type, allowed, sets, index, MAXU);
    int mode = job->bind;
    if (mode == TR_BIND_AUTO) {
        if (job->n <= ncores) {
            mode = TR_BIND_CORE;
            snprintf(job->bind_note, sizeof(job->bind_note),
                     "binding each rank to a core (default: %d ranks, %d "
                     "cores usable)", job->n, ncores);
        } else {
            mode = TR_BIND_NONE;
            snprintf(job->bind_note, sizeof(job->bind_note),
                     "not binding (default): %d ranks but only %d cores "
                     "usable, so ranks would share cores; --bind-to core "
                     "forces round-robin, --bind-to numa binds to domains",
                     job->n, ncores);
        }
    } else if (mode == TR_BIND_CORE && job->n > ncores) {
        snprintf(job->bind_note, sizeof(job->bind_note),
                 "%d ranks on %d cores: up to %d ranks share a core",
                 job->n, ncores, (job->n + ncores - 1) / ncores);
    }
    int nunits = ncores;
    const char *unit_name = core_type == HWLOC_OBJ_CORE ? "core" : "PU";
    if (mode == TR_BIND_NUMA) {
        for (int i = 0; i < ncores; i++)
            hwloc_bitmap_free(sets[i]);
        nunits = units_of(h, HWLOC_OBJ_NUMANODE, allowed, sets, index, MAXU);
        unit_name = "NUMA";
        if (nunits == 0) { /* no NUMA object with CPUs: one domain */
            sets[0] = hwloc_bitmap_dup(allowed);
            index[0] = 0;
            nunits = 1;
        }
    }
    for (int i = 0; i < job->n; i++) {
        tr_rank_t *r = &job->ranks[i];
        hwloc_const_bitmap_t set = allowed;
        if (mode != TR_BIND_NONE && nunits > 0) {
            int u = i % nunits;
            set = sets[u];
            r->bound = 1;
            snprintf(r->unit_text, sizeof(r->unit_text), "%s %d", unit_name,
                     index[u]);
            hwloc_cpuset_to_glibc_sched_affinity(h, set, &r->cpus,
                                                 sizeof(r->cpus));
        } else {
            snprintf(r->unit_text, sizeof(r->unit_text), "not bound");
        }
        hwloc_bitmap_list_snprintf(r->cpus_text, sizeof(r->cpus_text), set);
        numa_of(h, set, r->numa_text, sizeof(r->numa_text));
    }
    for (int i = 0; i < nunits; i++)
        hwloc_bitmap_free(sets[i]);
    free(sets);
    free(index);
    hwloc_bitmap_free(allowed);
    return 0;
}

void tr_bind_report(const tr_job_t *job)
{
    /* One write per line, so that the lines stay whole next to rank output. */
    char line[512];
    int len;
    if (job->bind_note[0]) {
        len = snprintf(line, sizeof(line), "ternrun: %s\n", job->bind_note);
        fwrite(line, 1, (size_t)len, stderr);
    }
    for (int i = 0; i < job->n; i++) {
        const tr_rank_t *r = &job->ranks[i];
        len = snprintf(line, sizeof(line),
                       "ternrun: [%s] rank %d: cpuset %s (%s), NUMA %s\n",
                       r->node, i, r->cpus_text, r->unit_text, r->numa_text);
        fwrite(line, 1, (size_t)len, stderr);
    }
    fflush(stderr);
}
