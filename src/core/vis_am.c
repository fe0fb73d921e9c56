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
 * Vector and indexed gets: Requests carry {address, length} of sources
 * at the target, which gathers them into Medium Replies; the initiator's
 * record of the call's pieces (tn_vis_lget_t) says where they go.
 *
 * Strided accumulate: as a strided put of scaled values, applied under
 * the target's stripe locks.
 *
 * The messages are laid out in core/vis_wire.h. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "base/compiler.h"
#include "base/log.h"
#include "core/am.h"
#include "core/atomic.h"
#include "core/vis.h"
#include "core/vis_wire.h"

static size_t strided_head(int ndims)
{
    return sizeof(tn_vis_head_t) + (size_t)ndims * TN_VIS_DIM_BYTES;
}

size_t tn_vis_pack_limit(int rank, int ndims)
{
    size_t max = tn_am_medium_max(rank), head = strided_head(ndims);
    if (!tn_cfg.vis_pack_max || max <= head + TN_VIS_ENTRY_BYTES)
        return 0;
    size_t room = max - head - TN_VIS_ENTRY_BYTES; /* a list message's first piece */
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

/* 1 when no index tuple of d's destination side wraps around. */
static int extent_ok(const tn_vis_desc_t *d)
{
    ptrdiff_t ext[2] = {0, 0}, span;
    for (int k = 0; k < d->ndims; k++) {
        if (d->count[k] == 0)
            continue;
        if (__builtin_mul_overflow((ptrdiff_t)(d->count[k] - 1), d->dstride[k], &span) ||
            __builtin_add_overflow(ext[span >= 0], span, &ext[span >= 0]))
            return 0;
    }
    return !__builtin_add_overflow(ext[1], (ptrdiff_t)d->elem, &span);
}

/* The strided head at buf: the description (strides in dstride), its
 * first piece and count, the base, and where the dimensions end (*rest).
 * The initiator checked every range; a message that is wrong anyway (a
 * peer's bug, or forged) is refused as a whole rather than touch anything
 * outside the segment: NULL when good, else what is wrong with it. */
static const char *parse_strided(const char *buf, size_t len, tn_vis_head_t *h,
                                 tn_vis_desc_t *d, const char **rest)
{
    if (len < sizeof *h)
        return "shorter than its head";
    memcpy(h, buf, sizeof *h);
    const char *p = buf + sizeof *h, *end = buf + len;
    if (h->ndims > TN_VIS_MAXDIM)
        return "more than 32 dimensions";
    if ((size_t)(end - p) < h->ndims * TN_VIS_DIM_BYTES)
        return "shorter than its dimensions";
    d->elem = h->elem;
    d->ndims = (int)h->ndims;
    d->soff = d->doff = 0;
    size_t pieces = 1;
    for (uint32_t k = 0; k < h->ndims; k++, p += TN_VIS_DIM_BYTES) {
        memcpy(&d->count[k], p, 8);
        memcpy(&d->dstride[k], p + 8, 8);
        d->sstride[k] = 0;
        if (d->count[k] > PTRDIFF_MAX ||
            __builtin_mul_overflow(pieces, d->count[k], &pieces))
            return "its counts overflow";
    }
    size_t data;
    if (h->first > pieces || h->npieces > pieces - h->first)
        return "its piece range is past the description's pieces";
    if (__builtin_mul_overflow(h->npieces, h->elem, &data) || h->elem > PTRDIFF_MAX)
        return "its piece size overflows";
    if (!extent_ok(d))
        return "its extent wraps around";
    ptrdiff_t lo, hi;
    tn_vis_extent(d, 1, &lo, &hi);
    if (!in_own_segment((uintptr_t)h->dbase + (uintptr_t)lo, (size_t)(hi - lo)))
        return "its description reaches outside this rank's segment";
    *rest = p;
    return NULL;
}

/* The {address, length} entries of a list message from p to end (with
 * data bytes after each when data is 1): all inside this rank's segment,
 * exactly filling the message. NULL when good; *sum: their lengths. */
static const char *check_entries(const char *p, const char *end, uint64_t n, int data,
                                 size_t *sum)
{
    size_t t = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t a, len;
        if ((size_t)(end - p) < TN_VIS_ENTRY_BYTES)
            return "shorter than its pieces";
        memcpy(&a, p, 8);
        memcpy(&len, p + 8, 8);
        p += TN_VIS_ENTRY_BYTES;
        if (data && (size_t)(end - p) < len)
            return "shorter than its pieces";
        if (!in_own_segment((uintptr_t)a, len))
            return "a piece lies outside this rank's segment";
        if (__builtin_add_overflow(t, len, &t))
            return "its lengths overflow";
        if (data)
            p += len;
    }
    if (p != end)
        return "longer than its pieces";
    *sum = t;
    return NULL;
}

