/* Teams of the public API: the symmetric pool of team slots, the world and
 * node teams, splits (strided, 2-D), translation and destroy. A split
 * agrees on a slot free on every member of the parent with an allreduce
 * (bitwise and of the free-slot masks) over the parent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "base/log.h"
#include "base/mem.h"
#include "core/coll.h"

tn_teams_t tn_teams;

static tern_team_t handle_of(const tn_cteam_t *t)
{
    return (tern_team_t)(uintptr_t)(((uintptr_t)t->gen << 8) | (uintptr_t)(t->slot + 1));
}

tn_cteam_t *tn_team_get(tern_team_t handle, const char *call)
{
    uintptr_t v = (uintptr_t)handle;
    int slot = (int)(v & 0xff) - 1;
    if (handle != TERN_TEAM_INVALID && slot >= 0 && slot < TERN_TEAMS_MAX) {
        tn_cteam_t *t = &tn_teams.t[slot];
        if (t->live && t->gen == (uint32_t)(v >> 8)) {
            if (atomic_load_explicit(&t->nb_active, memory_order_acquire))
                tn_coll_nb_finish(t);
            return t;
        }
    }
    tn_core_fail(TERN_ERR_INVALID, call,
                 handle == TERN_TEAM_INVALID
                     ? "the team is TERN_TEAM_INVALID (this rank is not a member)"
                     : "team handle %p is not a live team (destroyed, or not a team)",
                 (void *)handle);
    return NULL;
}

static void release(tn_cteam_t *t)
{
    free(t->ranks);
    free(t->staging);
    free(t->off);
    free(t->len);
    free(t->bcount);
    free(t->bynode);
    free(t->order);
    free(t->xorder);
    t->bynode = t->order = t->xorder = NULL;
    t->bcount = NULL;
    t->ranks = NULL;
    t->staging = NULL;
    t->off = t->len = NULL;
    t->live = 0;
}

/* The number before a new team's first collective: 0, or N under
 * TERN_TEST_FAULT=collseq:N (tests of sequence numbers past 2^31 or 2^32,
 * which a team otherwise reaches after that many collectives) or
 * collstale:N (*stale set: its flags and last barrier left at 0, as if
 * the team had last written them N calls ago). */
static uint32_t first_seq(int *stale)
{
    unsigned long v;
    char end;
    *stale = 0;
    if (sscanf(tn_cfg.test_fault, "collseq:%lu%c", &v, &end) == 1)
        return (uint32_t)v;
    if (sscanf(tn_cfg.test_fault, "collstale:%lu%c", &v, &end) == 1) {
        *stale = 1;
        return (uint32_t)v;
    }
    return 0;
}

/* Under collseq:N, this rank's flags of the new team start at N, as if
 * every member had signalled call N, so that the zero of a new slot is not
 * read as a call ahead once N is 2^31 or more before 0 mod 2^32. Only a
 * flag still 0 (compare-and-swap): a member that already entered the
 * team's first call may have raised it. Network members' second word too. */
static void fault_flags(tn_cteam_t *t)
{
    for (int j = 0; j < t->size; j++) {
        tn_coll_flag_t *in = (tn_coll_flag_t *)(t->flags + (size_t)j * sizeof(*in));
        uint32_t zero = 0;
        atomic_compare_exchange_strong(&in->epoch, &zero, t->seq);
        zero = 0;
        if (j != t->rank && !tn_core_peer(t->ranks[j])->ctrl)
            atomic_compare_exchange_strong(&in->sleeping, &zero, t->seq);
    }
}

