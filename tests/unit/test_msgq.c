/* The shm message queue (xport/msgq.h) in one process, sender and receiver
 * sides on one private ring: large data parts go back to the data ring's
 * start once the receiver has consumed what lies there, and never while it
 * has not; under a mixed flood with a receiver that consumes at random
 * moments every message arrives once, in order, with its bytes intact. */
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
            tn_msgq_release(&rx);
        }
    }
    CHECK(recv_msg(&rx, got, 0) == -1);
    CHECK(refused > 0); /* the queue did fill: the refusal was exercised */
    free(len);
    return 0;
}

int main(void)
{
    if (test_reuse() || test_flood())
        return 1;
    return 0;
}
