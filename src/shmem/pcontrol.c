/* shmem_pcontrol: the profiling interface's control routine. The library
 * makes no use of it (OpenSHMEM 1.6, "SHMEM_PCONTROL"): a profiling tool
 * interposes shmem_pcontrol, and reaches this no-op through
 * pshmem_pcontrol. */
#include "tshmem.h"

void shmem_pcontrol(int level, ...)
{
    (void)level;
}
