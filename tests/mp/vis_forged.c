/* Forged packed non-contiguous messages (core/vis_wire.h) sent straight to
 * the internal handlers of the next rank, as a buggy or hostile peer
 * would: descriptions outside the target's segment, piece ranges past the
 * description, data that does not match the counts, too many dimensions,
 * list pieces outside the segment after good ones, bad accumulate types
 * and alignment. Each is refused at the target as a whole (status
 * TERN_ERR_INVALID back, nothing written: a good piece before a bad one is
 * not written either), and the target logs why. Linked with the library's
 * internals to reach the handlers. */
#include <stdint.h>
#include <string.h>

#include "base/comp.h"
#include "core/am.h"
#include "core/event.h"
#include "core/vis.h"
#include "core/vis_wire.h"
#include "mp_util.h"

#define ZONE 4096

static char msg[4096];
static size_t len;

/* The Replies of forged gets end the test's own completion object, in
 * place of the initiator's record (this program sends no real get). */
static void on_got(tern_am_token_t token, void *buf, size_t n, const tern_am_arg_t *a,
                   int nargs)
{
    (void)token;
    (void)buf;
    (void)n;
    if (nargs >= 3 && a[0])
        tn_comp_done((tn_comp_t *)(uintptr_t)a[0], n && !a[2] ? 1 : (int)(uint32_t)a[2]);
}

static void head(uint32_t kind, uint32_t ndims, uint64_t elem, uint64_t first,
                 uint64_t npieces, const void *dbase)
{
    tn_vis_head_t h = {kind, ndims, elem, first, npieces, (uint64_t)(uintptr_t)dbase};
    memcpy(msg, &h, sizeof h);
    len = sizeof h;
}
static void u64(uint64_t v)
{
    memcpy(msg + len, &v, 8);
    len += 8;
}
static void bytes(size_t n)
{
    memset(msg + len, 0xA7, n);
    len += n;
}

/* Sends the message to handler id at rank with the completion object
 * (and a type for accumulates) and waits for the answer. */
static int send(int rank, int id, int type)
{
    tn_comp_t c;
    tn_comp_init(&c, 1);
    tern_am_arg_t a[2] = {(uint64_t)(uintptr_t)&c, (uint64_t)type};
    int rc = tn_am_request_internal("vis_forged", rank, id, TN_AM_MEDIUM, msg, len, NULL,
                                    a, id == TN_VISH_ACC ? 2 : 1, 0);
    MP_CHECK(rc == TERN_OK, "sending the forged message: %s", tern_strerror(rc));
    return tn_comp_wait(&c);
}

static int ncases;
static const char *whys[32];

