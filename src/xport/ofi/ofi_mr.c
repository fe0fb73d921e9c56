/* Registrations of private (non-segment) local buffers for FI_MR_LOCAL: a
 * unique key per registration, and a small table that shares one
 * registration among the operations in flight on a buffer and, where that
 * is safe, keeps it after they complete for the next operation. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include <tern/status.h>

#include "base/log.h"
#include "xport/ofi/ofi.h"
#include "xport/ofi/ofi_dl.h"

/* Requested keys 1 and 2 are the segment's and the bounce slots', 3 and 4
 * the message buffers' (ofi_msg.c), 5 the static region's (ofi_setup.c). */
#define KEY_FIRST 6

typedef struct mreg {
    struct fid_mr *mr; /* NULL: slot free */
    uintptr_t lo, hi;  /* registered range, whole pages */
    uint64_t access;   /* FI_READ and/or FI_WRITE */
    long refs;         /* operations in flight using it */
    uint64_t stamp;    /* last acquired, for least-recently-used eviction */
} mreg_t;

struct tn_ofi_mr_cache {
    pthread_mutex_t lock; /* every field; taken by issuing and completing threads */
    int keep_idle;        /* keep registrations no operation uses */
    size_t page;
    size_t idle_bytes; /* bytes of the kept registrations with refs == 0 */
    uint64_t clock;
    uint64_t next_key, key_span; /* requested keys: KEY_FIRST + [0, key_span) */
    long live;                   /* local registrations open, cached or not */
    uint64_t hits, misses, evicted, uncached; /* for the log at destroy */
    mreg_t ent[TN_OFI_MR_ENTRIES];
};

size_t tn_ofi_mr_cache_bytes(void)
{
    return sizeof(tn_ofi_mr_cache_t);
}

int tn_ofi_mr_cache_create(tn_ofi_t *o, int keep_idle)
{
    tn_ofi_mr_cache_t *c = calloc(1, sizeof(*c));
    if (!c)
        return TERN_ERR_NOMEM;
    pthread_mutex_init(&c->lock, NULL);
    c->keep_idle = keep_idle;
    long pg = sysconf(_SC_PAGESIZE);
    c->page = pg > 0 ? (size_t)pg : 4096;
    /* Keys are mr_key_size bytes wide (0: not stated, take 64 bits). */
    size_t ks = o->info->domain_attr->mr_key_size;
    c->key_span =
        ks == 0 || ks >= 8 ? UINT64_MAX - KEY_FIRST : (1ull << (8 * ks)) - KEY_FIRST;
    o->mrc = c;
    return TERN_OK;
}

void tn_ofi_mr_cache_destroy(tn_ofi_t *o)
{
    tn_ofi_mr_cache_t *c = o->mrc;
    if (!c)
        return;
    tn_debug("ofi: local registrations: %llu hits, %llu misses (%llu evicted, %llu "
             "for one operation alone)%s",
             (unsigned long long)c->hits, (unsigned long long)c->misses,
             (unsigned long long)c->evicted, (unsigned long long)c->uncached,
             c->keep_idle ? ", kept while unused" : "");
    for (int i = 0; i < TN_OFI_MR_ENTRIES; i++)
        if (c->ent[i].mr)
            fi_close(&c->ent[i].mr->fid);
    pthread_mutex_destroy(&c->lock);
    free(c);
    o->mrc = NULL;
}

/* Registers [lo, hi) for access with a requested key no other open
 * registration of ours holds (the provider's own key with FI_MR_PROV_KEY).
 * Caller holds c->lock. */
static int reg(tn_ofi_t *o, uintptr_t lo, uintptr_t hi, uint64_t access,
               struct fid_mr **out)
{
    tn_ofi_mr_cache_t *c = o->mrc;
    int prov_key = (o->info->domain_attr->mr_mode & FI_MR_PROV_KEY) != 0;
    int rc = -FI_ENOKEY;
    /* At most live + 1 keys can be taken by our own open registrations,
     * so that many tries find a free one (wrap-around of a narrow key). */
    for (long tries = 0; rc == -FI_ENOKEY && tries <= c->live + 1; tries++) {
        uint64_t key = prov_key ? 0 : KEY_FIRST + c->next_key++ % c->key_span;
        rc = fi_mr_reg(o->domain, (void *)lo, hi - lo, access, 0, key, 0, out, NULL);
        if (prov_key)
            break;
    }
    if (rc == 0 && (o->info->domain_attr->mr_mode & FI_MR_ENDPOINT)) {
        rc = fi_mr_bind(*out, &o->ep->fid, 0);
        if (rc == 0)
            rc = fi_mr_enable(*out);
        if (rc)
            fi_close(&(*out)->fid);
    }
    if (rc) {
        tn_error("libfabric fi_mr_reg of a %zu-byte local buffer at %p failed: %s "
                 "(%ld local registrations open)",
                 (size_t)(hi - lo), (void *)lo, tn_fi.strerror(-rc), c->live);
        return tn_ofi_status(rc);
    }
    c->live++;
    return TERN_OK;
}

