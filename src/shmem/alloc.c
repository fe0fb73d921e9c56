/* Memory management (OpenSHMEM 1.6 "Memory Management Routines"):
 * shmem_malloc, calloc, realloc, align, malloc_with_hints, free and the
 * deprecated shmalloc family, on Tern's collective symmetric allocation
 * (tern_alloc_sym / tern_free_sym: the same offset in every PE's segment).
 *
 * Each block is recorded in a private table (its Tern allocation, size,
 * capacity and hints) keyed by the address handed out: shmem_align hands
 * out an address inside a larger allocation, and realloc needs the size. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tshmem.h"

typedef struct block {
    struct block *next;
    void *user;  /* address handed out */
    void *base;  /* what tern_alloc_sym returned */
    size_t size; /* bytes asked for */
    size_t cap;  /* bytes usable from user on */
    long hints;
} block_t;

/* Chained hash table; collective calls are rare, so one lock. */
static struct {
    block_t **bucket;
    size_t nbucket, count;
    pthread_mutex_t lock;
} tab = {.lock = PTHREAD_MUTEX_INITIALIZER};

static size_t hash(const void *p, size_t n)
{
    uintptr_t x = (uintptr_t)p >> 6; /* every block is 64-byte aligned at least */
    x ^= x >> 17;
    x *= 0x9e3779b97f4a7c15ull;
    return (size_t)(x >> 7) & (n - 1);
}

static int tab_grow(void)
{
    size_t n = tab.nbucket ? tab.nbucket * 2 : 64;
    block_t **nb = calloc(n, sizeof(*nb));
    if (!nb)
        return -1;
    for (size_t i = 0; i < tab.nbucket; i++) {
        for (block_t *b = tab.bucket[i], *next; b; b = next) {
            next = b->next;
            size_t h = hash(b->user, n);
            b->next = nb[h];
            nb[h] = b;
        }
    }
    free(tab.bucket);
    tab.bucket = nb;
    tab.nbucket = n;
    return 0;
}

static int tab_add(block_t *b)
{
    pthread_mutex_lock(&tab.lock);
    int rc = 0;
    if (tab.count >= tab.nbucket)
        rc = tab_grow();
    if (rc == 0) {
        size_t h = hash(b->user, tab.nbucket);
        b->next = tab.bucket[h];
        tab.bucket[h] = b;
        tab.count++;
    }
    pthread_mutex_unlock(&tab.lock);
    return rc;
}

/* Removes and returns the block handed out at user, or NULL. */
static block_t *tab_take(const void *user)
{
    pthread_mutex_lock(&tab.lock);
    block_t *found = NULL;
    if (tab.nbucket) {
        block_t **pp = &tab.bucket[hash(user, tab.nbucket)];
        for (; *pp; pp = &(*pp)->next) {
            if ((*pp)->user == user) {
                found = *pp;
                *pp = found->next;
                tab.count--;
                break;
            }
        }
    }
    pthread_mutex_unlock(&tab.lock);
    return found;
}

static block_t *tab_find(const void *user)
{
    pthread_mutex_lock(&tab.lock);
    block_t *b = tab.nbucket ? tab.bucket[hash(user, tab.nbucket)] : NULL;
    while (b && b->user != user)
        b = b->next;
    pthread_mutex_unlock(&tab.lock);
    return b;
}

/* The last shmem_finalize releases every block that is left (every PE
 * does the same, so the heaps stay symmetric for a re-initialization). */
void tshmem_alloc_fini(void)
{
    pthread_mutex_lock(&tab.lock);
    for (size_t i = 0; i < tab.nbucket; i++) {
        for (block_t *b = tab.bucket[i], *next; b; b = next) {
            next = b->next;
            tern_free(b->base);
            free(b);
        }
    }
    free(tab.bucket);
    tab.bucket = NULL;
    tab.nbucket = tab.count = 0;
    pthread_mutex_unlock(&tab.lock);
}

/* ---- allocation -------------------------------------------------------------- */

static void check_init(const char *call)
{
    if (TSHMEM_UNLIKELY(tshmem_g.init_count == 0))
        tshmem_ctx_fail(call, SHMEM_CTX_DEFAULT); /* before init / after finalize */
}

