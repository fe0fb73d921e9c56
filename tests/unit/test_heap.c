/* The segment allocator: fits, alignment, local (bottom) and symmetric
 * (top) arenas, coalescing, a full segment, bad and double frees, random
 * operations against a shadow model, and determinism of symmetric
 * sequences whatever the local calls around them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern/status.h>

#include "mem/heap.h"

#include "unit_check.h"

#define G TN_HEAP_GRAIN

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static size_t rnd(uint64_t *s, size_t n)
{
    return (size_t)(rng_next(s) % n);
}

#define CHECK_HEAP(h)                                                                \
    do {                                                                             \
        int bad_ = tn_heap_check(h);                                                 \
        if (bad_) {                                                                  \
            fprintf(stderr, "%s:%d: tn_heap_check: invariant %d broken\n", __FILE__, \
                    __LINE__, bad_);                                                 \
            return 1;                                                                \
        }                                                                            \
    } while (0)

/* Both arenas empty: all of [0, size) is the gap again. */
static int all_free(const tn_heap_t *h)
{
    return h->nused == 0 && h->arena[0].hi == 0 && h->arena[1].lo == h->size &&
           tn_heap_free_bytes(h) == h->size;
}

static int basics(void)
{
    tn_heap_t h;
    size_t a, b, c, d, e;
    CHECK(tn_heap_init(&h, 4096 + 10) == TERN_OK); /* rounded down to the grain */
    CHECK(h.size == 4096);
    CHECK(tn_heap_alloc(&h, 100, 64, 0, &a) == TERN_OK && a == 0);
    CHECK(tn_heap_alloc(&h, 100, 64, 0, &b) == TERN_OK && b == 128);
    CHECK(tn_heap_alloc(&h, 100, 64, 1, &c) == TERN_OK && c == 4096 - 128);
    CHECK(tn_heap_alloc(&h, 1, 1024, 0, &d) == TERN_OK && d == 1024);
    CHECK(tn_heap_alloc(&h, 1, 1, 0, &e) == TERN_OK && e % G == 0); /* grain at least */
    CHECK_HEAP(&h);
    CHECK(tn_heap_alloc(&h, 4096, 64, 0, &d) == TERN_ERR_NOMEM);
    CHECK(tn_heap_alloc(&h, 0, 64, 0, &d) == TERN_ERR_INVALID);
    CHECK(tn_heap_alloc(&h, 8, 3, 0, &d) == TERN_ERR_INVALID);
    CHECK(tn_heap_alloc(&h, 8, 0, 0, &d) == TERN_ERR_INVALID);
    CHECK(tn_heap_alloc(&h, (size_t)-10, 64, 0, &d) == TERN_ERR_NOMEM);
    CHECK(tn_heap_alloc(&h, (size_t)-10, 64, 1, &d) == TERN_ERR_NOMEM);
    CHECK(tn_heap_alloc(&h, 64, (size_t)1 << 63, 0, &d) == TERN_ERR_NOMEM);
    CHECK(tn_heap_free(&h, 1024) == TERN_OK);
    CHECK(tn_heap_free(&h, 1024) == TERN_ERR_INVALID);   /* double free */
    CHECK(tn_heap_free(&h, 5) == TERN_ERR_INVALID);      /* not a block */
    CHECK(tn_heap_free(&h, a + 64) == TERN_ERR_INVALID); /* inside a block */
    CHECK(tn_heap_free(&h, 4096) == TERN_ERR_INVALID);   /* past the end */
    CHECK(tn_heap_free(&h, 2048) == TERN_ERR_INVALID);   /* in the gap */
    size_t start = 0;
    CHECK(tn_heap_find(&h, a + 70, &start) == 1 && start == a);
    CHECK(tn_heap_find(&h, 2048, &start) == 0);
    CHECK(tn_heap_free(&h, e) == TERN_OK);
    CHECK(tn_heap_free(&h, b) == TERN_OK);
    CHECK(tn_heap_free(&h, a) == TERN_OK);
    CHECK(tn_heap_free(&h, c) == TERN_OK);
    CHECK(tn_heap_free(&h, c) == TERN_ERR_INVALID); /* double free, symmetric */
    CHECK_HEAP(&h);
    CHECK(all_free(&h));
    tn_heap_fini(&h);

    /* An empty heap refuses everything, and frees nothing. */
    CHECK(tn_heap_init(&h, 0) == TERN_OK);
    CHECK(tn_heap_alloc(&h, 1, 64, 0, &a) == TERN_ERR_NOMEM);
    CHECK(tn_heap_alloc(&h, 1, 64, 1, &a) == TERN_ERR_NOMEM);
    CHECK(tn_heap_free(&h, 0) == TERN_ERR_INVALID);
    tn_heap_fini(&h);
    return 0;
}

