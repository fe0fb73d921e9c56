/* Combining on the active-message path of atomic domains: the nbi ops of a
 * thread to one target (and its blocking non-fetching ops that return
 * early) collect as records in a buffer that leaves as one Medium Request;
 * the target runs them in order and answers with one Reply, which carries
 * the fetched values back. docs/design/atomics.md, "Combining". */
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "base/log.h"
#include "base/spin.h"
#include "base/wait.h"
#include "core/am.h"
#include "core/atomic.h"

/* After atomic_am.c's (+0, +1) and acc.c's (+2, +3). */
enum { H_REQUEST = TN_AMH_ATOMIC + 4, H_REPLY = TN_AMH_ATOMIC + 5 };

#define SLOTS     4        /* batches per thread: targets rank % SLOTS */
#define AGG_MAX   4096     /* bytes of records per message at most (every rank) */
#define REC_MAX   40       /* the largest record: head, word, a1, a2, result */
#define REC_A2    0x10000u /* record head: a2 follows a1 (CSWAP) */
#define REC_RES   0x20000u /* record head: the initiator's result pointer follows */
#define REC_KNOWN (0xffffu | REC_A2 | REC_RES)
/* A fetching record is at least 32 bytes and its Reply entry 24, so the
 * Reply of AGG_MAX bytes of records fits in this many words. */
#define REPLY_WORDS (AGG_MAX / 32 * 3)

/* One target's records, in the order issued. Records are 8-byte words:
 * [0] type | op << 8 | REC_*, [1] the word (the target's address), [2] a1,
 * then a2 (REC_A2), then the result pointer (REC_RES). */
typedef struct batch {
    int rank;           /* the target, while n > 0 */
    uint32_t n, nfetch; /* records; fetching ones among them */
    size_t len, cap;    /* bytes used; limit for this target */
    tn_comp_t *comp;    /* where every record's part is counted */
    uint64_t *rec;
} batch_t;

/* A thread's batches. The owner appends; any thread may flush (a sync on
 * a shared context, the progress thread): both under lock, and a flush
 * sends before it empties, so whoever takes the lock next finds the
 * records either still here or handed to the transport. */
typedef struct agg {
    _Atomic int lock;
    _Atomic int open;      /* batches holding records; read by the owner without
                         the lock: 0 means everything it queued was sent */
    struct agg *next;      /* the registry: every thread's, until finalize */
    _Atomic long *pending; /* the owner's count of ops travelling by message
                              (tn_ad_pending_mine): one per record queued */
    batch_t b[SLOTS];
} agg_t;

_Atomic int tn_ad_agg_open;
static _Atomic(agg_t *) registry;
static size_t agg_bytes; /* TERN_AMO_COMBINE, clamped; 0: combining off */
static TN_TLS_FAST _Thread_local agg_t *mine;
/* This thread is sending a batch: a flush from inside that send's wait
 * (progress) must not start another. */
static TN_TLS_FAST _Thread_local int flushing;

int tn_ad_agg_on(void)
{
    return agg_bytes != 0;
}

static TN_NOINLINE agg_t *agg_new(const char *call)
{
    agg_t *a = calloc(1, sizeof(*a) + SLOTS * agg_bytes);
    if (!a) {
        tn_core_fail(TERN_ERR_NOMEM, call,
                     "no memory for this thread's combining buffers (%zu bytes; "
                     "TERN_AMO_COMBINE=0 turns combining off)",
                     sizeof(*a) + SLOTS * agg_bytes);
        return NULL;
    }
    uint64_t *mem = (uint64_t *)(a + 1);
    for (int i = 0; i < SLOTS; i++)
        a->b[i].rec = mem + (size_t)i * (agg_bytes / 8);
    a->next = atomic_load_explicit(&registry, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(
        &registry, &a->next, a, memory_order_release, memory_order_relaxed))
        ;
    a->pending = tn_ad_pending_mine();
    mine = a;
    return a;
}

/* Sends b (lock held) as one Request. Under TERN_FLAG_IMMEDIATE without
 * room: TERN_ERR_AGAIN, b kept. Any other failure ends the records' parts
 * with it (their sync reports it) and empties b, as a send does. */
