/* Broadcast and allreduce for teams whose members all share memory: every
 * member reads the others' buffers in place through the cross-mapped
 * segments, between team barriers, instead of the tree's hand-offs.
 *
 * Small (up to TN_COLL_FAST bytes), allreduce: each member copies its src
 * into one half of its fast area, one barrier, and each member combines
 * all halves in place. The halves alternate, so a half is written again
 * two small allreduces later, after the barrier of the one between, which
 * every member passes only once it finished reading the earlier one: no
 * exit barrier. Small fcollect and alltoall use the same halves the same
 * way. Up to 120 bytes all three go through exchange slots instead, data
 * and stamps in the same lines, without the barrier (xslot). Small broadcast:
 * one way, through stamped lines of the root's area (small_bcast).
 * Large: broadcast reads the root's src between an entry and an exit
 * barrier; allreduce is core/coll_reduce.c's reduce-scatter. One member
 * computes each element, in the same order, so all get the same bits. */
#include <string.h>

#include "base/wait.h"
#include "core/coll.h"

/* The address of buf (this rank's segment) in member j's segment, as
 * mapped here. */
static const char *at(tn_cteam_t *t, int j, const void *buf)
{
    int g = t->ranks[j];
    return (const char *)tern_ptr(g, tern_sym_addr(g, buf));
}

/* The allreduce half for the next small allreduce. */
static char *reduce_half(tn_cteam_t *t)
{
    char *h = t->fast + (size_t)t->par * TN_COLL_FAST;
    t->par ^= 1;
    return h;
}

/* A line of a root's broadcast area: TN_BLINE_DATA bytes of a call's
 * data, then its stamp, the sequence number of the last call that wrote
 * the line (written by the root after the data, release; read by the
 * members). Zero when the slot is claimed: every call's number is above. */
#define TN_BLINE_DATA 60
/* A quarter line of the broadcast quarters: 12 bytes of data, its stamp. */
#define TN_BQ_DATA 12

/* The next call's number, for a call that stamps lines: never 0, the
 * stamp of a line never written (after 2^32 calls a call numbered 0 would
 * take such a line for its own). Every member skips it alike. */
static uint32_t next_stamp(tn_cteam_t *t)
{
    uint32_t seq = ++t->seq;
    return tn_likely(seq) ? seq : ++t->seq;
}

static _Atomic uint32_t *stamp(const char *line)
{
    return (_Atomic uint32_t *)(uintptr_t)(line + TN_BLINE_DATA);
}

/* Writes n bytes of src into the lines from x, 60 per line, each line's
 * stamp (release) after its data, in order; at least one line. Returns
 * the lines written. */
static uint32_t lines_put(char *x, const void *src, size_t n, uint32_t seq)
{
    uint32_t k = n ? (uint32_t)((n + TN_BLINE_DATA - 1) / TN_BLINE_DATA) : 1;
    for (uint32_t l = 0; l < k; l++) {
        size_t off = (size_t)l * TN_BLINE_DATA;
        size_t len = n - off < TN_BLINE_DATA ? n - off : TN_BLINE_DATA;
        if (len == TN_BLINE_DATA) /* a constant size: inline moves, no call */
            memcpy(x + (size_t)l * 64, (const char *)src + off, TN_BLINE_DATA);
        else
            memcpy(x + (size_t)l * 64, (const char *)src + off, len);
        atomic_store_explicit(stamp(x + (size_t)l * 64), seq, memory_order_release);
    }
    return k;
}

/* Copies bytes [off, off + len) of the data that lines_put wrote from x. */
static void lines_get(void *dest, const char *x, size_t off, size_t len)
{
    char *d = dest;
    while (len) {
        size_t l = off / TN_BLINE_DATA, in = off % TN_BLINE_DATA;
        size_t c = TN_BLINE_DATA - in < len ? TN_BLINE_DATA - in : len;
        if (c == TN_BLINE_DATA) /* a whole line: inline moves, as lines_put */
            memcpy(d, x + l * 64, TN_BLINE_DATA);
        else
            memcpy(d, x + l * 64 + in, c);
        d += c;
        off += c;
        len -= c;
    }
}

/* Wakes the members asleep on the stamp word w (a root whose members may
 * sleep): each sleeps with its flag of the root's sleeping word raised
 * (this rank's flag at the member, as mapped here). */
static void wake_members(tn_cteam_t *t, _Atomic uint32_t *w)
{
    atomic_thread_fence(memory_order_seq_cst); /* the stamp before the checks */
    for (int j = 0; j < t->size; j++)
        if (j != t->rank) {
            tn_coll_flag_t *f = (tn_coll_flag_t *)(uintptr_t)at(
                t, j, t->flags + (size_t)t->rank * sizeof(tn_coll_flag_t));
            tn_wait_wake(w, &f->sleeping);
        }
}

