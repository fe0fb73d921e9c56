/* Flags of team slots and the team barrier. A flag at rank X for team
 * rank j has one writer, j, which writes the sequence number of the
 * collective in which it did what it owed X (a signal, data put into X's
 * buffers, or its own data made ready for X to read). Each protocol has j
 * write X's flag at most once per collective, and j finishes its part
 * towards X in collective s before it enters s + 1, so "flag >= s" tells X
 * that j's part of s is done, whatever j did later. */
#include <stddef.h>
#include <stdio.h>

#include "base/wait.h"
#include "core/coll.h"
#include "core/event.h"

void tn_coll_signal(tn_cteam_t *t, int j, uint32_t seq)
{
    int g = t->ranks[j];
    size_t off = (size_t)(t->flags - (char *)tn_core.seg.data) +
                 (size_t)t->rank * sizeof(tn_coll_flag_t);
    char *remote = (char *)(uintptr_t)(tn_core_info(g)->data_base + off);
    tn_coll_flag_t *f = (tn_coll_flag_t *)tern_ptr(g, remote);
    if (f) {
        /* No mapped reader can be asleep: a release store, which the
         * writer does not wait for (a fence would hold it until the line
         * came over from the reader polling it). */
        if (!tn_wait_may_sleep()) {
            atomic_store_explicit(&f->epoch, seq, memory_order_release);
            return;
        }
        atomic_store_explicit(&f->epoch, seq, memory_order_seq_cst);
        tn_wait_wake(&f->epoch, &f->sleeping);
        return;
    }
    /* A Short active message whose handler raises the flag (core/coll_am.c)
     * rather than a 4-byte RMA write: 2-rank tree broadcast of 8 B with
     * TERN_SHM=off on tcp, 27.4 us per call with RMA flag writes, 15.6 us
     * with messages. */
    tn_coll_put_flag(t, j, NULL, NULL, 0, seq);
}

/* One step of waiting for a team flag: a failed network write of a flag
 * ends the job; without a progress hook the wait polls every 64th step. */
void tn_coll_wait_step(tn_cteam_t *t, tn_wait_t *w)
{
    if (tn_comp_status(&t->comp) != TERN_OK)
        tern_abort(1, "collective: a network write of a team flag, or of data that "
                      "carries one, failed (cause "
                      "logged above)");
    w->net = 1; /* the flag may come over the network: poll it each step */
    if (!tn_wait_progress_hook && (w->iter & 63) == 63 && tn_core_progress() > 0)
        tn_wait_progressed(w);
    tn_wait_next(w);
}

void tn_coll_wait(tn_cteam_t *t, int j, uint32_t seq)
{
    tn_coll_flag_t *in =
        (tn_coll_flag_t *)(t->flags + (size_t)j * sizeof(tn_coll_flag_t));
    int g = t->ranks[j];
    if (tn_core_peer(g)->ctrl) { /* mapped writer: it wakes a sleeper */
        for (;;) {
            uint32_t v = atomic_load_explicit(&in->epoch, memory_order_acquire);
            if ((int32_t)(v - seq) >= 0)
                return;
            tn_wait_u32_change(&in->epoch, v, &in->sleeping);
        }
    }
    tn_wait_t w = TN_WAIT_FRESH;
    while ((int32_t)(atomic_load_explicit(&in->epoch, memory_order_acquire) - seq) < 0)
        tn_coll_wait_step(t, &w);
}

/* Barrier flags to network members. A flag message costs its receiver
 * more than the message: libfabric 1.17's tcp provider signals a file
 * descriptor for every completion it queues (a write, then a read at the
 * next poll: 2 us on this VM), where MPI's TCP transport only reads the
 * socket. A barrier's flag is therefore written by an RMA write without
 * acknowledgement or completion (TN_XPORT_FLAG_UNACKED) into the second
 * word of the writer's flag, which no one sleeps on for a network writer:
 * the receiving process only reads its socket. The first word stays the
 * one active messages raise: a data message's handler may run after a
 * later write of this word has landed (the write is placed when the
 * provider reads it, the message's handler runs when core reads its
 * completion), so data waits never look at this word; a barrier waits for
 * either word, since any later flag of the writer means it passed the
 * barrier. Needs puts kept in order (a later barrier's write never lands
 * before an earlier one's). */
