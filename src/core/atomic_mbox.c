/* The mailbox of the active-message path of atomic domains: a blocking
 * fetching op to a network peer travels as two completion-less RMA writes
 * instead of two messages. The initiator writes the op into its slot in
 * the target's control area (TN_XPORT_FLAG_UNACKED), the target's
 * progress finds it, runs the CPU atomic the am path's handler runs and
 * writes the old value into the initiator's reply slot, which the
 * initiator polls. docs/design/atomics.md, "The mailbox". A small
 * blocking get goes the same way (TERN_GET_MAILBOX): the target copies
 * the bytes into the reply (docs/design/shmem-bench.md, "Small network
 * gets by the mailbox"). */
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
enum { H_HELLO = TN_AMH_ATOMIC + 6, H_HELLO_REPLY = TN_AMH_ATOMIC + 7 };

#define THREADS  4    /* slots of an initiator: threads issuing at once */
#define POOL     64   /* request slots of a target, handed out by hello */
#define LINE     64   /* bytes of one request slot */
#define REQ_W    6    /* request words: seq, type | op << 8, word, a1, a2, sum */
#define REP_W    4    /* AMO reply words: seq, old value, status, sum */
#define REP_LINE 128  /* bytes of one reply slot: a get's reply fills it */
#define GET      0xff /* request type of a get: seq, GET, address, length, 0, sum */
/* A get's reply: seq, status, the bytes in GET_W words at most, sum. */
#define GET_W (REP_LINE / 8 - 3)
_Static_assert(TN_MBOX_GET_MAX <= GET_W * 8, "a get's reply fits its slot");
_Static_assert(TN_ATYPE_COUNT < GET, "the get's type is no atomic type");
#define PENDING 64 /* counters of ops in flight by message, by thread */

/* Every rank claims the same two pieces of its control area: req (POOL
 * request slots, slot i given to the i-th (initiator, thread slot) pair
 * that said hello), written by the initiators and read by the owner; rep
 * (THREADS slots), written by targets, read by the owner's thread holding
 * the slot. Neither grows with the job: a pair past the pool stays on
 * messages. */
static size_t req_off = SIZE_MAX, rep_off;
static int on; /* planned and initialized here */

/* The target's side: the pairs that said hello, scanned by progress.
 * active[0 .. nactive) (initiator * THREADS + its slot) is appended under
 * hello_lock by the hello handler and read without it (nactive published
 * with release); served[i] is the last sequence number run from request
 * slot i, advanced by compare-and-swap so that two scanning threads run a
 * request once. */
static uint32_t active[POOL];
_Atomic uint32_t tn_ad_mbox_nactive;
static _Atomic uint64_t served[POOL];
static pthread_mutex_t hello_lock = PTHREAD_MUTEX_INITIALIZER;

/* The initiator's side: a slot is held by one thread for one op. Its
 * sequence numbers and its table of hello answers (the request slot each
 * target gave it, or NO) are touched by the holder only. The table holds
 * only targets this slot has contacted: open addressing on rank + 1. */
enum { HELLO_NO = -1 };
typedef struct {
    uint32_t rank1; /* rank + 1; 0: empty */
    int32_t idx;    /* request slot at that target, or HELLO_NO */
} hello_t;
typedef struct {
    _Alignas(64) _Atomic int busy;
    uint64_t seq; /* last used; grows across targets */
    hello_t *tab;
    uint32_t cap, n;
} slot_t;
static slot_t slots[THREADS];
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
    req_off = tn_ctrl_alloc(space, POOL * LINE, LINE);
    rep_off = tn_ctrl_alloc(space, THREADS * REP_LINE, LINE);
}

/* The answer to a hello: [0] the request slot + 1 (0: none), [1] the
 * initiator's hello_wait_t. */
typedef struct {
    tn_comp_t c;
    int32_t idx;
} hello_wait_t;