/* Collective: size bytes at an address that is a multiple of align (a
 * power of two) on every PE, recorded with hints. Ends with a barrier
 * (tern_alloc_sym's) after a quiet of the default context, as the
 * specification's "barrier_all on exit". NULL on every PE when any PE's
 * heap has no room. */
static void *sym_alloc(size_t size, size_t align, long hints, const char *call)
{
    const size_t tern_align = 64; /* what tern_alloc_sym gives */
    size_t extra = align > tern_align ? align - tern_align : 0;
    if (align > tern_align) {
        /* One offset must be aligned on every PE: their heaps' bases must
         * agree modulo align. Tern maps every segment at a multiple of
         * 1 GiB (mem/segment.c), so this holds up to there. Every PE has
         * every base, so all of them decide alike. */
        for (uint32_t pe = 1; pe < tshmem_g.npes; pe++) {
            if ((tshmem_g.peer_base[pe] - tshmem_g.peer_base[0]) & (align - 1)) {
                tshmem_error("%s: alignment %zu cannot be symmetric: the PEs' heaps "
                             "start at addresses that differ modulo %zu (at most 1 GiB "
                             "is always possible)",
                             call, align, align);
                return NULL;
            }
        }
    }
    block_t *b = malloc(sizeof(*b));
    if (!b)
        tshmem_fatal("%s: no private memory for a block's record", call);
    size_t total;
    void *base = NULL;
    int rc = __builtin_add_overflow(size, extra, &total) ? TERN_ERR_NOMEM : TERN_OK;
    /* The barrier before tern_alloc_sym is a workaround: Tern's
     * allocation exchange waits on the launcher's socket without driving
     * the network, so a peer's get from this PE, issued before the peer
     * called shmem_malloc too, would never complete (with manual-progress
     * providers the target serves it). The barrier drives progress until
     * every PE has got here, and so past its earlier operations. */
    tshmem_ctx_quiet_(SHMEM_CTX_DEFAULT, call);
    int brc = tern_barrier();
    if (brc != TERN_OK)
        tshmem_fatal("%s: barrier failed: %s", call, tern_strerror(brc));
    if (rc == TERN_OK)
        rc = tern_alloc_sym(total, &base);
    if (rc != TERN_OK) {
        free(b);
        if (rc == TERN_ERR_NOMEM)
            tshmem_debug_note("%s: %zu bytes do not fit in the symmetric heap (%zu bytes "
                              "per PE, some taken): raise SHMEM_SYMMETRIC_SIZE",
                              call, size, tshmem_g.heap_size);
        else
            tshmem_debug_note("%s: %zu bytes: %s (the PEs must call it with the same "
                              "arguments in the same order)",
                              call, size, tern_strerror(rc));
        return NULL;
    }
    uintptr_t u = (uintptr_t)base;
    u = (u + align - 1) & ~(uintptr_t)(align - 1);
    *b = (block_t){.user = (void *)u,
                   .base = base,
                   .size = size,
                   .cap = total - (u - (uintptr_t)base),
                   .hints = hints};
    if (tab_add(b) != 0)
        tshmem_fatal("%s: no private memory to record a block", call);
    return b->user;
}

void *shmem_malloc(size_t size)
{
    check_init("shmem_malloc");
    return size ? sym_alloc(size, 1, 0, "shmem_malloc") : NULL;
}

void *shmem_malloc_with_hints(size_t size, long hints)
{
    check_init("shmem_malloc_with_hints");
    const long known = SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE;
    if (hints & ~known)
        tshmem_debug_note("shmem_malloc_with_hints: hints 0x%lx: bits 0x%lx are not "
                          "SHMEM_MALLOC_* hints; ignored",
                          (unsigned long)hints, (unsigned long)(hints & ~known));
    /* Every hint is accepted and kept; none changes the placement yet. */
    return size ? sym_alloc(size, 1, hints, "shmem_malloc_with_hints") : NULL;
}

