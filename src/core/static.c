/* The static region: the program's global and static variables as a second
 * remotely accessible region of every rank (docs/design/static-data.md).
 * Found and shared at start-up, agreed on by every rank, then reached
 * through the out-of-line paths: the inline fast path stays the segment's. */
#include <stdio.h>
#include <string.h>

#include "base/cfg.h"
#include "base/log.h"
#include "base/time.h"
#include "core/core.h"

void tn_core_static_prepare(void)
{
    tn_static_t *s = &tn_core.stat;
    memset(s, 0, sizeof(*s));
    s->fd = -1;
    if (!tn_cfg.static_data)
        return;
    if (tn_static_find(s) != TERN_OK) {
        tn_debug("no static region: %s", s->what);
        return;
    }
    /* Peers of the node map it only if it is shared memory; alone on a
     * node (or TERN_SHM=off), its private pages are registered as they
     * are. */
    double t0 = tn_time_s();
    if (tn_core.local_size > 1 && tn_cfg.shm && tn_static_share(s) != TERN_OK) {
        s->size = 0; /* every rank learns of it and goes without */
        return;
    }
    tn_debug("static region: %s%s (%.3f ms)", s->what,
             s->fd >= 0 ? ", moved into shared memory" : "", (tn_time_s() - t0) * 1e3);
}

void tn_core_static_agree(tn_seg_info_t *all)
{
    int n = tn_core.size, bad = -1;
    for (int r = 0; r < n && bad < 0; r++)
        if (!all[r].static_size || all[r].static_size != all[0].static_size)
            bad = r;
    tn_core.static_on = bad < 0;
    if (bad >= 0) {
        if (tn_core.rank == 0 && tn_cfg.static_data)
            tn_warn("global and static variables are not remotely accessible in this "
                    "job: rank %d's data and bss are %llu bytes, rank 0's %llu (every "
                    "rank must run the same executable; 0: none found, or "
                    "TERN_STATIC_DATA=off, or sharing failed there)",
                    bad, (unsigned long long)all[bad].static_size,
                    (unsigned long long)all[0].static_size);
        for (int r = 0; r < n; r++) {
            all[r].static_base = all[r].static_size = 0;
            all[r].static_fd = -1;
        }
    }
}

const char *tn_core_static_note(int rank, const void *addr)
{
    if (rank < 0 || rank >= tn_core.size || !tn_core.info)
        return "";
    const tn_peer_info_t *p = tn_core_info(rank);
    uintptr_t a = (uintptr_t)addr;
    if (p->static_size && a - p->static_base < p->static_size)
        return " (a global or static variable of the program: this call accepts "
               "addresses in the segment only)";
    return "";
}

tern_status_t tern_static_query(int rank, void **base, size_t *size)
{
    TN_CHECK_INIT("tern_static_query");
    if (rank < 0 || rank >= tn_core.size)
        return tn_core_fail(TERN_ERR_RANK, "tern_static_query",
                            "rank %d is not in [0, %d)", rank, tn_core.size);
    if (!base && !size)
        return tn_core_fail(TERN_ERR_INVALID, "tern_static_query",
                            "base and size are both NULL");
    if (base)
        *base = (void *)tn_core_info(rank)->static_base;
    if (size)
        *size = tn_core_info(rank)->static_size;
    return TERN_OK;
}

void *tern_ptr_slow_(int rank, const void *remote_addr)
{
    if (!tn_core.initialized || rank < 0 || rank >= tn_core.size)
        return NULL;
    const tn_peer_t *p = tn_core_peer(rank);
    const tn_peer_info_t *in = tn_core_info(rank);
    uintptr_t off = (uintptr_t)remote_addr - in->static_base;
    return p->static_mapped && off < in->static_size
               ? (char *)remote_addr + p->static_delta
               : NULL;
}
