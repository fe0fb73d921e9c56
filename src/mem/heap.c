/* Two-level segregated-fit allocator over [0, size): free blocks sit in
 * lists by size class (a power-of-two range split into 16), found through
 * two bitmaps; used blocks are found by offset through a hash table; all of
 * it in private memory. Costs: alloc and free touch a bounded number of
 * descriptors and bitmap words (no search over blocks). */
#include "mem/heap.h"

#include <stdlib.h>
#include <string.h>

#include <tern/status.h>

#define GRAIN_SHIFT 6
_Static_assert(TN_HEAP_GRAIN == 1 << GRAIN_SHIFT, "grain and its shift agree");
#define NIL        TN_HEAP_NIL
#define HASH_BITS0 6

static inline unsigned log2_floor(uint64_t x)
{
    return 63u - (unsigned)__builtin_clzll(x);
}

/* Class of a length of u grains (u >= 1): first level f, second level s.
 * Lengths below 16 grains have one list each (f = 0); above, the lists of
 * [2^k, 2^(k+1)) grains are 16 equal slices. */
static inline void class_of(size_t u, unsigned *f, unsigned *s)
{
    if (u < TN_HEAP_SL_COUNT) {
        *f = 0;
        *s = (unsigned)u;
        return;
    }
    unsigned k = log2_floor(u);
    *f = k - TN_HEAP_SL_BITS + 1;
    *s = (unsigned)(u >> (k - TN_HEAP_SL_BITS)) & (TN_HEAP_SL_COUNT - 1);
}

/* ---- descriptors ------------------------------------------------------- */

static int reserve_descs(tn_heap_t *h, uint32_t n)
{
    uint32_t have = 0;
    for (uint32_t i = h->spare; i != NIL && have < n; i = h->blk[i].link)
        have++;
    if (have >= n)
        return TERN_OK;
    if (h->nblk + (n - have) <= h->cap)
        return TERN_OK;
    uint64_t cap = h->cap ? (uint64_t)h->cap * 2 : 64;
    if (cap >= NIL)
        cap = NIL - 1;
    if (cap < (uint64_t)h->nblk + n)
        return TERN_ERR_NOMEM;
    tn_heap_blk_t *b = realloc(h->blk, (size_t)cap * sizeof *b);
    if (!b)
        return TERN_ERR_NOMEM;
    h->blk = b;
    h->cap = (uint32_t)cap;
    return TERN_OK;
}

/* A descriptor; reserve_descs guaranteed there is one. */
static uint32_t desc_get(tn_heap_t *h)
{
    uint32_t i = h->spare;
    if (i != NIL)
        h->spare = h->blk[i].link;
    else
        i = h->nblk++;
    return i;
}

static void desc_put(tn_heap_t *h, uint32_t i)
{
    h->blk[i].state = TN_HEAP_SPARE;
    h->blk[i].link = h->spare;
    h->spare = i;
}

/* ---- free lists ---------------------------------------------------------- */

static void list_insert(tn_heap_t *h, uint32_t i)
{
    tn_heap_blk_t *b = &h->blk[i];
    tn_heap_arena_t *a = &h->arena[b->arena];
    unsigned f, s;
    class_of(b->len >> GRAIN_SHIFT, &f, &s);
    b->state = TN_HEAP_FREE;
    b->link_prev = NIL;
    b->link = a->head[f][s];
    if (b->link != NIL)
        h->blk[b->link].link_prev = i;
    a->head[f][s] = i;
    a->fl_map |= 1ull << f;
    a->sl_map[f] |= 1u << s;
}

static void list_remove(tn_heap_t *h, uint32_t i)
{
    tn_heap_blk_t *b = &h->blk[i];
    tn_heap_arena_t *a = &h->arena[b->arena];
    if (b->link != NIL)
        h->blk[b->link].link_prev = b->link_prev;
    if (b->link_prev != NIL) {
        h->blk[b->link_prev].link = b->link;
        return;
    }
    unsigned f, s;
    class_of(b->len >> GRAIN_SHIFT, &f, &s);
    a->head[f][s] = b->link;
    if (b->link == NIL) {
        a->sl_map[f] &= ~(1u << s);
        if (!a->sl_map[f])
            a->fl_map &= ~(1ull << f);
    }
}