static int flush(const char *call, agg_t *a, batch_t *b, unsigned flags)
{
    tern_am_arg_t args[4] = {(uint64_t)(uintptr_t)b->comp, b->n, b->nfetch,
                             (uint64_t)(uintptr_t)a->pending};
    flushing++;
    int rc = tn_am_request_internal(call, b->rank, H_REQUEST, TN_AM_MEDIUM, b->rec,
                                    b->len, NULL, args, 4, flags);
    flushing--;
    if (rc == TERN_ERR_AGAIN && (flags & TERN_FLAG_IMMEDIATE))
        return rc;
    if (rc != TERN_OK) {
        tn_comp_done_n(b->comp, b->n, rc);
        atomic_fetch_sub_explicit(a->pending, (long)b->n, memory_order_release);
    }
    b->n = b->nfetch = 0;
    b->len = 0;
    atomic_fetch_sub_explicit(&a->open, 1, memory_order_release);
    atomic_fetch_sub_explicit(&tn_ad_agg_open, 1, memory_order_relaxed);
    return rc;
}

int tn_ad_agg_put(const char *call, const tn_amo_t *op, tn_comp_t *c, unsigned flags)
{
    agg_t *a = mine ? mine : agg_new(call);
    if (!a)
        return TERN_ERR_NOMEM;
    int cswap = op->op == TN_AOP_CSWAP, fetch = op->result != NULL;
    size_t words = 3 + (size_t)cswap + (size_t)fetch;
    tn_spin_lock(&a->lock);
    batch_t *b = &a->b[(unsigned)op->rank % SLOTS];
    int rc = TERN_OK;
    /* One target and one completion object per batch: another's records
     * leave first, which also keeps this thread's order to that target. */
    if (b->n && (b->rank != op->rank || b->comp != c || b->len + words * 8 > b->cap))
        rc = flush(call, a, b, flags);
    if (rc == TERN_OK) {
        if (!b->n) {
            size_t m = tn_core_peer(op->rank)->am_medium_max;
            b->rank = op->rank;
            b->comp = c;
            b->cap = (m < agg_bytes ? m : agg_bytes) & ~(size_t)7;
            atomic_fetch_add_explicit(&a->open, 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&tn_ad_agg_open, 1, memory_order_relaxed);
        }
        uint64_t *r = b->rec + b->len / 8;
        r[0] = (uint64_t)op->type | (uint64_t)op->op << 8 | (cswap ? REC_A2 : 0) |
               (fetch ? REC_RES : 0);
        r[1] = (uint64_t)(uintptr_t)op->remote;
        r[2] = op->a1.u64;
        if (cswap)
            r[3] = op->a2.u64;
        if (fetch)
            r[3 + cswap] = (uint64_t)(uintptr_t)op->result;
        b->len += words * 8;
        b->n++;
        b->nfetch += (uint32_t)fetch;
        tn_comp_add(c, 1);
        atomic_fetch_add_explicit(a->pending, 1, memory_order_relaxed);
        /* Full: it leaves now rather than wait for the next op or sync (a
         * refusal under IMMEDIATE leaves it for those). */
        if (b->len + REC_MAX > b->cap)
            (void)flush(call, a, b, flags);
    }
    tn_spin_unlock(&a->lock);
    return rc;
}

int tn_ad_agg_before(const char *call, int rank, unsigned flags)
{
    agg_t *a = mine;
    if (!a || !atomic_load_explicit(&a->open, memory_order_acquire))
        return TERN_OK;
    tn_spin_lock(&a->lock);
    batch_t *b = &a->b[(unsigned)rank % SLOTS];
    int rc = b->n && b->rank == rank ? flush(call, a, b, flags) : TERN_OK;
    tn_spin_unlock(&a->lock);
    return rc;
}

void tn_ad_agg_flush(int wait)
{
    if (flushing || tn_am_in_handler)
        return;
    for (agg_t *a = atomic_load_explicit(&registry, memory_order_acquire); a;
         a = a->next) {
        if (!atomic_load_explicit(&a->open, memory_order_acquire))
            continue;
        if (wait)
            tn_spin_lock(&a->lock);
        else if (!tn_spin_trylock(&a->lock))
            continue; /* its holder sends it, or the next flush will */
        for (int i = 0; i < SLOTS; i++)
            if (a->b[i].n && (!tn_core_progress_self ||
                              tn_core_peer(a->b[i].rank)->kind == TN_PEER_NET))
                (void)flush("tern_ad_op_nbi (combined atomics)", a, &a->b[i], 0);
        tn_spin_unlock(&a->lock);
    }
}

/* Request args: [0] the initiator's completion object, [1] records,
 * [2] fetching records, [3] the initiator's pending count. Reply args:
 * [0] the same object, [1] records, [2] status, [3] the pending count; payload: per fetching
 * record run, {value bytes, result, value}. */
