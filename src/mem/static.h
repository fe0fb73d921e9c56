/* The program's own global and static variables (the executable's data
 * and bss) as a second remotely accessible region of every rank: found at
 * start-up from the program headers, and, when ranks of the node must
 * reach it with loads and stores, moved into a memfd mapped over the same
 * addresses so that peers can map it too (docs/design/static-data.md). */
#ifndef TN_STATIC_H
#define TN_STATIC_H

#include <stddef.h>
#include <stdint.h>

typedef struct tn_static {
    void *base;     /* first byte (page aligned), in this process */
    size_t size;    /* bytes (whole pages); 0: no region */
    int fd;         /* memfd now backing it (shared), or -1 (private memory) */
    char what[160]; /* how it was found, for reports and messages */
} tn_static_t;

/* Finds the executable's writable PT_LOAD range, less its RELRO part
 * (read-only after relocation): page-aligned [base, base+size). TERN_OK,
 * or TERN_ERR_UNSUPPORTED (none found: out->size is 0, what says why). */
int tn_static_find(tn_static_t *out);

/* Replaces the private pages of s with a memfd holding the same bytes,
 * mapped at the same addresses (MAP_FIXED | MAP_SHARED), so that other
 * processes can map them through /proc/<pid>/fd/<fd>. Bytes written by
 * another thread of this process while it runs (a few microseconds per
 * MiB of data) may be lost: called before Tern starts threads. Pages of
 * the bss never touched are not copied (they are zero). TERN_OK with
 * s->fd set, or TERN_ERR_SYS (logged; s is unchanged and still private). */
int tn_static_share(tn_static_t *s);

/* Closes the memfd once the node's peers mapped it; the mapping stays for
 * the life of the process (it is the program's data). */
void tn_static_close_fd(tn_static_t *s);

#endif
