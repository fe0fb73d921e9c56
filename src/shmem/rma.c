/* Remote memory access (OpenSHMEM 1.6 "Remote Memory Access Routines"):
 * put, p, iput, ibput, get, g, iget, ibget, put_nbi and get_nbi for every
 * standard RMA type, the sized forms and mem, each with and without a
 * context; all generated from the type lists of shmem.h around a few
 * inline helpers.
 *
 * A symmetric address becomes the target's address by the offset from
 * this PE's heap base (tshmem_remote), then goes to Tern's inline calls:
 * to a PE whose heap is mapped here (self, same node) a put or get is a
 * bounds check and a copy, with no call into libtern. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "tshmem.h"

/* ---- error paths ------------------------------------------------------------- */

void tshmem_bad_pe(const char *call, int pe)
{
    if (tshmem_g.init_count == 0)
        tshmem_ctx_fail(call, SHMEM_CTX_DEFAULT); /* says before init / after finalize */
    tshmem_fatal("%s: PE %d is not a PE of this program: PEs are 0 .. %u", call, pe,
                 tshmem_g.npes - 1);
}

void tshmem_rma_fail(const char *call, int status, int pe, const void *sym, size_t n)
{
    uintptr_t a = (uintptr_t)sym;
    if (status == TERN_ERR_RANGE || status == TERN_ERR_OVERFLOW) {
        if (!tshmem_is_sym(sym, 1))
            tshmem_fatal("%s: %p is not a symmetric address: it is outside %s of this "
                         "PE (objects made by shmem_malloc and the like, and global and "
                         "static variables of the program, are symmetric; stack and "
                         "malloc memory are not)",
                         call, sym, tshmem_sym_ranges());
        uintptr_t b = tshmem_g.heap_base, e = b + tshmem_g.heap_size;
        const char *what = "symmetric heap";
        if (a - b >= tshmem_g.heap_size) { /* a global variable */
            b = tshmem_g.static_base;
            e = b + tshmem_g.static_size;
            what = "program's global variables";
        }
        tshmem_fatal("%s: [%p, %p) (%zu bytes to or from PE %d) runs past the end of "
                     "the %s [%p, %p)",
                     call, sym, (void *)(a + n), n, pe, what, (void *)b, (void *)e);
    }
    tshmem_fatal("%s: %zu bytes at %p with PE %d failed: %s (the cause is logged above)",
                 call, n, sym, pe, tern_strerror(status));
}

void tshmem_rma_debug_check(const char *call, int pe, const void *sym, const void *local,
                            size_t n)
{
    if (n && !tshmem_is_sym(sym, n))
        tshmem_rma_fail(call, TERN_ERR_RANGE, pe, sym, n);
    if (n && !local)
        tshmem_fatal("%s: the local buffer is NULL (%zu bytes with PE %d)", call, n, pe);
}

void *tshmem_remote_static(int pe, const void *sym)
{
    uintptr_t off = (uintptr_t)sym - tshmem_g.static_base;
    if (off < tshmem_g.static_size)
        return (void *)(tshmem_g.peer_static[pe] + off);
    return (void *)sym;
}

const char *tshmem_sym_ranges(void)
{
    static char buf[160];
    uintptr_t b = tshmem_g.heap_base, s = tshmem_g.static_base;
    if (tshmem_g.static_size)
        snprintf(buf, sizeof(buf),
                 "the symmetric heap [%p, %p) and the global variables [%p, %p)",
                 (void *)b, (void *)(b + tshmem_g.heap_size), (void *)s,
                 (void *)(s + tshmem_g.static_size));
    else
        snprintf(buf, sizeof(buf),
                 "the symmetric heap [%p, %p) (global variables are not accessible in "
                 "this job: see the warning at start-up, or TERN_STATIC_DATA)",
                 (void *)b, (void *)(b + tshmem_g.heap_size));
    return buf;
}

/* ---- contiguous transfers ------------------------------------------------------- */

