/* The executable's data and bss as a region of its own: found from the
 * program headers (dl_iterate_phdr), and moved into shared memory at the
 * same addresses when the node's peers must map it. */
#include "mem/static.h"

#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <tern/status.h>

#include "base/compiler.h"
#include "base/log.h"

typedef struct find_state {
    uintptr_t lo, hi; /* chosen range, page aligned */
    uintptr_t load_lo, load_hi;
    int nwritable;
    uintptr_t page;
} find_state_t;

/* The first object dl_iterate_phdr reports is the executable. */
static int find_cb(struct dl_phdr_info *info, size_t sz, void *arg)
{
    (void)sz;
    find_state_t *f = arg;
    uintptr_t rlo = 0, rhi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
            rlo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            rhi = rlo + info->dlpi_phdr[i].p_memsz;
        }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W) || ph->p_memsz == 0)
            continue;
        f->nwritable++;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        uintptr_t plo = lo & ~(f->page - 1), phi = (hi + f->page - 1) & ~(f->page - 1);
        /* The loader makes [page_down(relro start), page_down(relro end))
         * read-only after relocation: the region starts after it. */
        if (rhi > rlo && rlo < hi && rhi > lo) {
            uintptr_t cut = rhi & ~(f->page - 1);
            if (cut > plo)
                plo = cut;
        }
        if (phi > plo && phi - plo > f->hi - f->lo) { /* the largest part */
            f->lo = plo;
            f->hi = phi;
            f->load_lo = lo;
            f->load_hi = hi;
        }
    }
    return 1; /* the executable only */
}

int tn_static_find(tn_static_t *out)
{
    memset(out, 0, sizeof(*out));
    out->fd = -1;
    find_state_t f = {.page = (uintptr_t)sysconf(_SC_PAGESIZE)};
    dl_iterate_phdr(find_cb, &f);
    if (f.hi <= f.lo) {
        snprintf(out->what, sizeof(out->what),
                 "the executable has no writable segment outside its RELRO part "
                 "(%d writable PT_LOAD)",
                 f.nwritable);
        return TERN_ERR_UNSUPPORTED;
    }
    out->base = (void *)f.lo;
    out->size = f.hi - f.lo;
    snprintf(out->what, sizeof(out->what),
             "data and bss of the executable: [%p, %p), %zu KiB (writable PT_LOAD [%p, "
             "%p))",
             out->base, (void *)f.hi, out->size >> 10, (void *)f.load_lo,
             (void *)f.load_hi);
    return TERN_OK;
}

/* Both read the whole data segment, redzones between globals included
 * under AddressSanitizer: unchecked, and word by word (a memcpy call would
 * be checked). */
static TN_NO_ASAN int page_is_zero(const uint64_t *p, size_t words)
{
    for (size_t i = 0; i < words; i++)
        if (p[i])
            return 0;
    return 1;
}

static TN_NO_ASAN void page_copy(uint64_t *dst, const uint64_t *src, size_t words)
{
    for (size_t i = 0; i < words; i++) {
        dst[i] = src[i];
        __asm__("" ::: "memory"); /* stays a loop, not a memcpy call */
    }
}

int tn_static_share(tn_static_t *s)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    int fd = memfd_create("tern-static", MFD_CLOEXEC);
    if (fd < 0) {
        tn_error("memfd_create for the program's global variables failed: %s "
                 "(set TERN_STATIC_DATA=off to run without remote access to them)",
                 strerror(errno));
        return TERN_ERR_SYS;
    }
    void *tmp = MAP_FAILED;
    if (ftruncate(fd, (off_t)s->size) == 0)
        tmp = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (tmp == MAP_FAILED) {
        tn_error("%zu bytes of shared memory for the program's global variables: %s "
                 "(set TERN_STATIC_DATA=off to run without remote access to them)",
                 s->size, strerror(errno));
        close(fd);
        return TERN_ERR_SYS;
    }
    /* The memfd is zero: copy only the pages that are not (the bss a
     * program never touched maps the zero page, read at no cost). */
    const char *src = s->base;
    for (size_t off = 0; off < s->size; off += page)
        if (!page_is_zero((const uint64_t *)(src + off), page / 8))
            page_copy((uint64_t *)((char *)tmp + off), (const uint64_t *)(src + off),
                      page / 8);
    /* From here to the mapping, a store by another thread would be lost:
     * nothing of this process but this thread runs yet. */
    void *p =
        mmap(s->base, s->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    int e = errno;
    munmap(tmp, s->size);
    if (p == MAP_FAILED) {
        /* MAP_FIXED failing leaves the old mapping in place. */
        tn_error("mapping shared memory over the program's global variables [%p, "
                 "+%zu) failed: %s (set TERN_STATIC_DATA=off)",
                 s->base, s->size, strerror(e));
        close(fd);
        return TERN_ERR_SYS;
    }
    s->fd = fd;
    return TERN_OK;
}

void tn_static_close_fd(tn_static_t *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}