int tn_coll_can_order(tn_cteam_t *t, int j)
{
    return tn_core_flag_unacked(tn_core_peer(t->ranks[j]));
}

int tn_coll_signal_ordered(tn_cteam_t *t, int j, uint32_t seq)
{
    int g = t->ranks[j];
    const tn_peer_t *p = tn_core_peer(g);
    if (!tn_core_flag_unacked(p))
        return 0;
    size_t off = (size_t)(t->flags - (char *)tn_core.seg.data) +
                 (size_t)t->rank * sizeof(tn_coll_flag_t) +
                 offsetof(tn_coll_flag_t, sleeping);
    tn_core_flag_write_unacked(p, g, tn_core_info(g)->data_base + off, seq, "collective");
    return 1;
}

static void bar_signal(tn_cteam_t *t, int j, uint32_t seq)
{
    if (!tn_coll_signal_ordered(t, j, seq))
        tn_coll_signal(t, j, seq);
}

void tn_coll_signal_ready(tn_cteam_t *t, int j, uint32_t seq)
{
    bar_signal(t, j, seq);
}

/* Whether team rank j's flag here says it passed barrier seq. */
static int bar_arrived(tn_cteam_t *t, int j, uint32_t seq)
{
    tn_coll_flag_t *in =
        (tn_coll_flag_t *)(t->flags + (size_t)j * sizeof(tn_coll_flag_t));
    if ((int32_t)(atomic_load_explicit(&in->epoch, memory_order_acquire) - seq) >= 0)
        return 1;
    return !tn_core_peer(t->ranks[j])->ctrl &&
           (int32_t)(atomic_load_explicit(&in->sleeping, memory_order_acquire) - seq) >=
               0;
}

static void bar_wait(tn_cteam_t *t, int j, uint32_t seq)
{
    if (tn_core_peer(t->ranks[j])->ctrl) {
        tn_coll_wait(t, j, seq);
        return;
    }
    tn_wait_t w = TN_WAIT_FRESH;
    while (!bar_arrived(t, j, seq))
        tn_coll_wait_step(t, &w);
}

/* Dissemination: in round k team rank i signals i + 2^k and waits for
 * i - 2^k (mod n). The 2^k < n are distinct mod n, so each writer signals
 * a rank at most once per barrier, as the flags require. */
void tn_coll_barrier(tn_cteam_t *t)
{
    if (t->slot == TN_SLOT_WORLD && tn_core.nnodes < tn_core.size) {
        /* Hierarchical over nodes (core/team.c): stores inside a node,
         * network writes among the leaders only. With one rank per node
         * (TERN_SHM=off) it is this dissemination with RMA flag writes,
         * slower than the slot's message flags: 2 ranks, tcp, fcollect
         * of 8 B (two barriers) 58 us with it. */
        tern_barrier();
        t->emark = t->ecount; /* every member left the earlier eager ones */
        t->barseq = t->seq;
        return;
    }
    int n = t->size;
    if (n <= 1) {
        t->barseq = t->seq;
        return;
    }
    uint32_t seq = ++t->seq;
    for (int dist = 1; dist < n; dist <<= 1) {
        bar_signal(t, (t->rank + dist) % n, seq);
        bar_wait(t, (t->rank - dist + n) % n, seq);
    }
    t->emark = t->ecount;
    t->barseq = seq;
}

void tn_coll_refresh_flags(tn_cteam_t *t)
{
    tn_coll_barrier(t);
    /* Both words: the barrier writes the second only to its dissemination
     * partners, and none in the world team's tern_barrier, while the
     * eager broadcast's put_ordered waits read it from any parent. */
    for (int s = 1; s < t->size; s++) {
        int j = (t->rank + s) % t->size;
        tn_coll_signal(t, j, t->seq);
        tn_coll_signal_ordered(t, j, t->seq);
    }
}

_Atomic int tn_coll_nb;

/* Whether this rank's flag of team rank j has reached seq (no wait). */
static int arrived(tn_cteam_t *t, int j, uint32_t seq)
{
    if (tn_comp_status(&t->comp) != TERN_OK)
        tern_abort(1, "collective: a network write of a team flag, or of data that "
                      "carries one, failed (cause "
                      "logged above)");
    return bar_arrived(t, j, seq);
}

int tn_coll_ready(tn_cteam_t *t, int j, uint32_t seq)
{
    return arrived(t, j, seq);
}