static void on_hello(tern_am_token_t token, void *buf, size_t len, const tern_am_arg_t *a,
                     int nargs)
{
    (void)buf;
    (void)len;
    int src = -1;
    tern_am_source(token, &src);
    if (nargs != 2)
        return;
    uint64_t idx1 = 0;
    if (on && src >= 0 && src < tn_core.size && a[0] < THREADS) {
        /* An initiator's slot says hello once per target (it keeps the
         * answer), so every hello takes a new request slot. */
        pthread_mutex_lock(&hello_lock);
        uint32_t n = atomic_load_explicit(&tn_ad_mbox_nactive, memory_order_relaxed);
        if (n < POOL) {
            active[n] = (uint32_t)src * THREADS + (uint32_t)a[0];
            atomic_store_explicit(&served[n], 0, memory_order_relaxed);
            atomic_store_explicit(&tn_ad_mbox_nactive, n + 1, memory_order_release);
            idx1 = n + 1;
        }
        pthread_mutex_unlock(&hello_lock);
    }
    tern_am_arg_t r[2] = {idx1, a[1]};
    tn_am_reply_internal("atomic domain (mailbox hello)", token, H_HELLO_REPLY,
                         TN_AM_SHORT, NULL, 0, NULL, r, 2, 0);
}

static void on_hello_reply(tern_am_token_t token, void *buf, size_t len,
                           const tern_am_arg_t *a, int nargs)
{
    (void)token;
    (void)buf;
    (void)len;
    if (nargs != 2 || !a[1])
        return;
    hello_wait_t *h = (hello_wait_t *)(uintptr_t)a[1];
    h->idx = a[0] ? (int32_t)(a[0] - 1) : HELLO_NO;
    tn_comp_done(&h->c, TERN_OK);
}

static void forget_hellos(void)
{
    for (int t = 0; t < THREADS; t++) {
        free(slots[t].tab);
        slots[t].tab = NULL;
        slots[t].cap = slots[t].n = 0;
        slots[t].seq = 0; /* the slots of a new segment are zero */
    }
}

void tn_ad_mbox_init(void)
{
    tn_am_register_internal(H_HELLO, on_hello, "tern atomic mailbox hello");
    tn_am_register_internal(H_HELLO_REPLY, on_hello_reply, "tern atomic mailbox slot");
    tn_ad_mbox_fini(); /* a failed tern_init's tables, if any */
    if (req_off == SIZE_MAX)
        return;
    on = 1;
}

void tn_ad_mbox_fini(void)
{
    on = 0;
    atomic_store(&tn_ad_mbox_nactive, 0);
    forget_hellos();
}

/* The hello answer of slot s for rank, or NULL when it has none. */
static hello_t *hello_find(const slot_t *s, int rank)
{
    if (!s->cap)
        return NULL;
    for (uint32_t i = (uint32_t)rank * 2654435761u & (s->cap - 1);;
         i = (i + 1) & (s->cap - 1))
        if (s->tab[i].rank1 == (uint32_t)rank + 1)
            return &s->tab[i];
        else if (!s->tab[i].rank1)
            return NULL;
}

/* Keeps slot s's hello answer for rank (not kept without memory: the
 * next op says hello again). */