/* A packed put's message: written into this rank's segment, or what is
 * wrong with it and nothing written. Also the handler of combined nbi
 * puts (core/put_agg.c), whose messages are list messages. */
const char *tn_vis_unpack_put(const char *buf, size_t len)
{
    tn_vis_head_t h;
    if (len < sizeof h)
        return "shorter than its head";
    memcpy(&h, buf, sizeof h);
    const char *p = buf + sizeof h, *end = buf + len, *why;
    if (h.kind == TN_VISM_STRIDED) {
        tn_vis_desc_t d;
        if ((why = parse_strided(buf, len, &h, &d, &p)))
            return why;
        if (h.npieces * h.elem != (size_t)(end - p))
            return "its data is not npieces x elem bytes";
        cursor_t c = {p};
        char *base = (char *)(uintptr_t)h.dbase;
        TN_PEER_WRITES_BEGIN(); /* the sender's data, as a NIC's write */
        tn_vis_walk_range(&d, base, base, h.first, h.npieces, unpack_piece, &c);
        TN_PEER_WRITES_END();
        return NULL;
    }
    if (h.kind != TN_VISM_LIST)
        return "of an unknown kind";
    /* check every entry first: all or nothing */
    size_t sum;
    if ((why = check_entries(p, end, h.npieces, 1, &sum)))
        return why;
    TN_PEER_WRITES_BEGIN(); /* the sender's data, as a NIC's write */
    for (uint64_t i = 0; i < h.npieces; i++) {
        uint64_t a, n;
        memcpy(&a, p, 8);
        memcpy(&n, p + 8, 8);
        memcpy((void *)(uintptr_t)a, p + TN_VIS_ENTRY_BYTES, n);
        p += TN_VIS_ENTRY_BYTES + n;
    }
    TN_PEER_WRITES_END();
    return NULL;
}

static TN_NOINLINE void malformed(tern_am_token_t token, const char *what, size_t len,
                                  const char *why)
{
    int src = -1;
    tern_am_source(token, &src);
    tn_error("a packed non-contiguous %s from rank %d is malformed (%zu bytes): %s; "
             "refused, nothing written",
             what, src, len, why);
}

/* A packed get the target refuses: logged, then answered with status st in
 * r[2] (a Short Reply of nr args to handler), so the initiator's
 * operation completes with the error. */
static TN_NOINLINE void refuse_get(tern_am_token_t token, size_t len, const char *why,
                                   int st, int handler, tern_am_arg_t *r, int nr)
{
    malformed(token, "get", len, why);
    r[2] = (uint64_t)(uint32_t)st;
    tn_am_reply_internal("non-contiguous get (packed)", token, handler, TN_AM_SHORT, NULL,
                         0, NULL, r, nr, 0);
}

/* Request args: [0] the initiator's completion object. Reply args: [0]
 * status, [1] the completion object. */
static void on_put(tern_am_token_t token, void *buf, size_t len, const tern_am_arg_t *a,
                   int nargs)
{
    const char *why =
        nargs == 1 ? tn_vis_unpack_put(buf, len) : "its argument count is not 1";
    if (why)
        malformed(token, "put", len, why);
    int st = why ? TERN_ERR_INVALID : TERN_OK;
    tn_am_reply_done("non-contiguous put (packed)", token, st, nargs >= 1 ? a[0] : 0);
}

