/* Broadcast of teams across nodes above the eager ring: a pipelined tree.
 * The data goes in chunks of TERN_COLL_PIPE_CHUNK bytes straight into each
 * member's dest by non-blocking puts; a member forwards chunk i to its
 * children as soon as its own flag says chunk i arrived, while later
 * chunks are still on their way to it. Binomial tree for mid sizes, a
 * chain (one child each: every member sends the data once) from
 * TERN_COLL_BCAST_CHAIN bytes. docs/design/collectives.md, "Pipelined
 * broadcast". */
#include <string.h>

#include "base/cfg.h"
#include "core/coll.h"

/* Chunk puts in flight per child: enough to keep a connection busy while
 * the completions of earlier ones come back. */
#define TN_PIPE_WINDOW 8
/* Most children of a member: binomial over at most 2^31 members. */
#define TN_PIPE_KIDS 31

typedef struct pipe_kid {
    int member;   /* team rank */
    int entered;  /* its flag said its dest is free */
    int ordered;  /* chunk flags by ordered unacknowledged writes */
    uint32_t put; /* chunks whose put was started */
    uint32_t ack; /* chunks complete (remotely unless ordered), in order */
    tern_event_t ev[TN_PIPE_WINDOW];
} pipe_kid_t;

static void must(int rc, const char *what)
{
    if (rc != TERN_OK) {
        char msg[160];
        snprintf(msg, sizeof(msg), "broadcast: %s failed: %s", what, tern_strerror(rc));
        tern_abort(1, msg);
    }
}

uint32_t tn_coll_flag_steps(tn_cteam_t *t, int j, uint32_t base, uint32_t nch, int either)
{
    tn_coll_flag_t *f = (tn_coll_flag_t *)(t->flags + (size_t)j * sizeof(tn_coll_flag_t));
    if (tn_comp_status(&t->comp) != TERN_OK)
        tern_abort(1, "collective: a network write of a team flag, or of data that "
                      "carries one, failed (cause "
                      "logged above)");
    int32_t d = (int32_t)(atomic_load_explicit(&f->epoch, memory_order_acquire) - base);
    if (either && !tn_core_peer(t->ranks[j])->ctrl) {
        int32_t w =
            (int32_t)(atomic_load_explicit(&f->sleeping, memory_order_acquire) - base);
        if (w > d)
            d = w;
    }
    return d <= 0 ? 0 : (uint32_t)d > nch ? nch : (uint32_t)d;
}

/* Starts the puts that kid k may take (chunks this member holds, up to the
 * window) and announces them: flag value base + i tells the kid that
 * chunks 1..i are in its dest. Where the transport keeps puts in order and
 * takes unacknowledged writes (k->ordered), the flag is such a write right
 * behind the chunk's put, into the flag's second word: no round trip
 * before the kid may forward the chunk, no message whose completion costs
 * the kid the provider's signal, and a put with no remote completion
 * (tn_core_put_flagged: no acknowledgement; its event ends when the
 * provider is done with the source, and no later write of this member's
 * to the kid can overtake it). Otherwise the flag is raised, in order,
 * once the puts are remotely complete. Either way this member leaves only
 * after every put completed. Returns whether anything moved. */
static int feed(tn_cteam_t *t, pipe_kid_t *k, char *from, char *dest, size_t nbytes,
                size_t chunk, uint32_t base, uint32_t have)
{
    int moved = 0, g = t->ranks[k->member];
    if (!k->entered) {
        if (!tn_coll_flag_steps(t, k->member, base, 1, 1))
            return 0;
        k->entered = moved = 1;
    }
    while (k->put < have && k->put - k->ack < TN_PIPE_WINDOW) {
        size_t off = (size_t)k->put * chunk;
        size_t len = nbytes - off < chunk ? nbytes - off : chunk;
        void *to = tern_sym_addr(g, dest + off);
        tern_event_t *e = &k->ev[k->put % TN_PIPE_WINDOW];
        must(k->ordered ? tn_core_put_flagged("broadcast", g, to, from + off, len, e)
                        : tern_put_nb(g, to, from + off, len, NULL, e, 0),
             "a chunk's put");
        k->put++;
        if (k->ordered)
            tn_coll_signal_ordered(t, k->member, base + k->put);
        moved = 1;
    }
    uint32_t acked = k->ack;
    while (k->ack < k->put) {
        int rc = tern_event_test(k->ev[k->ack % TN_PIPE_WINDOW]);
        if (rc == TERN_INPROGRESS)
            break;
        must(rc, "a chunk's put");
        k->ack++;
    }
    if (k->ack != acked && !k->ordered) {
        tn_coll_signal(t, k->member, base + k->ack);
        moved = 1;
    }
    return moved;
}