static void hello_keep(slot_t *s, int rank, int32_t idx)
{
    if (2 * (s->n + 1) > s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : 8;
        hello_t *tab = calloc(cap, sizeof(*tab)), *old = s->tab;
        if (!tab)
            return;
        uint32_t oldcap = s->cap;
        s->tab = tab;
        s->cap = cap;
        s->n = 0;
        for (uint32_t i = 0; i < oldcap; i++)
            if (old[i].rank1)
                hello_keep(s, (int)old[i].rank1 - 1, old[i].idx);
        free(old);
    }
    uint32_t i = (uint32_t)rank * 2654435761u & (s->cap - 1);
    while (s->tab[i].rank1)
        i = (i + 1) & (s->cap - 1);
    s->tab[i] = (hello_t){(uint32_t)rank + 1, idx};
    s->n++;
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

/* The write of a reply into the reply slot t of rank src; ends the job
 * when it fails: the initiator waits for it and would hang. */
static void reply(int src, uint32_t t, const uint64_t *r, int n)
{
    /* The op just served (an atomic or a read of this rank's memory) may
     * have run on the progress thread: its effects are released for the
     * barrier that the application returns from later (core.h). */
    tn_core_effects_release();
    int rc = write_slot(src, rep_off + t * REP_LINE, r, n, 0);
    if (rc != TERN_OK) {
        char msg[160];
        snprintf(msg, sizeof(msg),
                 "atomic mailbox: the network write of a reply to rank %d failed: %s",
                 src, tern_strerror(rc));
        tern_abort(1, msg);
    }
}

/* A get request (w, whole, taken by this thread): the bytes asked for, read
 * from this rank's segment or static region as a read of the provider's
 * would, into the reply. */
static int serve_get(int src, uint32_t t, const uint64_t *w)
{
    uintptr_t p = (uintptr_t)w[2];
    size_t n = (size_t)w[3];
    uint64_t r[REP_LINE / 8] = {w[0], TERN_OK};
    int nw = 0;
    if (n == 0 || n > TN_MBOX_GET_MAX || w[4] || tn_core_region(tn_core.rank, p, n) < 0) {
        tn_error("atomic mailbox: a get request from rank %d is malformed (%zu B at %p): "
                 "not run",
                 src, n, (void *)p);
        r[1] = (uint64_t)(uint32_t)TERN_ERR_INVALID;
    } else {
        nw = (int)((n + 7) / 8);
        memcpy(&r[2], (const void *)p, n);
    }
    r[2 + nw] = tn_check_word(r, (size_t)(2 + nw));
    reply(src, t, r, 3 + nw);
    TN_STAT_ADD(amo_mailbox_served, 1);
    return 1;
}

/* Serves request slot i when a new whole request is there. */
static int serve(uint32_t i)
{
    const uint64_t *slot =
        (const uint64_t *)(tn_core_peer(tn_core.rank)->ctrl + req_off + (size_t)i * LINE);
    uint64_t seq =
        atomic_load_explicit((const _Atomic uint64_t *)slot, memory_order_relaxed);
    uint64_t prev = atomic_load_explicit(&served[i], memory_order_relaxed);
    if (seq <= prev)
        return 0;
    uint64_t w[REQ_W];
    load(slot, w, REQ_W);
    if (w[0] <= prev || w[REQ_W - 1] != tn_check_word(w, REQ_W - 1))
        return 0; /* still arriving */
    if (!atomic_compare_exchange_strong_explicit(
            &served[i], &prev, w[0], memory_order_relaxed, memory_order_relaxed))
        return 0; /* another thread serves it */
    uint32_t e = active[i];
    int src = (int)(e / THREADS), type = (int)(w[1] & 0xff),
        op = (int)((w[1] >> 8) & 0xff);
    uintptr_t p = (uintptr_t)w[2];
    if (type == GET && !(w[1] >> 8))
        return serve_get(src, e % THREADS, w);
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
    r[REP_W - 1] = tn_check_word(r, REP_W - 1);
    reply(src, e % THREADS, r, REP_W);
    TN_STAT_ADD(amo_mailbox_served, 1);
    return 1;
}

int tn_ad_mbox_progress(void)
{
    uint32_t n = atomic_load_explicit(&tn_ad_mbox_nactive, memory_order_acquire);
    int done = 0;
    for (uint32_t i = 0; i < n; i++)
        done += serve(i);
    return done;
}

/* Says hello to rank from slot t (a message round trip, once per pair):
 * returns the request slot it gives this pair, whose requests its progress
 * scans from now on, or HELLO_NO. */
static TN_NOINLINE int32_t say_hello(const char *call, int rank, int t)
{
    hello_wait_t h = {.idx = HELLO_NO};
    tn_comp_init(&h.c, 1);
    tern_am_arg_t a[2] = {(uint64_t)t, (uint64_t)(uintptr_t)&h};
    int rc =
        tn_am_request_internal(call, rank, H_HELLO, TN_AM_SHORT, NULL, 0, NULL, a, 2, 0);
    if (rc != TERN_OK)
        return HELLO_NO;
    return tn_comp_wait(&h.c) == TERN_OK ? h.idx : HELLO_NO;
}

/* Sends request w (its seq word filled here) to rank from this thread's
 * slot and waits for the reply of nrep words into r: TERN_OK, or
 * TN_AD_MBOX_NO when the mailbox cannot take it (see atomic.h), or the
 * write's error. */
static int exchange(const char *call, int rank, uint64_t *w, uint64_t *r, int nrep,
                    unsigned flags)
{
    if (!on)
        return TN_AD_MBOX_NO;
    const tn_peer_t *p = tn_core_peer(rank);
    if (p->ctrl || p->kind != TN_PEER_NET ||
        !(p->xport->caps.flags & TN_XCAP_PUT_UNACKED) ||
        p->xport->caps.unacked < (size_t)(nrep > REQ_W ? nrep : REQ_W) * sizeof(uint64_t))
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
    const hello_t *h = hello_find(s, rank);
    int32_t idx = h ? h->idx : HELLO_NO;
    if (!h && !(flags & TERN_FLAG_IMMEDIATE))
        hello_keep(s, rank, idx = say_hello(call, rank, my_slot));
    if (idx == HELLO_NO)
        goto out;
    w[0] = ++s->seq;
    w[REQ_W - 1] = tn_check_word(w, REQ_W - 1);
    rc = write_slot(rank, req_off + (size_t)idx * LINE, w, REQ_W,
                    flags & TERN_FLAG_IMMEDIATE);
    if (rc != TERN_OK) {
        s->seq--; /* nothing was written */
        goto out;
    }
    const uint64_t *slot = (const uint64_t *)(tn_core_peer(tn_core.rank)->ctrl + rep_off +
                                              (size_t)my_slot * REP_LINE);
    for (tn_wait_t wt = TN_WAIT_FRESH;;) {
        if (atomic_load_explicit((const _Atomic uint64_t *)slot, memory_order_relaxed) ==
            w[0]) {
            load(slot, r, nrep);
            if (r[0] == w[0] && r[nrep - 1] == tn_check_word(r, (size_t)nrep - 1))
                break;
        }
        tn_wait_next(&wt); /* drives progress: this rank serves others meanwhile */
    }
out:
    atomic_store_explicit(&s->busy, 0, memory_order_release);
    return rc;
}

int tn_ad_mbox_run(const char *call, const tn_amo_t *op, unsigned flags)
{
    uint64_t w[REQ_W] = {0,
                         (uint64_t)op->type | (uint64_t)op->op << 8,
                         (uint64_t)(uintptr_t)op->remote,
                         op->a1.u64,
                         op->a2.u64,
                         0};
    uint64_t r[REP_W];
    int rc = exchange(call, op->rank, w, r, REP_W, flags);
    if (rc != TERN_OK)
        return rc;
    TN_STAT_ADD(amo_mailbox, 1);
    rc = (int)(uint32_t)r[2];
    if (rc == TERN_OK && op->result)
        memcpy(op->result, &r[1], tn_atype_size(op->type)); /* little-endian */
    return rc;
}

int tn_mbox_get(const char *call, void *local, int rank, const void *remote, size_t n,
                unsigned flags)
{
    /* Where the NIC serves reads (RDMA) a read needs nothing of the
     * target's CPU, which the mailbox does. */
    if (n == 0 || n > tn_cfg.get_mailbox ||
        !(tn_core_peer(rank)->xport->caps.flags & TN_XCAP_RMA_SOFT))
        return TN_AD_MBOX_NO;
    uint64_t w[REQ_W] = {0, GET, (uint64_t)(uintptr_t)remote, n, 0, 0};
    uint64_t r[REP_LINE / 8];
    int nw = (int)((n + 7) / 8);
    int rc = exchange(call, rank, w, r, 3 + nw, flags);
    if (rc != TERN_OK)
        return rc;
    TN_STAT_ADD(get_mailbox, 1);
    rc = (int)(uint32_t)r[1];
    if (rc == TERN_OK)
        memcpy(local, &r[2], n);
    return rc;
}