/* A full segment, holes that cannot hold a larger block, reuse of a hole,
 * and coalescing back to one gap. */
static int full_and_fragmented(void)
{
    enum { K = 64, B = 1024, S = K * B };
    tn_heap_t h;
    size_t off[K], x, y;
    CHECK(tn_heap_init(&h, S) == TERN_OK);
    /* The whole segment in one block, local or symmetric. */
    CHECK(tn_heap_alloc(&h, S, 64, 0, &x) == TERN_OK && x == 0);
    CHECK(tn_heap_alloc(&h, 1, 64, 0, &y) == TERN_ERR_NOMEM);
    CHECK(tn_heap_alloc(&h, 1, 64, 1, &y) == TERN_ERR_NOMEM);
    CHECK(tn_heap_free(&h, x) == TERN_OK && all_free(&h));
    CHECK(tn_heap_alloc(&h, S, 64, 1, &x) == TERN_OK && x == 0);
    CHECK(tn_heap_alloc(&h, 1, 64, 0, &y) == TERN_ERR_NOMEM);
    CHECK(tn_heap_free(&h, x) == TERN_OK && all_free(&h));

    for (int i = 0; i < K; i++)
        CHECK(tn_heap_alloc(&h, B, 64, 0, &off[i]) == TERN_OK && off[i] == (size_t)i * B);
    CHECK(tn_heap_alloc(&h, 64, 64, 0, &x) == TERN_ERR_NOMEM);
    CHECK(tn_heap_free_bytes(&h) == 0);
    for (int i = 1; i < K; i += 2)
        CHECK(tn_heap_free(&h, off[i]) == TERN_OK);
    CHECK_HEAP(&h);
    /* Half the segment is free, in holes of 1 KiB (the last one went back
     * to the gap: it was the edge). */
    CHECK(tn_heap_free_bytes(&h) == S / 2);
    CHECK(h.arena[0].hi == S - B);
    CHECK(tn_heap_alloc(&h, 2 * B, 64, 0, &x) == TERN_ERR_NOMEM);
    CHECK(tn_heap_alloc(&h, 2 * B, 64, 1, &x) == TERN_ERR_NOMEM);
    /* The symmetric arena cannot use the local one's holes, only the gap. */
    CHECK(tn_heap_alloc(&h, B, 64, 1, &x) == TERN_OK && x == S - B);
    CHECK(tn_heap_alloc(&h, 64, 64, 1, &y) == TERN_ERR_NOMEM);
    CHECK(tn_heap_free(&h, x) == TERN_OK);
    /* A hole is reused, the most recently freed first. */
    CHECK(tn_heap_alloc(&h, B, 64, 0, &x) == TERN_OK && x == off[K - 3]);
    CHECK(tn_heap_alloc(&h, 100, 64, 0, &y) == TERN_OK && y == off[K - 5]);
    CHECK_HEAP(&h);
    CHECK(tn_heap_free(&h, x) == TERN_OK && tn_heap_free(&h, y) == TERN_OK);
    /* Freeing the rest merges everything back, in any order. */
    for (int i = 0; i < K; i += 4)
        CHECK(tn_heap_free(&h, off[i]) == TERN_OK);
    CHECK_HEAP(&h);
    for (int i = 2; i < K; i += 4)
        CHECK(tn_heap_free(&h, off[i]) == TERN_OK);
    CHECK_HEAP(&h);
    CHECK(all_free(&h));
    CHECK(tn_heap_alloc(&h, S, 64, 0, &x) == TERN_OK && x == 0);
    tn_heap_fini(&h);
    return 0;
}

