/* Offset allocator for the segment (tern_alloc, tern_alloc_sym). Its
 * bookkeeping lives in private memory, so stray remote puts into the
 * segment cannot corrupt it. Local allocations take the lowest fit,
 * symmetric ones the highest, so that identical sequences of symmetric
 * calls give identical offsets on every rank. Not thread-safe. */
#ifndef TN_HEAP_H
#define TN_HEAP_H

#include <stddef.h>

typedef struct tn_heap_ext {
    size_t off, len;
} tn_heap_ext_t;

typedef struct tn_heap {
    size_t size;
    tn_heap_ext_t *free_ext; /* sorted by offset, coalesced */
    size_t nfree, cap_free;
    tn_heap_ext_t *used; /* sorted by offset */
    size_t nused, cap_used;
} tn_heap_t;

int tn_heap_init(tn_heap_t *h, size_t size);
void tn_heap_fini(tn_heap_t *h);
/* Reserve len bytes aligned to align (power of two); from_top picks the
 * highest fitting place. TERN_OK with *off, TERN_ERR_NOMEM, TERN_ERR_INVALID. */
int tn_heap_alloc(tn_heap_t *h, size_t len, size_t align, int from_top, size_t *off);
/* Release the block starting at off: TERN_OK or TERN_ERR_INVALID. */
int tn_heap_free(tn_heap_t *h, size_t off);
/* Bytes free in total (for messages and tests). */
size_t tn_heap_free_bytes(const tn_heap_t *h);

#endif
