/* The mailbox of the active-message path of atomic domains: a blocking
 * fetching op to a network peer travels as two completion-less RMA writes
 * instead of two messages. The initiator writes the op into its slot in
 * the target's control area (TN_XPORT_FLAG_UNACKED), the target's
 * progress finds it, runs the CPU atomic the am path's handler runs and
 * writes the old value into the initiator's reply slot, which the
 * initiator polls. docs/design/atomics.md, "The mailbox". */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "base/log.h"
#include "base/stats.h"
#include "base/wait.h"
#include "core/am.h"
#include "core/atomic.h"
#include "core/event.h"

/* After atomic_am.c's (+0, +1), acc.c's (+2, +3), atomic_agg.c's (+4, +5). */
enum { H_HELLO = TN_AMH_ATOMIC + 6 };

#define THREADS  4  /* slots per pair of ranks: threads issuing at once */
#define LINE     64 /* bytes of one slot */
#define REQ_W    6  /* request words: seq, type | op << 8, word, a1, a2, sum */
#define REP_W    4  /* reply words: seq, old value, status, sum */
#define PENDING  64 /* counters of ops in flight by message, by thread */
#define SUM_SEED 0x6a09e667f3bcc909ull

/* Hello states of a (target, slot) pair at the initiator. */
enum { HELLO_NONE = 0, HELLO_OK = 1, HELLO_NO = 2 };

/* Every rank claims the same two pieces of its control area, so a slot
 * has the same offset everywhere: req (size * THREADS slots: initiator r's
 * slot t at (r * THREADS + t) * LINE), written by the initiators and read
 * by the owner; rep (THREADS slots), written by targets, read by the
 * owner's thread holding the slot. */
static size_t req_off = SIZE_MAX, rep_off;
static int on; /* planned and initialized here */

/* The target's side: the pairs that said hello, scanned by progress.
 * active[0 .. nactive) is appended under hello_lock by the hello handler
 * and read without it (nactive published with release); served[e] is the
 * last sequence number run for pair e, advanced by compare-and-swap so
 * that two scanning threads run a request once. */
static uint32_t *active;
_Atomic uint32_t tn_ad_mbox_nactive;
static _Atomic uint64_t *served;
static _Atomic uint8_t *registered;
static pthread_mutex_t hello_lock = PTHREAD_MUTEX_INITIALIZER;

/* The initiator's side: a slot is held by one thread for one op. The
 * state of its hello with each target and its sequence numbers are
 * touched by the holder only. */
typedef struct {
    _Alignas(64) _Atomic int busy;
    uint64_t seq; /* last used; grows across targets */
} slot_t;
static slot_t slots[THREADS];
static uint8_t *hello; /* [size * THREADS] HELLO_* */
static _Atomic unsigned next_slot;
static TN_TLS_FAST _Thread_local int my_slot = -1;

/* Atomic-domain ops of a thread in flight by message (Requests sent or
 * queued for combining, whose Replies have not come): counted per thread,
 * PENDING counters shared round-robin when there are more threads (a
 * shared counter only says "busy" more often). */
typedef struct {
    _Alignas(64) _Atomic long n;
} pending_t;
static pending_t pending[PENDING];
static _Atomic unsigned next_pending;
static TN_TLS_FAST _Thread_local _Atomic long *my_pending;

_Atomic long *tn_ad_pending_mine(void)
{
    if (tn_unlikely(!my_pending))
        my_pending =
            &pending[atomic_fetch_add_explicit(&next_pending, 1, memory_order_relaxed) %
                     PENDING]
                 .n;
    return my_pending;
}

/* A check word over a slot's other words: a reader that finds it
 * matching has read one whole write, not a mix of an old and a new one
 * (the provider copies a write into place with no promised order among
 * its bytes, on whichever thread polls). A torn read passes with
 * probability 2^-64. */
static uint64_t sum(const uint64_t *w, int n)
{
    uint64_t h = SUM_SEED;
    for (int i = 0; i < n; i++) {
        h ^= w[i];
        h *= 0x9e3779b97f4a7c15ull;
        h ^= h >> 31;
    }
    return h;
}