#define FORGED(id, type, why)                                                        \
    do {                                                                             \
        int st_ = send(peer, id, type);                                              \
        MP_CHECK(st_ == TERN_ERR_INVALID, "forged message %d (%s) answered %d (%s)", \
                 ncases, why, st_, tern_strerror(st_));                              \
        whys[ncases++] = why;                                                        \
    } while (0)

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size(), peer = (me + 1) % n;
    /* Tern registers these only when some peer is on the network */
    tn_am_done_init(); /* the status Replies of puts and accumulates */
    tn_vis_am_init();
    tn_am_register_internal(TN_VISH_GOT, on_got, "vis_forged get reply");
    tn_am_register_internal(TN_VISH_LGOT, on_got, "vis_forged list get reply");
    char *zone, *base;
    size_t size;
    MP_OK(tern_alloc_sym(ZONE, (void **)&zone));
    memset(zone, 0x5a, ZONE);
    MP_OK(tern_segment_query(peer, (void **)&base, &size));
    char *rz = tern_sym_addr(peer, zone);
    MP_OK(tern_barrier());

    /* Every rank forges to the next while serving its previous one; the
     * targets' complaints go to stderr, captured until the barrier. */
    mp_capture_begin();

    /* strided puts */
    head(TN_VISM_STRIDED, 1, 8, 0, 2, base + size + 64);
    u64(2);
    u64(8);
    bytes(16);
    FORGED(TN_VISH_PUT, 0, "its description reaches outside this rank's segment");
    head(TN_VISM_STRIDED, 1, 8, 0, 2, rz);
    u64(2);
    u64(size); /* the second piece past the end */
    bytes(16);
    FORGED(TN_VISH_PUT, 0, "its description reaches outside this rank's segment");
    head(TN_VISM_STRIDED, 1, 8, 2, 3, rz); /* pieces 2..4 of 4 */
    u64(4);
    u64(16);
    bytes(24);
    FORGED(TN_VISH_PUT, 0, "its piece range is past the description's pieces");
    head(TN_VISM_STRIDED, 1, 8, 0, 4, rz); /* 4 pieces, 3 pieces of data */
    u64(4);
    u64(16);
    bytes(24);
    FORGED(TN_VISH_PUT, 0, "its data is not npieces x elem bytes");
    head(TN_VISM_STRIDED, 33, 8, 0, 1, rz);
    for (int k = 0; k < 33; k++) {
        u64(1);
        u64(8);
    }
    bytes(8);
    FORGED(TN_VISH_PUT, 0, "more than 32 dimensions");
    head(TN_VISM_STRIDED, 2, 8, 0, 1, rz);
    u64((uint64_t)1 << 40);
    u64(0);
    u64((uint64_t)1 << 40);
    u64(0);
    bytes(8);
    FORGED(TN_VISH_PUT, 0, "its counts overflow");
    head(TN_VISM_STRIDED, 2, 8, 0, 1, rz);
    u64(1u << 20);
    u64((uint64_t)INT64_MAX / 4);
    u64(16);
    u64(8);
    bytes(8);
    FORGED(TN_VISH_PUT, 0, "its extent wraps around");

    /* list puts: a good piece, then a bad one; nothing may be written */
    head(TN_VISM_LIST, 0, 0, 0, 2, NULL);
    u64((uint64_t)(uintptr_t)rz);
    u64(8);
    bytes(8);
    u64((uint64_t)(uintptr_t)(base - 8));
    u64(16);
    bytes(16);
    FORGED(TN_VISH_PUT, 0, "a piece lies outside this rank's segment");
    head(TN_VISM_LIST, 0, 0, 0, 1, NULL);
    u64((uint64_t)(uintptr_t)rz);
    u64(64); /* 64 bytes announced, 8 carried */
    bytes(8);
    FORGED(TN_VISH_PUT, 0, "shorter than its pieces");
    head(TN_VISM_LIST, 0, 0, 0, 1, NULL);
    u64((uint64_t)(uintptr_t)rz);
    u64(8);
    bytes(8 + 5);
    FORGED(TN_VISH_PUT, 0, "longer than its pieces");
    head(77, 0, 0, 0, 0, NULL);
    FORGED(TN_VISH_PUT, 0, "of an unknown kind");
    len = 10;
    FORGED(TN_VISH_PUT, 0, "shorter than its head");

    /* gets: sources outside the segment */
    head(TN_VISM_GET, 1, 8, 0, 2, rz);
    u64(2);
    u64(-(int64_t)(rz - base) - 64);
    FORGED(TN_VISH_GET, 0, "its description reaches outside this rank's segment");
    head(TN_VISM_LIST_GET, 0, 0, 0, 2, NULL);
    u64((uint64_t)(uintptr_t)rz);
    u64(8);
    u64((uint64_t)(uintptr_t)(base + size));
    u64(1);
    FORGED(TN_VISH_LGET, 0, "a piece lies outside this rank's segment");

    /* accumulates */
    head(TN_VISM_ACC, 1, 8, 0, 1, rz);
    u64(1);
    u64(8);
    bytes(8);
    FORGED(TN_VISH_ACC, TERN_AT_U64, "its type is not one accumulate takes");
    head(TN_VISM_ACC, 1, 8, 0, 2, rz + 4);
    u64(2);
    u64(16);
    bytes(16);
    FORGED(TN_VISH_ACC, TERN_AT_I64, "its elements are not aligned to their type");
    head(TN_VISM_ACC, 1, 8, 0, 2, rz);
    u64(2);
    u64(12);
    bytes(16);
    FORGED(TN_VISH_ACC, TERN_AT_DOUBLE, "its elements are not aligned to their type");
    head(TN_VISM_ACC, 1, 8, 0, 2, base + size - 8);
    u64(2);
    u64(8);
    bytes(16);
    FORGED(TN_VISH_ACC, TERN_AT_I64,
           "its description reaches outside this rank's segment");

    /* a good message after all that is served */
    head(TN_VISM_STRIDED, 1, 8, 0, 2, rz + 64);
    u64(2);
    u64(16);
    bytes(16);
    MP_OK(send(peer, TN_VISH_PUT, 0));

    MP_OK(tern_barrier());
    const char *log = mp_capture_end();
    for (int i = 0; i < ncases; i++)
        MP_CHECK(strstr(log, whys[i]) != NULL, "the target's log lacks '%s':\n%s",
                 whys[i], log);
    MP_CHECK(strstr(log, "is malformed") && strstr(log, "refused, nothing written"),
             "the log says what was refused:\n%s", log);
    for (int i = 0; i < ZONE; i++) {
        unsigned char want = i >= 64 && i < 72 ? 0xA7 : i >= 80 && i < 88 ? 0xA7 : 0x5a;
        MP_CHECK((unsigned char)zone[i] == want,
                 "byte %d of the zone is 0x%02x, not 0x%02x", i, (unsigned char)zone[i],
                 want);
    }
    if (me == 0)
        printf("vis_forged: %d forged messages refused\n", ncases);
    return mp_finish("vis_forged");
}