/* A free block of at least u grains: the head of the first non-empty list
 * whose every block is large enough (u rounded up to the next class), else
 * the head of u's own class if it is large enough, else NIL. Only list
 * heads are taken, so freeing a block right after allocating it puts the
 * heap back exactly as it was (what tn_heap_alloc promises for sym). */
static uint32_t find_free(const tn_heap_t *h, const tn_heap_arena_t *a, size_t u)
{
    size_t r = u;
    if (u >= TN_HEAP_SL_COUNT)
        r += ((size_t)1 << (log2_floor(u) - TN_HEAP_SL_BITS)) - 1;
    unsigned f, s;
    class_of(r, &f, &s);
    if (f < TN_HEAP_FL_COUNT) {
        uint32_t sl = a->sl_map[f] & (~0u << s);
        if (!sl) {
            uint64_t fl = f + 1 < 64 ? a->fl_map & (~0ull << (f + 1)) : 0;
            if (fl) {
                f = (unsigned)__builtin_ctzll(fl);
                sl = a->sl_map[f];
            }
        }
        if (sl)
            return a->head[f][__builtin_ctz(sl)];
    }
    class_of(u, &f, &s);
    uint32_t i = a->head[f][s];
    return i != NIL && h->blk[i].len >> GRAIN_SHIFT >= u ? i : NIL;
}

/* ---- hash of used blocks by offset ------------------------------------- */

static inline size_t hash_of(const tn_heap_t *h, size_t off)
{
    return (size_t)(((uint64_t)(off >> GRAIN_SHIFT) * 0x9e3779b97f4a7c15ull) >>
                    (64 - h->hash_bits));
}

static void hash_insert(tn_heap_t *h, uint32_t i)
{
    size_t k = hash_of(h, h->blk[i].off);
    h->blk[i].link = h->bucket[k];
    h->bucket[k] = i;
}

/* Grow the table when it holds more entries than buckets. Failing to grow
 * is not an error: chains only get longer. */
static void hash_grow(tn_heap_t *h)
{
    if (h->nused <= (size_t)1 << h->hash_bits || h->hash_bits >= 31)
        return;
    size_t old_n = (size_t)1 << h->hash_bits;
    uint32_t *nb = malloc(2 * old_n * sizeof *nb);
    if (!nb)
        return;
    for (size_t k = 0; k < 2 * old_n; k++)
        nb[k] = NIL;
    uint32_t *ob = h->bucket;
    h->bucket = nb;
    h->hash_bits++;
    for (size_t k = 0; k < old_n; k++)
        for (uint32_t i = ob[k], next; i != NIL; i = next) {
            next = h->blk[i].link;
            hash_insert(h, i);
        }
    free(ob);
}

/* Unlink and return the used block starting at off, or NIL. */
static uint32_t hash_take(tn_heap_t *h, size_t off)
{
    uint32_t *p = &h->bucket[hash_of(h, off)];
    for (uint32_t i = *p; i != NIL; p = &h->blk[i].link, i = *p)
        if (h->blk[i].off == off) {
            *p = h->blk[i].link;
            return i;
        }
    return NIL;
}

/* ---- init -------------------------------------------------------------- */

int tn_heap_init(tn_heap_t *h, size_t size)
{
    memset(h, 0, sizeof(*h));
    h->size = size & ~(size_t)(TN_HEAP_GRAIN - 1);
    h->spare = NIL;
    h->hash_bits = HASH_BITS0;
    h->bucket = malloc(((size_t)1 << HASH_BITS0) * sizeof *h->bucket);
    if (!h->bucket || reserve_descs(h, 64) != TERN_OK) {
        free(h->bucket);
        memset(h, 0, sizeof(*h));
        return TERN_ERR_NOMEM;
    }
    for (size_t k = 0; k < (size_t)1 << HASH_BITS0; k++)
        h->bucket[k] = NIL;
    for (int a = 0; a < 2; a++) {
        h->arena[a].lo = h->arena[a].hi = a ? h->size : 0;
        h->arena[a].edge = NIL;
        for (unsigned f = 0; f < TN_HEAP_FL_COUNT; f++)
            for (unsigned s = 0; s < TN_HEAP_SL_COUNT; s++)
                h->arena[a].head[f][s] = NIL;
    }
    return TERN_OK;
}

