/* Allreduce of teams across nodes above TERN_COLL_TREE_MAX: a ring
 * reduce-scatter then a ring allgather (bandwidth-optimal: each member
 * sends and receives 2 (n - 1) / n of the data), pipelined in pieces of
 * TERN_COLL_RING_PIECE that go straight into the right neighbour's dest
 * with their flags, so that a member combines and forwards piece k while
 * later pieces are still on their way. docs/design/collectives.md, "Ring
 * allreduce". */
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "core/am.h"
#include "core/coll.h"

/* Piece puts in flight to the right neighbour (large pieces): enough to
 * keep the connection busy while earlier completions come back. */
#define TN_RING_WINDOW 8

static void must(int rc, const char *what)
{
    if (rc != TERN_OK) {
        char msg[160];
        snprintf(msg, sizeof(msg), "allreduce: %s failed: %s", what, tern_strerror(rc));
        tern_abort(1, msg);
    }
}

/* The geometry of one call: count elements of es bytes cut into n chunks
 * of per elements (the last ones shorter or empty), each cut into k
 * pieces of pe elements (some empty). Piece p of the call is piece p % k
 * of step p / k: steps 0..n-2 reduce-scatter, n-1..2n-3 allgather. */
typedef struct ring {
    size_t count, es, per, pe;
    uint32_t k, total; /* pieces per step; pieces of the call, 2 (n - 1) k */
    int n, pos;        /* members; this member's ring position */
} ring_t;

/* The chunk that the member at ring position pos sends in step s: its own
 * partial of chunk pos - s while reducing, then the finished chunk it
 * holds (pos + 1) and the ones it received, one position further back
 * each step. */
static int chunk_sent(const ring_t *r, int pos, uint32_t s)
{
    int n = r->n;
    int c = s <= (uint32_t)n - 2 ? pos - (int)s : pos + 1 - (int)(s - (uint32_t)(n - 1));
    return ((c % n) + n) % n;
}

/* Element range [*lo, lo + *m) of piece p as sent by ring position pos. */
static void piece(const ring_t *r, int pos, uint32_t p, size_t *lo, size_t *m)
{
    int c = chunk_sent(r, pos, p / r->k);
    size_t clo = (size_t)c * r->per, chi = clo + r->per;
    if (chi > r->count)
        chi = r->count;
    size_t a = clo + (size_t)(p % r->k) * r->pe, b = a + r->pe;
    if (a > chi)
        a = chi;
    if (b > chi)
        b = chi;
    *lo = a;
    *m = b - a;
}

/* Whether pieces of bytes go to member j as messages with their flag (or
 * a copy and a store when j is mapped) rather than as puts. */
static int piece_by_msg(tn_cteam_t *t, int j, void *dest, size_t bytes)
{
    int g = t->ranks[j];
    size_t max = tn_am_medium_max(g);
    if (tn_cfg.coll_put_flag_msgs > 0)
        max *= (size_t)tn_cfg.coll_put_flag_msgs;
    return bytes <= max || tern_ptr(g, tern_sym_addr(g, dest)) != NULL;
}