/* The slot's memory is zero (init, or the destroy of its last team). */
static int claim(int slot, const int *ranks, int size, int rank)
{
    tn_cteam_t *t = &tn_teams.t[slot];
    char *base =
        (char *)tn_core.seg.data + tn_teams.pool_off + (size_t)slot * tn_teams.slot_size;
    t->ranks = malloc((size_t)size * sizeof(int));
    t->staging = malloc(tn_teams.scratch);
    t->all_mapped = 1;
    for (int i = 0; i < size; i++)
        if (ranks[i] != tn_core.rank && !tn_core_peer(ranks[i])->ctrl)
            t->all_mapped = 0;
    /* The small broadcast's line counts: only teams on one node use them
     * (8 B per member of the world team of a job over several nodes). */
    t->bcount = t->all_mapped ? calloc(2 * (size_t)size, sizeof(uint32_t)) : NULL;
    t->bynode = malloc((size_t)size * sizeof(int));
    t->order = malloc((size_t)size * sizeof(int));
    /* push_large's order of destinations (core/coll.c): teams across nodes
     * only, 8 B per member. */
    t->xorder = t->all_mapped ? NULL : malloc(2 * (size_t)size * sizeof(int));
    if (!t->ranks || !t->staging || (t->all_mapped && !t->bcount) || !t->bynode ||
        !t->order || (!t->all_mapped && !t->xorder)) {
        release(t);
        return TERN_ERR_NOMEM;
    }
    memcpy(t->ranks, ranks, (size_t)size * sizeof(int));
    /* Members by node (stable: team order inside a node), for the
     * broadcast tree's order. Insertion sort: once per team. */
    for (int i = 0; i < size; i++) {
        int j = i, node = tn_core_info(ranks[i])->node;
        while (j > 0 && tn_core_info(ranks[t->bynode[j - 1]])->node > node) {
            t->bynode[j] = t->bynode[j - 1];
            j--;
        }
        t->bynode[j] = i;
    }
    t->slot = slot;
    t->size = size;
    t->rank = rank;
    t->flags = base;
    t->args = base + tn_teams.flag_bytes;
    t->scratch = t->args + TN_SLOT_ARGS;
    t->fast = t->scratch + tn_teams.scratch;
    t->ring = tn_teams.eager ? t->fast + TN_COLL_FAST_AREA : NULL;
    t->rsize = (uint64_t)tn_teams.eager * tn_teams.depth;
    if (slot == TN_SLOT_WORLD && tn_teams.world_ring) { /* after the slots */
        t->ring = (char *)tn_core.seg.data + tn_teams.pool_off +
                  TERN_TEAMS_MAX * tn_teams.slot_size;
        t->rsize = tn_teams.world_ring;
    }
    t->ecount = t->emark = 0;
    t->par = 0;
    memset(t->bline, 0, sizeof(t->bline));
    memset(t->bquarter, 0, sizeof(t->bquarter));
    t->xmax = tn_coll_small_max(t);
    t->wmax = tn_coll_wide_max(t);
    int stale;
    t->seq = t->barseq = first_seq(&stale);
    if (stale)
        t->barseq = 0;
    else if (t->seq)
        fault_flags(t);
    tn_comp_init(&t->comp, 0);
    if (slot > TN_SLOT_NODE) /* the predefined handles carry generation 0 */
        t->gen++;
    t->live = 1;
    return TERN_OK;
}

void tn_teams_tally(tn_mem_tally_t *m)
{
    for (int s = 0; s < TERN_TEAMS_MAX; s++) {
        const tn_cteam_t *t = &tn_teams.t[s];
        if (!t->live)
            continue;
        size_t member = sizeof(*t->ranks) + (t->bcount ? 2 * sizeof(*t->bcount) : 0) +
                        sizeof(*t->bynode) + sizeof(*t->order) +
                        (t->off ? sizeof(*t->off) + sizeof(*t->len) : 0);
        if (s == TN_SLOT_WORLD)
            m->each_rank += member;
        else if (s == TN_SLOT_NODE)
            m->each_local += member;
        else
            m->fixed += member * (size_t)t->size;
        m->fixed += tn_teams.scratch;
    }
}

