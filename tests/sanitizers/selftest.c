/* A Tern program with one deliberate defect, chosen by argv[1], on rank 1
 * only: tests/sanitizers/CMakeLists.txt checks that a sanitized build
 * catches it through ternrun and fails the job (options reach every rank,
 * the check stops the rank, its exit status fails the job, the leak check
 * runs at a rank's exit). Modes: leak, overflow, undefined, race. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>

static void *volatile keep; /* defeats the optimizer, not the leak checker */
static int shared;          /* written by two threads without a lock */

static void *racer(void *arg)
{
    for (int i = 0; i < 1000; i++)
        shared++;
    return arg;
}

static void defect(const char *mode)
{
    if (!strcmp(mode, "leak")) {
        char *p = malloc(40);
        memset(p, 1, 40);
        keep = p;
        keep = NULL; /* the last pointer to it is gone */
    } else if (!strcmp(mode, "overflow")) {
        char *p = calloc(1, 16), out[32];
        volatile size_t n = 17;
        memcpy(out, p, n); /* reads one byte past the end */
        keep = (void *)(size_t)out[16];
        free(p);
    } else if (!strcmp(mode, "undefined")) {
        volatile int big = INT_MAX, one = 1;
        printf("%d\n", big + one); /* signed overflow */
    } else if (!strcmp(mode, "race")) {
        pthread_t t[2];
        for (int i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, racer, NULL);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
    } else {
        fprintf(stderr, "selftest: unknown mode '%s' (leak, overflow, undefined, race)\n",
                mode);
        exit(2);
    }
}

int main(int argc, char **argv)
{
    if (tern_init(&argc, &argv, TERN_THREAD_SINGLE) != TERN_OK)
        return 3;
    if (argc > 1 && tern_rank() == 1)
        defect(argv[1]);
    if (tern_barrier() != TERN_OK || tern_finalize() != TERN_OK)
        return 1;
    return 0;
}
