/* First-fit (bottom) / last-fit (top) extent allocator over [0, size). */
#include "mem/heap.h"

#include <stdlib.h>
#include <string.h>

#include <tern/status.h>

static int grow(tn_heap_ext_t **a, size_t *cap, size_t need)
{
    if (need <= *cap)
        return TERN_OK;
    size_t nc = *cap ? *cap * 2 : 16;
    while (nc < need)
        nc *= 2;
    tn_heap_ext_t *p = realloc(*a, nc * sizeof(*p));
    if (!p)
        return TERN_ERR_NOMEM;
    *a = p;
    *cap = nc;
    return TERN_OK;
}

static int insert_at(tn_heap_ext_t **a, size_t *n, size_t *cap, size_t i, tn_heap_ext_t e)
{
    if (grow(a, cap, *n + 1) != TERN_OK)
        return TERN_ERR_NOMEM;
    memmove(&(*a)[i + 1], &(*a)[i], (*n - i) * sizeof(**a));
    (*a)[i] = e;
    (*n)++;
    return TERN_OK;
}

static void remove_at(tn_heap_ext_t *a, size_t *n, size_t i)
{
    memmove(&a[i], &a[i + 1], (*n - i - 1) * sizeof(*a));
    (*n)--;
}

int tn_heap_init(tn_heap_t *h, size_t size)
{
    memset(h, 0, sizeof(*h));
    h->size = size;
    if (size == 0)
        return TERN_OK;
    return insert_at(&h->free_ext, &h->nfree, &h->cap_free, 0, (tn_heap_ext_t){0, size});
}

void tn_heap_fini(tn_heap_t *h)
{
    free(h->free_ext);
    free(h->used);
    memset(h, 0, sizeof(*h));
}

/* Sorted position of off in a (first index with a[i].off >= off). */
static size_t lower_bound(const tn_heap_ext_t *a, size_t n, size_t off)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int tn_heap_alloc(tn_heap_t *h, size_t len, size_t align, int from_top, size_t *off)
{
    if (len == 0 || align == 0 || (align & (align - 1)))
        return TERN_ERR_INVALID;
    len = (len + align - 1) & ~(align - 1);
    if (len == 0)
        return TERN_ERR_NOMEM; /* rounding overflowed */
    for (size_t k = 0; k < h->nfree; k++) {
        size_t i = from_top ? h->nfree - 1 - k : k;
        tn_heap_ext_t f = h->free_ext[i];
        size_t start;
        if (from_top) {
            if (f.len < len)
                continue;
            start = (f.off + f.len - len) & ~(align - 1);
            if (start < f.off)
                continue;
        } else {
            start = (f.off + align - 1) & ~(align - 1);
            if (start < f.off || start - f.off > f.len || f.len - (start - f.off) < len)
                continue;
        }
        if (grow(&h->used, &h->cap_used, h->nused + 1) != TERN_OK ||
            grow(&h->free_ext, &h->cap_free, h->nfree + 1) != TERN_OK)
            return TERN_ERR_NOMEM;
        /* Split f into [f.off, start) and [start+len, f.end). */
        size_t end = f.off + f.len;
        remove_at(h->free_ext, &h->nfree, i);
        size_t j = i;
        if (start > f.off)
            insert_at(&h->free_ext, &h->nfree, &h->cap_free, j++,
                      (tn_heap_ext_t){f.off, start - f.off});
        if (start + len < end)
            insert_at(&h->free_ext, &h->nfree, &h->cap_free, j,
                      (tn_heap_ext_t){start + len, end - start - len});
        size_t u = lower_bound(h->used, h->nused, start);
        insert_at(&h->used, &h->nused, &h->cap_used, u, (tn_heap_ext_t){start, len});
        *off = start;
        return TERN_OK;
    }
    return TERN_ERR_NOMEM;
}

int tn_heap_free(tn_heap_t *h, size_t off)
{
    size_t u = lower_bound(h->used, h->nused, off);
    if (u >= h->nused || h->used[u].off != off)
        return TERN_ERR_INVALID;
    tn_heap_ext_t b = h->used[u];
    remove_at(h->used, &h->nused, u);
    size_t i = lower_bound(h->free_ext, h->nfree, b.off);
    /* Coalesce with the neighbour below and above. */
    if (i > 0 && h->free_ext[i - 1].off + h->free_ext[i - 1].len == b.off) {
        i--;
        b.len += h->free_ext[i].len;
        b.off = h->free_ext[i].off;
        remove_at(h->free_ext, &h->nfree, i);
    }
    if (i < h->nfree && b.off + b.len == h->free_ext[i].off) {
        b.len += h->free_ext[i].len;
        remove_at(h->free_ext, &h->nfree, i);
    }
    /* Fails only if growing the free list fails (TERN_ERR_NOMEM). */
    return insert_at(&h->free_ext, &h->nfree, &h->cap_free, i, b);
}

size_t tn_heap_free_bytes(const tn_heap_t *h)
{
    size_t s = 0;
    for (size_t i = 0; i < h->nfree; i++)
        s += h->free_ext[i].len;
    return s;
}
