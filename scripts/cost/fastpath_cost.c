/* Instructions per 8-byte fast-path put and get (to self), over the same
 * store done as a plain memcpy: run under callgrind by
 * scripts/fastpath-cost.sh, which divides each loop's inclusive count by
 * the iterations. noinline keeps each loop a function of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tern.h>

#define ITERS 100000

__attribute__((noinline)) void loop_raw(char *dst, const char *src)
{
    for (int i = 0; i < ITERS; i++) {
        memcpy(dst + (i & 63) * 8, src, 8);
        __asm__ __volatile__("" ::: "memory");
    }
}

__attribute__((noinline)) void loop_put(char *dst, const char *src, int rank)
{
    for (int i = 0; i < ITERS; i++) {
        tern_put(rank, dst + (i & 63) * 8, src, 8, 0);
        __asm__ __volatile__("" ::: "memory");
    }
}

__attribute__((noinline)) void loop_get(char *dst, const char *src, int rank)
{
    for (int i = 0; i < ITERS; i++) {
        tern_get(dst + (i & 63) * 8, rank, src, 8, 0);
        __asm__ __volatile__("" ::: "memory");
    }
}

__attribute__((noinline)) void loop_put_nbi(char *dst, const char *src, int rank)
{
    for (int i = 0; i < ITERS; i++) {
        tern_put_nbi(rank, dst + (i & 63) * 8, src, 8, 0);
        __asm__ __volatile__("" ::: "memory");
    }
}

/* Completion calls with nothing outstanding: what a program that quiets
 * after every phase pays when its transfers were all local copies. */
__attribute__((noinline)) void loop_quiet(void)
{
    for (int i = 0; i < ITERS; i++) {
        tern_quiet();
        __asm__ __volatile__("" ::: "memory");
    }
}

__attribute__((noinline)) void loop_ctx_quiet(tern_ctx_t ctx)
{
    for (int i = 0; i < ITERS; i++) {
        tern_ctx_quiet(ctx);
        __asm__ __volatile__("" ::: "memory");
    }
}

__attribute__((noinline)) void loop_nbi_sync(void)
{
    for (int i = 0; i < ITERS; i++) {
        tern_nbi_sync(TERN_SYNC_REMOTE);
        __asm__ __volatile__("" ::: "memory");
    }
}

__attribute__((noinline)) void loop_fence(tern_ctx_t ctx)
{
    for (int i = 0; i < ITERS; i++) {
        tern_ctx_fence(ctx);
        __asm__ __volatile__("" ::: "memory");
    }
}

int main(int argc, char **argv)
{
    if (tern_init(&argc, &argv, TERN_THREAD_SINGLE) != TERN_OK)
        return 1;
    int me = tern_rank();
    char *seg = tern_alloc(4096), src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    static char local[4096];
    loop_raw(local, src);
    loop_put(seg, src, me);
    loop_get(local, seg, me);
    loop_put_nbi(seg, src, me);
    tern_ctx_t ctx;
    if (tern_ctx_create(0, &ctx) != TERN_OK)
        return 1;
    loop_quiet();
    loop_nbi_sync();
    loop_ctx_quiet(ctx);
    loop_fence(ctx);
    tern_ctx_destroy(ctx);
    printf("iterations %d\n", ITERS);
    tern_free(seg);
    return tern_finalize() == TERN_OK ? 0 : 1;
}
