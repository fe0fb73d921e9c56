/* OpenSHMEM teams on Tern teams: the predefined world and shared teams,
 * strided and 2-D splits, translation, configuration, team contexts and
 * team_ptr. Each team owns a slot of a symmetric scratch pool allocated at
 * initialization; a split agrees on a slot free on every member of the new
 * team through a bitwise-and allreduce over the parent. */
#include <pthread.h>
#include <string.h>

#include "tshmem.h"

TSHMEM_API struct tshmem_team_s tshmem_team_world_, tshmem_team_shared_;

static struct tshmem_team_s team_pool[TSHMEM_TEAMS_MAX];
size_t tshmem_scratch_bytes;
static char *scratch_pool;  /* nslots slots of tshmem_scratch_bytes */
static int nslots;          /* as many as Tern has teams (tern_team_max) */
static uint32_t slots_used; /* bit s: scratch slot s taken on this PE */
static pthread_mutex_t team_lock = PTHREAD_MUTEX_INITIALIZER;

static int in_pool(shmem_team_t team)
{
    uintptr_t off = (uintptr_t)team - (uintptr_t)team_pool;
    return off < sizeof(team_pool) && off % sizeof(team_pool[0]) == 0;
}

/* Whether team is one of ours (predefined or in the pool): only then may
 * its magic be read, since any other value may point nowhere (an
 * uninitialized handle read 0x1234: a segmentation fault). */
static int ours(shmem_team_t team)
{
    return team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED || in_pool(team);
}

/* A live team of ours: the check of every call that takes a team. */
static int live(shmem_team_t team)
{
    return ours(team) && team->magic == TSHMEM_TEAM_LIVE;
}

struct tshmem_team_s *tshmem_team_get(shmem_team_t team, const char *call)
{
    if (live(team))
        return team;
    if (team == SHMEM_TEAM_INVALID)
        tshmem_error("%s: the team is SHMEM_TEAM_INVALID (this PE is not a member)",
                     call);
    else if (ours(team))
        tshmem_error("%s: team %p was destroyed (or the library is not initialized)",
                     call, (void *)team);
    else
        tshmem_error("%s: %p is not a team handle", call, (void *)team);
    return NULL;
}

void *tshmem_team_scratch(const struct tshmem_team_s *t)
{
    return scratch_pool + (size_t)t->slot * tshmem_scratch_bytes;
}

static void set_predefined(struct tshmem_team_s *t, tern_team_t tt, int slot)
{
    memset(t, 0, sizeof(*t));
    t->tt = tt;
    t->slot = slot;
    t->magic = TSHMEM_TEAM_LIVE;
    slots_used |= 1u << slot;
}

int tshmem_teams_init(void)
{
    if (!scratch_pool) { /* kept across finalize: the heap outlives it */
        /* As many as Tern has teams, but no more than a 32nd of the heap
         * holds at 1 KiB each (at least the world's and the shared team's):
         * the program's own allocations come first. */
        size_t fit = tshmem_g.heap_size / 32 / 1024;
        nslots = tern_team_max() < TSHMEM_TEAMS_MAX ? tern_team_max() : TSHMEM_TEAMS_MAX;
        nslots = (size_t)nslots > fit ? (fit < 2 ? 2 : (int)fit) : nslots;
        size_t b = tshmem_g.heap_size / 64 / (size_t)nslots & ~(size_t)63;
        tshmem_scratch_bytes = b > 16384 ? 16384 : b < 1024 ? 1024 : b;
        int rc =
            tern_alloc_sym((size_t)nslots * tshmem_scratch_bytes, (void **)&scratch_pool);
        if (rc != TERN_OK) {
            tshmem_error("no symmetric memory for the teams' scratch space (%zu bytes): "
                         "%s; raise SHMEM_SYMMETRIC_SIZE",
                         (size_t)nslots * tshmem_scratch_bytes, tern_strerror(rc));
            return -1;
        }
    }
    slots_used = 0;
    set_predefined(&tshmem_team_world_, TERN_TEAM_WORLD, 0);
    set_predefined(&tshmem_team_shared_, TERN_TEAM_NODE, 1);
    return 0;
}

/* Teams the program did not destroy are only forgotten: destroying them
 * here would be a collective per team, which PEs could reach in different
 * orders. */
void tshmem_teams_fini(void)
{
    pthread_mutex_lock(&team_lock);
    for (int i = 0; i < TSHMEM_TEAMS_MAX; i++)
        team_pool[i].magic = 0;
    pthread_mutex_unlock(&team_lock);
    tshmem_team_world_.magic = tshmem_team_shared_.magic = 0;
}

int shmem_team_my_pe(shmem_team_t team)
{
    if (!live(team))
        return -1;
    int r = tern_team_rank(team->tt);
    return r < 0 ? -1 : tshmem_team_trank(team, r);
}

