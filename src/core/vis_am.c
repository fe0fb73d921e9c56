/* Packed non-contiguous transfers with network peers. Puts: small pieces are gathered
 * straight into the buffer of a negotiated-payload Medium Request
 * (tern_am_prepare_request_medium), one message instead of one RMA per
 * piece; the target's handler scatters them into its segment and
 * acknowledges with a Short Reply that ends one part of the call's
 * completion object (as the atomics' active-message path does: the
 * object's address travels in the arguments, so no table is needed).
 *
 * Strided gets: a Medium Request carries the source side's description
 * (pieces [first, first+npieces) of it); the target's handler gathers those
 * pieces straight into a negotiated-payload Medium Reply, and the
 * initiator's Reply handler scatters them into the local destination and
 * ends one part of the completion object.
 *
 * Messages (all fields little-endian, read with memcpy: the payload has no
 * alignment guarantee):
 *   strided: vis_head_t, then ndims x {uint64 count, int64 dstride}, then
 *            the data of pieces [first, first+npieces) of the description
 *            in loop-nest order, elem bytes each;
 *   list:    vis_head_t, then npieces x {uint64 address, uint64 length,
 *            the bytes};
 *   get:     as strided without the data (dbase: the source of piece 0 in
 *            the target's segment, the strides those of the source); its
 *            Reply carries the data alone. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "base/log.h"
#include "core/am.h"
#include "core/vis.h"

enum { H_PUT = TN_AMH_VIS, H_ACK = TN_AMH_VIS + 1, H_GET = TN_AMH_VIS + 2 };
enum { H_GOT = TN_AMH_VIS + 3 };
enum { MSG_STRIDED = 1, MSG_LIST = 2, MSG_GET = 3 };

typedef struct vis_head {
    uint32_t kind;  /* MSG_* */
    uint32_t ndims; /* strided */
    uint64_t elem;  /* strided: bytes per piece */
    uint64_t first; /* strided: index of the first piece carried */
    uint64_t npieces;
    uint64_t dbase; /* strided: destination of piece 0 (offset applied) */
} vis_head_t;

#define DIM_BYTES   16u /* count and stride of one dimension */
#define ENTRY_BYTES 16u /* address and length of one list piece */

static size_t strided_head(int ndims)
{
    return sizeof(vis_head_t) + (size_t)ndims * DIM_BYTES;
}

size_t tn_vis_pack_limit(int rank, int ndims)
{
    size_t max = tn_am_medium_max(rank), head = strided_head(ndims);
    if (!tn_cfg.vis_pack_max || max <= head + ENTRY_BYTES)
        return 0;
    size_t room = max - head - ENTRY_BYTES; /* a list message's first piece */
    return tn_cfg.vis_pack_max < room ? tn_cfg.vis_pack_max : room;
}

/* ---- target ----------------------------------------------------------------- */

static int in_own_segment(uintptr_t a, size_t n)
{
    const tn_peer_info_t *seg = tn_core_info(tn_core.rank);
    uintptr_t base = (uintptr_t)seg->data_base;
    return a >= base && a - base <= seg->size && n <= seg->size - (a - base);
}

typedef struct cursor {
    const char *p;
} cursor_t;

static int unpack_piece(void *arg, char *dst, const char *src, size_t n)
{
    (void)src;
    cursor_t *c = arg;
    memcpy(dst, c->p, n);
    c->p += n;
    return 0;
}

/* The strided head at buf: the description (strides in dstride), its
 * first piece and count, the base, and where the dimensions end (*rest).
 * The initiator checked every range; a message that is wrong anyway (a
 * peer's bug) is refused as a whole rather than touch anything outside the
 * segment: TERN_OK or TERN_ERR_INVALID. */
static int parse_strided(const char *buf, size_t len, vis_head_t *h, tn_vis_desc_t *d,
                         const char **rest)
{
    if (len < sizeof *h)
        return TERN_ERR_INVALID;
    memcpy(h, buf, sizeof *h);
    const char *p = buf + sizeof *h, *end = buf + len;
    if (h->ndims > TN_VIS_MAXDIM || (size_t)(end - p) < h->ndims * DIM_BYTES)
        return TERN_ERR_INVALID;
    d->elem = h->elem;
    d->ndims = (int)h->ndims;
    d->soff = d->doff = 0;
    size_t pieces = 1;
    for (uint32_t k = 0; k < h->ndims; k++, p += DIM_BYTES) {
        memcpy(&d->count[k], p, 8);
        memcpy(&d->dstride[k], p + 8, 8);
        d->sstride[k] = 0;
        if (__builtin_mul_overflow(pieces, d->count[k], &pieces))
            return TERN_ERR_INVALID;
    }
    ptrdiff_t lo, hi;
    tn_vis_extent(d, 1, &lo, &hi);
    size_t data;
    if (h->first > pieces || h->npieces > pieces - h->first ||
        __builtin_mul_overflow(h->npieces, h->elem, &data) ||
        !in_own_segment((uintptr_t)h->dbase + (uintptr_t)lo, (size_t)(hi - lo)))
        return TERN_ERR_INVALID;
    *rest = p;
    return TERN_OK;
}