void tn_coll_ring_allreduce(tn_cteam_t *t, void *dest, const void *src, size_t count,
                            size_t es, tn_red_fn fn)
{
    int n = t->size, pos = 0;
    while (t->bynode[pos] != t->rank) /* nodes together: few network hops */
        pos++;
    int left = t->bynode[(pos + n - 1) % n], right = t->bynode[(pos + 1) % n];
    size_t piece_bytes = (size_t)tn_cfg.coll_ring_piece;
    ring_t r = {.count = count, .es = es, .n = n, .pos = pos};
    r.per = (count + (size_t)n - 1) / (size_t)n;
    r.pe = piece_bytes / es ? piece_bytes / es : 1;
    if (!piece_bytes || r.pe > r.per) /* 0: a chunk per step */
        r.pe = r.per;
    r.k = (uint32_t)((r.per + r.pe - 1) / r.pe);
    r.total = 2 * (uint32_t)(n - 1) * r.k;
    /* How a piece and its flag travel to the right neighbour: mapped, a
     * copy and a store; up to TERN_COLL_PUT_FLAG_MSGS Medium messages, as
     * messages with the flag on the last; larger pieces by non-blocking
     * puts, at most TN_RING_WINDOW in flight, each followed by an
     * unacknowledged write of the flag where the transport keeps puts in
     * order (no round trip, no message for the receiver to handle), else
     * the flag raised once the put is remotely complete. Measured with 4
     * ranks on 2 cores: 16 KiB pieces as messages 300-320 us per 64 KiB
     * allreduce, as puts with ordered flags 370-560 us; 32 KiB pieces
     * with 2 ranks: 60-62 us with ordered flags, 68-71 us after each
     * put's completion. */
    int g = t->ranks[right];
    int by_msg = piece_by_msg(t, right, dest, r.pe * es);
    int ordered = !by_msg && tn_coll_can_order(t, right);
    /* The left neighbour's choice for its pieces to this member (the same
     * transport both ways): only flags raised by ordered writes may be
     * read from the flag's second word. A later write there could
     * otherwise overtake the handler of an earlier data message. */
    int left_ordered =
        !piece_by_msg(t, left, dest, r.pe * es) && tn_coll_can_order(t, left);
    /* In place, received partials land in dest over this member's src:
     * combine with a private copy instead. */
    const char *own = src;
    char *copy = NULL;
    if (dest == src) {
        if (!(copy = malloc(count * es)))
            tern_abort(1, "allreduce: no memory for the copy of an in-place source");
        memcpy(copy, src, count * es);
        own = copy;
    }
    /* Sequence numbers base + 1 .. base + 1 + total: the right neighbour
     * raises this member's flag to base + 1 when it entered (its dest is
     * free), this member raises the right neighbour's to base + 2 + p
     * once pieces 0..p are in its dest. With 2 members both are the same
     * flag, and a piece's value implies "entered". */
    uint32_t base = t->seq;
    t->seq += 1 + r.total;
    if (!tn_coll_signal_ordered(t, left, base + 1))
        tn_coll_signal(t, left, base + 1);
    char *d = dest;
    int entered = 0;
    uint32_t sent = 0, acked = 0, got = 0, done = 0;
    tern_event_t ev[TN_RING_WINDOW];
    for (tn_wait_t w = TN_WAIT_FRESH;;) {
        int moved = 0;
        uint32_t h = tn_coll_flag_steps(t, left, base + 1, r.total, left_ordered);
        if (h != got) {
            got = h;
            moved = 1;
        }
        if (!entered && tn_coll_flag_steps(t, right, base, 1, 1))
            entered = moved = 1;
        if (done < got) { /* piece done arrived from the left */
            if (done / r.k <= (uint32_t)n - 2) {
                size_t lo, m;
                piece(&r, (pos + n - 1) % n, done, &lo, &m);
                fn(d + lo * es, own + lo * es, m); /* partial op mine */
            }
            done++;
            moved = 1;
        }
        /* Piece p leaves once it is here: step 0 from src, later ones
         * after the piece k before it arrived (and was combined). */
        while (entered && sent < r.total && (sent < r.k || sent - r.k < done) &&
               (by_msg || sent - acked < TN_RING_WINDOW)) {
            size_t lo, m;
            piece(&r, pos, sent, &lo, &m);
            const char *from = (sent < r.k ? own : d) + lo * es;
            if (by_msg) {
                if (m)
                    tn_coll_put_flag(t, right, d + lo * es, from, m * es,
                                     base + 2 + sent);
                else
                    tn_coll_signal(t, right, base + 2 + sent);
                acked = sent + 1;
            } else {
                ev[sent % TN_RING_WINDOW] = TERN_EVENT_DONE;
                void *to = tern_sym_addr(g, d + lo * es);
                tern_event_t *e = &ev[sent % TN_RING_WINDOW];
                if (m)
                    must(ordered
                             ? tn_core_put_flagged("allreduce", g, to, from, m * es, e)
                             : tern_put_nb(g, to, from, m * es, NULL, e, 0),
                         "a piece's put");
                if (ordered)
                    tn_coll_signal_ordered(t, right, base + 2 + sent);
            }
            sent++;
            moved = 1;
        }
        if (!by_msg) {
            uint32_t a = acked;
            while (acked < sent) {
                int rc = tern_event_test(ev[acked % TN_RING_WINDOW]);
                if (rc == TERN_INPROGRESS)
                    break;
                must(rc, "a piece's put");
                acked++;
            }
            if (acked != a && !ordered) {
                tn_coll_signal(t, right, base + 1 + acked);
                moved = 1;
            }
        }
        if (done == r.total && acked == r.total)
            break;
        if (moved)
            tn_wait_progressed(&w);
        else
            tn_coll_wait_step(t, &w);
    }
    free(copy);
}
