/* The shm message queue (xport/msgq.h) in one process, sender and receiver
 * sides on one private ring: large data parts go back to the data ring's
 * start once the receiver has consumed what lies there, and never while it
 * has not, learnt from its counts or from an ACK in a held answer (data
 * parts from TN_MSGQ_ACK_MIN: from an ACK only); under a
 * mixed flood with a receiver that consumes, releases and acknowledges at
 * random moments every message arrives once, in order, with its bytes
 * intact. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unit_check.h"
#include "xport/msgq.h"

enum { RING = 64 * 1024, NSLOTS = 64 };

typedef struct qpair {
    tn_msgq_heads_t heads;
    tn_msgq_slot_t slots[NSLOTS];
    _Alignas(64) char data[RING];
} qpair_t;

static void setup(qpair_t *m, tn_msgq_t *tx, tn_msgq_t *rx)
{
    memset(m, 0, sizeof(*m));
    for (int i = 0; i < NSLOTS; i++)
        atomic_store(&m->slots[i].seq, TN_MSGQ_INVALID);
    memset(tx, 0, sizeof(*tx));
    tx->slots = m->slots;
    tx->data = m->data;
    tx->heads = &m->heads;
    tx->smask = NSLOTS - 1;
    tx->dmask = RING - 1;
    *rx = *tx;
}

static unsigned char pattern(uint64_t msg, size_t i)
{
    return (unsigned char)(msg * 131 + i * 7 + 1);
}

/* Sends message number msg of n bytes (all in the data ring when n does not
 * fit in the slot); its data's offset in the ring, or -1 when full. */
static long send_msg(tn_msgq_t *tx, uint64_t msg, size_t n)
{
    size_t dlen = n > TN_MSGQ_INLINE ? n : 0;
    char *data = NULL;
    tn_msgq_slot_t *s = tn_msgq_try_begin(tx, dlen, &data);
    if (!s)
        return -1;
    char *buf = dlen ? data : s->bytes;
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)pattern(msg, i);
    tn_msgq_publish(tx, s, n, dlen ? 0 : n);
    return dlen ? (long)(data - tx->data) : 0;
}

/* Receives the next message, which must be number msg of n bytes, intact;
 * its data's offset (0 in the slot), -1 when there is none, -2 when wrong. */
static long recv_msg(tn_msgq_t *rx, uint64_t msg, size_t n)
{
    tn_msgq_slot_t *s = tn_msgq_peek(rx);
    if (!s)
        return -1;
    if (s->len != n)
        return -2;
    const char *buf = s->inl == s->len ? s->bytes : tn_msgq_data(rx, s);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)buf[i] != pattern(msg, i))
            return -2;
    long off = s->inl == s->len ? 0 : (long)(buf - rx->data);
    tn_msgq_consume(rx, s);
    return off;
}

/* A ping-pong of large messages writes the ring's first lines every time;
 * with the previous one not yet released it goes after it instead. */
static int test_reuse(void)
{
    static qpair_t m;
    tn_msgq_t tx, rx;
    setup(&m, &tx, &rx);
    const size_t n = TN_MSGQ_REUSE_MIN;
    for (uint64_t k = 0; k < 40; k++) {
        CHECK(send_msg(&tx, k, n) == 0);
        CHECK(recv_msg(&rx, k, n) == 0);
        tn_msgq_release(&rx);
    }
    /* Consumed but not released: the sender cannot know, so it goes on. */
    CHECK(send_msg(&tx, 40, n) == 0);
    CHECK(recv_msg(&rx, 40, n) == 0);
    CHECK(send_msg(&tx, 41, n) == (long)n);
    tn_msgq_release(&rx);
    CHECK(recv_msg(&rx, 41, n) == (long)n);
    /* Released up to 41's start only: not drained, 42 goes after 41. */
    CHECK(send_msg(&tx, 42, n) == 2 * (long)n);
    tn_msgq_release(&rx);
    CHECK(recv_msg(&rx, 42, n) == 2 * (long)n);
    tn_msgq_release(&rx);
    /* Drained: back to the start, and the skipped bytes cost no room (the
     * next three fit behind it while nothing is released). */
    CHECK(send_msg(&tx, 43, n) == 0);
    for (uint64_t k = 44; k < 47; k++)
        CHECK(send_msg(&tx, k, n) == (long)((k - 43) * n));
    CHECK(send_msg(&tx, 47, n) == -1); /* the ring is full now */
    for (uint64_t k = 43; k < 47; k++)
        CHECK(recv_msg(&rx, k, n) == (long)((k - 43) * n));
    tn_msgq_release(&rx);
    /* Smaller data parts are not moved back (prefetched instead). */
    size_t small = 1024;
    CHECK(send_msg(&tx, 47, small) == 0); /* the ring's end was reached */
    CHECK(recv_msg(&rx, 47, small) == 0);
    tn_msgq_release(&rx);
    CHECK(send_msg(&tx, 48, small) == (long)small);
    CHECK(recv_msg(&rx, 48, small) == (long)small);
    return 0;
}