/* A packed put's message: written into this rank's segment, or TERN_ERR_INVALID
 * and nothing written. */
static int unpack(const char *buf, size_t len)
{
    vis_head_t h;
    if (len < sizeof h)
        return TERN_ERR_INVALID;
    memcpy(&h, buf, sizeof h);
    const char *p = buf + sizeof h, *end = buf + len;
    if (h.kind == MSG_STRIDED) {
        tn_vis_desc_t d;
        if (parse_strided(buf, len, &h, &d, &p) != TERN_OK ||
            h.npieces * h.elem != (size_t)(end - p))
            return TERN_ERR_INVALID;
        cursor_t c = {p};
        char *base = (char *)(uintptr_t)h.dbase;
        tn_vis_walk_range(&d, base, base, h.first, h.npieces, unpack_piece, &c);
        return TERN_OK;
    }
    if (h.kind != MSG_LIST)
        return TERN_ERR_INVALID;
    /* check every entry first: all or nothing */
    const char *q = p;
    for (uint64_t i = 0; i < h.npieces; i++) {
        uint64_t a, n;
        if ((size_t)(end - q) < ENTRY_BYTES)
            return TERN_ERR_INVALID;
        memcpy(&a, q, 8);
        memcpy(&n, q + 8, 8);
        q += ENTRY_BYTES;
        if ((size_t)(end - q) < n || !in_own_segment((uintptr_t)a, n))
            return TERN_ERR_INVALID;
        q += n;
    }
    if (q != end)
        return TERN_ERR_INVALID;
    for (uint64_t i = 0; i < h.npieces; i++) {
        uint64_t a, n;
        memcpy(&a, p, 8);
        memcpy(&n, p + 8, 8);
        memcpy((void *)(uintptr_t)a, p + ENTRY_BYTES, n);
        p += ENTRY_BYTES + n;
    }
    return TERN_OK;
}

/* Request args: [0] the initiator's completion object. Reply args: [0]
 * status, [1] the completion object. */
static void on_put(tern_am_token_t token, void *buf, size_t len, const tern_am_arg_t *a,
                   int nargs)
{
    int st = nargs == 1 ? unpack(buf, len) : TERN_ERR_INVALID;
    if (st != TERN_OK) {
        int src = -1;
        tern_am_source(token, &src);
        tn_error("a packed non-contiguous put from rank %d is malformed (%zu bytes): "
                 "not written",
                 src, len);
    }
    tern_am_arg_t r[2] = {(uint64_t)(uint32_t)st, nargs >= 1 ? a[0] : 0};
    tn_am_reply_internal("non-contiguous put (packed)", token, H_ACK, TN_AM_SHORT, NULL,
                         0, NULL, r, 2, 0);
}

static void on_ack(tern_am_token_t token, void *buf, size_t len, const tern_am_arg_t *a,
                   int nargs)
{
    (void)token;
    (void)buf;
    (void)len;
    if (nargs == 2 && a[1])
        tn_comp_done((tn_comp_t *)(uintptr_t)a[1], (int)(uint32_t)a[0]);
}

/* A packed get being answered: where the Reply's data goes, for every
 * message of the call; freed by the Reply of the last one. */
typedef struct vis_get {
    tn_vis_desc_t d; /* the call's description (source strides: the peer's) */
    char *dst;       /* destination base (d.doff not applied) */
    const char *src; /* source base in the peer's segment */
    tn_comp_t *rc;
    _Atomic size_t refs; /* messages not answered, + 1 while issuing */
} vis_get_t;

static void get_release(vis_get_t *g)
{
    if (atomic_fetch_sub(&g->refs, 1) == 1)
        free(g);
}

typedef struct pack_cursor {
    char *p;
} pack_cursor_t;

static int pack_piece(void *arg, char *dst, const char *src, size_t n)
{
    (void)dst;
    pack_cursor_t *c = arg;
    memcpy(c->p, src, n);
    c->p += n;
    return 0;
}

/* The walk of a get's source runs over the description's dst side. */
static int gather_piece(void *arg, char *at, const char *unused, size_t n)
{
    (void)unused;
    pack_cursor_t *c = arg;
    memcpy(c->p, at, n);
    c->p += n;
    return 0;
}

