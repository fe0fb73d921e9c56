/* Prints what the tests of the environment variables and of the wrappers
 * look at: this PE's heap size, then its arguments; PE 0 only. */
#include <tern.h>

#include "shmem_test.h"

int main(int argc, char **argv)
{
    shmem_init();
    void *base;
    size_t size;
    CHECK(tern_segment_query(shmem_my_pe(), &base, &size) == TERN_OK, "segment query");
    if (shmem_my_pe() == 0) {
        printf("heap %zu\n", size);
        for (int i = 1; i < argc; i++)
            printf("arg %d: %s\n", i, argv[i]);
    }
    return finish("shmem probe");
}
