/* tern_alloc / tern_alloc_sym: allocation inside this rank's segment. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/cfg.h"
#include "base/compiler.h"
#include "base/log.h"
#include "core/core.h"

#define TN_ALLOC_ALIGN 64

void *tern_alloc(size_t size)
{
    if (!tn_core.initialized || size == 0)
        return NULL;
    if (tn_unlikely(tn_am_in_handler)) { /* the lock may be held by a wait below */
        tn_am_refuse("tern_alloc", "allocate");
        return NULL;
    }
    size_t off;
    tn_core_lock();
    int rc = tn_heap_alloc(&tn_core.heap, size, TN_ALLOC_ALIGN, 0, &off);
    tn_core_unlock();
    return rc == TERN_OK ? (char *)tn_core.seg.data + off : NULL;
}

static int segment_offset(const void *ptr, size_t *off)
{
    uintptr_t p = (uintptr_t)ptr, b = (uintptr_t)tn_core.seg.data;
    if (p < b || p >= b + tn_core.seg.size)
        return TERN_ERR_INVALID;
    *off = p - b;
    return TERN_OK;
}

/* Why tern_free(ptr) failed, for the message: a look over every block,
 * paid only on this error path. */
static TN_NOINLINE int free_failed(const void *ptr, size_t off)
{
    size_t start = 0;
    tn_core_lock();
    int inside = tn_heap_find(&tn_core.heap, off, &start);
    tn_core_unlock();
    if (inside)
        return tn_core_fail(TERN_ERR_INVALID, "tern_free",
                            "%p points %zu B into the block at %p: pass the address "
                            "that tern_alloc returned",
                            ptr, off - start, (const char *)tn_core.seg.data + start);
    return tn_core_fail(TERN_ERR_INVALID, "tern_free",
                        "%p is not an allocated block: freed already, or never "
                        "returned by tern_alloc",
                        ptr);
}

tern_status_t tern_free(void *ptr)
{
    if (!ptr)
        return TERN_OK;
    TN_CHECK_INIT("tern_free");
    TN_NOT_IN_HANDLER("tern_free");
    size_t off;
    if (segment_offset(ptr, &off) != TERN_OK)
        return tn_core_fail(TERN_ERR_INVALID, "tern_free",
                            "%p is not in this rank's segment, so it was not "
                            "returned by tern_alloc",
                            ptr);
    tn_core_lock();
    int rc = tn_heap_free(&tn_core.heap, off);
    tn_core_unlock();
    if (tn_unlikely(rc != TERN_OK))
        return free_failed(ptr, off);
    return TERN_OK;
}

/* The symmetric arena's place in the heap follows the segment's size, so
 * ranks whose segments differ (TERN_SEGMENT_SIZE set otherwise on some
 * rank) put the same block at different offsets. Says so in buf, naming
 * the first such rank, or returns 0 when every segment is this rank's size. */
static int seg_sizes_differ(char *buf, size_t len)
{
    for (int r = 0; r < tn_core.size; r++) {
        uint64_t s = tn_core_info(r)->size;
        if (s == tn_core.seg.size)
            continue;
        char theirs[32], mine[32];
        tn_format_bytes((size_t)s, theirs, sizeof(theirs));
        tn_format_bytes(tn_core.seg.size, mine, sizeof(mine));
        snprintf(buf, len,
                 "offsets differ: rank %d's segment is %s, this rank's %s (set "
                 "TERN_SEGMENT_SIZE alike on every rank for symmetric allocation)",
                 r, theirs, mine);
        return 1;
    }
    return 0;
}

/* Symmetric allocation: from the heap's symmetric arena, whose placement
 * depends only on the symmetric calls, so it is identical on every rank
 * when the ranks make the same ones; an allgather verifies sizes and
 * offsets (start-up path speed: one launcher round trip). A rank that
 * succeeded frees the block again when another failed, which restores its
 * heap exactly (tn_heap_alloc), so the ranks stay in step. */