size_t tn_heap_bytes(const tn_heap_t *h)
{
    size_t buckets = h->bucket ? (size_t)1 << h->hash_bits : 0;
    return (size_t)h->cap * sizeof(*h->blk) + buckets * sizeof(*h->bucket);
}

void tn_heap_fini(tn_heap_t *h)
{
    free(h->blk);
    free(h->bucket);
    memset(h, 0, sizeof(*h));
}

/* ---- alloc --------------------------------------------------------------- */

/* A new free block [off, off+len) of arena a, not yet linked anywhere. */
static uint32_t new_block(tn_heap_t *h, int a, size_t off, size_t len)
{
    uint32_t i = desc_get(h);
    h->blk[i] = (tn_heap_blk_t){.off = off,
                                .len = len,
                                .prev = NIL,
                                .next = NIL,
                                .link_prev = NIL,
                                .link = NIL,
                                .arena = (uint8_t)a};
    return i;
}

/* Put j right after i in address order. */
static void link_after(tn_heap_t *h, uint32_t i, uint32_t j)
{
    h->blk[j].prev = i;
    h->blk[j].next = h->blk[i].next;
    if (h->blk[i].next != NIL)
        h->blk[h->blk[i].next].prev = j;
    h->blk[i].next = j;
}

/* Cut free block i (already off its list) to [start, start+len): the bytes
 * before and after become free blocks. Neither touches another free block
 * (free neighbours are always merged), so no merging is needed. */
static void carve(tn_heap_t *h, uint32_t i, size_t start, size_t len)
{
    tn_heap_blk_t *b = &h->blk[i];
    if (start > b->off) {
        uint32_t f = new_block(h, b->arena, b->off, start - b->off);
        b = &h->blk[i];
        b->len -= start - b->off;
        b->off = start;
        /* f goes before i: link it after i's predecessor, or first. */
        h->blk[f].next = i;
        h->blk[f].prev = b->prev;
        if (b->prev != NIL)
            h->blk[b->prev].next = f;
        b->prev = f;
        list_insert(h, f);
    }
    if (b->len > len) {
        uint32_t t = new_block(h, b->arena, start + len, b->len - len);
        b = &h->blk[i];
        b->len = len;
        link_after(h, i, t);
        list_insert(h, t);
    }
}

/* Grow arena a into the gap by a used block of len bytes aligned to align
 * (alignment padding becomes a free block); NIL when the gap is too small.
 * The new block is the arena's edge. */
static uint32_t grow_into_gap(tn_heap_t *h, int a, size_t len, size_t align)
{
    tn_heap_arena_t *ar = &h->arena[a];
    size_t gap_lo = h->arena[0].hi, gap_hi = h->arena[1].lo;
    uint32_t i, pad = NIL;
    if (a == 0) {
        size_t start = (gap_lo + align - 1) & ~(align - 1);
        if (start < gap_lo || start > gap_hi || gap_hi - start < len)
            return NIL;
        if (start > gap_lo)
            pad = new_block(h, 0, gap_lo, start - gap_lo);
        i = new_block(h, 0, start, len);
        uint32_t last = ar->edge;
        if (pad != NIL) {
            if (last != NIL)
                link_after(h, last, pad);
            last = pad;
        }
        if (last != NIL)
            link_after(h, last, i);
        ar->hi = start + len;
    } else {
        if (gap_hi - gap_lo < len)
            return NIL;
        size_t start = (gap_hi - len) & ~(align - 1);
        if (start < gap_lo)
            return NIL;
        if (start + len < gap_hi)
            pad = new_block(h, 1, start + len, gap_hi - start - len);
        i = new_block(h, 1, start, len);
        uint32_t first = ar->edge;
        if (pad != NIL) {
            if (first != NIL) {
                h->blk[pad].next = first;
                h->blk[first].prev = pad;
            }
            first = pad;
        }
        if (first != NIL) {
            h->blk[i].next = first;
            h->blk[first].prev = i;
        }
        ar->lo = start;
    }
    if (pad != NIL)
        list_insert(h, pad);
    ar->edge = i;
    return i;
}

