/* Progress: every transport's poll, driven by the waiting calls (through
 * base/wait's hook) and, with TERN_PROGRESS_THREAD=1, by one thread of
 * core's that polls while the application computes without calling Tern,
 * so that peers' operations on this rank complete with manual-progress
 * providers. Transports only make their poll thread-safe. */
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "base/cfg.h"
#include "base/log.h"
#include "base/wait.h"
#include "core/am.h"
#include "core/coll.h"
#include "core/core.h"
#include "core/event.h"

TN_TLS_FAST _Thread_local int tn_core_progress_self;

/* The polled transports' polls (the network's): what they completed. */
static TN_ALWAYS_INLINE int poll_each(void)
{
    int done = 0;
    for (int i = 0; i < tn_core.npolled; i++)
        done += tn_core.polled[i]->ops.poll(tn_core.polled[i]->x);
    return done;
}

/* An application thread's network polls, counted for the progress thread
 * (tn_wait_net_calls: three instructions beside a poll of about 1500). */
static TN_ALWAYS_INLINE int poll_polled(void)
{
    if (!tn_core.npolled)
        return 0;
    tn_wait_net_call();
    return poll_each();
}

/* Progress without the handler check. An empty poll of a job on one node:
 * a load and compare per local rank's queue (drained inline, tn_am_drain)
 * and a few loads. net: the polled transports too (tn_core_progress_local
 * leaves them to a later step). */
static TN_ALWAYS_INLINE int progress_of(int net)
{
    int done = 0;
    tn_msgq_t *in = tn_core.msg_in;
    for (int i = 0, n = tn_core.msg_nin; i < n; i++)
        done += tn_am_drain(&in[i]);
    if (net)
        done += poll_polled();
    if (atomic_load_explicit(&tn_coll_nb, memory_order_relaxed))
        tn_coll_progress(); /* non-blocking barriers */
    done += tn_am_progress();
    if (atomic_load_explicit(&tn_ad_mbox_nactive, memory_order_relaxed))
        done += tn_ad_mbox_progress(); /* after the polls that land requests */
    if (!done) /* idle: combined atomics waiting here leave (atomics.md) */
        tn_ad_agg_kick(0);
    /* Combined puts leave at every poll of their thread, and at another
     * thread's once their thread stopped adding (nbi-aggregation.md): a
     * waiting or polling thread never holds back data. */
    tn_pagg_kick(0);
    return done;
}

static TN_ALWAYS_INLINE int progress(void)
{
    return progress_of(1);
}

static int thread_step(void);

/* The waits' hook (tn_wait_progress_hook) and the direct calls of waits.
 * On the progress thread (a send of its step waiting for room) the
 * network's part alone: it never touches a shared-memory queue
 * (thread_step). Cost for the application: a thread-local load. */
int tn_core_progress(void)
{
    if (tn_am_in_handler) /* never a handler inside a handler */
        return 0;
    if (tn_unlikely(tn_core_progress_self))
        return thread_step();
    return progress();
}

/* The waits' node-local progress in a mixed job (base/wait's
 * tn_wait_local_hook): everything but the polled transports' polls, each
 * of which (ofi_rxm over tcp) costs about 300 ns here against about 30 ns
 * for the rest. */
int tn_core_progress_local(void)
{
    if (tn_am_in_handler || tn_unlikely(tn_core_progress_self))
        return 0; /* the progress thread: no shared-memory queue */
    return progress_of(0);
}

/* The waits' network progress in a mixed job (base/wait's
 * tn_wait_net_hook): the polled transports' polls alone; work found here
 * keeps the thread's waits polling the network at every step. */
int tn_core_progress_net(void)
{
    if (tn_am_in_handler)
        return 0;
    return poll_polled();
}

/* Rounds of tn_core_wait_relax: about one pause's time on the CPU measured
 * (a round of two loads and lfence 7 ns, pause 25 ns: Zen 4). */
#define WAIT_RELAX_ROUNDS 4
#define WAIT_RELAX_MAXQ   8