static void drop(tn_ofi_mr_cache_t *c, mreg_t *e)
{
    fi_close(&e->mr->fid);
    memset(e, 0, sizeof(*e));
    c->live--;
}

/* Closes least-recently-used unreferenced entries until the kept bytes
 * are within bounds. Caller holds c->lock. */
static void trim(tn_ofi_mr_cache_t *c)
{
    while (c->idle_bytes > TN_OFI_MR_IDLE_BYTES) {
        mreg_t *v = NULL;
        for (int i = 0; i < TN_OFI_MR_ENTRIES; i++) {
            mreg_t *e = &c->ent[i];
            if (e->mr && e->refs == 0 && (!v || e->stamp < v->stamp))
                v = e;
        }
        if (!v)
            return;
        c->idle_bytes -= v->hi - v->lo;
        c->evicted++;
        drop(c, v);
    }
}

/* Cost: one lock and a scan of TN_OFI_MR_ENTRIES slots (a hit), plus
 * fi_mr_reg on a miss; only for private buffers above the bounce size. */
int tn_ofi_mr_acquire(tn_ofi_t *o, const void *buf, size_t len, uint64_t access,
                      struct fid_mr **out)
{
    tn_ofi_mr_cache_t *c = o->mrc;
    uintptr_t lo = (uintptr_t)buf & ~(uintptr_t)(c->page - 1);
    uintptr_t hi = ((uintptr_t)buf + len + c->page - 1) & ~(uintptr_t)(c->page - 1);
    pthread_mutex_lock(&c->lock);
    mreg_t *hit = NULL, *slot = NULL;
    for (int i = 0; i < TN_OFI_MR_ENTRIES && !hit; i++) {
        mreg_t *e = &c->ent[i];
        if (!e->mr) {
            if (!slot || slot->mr)
                slot = e; /* a free slot beats any eviction */
        } else if (e->lo <= lo && hi <= e->hi && (e->access & access) == access) {
            hit = e;
        } else if (e->refs == 0 && (!slot || (slot->mr && e->stamp < slot->stamp))) {
            slot = e;
        }
    }
    int rc = TERN_OK;
    if (hit) {
        c->hits++;
        if (hit->refs++ == 0)
            c->idle_bytes -= hit->hi - hit->lo;
        hit->stamp = ++c->clock;
        *out = hit->mr;
        pthread_mutex_unlock(&c->lock);
        return TERN_OK;
    }
    c->misses++;
    if (slot && slot->mr) { /* evict the least recently used unreferenced one */
        c->evicted++;
        c->idle_bytes -= slot->hi - slot->lo;
        drop(c, slot);
    }
    struct fid_mr *mr;
    rc = reg(o, lo, hi, access, &mr);
    if (rc == TERN_OK && slot) {
        *slot = (mreg_t){.mr = mr,
                         .lo = lo,
                         .hi = hi,
                         .access = access,
                         .refs = 1,
                         .stamp = ++c->clock};
    } else if (rc == TERN_OK) {
        /* Every entry is in use: mr is this operation's alone and is
         * closed when it completes (release finds it in no slot). */
        c->uncached++;
    }
    pthread_mutex_unlock(&c->lock);
    if (rc == TERN_OK)
        *out = mr;
    return rc;
}

void tn_ofi_mr_release(tn_ofi_t *o, struct fid_mr *mr)
{
    tn_ofi_mr_cache_t *c = o->mrc;
    pthread_mutex_lock(&c->lock);
    mreg_t *e = NULL;
    for (int i = 0; i < TN_OFI_MR_ENTRIES && !e; i++)
        if (c->ent[i].mr == mr)
            e = &c->ent[i];
    if (!e) {
        fi_close(&mr->fid);
        c->live--;
    } else if (--e->refs == 0) {
        if (c->keep_idle) {
            c->idle_bytes += e->hi - e->lo;
            trim(c);
        } else {
            drop(c, e);
        }
    }
    pthread_mutex_unlock(&c->lock);
}
