/* TERN_STATS=1: per-thread operation counters, summed per rank and per job
 * at tern_finalize. Each thread increments its own block with plain adds
 * (no atomics); the inline fast path is counted by routing its copies
 * through the out-of-line tern_copy_ while statistics are on, so with them
 * off nothing is counted and nothing costs. */
#ifndef TN_STATS_H
#define TN_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { TN_STAT_SELF = 0, TN_STAT_SHM = 1, TN_STAT_NET = 2, TN_STAT_PATHS = 3 };

/* Every field is a uint64_t, so that blocks can be summed and exchanged as
 * arrays. Written by the owning thread, read at finalize. */
typedef struct tn_stats {
    uint64_t puts[TN_STAT_PATHS], put_bytes[TN_STAT_PATHS];
    uint64_t gets[TN_STAT_PATHS], get_bytes[TN_STAT_PATHS];
    uint64_t copy_regular, copy_nt; /* shared-memory copies by kind */
    uint64_t slow_net;              /* out-of-line entries: network peer */
    uint64_t slow_error;            /* out-of-line entries: bad argument */
    uint64_t events;                /* events handed out */
    uint64_t waits, wait_ns;        /* waits on completion, time in them */
    uint64_t barriers, barrier_ns;
    uint64_t net_retries;                 /* network calls retried after -FI_EAGAIN */
    uint64_t net_failed;                  /* network fragments that ended in an error */
    uint64_t net_rx_grown, net_rx_shrunk; /* the posted receive buffers doubled, halved */
    uint64_t net_window_grown, net_window_credits; /* credit windows grown, by so many */
    uint64_t net_window_shrunk;  /* credits taken back from windows: traffic both ways */
    uint64_t net_credits_held;   /* credit returns held while queued RMA drained */
    uint64_t net_deferred;       /* RMA from handlers queued: it could not go at once */
    uint64_t net_held;           /* messages held back by a poll made inside a handler */
    uint64_t net_deferred_amo;   /* atomics from handlers queued: the same */
    uint64_t amo_mailbox;        /* fetching atomics sent by the mailbox */
    uint64_t amo_mailbox_served; /* mailbox requests served here */
    uint64_t get_mailbox;        /* blocking gets sent by the mailbox */
    uint64_t net_put_acked;      /* lazy puts sent acknowledged: none pending (ofi) */
    uint64_t net_flush_reads;    /* flush reads posted for lazy puts (ofi) */
} tn_stats_t;

#define TN_STATS_WORDS (sizeof(tn_stats_t) / sizeof(uint64_t))
_Static_assert(sizeof(tn_stats_t) % sizeof(uint64_t) == 0, "an array of counters");

extern int tn_stats_on; /* TERN_STATS, set at init */

/* This thread's block (created at its first use). */
tn_stats_t *tn_stats_mine(void);

#define TN_STAT_ADD(field, v)                 \
    do {                                      \
        if (__builtin_expect(tn_stats_on, 0)) \
            tn_stats_mine()->field += (v);    \
    } while (0)

/* One transfer of n bytes on path (TN_STAT_*), put or get; nt: copied
 * with non-temporal stores (shared memory). */
static inline void tn_stats_copy(int path, int put, size_t n, int nt)
{
    tn_stats_t *s = tn_stats_mine();
    if (put) {
        s->puts[path]++;
        s->put_bytes[path] += n;
    } else {
        s->gets[path]++;
        s->get_bytes[path] += n;
    }
    if (path != TN_STAT_NET) {
        if (nt)
            s->copy_nt++;
        else
            s->copy_regular++;
    }
}

/* Sum of every thread's block into out. */
void tn_stats_sum(tn_stats_t *out);
/* Adds b into a. */
void tn_stats_add(tn_stats_t *a, const tn_stats_t *b);
/* The table of s, one line per counter, each line starting with prefix. */
void tn_stats_print(FILE *f, const char *prefix, const tn_stats_t *s);
/* Frees every block (tern_finalize). */
void tn_stats_fini(void);

#endif