/* Alignments from the grain to 64 KiB, in both arenas. */
static int alignment(void)
{
    tn_heap_t h;
    uint64_t s = 11;
    size_t live[200];
    CHECK(tn_heap_init(&h, 64u << 20) == TERN_OK);
    for (int i = 0; i < 200; i++) {
        size_t align = (size_t)1 << (rnd(&s, 11) + 6);
        CHECK(tn_heap_alloc(&h, rnd(&s, 9000) + 1, align, i & 1, &live[i]) == TERN_OK);
        CHECK(live[i] % align == 0);
        if (i % 3 == 2) {
            CHECK(tn_heap_free(&h, live[i - 1]) == TERN_OK);
            live[i - 1] = SIZE_MAX;
        }
    }
    CHECK_HEAP(&h);
    for (int i = 0; i < 200; i++)
        CHECK(live[i] == SIZE_MAX || tn_heap_free(&h, live[i]) == TERN_OK);
    CHECK(all_free(&h));
    tn_heap_fini(&h);
    return 0;
}

/* Random operations against a shadow model: a map of the grains in use.
 * Every block returned is aligned, inside the heap and over free grains;
 * every free of a live block succeeds; bad and double frees fail; the
 * invariants hold after every operation. */
static int shadow_model(uint64_t seed, size_t size, int nops)
{
    enum { MAXLIVE = 512 };
    struct {
        size_t off, len;
    } live[MAXLIVE];
    int nlive = 0;
    size_t ngrain = size / G, used = 0, nomem = 0;
    unsigned char *map = calloc(ngrain, 1);
    CHECK(map);
    tn_heap_t h;
    CHECK(tn_heap_init(&h, size) == TERN_OK);
    uint64_t s = seed;
    for (int op = 0; op < nops; op++) {
        size_t r = rnd(&s, 100);
        if (nlive < MAXLIVE && (r < 55 || nlive == 0)) {
            /* Mostly small, some large; mostly the grain, some larger alignments. */
            size_t len = rnd(&s, 8) ? rnd(&s, 4096) + 1 : rnd(&s, size / 8) + 1;
            size_t align = rnd(&s, 4) ? 64 : (size_t)1 << (rnd(&s, 8) + 6);
            int sym = (int)rnd(&s, 2);
            size_t off;
            int rc = tn_heap_alloc(&h, len, align, sym, &off);
            size_t glen = (len + G - 1) / G;
            if (rc == TERN_ERR_NOMEM) {
                /* Only when the gap between the arenas cannot take it. */
                size_t lo = h.arena[0].hi, hi = h.arena[1].lo, L = glen * G;
                size_t a = align < G ? G : align, up = (lo + a - 1) & ~(a - 1);
                int fits = sym ? hi - lo >= L && ((hi - L) & ~(a - 1)) >= lo
                               : up <= hi && hi - up >= L;
                CHECK(!fits);
                nomem++;
                continue;
            }
            CHECK(rc == TERN_OK);
            CHECK(off % align == 0 && off + glen * G <= size);
            for (size_t g = off / G; g < off / G + glen; g++) {
                CHECK(!map[g]);
                map[g] = 1;
            }
            used += glen * G;
            live[nlive].off = off;
            live[nlive++].len = glen * G;
        } else if (r < 95) {
            int k = (int)rnd(&s, (size_t)nlive);
            size_t off = live[k].off, len = live[k].len;
            CHECK(tn_heap_free(&h, off) == TERN_OK);
            CHECK(tn_heap_free(&h, off) == TERN_ERR_INVALID); /* double free */
            memset(map + off / G, 0, len / G);
            used -= len;
            live[k] = live[--nlive];
        } else {
            /* A bad free: an offset that starts no live block. */
            size_t off = rnd(&s, size + 4096);
            int starts = 0;
            for (int k = 0; k < nlive; k++)
                starts |= live[k].off == off;
            if (!starts)
                CHECK(tn_heap_free(&h, off) == TERN_ERR_INVALID);
        }
        CHECK(tn_heap_free_bytes(&h) == size - used);
        CHECK_HEAP(&h);
    }
    CHECK(nomem < (size_t)nops); /* the mix did allocate */
    while (nlive)
        CHECK(tn_heap_free(&h, live[--nlive].off) == TERN_OK);
    CHECK_HEAP(&h);
    CHECK(all_free(&h));
    tn_heap_fini(&h);
    free(map);
    return 0;
}