int tn_heap_alloc(tn_heap_t *h, size_t len, size_t align, int sym, size_t *off)
{
    if (len == 0 || align == 0 || (align & (align - 1)))
        return TERN_ERR_INVALID;
    if (len > h->size || align > h->size)
        return TERN_ERR_NOMEM;
    if (align < TN_HEAP_GRAIN)
        align = TN_HEAP_GRAIN;
    len = (len + TN_HEAP_GRAIN - 1) & ~(size_t)(TN_HEAP_GRAIN - 1);
    /* Up to three descriptors: the block and the pieces before and after. */
    if (reserve_descs(h, 3) != TERN_OK)
        return TERN_ERR_NOMEM;
    int a = sym ? 1 : 0;
    size_t span = len + align - TN_HEAP_GRAIN; /* room for any alignment */
    uint32_t i = find_free(h, &h->arena[a], span >> GRAIN_SHIFT);
    if (i != NIL) {
        list_remove(h, i);
        carve(h, i, (h->blk[i].off + align - 1) & ~(align - 1), len);
    } else {
        i = grow_into_gap(h, a, len, align);
        if (i == NIL)
            return TERN_ERR_NOMEM;
    }
    h->blk[i].state = TN_HEAP_USED;
    hash_insert(h, i);
    h->nused++;
    h->used_bytes += len;
    hash_grow(h);
    *off = h->blk[i].off;
    return TERN_OK;
}

/* ---- free ---------------------------------------------------------------- */

/* Merge j, the block right after i, into i (neither on a list). */
static void merge_next(tn_heap_t *h, uint32_t i, uint32_t j)
{
    tn_heap_blk_t *b = &h->blk[i];
    b->len += h->blk[j].len;
    b->next = h->blk[j].next;
    if (b->next != NIL)
        h->blk[b->next].prev = i;
    if (h->arena[b->arena].edge == j)
        h->arena[b->arena].edge = i;
    desc_put(h, j);
}

int tn_heap_free(tn_heap_t *h, size_t off)
{
    if (off & (TN_HEAP_GRAIN - 1) || !h->bucket)
        return TERN_ERR_INVALID;
    uint32_t i = hash_take(h, off);
    if (i == NIL)
        return TERN_ERR_INVALID;
    h->nused--;
    h->used_bytes -= h->blk[i].len;
    uint32_t p = h->blk[i].prev, n = h->blk[i].next;
    if (n != NIL && h->blk[n].state == TN_HEAP_FREE) {
        list_remove(h, n);
        merge_next(h, i, n);
    }
    if (p != NIL && h->blk[p].state == TN_HEAP_FREE) {
        list_remove(h, p);
        merge_next(h, p, i);
        i = p;
    }
    tn_heap_blk_t *b = &h->blk[i];
    tn_heap_arena_t *ar = &h->arena[b->arena];
    if (ar->edge == i) {
        /* Next to the gap: give the bytes back to it. */
        if (b->arena == 0) {
            ar->hi = b->off;
            ar->edge = b->prev;
            if (b->prev != NIL)
                h->blk[b->prev].next = NIL;
        } else {
            ar->lo = b->off + b->len;
            ar->edge = b->next;
            if (b->next != NIL)
                h->blk[b->next].prev = NIL;
        }
        desc_put(h, i);
        return TERN_OK;
    }
    list_insert(h, i);
    return TERN_OK;
}

size_t tn_heap_free_bytes(const tn_heap_t *h)
{
    return h->size - h->used_bytes;
}

int tn_heap_find(const tn_heap_t *h, size_t off, size_t *start)
{
    for (uint32_t i = 0; i < h->nblk; i++) {
        const tn_heap_blk_t *b = &h->blk[i];
        if (b->state == TN_HEAP_USED && off >= b->off && off - b->off < b->len) {
            *start = b->off;
            return 1;
        }
    }
    return 0;
}

/* ---- consistency check (tests) ----------------------------------------- */

