/* Forged active messages sent to the next rank as a buggy or hostile peer
 * would, below the send calls' checks: through the message transport (every
 * configuration) headers of an unknown kind, a handler index past the
 * table or not registered, too many arguments, arguments or a Medium
 * payload past the message's end, a Long destination outside the target's
 * segment; into a direct queue (shared memory) slots whose parts lie
 * outside the slot or the data ring, and a payload length past the data
 * part. Each is dropped at the target with an error naming it, none runs
 * a handler, and good messages at the slot's limits that follow are
 * delivered whole (active-messages.md, twenty-third pass). Then the same
 * slots drained by the shared-memory transport's own poll rather than
 * core's drain (shm_msg.c; twenty-fourth pass). Linked with the library's
 * internals to reach the transport and the queues. */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "core/am.h"
#include "mp_util.h"

enum { H_GOOD = 1, H_FORGED = 2, H_UNREGISTERED = 200 };

static _Atomic int forged_ran, good_seen, good_bad;

static void on_forged(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                      int nargs)
{
    (void)t, (void)buf, (void)a;
    atomic_fetch_add(&forged_ran, 1);
    fprintf(stderr,
            "am_forged: a forged message ran its handler (len %zu, %d arguments)\n", len,
            nargs);
}

/* Good messages: a[0] says the length and argument count expected, every
 * argument is i + 1, the payload bytes are mp_pattern(src, i, 7). */
static void on_good(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                    int nargs)
{
    int src = -1, ok = tern_am_source(t, &src) == TERN_OK && nargs >= 1 &&
                       a[0] == ((uint64_t)len << 8 | (uint64_t)nargs);
    for (int i = 1; ok && i < nargs; i++)
        ok = a[i] == (uint64_t)i + 1;
    size_t first;
    if (ok && len)
        ok = buf && mp_pattern_misses(buf, len, src, 7, &first) == 0;
    if (!ok)
        atomic_fetch_add(&good_bad, 1);
    atomic_fetch_add(&good_seen, 1);
}

static uint64_t msg[64], fill[512];
static int peer, ncases;
static uint64_t *ready;           /* symmetric: the next rank polls the transport only */
static tn_core_xport_t *own_poll; /* set: forge_slot waits by the transport's poll */
static const char *whys[40];

/* The header's two words (core/am.h, tn_am_hdr_t). */
static void hdr(unsigned handler, unsigned kind, unsigned nargs, uint32_t len,
                uint64_t dest)
{
    msg[0] = handler | (uint64_t)kind << 16 | (uint64_t)nargs << 24 | (uint64_t)len << 32;
    msg[1] = dest;
    for (int i = 2; i < 64; i++)
        msg[i] = 0x5a5a5a5a00000000ull | (uint64_t)i;
}

/* Sends the first n bytes of msg through the transport, as they are. */
static void forge(size_t n, const char *why)
{
    tn_core_xport_t *xp = tn_core_peer(peer)->msg;
    int rc = xp->ops.msg_send(xp->x, peer, msg, n, NULL, 0, 0);
    MP_CHECK(rc == TERN_OK, "sending forged message %d: %s", ncases, tern_strerror(rc));
    whys[ncases++] = why;
}

/* Writes a slot into the direct queue q as its writer may: the slot's
 * bytes from msg, its length and inline count as given, and (dn > 0) dn
 * bytes in the data ring, published as tn_msgq_publish
 * does (honest parts); dn == 0 with len > inl: parts that the queue does
 * not hold (the data position is not moved: the target drops the slot
 * alone). */
static void forge_slot(tn_msgq_t *q, uint32_t len, uint16_t inl, size_t dn,
                       const char *why)
{
    char *data = NULL;
    tn_msgq_slot_t *r;
    while (!(r = tn_msgq_try_begin(q, dn, &data)))
        own_poll ? own_poll->ops.poll(own_poll->x) : tern_poll();
    memcpy(r->bytes, msg, TN_MSGQ_INLINE);
    if (dn) {
        memcpy(data, fill, dn);
        tn_msgq_publish(q, r, len, inl);
    } else {
        r->len = len;
        r->inl = inl;
        r->kind = TN_MSGQ_MSG;
        atomic_store_explicit(&r->seq, q->seq, memory_order_release);
        q->seq++;
        tn_msgq_unlock(q);
    }
    whys[ncases++] = why;
}