/* A waiting step that would pause (progress found nothing) watches the
 * next slot of each direct queue into this rank instead, for about as long
 * as one pause, one load at a time, and returns as soon as one holds a
 * message, so that the next progress runs its handler at once rather than
 * when the pause ends (the raw ping-pong's spin, and this wait before,
 * see a message only when their pause ends: on average half a pause,
 * about 12 ns here; docs/design/active-messages.md, eleventh pass). The
 * loads are kept one at a time (lfence on x86) so that a slot written
 * meanwhile does not flush the pipeline when the loop leaves, which is
 * what pause avoids. Only queues one thread uses (their count is then
 * this thread's to read) and at most WAIT_RELAX_MAXQ of them; otherwise a
 * pause, as before. */
void tn_core_wait_relax(void)
{
    const tn_msgq_t *in = tn_core.msg_in;
    int n = tn_core.msg_nin;
    if (n > WAIT_RELAX_MAXQ || tn_unlikely(tn_core_progress_self)) {
        tn_cpu_relax();
        return;
    }
    int watched = 0;
    for (int i = 0; i < n; i++)
        watched += !in[i].threads;
    if (!watched) {
        tn_cpu_relax();
        return;
    }
    for (int k = 0; k < WAIT_RELAX_ROUNDS; k++) {
        for (int i = 0; i < n; i++) {
            const tn_msgq_t *q = &in[i];
            if (!q->threads && atomic_load_explicit(&q->slots[q->seq & q->smask].seq,
                                                    memory_order_relaxed) == q->seq)
                return;
        }
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_lfence();
#else
        tn_cpu_relax();
#endif
    }
}

/* The relax hook where each step polls a transport (a manual-progress
 * network): nothing. That poll is long (about 1500 instructions of
 * ofi_rxm/tcp and a system call per completion-queue read here), so a
 * pause after it, or the queue watch that lasts as long, only delays the
 * next poll: where the reply lands on average half a pause later (on both
 * sides of a network round trip), and the watch of the direct queues
 * cost 72 instructions per step (docs/design/atomics.md, "The network
 * fetch-add's own instructions"). The next step's progress drains the
 * direct queues first, at once. */
void tn_core_wait_polled(void) {}

tern_status_t tern_poll(void)
{
    TN_CHECK_INIT("tern_poll");
    TN_NOT_IN_HANDLER("tern_poll");
    progress();
    return TERN_OK;
}

/* The progress thread's step: the network's part of progress alone. It
 * polls the polled transports (whose handlers answer network peers only,
 * through the network transport, which is thread-safe), serves the atomic
 * mailbox, sends Replies queued for network peers and combined puts and
 * atomics to them, and non-blocking collectives where no peer shares
 * memory. It never drains or sends on a shared-memory queue: those stay
 * single-threaded (no turns) unless TERN_THREAD_MULTIPLE, and node-local
 * peers' puts, gets and atomics are loads and stores that need no
 * progress here (atomic domains run CPU atomics on mapped peers). */
static int thread_step(void)
{
    int done = poll_each();
    if (!tn_core.msg_nin && atomic_load_explicit(&tn_coll_nb, memory_order_relaxed))
        tn_coll_progress();   /* non-blocking barriers: network peers only */
    done += tn_am_progress(); /* network peers' only (tn_core_progress_self) */
    if (atomic_load_explicit(&tn_ad_mbox_nactive, memory_order_relaxed))
        done += tn_ad_mbox_progress();
    if (!done)
        tn_ad_agg_kick(0); /* network targets' only (tn_core_progress_self) */
    tn_pagg_kick(0);
    return done;
}

/* How long the progress thread sleeps between two looks at the network
 * calls (tn_wait_net_calls), in ns: while the application calls into the
 * network itself (it then drives progress, and a thread polling beside it
 * only takes a core and the transport's locks from it) the period doubles
 * from PERIOD_MAX at each look that finds it busy, up to PERIOD_BUSY;
 * once it was silent for a whole period the thread polls, and after a
 * poll that found work it looks again after PERIOD_MIN, the period
 * doubling while its polls find nothing, up to PERIOD_MAX. The thread
 * thus costs an application that calls the library about 31 looks a
 * second (1000 with a period of 1 ms, which cost 10-35% on the network
 * latency rows of 2 PEs on 2 vCPUs; the looks' timer interrupts and
 * context switches on cores that polling ranks hold are the likely
 * cause, not measured apart), and a PE that computes serves its
 * peers within about PERIOD_MIN of their operations arriving once they
 * come in a stream, the first within about 2 * PERIOD_BUSY of its last
 * call. docs/design/progress-thread.md. */
