/* Allreduce of power-of-two teams across nodes between TERN_COLL_TREE_MAX
 * and TERN_COLL_RHD_MAX: a reduce-scatter by recursive halving, then an
 * allgather by recursive doubling (Rabenseifner), the data put straight
 * into the partners' dests; with 2 members (up to TERN_COLL_RHD_PAIR_MAX)
 * both exchange their whole src in pieces (TERN_COLL_PAIR_PIECE) and
 * combine each piece as it arrives (one step each way).
 * 2 log2 n data steps where the ring takes 2 (n - 1), the same bytes.
 * docs/design/collectives.md, "Recursive halving and doubling". */
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "core/coll.h"

/* Flag values above the call's base that a member writes to a partner, in
 * this order: its dest is free, its partial of the partner's half is
 * there, (round 0's partner only) its landing area is free again, its
 * finished block is there. */
enum { RHD_ENTERED = 1, RHD_PART = 2, RHD_FREE = 3, RHD_DONE = 4, RHD_STEPS = 4 };
/* Rounds of a team of at most 2^31 members. */
#define RHD_MAX_ROUNDS 31

typedef struct rhd {
    tn_cteam_t *t;
    uint32_t base;
    int partner[RHD_MAX_ROUNDS]; /* team rank of round r's partner */
    int ordered[RHD_MAX_ROUNDS]; /* its flags are ordered writes, both ways */
    tern_event_t ev[2 * RHD_MAX_ROUNDS];
    int nev;
} rhd_t;

static void must(int rc, const char *what)
{
    if (rc != TERN_OK) {
        char msg[160];
        snprintf(msg, sizeof(msg), "allreduce: %s failed: %s", what, tern_strerror(rc));
        tern_abort(1, msg);
    }
}

/* bytes from "from" into member j's copy of "to" (this rank's symmetric
 * address), then this rank's flag there raised to value: where the
 * transport keeps puts in order (ordered), a put with no remote completion
 * (tn_core_put_flagged: no acknowledgement; *ev its local completion) and
 * an unacknowledged flag write behind it, which tells the partner that the
 * data is there (no round trip, no message for the partner to handle);
 * else a message with its flag, a put and the flag, or a copy and a store.
 * ev is used only when ordered and bytes. */
static void put_then_flag(tn_cteam_t *t, int j, int ordered, void *to, const void *from,
                          size_t bytes, uint32_t value, tern_event_t *ev)
{
    int g = t->ranks[j];
    if (!ordered) {
        tn_coll_put_flag(t, j, to, from, bytes, value);
        return;
    }
    if (bytes)
        must(tn_core_put_flagged("allreduce", g, tern_sym_addr(g, to), from, bytes, ev),
             "a put");
    tn_coll_signal_ordered(t, j, value);
}

/* Tells member j that this member's dest is free (flag value). */
static void signal_entered(tn_cteam_t *t, int j, int ordered, uint32_t value)
{
    if (!ordered || !tn_coll_signal_ordered(t, j, value))
        tn_coll_signal(t, j, value);
}

/* put_then_flag to round r's partner, flag base + v; the put is locally
 * complete, its source free, before finish() returns, or *lc when asked
 * for (the caller waits for it). */
static void send_lc(rhd_t *s, int r, void *to, const void *from, size_t bytes, uint32_t v,
                    tern_event_t *lc)
{
    if (lc)
        *lc = TERN_EVENT_DONE;
    tern_event_t *ev = lc;
    if (!ev && s->ordered[r] && bytes)
        ev = &s->ev[s->nev++];
    put_then_flag(s->t, s->partner[r], s->ordered[r], to, from, bytes, s->base + v, ev);
}

static void send(rhd_t *s, int r, void *to, const void *from, size_t bytes, uint32_t v)
{
    send_lc(s, r, to, from, bytes, v, NULL);
}

/* Until round r's partner's flag says v. */
static void await(rhd_t *s, int r, uint32_t v)
{
    tn_wait_t w = TN_WAIT_FRESH;
    while (tn_coll_flag_steps(s->t, s->partner[r], s->base, RHD_STEPS, s->ordered[r]) < v)
        tn_coll_wait_step(s->t, &w);
}

static void finish(rhd_t *s)
{
    for (int i = 0; i < s->nev; i++)
        must(tern_event_wait(s->ev[i]), "a put");
}