/* A transfer of zero elements moves nothing and touches neither address:
 * the specification supports null pointers with a zero count (1.6,
 * "Undefined Behavior in OpenSHMEM": "len is 0, pointer is null:
 * supported"), so the helpers below return before Tern's range checks,
 * which refuse even an empty range outside the segment. The strided ones
 * return on zero blocks likewise. The inline paths of shmem.h send a null
 * symmetric address here (it is outside the heap). */

/* Blocking put. The specification asks only for local completion (source
 * reusable). Mapped PEs: a copy, complete when it returns. Network PEs: an
 * nbi put synced locally; fence, quiet and barriers complete it remotely
 * (TSHMEM_PUT_LOCAL=0: Tern's blocking put, remote completion). */
static inline void put_(shmem_ctx_t ctx, void *dest, const void *src, size_t nelems,
                        size_t es, int pe, const char *call)
{
    tern_ctx_t t = tshmem_tctx(ctx, call);
    size_t n = tshmem_rma_args(call, pe, nelems, es);
    if (TSHMEM_UNLIKELY(n == 0))
        return; /* any addresses, NULL too (above) */
    if (TSHMEM_UNLIKELY(tshmem_g.debug))
        tshmem_rma_debug_check(call, pe, dest, src, n);
    void *r = tshmem_remote(pe, dest);
    int rc;
    if (TSHMEM_LIKELY(!tshmem_g.put_local || tshmem_g.peer_mapped[pe])) {
        rc = tern_ctx_put(t, pe, r, src, n, 0);
    } else {
        rc = tern_ctx_put_nbi(t, pe, r, src, n, 0);
        if (rc == TERN_OK)
            rc = tern_ctx_nbi_sync(t, TERN_SYNC_LOCAL);
    }
    if (TSHMEM_UNLIKELY(rc != TERN_OK))
        tshmem_rma_fail(call, rc, pe, dest, n);
    tshmem_spin_poll(); /* to a mapped PE a copy: it polled nothing */
}

static inline void get_(shmem_ctx_t ctx, void *dest, const void *src, size_t nelems,
                        size_t es, int pe, const char *call)
{
    tern_ctx_t t = tshmem_tctx(ctx, call);
    size_t n = tshmem_rma_args(call, pe, nelems, es);
    if (TSHMEM_UNLIKELY(n == 0))
        return; /* any addresses, NULL too (above) */
    if (TSHMEM_UNLIKELY(tshmem_g.debug))
        tshmem_rma_debug_check(call, pe, src, dest, n);
    int rc = tern_ctx_get(t, dest, pe, tshmem_remote(pe, src), n, 0);
    if (TSHMEM_UNLIKELY(rc != TERN_OK))
        tshmem_rma_fail(call, rc, pe, src, n);
    tshmem_spin_poll();
}

static inline void put_nbi_(shmem_ctx_t ctx, void *dest, const void *src, size_t nelems,
                            size_t es, int pe, const char *call)
{
    tern_ctx_t t = tshmem_tctx(ctx, call);
    size_t n = tshmem_rma_args(call, pe, nelems, es);
    if (TSHMEM_UNLIKELY(n == 0))
        return; /* any addresses, NULL too (above) */
    if (TSHMEM_UNLIKELY(tshmem_g.debug))
        tshmem_rma_debug_check(call, pe, dest, src, n);
    int rc = tern_ctx_put_nbi(t, pe, tshmem_remote(pe, dest), src, n, 0);
    if (TSHMEM_UNLIKELY(rc != TERN_OK))
        tshmem_rma_fail(call, rc, pe, dest, n);
    tshmem_spin_poll();
}

static inline void get_nbi_(shmem_ctx_t ctx, void *dest, const void *src, size_t nelems,
                            size_t es, int pe, const char *call)
{
    tern_ctx_t t = tshmem_tctx(ctx, call);
    size_t n = tshmem_rma_args(call, pe, nelems, es);
    if (TSHMEM_UNLIKELY(n == 0))
        return; /* any addresses, NULL too (above) */
    if (TSHMEM_UNLIKELY(tshmem_g.debug))
        tshmem_rma_debug_check(call, pe, src, dest, n);
    int rc = tern_ctx_get_nbi(t, dest, pe, tshmem_remote(pe, src), n, 0);
    if (TSHMEM_UNLIKELY(rc != TERN_OK))
        tshmem_rma_fail(call, rc, pe, src, n);
    tshmem_spin_poll();
}

