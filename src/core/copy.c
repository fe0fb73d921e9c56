/* tern_copy_: the copy behind the RMA fast path for sizes at or above a
 * peer's copy_min. Until the topology-aware choice is made per peer,
 * copy_min is UINTPTR_MAX and this is never reached from the fast path. */
#include <string.h>

#include "core/core.h"

void tern_copy_(int rank, void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}
