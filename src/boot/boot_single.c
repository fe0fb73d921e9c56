/* Bootstrap of a program started without a launcher: rank 0 of 1. */
#include "boot/boot.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tern/status.h>

#include "base/log.h"

static int single_allgather(tn_boot_t *b, const void *in, size_t len, void *out)
{
    if (len)
        memmove(out, in, len);
    return TERN_OK;
}

static int single_barrier(tn_boot_t *b)
{
    return TERN_OK;
}
static int single_init_done(tn_boot_t *b)
{
    return TERN_OK;
}
static int single_fini(tn_boot_t *b)
{
    return TERN_OK;
}

static void single_abort(tn_boot_t *b, int code, const char *msg)
{
    tn_error("abort with code %d: %s", code, msg && *msg ? msg : "(no message)");
    _exit(code);
}

static const tn_boot_ops_t single_ops = {
    .size = sizeof(tn_boot_ops_t),
    .name = "single",
    .allgather = single_allgather,
    .barrier = single_barrier,
    .init_done = single_init_done,
    .abort = single_abort,
    .fini = single_fini,
};

/* Other launchers' variables that say this process is one of several: a
 * job of independent single ranks is never what was meant, so say so. */
static void warn_foreign_launcher(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                       "SLURM_STEP_NUM_TASKS"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 1) {
            tn_warn("%s=%s says this process is one of %s, but no Tern "
                    "bootstrap was found, so it runs alone as rank 0 of 1: "
                    "start the job with ternrun, or with a PMIx launcher "
                    "(srun --mpi=pmix, mpirun) and a Tern built with PMIx",
                    vars[i], v, v);
            return;
        }
    }
}

int tn_boot_single_create(tn_boot_t *b)
{
    warn_foreign_launcher();
    b->ops = &single_ops;
    b->rank = 0;
    b->size = 1;
    b->impl = NULL;
    tn_boot_default_node_key(b->node_key, sizeof(b->node_key));
    tn_boot_default_host_key(b->host_key, sizeof(b->host_key));
    return TERN_OK;
}