/* ---- strided transfers ---------------------------------------------------------- */

/* nblocks blocks of bsize elements of es bytes; block b starts at
 * element b*rst of the remote array and b*lst of the local one. */
typedef struct strided {
    uintptr_t remote, local; /* remote: the symmetric address */
    ptrdiff_t rst, lst;      /* strides in elements */
    size_t bsize, nblocks, es;
} strided_t;

/* With SHMEM_DEBUG, strides below the block size (1 for iput/iget) are
 * reported: the specification leaves them undefined. */
static void stride_debug_check(const char *call, const strided_t *s)
{
    if (s->rst < (ptrdiff_t)s->bsize || s->lst < (ptrdiff_t)s->bsize)
        tshmem_debug_note("%s: strides %td and %td are below the block size %zu "
                          "(undefined by the specification; transferred as given)",
                          call, s->rst, s->lst, s->bsize);
}

/* Local address through which the whole remote extent of s on pe is
 * reachable by plain copies, or NULL (network PE, strides that are not
 * positive, an extent outside the PE's heap: the general path then checks
 * and reports). */
static inline char *strided_mapping(int pe, const strided_t *s, size_t bbytes)
{
    size_t span, extent;
    if (!tshmem_g.peer_mapped[pe] || s->rst <= 0 || s->lst <= 0 ||
        __builtin_mul_overflow((size_t)s->rst * s->es, s->nblocks - 1, &span) ||
        __builtin_add_overflow(span, bbytes, &extent))
        return NULL;
    char *r = tshmem_remote(pe, (void *)s->remote);
    char *first = tern_ptr(pe, r);
    return first && tern_ptr(pe, r + (extent - 1)) ? first : NULL;
}

static inline void ibput_(shmem_ctx_t ctx, const strided_t *s, int pe, const char *call)
{
    tern_ctx_t t = tshmem_tctx(ctx, call);
    size_t bbytes = tshmem_rma_args(call, pe, s->bsize, s->es);
    if (s->nblocks == 0 || bbytes == 0)
        return;
    if (TSHMEM_UNLIKELY(tshmem_g.debug))
        stride_debug_check(call, s);
    size_t rstep = (size_t)s->rst * s->es, lstep = (size_t)s->lst * s->es;
    char *m = strided_mapping(pe, s, bbytes);
    if (TSHMEM_LIKELY(m != NULL)) {
        const char *l = (const char *)s->local;
        for (size_t b = 0; b < s->nblocks; b++, m += rstep, l += lstep)
            memcpy(m, l, bbytes);
        atomic_thread_fence(memory_order_release);
        tshmem_spin_poll();
        return;
    }
    uintptr_t r = s->remote, l = s->local;
    for (size_t b = 0; b < s->nblocks; b++, r += rstep, l += lstep) {
        int rc =
            tern_ctx_put_nbi(t, pe, tshmem_remote(pe, (void *)r), (void *)l, bbytes, 0);
        if (TSHMEM_UNLIKELY(rc != TERN_OK))
            tshmem_rma_fail(call, rc, pe, (void *)r, bbytes);
    }
    int rc = tern_ctx_nbi_sync(t, TERN_SYNC_LOCAL); /* sources reusable */
    if (TSHMEM_UNLIKELY(rc != TERN_OK))
        tshmem_rma_fail(call, rc, pe, (void *)s->remote, bbytes);
}