int shmem_team_n_pes(shmem_team_t team)
{
    if (!live(team))
        return -1;
    return tern_team_size(team->tt);
}

int shmem_team_get_config(shmem_team_t team, long config_mask,
                          shmem_team_config_t *config)
{
    struct tshmem_team_s *t = tshmem_team_get(team, "shmem_team_get_config");
    if (!t || !config) {
        if (t)
            tshmem_error("shmem_team_get_config: config is NULL");
        return 1;
    }
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = t->config.num_contexts;
    return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    if (!live(src_team) || !live(dest_team) || src_pe < 0 ||
        src_pe >= tern_team_size(src_team->tt))
        return -1;
    int r = tern_team_translate(src_team->tt, tshmem_team_trank(src_team, src_pe),
                                dest_team->tt);
    return r < 0 ? -1 : tshmem_team_trank(dest_team, r);
}

/* A team slot of this PE and a scratch slot free on every member of the
 * parent: the lowest bit of the and of the free masks (an allreduce over
 * the parent in its scratch). -1 when there is none on some member. */
static int agree_slot(struct tshmem_team_s *parent)
{
    uint64_t *buf = tshmem_team_scratch(parent);
    buf[0] = ~(uint64_t)slots_used & ((1ull << nslots) - 1);
    if (tern_allreduce(parent->tt, &buf[1], &buf[0], 1, TERN_TYPE_UINT64, TERN_RED_AND) !=
        TERN_OK)
        return -1;
    uint64_t free_all = buf[1];
    /* The parent's scratch is reused by its next collective: wait until
     * every member has read the result. */
    if (tern_team_barrier(parent->tt) != TERN_OK || !free_all)
        return -1;
    return __builtin_ctzll(free_all);
}

static struct tshmem_team_s *make_team(tern_team_t tt, int slot, int reversed,
                                       const shmem_team_config_t *config, long mask)
{
    pthread_mutex_lock(&team_lock);
    struct tshmem_team_s *t = NULL;
    for (int i = 0; i < TSHMEM_TEAMS_MAX && !t; i++)
        if (team_pool[i].magic != TSHMEM_TEAM_LIVE)
            t = &team_pool[i];
    if (t) {
        memset(t, 0, sizeof(*t));
        t->tt = tt;
        t->slot = slot;
        t->reversed = reversed;
        t->config_mask = mask;
        if (config && (mask & SHMEM_TEAM_NUM_CONTEXTS))
            t->config.num_contexts = config->num_contexts;
        t->magic = TSHMEM_TEAM_LIVE;
        slots_used |= 1u << slot;
    }
    pthread_mutex_unlock(&team_lock);
    return t;
}

/* Parent ranks of the strided set, as Tern's split wants them (ascending
 * start and a positive stride), and whether the team is in reverse order. */
