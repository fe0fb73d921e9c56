/* The bootstrap's key-value store (put/get, what lazy network addressing
 * fetches addresses through), below tern_init, under ternrun or a PMIx
 * launcher: every rank's value byte for byte after a barrier, in an
 * order that differs per rank; a rank that does not exist; a key nobody
 * published (ternrun only: PMIx waits for a late put until its timeout).
 * A single rank without a launcher has no store: the test says so and
 * passes only there. usage: mp_boot_kv */
#include "boot/boot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern/status.h>

#include "../test_check.h"

static int me = -1;
#define CHECK(cond, ...) TEST_CHECK_AS("boot_kv rank", me, cond, __VA_ARGS__)
#define OK(call)         TEST_OK_AS("boot_kv rank", me, call)

/* Rank r's value: a length and bytes that differ per rank. */
static size_t value_of(int r, unsigned char *v)
{
    size_t len = 40 + (size_t)(r * 37) % 300;
    for (size_t i = 0; i < len; i++)
        v[i] = (unsigned char)(r * 131u + i * 7u + 5);
    return len;
}

int main(void)
{
    tn_boot_t *b = NULL;
    OK(tn_boot_create(30, &b));
    me = b->rank;
    if (!tn_boot_has_kv(b)) {
        CHECK(strcmp(b->ops->name, "single") == 0, "bootstrap %s has no key-value store",
              b->ops->name);
        printf("boot_kv: %s bootstrap has no key-value store (eager addressing)\n",
               b->ops->name);
        tn_boot_destroy(b);
        return 0;
    }
    unsigned char mine[TN_BOOT_VALUE_MAX], got[TN_BOOT_VALUE_MAX];
    OK(b->ops->put(b, "test.card", mine, value_of(me, mine)));
    OK(b->ops->put(b, "test.other", "x", 1));
    OK(b->ops->barrier(b));
    for (int k = 0; k < b->size; k++) {
        int r = (me + k) % b->size;
        size_t len = 0, want = value_of(r, mine);
        memset(got, 0xEE, sizeof(got));
        OK(b->ops->get(b, r, "test.card", got, sizeof(got), &len));
        CHECK(len == want && memcmp(got, mine, want) == 0,
              "rank %d's value: %zu bytes, expected %zu, or other bytes", r, len, want);
    }
    size_t len = 0;
    int rc = b->ops->get(b, b->size, "test.card", got, sizeof(got), &len);
    CHECK(rc == TERN_ERR_RANK, "lookup of rank %d (not in the job) gave %d", b->size, rc);
    rc = b->ops->get(b, -1, "test.card", got, sizeof(got), &len);
    CHECK(rc == TERN_ERR_RANK, "lookup of rank -1 gave %d", rc);
    rc = b->ops->get(b, (me + 1) % b->size, "test.card", got, 8, &len);
    CHECK(rc == TERN_ERR_INVALID, "a value larger than the buffer gave %d", rc);
    if (strcmp(b->ops->name, "ternrun") == 0) {
        rc = b->ops->get(b, 0, "test.never", got, sizeof(got), &len);
        CHECK(rc == TERN_ERR_BOOT, "lookup of a key never published gave %d", rc);
    }
    /* The store still answers after the refusals. */
    OK(b->ops->get(b, 0, "test.other", got, sizeof(got), &len));
    CHECK(len == 1 && got[0] == 'x', "rank 0's second key: %zu bytes", len);
    OK(b->ops->barrier(b));
    OK(b->ops->fini(b));
    tn_boot_destroy(b);
    if (me == 0)
        printf("boot_kv: PASS\n");
    return 0;
}
