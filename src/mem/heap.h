/* Offset allocator for the segment (tern_alloc, tern_alloc_sym): two
 * segregated-fit (TLSF-style) arenas growing towards each other, local
 * allocations from the bottom, symmetric ones from the top, with O(1)
 * alloc and free. Its bookkeeping lives in private memory, so stray remote
 * puts into the segment cannot corrupt it. Not thread-safe: the caller
 * locks. Design and figures: docs/design/segments.md. */
#ifndef TN_HEAP_H
#define TN_HEAP_H

#include <stddef.h>
#include <stdint.h>

/* Every block starts at a multiple of TN_HEAP_GRAIN and its length is one. */
#define TN_HEAP_GRAIN    64
#define TN_HEAP_SL_BITS  4 /* each power-of-two range of sizes has 16 lists */
#define TN_HEAP_SL_COUNT (1 << TN_HEAP_SL_BITS)
#define TN_HEAP_FL_COUNT 56 /* first-level classes: lengths up to 2^63 B */
#define TN_HEAP_NIL      UINT32_MAX

/* A block: a free or used range of one arena (private memory). */
typedef struct tn_heap_blk {
    size_t off, len;
    uint32_t prev, next; /* address neighbours in the arena, NIL at its ends */
    /* Free: links of its size-class list. Used: link = next in its hash
     * bucket. Spare descriptor: link = next spare. */
    uint32_t link_prev, link;
    uint8_t state; /* TN_HEAP_SPARE, _FREE or _USED */
    uint8_t arena; /* 0 local (bottom), 1 symmetric (top) */
} tn_heap_blk_t;

enum { TN_HEAP_SPARE = 0, TN_HEAP_FREE = 1, TN_HEAP_USED = 2 };

/* An arena owns [lo, hi) of the segment, tiled by its blocks. The block
 * next to the gap between the two arenas (its "edge": the highest block of
 * the bottom arena, the lowest of the top one) is never free: freeing it
 * gives its bytes back to the gap, so either arena can grow into them. */
typedef struct tn_heap_arena {
    size_t lo, hi;
    uint32_t edge;
    uint64_t fl_map;                   /* bit f: some list of class f non-empty */
    uint32_t sl_map[TN_HEAP_FL_COUNT]; /* bit s: list [f][s] non-empty */
    uint32_t head[TN_HEAP_FL_COUNT][TN_HEAP_SL_COUNT]; /* free lists, LIFO */
} tn_heap_arena_t;

typedef struct tn_heap {
    size_t size;        /* managed bytes: [0, size), size a multiple of the grain */
    size_t used_bytes;  /* sum of the lengths of used blocks */
    size_t nused;       /* used blocks (entries of the hash table) */
    tn_heap_blk_t *blk; /* descriptors, indexed by uint32_t */
    uint32_t nblk, cap, spare;
    uint32_t *bucket; /* hash of used blocks by offset: heads of chains */
    unsigned hash_bits;
    tn_heap_arena_t arena[2];
} tn_heap_t;

/* Manage [0, size) (rounded down to the grain). TERN_OK or TERN_ERR_NOMEM. */
int tn_heap_init(tn_heap_t *h, size_t size);
void tn_heap_fini(tn_heap_t *h);
/* Private bytes of h's bookkeeping (descriptors and hash table; they grow
 * with the blocks allocated), for memory accounting. */
size_t tn_heap_bytes(const tn_heap_t *h);
/* Reserve len bytes aligned to align (a power of two; at least the grain is
 * used). sym = 0 takes them from the local arena, sym = 1 from the
 * symmetric one, whose placement depends only on the sequence of sym
 * calls: two heaps given the same sym calls return the same offsets
 * whatever local calls they also made (a sym call that fails for lack of
 * room leaves the heap unchanged, and one freed right after it succeeded
 * restores it exactly). O(1). TERN_OK with *off, TERN_ERR_NOMEM,
 * TERN_ERR_INVALID (len 0, align not a power of two). */
int tn_heap_alloc(tn_heap_t *h, size_t len, size_t align, int sym, size_t *off);
/* Release the block starting at off: TERN_OK, or TERN_ERR_INVALID when off
 * does not start a used block (never allocated, or freed already). O(1)
 * expected (one hash lookup). */
int tn_heap_free(tn_heap_t *h, size_t off);
/* Bytes not in used blocks (free blocks and the gap). */
size_t tn_heap_free_bytes(const tn_heap_t *h);
/* For error messages, O(number of blocks): whether off lies inside a used
 * block (1, with its start in *start) or not (0). */
int tn_heap_find(const tn_heap_t *h, size_t off, size_t *start);
/* Consistency check for tests, O(number of blocks): 0 when every invariant
 * holds, else the number of the first violated check. */
int tn_heap_check(const tn_heap_t *h);

#endif