static int normalize(int start, int stride, int size, int n, int *lo, int *step)
{
    if (size < 1)
        return -1;
    if (stride == 0) {
        if (size != 1)
            return -1;
        stride = 1;
    }
    long last = (long)start + (long)stride * (size - 1);
    if (start < 0 || start >= n || last < 0 || last >= n)
        return -1;
    *lo = stride > 0 ? start : (int)last;
    *step = stride > 0 ? stride : -stride;
    return 0;
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team)
{
    const char *call = "shmem_team_split_strided";
    if (new_team)
        *new_team = SHMEM_TEAM_INVALID;
    struct tshmem_team_s *p = tshmem_team_get(parent_team, call);
    if (!p)
        return 1;
    int n = tern_team_size(p->tt), lo = 0, step = 1;
    int bad = !new_team || normalize(start, stride, size, n, &lo, &step) != 0;
    if (bad)
        tshmem_error("%s: %s", call,
                     !new_team ? "new_team is NULL"
                               : "the triplet (start, stride, size) does not name PEs of "
                                 "the parent team without wrapping around (stride 0 "
                                 "needs size 1)");
    /* The members decide together: a bad triplet anywhere fails everywhere. */
    int slot = agree_slot(p);
    uint64_t *buf = tshmem_team_scratch(p);
    buf[2] = (uint64_t)bad;
    if (tern_allreduce(p->tt, &buf[3], &buf[2], 1, TERN_TYPE_UINT64, TERN_RED_OR) !=
            TERN_OK ||
        tern_team_barrier(p->tt) != TERN_OK || buf[3] || slot < 0) {
        if (slot < 0 && !bad)
            tshmem_error("%s: %d teams are alive on some PE of the parent (the most "
                         "with this symmetric heap size)",
                         call, nslots);
        return 1;
    }
    /* The parent's PE numbers in Tern's order of the parent. */
    int tstart = p->reversed ? n - 1 - (lo + step * (size - 1)) : lo;
    tern_team_t tt = TERN_TEAM_INVALID;
    int rc = tern_team_split_strided(p->tt, tstart, step, size, &tt);
    if (rc != TERN_OK) {
        tshmem_error("%s: %s", call, tern_strerror(rc));
        return 1;
    }
    if (tt == TERN_TEAM_INVALID)
        return 0; /* not a member */
    int reversed = (stride < 0) != (p->reversed != 0);
    if (size == 1)
        reversed = 0;
    struct tshmem_team_s *t = make_team(tt, slot, reversed, config, config_mask);
    if (!t) {
        tern_team_destroy(tt);
        tshmem_error("%s: no free team record on this PE", call);
        return 1;
    }
    /* The new team's scratch slot must be clean on every member. */
    memset(tshmem_team_scratch(t), 0, tshmem_scratch_bytes);
    tern_team_barrier(tt);
    *new_team = t;
    return 0;
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team)
{
    const char *call = "shmem_team_split_2d";
    if (xaxis_team)
        *xaxis_team = SHMEM_TEAM_INVALID;
    if (yaxis_team)
        *yaxis_team = SHMEM_TEAM_INVALID;
    struct tshmem_team_s *p = tshmem_team_get(parent_team, call);
    if (!p)
        return 1;
    int n = tern_team_size(p->tt);
    if (xrange < 1) {
        tshmem_error("%s: xrange %d is not positive", call, xrange);
        return 1;
    }
    if (xrange > n)
        xrange = n;
    int me = shmem_team_my_pe(parent_team);
    int x = me % xrange, y = me / xrange, rows = (n + xrange - 1) / xrange;
    /* Row y: parent PEs y*xrange .. (one strided split per row, all rows
     * in turn, every parent PE taking part in each). */
    int rc = 0;
    for (int row = 0; row < rows && rc == 0; row++) {
        int len = row == rows - 1 ? n - row * xrange : xrange;
        shmem_team_t t = SHMEM_TEAM_INVALID;
        rc = shmem_team_split_strided(parent_team, row * xrange, 1, len, xaxis_config,
                                      xaxis_mask, &t);
        if (row == y && xaxis_team)
            *xaxis_team = t;
        else if (row == y)
            shmem_team_destroy(t);
    }
    for (int col = 0; col < xrange && rc == 0; col++) {
        int len = (n - col + xrange - 1) / xrange;
        shmem_team_t t = SHMEM_TEAM_INVALID;
        rc = shmem_team_split_strided(parent_team, col, xrange, len, yaxis_config,
                                      yaxis_mask, &t);
        if (col == x && yaxis_team)
            *yaxis_team = t;
        else if (col == x)
            shmem_team_destroy(t);
    }
    return rc;
}

void shmem_team_destroy(shmem_team_t team)
{
    if (team == SHMEM_TEAM_INVALID)
        return;
    if (team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED)
        tshmem_fatal("shmem_team_destroy: the predefined teams cannot be destroyed");
    struct tshmem_team_s *t = tshmem_team_get(team, "shmem_team_destroy");
    if (!t)
        tshmem_fatal("shmem_team_destroy: not a live team");
    tern_team_destroy(t->tt); /* its barrier: nobody uses the scratch any more */
    pthread_mutex_lock(&team_lock);
    slots_used &= ~(1u << t->slot);
    t->magic = 0;
    pthread_mutex_unlock(&team_lock);
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    struct tshmem_team_s *t = tshmem_team_get(team, "shmem_team_create_ctx");
    if (ctx)
        *ctx = SHMEM_CTX_INVALID;
    if (!t)
        return 1;
    if ((t->config_mask & SHMEM_TEAM_NUM_CONTEXTS) && t->nctx >= t->config.num_contexts &&
        t != SHMEM_TEAM_WORLD && t != SHMEM_TEAM_SHARED) {
        tshmem_debug_note("shmem_team_create_ctx: the team was configured for %d "
                          "context(s); making one more anyway",
                          t->config.num_contexts);
    }
    if (shmem_ctx_create(options, ctx) != 0)
        return 1;
    (*ctx)->team = t;
    t->nctx++;
    return 0;
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (!team)
        return 1;
    if (!ctx || ctx->magic != TSHMEM_CTX_LIVE) {
        *team = SHMEM_TEAM_INVALID;
        return 1;
    }
    *team = ctx->team ? ctx->team : SHMEM_TEAM_WORLD;
    return 0;
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    if (!live(team) || pe < 0 || pe >= tern_team_size(team->tt))
        return NULL;
    int world =
        tern_team_translate(team->tt, tshmem_team_trank(team, pe), TERN_TEAM_WORLD);
    return world < 0 ? NULL : shmem_ptr(dest, world);
}