tern_status_t tern_alloc_sym(size_t size, void **out)
{
    TN_CHECK_INIT("tern_alloc_sym");
    TN_NOT_IN_HANDLER("tern_alloc_sym");
    if (!out || size == 0)
        return tn_core_fail(TERN_ERR_INVALID, "tern_alloc_sym",
                            "size is 0 or out is NULL");
    tn_core_lock();
    size_t off = SIZE_MAX;
    int rc = tn_heap_alloc(&tn_core.heap, size, TN_ALLOC_ALIGN, 1, &off);
    uint64_t mine[2] = {size, rc == TERN_OK ? off : UINT64_MAX};
    uint64_t *all = calloc((size_t)tn_core.size, sizeof(mine));
    int grc = all ? tn_core.boot->ops->allgather(tn_core.boot, mine, sizeof(mine), all)
                  : TERN_ERR_NOMEM;
    tn_core_unlock();
    int status = grc;
    const char *why = "the exchange failed";
    char sizes[192];
    for (int r = 0; status == TERN_OK && r < tn_core.size; r++) {
        if (all[2 * r] != size) {
            status = TERN_ERR_MISMATCH;
            why = "ranks asked for different sizes";
        } else if (all[2 * r + 1] == UINT64_MAX) {
            status = TERN_ERR_NOMEM;
            why = "a rank's segment is full";
        } else if (all[2 * r + 1] != off) {
            status = TERN_ERR_MISMATCH;
            why = seg_sizes_differ(sizes, sizeof(sizes))
                      ? sizes
                      : "offsets differ: some rank made other symmetric calls";
        }
    }
    free(all);
    if (status != TERN_OK) {
        if (rc == TERN_OK) {
            tn_core_lock();
            tn_heap_free(&tn_core.heap, off);
            tn_core_unlock();
        }
        return tn_core_fail(status, "tern_alloc_sym", "%zu bytes: %s", size, why);
    }
    *out = (char *)tn_core.seg.data + off;
    return tern_barrier();
}

tern_status_t tern_free_sym(void *ptr)
{
    TN_CHECK_INIT("tern_free_sym");
    TN_NOT_IN_HANDLER("tern_free_sym");
    if (!ptr)
        return TERN_OK;
    int rc = tern_barrier(); /* nobody may still be writing into it */
    if (rc != TERN_OK)
        return rc;
    return tern_free(ptr);
}

void *tern_sym_addr(int rank, const void *local_addr)
{
    if (!tn_core.initialized || rank < 0 || rank >= tn_core.size)
        return NULL;
    size_t off;
    if (segment_offset(local_addr, &off) != TERN_OK) {
        /* A global variable: the same offset in rank's static region (the
         * same executable, loaded at another address). */
        const tn_peer_info_t *me = tn_core_info(tn_core.rank);
        off = (uintptr_t)local_addr - me->static_base;
        if (off >= me->static_size)
            return NULL;
        return (void *)(tn_core_info(rank)->static_base + off);
    }
    if (off >= tn_core_info(rank)->size)
        return NULL;
    return (void *)(uintptr_t)(tn_core_info(rank)->data_base + off);
}

tern_status_t tern_segment_query(int rank, void **base, size_t *size)
{
    TN_CHECK_INIT("tern_segment_query");
    if (rank < 0 || rank >= tn_core.size)
        return tn_core_fail(TERN_ERR_RANK, "tern_segment_query",
                            "rank %d is not in [0, %d)", rank, tn_core.size);
    if (!base && !size)
        return tn_core_fail(TERN_ERR_INVALID, "tern_segment_query",
                            "base and size are both NULL");
    if (base)
        *base = (void *)(uintptr_t)tn_core_info(rank)->data_base;
    if (size)
        *size = (size_t)tn_core_info(rank)->size;
    return TERN_OK;
}
