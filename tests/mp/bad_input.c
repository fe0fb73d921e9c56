/* Bad input to the RMA and query calls: a clear status and a message that
 * names what was wrong; the job goes on afterwards. */
#include <string.h>
#include <strings.h>

#include "mp_util.h"

#define EXPECT MP_EXPECT

int main(int argc, char **argv)
{
    char buf[64] = {0};
    uint64_t dummy = 0;
    /* Before init. */
    EXPECT(tern_put(0, buf, buf, 8, 0), TERN_ERR_NOT_INIT, "before tern_init");
    EXPECT(tern_barrier(), TERN_ERR_NOT_INIT, "tern_barrier");
    EXPECT(tern_nbi_sync(TERN_SYNC_REMOTE), TERN_ERR_NOT_INIT, "tern_nbi_sync");
    MP_CHECK(tern_alloc(8) == NULL, "tern_alloc before init");
    MP_CHECK(tern_ptr(0, buf) == NULL, "tern_ptr before init");
    EXPECT(tern_init(NULL, NULL, 7), TERN_ERR_INVALID, "thread level 7");
    /* A program built against another layout of the inline calls. */
    EXPECT(tern_init_abi_(NULL, NULL, TERN_THREAD_SINGLE, TERN_ABI_VERSION + 1),
           TERN_ERR_INVALID, "rebuild the program");

    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    EXPECT(tern_init(NULL, NULL, TERN_THREAD_SINGLE), TERN_ERR_INVALID,
           "already initialized");
    int peer = (me + 1) % n;
    char *base;
    size_t size;
    MP_OK(tern_segment_query(peer, (void **)&base, &size));

    EXPECT(tern_put(n, base, buf, 8, 0), TERN_ERR_RANK, "rank");
    EXPECT(tern_put(-1, base, buf, 8, 0), TERN_ERR_RANK, "rank -1");
    EXPECT(tern_get(buf, n + 5, base, 8, 0), TERN_ERR_RANK, "is not in");
    EXPECT(tern_put(peer, base + size - 4, buf, 8, 0), TERN_ERR_RANGE,
           "outside the segment of rank");
    EXPECT(tern_put(peer, base - 8, buf, 8, 0), TERN_ERR_RANGE, "outside the segment");
    EXPECT(tern_get(buf, peer, base + size, 1, 0), TERN_ERR_RANGE, "outside the segment");
    EXPECT(tern_put(peer, buf, buf, 8, 0), TERN_ERR_RANGE, "outside the segment");
    /* The commonest first mistake: one's own pointer as the remote address.
     * Refused only where it is not also an address of peer's (its segment
     * may cover it: the put would then be right, and write there). */
    if (n > 1) {
        char *own = tern_alloc(64);
        MP_CHECK(own != NULL, "tern_alloc");
        if (!mp_remote_overlap(peer, own, 8))
            EXPECT(tern_put(peer, own, buf, 8, 0), TERN_ERR_RANGE, "tern_sym_addr");
        tern_free(own);
    }
    EXPECT(tern_put(peer, (void *)(UINTPTR_MAX - 3), buf, 8, 0), TERN_ERR_OVERFLOW,
           "wraps");
    EXPECT(tern_put(peer, base, buf, SIZE_MAX, 0), TERN_ERR_OVERFLOW, "wraps");
    EXPECT(tern_get(buf, peer, base, size + 1, 0), TERN_ERR_RANGE, "outside");
    tern_event_t ev = (tern_event_t)&dummy;
    EXPECT(tern_put_nb(peer, base + size, buf, 8, &ev, NULL, 0), TERN_ERR_RANGE,
           "outside");
    MP_CHECK(ev == (tern_event_t)&dummy, "event set on error");
    EXPECT(tern_get_nb(buf, n, base, 8, &ev, 0), TERN_ERR_RANK, "rank");
    EXPECT(tern_put_nbi(peer, base - 1, buf, 1, 0), TERN_ERR_RANGE, "outside");
    EXPECT(tern_get_nbi(buf, peer, base + size, 1, 0), TERN_ERR_RANGE, "outside");
    EXPECT(tern_nbi_sync(0), TERN_ERR_INVALID, "level");
    /* Unknown flag bits, on the inline path and the out-of-line one. */
    unsigned bad = 0x80000000u;
    char *mine;
    MP_OK(tern_segment_query(me, (void **)&mine, &size));
    EXPECT(tern_put(peer, base, buf, 8, bad), TERN_ERR_INVALID, "flags 0x80000000");
    EXPECT(tern_put(me, mine, buf, 8, bad), TERN_ERR_INVALID, "not TERN_FLAG_");
    EXPECT(tern_get(buf, peer, base, 8, 0x4u), TERN_ERR_INVALID, "bits 0x4");
    EXPECT(tern_put_nb(peer, base, buf, 8, NULL, &ev, bad), TERN_ERR_INVALID, "flags");
    EXPECT(tern_get_nb(buf, me, mine, 8, &ev, bad), TERN_ERR_INVALID, "flags");
    EXPECT(tern_put_nbi(peer, base, buf, 8, bad), TERN_ERR_INVALID, "flags");
    EXPECT(tern_get_nbi(buf, me, mine, 8, bad), TERN_ERR_INVALID, "flags");
    MP_OK(tern_put(me, mine, buf, 8, TERN_FLAG_IMMEDIATE));
    /* Events and contexts that are not ones. */
    EXPECT(tern_event_wait((tern_event_t)&dummy), TERN_ERR_INVALID, "not an event");
    EXPECT(tern_ctx_quiet((tern_ctx_t)&dummy), TERN_ERR_INVALID, "not a context");
    EXPECT(tern_segment_query(n, NULL, &size), TERN_ERR_RANK, "rank");
    EXPECT(tern_wait_until_u64((uint64_t *)(buf + 1), TERN_CMP_EQ, 0), TERN_ERR_INVALID,
           "aligned");
    MP_CHECK(tern_ptr(n, base) == NULL && tern_ptr(peer, base + size) == NULL,
             "tern_ptr");
    const char *shm = getenv("TERN_SHM");
    int shm_on = !shm || !(!strcmp(shm, "0") || !strcasecmp(shm, "off") ||
                           !strcasecmp(shm, "no") || !strcasecmp(shm, "false"));
    /* The net configuration is one machine with TERN_SHM=off: the switch
     * changes the transport, not the nodes the program sees (issue 14). */
    MP_CHECK(shm_on || (tern_node_count() == 1 && tern_local_size() == n &&
                        tern_local_rank() == me && tern_node_of(peer) == 0),
             "TERN_SHM=off changed the node view: %d nodes, local rank %d of %d",
             tern_node_count(), tern_local_rank(), tern_local_size());
    MP_CHECK((tern_ptr(peer, base) != NULL) ==
                 (peer == me || (shm_on && tern_node_of(peer) == tern_node_of(me))),
             "tern_ptr is direct exactly for self and, with shared memory, peers on "
             "this node");
    MP_CHECK(strcmp(tern_strerror(TERN_ERR_RANGE), tern_strerror(TERN_ERR_RANK)) != 0,
             "strerror");
    MP_CHECK(strcmp(tern_strerror(12345), "unknown status code") == 0,
             "strerror unknown");

    /* Zero-byte transfers at the very end of a segment are fine. */
    MP_OK(tern_put(peer, base + size, buf, 0, 0));
    /* The job still works. */
    uint64_t *flag;
    MP_OK(tern_alloc_sym(8, (void **)&flag));
    uint64_t v = 42;
    MP_OK(tern_put(peer, tern_sym_addr(peer, flag), &v, 8, 0));
    MP_OK(tern_barrier());
    MP_CHECK(*flag == 42, "put after errors");

    MP_OK(tern_barrier());
    MP_OK(tern_finalize());
    EXPECT(tern_put(peer, base, buf, 8, 0), TERN_ERR_NOT_INIT, "after tern_finalize");
    EXPECT(tern_barrier(), TERN_ERR_NOT_INIT, "tern_barrier");
    EXPECT(tern_finalize(), TERN_ERR_NOT_INIT, "tern_finalize");
    EXPECT(tern_init(NULL, NULL, TERN_THREAD_SINGLE), TERN_ERR_INVALID, "again");
    if (me == 0)
        printf("bad_input: PASS on %d ranks\n", n);
    return 0;
}