void tn_coll_pipe_bcast(tn_cteam_t *t, void *dest, const void *src, size_t nbytes,
                        int root, int keep)
{
    int n = t->size;
    size_t chunk = tn_cfg.coll_pipe_chunk ? (size_t)tn_cfg.coll_pipe_chunk : nbytes;
    if (chunk > nbytes)
        chunk = nbytes;
    uint32_t nch = (uint32_t)((nbytes + chunk - 1) / chunk);
    int chain = n > 2 && nbytes >= (size_t)tn_cfg.coll_bcast_chain;
    int rel = tn_coll_tree_order(t, root);
    /* This collective takes sequence numbers base + 1 .. base + nch: a
     * parent raises its child's flag to base + i once chunks 1..i are in
     * the child's dest; a child raises its parent's to base + 1 when it
     * entered (its dest is free). Every value is above the previous
     * collective's and below the next one's. */
    uint32_t base = t->seq;
    t->seq += nch;
    int parent = -1, nk = 0;
    pipe_kid_t kids[TN_PIPE_KIDS];
    if (chain) {
        if (rel)
            parent = t->order[rel - 1];
        if (rel + 1 < n)
            kids[nk++] = (pipe_kid_t){.member = t->order[rel + 1]};
    } else {
        int below = rel ? tn_lowbit(rel) : 1;
        if (rel)
            parent = t->order[rel - below];
        else
            while (below < n)
                below <<= 1;
        for (int k = below >> 1; k >= 1; k >>= 1) /* the largest subtree first */
            if (rel + k < n)
                kids[nk++] = (pipe_kid_t){.member = t->order[rel + k]};
    }
    for (int i = 0; i < nk; i++)
        kids[i].ordered = tn_coll_can_order(t, kids[i].member);
    /* The parent's choice for its flags to this member (the same transport
     * both ways): only then may they be read from the second word. */
    int from_ordered = parent >= 0 && tn_coll_can_order(t, parent);
    char *d = dest;
    char *from = rel ? d : (char *)(uintptr_t)src;
    uint32_t have = rel ? 0 : nch, copied = rel || dest == src || keep ? nch : 0;
    /* My dest is free. An unacknowledged write where it can be (read in
     * either word: no later value of this member's comes before it). */
    if (parent >= 0 && !tn_coll_signal_ordered(t, parent, base + 1))
        tn_coll_signal(t, parent, base + 1);
    for (tn_wait_t w = TN_WAIT_FRESH;;) {
        int moved = 0;
        if (have < nch) {
            uint32_t h = tn_coll_flag_steps(t, parent, base, nch, from_ordered);
            moved = h != have;
            have = h;
        }
        int busy = have < nch;
        for (int i = 0; i < nk; i++) {
            moved |= feed(t, &kids[i], from, d, nbytes, chunk, base, have);
            busy |= kids[i].ack < nch;
        }
        if (copied < nch) { /* the root's own dest, while the puts fly */
            size_t off = (size_t)copied * chunk;
            memcpy(d + off, from + off, nbytes - off < chunk ? nbytes - off : chunk);
            copied++;
            moved = busy = 1;
        }
        if (!busy)
            break;
        if (moved)
            tn_wait_progressed(&w);
        else
            tn_coll_wait_step(t, &w);
    }
}
