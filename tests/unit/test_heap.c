/* The segment allocator: fits, alignment, top/bottom placement,
 * coalescing, bad frees, and determinism of symmetric (top) sequences. */
#include <stdio.h>
#include <stdlib.h>

#include <tern/status.h>

#include "mem/heap.h"

#include "unit_check.h"

static int random_ops(unsigned seed, size_t *trace, size_t ntrace)
{
    tn_heap_t h;
    CHECK(tn_heap_init(&h, 1 << 20) == TERN_OK);
    size_t live[64] = {0};
    int nlive = 0;
    srand(seed);
    for (size_t i = 0; i < ntrace; i++) {
        if (nlive < 64 && (rand() % 3 || nlive == 0)) {
            size_t off;
            int rc = tn_heap_alloc(&h, (size_t)(rand() % 5000 + 1), 64, 1, &off);
            trace[i] = rc == TERN_OK ? off : (size_t)-1;
            if (rc == TERN_OK)
                live[nlive++] = off;
        } else {
            int k = rand() % nlive;
            CHECK(tn_heap_free(&h, live[k]) == TERN_OK);
            live[k] = live[--nlive];
            trace[i] = 0;
        }
    }
    while (nlive)
        CHECK(tn_heap_free(&h, live[--nlive]) == TERN_OK);
    CHECK(tn_heap_free_bytes(&h) == 1 << 20);
    CHECK(h.nfree == 1);
    tn_heap_fini(&h);
    return 0;
}

int main(void)
{
    tn_heap_t h;
    size_t a, b, c, d;
    CHECK(tn_heap_init(&h, 4096) == TERN_OK);
    CHECK(tn_heap_alloc(&h, 100, 64, 0, &a) == TERN_OK && a == 0);
    CHECK(tn_heap_alloc(&h, 100, 64, 0, &b) == TERN_OK && b == 128);
    CHECK(tn_heap_alloc(&h, 100, 64, 1, &c) == TERN_OK && c == 4096 - 128);
    CHECK(tn_heap_alloc(&h, 1, 1024, 0, &d) == TERN_OK && d == 1024);
    CHECK(tn_heap_alloc(&h, 4096, 64, 0, &d) == TERN_ERR_NOMEM);
    CHECK(tn_heap_alloc(&h, 0, 64, 0, &d) == TERN_ERR_INVALID);
    CHECK(tn_heap_alloc(&h, 8, 3, 0, &d) == TERN_ERR_INVALID);
    CHECK(tn_heap_alloc(&h, (size_t)-10, 64, 0, &d) == TERN_ERR_NOMEM);
    CHECK(tn_heap_free(&h, 1024) == TERN_OK);
    CHECK(tn_heap_free(&h, 1024) == TERN_ERR_INVALID); /* double free */
    CHECK(tn_heap_free(&h, 5) == TERN_ERR_INVALID);    /* not a block */
    CHECK(tn_heap_free(&h, b) == TERN_OK);
    CHECK(tn_heap_free(&h, a) == TERN_OK);
    CHECK(tn_heap_free(&h, c) == TERN_OK);
    CHECK(h.nfree == 1 && tn_heap_free_bytes(&h) == 4096);
    tn_heap_fini(&h);

    /* Same seed, same symmetric sequence: same offsets (what keeps
     * tern_alloc_sym symmetric across ranks). */
    enum { N = 2000 };
    static size_t t1[N], t2[N];
    if (random_ops(7, t1, N) || random_ops(7, t2, N))
        return 1;
    for (int i = 0; i < N; i++)
        CHECK(t1[i] == t2[i]);
    printf("test_heap: PASS\n");
    return 0;
}