/* Sets up the call: its sequence numbers, partners and flag choices, and
 * tells every partner that this member's dest is free (partners write
 * into it, in round r >= 1 without having heard from this member
 * otherwise). */
static void start(rhd_t *s, tn_cteam_t *t, int pos, int rounds)
{
    s->t = t;
    s->nev = 0;
    s->base = t->seq;
    t->seq += RHD_STEPS;
    for (int r = 0; r < rounds; r++) {
        int j = t->bynode[pos ^ (1 << r)];
        s->partner[r] = j;
        /* The same transport both ways: the partner's choice is ours. */
        s->ordered[r] = tn_coll_can_order(t, j);
        signal_entered(t, j, s->ordered[r], s->base + RHD_ENTERED);
    }
}

/* Pieces of a 2-member exchange at most (the events of its puts). */
#define PAIR_MAX_PIECES 64

/* Two members: each puts its whole src into the other's dest in pieces of
 * TERN_COLL_PAIR_PIECE, each with its flag, both directions at once, and
 * combines every piece that arrived with its own straight in dest while
 * later pieces are still on their way; the lower member's data first on
 * both (rfn: acc = in op acc), so both compute the same operands in the
 * same order. Flag values above the call's base: 1 this member's dest is
 * free, 2 + p pieces 0..p are in the partner's dest. */
static void pair(tn_cteam_t *t, int j, char *dest, const char *own, size_t count,
                 size_t es, tn_red_fn fn, tn_red_fn rfn, int lower)
{
    int ordered = tn_coll_can_order(t, j);
    size_t pe = (size_t)tn_cfg.coll_pair_piece / es,
           min = (count + PAIR_MAX_PIECES - 1) / PAIR_MAX_PIECES;
    if (!pe || pe > count)
        pe = count;
    if (pe < min)
        pe = min;
    uint32_t k = (uint32_t)((count + pe - 1) / pe), sent = 0, done = 0;
    uint32_t base = t->seq;
    t->seq += 1 + k;
    signal_entered(t, j, ordered, base + 1);
    tern_event_t ev[PAIR_MAX_PIECES];
    int entered = 0;
    for (tn_wait_t w = TN_WAIT_FRESH; sent < k || done < k;) {
        uint32_t h = tn_coll_flag_steps(t, j, base, 1 + k, ordered);
        int moved = 0;
        if (!entered && h >= 1)
            entered = moved = 1;
        if (entered && sent < k) { /* the next piece and its flag */
            size_t lo = (size_t)sent * pe, m = count - lo < pe ? count - lo : pe;
            char *to = dest + lo * es;
            const char *from = own + lo * es;
            ev[sent] = TERN_EVENT_DONE;
            put_then_flag(t, j, ordered, to, from, m * es, base + 2 + sent, &ev[sent]);
            sent++;
            moved = 1;
        }
        if (done < k && h >= 2 + done) { /* piece done is here: combine it */
            size_t lo = (size_t)done * pe, m = count - lo < pe ? count - lo : pe;
            if (lower)
                rfn(dest + lo * es, own + lo * es, m); /* mine op theirs */
            else
                fn(dest + lo * es, own + lo * es, m); /* theirs op mine */
            done++;
            moved = 1;
        }
        if (moved)
            tn_wait_progressed(&w);
        else
            tn_coll_wait_step(t, &w);
    }
    for (uint32_t p = 0; p < k; p++)
        must(tern_event_wait(ev[p]), "a put");
}