/* Until member j has finished call `last` of this team, an earlier call
 * than seq: its flag here holds the last call in which it signalled this
 * rank, which is last or later once it has, and is at most a few calls
 * ahead of seq. Measured back from seq, so that a `last` older than 2^31
 * calls counts as done,
 * where tn_coll_wait's "flag - last >= 0" would wait for ever once flag
 * and last are 2^31 apart (TERN_TEST_FAULT=collseq:N, mp.coll_seqwrap). */
static void wait_done(tn_cteam_t *t, int j, uint32_t seq, uint32_t last)
{
    tn_coll_flag_t *in =
        (tn_coll_flag_t *)(t->flags + (size_t)j * sizeof(tn_coll_flag_t));
    for (;;) {
        uint32_t v = atomic_load_explicit(&in->epoch, memory_order_acquire);
        if ((int32_t)(seq - v) <= 0 || seq - v <= seq - last)
            return;
        tn_wait_u32_change(&in->epoch, v, &in->sleeping);
    }
}

/* Small broadcast, one way, data and its flag in the same lines: the root
 * copies src into lines of its broadcast area, 60 bytes and the call's
 * stamp per line, and returns; each member waits for the stamp of the
 * call's last line in the root's area (the root writes them in order),
 * copies the data out through the mapping and acknowledges with its flag
 * at the root. A call claims the next ceil(nbytes / 60) lines after the
 * previous call of the same root (from line 0 when they would pass the
 * area's end), counted alike on every member; the root waits for the
 * acknowledgements of those lines' last use only when it claims them
 * again. So an 8-byte broadcast's root runs up to 32 calls ahead of its
 * slowest receiver: with more ranks than cores each receiver, once
 * scheduled, copies out every call the root made meanwhile.
 * Per 8-byte call the root writes one line and no member's flag, and
 * with no sleeper possible (tn_wait_may_sleep) it publishes by a release
 * store without a fence: it does not wait for the line to reach it, so
 * calls overlap their cache-line transfers; a receiver takes the data
 * and the stamp in one transfer and acknowledges into a line the root
 * reads once per 32 calls. docs/design/collectives.md, "Small broadcast
 * on one node". */
static void small_bcast(tn_cteam_t *t, void *dest, const void *src, size_t nbytes,
                        int root, int keep)
{
    int me = t->rank, n = t->size;
    tn_coll_refresh(t);
    uint32_t seq = next_stamp(t), k = 1;
    char *h;       /* the data's place in the root's area */
    size_t sw;     /* its (last) stamp's offset from h */
    uint32_t *use; /* root: the last call of each line or quarter taken */
    if (nbytes <= TN_BQ_DATA) {
        uint32_t q = t->bcount[n + root]++ % TN_COLL_BQUARTERS;
        h = t->fast + 2 * TN_COLL_FAST + (size_t)(TN_COLL_BLINES + TN_COLL_XLINES) * 64 +
            (size_t)q * 16;
        sw = TN_BQ_DATA;
        use = &t->bquarter[q];
    } else {
        k = (uint32_t)((nbytes + TN_BLINE_DATA - 1) / TN_BLINE_DATA);
        uint32_t line = t->bcount[root];
        if (line + k > TN_COLL_BLINES)
            line = 0;
        t->bcount[root] = line + k;
        h = t->fast + 2 * TN_COLL_FAST + (size_t)line * 64;
        sw = (size_t)(k - 1) * 64 + TN_BLINE_DATA;
        use = &t->bline[line];
    }
    if (me == root) {
        /* The latest earlier use of these lines: the nearest before this
         * call; 0 for a line unused since the team began (no call is
         * numbered 0, next_stamp), which waits for no one. */
        uint32_t last = 0;
        for (uint32_t l = 0; l < k; l++)
            if (use[l] && (!last || seq - use[l] < seq - last))
                last = use[l];
        for (int j = 0; last && j < n; j++)
            if (j != me)
                wait_done(t, j, seq, last);
        if (nbytes <= TN_BQ_DATA) {
            memcpy(h, src, nbytes);
            atomic_store_explicit((_Atomic uint32_t *)(uintptr_t)(h + sw), seq,
                                  memory_order_release);
        } else {
            lines_put(h, src, nbytes, seq);
        }
        for (uint32_t l = 0; l < k; l++)
            use[l] = seq;
        if (tn_wait_may_sleep())
            wake_members(t, (_Atomic uint32_t *)(uintptr_t)(h + sw));
        if (dest != src && !keep)
            memcpy(dest, src, nbytes);
    } else {
        const char *r = at(t, root, h);
        _Atomic uint32_t *w = (_Atomic uint32_t *)(uintptr_t)(r + sw);
        tn_coll_flag_t *mine =
            (tn_coll_flag_t *)(t->flags + (size_t)root * sizeof(tn_coll_flag_t));
        uint32_t v;
        /* Only this call's number can replace the old one: the root
         * writes this place again only after this member acknowledged. */
        while ((v = atomic_load_explicit(w, memory_order_acquire)) != seq)
            tn_wait_u32_change(w, v, &mine->sleeping);
        if (nbytes <= TN_BQ_DATA)
            memcpy(dest, r, nbytes);
        else
            lines_get(dest, r, 0, nbytes);
        tn_coll_signal(t, root, seq); /* done with the root's lines */
    }
}