/* The symmetric arena of a and b holds the same blocks and the same free
 * lists in the same order. */
static int same_sym_arena(const tn_heap_t *a, const tn_heap_t *b)
{
    const tn_heap_arena_t *x = &a->arena[1], *y = &b->arena[1];
    CHECK(x->lo == y->lo && x->hi == y->hi && x->fl_map == y->fl_map);
    CHECK(memcmp(x->sl_map, y->sl_map, sizeof x->sl_map) == 0);
    uint32_t i = x->edge, j = y->edge;
    for (; i != TN_HEAP_NIL && j != TN_HEAP_NIL; i = a->blk[i].next, j = b->blk[j].next)
        CHECK(a->blk[i].off == b->blk[j].off && a->blk[i].len == b->blk[j].len &&
              a->blk[i].state == b->blk[j].state);
    CHECK(i == TN_HEAP_NIL && j == TN_HEAP_NIL);
    for (int f = 0; f < TN_HEAP_FL_COUNT; f++)
        for (int k = 0; k < TN_HEAP_SL_COUNT; k++) {
            i = x->head[f][k];
            j = y->head[f][k];
            for (; i != TN_HEAP_NIL && j != TN_HEAP_NIL;
                 i = a->blk[i].link, j = b->blk[j].link)
                CHECK(a->blk[i].off == b->blk[j].off);
            CHECK(i == TN_HEAP_NIL && j == TN_HEAP_NIL);
        }
    return 0;
}

/* The same symmetric calls on two heaps, each mixed with its own local
 * calls (another seed, other sizes): the symmetric offsets agree. */
