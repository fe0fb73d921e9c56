/* Instructions per 8-byte put and get to a network peer already contacted (rank 0
 * to rank 1, TERN_SHM=off): Tern's issue path and the provider's, counted
 * by callgrind on rank 0 (scripts/netpath-cost.sh). The first put
 * resolves the peer's address; the loops measure the path after it. */
#include <stdio.h>
#include <tern.h>

#define ITERS 20000

__attribute__((noinline)) void loop_put_nbi(char *dst, const char *src, int rank)
{
    for (int i = 0; i < ITERS; i++) {
        tern_put_nbi(rank, dst + (i & 63) * 8, src, 8, 0);
        if ((i & 63) == 63)
            tern_nbi_sync(TERN_SYNC_REMOTE);
    }
    tern_nbi_sync(TERN_SYNC_REMOTE);
}

/* 64 nbi gets from different places, then a remote sync (combined:
 * core/put_agg.c); and one nbi get, then a remote sync (a lone one goes
 * as an RMA read). */
__attribute__((noinline)) void loop_get_nbi(char *dst, const char *src, int rank)
{
    for (int i = 0; i < ITERS; i++) {
        tern_get_nbi(dst + (i & 63) * 8, rank, src + (i & 63) * 8, 8, 0);
        if ((i & 63) == 63)
            tern_nbi_sync(TERN_SYNC_REMOTE);
    }
    tern_nbi_sync(TERN_SYNC_REMOTE);
}

__attribute__((noinline)) void loop_get_nbi_lone(char *dst, const char *src, int rank)
{
    for (int i = 0; i < ITERS / 8; i++) {
        tern_get_nbi(dst, rank, src, 8, 0);
        tern_nbi_sync(TERN_SYNC_REMOTE);
    }
}

__attribute__((noinline)) void loop_get(char *dst, const char *src, int rank)
{
    for (int i = 0; i < ITERS; i++)
        tern_get(dst + (i & 63) * 8, rank, src, 8, 0);
}

int main(int argc, char **argv)
{
    if (tern_init(&argc, &argv, TERN_THREAD_SINGLE) != TERN_OK)
        return 1;
    int me = tern_rank();
    char *seg = NULL, src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    static char local[4096];
    if (tern_alloc_sym(4096, (void **)&seg) != TERN_OK || tern_size() != 2)
        return 1;
    if (me == 0) {
        tern_put(1, tern_sym_addr(1, seg), src, 8, 0); /* first contact */
        loop_put_nbi(tern_sym_addr(1, seg), src, 1);
        loop_get(local, tern_sym_addr(1, seg), 1);
        loop_get_nbi(local, tern_sym_addr(1, seg), 1);
        loop_get_nbi_lone(local, tern_sym_addr(1, seg), 1);
        printf("iterations %d\n", ITERS);
    }
    tern_barrier();
    return tern_finalize() == TERN_OK ? 0 : 1;
}