size_t tn_teams_pool_size(void)
{
    /* Scratch: at least 2 KiB, and room for every member's collect size. */
    size_t scratch = 2048;
    if ((size_t)tn_core.size * sizeof(uint64_t) > scratch)
        scratch = (size_t)tn_core.size * sizeof(uint64_t);
    tn_teams.scratch = scratch;
    tn_teams.flag_bytes =
        ((size_t)tn_core.size * sizeof(tn_coll_flag_t) + TN_CTRL_LINE - 1) &
        ~(size_t)(TN_CTRL_LINE - 1);
    /* The ring of eager collectives: only where a team can span nodes. */
    tn_teams.eager = 0;
    tn_teams.depth = 1;
    if (tn_core.nnodes > 1 && tn_cfg.coll_eager) {
        tn_teams.eager = ((size_t)tn_cfg.coll_eager + 63) & ~(size_t)63;
        int64_t d = tn_cfg.coll_eager_depth;
        tn_teams.depth = d < 1 ? 1 : d > 256 ? 256 : (uint32_t)d;
    }
    tn_teams.slot_size = tn_teams.flag_bytes + TN_SLOT_ARGS + scratch +
                         TN_COLL_FAST_AREA + tn_teams.eager * tn_teams.depth;
    /* The world team's ring, larger where asked: after the slots (its
     * slot's own ring stays unused). */
    size_t w = ((size_t)tn_cfg.coll_world_ring + 63) & ~(size_t)63;
    tn_teams.world_ring = tn_teams.eager && w > tn_teams.eager * tn_teams.depth ? w : 0;
    return tn_teams.slot_size * TERN_TEAMS_MAX + tn_teams.world_ring;
}

int tn_teams_init(void)
{
    size_t off;
    size_t pool = tn_teams_pool_size();
    int rc = tn_heap_alloc(&tn_core.heap, pool, TN_CTRL_LINE, 1, &off);
    if (rc != TERN_OK) {
        tn_error("the team pool needs %zu bytes of the segment (%d teams of %zu, and "
                 "%zu of the world team's ring): raise TERN_SEGMENT_SIZE",
                 pool, TERN_TEAMS_MAX, tn_teams.slot_size, tn_teams.world_ring);
        return rc;
    }
    tn_teams.pool_off = off;
    memset((char *)tn_core.seg.data + off, 0, pool);
    int *world = malloc((size_t)tn_core.size * sizeof(int));
    if (!world)
        return TERN_ERR_NOMEM;
    for (int r = 0; r < tn_core.size; r++)
        world[r] = r;
    rc = claim(TN_SLOT_WORLD, world, tn_core.size, tn_core.rank);
    free(world);
    if (rc == TERN_OK)
        rc = claim(TN_SLOT_NODE, tn_core.local_ranks, tn_core.local_size,
                   tn_core.local_rank);
    return rc;
}

void tn_teams_fini(void)
{
    for (int s = 0; s < TERN_TEAMS_MAX; s++) {
        tn_cteam_t *t = &tn_teams.t[s];
        if (t->live) {
            tn_coll_drain(t);
            release(t);
        }
        t->gen = 0;
    }
}

int tern_team_max(void)
{
    return tn_core.initialized ? TERN_TEAMS_MAX : 0;
}

int tn_teams_drain(void)
{
    int rc = TERN_OK;
    for (int s = 0; s < TERN_TEAMS_MAX; s++)
        if (tn_teams.t[s].live) {
            int drc = tn_coll_drain(&tn_teams.t[s]);
            if (rc == TERN_OK)
                rc = drc;
        }
    return rc;
}

int tern_team_rank(tern_team_t team)
{
    if (!tn_core.initialized)
        return -1;
    uintptr_t v = (uintptr_t)team;
    int slot = (int)(v & 0xff) - 1;
    if (team == TERN_TEAM_INVALID || slot < 0 || slot >= TERN_TEAMS_MAX)
        return -1;
    tn_cteam_t *t = &tn_teams.t[slot];
    return t->live && t->gen == (uint32_t)(v >> 8) ? t->rank : -1;
}

int tern_team_size(tern_team_t team)
{
    if (tern_team_rank(team) < 0)
        return -1;
    return tn_teams.t[((uintptr_t)team & 0xff) - 1].size;
}