/* Request args: [0] the vis_get_t; Reply args: [0] it, [1] first piece,
 * [2] status. The pieces are gathered straight into the Reply's buffer. */
static void on_get(tern_am_token_t token, void *buf, size_t len, const tern_am_arg_t *a,
                   int nargs)
{
    vis_head_t h;
    tn_vis_desc_t d;
    const char *rest;
    int st = nargs == 1 && parse_strided(buf, len, &h, &d, &rest) == TERN_OK &&
                     h.kind == MSG_GET && rest == (const char *)buf + len
                 ? TERN_OK
                 : TERN_ERR_INVALID;
    tern_am_arg_t r[3] = {nargs >= 1 ? a[0] : 0, st == TERN_OK ? h.first : 0, 0};
    if (st == TERN_OK) {
        size_t data = h.npieces * h.elem;
        tern_am_sd_t sd;
        st = tern_am_prepare_reply_medium(token, NULL, data, data, 3, 0, &sd);
        if (st == TERN_OK) {
            pack_cursor_t c = {sd.buf};
            char *base = (char *)(uintptr_t)h.dbase;
            tn_vis_walk_range(&d, base, base, h.first, h.npieces, gather_piece, &c);
            tn_am_commit_reply_internal(&sd, H_GOT, data, r);
            return;
        }
    }
    int src = -1;
    tern_am_source(token, &src);
    tn_error("a packed non-contiguous get from rank %d %s (%zu bytes): not answered "
             "with data",
             src, st == TERN_ERR_INVALID ? "is malformed" : "could not be answered", len);
    r[2] = (uint64_t)(uint32_t)(st == TERN_OK ? TERN_ERR_INVALID : st);
    tn_am_reply_internal("non-contiguous get (packed)", token, H_GOT, TN_AM_SHORT, NULL,
                         0, NULL, r, 3, 0);
}

static void on_got(tern_am_token_t token, void *buf, size_t len, const tern_am_arg_t *a,
                   int nargs)
{
    (void)token;
    if (nargs != 3 || !a[0])
        return;
    vis_get_t *g = (vis_get_t *)(uintptr_t)a[0];
    int st = (int)(uint32_t)a[2];
    size_t first = a[1], np = g->d.elem ? len / g->d.elem : 0;
    if (st == TERN_OK && (len % g->d.elem || first + np > tn_vis_pieces(&g->d)))
        st = TERN_ERR_INVALID;
    if (st == TERN_OK) {
        cursor_t c = {buf};
        tn_vis_walk_range(&g->d, g->dst, g->src, first, np, unpack_piece, &c);
    }
    tn_comp_done(g->rc, st);
    get_release(g);
}

void tn_vis_am_init(void)
{
    tn_am_register_internal(H_PUT, on_put, "tern vis packed put");
    tn_am_register_internal(H_ACK, on_ack, "tern vis packed put ack");
    tn_am_register_internal(H_GET, on_get, "tern vis packed get");
    tn_am_register_internal(H_GOT, on_got, "tern vis packed get data");
}

/* ---- initiator ----------------------------------------------------------- */

/* Reserves a message to is->rank of min..max bytes; TERN_OK with sd set. */
static int open_msg(tn_vis_issue_t *is, size_t min, size_t max, tern_am_sd_t *sd)
{
    int rc = tern_am_prepare_request_medium(is->rank, NULL, min, max, 1, is->flags, sd);
    if (rc != TERN_OK)
        is->err = rc;
    return rc;
}

/* Sends the message, one part of done.rc ending with its acknowledgement.
 * The payload was copied into the runtime's buffer: the sources are free
 * at once, so done.lc gets no part. */
static int send_msg(tn_vis_issue_t *is, tern_am_sd_t *sd, size_t len)
{
    tern_am_arg_t a[1] = {(uint64_t)(uintptr_t)is->done.rc};
    tn_comp_add(is->done.rc, 1);
    int rc = tn_am_commit_request_internal(sd, H_PUT, len, a);
    if (rc != TERN_OK) {
        tn_comp_add(is->done.rc, -1);
        is->err = rc;
        return rc;
    }
    is->started++;
    is->flags &= ~TERN_FLAG_IMMEDIATE;
    return TERN_OK;
}

