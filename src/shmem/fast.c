/* The state read by shmem.h's inline fast paths (tshmem/fast.h): filled
 * at the end of an initialization, cleared at the start of the last
 * finalization; off under SHMEM_DEBUG so that every call is checked. */
#include "tshmem.h"

#include <tshmem/fast.h>

TSHMEM_API tshmem_fast_t tshmem_fast_;

void tshmem_fast_on(void)
{
    if (tshmem_g.debug)
        return;
    tshmem_fast_.heap_base = tshmem_g.heap_base;
    tshmem_fast_.heap_size = tshmem_g.heap_size;
    tshmem_fast_.peer_base = tshmem_g.peer_base;
    tshmem_fast_.ad_i64 = tshmem_amo_domain(TERN_AT_I64);
    tshmem_fast_.ad_u64 = tshmem_amo_domain(TERN_AT_U64);
    tshmem_fast_.npes = tshmem_g.npes; /* last: turns the paths on */
}

void tshmem_fast_off(void)
{
    tshmem_fast_.npes = 0;
}