static inline void ibget_(shmem_ctx_t ctx, const strided_t *s, int pe, const char *call)
{
    tern_ctx_t t = tshmem_tctx(ctx, call);
    size_t bbytes = tshmem_rma_args(call, pe, s->bsize, s->es);
    if (s->nblocks == 0 || bbytes == 0)
        return;
    if (TSHMEM_UNLIKELY(tshmem_g.debug))
        stride_debug_check(call, s);
    size_t rstep = (size_t)s->rst * s->es, lstep = (size_t)s->lst * s->es;
    const char *m = strided_mapping(pe, s, bbytes);
    if (TSHMEM_LIKELY(m != NULL)) {
        char *l = (char *)s->local;
        for (size_t b = 0; b < s->nblocks; b++, m += rstep, l += lstep)
            memcpy(l, m, bbytes);
        tshmem_spin_poll();
        return;
    }
    uintptr_t r = s->remote, l = s->local;
    for (size_t b = 0; b < s->nblocks; b++, r += rstep, l += lstep) {
        int rc =
            tern_ctx_get_nbi(t, (void *)l, pe, tshmem_remote(pe, (void *)r), bbytes, 0);
        if (TSHMEM_UNLIKELY(rc != TERN_OK))
            tshmem_rma_fail(call, rc, pe, (void *)r, bbytes);
    }
    int rc = tern_ctx_nbi_sync(t, TERN_SYNC_REMOTE); /* every get landed */
    if (TSHMEM_UNLIKELY(rc != TERN_OK))
        tshmem_rma_fail(call, rc, pe, (void *)s->remote, bbytes);
}

#define STRIDED_(rem, loc, rs, ls, bs, nb, size)                                    \
    (&(const strided_t){(uintptr_t)(rem), (uintptr_t)(loc), (rs), (ls), (bs), (nb), \
                        (size)})

/* ---- the routines ---------------------------------------------------------------- */

/* Every RMA routine of one element type T named N (es = sizeof(T)). */
#define TSHMEM_DEF_RMA_(T, N)                                                            \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,   \
                             int pe)                                                     \
    {                                                                                    \
        put_(ctx, dest, source, nelems, sizeof(T), pe, __func__);                        \
    }                                                                                    \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe)                \
    {                                                                                    \
        put_(SHMEM_CTX_DEFAULT, dest, source, nelems, sizeof(T), pe, __func__);          \
    }                                                                                    \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe)                    \
    {                                                                                    \
        put_(ctx, dest, &value, 1, sizeof(T), pe, __func__);                             \
    }                                                                                    \
    void shmem_##N##_p(T *dest, T value, int pe)                                         \
    {                                                                                    \
        put_(SHMEM_CTX_DEFAULT, dest, &value, 1, sizeof(T), pe, __func__);               \
    }                                                                                    \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,  \
                              ptrdiff_t sst, size_t nelems, int pe)                      \
    {                                                                                    \
        ibput_(ctx, STRIDED_(dest, source, dst, sst, 1, nelems, sizeof(T)), pe,          \
               __func__);                                                                \
    }                                                                                    \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,        \
                          size_t nelems, int pe)                                         \
    {                                                                                    \
        ibput_(SHMEM_CTX_DEFAULT,                                                        \
               STRIDED_(dest, source, dst, sst, 1, nelems, sizeof(T)), pe, __func__);    \
    }                                                                                    \
    void shmem_ctx_##N##_ibput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, \
                               ptrdiff_t sst, size_t bsize, size_t nblocks, int pe)      \
    {                                                                                    \
        ibput_(ctx, STRIDED_(dest, source, dst, sst, bsize, nblocks, sizeof(T)), pe,     \
               __func__);                                                                \
    }                                                                                    \
    void shmem_##N##_ibput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,       \
                           size_t bsize, size_t nblocks, int pe)                         \
    {                                                                                    \
        ibput_(SHMEM_CTX_DEFAULT,                                                        \
               STRIDED_(dest, source, dst, sst, bsize, nblocks, sizeof(T)), pe,          \
               __func__);                                                                \
    }                                                                                    \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,   \
                             int pe)                                                     \
    {                                                                                    \
        get_(ctx, dest, source, nelems, sizeof(T), pe, __func__);                        \
    }                                                                                    \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe)                \
    {                                                                                    \
        get_(SHMEM_CTX_DEFAULT, dest, source, nelems, sizeof(T), pe, __func__);          \
    }                                                                                    \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe)                        \
    {                                                                                    \
        T v;                                                                             \
        get_(ctx, &v, source, 1, sizeof(T), pe, __func__);                               \
        return v;                                                                        \
    }                                                                                    \
    T shmem_##N##_g(const T *source, int pe)                                             \
    {                                                                                    \
        T v;                                                                             \
        get_(SHMEM_CTX_DEFAULT, &v, source, 1, sizeof(T), pe, __func__);                 \
        return v;                                                                        \
    }                                                                                    \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,  \
                              ptrdiff_t sst, size_t nelems, int pe)                      \
    {                                                                                    \
        ibget_(ctx, STRIDED_(source, dest, sst, dst, 1, nelems, sizeof(T)), pe,          \
               __func__);                                                                \
    }                                                                                    \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,        \
                          size_t nelems, int pe)                                         \
    {                                                                                    \
        ibget_(SHMEM_CTX_DEFAULT,                                                        \
               STRIDED_(source, dest, sst, dst, 1, nelems, sizeof(T)), pe, __func__);    \
    }                                                                                    \
    void shmem_ctx_##N##_ibget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, \
                               ptrdiff_t sst, size_t bsize, size_t nblocks, int pe)      \
    {                                                                                    \
        ibget_(ctx, STRIDED_(source, dest, sst, dst, bsize, nblocks, sizeof(T)), pe,     \
               __func__);                                                                \
    }                                                                                    \
    void shmem_##N##_ibget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,       \
                           size_t bsize, size_t nblocks, int pe)                         \
    {                                                                                    \
        ibget_(SHMEM_CTX_DEFAULT,                                                        \
               STRIDED_(source, dest, sst, dst, bsize, nblocks, sizeof(T)), pe,          \
               __func__);                                                                \
    }                                                                                    \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source,              \
                                 size_t nelems, int pe)                                  \
    {                                                                                    \
        put_nbi_(ctx, dest, source, nelems, sizeof(T), pe, __func__);                    \
    }                                                                                    \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe)            \
    {                                                                                    \
        put_nbi_(SHMEM_CTX_DEFAULT, dest, source, nelems, sizeof(T), pe, __func__);      \
    }                                                                                    \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source,              \
                                 size_t nelems, int pe)                                  \
    {                                                                                    \
        get_nbi_(ctx, dest, source, nelems, sizeof(T), pe, __func__);                    \
    }                                                                                    \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe)            \
    {                                                                                    \
        get_nbi_(SHMEM_CTX_DEFAULT, dest, source, nelems, sizeof(T), pe, __func__);      \
    }