void tn_vis_pack_strided(const tn_vis_desc_t *d, char *dst, const char *src,
                         tn_vis_issue_t *is)
{
    size_t total = tn_vis_pieces(d), head = strided_head(d->ndims);
    size_t per = (tn_am_medium_max(is->rank) - head) / d->elem; /* >= 1: see limit */
    for (size_t first = 0; first < total;) {
        size_t want = total - first < per ? total - first : per;
        tern_am_sd_t sd;
        if (open_msg(is, head + d->elem, head + want * d->elem, &sd) != TERN_OK)
            return;
        size_t np = (sd.len - head) / d->elem;
        np = np < want ? np : want;
        vis_head_t h = {MSG_STRIDED, (uint32_t)d->ndims,
                        d->elem,     first,
                        np,          (uint64_t)(uintptr_t)(dst + d->doff)};
        char *p = sd.buf;
        memcpy(p, &h, sizeof h);
        p += sizeof h;
        for (int k = 0; k < d->ndims; k++, p += DIM_BYTES) {
            memcpy(p, &d->count[k], 8);
            memcpy(p + 8, &d->dstride[k], 8);
        }
        pack_cursor_t c = {p};
        /* the walk adds doff/soff itself: give it the bare bases */
        tn_vis_walk_range(d, dst, src, first, np, pack_piece, &c);
        if (send_msg(is, &sd, head + np * d->elem) != TERN_OK)
            return;
        first += np;
    }
}

void tn_vis_pack_strided_get(const tn_vis_desc_t *d, char *dst, const char *src,
                             tn_vis_issue_t *is)
{
    size_t total = tn_vis_pieces(d), head = strided_head(d->ndims);
    size_t per = tn_am_medium_max(is->rank) / d->elem; /* >= 1: see limit */
    vis_get_t *g = malloc(sizeof *g);
    if (!g) {
        is->err = TERN_ERR_NOMEM;
        return;
    }
    g->d = *d;
    g->dst = dst;
    g->src = src;
    g->rc = is->done.rc;
    atomic_init(&g->refs, 1);
    char msg[sizeof(vis_head_t) + TN_VIS_MAXDIM * DIM_BYTES];
    for (int k = 0; k < d->ndims; k++) {
        memcpy(msg + sizeof(vis_head_t) + (size_t)k * DIM_BYTES, &d->count[k], 8);
        memcpy(msg + sizeof(vis_head_t) + (size_t)k * DIM_BYTES + 8, &d->sstride[k], 8);
    }
    tern_am_arg_t a[1] = {(uint64_t)(uintptr_t)g};
    for (size_t first = 0; first < total;) {
        size_t np = total - first < per ? total - first : per;
        vis_head_t h = {MSG_GET, (uint32_t)d->ndims,
                        d->elem, first,
                        np,      (uint64_t)(uintptr_t)(src + d->soff)};
        memcpy(msg, &h, sizeof h);
        tn_comp_add(is->done.rc, 1);
        atomic_fetch_add(&g->refs, 1);
        int rc = tn_am_request_internal("non-contiguous get (packed)", is->rank, H_GET,
                                        TN_AM_MEDIUM, msg, head, NULL, a, 1, is->flags);
        if (rc != TERN_OK) {
            tn_comp_add(is->done.rc, -1);
            atomic_fetch_sub(&g->refs, 1);
            is->err = rc;
            break;
        }
        is->started++;
        is->flags &= ~TERN_FLAG_IMMEDIATE;
        first += np;
    }
    get_release(g);
}

int tn_vis_pack_piece(void *packer, char *dst, const char *src, size_t n)
{
    tn_vis_packer_t *p = packer;
    while (n > 0) {
        if (!p->open) {
            size_t max = tn_am_medium_max(p->is->rank);
            if (open_msg(p->is, sizeof(vis_head_t) + ENTRY_BYTES + 1, max, &p->sd) !=
                TERN_OK)
                return 1;
            p->open = 1;
            p->used = sizeof(vis_head_t);
            p->npieces = 0;
        }
        size_t room = p->sd.len - p->used;
        if (room <= ENTRY_BYTES) {
            tn_vis_pack_flush(p);
            if (p->is->err != TERN_OK)
                return 1;
            continue;
        }
        size_t take = n < room - ENTRY_BYTES ? n : room - ENTRY_BYTES;
        uint64_t a = (uint64_t)(uintptr_t)dst, len = take;
        char *q = (char *)p->sd.buf + p->used;
        memcpy(q, &a, 8);
        memcpy(q + 8, &len, 8);
        memcpy(q + ENTRY_BYTES, src, take);
        p->used += ENTRY_BYTES + take;
        p->npieces++;
        dst += take;
        src += take;
        n -= take;
    }
    return 0;
}

void tn_vis_pack_flush(tn_vis_packer_t *p)
{
    if (!p->open)
        return;
    p->open = 0;
    vis_head_t h = {MSG_LIST, 0, 0, 0, p->npieces, 0};
    memcpy(p->sd.buf, &h, sizeof h);
    send_msg(p->is, &p->sd, p->used);
}