/* A good Medium of len bytes with nargs arguments (nargs >= 1). */
static void good(size_t len, int nargs)
{
    static unsigned char pay[64];
    tern_am_arg_t a[TERN_AM_MAX_ARGS] = {(uint64_t)len << 8 | (uint64_t)nargs};
    for (int i = 1; i < nargs; i++)
        a[i] = (uint64_t)i + 1;
    for (size_t i = 0; i < len; i++)
        pay[i] = mp_pattern(tern_rank(), i, 7);
    MP_OK(tern_am_request_medium(peer, H_GOOD, pay, len, a, nargs, 0));
}

/* The slot dispatch's one compare (core/am.h, tn_am_slot_need) lets a
 * header word through exactly when its handler index lies in the table,
 * its kind is a Short or a Medium, Request or Reply, and header, arguments
 * and payload fit in the slot: each field over its whole range with the
 * others good, then random words. The number of words let through. */
static long check_slot_need(void)
{
    long passed = 0;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (long i = 0; i < (1 << 16) + 256 + 256 + (1 << 20) + 2000000; i++) {
        uint64_t w;
        if (i < (1 << 16))
            w = (uint64_t)i | (uint64_t)TN_AM_MEDIUM << 16 | 1ull << 24 | 8ull << 32;
        else if (i < (1 << 16) + 256)
            w = 7 | (uint64_t)(i - (1 << 16)) << 16 | 1ull << 24 | 8ull << 32;
        else if (i < (1 << 16) + 512)
            w = 7 | (uint64_t)TN_AM_MEDIUM << 16 | (uint64_t)(i - (1 << 16) - 256) << 24;
        else if (i < (1 << 16) + 512 + (1 << 20))
            w = 7 | (uint64_t)TN_AM_MEDIUM << 16 | 2ull << 24 |
                (uint64_t)(i - (1 << 16) - 512) << 44; /* len's high bits */
        else {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            w = x & (i & 1 ? 0x000000ff1f11ffffull : ~0ull); /* half near the edge */
        }
        unsigned handler = (uint16_t)w, kind = (uint8_t)(w >> 16),
                 nargs = (uint8_t)(w >> 24);
        uint64_t len = w >> 32;
        int good = handler < TN_AM_HANDLER_TABLE &&
                   (kind == 0 || kind == TN_AM_MEDIUM || kind == TN_AM_REPLY ||
                    kind == (TN_AM_MEDIUM | TN_AM_REPLY)) &&
                   16 + 8 * (uint64_t)nargs + len <= TN_MSGQ_INLINE;
        int through = tn_am_slot_need(w, nargs, (uint32_t)len) <= TN_MSGQ_INLINE;
        MP_CHECK(through == good,
                 "header word %#llx: the slot check says %d, the fields %d",
                 (unsigned long long)w, through, good);
        passed += through;
    }
    return passed;
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size(), prev = (me + n - 1) % n;
    peer = (me + 1) % n;
    MP_OK(tern_am_register(H_GOOD, on_good, "good"));
    MP_OK(tern_am_register(H_FORGED, on_forged, "forged"));
    char *base;
    size_t size;
    MP_OK(tern_segment_query(peer, (void **)&base, &size));
    MP_OK(tern_alloc_sym(sizeof(uint64_t), (void **)&ready));
    *ready = 0;
    MP_OK(tern_barrier());
    long through = check_slot_need();
    MP_CHECK(through > 512, "only %ld good header words", through);

    /* Every rank forges to the next while serving its previous one; the
     * targets' complaints go to stderr, captured until the barrier. */
    mp_capture_begin();

    /* Headers, through the transport: in a slot on shared memory (up to
     * 48 bytes), in the data ring or over the network otherwise. */
    hdr(H_FORGED, 0x07, 0, 0, 0);
    forge(16, "unknown kind");
    hdr(H_FORGED, TN_AM_SHORT | 0x20, 0, 0, 0); /* a bit past the kind's */
    forge(16, "unknown kind");
    hdr(H_FORGED, TN_AM_MEDIUM | 0x40, 1, 8, 0);
    forge(32, "unknown kind");
    hdr(TN_AM_HANDLER_SLOTS + 16, TN_AM_SHORT, 0, 0, 0); /* in the table's 512 */
    forge(16, "handler index out of range");
    hdr(0x1234, TN_AM_SHORT, 0, 0, 0); /* past them */
    forge(16, "handler index out of range");
    hdr(H_UNREGISTERED, TN_AM_SHORT, 1, 0, 0);
    forge(24, "not registered");
    hdr(H_FORGED, TN_AM_SHORT, 17, 0, 0);
    forge(48, "too many arguments");
    hdr(H_FORGED, TN_AM_SHORT, 5, 0, 0); /* 56 bytes of 48 */
    forge(48, "arguments past its end");
    hdr(H_FORGED, TN_AM_MEDIUM, 0, 33, 0); /* 49 bytes of 48 */
    forge(48, "payload length past its end");
    hdr(H_FORGED, TN_AM_MEDIUM, 2, 17, 0);
    forge(48, "payload length past its end");
    hdr(H_FORGED, TN_AM_MEDIUM | TN_AM_REPLY, 1, 4096, 0);
    forge(40, "payload length past its end");
    hdr(H_FORGED, TN_AM_MEDIUM, 1, 0xffffffffu, 0);
    forge(40, "payload length past its end");
    hdr(H_FORGED, TN_AM_MEDIUM, 0, 200, 0); /* in the data ring on shm */
    forge(128, "payload length past its end");
    hdr(H_FORGED, TN_AM_LONG, 1, 8, 4096); /* not in the segment */
    forge(24, "Long destination outside");
    hdr(H_FORGED, TN_AM_LONG, 1, 64, (uint64_t)(uintptr_t)(base + size - 8));
    forge(24, "Long destination outside");
    hdr(H_FORGED, TN_AM_LONG_INLINE, 1, 8, (uint64_t)(uintptr_t)&forged_ran);
    forge(32, "Long destination outside");
    int forged_here = ncases;

    /* Slots, into a direct queue: parts outside the slot or the ring. */
    tn_msgq_t *q = tn_core_peer(peer)->msgq;
    int slots_at = ncases;
    if (q) {
        /* A slot that says it holds 4000 bytes: the slot's 48 are the
         * bound, and the header's Medium of 100 bytes is past them. */
        hdr(H_FORGED, TN_AM_MEDIUM, 0, 100, 0);
        forge_slot(q, 4000, 4000, 0, "payload length past its end");
        forge_slot(q, 116, 60, 0, "in the slot (at most 48)");
        forge_slot(q, 100000000, 0, 0, "past its end: dropped"); /* past the ring */
        uint64_t ring = (uint64_t)q->dmask + 1, off = q->dpos & q->dmask;
        forge_slot(q, (uint32_t)(16 + ring - off + 64), 16, 0, "past its end: dropped");
        forge_slot(q, 10, 16, 0, "past its end: dropped"); /* inl > len */
        /* Honest parts, a header that claims more than they hold: split
         * (header in the slot, payload in the data ring), small and large
         * (tn_am_drain_large). */
        hdr(H_FORGED, TN_AM_MEDIUM, 0, 200, 0);
        forge_slot(q, 16 + 64, 16, 64, "payload length past its end");
        hdr(H_FORGED, TN_AM_MEDIUM, 0, 5000, 0);
        forge_slot(q, 16 + 2048, 16, 2048, "payload length past its end");
    }

    /* Good messages at the slot's limits, then one in the data ring. */
    good(24, 1);  /* 16 + 8 + 24 = 48: the slot full */
    good(0, 4);   /* 48 */
    good(16, 2);  /* 48 */
    good(1, 4);   /* 49: the payload in the data ring */
    good(32, 1);  /* 56: likewise */
    good(64, 16); /* header and arguments in the data ring too */
    int goods = 6;

    while (atomic_load(&good_seen) < goods)
        tern_poll();
    int phase1 = ncases;

    /* The same slots drained by the shared-memory transport's own poll
     * (shm_msg.c, drain), which a job's progress does not run once core
     * drains the direct queues: this rank tells its previous rank that it
     * polls the transport only from now on, and does until the previous
     * rank's last good message has run; the previous rank forges only
     * after that. */
    tn_core_xport_t *shm = tn_core_peer(prev)->msg;
    int from_prev = tn_core_peer(prev)->msgq != NULL;
    if (from_prev) {
        own_poll = shm;
        atomic_store_explicit(
            (_Atomic uint64_t *)tern_ptr(prev, tern_sym_addr(prev, ready)), 1,
            memory_order_release);
    }
    int goods2 = 3;
    if (q) {
        while (!atomic_load_explicit((_Atomic uint64_t *)ready, memory_order_acquire))
            own_poll ? own_poll->ops.poll(own_poll->x) : tern_poll();
        hdr(H_FORGED, TN_AM_MEDIUM, 0, 100, 0);
        forge_slot(q, 4000, 4000, 0, "4000 of them in the slot (at most 48)");
        forge_slot(q, 116, 60, 0, "60 of them in the slot (at most 48)");
        forge_slot(q, 100000000, 0, 0, "says 100000000 bytes, 0 of them");
        uint64_t ring = (uint64_t)q->dmask + 1, off = q->dpos & q->dmask;
        forge_slot(q, (uint32_t)(16 + ring - off + 64), 16, 0, "past its end: dropped");
        forge_slot(q, 10, 16, 0, "says 10 bytes, 16 of them");
        hdr(H_FORGED, TN_AM_MEDIUM, 0, 200, 0);
        forge_slot(q, 16 + 64, 16, 64, "payload length past its end");
        hdr(H_FORGED, TN_AM_MEDIUM, 0, 5000, 0);
        forge_slot(q, 16 + 2048, 16, 2048, "payload length past its end");
        good(24, 1); /* in the slot */
        good(1, 4);  /* split: assembled in a copy */
        good(64, 16);
    }
    if (from_prev) {
        while (atomic_load(&good_seen) < goods + goods2)
            shm->ops.poll(shm->x);
        own_poll = NULL;
    }
    MP_OK(tern_barrier());
    const char *log = mp_capture_end();
    /* What this rank's previous rank sends it is the same. */
    int expect = forged_here + (from_prev ? phase1 - slots_at : 0);
    MP_CHECK(atomic_load(&forged_ran) == 0, "%d forged messages ran their handler:\n%s",
             atomic_load(&forged_ran), log);
    MP_CHECK(atomic_load(&good_bad) == 0, "%d good messages arrived damaged",
             atomic_load(&good_bad));
    for (int i = 0; i < expect; i++)
        MP_CHECK(strstr(log, whys[i]) != NULL, "the target's log lacks '%s':\n%s",
                 whys[i], log);
    for (int i = phase1; from_prev && i < ncases; i++) /* the transport's poll's drops */
        MP_CHECK(strstr(log, whys[i]) != NULL, "the target's log lacks '%s':\n%s",
                 whys[i], log);
    expect += from_prev ? 7 : 0;
    int drops = 0;
    for (const char *p = log; (p = strstr(p, ": dropped")) != NULL; p++)
        drops++;
    MP_CHECK(drops == expect, "%d messages dropped, %d forged:\n%s", drops, expect, log);
    if (me == 0)
        printf("am_forged: %d forged messages dropped\n", expect);
    return mp_finish("am_forged");
}