/* The receiver's count as an ACK would carry it, recorded in tx. */
static void ack(tn_msgq_t *tx, uint64_t count)
{
    tn_msgq_slot_t s;
    memset(&s, 0, sizeof s);
    memcpy(s.bytes + TN_MSGQ_ACK_AT, &count, sizeof count);
    tn_msgq_note_ack(tx, &s);
}

/* A ping-pong of large Requests (queue a: tx -> rx) answered by held
 * Replies with an ACK (queue b: rtx -> rrx), the receiver never releasing
 * its counts: every Request still goes back to the ring's start, learnt
 * from the ACK alone. A held Reply is invisible until published, and one
 * written behind it waits for it. */
static int test_ack(void)
{
    static qpair_t a, b;
    tn_msgq_t tx, rx, rtx, rrx;
    setup(&a, &tx, &rx);
    setup(&b, &rtx, &rrx);
    const size_t n = TN_MSGQ_REUSE_MIN, rn = 100;
    for (uint64_t k = 0; k < 40; k++) {
        CHECK(send_msg(&tx, k, n) == 0);
        CHECK(recv_msg(&rx, k, n) == 0);
        /* The Reply, held: 8 bytes in the slot, the rest in the data. */
        char *data = NULL;
        CHECK(tn_msgq_can_ack(rn, 8));
        tn_msgq_slot_t *s = tn_msgq_try_begin(&rtx, rn - 8, &data);
        CHECK(s != NULL);
        for (size_t i = 0; i < rn; i++)
            (i < 8 ? s->bytes : data - 8)[i] = (char)pattern(k, i);
        uint64_t seq = tn_msgq_publish_hold(&rtx, s, rn, 8);
        CHECK(tn_msgq_peek(&rrx) == NULL);
        tn_msgq_publish_held(s, seq, rx.dpos);
        tn_msgq_slot_t *r = tn_msgq_peek(&rrx);
        CHECK(r == s && (r->kind & TN_MSGQ_ACK));
        for (size_t i = 0; i < rn; i++)
            CHECK((unsigned char)(i < 8 ? r->bytes : tn_msgq_data(&rrx, r) - 8)[i] ==
                  pattern(k, i));
        tn_msgq_note_ack(&tx, r);
        tn_msgq_consume(&rrx, r);
        tn_msgq_release(&rrx);
    }
    CHECK(atomic_load(&a.heads.data) == 0); /* never released */
    /* Without the ACK the sender cannot know: it goes on. */
    CHECK(send_msg(&tx, 40, n) == 0);
    CHECK(recv_msg(&rx, 40, n) == 0);
    CHECK(send_msg(&tx, 41, n) == (long)n);
    CHECK(recv_msg(&rx, 41, n) == (long)n);
    /* An ACK of 40 only (41 not consumed by then) is not a drain. */
    ack(&tx, rx.dpos - n);
    CHECK(send_msg(&tx, 42, n) == 2 * (long)n);
    CHECK(recv_msg(&rx, 42, n) == 2 * (long)n);
    ack(&tx, rx.dpos);
    CHECK(send_msg(&tx, 43, n) == 0);
    CHECK(recv_msg(&rx, 43, n) == 0);
    /* An older ACK than the sender knows changes nothing. */
    ack(&tx, 0);
    CHECK(send_msg(&tx, 44, n) == (long)n);
    CHECK(recv_msg(&rx, 44, n) == (long)n);
    /* A held message and one published behind it: both wait for it. */
    char *d1 = NULL, *d2 = NULL;
    tn_msgq_slot_t *s1 = tn_msgq_try_begin(&rtx, 64, &d1);
    CHECK(s1 != NULL);
    memset(d1, 1, 64);
    uint64_t seq1 = tn_msgq_publish_hold(&rtx, s1, 64, 0);
    tn_msgq_slot_t *s2 = tn_msgq_try_begin(&rtx, 64, &d2);
    CHECK(s2 != NULL && s2 != s1 && d2 != d1);
    memset(d2, 2, 64);
    tn_msgq_publish(&rtx, s2, 64, 0);
    CHECK(tn_msgq_peek(&rrx) == NULL);
    tn_msgq_publish_held(s1, seq1, 0);
    CHECK(tn_msgq_peek(&rrx) == s1 && tn_msgq_data(&rrx, s1)[0] == 1);
    tn_msgq_consume(&rrx, s1);
    CHECK(tn_msgq_peek(&rrx) == s2 && !(s2->kind & TN_MSGQ_ACK) &&
          tn_msgq_data(&rrx, s2)[63] == 2);
    return 0;
}

