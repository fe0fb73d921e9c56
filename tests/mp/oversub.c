/* Oversubscription is judged per machine: every rank that ternrun starts
 * runs on this host, whatever simulated node (--nodes K) or transport
 * configuration it is in, so each rank must count all of them as sharing
 * its cores, and wait by yielding when they outnumber the CPUs (issue 7:
 * with --nodes 4 -n 4 on 2 cores each rank counted only its own node and
 * every wait spun, 12 s for a job that takes 1 s).
 *   --nodes K   the job was started with ternrun --nodes K (checks the
 *               node count too) */
#include <string.h>
#include <unistd.h>

#include "base/topo.h"
#include "base/wait.h"
#include "core/core.h"
#include "mp_util.h"

int main(int argc, char **argv)
{
    int nodes = 0;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc)
            nodes = atoi(argv[++i]);
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    const char *shm = getenv("TERN_SHM");
    int shm_off = shm && (strcmp(shm, "off") == 0 || strcmp(shm, "0") == 0);

    MP_CHECK(tn_core.host_ranks == n,
             "%d rank(s) counted on this host (node %d of %d), but ternrun "
             "started all %d here",
             tn_core.host_ranks, tn_core.node, tn_core.nnodes, n);
    if (nodes && !shm_off)
        MP_CHECK(tn_core.nnodes == nodes, "%d nodes, ternrun --nodes %d", tn_core.nnodes,
                 nodes);

    /* The same CPU count tern_init judges by. */
    const tn_topo_t *t = tn_topo_get();
    int pus = tn_topo_job_pus(t);
    int want = n > pus;
    MP_CHECK(tn_wait_policy.oversubscribed == want, "waits %s with %d ranks on %d CPUs",
             want ? "spin" : "yield", n, pus);
    if (me == 0 && !want)
        printf("oversub: %d rank(s) on %d CPUs: not oversubscribed here, checked "
               "the host count only\n",
               n, pus);
    return mp_finish("oversub");
}
