/* Per-thread counter blocks for TERN_STATS: a block per thread, linked in
 * a global list at its first use (the only lock), summed at finalize. */
#include "base/stats.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

int tn_stats_on;

typedef struct block {
    tn_stats_t s;
    struct block *next;
} block_t;

static block_t *blocks;
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local block_t *mine;
static tn_stats_t lost; /* where counts go if a block cannot be allocated */

tn_stats_t *tn_stats_mine(void)
{
    if (__builtin_expect(mine != NULL, 1))
        return &mine->s;
    block_t *b = calloc(1, sizeof(*b));
    if (!b)
        return &lost;
    pthread_mutex_lock(&blocks_lock);
    b->next = blocks;
    blocks = b;
    pthread_mutex_unlock(&blocks_lock);
    mine = b;
    return &b->s;
}

void tn_stats_add(tn_stats_t *a, const tn_stats_t *b)
{
    uint64_t *x = (uint64_t *)a;
    const uint64_t *y = (const uint64_t *)b;
    for (size_t i = 0; i < TN_STATS_WORDS; i++)
        x[i] += y[i];
}

void tn_stats_sum(tn_stats_t *out)
{
    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&blocks_lock);
    for (block_t *b = blocks; b; b = b->next)
        tn_stats_add(out, &b->s);
    pthread_mutex_unlock(&blocks_lock);
}

void tn_stats_print(FILE *f, const char *prefix, const tn_stats_t *s)
{
    static const char *const path[] = {"self", "shm", "net"};
    for (int p = 0; p < TN_STAT_PATHS; p++)
        fprintf(f, "%s put %-4s %12llu ops %16llu B   get %12llu ops %16llu B\n", prefix,
                path[p], (unsigned long long)s->puts[p],
                (unsigned long long)s->put_bytes[p], (unsigned long long)s->gets[p],
                (unsigned long long)s->get_bytes[p]);
    fprintf(f, "%s shm copies: %llu regular, %llu non-temporal\n", prefix,
            (unsigned long long)s->copy_regular, (unsigned long long)s->copy_nt);
    fprintf(f, "%s out-of-line calls: %llu to network peers, %llu bad arguments\n",
            prefix, (unsigned long long)s->slow_net, (unsigned long long)s->slow_error);
    fprintf(f, "%s events: %llu; waits: %llu, %.6f s; barriers: %llu, %.6f s\n", prefix,
            (unsigned long long)s->events, (unsigned long long)s->waits,
            (double)s->wait_ns * 1e-9, (unsigned long long)s->barriers,
            (double)s->barrier_ns * 1e-9);
    fprintf(f, "%s network: %llu retries after EAGAIN, %llu failed fragments\n", prefix,
            (unsigned long long)s->net_retries, (unsigned long long)s->net_failed);
    fprintf(f,
            "%s network receive buffers posted: doubled %llu times, halved %llu times\n",
            prefix, (unsigned long long)s->net_rx_grown,
            (unsigned long long)s->net_rx_shrunk);
    fprintf(f, "%s network credit windows grown for streams: %llu times, %llu credits\n",
            prefix, (unsigned long long)s->net_window_grown,
            (unsigned long long)s->net_window_credits);
    fprintf(f, "%s network credit windows shrunk for traffic both ways: by %llu\n",
            prefix, (unsigned long long)s->net_window_shrunk);
    fprintf(f,
            "%s network credit returns held while handlers' queued RMA drained: %llu\n",
            prefix, (unsigned long long)s->net_credits_held);
    fprintf(f,
            "%s network, inside handlers: %llu RMA queued for later, %llu messages "
            "held back, %llu atomics queued for later\n",
            prefix, (unsigned long long)s->net_deferred, (unsigned long long)s->net_held,
            (unsigned long long)s->net_deferred_amo);
    fprintf(
        f, "%s atomic mailbox: %llu fetching atomics and %llu gets sent, %llu served\n",
        prefix, (unsigned long long)s->amo_mailbox, (unsigned long long)s->get_mailbox,
        (unsigned long long)s->amo_mailbox_served);
    fprintf(f,
            "%s network puts completed remotely: %llu acknowledged alone, %llu flush "
            "reads\n",
            prefix, (unsigned long long)s->net_put_acked,
            (unsigned long long)s->net_flush_reads);
}

void tn_stats_fini(void)
{
    pthread_mutex_lock(&blocks_lock);
    while (blocks) {
        block_t *next = blocks->next;
        free(blocks);
        blocks = next;
    }
    pthread_mutex_unlock(&blocks_lock);
    mine = NULL; /* other threads' pointers are void too: no re-init */
}