void tn_coll_node_bcast(tn_cteam_t *t, void *dest, const void *src, size_t nbytes,
                        int root, int keep)
{
    int me = t->rank;
    if (nbytes <= TN_COLL_FAST) {
        small_bcast(t, dest, src, nbytes, root, keep);
        return;
    }
    tn_coll_barrier(t); /* the root's src is ready, every dest is free */
    if (me != root)
        memcpy(dest, at(t, root, src), nbytes);
    else if (dest != src && !keep)
        memcpy(dest, src, nbytes);
    tn_coll_barrier(t); /* nobody reads the root's src any more */
}

/* Small exchange, data and flag in the same lines: each member copies its
 * src (at most TN_XDATA bytes) into one of its two exchange slots, 60
 * bytes and the call's stamp per line, and reads every member's slot in
 * place once the stamp of its last line says this call. The slots
 * alternate with the allreduce halves' turn (t->par), so a member writes
 * a slot again only after a call of the other turn, in which it waited
 * for every member's entry (its stamp or the barrier), which each member
 * makes only after it finished reading this call: no exit barrier, and
 * no barrier on entry either, since the stamp is the flag. Per call of up
 * to 60 bytes one line moves from each member to each other (2 ranks: one
 * transfer each way, at once), where the barrier and the reads of the
 * halves took a round trip and a transfer. */
#define TN_XDATA (TN_COLL_XSLOT * TN_BLINE_DATA)

static char *xslot(tn_cteam_t *t)
{
    char *x = t->fast + 2 * TN_COLL_FAST +
              (size_t)(TN_COLL_BLINES + t->par * TN_COLL_XSLOT) * 64;
    t->par ^= 1;
    return x;
}

static uint32_t xpublish(tn_cteam_t *t, char *x, const void *src, size_t copy,
                         uint32_t seq)
{
    uint32_t k = lines_put(x, src, copy, seq);
    if (tn_wait_may_sleep())
        wake_members(t, stamp(x + (size_t)(k - 1) * 64));
    return k;
}

/* Member j's exchange slot x as mapped here, once its k lines hold call
 * seq. */
static const char *xwait(tn_cteam_t *t, int j, const char *x, uint32_t k, uint32_t seq)
{
    if (j == t->rank)
        return x;
    const char *r = at(t, j, x);
    _Atomic uint32_t *w = stamp(r + (size_t)(k - 1) * 64);
    tn_coll_flag_t *mine =
        (tn_coll_flag_t *)(t->flags + (size_t)j * sizeof(tn_coll_flag_t));
    uint32_t v;
    while ((v = atomic_load_explicit(w, memory_order_acquire)) != seq)
        tn_wait_u32_change(w, v, &mine->sleeping);
    return r;
}

void tn_coll_node_gather(tn_cteam_t *t, void *dest, const void *src, size_t copy,
                         size_t at_off, size_t len)
{
    if (copy <= TN_XDATA) {
        tn_coll_refresh(t);
        uint32_t seq = next_stamp(t);
        char *x = xslot(t);
        uint32_t k = xpublish(t, x, src, copy, seq);
        for (int s = 1; s <= t->size; s++) { /* this member last */
            int j = (t->rank + s) % t->size;
            lines_get((char *)dest + (size_t)j * len, xwait(t, j, x, k, seq), at_off,
                      len);
        }
        return;
    }
    char *h = reduce_half(t);
    memcpy(h, src, copy);
    tn_coll_barrier(t);
    for (int j = 0; j < t->size; j++)
        memcpy((char *)dest + (size_t)j * len, at(t, j, h + at_off), len);
}

void tn_coll_node_allreduce(tn_cteam_t *t, void *dest, const void *src, size_t count,
                            size_t es, void (*fn)(void *, const void *, size_t))
{
    int n = t->size;
    size_t bytes = count * es;
    if (bytes <= TN_XDATA) { /* in team order, as below */
        tn_coll_refresh(t);
        uint32_t seq = next_stamp(t);
        char *x = xslot(t);
        uint32_t k = xpublish(t, x, src, bytes, seq);
        _Alignas(64) char in[TN_XDATA];
        lines_get(dest, xwait(t, 0, x, k, seq), 0, bytes);
        for (int j = 1; j < n; j++) {
            const char *r = xwait(t, j, x, k, seq);
            if (k > 1) { /* the data is split around a stamp */
                lines_get(in, r, 0, bytes);
                r = in;
            }
            fn(dest, r, count);
        }
        return;
    }
    char *h = reduce_half(t);
    memcpy(h, src, bytes); /* src may change (or be dest) after the barrier */
    tn_coll_barrier(t);
    memcpy(dest, at(t, 0, h), bytes);
    for (int j = 1; j < n; j++)
        fn(dest, at(t, j, h), count);
}