/* Team rank of global rank g in t, or -1 (ranks are ascending). */
static int index_of(const tn_cteam_t *t, int g)
{
    int lo = 0, hi = t->size - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (t->ranks[mid] == g)
            return mid;
        if (t->ranks[mid] < g)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

int tern_team_translate(tern_team_t src, int src_rank, tern_team_t dst)
{
    if (tern_team_rank(src) < 0 || tern_team_rank(dst) < 0)
        return -1;
    const tn_cteam_t *s = &tn_teams.t[((uintptr_t)src & 0xff) - 1];
    const tn_cteam_t *d = &tn_teams.t[((uintptr_t)dst & 0xff) - 1];
    if (src_rank < 0 || src_rank >= s->size)
        return -1;
    return index_of(d, s->ranks[src_rank]);
}

/* Agreement over parent p before a split: every member's free slots
 * (bitwise and) and whether all passed the same arguments (max of each
 * value and of its negation). Uses the parent's argument area. */
static int agree(tn_cteam_t *p, const char *call, const int64_t *args, int nargs,
                 uint64_t *free_out)
{
    uint64_t mine = 0;
    for (int s = 0; s < TERN_TEAMS_MAX; s++)
        if (!tn_teams.t[s].live)
            mine |= 1ull << s;
    uint64_t *in = (uint64_t *)p->args, *out = in + 8;
    in[0] = mine;
    int rc = tn_coll_allreduce(p, out, in, 1, TERN_TYPE_UINT64, TERN_RED_AND);
    if (rc != TERN_OK)
        return rc;
    *free_out = out[0];
    int64_t *ain = (int64_t *)p->args, *aout = ain + 8;
    for (int i = 0; i < nargs; i++) {
        ain[i] = args[i];
        ain[nargs + i] = -args[i];
    }
    rc = tn_coll_allreduce(p, aout, ain, (size_t)(2 * nargs), TERN_TYPE_INT64,
                           TERN_RED_MAX);
    if (rc != TERN_OK)
        return rc;
    for (int i = 0; i < nargs; i++)
        if (aout[i] != -aout[nargs + i])
            return tn_core_fail(TERN_ERR_MISMATCH, call,
                                "the members of the parent team passed different "
                                "arguments (argument %d ranges from %lld to %lld)",
                                i + 1, (long long)-aout[nargs + i], (long long)aout[i]);
    return TERN_OK;
}

/* The lowest set bit of mask at or above bit from, or -1. */
static int lowest(uint64_t mask, int from)
{
    for (int s = from; s < TERN_TEAMS_MAX; s++)
        if (mask & (1ull << s))
            return s;
    return -1;
}

/* The members of a new team, given as parent team ranks, from the parent:
 * claims slot when this rank is one, else sets *out invalid. */
static int make(tn_cteam_t *p, int slot, const int *members, int n, tern_team_t *out)
{
    int *g = malloc((size_t)n * sizeof(int));
    if (!g)
        return TERN_ERR_NOMEM;
    int me = -1;
    for (int i = 0; i < n; i++) {
        g[i] = p->ranks[members[i]];
        if (members[i] == p->rank)
            me = i;
    }
    int rc = TERN_OK;
    if (me < 0)
        *out = TERN_TEAM_INVALID;
    else if ((rc = claim(slot, g, n, me)) == TERN_OK)
        *out = handle_of(&tn_teams.t[slot]);
    free(g);
    return rc;
}

tern_status_t tern_team_split_strided(tern_team_t parent, int start, int stride, int size,
                                      tern_team_t *out)
{
    static const char call[] = "tern_team_split_strided";
    TN_CHECK_INIT(call);
    TN_NOT_IN_HANDLER(call);
    if (!out)
        return tn_core_fail(TERN_ERR_INVALID, call, "out is NULL");
    *out = TERN_TEAM_INVALID;
    tn_cteam_t *p = tn_team_get(parent, call);
    if (!p)
        return TERN_ERR_INVALID;
    int64_t args[3] = {start, stride, size};
    uint64_t freemask;
    tn_core_lock();
    int rc = agree(p, call, args, 3, &freemask);
    tn_core_unlock();
    if (rc != TERN_OK)
        return rc;
    if (start < 0 || start >= p->size || stride < 1 || size < 1 ||
        (int64_t)start + (int64_t)(size - 1) * stride >= p->size)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "start %d, stride %d, size %d: the members must be parent "
                            "ranks in [0, %d) with stride >= 1 and size >= 1",
                            start, stride, size, p->size);
    int slot = lowest(freemask, 0);
    if (slot < 0)
        return tn_core_fail(TERN_ERR_NOMEM, call,
                            "some member of the parent team has %d teams alive "
                            "(TERN_TEAMS_MAX): destroy teams no longer used",
                            TERN_TEAMS_MAX);
    int *m = malloc((size_t)size * sizeof(int));
    if (!m)
        return TERN_ERR_NOMEM;
    for (int i = 0; i < size; i++)
        m[i] = start + i * stride;
    tn_core_lock();
    rc = make(p, slot, m, size, out);
    tn_core_unlock();
    free(m);
    return rc;
}