void *shmem_calloc(size_t count, size_t size)
{
    check_init("shmem_calloc");
    size_t n;
    if (count == 0 || size == 0)
        return NULL;
    if (__builtin_mul_overflow(count, size, &n)) {
        tshmem_debug_note("shmem_calloc: %zu elements of %zu bytes overflow", count,
                          size);
        return NULL;
    }
    void *p = sym_alloc(n, 1, 0, "shmem_calloc");
    if (p) {
        /* Zeroed after the allocation's barrier, so another barrier keeps
         * peers from writing into it before it is zero. */
        memset(p, 0, n);
        int rc = tern_barrier();
        if (rc != TERN_OK)
            tshmem_fatal("shmem_calloc: barrier failed: %s", tern_strerror(rc));
    }
    return p;
}

void *shmem_align(size_t alignment, size_t size)
{
    check_init("shmem_align");
    if (alignment == 0 || (alignment & (alignment - 1))) {
        tshmem_error("shmem_align: alignment %zu is not a power of two", alignment);
        return NULL; /* every PE passes the same value, so all return NULL */
    }
    /* 1.6 leaves a power of two below sizeof(void *) undefined; SOS and
     * Open MPI's OSHMEM serve it, and tests-sos shmemalign, tests-mellanox
     * basic:shmalloc and basic:heap ask for 1, 2 or 4. A block aligned to
     * sizeof(void *) is aligned to each of them, as the returned address
     * must be ("a multiple of alignment"). */
    if (alignment < sizeof(void *))
        alignment = sizeof(void *);
    return size ? sym_alloc(size, alignment, 0, "shmem_align") : NULL;
}

/* Frees b (already taken out of the table): a barrier_all first. */
static void sym_free(block_t *b, const char *call)
{
    tshmem_ctx_quiet_(SHMEM_CTX_DEFAULT, call);
    int rc = tern_free_sym(b->base); /* barrier, then free */
    free(b);
    if (rc != TERN_OK)
        tshmem_fatal("%s: %s (the cause is logged above)", call, tern_strerror(rc));
}

void shmem_free(void *ptr)
{
    if (!ptr)
        return;
    check_init("shmem_free");
    block_t *b = tab_take(ptr);
    if (!b) {
        tshmem_error("shmem_free: %p was not returned by shmem_malloc, shmem_calloc, "
                     "shmem_align, shmem_realloc or shmem_malloc_with_hints, or was "
                     "freed already; ignored",
                     ptr);
        shmem_barrier_all(); /* keep in step with the other PEs' collective */
        return;
    }
    sym_free(b, "shmem_free");
}

/* Collective. Grows or shrinks within the block's capacity without moving
 * (every PE has the same capacity, so all decide alike); else allocates a
 * new block, copies this PE's contents (the others copy theirs) and frees
 * the old one, whose barrier keeps peers from writing into the new block
 * before the copies are done. On failure the old block is unchanged. */
void *shmem_realloc(void *ptr, size_t size)
{
    check_init("shmem_realloc");
    if (!ptr)
        return shmem_malloc(size);
    block_t *old = tab_find(ptr);
    if (!old) {
        tshmem_error("shmem_realloc: %p was not returned by a symmetric allocation "
                     "routine, or was freed already",
                     ptr);
        shmem_barrier_all();
        return NULL;
    }
    if (size == 0) {
        tab_take(ptr);
        sym_free(old, "shmem_realloc");
        return NULL;
    }
    if (size <= old->cap) {
        shmem_barrier_all(); /* nobody is still using the old size */
        old->size = size;
        return ptr;
    }
    shmem_barrier_all(); /* peers' last writes into the old block are done */
    void *p = sym_alloc(size, 1, old->hints, "shmem_realloc");
    if (!p)
        return NULL;
    memcpy(p, ptr, old->size < size ? old->size : size);
    tab_take(ptr);
    sym_free(old, "shmem_realloc");
    return p;
}

void *shmalloc(size_t size)
{
    return shmem_malloc(size);
}
void *shmemalign(size_t alignment, size_t size)
{
    return shmem_align(alignment, size);
}
void *shrealloc(void *ptr, size_t size)
{
    return shmem_realloc(ptr, size);
}
void shfree(void *ptr)
{
    shmem_free(ptr);
}