/* Reads n words of a slot another process writes into. */
static void load(const uint64_t *slot, uint64_t *w, int n)
{
    for (int i = 0; i < n; i++)
        w[i] = atomic_load_explicit((const _Atomic uint64_t *)&slot[i],
                                    memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
}

static char *ctrl_of(int rank)
{
    const tn_peer_info_t *in = tn_core_info(rank);
    return (char *)(uintptr_t)(in->data_base - in->ctrl_size);
}

void tn_ad_mbox_plan(tn_ctrl_space_t *space)
{
    req_off = SIZE_MAX;
    if (!tn_cfg.amo_mailbox || tn_core.size < 2)
        return;
    req_off = tn_ctrl_alloc(space, (size_t)tn_core.size * THREADS * LINE, LINE);
    rep_off = tn_ctrl_alloc(space, THREADS * LINE, LINE);
}

static void on_hello(tern_am_token_t token, void *buf, size_t len, const tern_am_arg_t *a,
                     int nargs)
{
    (void)buf;
    (void)len;
    int src = -1;
    tern_am_source(token, &src);
    if (nargs != 2)
        return;
    int st = TERN_ERR_UNSUPPORTED;
    if (on && src >= 0 && src < tn_core.size && a[0] < THREADS) {
        uint32_t e = (uint32_t)src * THREADS + (uint32_t)a[0];
        pthread_mutex_lock(&hello_lock);
        if (!atomic_exchange_explicit(&registered[e], 1, memory_order_relaxed)) {
            uint32_t n = atomic_load_explicit(&tn_ad_mbox_nactive, memory_order_relaxed);
            active[n] = e;
            atomic_store_explicit(&tn_ad_mbox_nactive, n + 1, memory_order_release);
        }
        pthread_mutex_unlock(&hello_lock);
        st = TERN_OK;
    }
    tn_am_reply_done("atomic domain (mailbox hello)", token, st, a[1]);
}

void tn_ad_mbox_init(void)
{
    tn_am_register_internal(H_HELLO, on_hello, "tern atomic mailbox hello");
    tn_ad_mbox_fini(); /* a failed tern_init's tables, if any */
    if (req_off == SIZE_MAX)
        return;
    size_t n = (size_t)tn_core.size * THREADS;
    active = calloc(n, sizeof(*active));
    served = calloc(n, sizeof(*served));
    registered = calloc(n, sizeof(*registered));
    hello = calloc(n, sizeof(*hello));
    if (!active || !served || !registered || !hello) {
        tn_warn("no memory for the atomic mailbox (%zu bytes): fetching atomics "
                "go by message",
                n * (sizeof(*active) + sizeof(*served) + 2));
        tn_ad_mbox_fini();
        return;
    }
    for (int t = 0; t < THREADS; t++)
        slots[t].seq = 0; /* the slots of a new segment are zero */
    on = 1;
}

void tn_ad_mbox_fini(void)
{
    on = 0;
    atomic_store(&tn_ad_mbox_nactive, 0);
    free(active);
    free(served);
    free(registered);
    free(hello);
    active = NULL;
    served = NULL;
    registered = NULL;
    hello = NULL;
}

/* An unacknowledged write of n words to rank's control area at off. */
static int write_slot(int rank, size_t off, const uint64_t *w, int n, unsigned flags)
{
    tn_rma_t op = {
        TN_RMA_PUT,   rank, (void *)w, ctrl_of(rank) + off, (size_t)n * sizeof(uint64_t),
        TN_REGION_SEG};
    tn_xport_done_t none = {NULL, NULL};
    return tn_core_xport_rma(tn_core_peer(rank)->xport, &op, &none,
                             flags | TN_XPORT_FLAG_UNACKED);
}

/* Serves pair e's request when a new whole one is there. */
static int serve(uint32_t e)
{
    const uint64_t *slot =
        (const uint64_t *)(tn_core_peer(tn_core.rank)->ctrl + req_off + (size_t)e * LINE);
    uint64_t seq =
        atomic_load_explicit((const _Atomic uint64_t *)slot, memory_order_relaxed);
    uint64_t prev = atomic_load_explicit(&served[e], memory_order_relaxed);
    if (seq <= prev)
        return 0;
    uint64_t w[REQ_W];
    load(slot, w, REQ_W);
    if (w[0] <= prev || w[REQ_W - 1] != sum(w, REQ_W - 1))
        return 0; /* still arriving */
    if (!atomic_compare_exchange_strong_explicit(
            &served[e], &prev, w[0], memory_order_relaxed, memory_order_relaxed))
        return 0; /* another thread serves it */
    int src = (int)(e / THREADS), type = (int)(w[1] & 0xff),
        op = (int)((w[1] >> 8) & 0xff);
    uintptr_t p = (uintptr_t)w[2];
    size_t size = type < TN_ATYPE_COUNT ? tn_atype_size(type) : 8;
    tn_aval_t a1, a2, old;
    a1.u64 = w[3];
    a2.u64 = w[4];
    old.u64 = 0;
    int st = TERN_OK;
    /* The initiator checked all of this; a wrong request (a peer's bug)
     * must not write outside this rank's segment and static region. */
    if ((w[1] >> 16) || type >= TN_ATYPE_COUNT || op >= TN_AOP_COUNT ||
        (p & (size - 1)) || tn_core_region(tn_core.rank, p, size) < 0) {
        tn_error("atomic mailbox request from rank %d is malformed (type %d, op %d, "
                 "word %p): not run",
                 src, type, op, (void *)p);
        st = TERN_ERR_INVALID;
    } else {
        tn_amo_cpu(type, op, (void *)p, &a1, &a2, &old);
    }
    uint64_t r[REP_W] = {w[0], old.u64, (uint64_t)(uint32_t)st, 0};
    r[REP_W - 1] = sum(r, REP_W - 1);
    int rc = write_slot(src, rep_off + (e % THREADS) * LINE, r, REP_W, 0);
    if (rc != TERN_OK) {
        /* The initiator waits for this write: lost, it would hang. */
        char msg[160];
        snprintf(msg, sizeof(msg),
                 "atomic mailbox: the network write of a reply to rank %d failed: %s",
                 src, tern_strerror(rc));
        tern_abort(1, msg);
    }
    TN_STAT_ADD(amo_mailbox_served, 1);
    return 1;
}

int tn_ad_mbox_progress(void)
{
    uint32_t n = atomic_load_explicit(&tn_ad_mbox_nactive, memory_order_acquire);
    int done = 0;
    for (uint32_t i = 0; i < n; i++)
        done += serve(active[i]);
    return done;
}

/* Says hello to rank from slot t (a message round trip, once per pair):
 * its progress scans the slot from now on. */
static TN_NOINLINE int say_hello(const char *call, int rank, int t)
{
    tn_comp_t c;
    tn_comp_init(&c, 1);
    tern_am_arg_t a[2] = {(uint64_t)t, (uint64_t)(uintptr_t)&c};
    int rc =
        tn_am_request_internal(call, rank, H_HELLO, TN_AM_SHORT, NULL, 0, NULL, a, 2, 0);
    if (rc != TERN_OK)
        return HELLO_NO;
    return tn_comp_wait(&c) == TERN_OK ? HELLO_OK : HELLO_NO;
}

int tn_ad_mbox_run(const char *call, const tn_amo_t *op, unsigned flags)
{
    if (!on)
        return TN_AD_MBOX_NO;
    const tn_peer_t *p = tn_core_peer(op->rank);
    if (p->ctrl || p->kind != TN_PEER_NET ||
        !(p->xport->caps.flags & TN_XCAP_PUT_UNACKED) ||
        p->xport->caps.inject < REQ_W * sizeof(uint64_t))
        return TN_AD_MBOX_NO;
    /* An op of this thread still travelling by message would be
     * overtaken: the fetch must see it (amo_fetch_order). */
    if (atomic_load_explicit(tn_ad_pending_mine(), memory_order_acquire))
        return TN_AD_MBOX_NO;
    if (my_slot < 0)
        my_slot = (int)(atomic_fetch_add_explicit(&next_slot, 1, memory_order_relaxed) %
                        THREADS);
    slot_t *s = &slots[my_slot];
    if (atomic_load_explicit(&s->busy, memory_order_relaxed) ||
        atomic_exchange_explicit(&s->busy, 1, memory_order_acquire))
        return TN_AD_MBOX_NO; /* another thread of this slot is in it */
    int rc = TN_AD_MBOX_NO;
    size_t e = (size_t)op->rank * THREADS + (size_t)my_slot;
    if (hello[e] == HELLO_NONE && !(flags & TERN_FLAG_IMMEDIATE))
        hello[e] = (uint8_t)say_hello(call, op->rank, my_slot);
    if (hello[e] != HELLO_OK)
        goto out;
    uint64_t w[REQ_W] = {++s->seq,
                         (uint64_t)op->type | (uint64_t)op->op << 8,
                         (uint64_t)(uintptr_t)op->remote,
                         op->a1.u64,
                         op->a2.u64,
                         0};
    w[REQ_W - 1] = sum(w, REQ_W - 1);
    rc = write_slot(op->rank, req_off + ((size_t)tn_core.rank * THREADS + my_slot) * LINE,
                    w, REQ_W, flags & TERN_FLAG_IMMEDIATE);
    if (rc != TERN_OK) {
        s->seq--; /* nothing was written */
        goto out;
    }
    TN_STAT_ADD(amo_mailbox, 1);
    const uint64_t *slot =
        (const uint64_t *)(tn_core_peer(tn_core.rank)->ctrl + rep_off + my_slot * LINE);
    uint64_t r[REP_W];
    for (uint64_t iter = 0;; iter++) {
        if (atomic_load_explicit((const _Atomic uint64_t *)slot, memory_order_relaxed) ==
            w[0]) {
            load(slot, r, REP_W);
            if (r[0] == w[0] && r[REP_W - 1] == sum(r, REP_W - 1))
                break;
        }
        tn_wait_step(iter); /* drives progress: this rank serves others meanwhile */
    }
    rc = (int)(uint32_t)r[2];
    if (rc == TERN_OK && op->result)
        memcpy(op->result, &r[1], tn_atype_size(op->type)); /* little-endian */
out:
    atomic_store_explicit(&s->busy, 0, memory_order_release);
    return rc;
}