tern_status_t tern_team_split_2d(tern_team_t parent, int xrange, tern_team_t *xteam,
                                 tern_team_t *yteam)
{
    static const char call[] = "tern_team_split_2d";
    TN_CHECK_INIT(call);
    TN_NOT_IN_HANDLER(call);
    if (xteam)
        *xteam = TERN_TEAM_INVALID;
    if (yteam)
        *yteam = TERN_TEAM_INVALID;
    tn_cteam_t *p = tn_team_get(parent, call);
    if (!p)
        return TERN_ERR_INVALID;
    int64_t args[1] = {xrange};
    uint64_t freemask;
    tn_core_lock();
    int rc = agree(p, call, args, 1, &freemask);
    tn_core_unlock();
    if (rc != TERN_OK)
        return rc;
    if (xrange < 1)
        return tn_core_fail(TERN_ERR_INVALID, call, "xrange %d is below 1", xrange);
    if (xrange > p->size)
        xrange = p->size;
    /* Rows are disjoint, so all rows share one slot; columns another. */
    int sx = lowest(freemask, 0), sy = sx < 0 ? -1 : lowest(freemask, sx + 1);
    if (sy < 0)
        return tn_core_fail(TERN_ERR_NOMEM, call,
                            "some member of the parent team has no two free team slots "
                            "of %d (TERN_TEAMS_MAX): destroy teams no longer used",
                            TERN_TEAMS_MAX);
    int x = p->rank % xrange, y = p->rank / xrange;
    int *m = malloc((size_t)p->size * sizeof(int));
    if (!m)
        return TERN_ERR_NOMEM;
    int nx = 0, ny = 0;
    for (int r = y * xrange; r < p->size && r < (y + 1) * xrange; r++)
        m[nx++] = r;
    tn_core_lock();
    if (xteam)
        rc = make(p, sx, m, nx, xteam);
    for (int r = x; r < p->size; r += xrange)
        m[ny++] = r;
    if (rc == TERN_OK && yteam)
        rc = make(p, sy, m, ny, yteam);
    tn_core_unlock();
    free(m);
    return rc;
}

tern_status_t tern_team_destroy(tern_team_t team)
{
    static const char call[] = "tern_team_destroy";
    TN_CHECK_INIT(call);
    TN_NOT_IN_HANDLER(call);
    if (team == TERN_TEAM_INVALID)
        return TERN_OK;
    if (team == TERN_TEAM_WORLD || team == TERN_TEAM_NODE)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "TERN_TEAM_WORLD and TERN_TEAM_NODE cannot be destroyed");
    tn_cteam_t *t = tn_team_get(team, call);
    if (!t)
        return TERN_ERR_INVALID;
    /* Every write to this rank's flags and scratch precedes the barrier's
     * last write to it, which it waits for: the slot can be cleared. */
    tn_coll_barrier(t);
    int rc = tn_coll_drain(t);
    memset(t->flags, 0, tn_teams.slot_size);
    tn_core_lock();
    release(t);
    tn_core_unlock();
    return rc;
}