int tn_coll_rhd_allreduce(tn_cteam_t *t, void *dest, const void *src, size_t count,
                          size_t es, tn_red_fn fn, tn_red_fn rfn)
{
    int n = t->size, rounds = 0, pos = 0;
    size_t bytes = count * es;
    if (n < 2 || (n & (n - 1)) || bytes > (size_t)tn_cfg.coll_rhd_max ||
        (n == 2 && bytes > (size_t)tn_cfg.coll_rhd_pair_max))
        return 0;
    while ((1 << rounds) < n)
        rounds++;
    /* Round r >= 1's partial from the partner lands in the half of dest
     * this member gave away in round 0, after rounds 1..r-1's: the halves
     * of what it keeps sum to less than that half where count >= n log2 n
     * (uneven halves round up by at most an element per round). */
    if (count < (size_t)n * (size_t)rounds)
        return 0;
    /* Where every half is exact (count a multiple of n), the last round
     * exchanges the whole block instead of halving it: both partners
     * combine it, and the allgather starts one round earlier (one step
     * less, the same bytes). Its landing area is the block's size: with
     * exact halves that is the rest of the half given away in round 0. */
    int xlast = count % (size_t)n == 0;
    while (t->bynode[pos] != t->rank) /* nodes together: early rounds inside */
        pos++;
    /* The blocks: before round r this member holds [lo[r], hi[r]); it keeps
     * the half its bit r selects and gives the other, [glo[r], ghi[r]), to
     * its partner. */
    size_t lo[RHD_MAX_ROUNDS + 1], hi[RHD_MAX_ROUNDS + 1];
    size_t glo[RHD_MAX_ROUNDS], ghi[RHD_MAX_ROUNDS];
    lo[0] = 0;
    hi[0] = count;
    for (int r = 0; r < rounds; r++) {
        size_t mid = lo[r] + (hi[r] - lo[r]) / 2;
        int upper = (pos >> r) & 1;
        lo[r + 1] = upper ? mid : lo[r];
        hi[r + 1] = upper ? hi[r] : mid;
        glo[r] = upper ? lo[r] : mid;
        ghi[r] = upper ? mid : hi[r];
    }
    /* In place, partners write into src before this member has read it
     * (its own half in round 0, the other half from round 1 on, possibly
     * before round 0's put has read it): keep a private copy. */
    const char *own = src;
    char *copy = NULL, *d = dest;
    if (dest == src) {
        if (!(copy = malloc(bytes + 1)))
            tern_abort(1, "allreduce: no memory for the copy of an in-place source");
        memcpy(copy, src, bytes);
        own = copy;
    }
    if (n == 2) {
        pair(t, t->bynode[pos ^ 1], d, own, count, es, fn, rfn, pos == 0);
        free(copy);
        return 1;
    }
    rhd_t s;
    start(&s, t, pos, rounds);
    /* Reduce-scatter. Round 0: the other half of src into the partner's
     * dest, then mine combined into what it sent me; round r: my partial
     * of the half I give into the partner's landing area, then its partial
     * combined into mine. Every partner writes into dest only after it
     * was told that this member entered. */
    char *land = d + glo[0] * es;
    await(&s, 0, RHD_ENTERED);
    send(&s, 0, d + glo[0] * es, own + glo[0] * es, (ghi[0] - glo[0]) * es, RHD_PART);
    await(&s, 0, RHD_PART);
    fn(d + lo[1] * es, own + lo[1] * es, hi[1] - lo[1]); /* theirs op mine */
    int halve = xlast ? rounds - 1 : rounds;
    for (int r = 1; r < halve; r++) {
        size_t m = hi[r + 1] - lo[r + 1]; /* = the partner's given half */
        await(&s, r, RHD_ENTERED);
        send(&s, r, land, d + glo[r] * es, (ghi[r] - glo[r]) * es, RHD_PART);
        await(&s, r, RHD_PART);
        fn(d + lo[r + 1] * es, land, m); /* mine op theirs */
        land += m * es;
    }
    if (xlast) { /* both partners finish the whole block, lower op upper */
        int r = rounds - 1;
        size_t m = hi[r] - lo[r];
        tern_event_t lc;
        await(&s, r, RHD_ENTERED);
        send_lc(&s, r, land, d + lo[r] * es, m * es, RHD_PART, &lc);
        await(&s, r, RHD_PART);
        must(tern_event_wait(lc), "a put"); /* it read what is combined into */
        if ((pos >> r) & 1)
            rfn(d + lo[r] * es, land, m); /* theirs op mine */
        else
            fn(d + lo[r] * es, land, m); /* mine op theirs */
    }
    /* The landing area is free for round 0's partner's block. */
    if (!s.ordered[0] || !tn_coll_signal_ordered(t, s.partner[0], s.base + RHD_FREE))
        tn_coll_signal(t, s.partner[0], s.base + RHD_FREE);
    /* Allgather: the finished block to each partner's dest, last round's
     * partner first; its block lands in the half given to it. */
    for (int r = halve - 1; r >= 0; r--) {
        if (r == 0)
            await(&s, 0, RHD_FREE);
        send(&s, r, d + lo[r + 1] * es, d + lo[r + 1] * es, (hi[r + 1] - lo[r + 1]) * es,
             RHD_DONE);
        await(&s, r, RHD_DONE);
    }
    finish(&s);
    free(copy);
    return 1;
}
