/* Failed network transfers return their error from every completion: the
 * blocking call, the events of non-blocking calls, nbi sync and a context's
 * quiet. Run with TERN_TEST_FAULT making network fragments fail (at
 * completion, or at issue after earlier fragments of the same transfer are
 * in flight). Each rank works with a peer on another node; with none (one
 * node) there is no network transfer to fail: skip. */
#include <string.h>

#include "mp_util.h"

#define BIG (64 * 1024) /* several fragments with TERN_OFI_MAX_MSG=4K */

static void expect_failed(int rc, const char *what)
{
    MP_CHECK(rc == TERN_ERR_PEER || rc == TERN_ERR_SYS,
             "%s: expected the injected failure, got %d (%s)", what, rc,
             tern_strerror(rc));
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size(), peer = -1;
    for (int k = 1; k < n && peer < 0; k++)
        if (!mp_mapped((me + k) % n))
            peer = (me + k) % n;
    if (peer < 0) {
        MP_OK(tern_finalize());
        if (me == 0)
            printf("faults: SKIP (one node: no network transfer to fail)\n");
        return 77;
    }
    char *buf;
    MP_OK(tern_alloc_sym(BIG, (void **)&buf));
    static char local[BIG];
    memset(local, me + 1, sizeof(local));
    void *dst = tern_sym_addr(peer, buf);

    /* Blocking calls return the error (the local side is then free). */
    expect_failed(tern_put(peer, dst, local, BIG, 0), "tern_put");
    expect_failed(tern_get(local, peer, dst, BIG, 0), "tern_get");

    /* Events carry it; a second wait on a released event is misuse. */
    tern_event_t lc, rc;
    int st = tern_put_nb(peer, dst, local, BIG, &lc, &rc, 0);
    if (st == TERN_OK) {
        MP_CHECK(rc != TERN_EVENT_DONE, "a network put completes later");
        expect_failed(tern_event_wait(rc), "event of tern_put_nb");
        tern_event_wait(lc); /* local completion may precede the failure */
        MP_CHECK(tern_event_wait(rc) == TERN_ERR_INVALID, "second wait is misuse");
    } else {
        expect_failed(st, "tern_put_nb (failed at issue)");
    }
    tern_event_t g;
    st = tern_get_nb(local, peer, dst, BIG, &g, 0);
    if (st == TERN_OK)
        expect_failed(tern_event_wait(g), "event of tern_get_nb");
    else
        expect_failed(st, "tern_get_nb (failed at issue)");

    /* nbi: the sync reports the failure, once. */
    int issued = 0;
    for (int i = 0; i < 4; i++)
        issued += tern_put_nbi(peer, dst, local, BIG, 0) == TERN_OK;
    MP_CHECK(issued > 0, "no nbi put started");
    expect_failed(tern_nbi_sync(TERN_SYNC_REMOTE), "tern_nbi_sync");
    MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));

    /* A context's quiet reports the failures of its own operations only. */
    tern_ctx_t ctx;
    MP_OK(tern_ctx_create(0, &ctx));
    issued = 0;
    for (int i = 0; i < 4; i++)
        issued += tern_ctx_get_nbi(ctx, local, peer, dst, BIG, 0) == TERN_OK;
    MP_CHECK(issued > 0, "no nbi get started");
    MP_OK(tern_quiet()); /* the default context has nothing failed */
    expect_failed(tern_ctx_quiet(ctx), "tern_ctx_quiet");
    MP_OK(tern_ctx_destroy(ctx));
    return mp_finish("faults");
}