/* Strided accumulate: the pieces added under this rank's stripe locks. */
typedef struct acc_cursor {
    const char *p;
    uintptr_t base; /* this rank's segment */
    tn_acc_run_t run;
} acc_cursor_t;

static int acc_piece(void *arg, char *dst, const char *unused, size_t n)
{
    (void)unused;
    acc_cursor_t *c = arg;
    size_t size = tn_atype_size(c->run.type);
    tn_acc_run_piece(&c->run, dst, (uintptr_t)dst - c->base, c->p, n / size);
    c->p += n;
    return 0;
}

/* Request: the strided message (TN_VISM_ACC) of already scaled values; args [0]
 * the completion object, [1] the type. Reply: tn_am_reply_done. */
static void on_acc(tern_am_token_t token, void *buf, size_t len, const tern_am_arg_t *a,
                   int nargs)
{
    tn_vis_head_t h;
    tn_vis_desc_t d;
    const char *p = NULL, *why = NULL;
    int type = nargs == 2 ? (int)a[1] : -1;
    size_t size = tn_acc_type_ok(type) ? tn_atype_size(type) : 8;
    if (nargs != 2)
        why = "its argument count is not 2";
    else if (!tn_acc_type_ok(type))
        why = "its type is not one accumulate takes";
    else if (!(why = parse_strided(buf, len, &h, &d, &p))) {
        int aligned = h.elem % size == 0 && h.elem && h.dbase % size == 0;
        for (int k = 0; k < d.ndims; k++)
            aligned &= (uint64_t)d.dstride[k] % size == 0;
        if (h.kind != TN_VISM_ACC)
            why = "not an accumulate";
        else if (!aligned)
            why = "its elements are not aligned to their type";
        else if (h.npieces * h.elem != (size_t)((const char *)buf + len - p))
            why = "its data is not npieces x elem bytes";
    }
    if (why) {
        malformed(token, "accumulate", len, why);
    } else {
        const tn_peer_info_t *seg = tn_core_info(tn_core.rank);
        acc_cursor_t c = {
            p, (uintptr_t)seg->data_base, {type, NULL, tn_acc_locks(tn_core.rank), NULL}};
        char *base = (char *)(uintptr_t)h.dbase;
        tn_vis_walk_range(&d, base, base, h.first, h.npieces, acc_piece, &c);
        tn_acc_run_end(&c.run);
    }
    int st = why ? TERN_ERR_INVALID : TERN_OK;
    tn_am_reply_done("strided accumulate (handler)", token, st, nargs >= 1 ? a[0] : 0);
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
    tn_vis_head_t h;
    tn_vis_desc_t d;
    const char *rest = NULL;
    const char *why = nargs != 1 ? "its argument count is not 1"
                                 : parse_strided(buf, len, &h, &d, &rest);
    if (!why && h.kind != TN_VISM_GET)
        why = "not a get";
    if (!why && rest != (const char *)buf + len)
        why = "longer than its description";
    tern_am_arg_t r[3] = {nargs >= 1 ? a[0] : 0, why ? 0 : h.first, 0};
    int st = TERN_ERR_INVALID;
    if (!why) {
        size_t data = h.npieces * h.elem;
        tern_am_sd_t sd;
        st = tern_am_prepare_reply_medium(token, NULL, data, data, 3, 0, &sd);
        if (st == TERN_OK) {
            pack_cursor_t c = {sd.buf};
            char *base = (char *)(uintptr_t)h.dbase;
            tn_vis_walk_range(&d, base, base, h.first, h.npieces, gather_piece, &c);
            tn_am_commit_reply_internal(&sd, TN_VISH_GOT, data, r);
            return;
        }
        why = "its data does not fit a Medium Reply";
    }
    refuse_get(token, len, why, st, TN_VISH_GOT, r, 3);
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

/* A packed vector or indexed get: its pieces, scattered by the Replies. */
struct tn_vis_lget {
    tn_comp_t *rc;
    _Atomic size_t refs; /* messages not answered, + 1 while issuing */
    size_t n;
    void (*fin)(void *); /* called once every message is answered, or NULL */
    void *fin_arg;
    tn_vis_lpiece_t p[];
};

tn_vis_lget_t *tn_vis_lget_new(size_t n, tn_vis_lpiece_t **pieces)
{
    if (n > (SIZE_MAX - sizeof(tn_vis_lget_t)) / sizeof(tn_vis_lpiece_t))
        return NULL;
    tn_vis_lget_t *g = malloc(sizeof *g + n * sizeof(tn_vis_lpiece_t));
    if (!g)
        return NULL;
    g->n = n;
    g->fin = NULL;
    g->fin_arg = NULL;
    *pieces = g->p;
    return g;
}

void tn_vis_lget_on_done(tn_vis_lget_t *g, void (*fn)(void *), void *arg)
{
    g->fin = fn;
    g->fin_arg = arg;
}

static void lget_release(tn_vis_lget_t *g)
{
    if (atomic_fetch_sub(&g->refs, 1) == 1) {
        if (g->fin) /* after every message's tn_comp_done */
            g->fin(g->fin_arg);
        free(g);
    }
}

/* Request: tn_vis_head_t (first, npieces) and npieces x {address, length} of
 * sources here; args [0] the initiator's record. Reply: the bytes in
 * order; args [0] the record, [1] first, [2] status, [3] npieces. */
static void on_lget(tern_am_token_t token, void *buf, size_t len, const tern_am_arg_t *a,
                    int nargs)
{
    tn_vis_head_t h;
    size_t sum = 0;
    const char *why = NULL;
    if (nargs != 1)
        why = "its argument count is not 1";
    else if (len < sizeof h)
        why = "shorter than its head";
    else {
        memcpy(&h, buf, sizeof h);
        why = h.kind != TN_VISM_LIST_GET
                  ? "not a list get"
                  : check_entries((const char *)buf + sizeof h, (const char *)buf + len,
                                  h.npieces, 0, &sum);
    }
    tern_am_arg_t r[4] = {nargs >= 1 ? a[0] : 0, why ? 0 : h.first, 0,
                          why ? 0 : h.npieces};
    int st = TERN_ERR_INVALID;
    if (!why) {
        tern_am_sd_t sd;
        st = tern_am_prepare_reply_medium(token, NULL, sum, sum, 4, 0, &sd);
        if (st == TERN_OK) {
            char *out = sd.buf;
            const char *e = (const char *)buf + sizeof h;
            for (uint64_t i = 0; i < h.npieces; i++, e += TN_VIS_ENTRY_BYTES) {
                uint64_t at, n;
                memcpy(&at, e, 8);
                memcpy(&n, e + 8, 8);
                memcpy(out, (const void *)(uintptr_t)at, n);
                out += n;
            }
            tn_am_commit_reply_internal(&sd, TN_VISH_LGOT, sum, r);
            return;
        }
        why = "its data does not fit a Medium Reply";
    }
    refuse_get(token, len, why, st, TN_VISH_LGOT, r, 4);
}

static void on_lgot(tern_am_token_t token, void *buf, size_t len, const tern_am_arg_t *a,
                    int nargs)
{
    (void)token;
    if (nargs != 4 || !a[0])
        return;
    tn_vis_lget_t *g = (tn_vis_lget_t *)(uintptr_t)a[0];
    int st = (int)(uint32_t)a[2];
    size_t first = a[1], np = a[3], sum = 0;
    if (st == TERN_OK && (first > g->n || np > g->n - first))
        st = TERN_ERR_INVALID;
    for (size_t i = 0; st == TERN_OK && i < np; i++)
        sum += g->p[first + i].n;
    if (st == TERN_OK && sum != len)
        st = TERN_ERR_INVALID;
    if (st == TERN_OK) {
        const char *in = buf;
        for (size_t i = 0; i < np; i++) {
            memcpy(g->p[first + i].dst, in, g->p[first + i].n);
            in += g->p[first + i].n;
        }
    }
    tn_comp_done(g->rc, st);
    lget_release(g);
}

void tn_vis_am_init(void)
{
    tn_am_register_internal(TN_VISH_PUT, on_put, "tern vis packed put");
    tn_am_register_internal(TN_VISH_GET, on_get, "tern vis packed get");
    tn_am_register_internal(TN_VISH_GOT, on_got, "tern vis packed get data");
    tn_am_register_internal(TN_VISH_LGET, on_lget, "tern vis packed list get");
    tn_am_register_internal(TN_VISH_LGOT, on_lgot, "tern vis packed list get data");
    tn_am_register_internal(TN_VISH_ACC, on_acc, "tern vis strided accumulate");
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
    int rc = tn_am_commit_request_internal(sd, TN_VISH_PUT, len, a);
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
        tn_vis_head_t h = {TN_VISM_STRIDED,
                           (uint32_t)d->ndims,
                           d->elem,
                           first,
                           np,
                           (uint64_t)(uintptr_t)(dst + d->doff)};
        char *p = sd.buf;
        memcpy(p, &h, sizeof h);
        p += sizeof h;
        for (int k = 0; k < d->ndims; k++, p += TN_VIS_DIM_BYTES) {
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

typedef struct scale_cursor {
    char *p;
    int type;
    const tn_aval_t *scale;
} scale_cursor_t;

static int scale_piece(void *arg, char *dst, const char *src, size_t n)
{
    (void)dst;
    scale_cursor_t *c = arg;
    tn_acc_scale(c->type, c->p, src, n / tn_atype_size(c->type), c->scale);
    c->p += n;
    return 0;
}

void tn_vis_pack_acc(const tn_vis_desc_t *d, char *dst, const char *src, int type,
                     const void *scale, tn_vis_issue_t *is)
{
    size_t total = tn_vis_pieces(d), head = strided_head(d->ndims);
    size_t per = (tn_am_medium_max(is->rank) - head) / d->elem; /* >= 1: see limit */
    tern_am_arg_t a[2] = {(uint64_t)(uintptr_t)is->done.rc, (uint64_t)type};
    for (size_t first = 0; first < total;) {
        size_t want = total - first < per ? total - first : per;
        tern_am_sd_t sd;
        int rc = tern_am_prepare_request_medium(is->rank, NULL, head + d->elem,
                                                head + want * d->elem, 2, is->flags, &sd);
        if (rc != TERN_OK) {
            is->err = rc;
            return;
        }
        size_t np = (sd.len - head) / d->elem;
        np = np < want ? np : want;
        tn_vis_head_t h = {TN_VISM_ACC, (uint32_t)d->ndims,
                           d->elem,     first,
                           np,          (uint64_t)(uintptr_t)(dst + d->doff)};
        char *p = sd.buf;
        memcpy(p, &h, sizeof h);
        p += sizeof h;
        for (int k = 0; k < d->ndims; k++, p += TN_VIS_DIM_BYTES) {
            memcpy(p, &d->count[k], 8);
            memcpy(p + 8, &d->dstride[k], 8);
        }
        scale_cursor_t c = {p, type, scale};
        tn_vis_walk_range(d, dst, src, first, np, scale_piece, &c);
        tn_comp_add(is->done.rc, 1);
        rc = tn_am_commit_request_internal(&sd, TN_VISH_ACC, head + np * d->elem, a);
        if (rc != TERN_OK) {
            tn_comp_add(is->done.rc, -1);
            is->err = rc;
            return;
        }
        is->started++;
        is->flags &= ~TERN_FLAG_IMMEDIATE;
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
    char msg[sizeof(tn_vis_head_t) + TN_VIS_MAXDIM * TN_VIS_DIM_BYTES];
    for (int k = 0; k < d->ndims; k++) {
        memcpy(msg + sizeof(tn_vis_head_t) + (size_t)k * TN_VIS_DIM_BYTES, &d->count[k],
               8);
        memcpy(msg + sizeof(tn_vis_head_t) + (size_t)k * TN_VIS_DIM_BYTES + 8,
               &d->sstride[k], 8);
    }
    tern_am_arg_t a[1] = {(uint64_t)(uintptr_t)g};
    for (size_t first = 0; first < total;) {
        size_t np = total - first < per ? total - first : per;
        tn_vis_head_t h = {TN_VISM_GET, (uint32_t)d->ndims,
                           d->elem,     first,
                           np,          (uint64_t)(uintptr_t)(src + d->soff)};
        memcpy(msg, &h, sizeof h);
        tn_comp_add(is->done.rc, 1);
        atomic_fetch_add(&g->refs, 1);
        int rc =
            tn_am_request_internal("non-contiguous get (packed)", is->rank, TN_VISH_GET,
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

void tn_vis_pack_list_get(tn_vis_lget_t *g, size_t n, tn_vis_issue_t *is)
{
    size_t max = tn_am_medium_max(is->rank), head = sizeof(tn_vis_head_t);
    g->rc = is->done.rc;
    atomic_init(&g->refs, 1);
    tern_am_arg_t a[1] = {(uint64_t)(uintptr_t)g};
    for (size_t first = 0; first < n;) {
        /* as many pieces as the Request's entries and the Reply's data
         * hold (every piece alone fits: tn_vis_lget_new's caller split
         * them) */
        size_t np = 0, data = 0;
        while (first + np < n && head + (np + 1) * TN_VIS_ENTRY_BYTES <= max &&
               data + g->p[first + np].n <= max)
            data += g->p[first + np++].n;
        tern_am_sd_t sd;
        if (open_msg(is, head + TN_VIS_ENTRY_BYTES, head + np * TN_VIS_ENTRY_BYTES,
                     &sd) != TERN_OK)
            break;
        np = (sd.len - head) / TN_VIS_ENTRY_BYTES < np
                 ? (sd.len - head) / TN_VIS_ENTRY_BYTES
                 : np;
        tn_vis_head_t h = {TN_VISM_LIST_GET, 0, 0, first, np, 0};
        char *q = sd.buf;
        memcpy(q, &h, sizeof h);
        q += sizeof h;
        for (size_t i = 0; i < np; i++, q += TN_VIS_ENTRY_BYTES) {
            uint64_t at = (uint64_t)(uintptr_t)g->p[first + i].src,
                     len = g->p[first + i].n;
            memcpy(q, &at, 8);
            memcpy(q + 8, &len, 8);
        }
        tn_comp_add(is->done.rc, 1);
        atomic_fetch_add(&g->refs, 1);
        int rc = tn_am_commit_request_internal(&sd, TN_VISH_LGET,
                                               head + np * TN_VIS_ENTRY_BYTES, a);
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
    lget_release(g);
}

int tn_vis_pack_piece(void *packer, char *dst, const char *src, size_t n)
{
    tn_vis_packer_t *p = packer;
    while (n > 0) {
        if (!p->open) {
            size_t max = tn_am_medium_max(p->is->rank);
            if (open_msg(p->is, sizeof(tn_vis_head_t) + TN_VIS_ENTRY_BYTES + 1, max,
                         &p->sd) != TERN_OK)
                return 1;
            p->open = 1;
            p->used = sizeof(tn_vis_head_t);
            p->npieces = 0;
        }
        size_t room = p->sd.len - p->used;
        if (room <= TN_VIS_ENTRY_BYTES) {
            tn_vis_pack_flush(p);
            if (p->is->err != TERN_OK)
                return 1;
            continue;
        }
        size_t take = n < room - TN_VIS_ENTRY_BYTES ? n : room - TN_VIS_ENTRY_BYTES;
        uint64_t a = (uint64_t)(uintptr_t)dst, len = take;
        char *q = (char *)p->sd.buf + p->used;
        memcpy(q, &a, 8);
        memcpy(q + 8, &len, 8);
        memcpy(q + TN_VIS_ENTRY_BYTES, src, take);
        p->used += TN_VIS_ENTRY_BYTES + take;
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
    tn_vis_head_t h = {TN_VISM_LIST, 0, 0, 0, p->npieces, 0};
    memcpy(p->sd.buf, &h, sizeof h);
    send_msg(p->is, &p->sd, p->used);
}
