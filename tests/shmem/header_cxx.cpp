// shmem.h and shmemx.h from C++ (the type-generic macros are C11 only).
#include <shmem.h>
#include <shmemx.h>
#include <pshmem.h>

int main()
{
    int init = -1, fin = -1;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    void (*put)(shmem_ctx_t, long *, const long *, size_t, int) = shmem_ctx_long_put;
    shmem_query_initialized(&init);
    shmemx_query_finalized(&fin);
    return init == 0 && fin == 0 && ctx != SHMEM_CTX_INVALID && put ? 0 : 1;
}