TSHMEM_RMA_TYPES(TSHMEM_DEF_RMA_)

/* The sized routines: elements of S bits. */
#define TSHMEM_DEF_RMA_SIZED_(S)                                                        \
    void shmem_ctx_put##S(shmem_ctx_t ctx, void *dest, const void *source,              \
                          size_t nelems, int pe)                                        \
    {                                                                                   \
        put_(ctx, dest, source, nelems, S / 8, pe, __func__);                           \
    }                                                                                   \
    void shmem_put##S(void *dest, const void *source, size_t nelems, int pe)            \
    {                                                                                   \
        put_(SHMEM_CTX_DEFAULT, dest, source, nelems, S / 8, pe, __func__);             \
    }                                                                                   \
    void shmem_ctx_iput##S(shmem_ctx_t ctx, void *dest, const void *source,             \
                           ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)         \
    {                                                                                   \
        ibput_(ctx, STRIDED_(dest, source, dst, sst, 1, nelems, S / 8), pe, __func__);  \
    }                                                                                   \
    void shmem_iput##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,    \
                       size_t nelems, int pe)                                           \
    {                                                                                   \
        ibput_(SHMEM_CTX_DEFAULT, STRIDED_(dest, source, dst, sst, 1, nelems, S / 8),   \
               pe, __func__);                                                           \
    }                                                                                   \
    void shmem_ctx_ibput##S(shmem_ctx_t ctx, void *dest, const void *source,            \
                            ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, \
                            int pe)                                                     \
    {                                                                                   \
        ibput_(ctx, STRIDED_(dest, source, dst, sst, bsize, nblocks, S / 8), pe,        \
               __func__);                                                               \
    }                                                                                   \
    void shmem_ibput##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,   \
                        size_t bsize, size_t nblocks, int pe)                           \
    {                                                                                   \
        ibput_(SHMEM_CTX_DEFAULT,                                                       \
               STRIDED_(dest, source, dst, sst, bsize, nblocks, S / 8), pe, __func__);  \
    }                                                                                   \
    void shmem_ctx_get##S(shmem_ctx_t ctx, void *dest, const void *source,              \
                          size_t nelems, int pe)                                        \
    {                                                                                   \
        get_(ctx, dest, source, nelems, S / 8, pe, __func__);                           \
    }                                                                                   \
    void shmem_get##S(void *dest, const void *source, size_t nelems, int pe)            \
    {                                                                                   \
        get_(SHMEM_CTX_DEFAULT, dest, source, nelems, S / 8, pe, __func__);             \
    }                                                                                   \
    void shmem_ctx_iget##S(shmem_ctx_t ctx, void *dest, const void *source,             \
                           ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)         \
    {                                                                                   \
        ibget_(ctx, STRIDED_(source, dest, sst, dst, 1, nelems, S / 8), pe, __func__);  \
    }                                                                                   \
    void shmem_iget##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,    \
                       size_t nelems, int pe)                                           \
    {                                                                                   \
        ibget_(SHMEM_CTX_DEFAULT, STRIDED_(source, dest, sst, dst, 1, nelems, S / 8),   \
               pe, __func__);                                                           \
    }                                                                                   \
    void shmem_ctx_ibget##S(shmem_ctx_t ctx, void *dest, const void *source,            \
                            ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, \
                            int pe)                                                     \
    {                                                                                   \
        ibget_(ctx, STRIDED_(source, dest, sst, dst, bsize, nblocks, S / 8), pe,        \
               __func__);                                                               \
    }                                                                                   \
    void shmem_ibget##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,   \
                        size_t bsize, size_t nblocks, int pe)                           \
    {                                                                                   \
        ibget_(SHMEM_CTX_DEFAULT,                                                       \
               STRIDED_(source, dest, sst, dst, bsize, nblocks, S / 8), pe, __func__);  \
    }                                                                                   \
    void shmem_ctx_put##S##_nbi(shmem_ctx_t ctx, void *dest, const void *source,        \
                                size_t nelems, int pe)                                  \
    {                                                                                   \
        put_nbi_(ctx, dest, source, nelems, S / 8, pe, __func__);                       \
    }                                                                                   \
    void shmem_put##S##_nbi(void *dest, const void *source, size_t nelems, int pe)      \
    {                                                                                   \
        put_nbi_(SHMEM_CTX_DEFAULT, dest, source, nelems, S / 8, pe, __func__);         \
    }                                                                                   \
    void shmem_ctx_get##S##_nbi(shmem_ctx_t ctx, void *dest, const void *source,        \
                                size_t nelems, int pe)                                  \
    {                                                                                   \
        get_nbi_(ctx, dest, source, nelems, S / 8, pe, __func__);                       \
    }                                                                                   \
    void shmem_get##S##_nbi(void *dest, const void *source, size_t nelems, int pe)      \
    {                                                                                   \
        get_nbi_(SHMEM_CTX_DEFAULT, dest, source, nelems, S / 8, pe, __func__);         \
    }
TSHMEM_RMA_SIZES(TSHMEM_DEF_RMA_SIZED_)

void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                      int pe)
{
    put_(ctx, dest, source, nelems, 1, pe, __func__);
}
void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    put_(SHMEM_CTX_DEFAULT, dest, source, nelems, 1, pe, __func__);
}
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                      int pe)
{
    get_(ctx, dest, source, nelems, 1, pe, __func__);
}
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{
    get_(SHMEM_CTX_DEFAULT, dest, source, nelems, 1, pe, __func__);
}
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                          int pe)
{
    put_nbi_(ctx, dest, source, nelems, 1, pe, __func__);
}
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    put_nbi_(SHMEM_CTX_DEFAULT, dest, source, nelems, 1, pe, __func__);
}
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                          int pe)
{
    get_nbi_(ctx, dest, source, nelems, 1, pe, __func__);
}
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    get_nbi_(SHMEM_CTX_DEFAULT, dest, source, nelems, 1, pe, __func__);
}