#define PERIOD_MIN_NS  50000L
#define PERIOD_MAX_NS  1000000L
#define PERIOD_BUSY_NS 32000000L
#define STEPS_MAX      64 /* steps of one look while they find work */

/* The thread's sleeps, which tn_core_progress_stop cuts short (a sleep of
 * PERIOD_BUSY would otherwise hold up tern_finalize and exit). */
static pthread_mutex_t sleep_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sleep_cond;

static void sleep_ns(long ns)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_nsec += ns;
    t.tv_sec += t.tv_nsec / 1000000000L;
    t.tv_nsec %= 1000000000L;
    pthread_mutex_lock(&sleep_lock);
    while (!atomic_load_explicit(&tn_core.progress_stop, memory_order_relaxed) &&
           pthread_cond_timedwait(&sleep_cond, &sleep_lock, &t) == 0)
        ; /* woken early: only a stop does that */
    pthread_mutex_unlock(&sleep_lock);
}

static void *progress_main(void *arg)
{
    (void)arg;
    tn_core_progress_self = 1;
    /* Its handlers' tokens apart from the application threads', which all
     * count from 0 (core.h, tn_am_tok_next). */
    tn_am_tok.id = (uintptr_t)1 << (sizeof(uintptr_t) * 8 - 2);
    long period = PERIOD_MAX_NS;
    unsigned long seen = atomic_load_explicit(&tn_wait_net_calls.n, memory_order_relaxed);
    while (!atomic_load_explicit(&tn_core.progress_stop, memory_order_relaxed)) {
        sleep_ns(period);
        unsigned long now =
            atomic_load_explicit(&tn_wait_net_calls.n, memory_order_relaxed);
        if (now != seen) { /* the application uses the network: its progress */
            seen = now;
            period = period < PERIOD_MAX_NS        ? PERIOD_MAX_NS
                     : period * 2 > PERIOD_BUSY_NS ? PERIOD_BUSY_NS
                                                   : period * 2;
            continue;
        }
        /* Silent for a whole period. Its context joins the application's
         * quiets only while its handlers may issue into it. */
        tn_ctx_progress_thread(1);
        int found = 0, d;
        for (int k = 0; k < STEPS_MAX && (d = thread_step()) > 0; k++)
            found += d;
        tn_ctx_progress_thread(0); /* stays in while it has operations */
        /* Its own posts (handlers' replies) are not the application's. */
        seen = atomic_load_explicit(&tn_wait_net_calls.n, memory_order_relaxed);
        period = found ? PERIOD_MIN_NS
                       : (period * 2 > PERIOD_MAX_NS ? PERIOD_MAX_NS : period * 2);
    }
    tn_ctx_progress_thread_exit();
    return NULL;
}

int tn_core_progress_start(void)
{
    if (!tn_cfg.progress_thread || !tn_core.needs_poll)
        return TERN_OK; /* nothing would progress only when polled */
    atomic_store(&tn_core.progress_stop, 0);
    static int cond_made;
    if (!cond_made++) {
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&sleep_cond, &ca);
        pthread_condattr_destroy(&ca);
    }
    int rc = pthread_create(&tn_core.progress, NULL, progress_main, NULL);
    if (rc) {
        tn_error("cannot start the progress thread (TERN_PROGRESS_THREAD=1): %s",
                 strerror(rc));
        return TERN_ERR_SYS;
    }
    tn_core.have_progress = 1;
    tn_core_effects_update();
    long cpu = tn_cfg.progress_thread_cpu;
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET((int)cpu, &set);
        rc = pthread_setaffinity_np(tn_core.progress, sizeof(set), &set);
        if (rc)
            tn_warn("cannot pin the progress thread to CPU %ld "
                    "(TERN_PROGRESS_THREAD_CPU): %s",
                    cpu, strerror(rc));
    }
    return TERN_OK;
}

void tn_core_progress_stop(void)
{
    if (!tn_core.have_progress)
        return;
    pthread_mutex_lock(&sleep_lock);
    atomic_store(&tn_core.progress_stop, 1);
    pthread_cond_signal(&sleep_cond);
    pthread_mutex_unlock(&sleep_lock);
    pthread_join(tn_core.progress, NULL);
    tn_core.have_progress = 0;
    tn_core_effects_update();
}
