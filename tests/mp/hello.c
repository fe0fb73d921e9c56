/* Smallest Tern program: init, barrier, finalize. Used by the start-up
 * and configuration tests. Exits with tern_init's status when it fails. */
#include <stdio.h>

#include <tern.h>

int main(int argc, char **argv)
{
    int rc = tern_init(&argc, &argv, TERN_THREAD_SINGLE);
    if (rc != TERN_OK) {
        fprintf(stderr, "hello: tern_init: %s\n", tern_strerror(rc));
        return 3;
    }
    rc = tern_barrier();
    int me = tern_rank(), n = tern_size();
    if (rc == TERN_OK)
        rc = tern_finalize();
    if (me == 0 && rc == TERN_OK)
        printf("hello: %d ranks\n", n);
    return rc == TERN_OK ? 0 : 1;
}
