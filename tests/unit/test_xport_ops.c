/* Core's check of a transport's ops table (core/xports.c): a table that
 * stops after destroy, or leaves operations NULL, gets the stubs; one
 * shorter than that, or without a name or destroy, is refused; the stubs
 * answer "unsupported" (poll: nothing to do). And every registry entry's
 * table, as its transport would hand it over, is complete. */
#include <stddef.h>
#include <string.h>

#include "core/core.h"
#include "unit_check.h"

static int destroyed;
static void fake_destroy(tn_xport_t *x)
{
    (void)x;
    destroyed++;
}
static int fake_poll(tn_xport_t *x)
{
    (void)x;
    return 7;
}

int main(void)
{
    static const tn_xport_entry_t entry = {.name = "fake"};
    tn_xport_t x;
    tn_xport_ops_t out;

    /* A table built against an older interface: up to destroy only. */
    tn_xport_ops_t old = {.size = TN_XPORT_OPS_MIN_SIZE,
                          .name = "fake",
                          .destroy = fake_destroy,
                          .poll = fake_poll};
    CHECK(tn_core_xport_complete(&entry, &old, &out) == TERN_OK);
    CHECK(out.size == sizeof(tn_xport_ops_t) && out.destroy == fake_destroy);
    CHECK(out.poll == tn_xport_no_poll); /* past its size: not read */
    CHECK(out.rma == tn_xport_no_rma && out.peer_map == tn_xport_no_peer_map);
    CHECK(out.set_recv == tn_xport_no_set_recv &&
          out.msg_prepare == tn_xport_no_msg_prepare &&
          out.msg_commit == tn_xport_no_msg_commit);
    CHECK(out.query == tn_xport_no_query && out.summary == tn_xport_no_summary);
    CHECK(out.copy_info == tn_xport_no_copy_info && out.amo == tn_xport_no_amo);
    CHECK(out.msg_send == tn_xport_msg_send_prepared);
    CHECK(out.mem == tn_xport_no_mem);

    /* A full table with holes. */
    tn_xport_ops_t holes = {.size = sizeof(tn_xport_ops_t),
                            .name = "fake",
                            .destroy = fake_destroy,
                            .poll = fake_poll};
    CHECK(tn_core_xport_complete(&entry, &holes, &out) == TERN_OK);
    CHECK(out.poll == fake_poll && out.rma == tn_xport_no_rma);
    x.ops = &out;
    CHECK(out.poll(&x) == 7);
    out.destroy(&x);
    CHECK(destroyed == 1);

    /* The stubs. */
    tn_xport_caps_t caps;
    memset(&caps, 0xff, sizeof(caps));
    out.query(&x, &caps);
    CHECK(caps.flags == 0 && caps.rma_max == 0 && caps.msg_max == 0);
    tn_rma_t op = {TN_RMA_PUT, 0, NULL, NULL, 0};
    tn_xport_done_t done = {NULL, NULL};
    tn_xport_map_t m;
    tern_copy_info_t ci;
    CHECK(out.rma(&x, &op, &done, 0) == TERN_ERR_UNSUPPORTED);
    CHECK(out.peer_map(&x, 0, &m) == TERN_ERR_UNSUPPORTED);
    CHECK(out.set_recv(&x, NULL, NULL) == TERN_ERR_UNSUPPORTED);
    tn_xport_msg_t msg;
    CHECK(out.msg_prepare(&x, 0, 1, 0, &msg) == TERN_ERR_UNSUPPORTED);
    CHECK(out.msg_commit(&x, &msg, 0) == TERN_ERR_UNSUPPORTED);
    CHECK(out.copy_info(&x, 0, &ci) == TERN_ERR_UNSUPPORTED);
    tn_amo_t amo = {.type = TN_ATYPE_U64, .op = TN_AOP_FADD};
    CHECK(out.amo(&x, &amo, &done, 0) == TERN_ERR_UNSUPPORTED);
    CHECK(tn_xport_no_poll(&x) == 0);
    char line[32];
    out.summary(&x, line, sizeof(line));
    CHECK(strcmp(line, "fake") == 0);

    /* Refused: too short, no name, no destroy. */
    tn_xport_ops_t bad = old;
    bad.size = offsetof(tn_xport_ops_t, destroy);
    CHECK(tn_core_xport_complete(&entry, &bad, &out) == TERN_ERR_INVALID);
    bad = old;
    bad.name = NULL;
    CHECK(tn_core_xport_complete(&entry, &bad, &out) == TERN_ERR_INVALID);
    bad = old;
    bad.destroy = NULL;
    CHECK(tn_core_xport_complete(&entry, &bad, &out) == TERN_ERR_INVALID);
    CHECK(tn_core_xport_complete(&entry, NULL, &out) == TERN_ERR_INVALID);

    /* The registry: unique names, something to serve, a create. */
    CHECK(tn_xport_count() >= 2);
    for (size_t i = 0; i < tn_xport_count(); i++) {
        const tn_xport_entry_t *e = tn_xport_entry(i);
        CHECK(e->name && e->serves && e->reach && e->create);
        CHECK(tn_xport_find(e->name) == e);
    }
    CHECK(tn_xport_entry(tn_xport_count()) == NULL);
    CHECK(tn_xport_find("self") && tn_xport_find("shm"));
    printf("xport ops: PASS\n");
    return 0;
}