/* The dissemination of tn_coll_barrier, one round at a time: returns 1
 * once the last round's flag has arrived. */
static int nb_advance(tn_cteam_t *t)
{
    int n = t->size;
    while (t->nb_dist < n) {
        if (!arrived(t, (t->rank - t->nb_dist + n) % n, t->nb_seq))
            return 0;
        t->nb_dist <<= 1;
        if (t->nb_dist < n)
            bar_signal(t, (t->rank + t->nb_dist) % n, t->nb_seq);
    }
    return 1;
}

static void nb_try(tn_cteam_t *t)
{
    if (atomic_exchange_explicit(&t->nb_busy, 1, memory_order_acquire))
        return; /* another thread is at it */
    if (atomic_load_explicit(&t->nb_active, memory_order_acquire) && nb_advance(t)) {
        tn_comp_t *c = t->nb_comp;
        t->nb_comp = NULL;
        atomic_fetch_sub_explicit(&tn_coll_nb, 1, memory_order_relaxed);
        if (c)
            tn_comp_done(c, TERN_OK);
        /* Last: once it reads 0, the caller's thread may start the next
         * barrier of the team (tern_team_barrier_nb writes the fields). */
        atomic_store_explicit(&t->nb_active, 0, memory_order_release);
    }
    atomic_store_explicit(&t->nb_busy, 0, memory_order_release);
}

void tn_coll_progress(void)
{
    for (int s = 0; s < TERN_TEAMS_MAX; s++)
        if (atomic_load_explicit(&tn_teams.t[s].nb_active, memory_order_acquire))
            nb_try(&tn_teams.t[s]);
}

void tn_coll_nb_finish(tn_cteam_t *t)
{
    tn_wait_t w = TN_WAIT_NET;
    while (atomic_load_explicit(&t->nb_active, memory_order_acquire)) {
        nb_try(t);
        if (atomic_load_explicit(&t->nb_active, memory_order_acquire)) {
            if (!tn_wait_progress_hook && (w.iter & 63) == 63 && tn_core_progress() > 0)
                tn_wait_progressed(&w);
            tn_wait_next(&w);
        }
    }
}

tern_status_t tern_team_barrier_nb(tern_team_t team, tern_event_t *done)
{
    static const char call[] = "tern_team_barrier_nb";
    TN_CHECK_INIT(call);
    if (!done)
        return tn_core_fail(TERN_ERR_INVALID, call, "done is NULL");
    tn_cteam_t *t = tn_team_get(team, call); /* finishes an earlier one */
    if (!t)
        return TERN_ERR_INVALID;
    /* Complete before signalling: members leave once all have signalled. */
    int st = tn_ctx_complete_early(call);
    *done = TERN_EVENT_DONE;
    if (t->size <= 1)
        return st;
    t->nb_seq = ++t->seq;
    t->nb_dist = 1;
    t->nb_comp = NULL;
    bar_signal(t, (t->rank + 1) % t->size, t->nb_seq);
    if (nb_advance(t))
        return st; /* every flag was there already */
    tern_event_t ev;
    tn_comp_t *c = tn_event_new(&ev);
    if (!c) { /* no event: complete it here */
        atomic_fetch_add_explicit(&tn_coll_nb, 1, memory_order_relaxed);
        atomic_store_explicit(&t->nb_active, 1, memory_order_release);
        tn_coll_nb_finish(t);
        return st;
    }
    t->nb_comp = c;
    atomic_fetch_add_explicit(&tn_coll_nb, 1, memory_order_relaxed);
    /* Last, with release: a polling thread may take it from here. */
    atomic_store_explicit(&t->nb_active, 1, memory_order_release);
    *done = ev;
    return st;
}

int tn_coll_drain(tn_cteam_t *t)
{
    return tn_comp_wait(&t->comp);
}

tern_status_t tern_team_barrier(tern_team_t team)
{
    TN_CHECK_INIT("tern_team_barrier");
    TN_NOT_IN_HANDLER("tern_team_barrier");
    tn_cteam_t *t = tn_team_get(team, "tern_team_barrier");
    if (!t)
        return TERN_ERR_INVALID;
    int st = tn_ctx_complete_early("tern_team_barrier");
    tn_coll_barrier(t);
    return st;
}