static int check_arena(const tn_heap_t *h, int a, size_t *used, size_t *nused,
                       size_t *nfree)
{
    const tn_heap_arena_t *ar = &h->arena[a];
    if (ar->lo > ar->hi || ar->lo % TN_HEAP_GRAIN || ar->hi % TN_HEAP_GRAIN)
        return 10;
    if ((ar->edge == NIL) != (ar->lo == ar->hi))
        return 11;
    if (ar->edge == NIL)
        return 0;
    if (h->blk[ar->edge].state != TN_HEAP_USED)
        return 12; /* the edge is never free */
    /* Walk from the edge to the far end, then check the tiling. */
    uint32_t i, first = ar->edge;
    while (a == 0 && h->blk[first].prev != NIL)
        first = h->blk[first].prev;
    size_t pos = ar->lo;
    int prev_free = 0;
    uint32_t prev = NIL;
    for (i = first; i != NIL; prev = i, i = h->blk[i].next) {
        const tn_heap_blk_t *b = &h->blk[i];
        if (i >= h->nblk || b->arena != a || b->prev != prev)
            return 13;
        if (b->off != pos || !b->len || b->len % TN_HEAP_GRAIN)
            return 14;
        if (b->state == TN_HEAP_FREE) {
            if (prev_free)
                return 15; /* two free neighbours not merged */
            (*nfree)++;
        } else if (b->state == TN_HEAP_USED) {
            *used += b->len;
            (*nused)++;
            size_t k = hash_of(h, b->off);
            uint32_t j = h->bucket[k];
            while (j != NIL && j != i)
                j = h->blk[j].link;
            if (j != i)
                return 16; /* used block not in the hash table */
        } else {
            return 17;
        }
        prev_free = b->state == TN_HEAP_FREE;
        pos += b->len;
    }
    if (pos != ar->hi || (a == 0 && prev != ar->edge))
        return 18;
    /* Every list holds free blocks of its class; the bitmaps match. */
    size_t listed = 0;
    for (unsigned f = 0; f < TN_HEAP_FL_COUNT; f++) {
        if (!!(ar->fl_map & (1ull << f)) != !!ar->sl_map[f])
            return 19;
        for (unsigned s = 0; s < TN_HEAP_SL_COUNT; s++) {
            if (!!(ar->sl_map[f] & (1u << s)) != (ar->head[f][s] != NIL))
                return 20;
            uint32_t q = NIL;
            for (uint32_t j = ar->head[f][s]; j != NIL; q = j, j = h->blk[j].link) {
                unsigned cf, cs;
                if (h->blk[j].state != TN_HEAP_FREE || h->blk[j].arena != a ||
                    h->blk[j].link_prev != q)
                    return 21;
                class_of(h->blk[j].len >> GRAIN_SHIFT, &cf, &cs);
                if (cf != f || cs != s)
                    return 22;
                if (++listed > h->nblk)
                    return 23; /* a cycle */
            }
        }
    }
    *nfree -= listed; /* 0 when every free block is listed once */
    return 0;
}

int tn_heap_check(const tn_heap_t *h)
{
    if (!h->bucket)
        return 1;
    if (h->arena[0].lo != 0 || h->arena[1].hi != h->size ||
        h->arena[0].hi > h->arena[1].lo)
        return 2;
    size_t used = 0, nused = 0;
    for (int a = 0; a < 2; a++) {
        size_t nfree = 0;
        int rc = check_arena(h, a, &used, &nused, &nfree);
        if (rc)
            return rc + 20 * a;
        if (nfree)
            return 3;
    }
    if (used != h->used_bytes || nused != h->nused)
        return 4;
    size_t hashed = 0;
    for (size_t k = 0; k < (size_t)1 << h->hash_bits; k++)
        for (uint32_t j = h->bucket[k]; j != NIL; j = h->blk[j].link)
            if (h->blk[j].state != TN_HEAP_USED || hash_of(h, h->blk[j].off) != k ||
                ++hashed > nused)
                return 5;
    if (hashed != nused)
        return 6;
    size_t spare = 0;
    for (uint32_t j = h->spare; j != NIL; j = h->blk[j].link)
        if (h->blk[j].state != TN_HEAP_SPARE || ++spare > h->nblk)
            return 7;
    return 0;
}