/* Random sizes (in the slot, small and large data parts, up to half the
 * ring), a receiver that consumes and releases at random moments: every
 * message once, in order, intact; a full queue refuses without effect. */
static int test_flood(void)
{
    static qpair_t m;
    tn_msgq_t tx, rx;
    setup(&m, &tx, &rx);
    srand(12345);
    uint64_t sent = 0, got = 0, refused = 0;
    size_t *len = malloc(200000 * sizeof(size_t));
    CHECK(len != NULL);
    while (got < 200000) {
        int r = rand() % 8;
        if (sent < 200000 && r < 4) {
            int c = rand() % 4;
            size_t n = c == 0   ? (size_t)(rand() % 49)
                       : c == 1 ? 49 + (size_t)(rand() % 4000)
                       : c == 2 ? TN_MSGQ_REUSE_MIN + (size_t)(rand() % 8192)
                                : RING / 2 - (size_t)(rand() % 64);
            long off = send_msg(&tx, sent, n);
            if (off == -1)
                refused++;
            else
                len[sent++] = n;
        } else if (r < 7 && got < sent) {
            CHECK(recv_msg(&rx, got, len[got]) >= 0);
            got++;
        } else if (r == 7) {
            if (rand() % 2) /* the counts, or an ACK of what is consumed */
                tn_msgq_release(&rx);
            else
                ack(&tx, rx.dpos);
        }
    }
    CHECK(recv_msg(&rx, got, 0) == -1);
    CHECK(refused > 0); /* the queue did fill: the refusal was exercised */
    free(len);
    return 0;
}

/* Data parts from TN_MSGQ_ACK_MIN up to TN_MSGQ_REUSE_MIN go back to the
 * ring's start only when an ACK says the ring is drained: the receiver's
 * counts alone (a flood brings no ACK) are never read for it, so such a
 * message walks on however much was released. */
static int test_ack_mid(void)
{
    static qpair_t m;
    tn_msgq_t tx, rx;
    setup(&m, &tx, &rx);
    const size_t n = TN_MSGQ_ACK_MIN;
    CHECK(n < TN_MSGQ_REUSE_MIN);
    for (uint64_t k = 0; k < 8; k++) {
        CHECK(send_msg(&tx, k, n) == (long)(k * n));
        CHECK(recv_msg(&rx, k, n) == (long)(k * n));
        tn_msgq_release(&rx); /* drained, but only the counts say so */
    }
    /* An ACK of everything consumed: back to the start, every time. */
    for (uint64_t k = 8; k < 40; k++) {
        ack(&tx, rx.dpos);
        CHECK(send_msg(&tx, k, n) == 0);
        CHECK(recv_msg(&rx, k, n) == 0);
    }
    /* An ACK that does not cover the last message: on after it. */
    ack(&tx, rx.dpos - n);
    CHECK(send_msg(&tx, 40, n) == (long)n);
    CHECK(recv_msg(&rx, 40, n) == (long)n);
    /* Below TN_MSGQ_ACK_MIN an ACK changes nothing. */
    ack(&tx, rx.dpos);
    CHECK(send_msg(&tx, 41, n - 64) == 2 * (long)n);
    CHECK(recv_msg(&rx, 41, n - 64) == 2 * (long)n);
    CHECK(atomic_load(&m.heads.data) == 8 * n); /* last released after 7 */
    return 0;
}

int main(void)
{
    if (test_reuse() || test_ack() || test_ack_mid() || test_flood())
        return 1;
    return 0;
}