static void on_request(tern_am_token_t token, void *buf, size_t len,
                       const tern_am_arg_t *a, int nargs)
{
    int src = -1;
    tern_am_source(token, &src);
    uint64_t rep[REPLY_WORDS];
    size_t nrep = 0, i = 0, words = len / 8;
    const uint64_t *w = buf;
    uint64_t n = nargs == 4 ? a[1] : 0, nfetch = nargs == 4 ? a[2] : 0;
    int st = TERN_OK;
    const char *why = NULL;
    if (nargs != 4 || len % 8 || nfetch > n || nfetch * 3 > REPLY_WORDS)
        why = "bad header";
    for (uint64_t k = 0; !why && k < n; k++) {
        if (i + 3 > words) {
            why = "records end early";
            break;
        }
        uint64_t h = w[i];
        int type = (int)(h & 0xff), op = (int)((h >> 8) & 0xff);
        int cswap = !!(h & REC_A2), fetch = !!(h & REC_RES);
        size_t need = 3 + (size_t)cswap + (size_t)fetch;
        size_t size = type < TN_ATYPE_COUNT ? tn_atype_size(type) : 8;
        uintptr_t p = (uintptr_t)w[i + 1];
        if ((h & ~(uint64_t)REC_KNOWN) || type >= TN_ATYPE_COUNT || op >= TN_AOP_COUNT ||
            cswap != (op == TN_AOP_CSWAP) ||
            fetch != !!(TN_AOP_BIT(op) & TN_AOPS_FETCHING) || i + need > words ||
            (fetch && nrep + 3 > nfetch * 3) || (p & (size - 1)) ||
            tn_core_region(tn_core.rank, p, size) < 0) {
            why = "bad record";
            break;
        }
        tn_aval_t a1, a2, old;
        a1.u64 = w[i + 2];
        a2.u64 = cswap ? w[i + 3] : 0;
        old.u64 = 0;
        tn_amo_cpu(type, op, (void *)p, &a1, &a2, &old);
        if (fetch) {
            rep[nrep++] = size;
            rep[nrep++] = w[i + need - 1];
            rep[nrep++] = old.u64;
        }
        i += need;
    }
    if (!why && i != words)
        why = "bytes after the records";
    if (why) {
        /* The initiator checked every op; a message that is wrong anyway
         * (a peer's bug) runs no further, and its ops fail. */
        tn_error("combined atomic request from rank %d is malformed (%s: %d args, "
                 "%zu bytes, record at byte %zu): not run past it",
                 src, why, nargs, len, i * 8);
        st = TERN_ERR_INVALID;
    }
    if (nargs < 1)
        return; /* nothing to answer to */
    tern_am_arg_t r[4] = {a[0], n, (uint64_t)(uint32_t)st, nargs == 4 ? a[3] : 0};
    tn_am_reply_internal("atomic domain (combined)", token, H_REPLY,
                         nrep ? TN_AM_MEDIUM : TN_AM_SHORT, nrep ? rep : NULL, nrep * 8,
                         NULL, r, 4, 0);
}

static void on_reply(tern_am_token_t token, void *buf, size_t len, const tern_am_arg_t *a,
                     int nargs)
{
    (void)token;
    if (nargs != 4 || !a[0])
        return;
    const uint64_t *e = buf;
    for (size_t i = 0; i + 3 <= len / 8; i += 3)
        memcpy((void *)(uintptr_t)e[i + 1], &e[i + 2], e[i] == 8 ? 8 : 4);
    /* The ops ran at the target: a fetch by mailbox may overtake nothing
     * of them now. */
    if (a[3])
        atomic_fetch_sub_explicit((_Atomic long *)(uintptr_t)a[3], (long)a[1],
                                  memory_order_release);
    /* The release publishes the values to the waiter. */
    tn_comp_done_n((tn_comp_t *)(uintptr_t)a[0], (int64_t)a[1], (int)(uint32_t)a[2]);
}

void tn_ad_agg_init(void)
{
    size_t v = tn_cfg.amo_combine;
    agg_bytes = v < 2 * REC_MAX ? 0 : (v > AGG_MAX ? AGG_MAX : v) & ~(size_t)7;
    tn_am_register_internal(H_REQUEST, on_request, "tern combined atomics");
    tn_am_register_internal(H_REPLY, on_reply, "tern combined atomics reply");
}

void tn_ad_agg_fini(void)
{
    agg_t *a = atomic_exchange_explicit(&registry, NULL, memory_order_acquire);
    while (a) {
        agg_t *next = a->next;
        free(a);
        a = next;
    }
    mine = NULL;
    atomic_store_explicit(&tn_ad_agg_open, 0, memory_order_relaxed);
}
