/* Memory management: malloc, calloc, realloc (in place and moving), align,
 * malloc_with_hints, free and the deprecated names; every block is used
 * remotely (a neighbour writes it, byte-exact) to show it is symmetric; a
 * request beyond the heap gives NULL on every PE and leaves the heap
 * usable. */
#include <stdint.h>
#include <tern.h>

#include "shmem_test.h"

static int me, n;

/* The right neighbour writes pattern (salt) into [p, p+len) of this PE;
 * checked byte for byte after a barrier. Starts with a barrier, so that
 * every PE is done looking at its block before it is overwritten. */
static void neighbour_writes(void *p, size_t len, unsigned salt, const char *what)
{
    int right = (me + 1) % n, left = (me + n - 1) % n;
    unsigned char *src = malloc(len);
    CHECK(src != NULL, "malloc");
    fill(src, len, me, salt);
    shmem_barrier_all();
    shmem_putmem(p, src, len, right);
    shmem_barrier_all();
    long bad = mismatch(p, len, left, salt);
    CHECK(bad < 0, "%s: byte %ld of %zu from PE %d differs", what, bad, len, left);
    /* and read back remotely */
    memset(src, 0, len);
    shmem_getmem(src, p, len, right);
    bad = mismatch(src, len, me, salt);
    CHECK(bad < 0, "%s: byte %ld read back from PE %d differs", what, bad, right);
    shmem_barrier_all();
    free(src);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    void *base;
    size_t heap;
    CHECK(tern_segment_query(me, &base, &heap) == TERN_OK, "segment query");

    CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0)");
    CHECK(shmem_calloc(0, 8) == NULL && shmem_calloc(8, 0) == NULL, "shmem_calloc(0)");
    CHECK(shmem_align(64, 0) == NULL, "shmem_align(64, 0)");
    shmem_free(NULL);

    /* malloc: aligned for any object, usable remotely */
    char *a = shmem_malloc(1000);
    CHECK(a != NULL && (uintptr_t)a % 16 == 0, "shmem_malloc(1000) = %p", (void *)a);
    neighbour_writes(a, 1000, 1, "malloc");

    /* calloc: zero although the memory was used before */
    memset(a, 0xa5, 1000);
    shmem_free(a);
    long *z = shmem_calloc(125, sizeof(long));
    CHECK(z != NULL, "shmem_calloc");
    for (int i = 0; i < 125; i++)
        CHECK(z[i] == 0, "calloc: element %d is %ld", i, z[i]);
    neighbour_writes(z, 125 * sizeof(long), 2, "calloc");

    /* realloc: grows in place within the block, moves beyond it, keeps
     * the contents either way, and the new block is symmetric */
    fill(z, 125 * sizeof(long), me, 3);
    long *r = shmem_realloc(z, 800); /* within the block: stays */
    CHECK(r == z && mismatch(r, 800, me, 3) < 0, "shrinking realloc in place");
    r = shmem_realloc(r, 1000); /* back to the block's size: stays */
    CHECK(r == z && mismatch(r, 800, me, 3) < 0, "growing realloc in place");
    fill(r, 1000, me, 3);
    long *big = shmem_realloc(r, 1 << 20);
    CHECK(big != NULL, "realloc to 1 MiB");
    CHECK(mismatch(big, 1000, me, 3) < 0, "moving realloc lost the contents");
    neighbour_writes(big, 1 << 20, 4, "realloc 1 MiB");
    fill(big, 4096, me, 5);
    long *small = shmem_realloc(big, 4096);
    CHECK(small != NULL && mismatch(small, 4096, me, 5) < 0, "shrinking realloc");
    CHECK(shmem_realloc(small, 0) == NULL, "realloc to 0 frees");
    long *fresh = shmem_realloc(NULL, 512);
    CHECK(fresh != NULL, "realloc(NULL) allocates");
    neighbour_writes(fresh, 512, 6, "realloc(NULL)");

    /* align: every power of two up to the page size */
    void *al[8];
    size_t aligns[8] = {8, 16, 64, 128, 256, 1024, 2048, 4096};
    for (int i = 0; i < 8; i++) {
        al[i] = shmem_align(aligns[i], 100 + (size_t)i);
        CHECK(al[i] != NULL && (uintptr_t)al[i] % aligns[i] == 0, "shmem_align(%zu) = %p",
              aligns[i], al[i]);
        neighbour_writes(al[i], 100 + (size_t)i, 7 + (unsigned)i, "align");
    }
    void *gr = shmem_realloc(al[7], 3 * 4096); /* an aligned block may move */
    CHECK(gr != NULL, "realloc of an aligned block");
    neighbour_writes(gr, 3 * 4096, 20, "realloc of shmem_align");
    for (int i = 0; i < 7; i++)
        shmem_free(al[i]);
    shmem_free(gr);
    /* beyond the page size: one offset aligned on every PE, whose heaps
     * mmap placed at unrelated addresses before segments were aligned */
    for (size_t a = (size_t)1 << 20; a <= (size_t)4 << 20; a <<= 2) {
        char *big = shmem_align(a, 96);
        CHECK(big != NULL && (uintptr_t)big % a == 0, "shmem_align(%zu) = %p", a,
              (void *)big);
        neighbour_writes(big, 96, 50 + (unsigned)(a >> 20), "large align");
        shmem_free(big);
    }
    /* powers of two below sizeof(void *) (undefined in 1.6; SOS and OSHMEM
     * serve them, tests-sos and tests-mellanox ask for them): aligned at
     * least as asked, symmetric, through both names */
    for (size_t a = 1; a < sizeof(void *); a *= 2) {
        char *s1 = shmem_align(a, 3 + a), *s2 = shmemalign(a, 5 + a);
        CHECK(s1 != NULL && (uintptr_t)s1 % a == 0, "shmem_align(%zu) = %p", a,
              (void *)s1);
        CHECK(s2 != NULL && (uintptr_t)s2 % a == 0, "shmemalign(%zu) = %p", a,
              (void *)s2);
        neighbour_writes(s1, 3 + a, 30 + (unsigned)a, "small align");
        neighbour_writes(s2, 5 + a, 40 + (unsigned)a, "small shmemalign");
        shmem_free(s1);
        shmem_free(s2);
    }

    /* hints */
    long *h1 = shmem_malloc_with_hints(64, SHMEM_MALLOC_ATOMICS_REMOTE);
    long *h2 = shmem_malloc_with_hints(64, SHMEM_MALLOC_SIGNAL_REMOTE |
                                               SHMEM_MALLOC_ATOMICS_REMOTE);
    long *h3 = shmem_malloc_with_hints(64, 0);
    CHECK(h1 && h2 && h3, "malloc_with_hints");
    CHECK(shmem_malloc_with_hints(0, SHMEM_MALLOC_ATOMICS_REMOTE) == NULL,
          "malloc_with_hints(0)");
    neighbour_writes(h2, 64, 21, "malloc_with_hints");
    long *h4 = shmem_realloc(h1, 8192); /* keeps the hints */
    CHECK(h4 != NULL, "realloc of a hinted block");
    shmem_free(h4);
    shmem_free(h2);
    shmem_free(h3);

    /* deprecated names */
    char *d = shmalloc(100);
    CHECK(d != NULL, "shmalloc");
    d = shrealloc(d, 5000);
    CHECK(d != NULL, "shrealloc");
    neighbour_writes(d, 5000, 22, "shrealloc");
    shfree(d);
    d = shmemalign(256, 100);
    CHECK(d != NULL && (uintptr_t)d % 256 == 0, "shmemalign");
    shfree(d);

    /* beyond the heap: NULL on every PE, and the heap still works */
    CHECK(shmem_malloc(heap + 1) == NULL, "shmem_malloc of more than the heap");
    CHECK(shmem_calloc(SIZE_MAX / 2, 4) == NULL, "shmem_calloc that overflows");
    long *keep = shmem_malloc(256);
    CHECK(shmem_realloc(keep, heap * 2) == NULL, "realloc beyond the heap");
    neighbour_writes(keep, 256, 23, "block kept by a failed realloc");

    /* many blocks, freed in another order than allocated */
    enum { NB = 24 }; /* few: every barrier of a mixed job costs here */
    void *blk[NB];
    for (int i = 0; i < NB; i++) {
        blk[i] = shmem_malloc(64 + 32 * (size_t)(i % 7));
        CHECK(blk[i] != NULL, "block %d", i);
    }
    for (int i = 0; i < NB; i += 2)
        shmem_free(blk[i]);
    for (int i = 1; i < NB; i += 2)
        neighbour_writes(blk[i], 64, 24 + (unsigned)i, "one of many blocks");
    for (int i = NB - 1; i > 0; i -= 2)
        shmem_free(blk[i]);
    shmem_free(keep);
    shmem_free(fresh);

    /* the whole heap is free again: one block of most of it fits */
    void *most = shmem_malloc(heap - heap / 8);
    CHECK(most != NULL, "most of the heap after freeing everything");
    shmem_free(most);
    return finish("shmem alloc");
}