static int determinism(void)
{
    enum { N = 4000, SYMLIVE = 64, LOCLIVE = 128 };
    tn_heap_t h[2];
    size_t sym[2][SYMLIVE], loc[2][LOCLIVE];
    int nloc[2] = {0, 0}, nsym = 0;
    uint64_t ss = 7, ls[2] = {101, 202};
    for (int k = 0; k < 2; k++)
        CHECK(tn_heap_init(&h[k], 64u << 20) == TERN_OK);
    for (int op = 0; op < N; op++) {
        /* Local noise, different on each heap. */
        for (int k = 0; k < 2; k++) {
            int n = (int)rnd(&ls[k], 4);
            for (int m = 0; m < n; m++) {
                if (nloc[k] < LOCLIVE && rnd(&ls[k], 2)) {
                    CHECK(tn_heap_alloc(&h[k], rnd(&ls[k], 20000) + 1, 64, 0,
                                        &loc[k][nloc[k]]) == TERN_OK);
                    nloc[k]++;
                } else if (nloc[k]) {
                    int v = (int)rnd(&ls[k], (size_t)nloc[k]);
                    CHECK(tn_heap_free(&h[k], loc[k][v]) == TERN_OK);
                    loc[k][v] = loc[k][--nloc[k]];
                }
            }
        }
        /* The same symmetric call on both. */
        if (nsym < SYMLIVE && (rnd(&ss, 3) || nsym == 0)) {
            size_t len = rnd(&ss, 8) ? rnd(&ss, 5000) + 1 : rnd(&ss, 200000) + 1;
            size_t o0, o1;
            CHECK(tn_heap_alloc(&h[0], len, 64, 1, &o0) == TERN_OK);
            CHECK(tn_heap_alloc(&h[1], len, 64, 1, &o1) == TERN_OK);
            CHECK(o0 == o1);
            sym[0][nsym++] = o0;
        } else {
            int v = (int)rnd(&ss, (size_t)nsym);
            CHECK(tn_heap_free(&h[0], sym[0][v]) == TERN_OK);
            CHECK(tn_heap_free(&h[1], sym[0][v]) == TERN_OK);
            sym[0][v] = sym[0][--nsym];
        }
    }
    CHECK_HEAP(&h[0]);
    CHECK_HEAP(&h[1]);
    if (same_sym_arena(&h[0], &h[1]))
        return 1;

    /* A symmetric call that fails on one heap (its local arena took the
     * gap) and is undone on the other (tern_alloc_sym frees it when any
     * rank failed) leaves both in step. */
    size_t gap = h[0].arena[1].lo - h[0].arena[0].hi, big, o0, o1;
    CHECK(tn_heap_alloc(&h[0], gap - 4096, 64, 0, &big) == TERN_OK);
    CHECK(tn_heap_alloc(&h[0], 1u << 20, 64, 1, &o0) == TERN_ERR_NOMEM);
    CHECK(tn_heap_alloc(&h[1], 1u << 20, 64, 1, &o1) == TERN_OK);
    CHECK(tn_heap_free(&h[1], o1) == TERN_OK);
    if (same_sym_arena(&h[0], &h[1]))
        return 1;
    /* And so does one that asked for different sizes (carved from free
     * blocks of the arena, then freed on both). */
    CHECK(tn_heap_alloc(&h[0], 64, 64, 1, &o0) == TERN_OK);
    CHECK(tn_heap_alloc(&h[1], 3000, 64, 1, &o1) == TERN_OK);
    CHECK(tn_heap_free(&h[0], o0) == TERN_OK && tn_heap_free(&h[1], o1) == TERN_OK);
    if (same_sym_arena(&h[0], &h[1]))
        return 1;
    CHECK(tn_heap_free(&h[0], big) == TERN_OK);
    for (int i = 0; i < 50; i++) {
        size_t len = (size_t)(i * 977 % 7000) + 1;
        CHECK(tn_heap_alloc(&h[0], len, 64, 1, &o0) == TERN_OK);
        CHECK(tn_heap_alloc(&h[1], len, 64, 1, &o1) == TERN_OK);
        CHECK(o0 == o1);
    }
    CHECK_HEAP(&h[0]);
    CHECK_HEAP(&h[1]);
    tn_heap_fini(&h[0]);
    tn_heap_fini(&h[1]);
    return 0;
}

/* Many live blocks (the hash table grows several times): everything is
 * found again and merges back. Checked once at the end, not per step. */
static int many(void)
{
    enum { N = 100000 };
    tn_heap_t h;
    size_t *off = malloc(N * sizeof *off);
    uint64_t s = 3;
    CHECK(off);
    CHECK(tn_heap_init(&h, (size_t)N * 4160) == TERN_OK);
    for (int i = 0; i < N; i++)
        CHECK(tn_heap_alloc(&h, rnd(&s, 4081) + 16, 64, (int)(i % 5 == 0), &off[i]) ==
              TERN_OK);
    CHECK_HEAP(&h);
    for (int i = N - 1; i > 0; i--) { /* a random free order */
        int j = (int)rnd(&s, (size_t)i + 1);
        size_t t = off[i];
        off[i] = off[j];
        off[j] = t;
    }
    for (int i = 0; i < N / 2; i++)
        CHECK(tn_heap_free(&h, off[i]) == TERN_OK);
    CHECK_HEAP(&h);
    for (int i = N / 2; i < N; i++)
        CHECK(tn_heap_free(&h, off[i]) == TERN_OK);
    CHECK(all_free(&h));
    CHECK_HEAP(&h);
    tn_heap_fini(&h);
    free(off);
    return 0;
}

int main(void)
{
    if (basics() || full_and_fragmented() || alignment())
        return 1;
    if (shadow_model(1, 1u << 20, 20000) || shadow_model(2, 16u << 20, 20000) ||
        shadow_model(3, 64u << 10, 20000))
        return 1;
    if (determinism() || many())
        return 1;
    printf("test_heap: PASS\n");
    return 0;
}
