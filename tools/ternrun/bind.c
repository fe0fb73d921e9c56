/* Where each rank runs: the plan is made with hwloc (tn_topo_place) before
 * any rank starts and applied in the child before exec (spawn.c), so a
 * rank's first touch of memory already happens on its own core and NUMA
 * domain. In a simulated topology (HWLOC_XMLFILE, HWLOC_SYNTHETIC) the plan
 * cannot be applied: each rank is told its planned CPU set instead. */
#include "ternrun.h"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern/status.h>

#include "base/topo.h"

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
    if (job->bind != TN_BIND_AUTO && job->bind != TN_BIND_NONE) {
        fprintf(stderr, "ternrun: cannot bind ranks: hwloc could not load "
                        "this machine's topology; use --bind-to none\n");
        return 1;
    }
    if (job->map == TN_MAP_DIST) {
        fprintf(stderr,
                "ternrun: --map-by dist:%s needs the topology, which hwloc "
                "could not load\n",
                job->device);
        return 1;
    }
    snprintf(job->bind_note, sizeof(job->bind_note),
             "not binding: hwloc could not load the topology");
    for (int i = 0; i < job->n; i++) {
        tr_rank_t *r = &job->ranks[i];
        snprintf(r->cpus_text, sizeof(r->cpus_text), "?");
        snprintf(r->numa_text, sizeof(r->numa_text), "?");
        snprintf(r->unit_text, sizeof(r->unit_text), "not bound");
        snprintf(r->nic_text, sizeof(r->nic_text), "?");
    }
    return 0;
}

int tr_bind_plan(tr_job_t *job)
{
    plan_nodes(job);
    int needed = job->bind != TN_BIND_NONE || job->report_bindings || job->dry_run ||
                 job->map != TN_MAP_PACKED;
    if (!needed)
        return 0; /* nothing to compute, and no topology to load */
    /* The network devices only when they are asked about (the report names
     * each rank's nearest, dist: orders by one): finding them costs more
     * than the rest of ternrun's start (~15 ms). */
    int need_io = job->report_bindings || job->dry_run || job->map == TN_MAP_DIST;
    const tn_topo_t *topo = need_io ? tn_topo_get_io() : tn_topo_get();
    if (!topo) {
        if (getenv("HWLOC_XMLFILE") || getenv("HWLOC_SYNTHETIC"))
            return 1; /* the bad description was named while loading it */
        return plan_without_topology(job);
    }
    job->simulated = !topo->thissystem;
    hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
    if (!allowed) {
        fprintf(stderr, "ternrun: out of memory planning bindings\n");
        return 1;
    }
    /* An outer binding (taskset, a batch system's cgroup) is respected:
     * only the CPUs ternrun itself may use are planned with. A simulated
     * topology has nothing to do with this process's CPUs. */
    if (job->simulated ||
        hwloc_get_cpubind(topo->h, allowed, HWLOC_CPUBIND_PROCESS) != 0 ||
        hwloc_bitmap_iszero(allowed))
        hwloc_bitmap_copy(allowed, hwloc_topology_get_allowed_cpuset(topo->h));

    tn_place_req_t req = {
        .n = job->n,
        .bind = job->bind,
        .map = job->map,
        .device = job->device,
        .oversubscribe = job->oversubscribe,
        .allowed = allowed,
    };
    tn_place_t *plan = calloc((size_t)job->n, sizeof(*plan));
    char err[512];
    int rc = plan ? tn_topo_place(topo, &req, plan, job->bind_note,
                                  sizeof(job->bind_note), err, sizeof(err))
                  : TERN_ERR_NOMEM;
    hwloc_bitmap_free(allowed);
    if (rc != TERN_OK) {
        fprintf(stderr, "ternrun: %s\n", plan ? err : "out of memory planning bindings");
        free(plan);
        return rc == TERN_ERR_CONFIG ? 2 : 1;
    }
    if (job->simulated) {
        size_t len = strlen(job->bind_note);
        snprintf(job->bind_note + len, sizeof(job->bind_note) - len,
                 "%stopology simulated (%.200s): bindings planned, not applied; each "
                 "rank gets its plan in TERN_BOOT_CPUSET",
                 len ? "; " : "", topo->source);
    }
    for (int i = 0; i < job->n; i++) {
        tr_rank_t *r = &job->ranks[i];
        tn_place_t *p = &plan[i];
        r->bound = p->bound && !job->simulated;
        if (r->bound)
            hwloc_cpuset_to_glibc_sched_affinity(topo->h, p->cpuset, &r->cpus,
                                                 sizeof(r->cpus));
        hwloc_bitmap_list_snprintf(r->cpus_text, sizeof(r->cpus_text), p->cpuset);
        snprintf(r->unit_text, sizeof(r->unit_text), "%s", p->unit);
        snprintf(r->numa_text, sizeof(r->numa_text), "%s", p->numa);
        snprintf(r->nic_text, sizeof(r->nic_text), "%s", p->nic ? p->nic->name : "none");
    }
    tn_topo_place_free(plan, job->n);
    free(plan);
    return 0;
}

void tr_bind_report(const tr_job_t *job)
{
    /* One write per line, so that the lines stay whole next to rank output. */
    char line[512];
    int len;
    if (job->bind_note[0]) {
        len = snprintf(line, sizeof(line), "ternrun: %s\n", job->bind_note);
        fwrite(line, 1, (size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1,
               stderr);
    }
    for (int i = 0; i < job->n; i++) {
        const tr_rank_t *r = &job->ranks[i];
        len = snprintf(line, sizeof(line),
                       "ternrun: [%s] rank %d: cpuset %s (%s), NUMA %s, NIC %s\n",
                       r->node, i, r->cpus_text, r->unit_text, r->numa_text, r->nic_text);
        fwrite(line, 1, (size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1,
               stderr);
    }
    fflush(stderr);
}
