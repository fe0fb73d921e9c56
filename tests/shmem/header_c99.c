/* shmem.h, shmemx.h and pshmem.h are strict C99: compiled with -std=c99
 * -pedantic-errors (no type-generic interfaces there). Run without a
 * launcher and without shmem_init: only the queries allowed then. */
#include <shmem.h>
#include <shmemx.h>
#include <pshmem.h>

int main(void)
{
    int init = -1, fin = -1, major = 0, minor = 0;
    char name[SHMEM_MAX_NAME_LEN];
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    shmem_query_initialized(&init);
    shmemx_query_finalized(&fin);
    pshmem_info_get_version(&major, &minor);
    shmem_info_get_name(name);
    return init == 0 && fin == 0 && major == 1 && minor == 6 && ctx != SHMEM_CTX_INVALID
               ? 0
               : 1;
}
