/* Non-contiguous put and get (tern/vis.h): argument checks that name the
 * bad argument, then execution: direct copy loops over the optimized
 * description to mapped peers, one RMA per contiguous piece to network
 * peers, completed together as the call's form asks. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/compiler.h"
#include "base/log.h"
#include "core/am.h"
#include "core/core.h"
#include "core/event.h"
#include "core/vis.h"

_Static_assert(TERN_VIS_MAX_DIMS == TN_VIS_MAXDIM, "one limit for the API and optimizer");

enum { F_VECTOR = 0, F_INDEXED, F_STRIDED };

static const char *const call_names[3][6] = {
    {"tern_put_vector", "tern_get_vector", "tern_put_vector_nb", "tern_get_vector_nb",
     "tern_put_vector_nbi", "tern_get_vector_nbi"},
    {"tern_put_indexed", "tern_get_indexed", "tern_put_indexed_nb", "tern_get_indexed_nb",
     "tern_put_indexed_nbi", "tern_get_indexed_nbi"},
    {"tern_put_strided", "tern_get_strided", "tern_put_strided_nb", "tern_get_strided_nb",
     "tern_put_strided_nbi", "tern_get_strided_nbi"},
};

/* TERN_RMA_*_ values: even puts, odd gets; blocking, _nb, _nbi in pairs. */
static inline int op_is_get(int op)
{
    return op & 1;
}
enum { MODE_BLOCKING = 0, MODE_NB = 1, MODE_NBI = 2 };

/* Checks shared by every form: init, op, flags, rank, context. */
static int check_common(int form, int op, int rank, tern_ctx_t ctx, unsigned flags,
                        const char **call, struct tern_ctx_s **c)
{
    if ((unsigned)op > TERN_RMA_GET_NBI_)
        return tn_core_fail(TERN_ERR_INVALID, "tern_vis_",
                            "operation %d is not a TERN_RMA_* value", op);
    *call = call_names[form][op];
    TN_CHECK_INIT(*call);
    if (flags & ~TERN_FLAGS_KNOWN_)
        return tn_core_fail(TERN_ERR_INVALID, *call,
                            "flags 0x%x: bits 0x%x are not TERN_FLAG_* values", flags,
                            flags & ~TERN_FLAGS_KNOWN_);
    if (rank < 0 || rank >= tn_core.size)
        return tn_core_fail(TERN_ERR_RANK, *call, "rank %d is not in [0, %d)", rank,
                            tn_core.size);
    /* The default context is always valid: its record (thread-local, a
     * call into the TLS resolver from a shared library) is fetched only
     * when nbi pieces go to the network (run_net). */
    *c = NULL;
    if (ctx == TERN_CTX_DEFAULT)
        return TERN_OK;
    *c = tn_ctx_get(ctx, *call);
    return *c ? TERN_OK : TERN_ERR_INVALID;
}

/* [a, a+n) inside rank's segment (as rank sees it); what names the piece
 * for the message ("dstlist[3]", "the strided destination"). */
static TN_NOINLINE int range_fail(const char *call, int rank, const char *what,
                                  uintptr_t a, size_t n)
{
    uintptr_t base = (uintptr_t)tn_core_info(rank)->data_base;
    size_t size = (size_t)tn_core_info(rank)->size;
    if (a + n < a)
        return tn_core_fail(TERN_ERR_OVERFLOW, call, "%s: %p + %zu bytes wraps around",
                            what, (void *)a, n);
    return tn_core_fail(TERN_ERR_RANGE, call,
                        "%s [%p, %p) is outside the segment of rank %d [%p, %p) (%zu "
                        "bytes); nothing was transferred%s",
                        what, (void *)a, (void *)(a + n), rank, (void *)base,
                        (void *)(base + size), size,
                        tn_core_static_note(rank, (void *)a));
}

static inline int in_segment(int rank, uintptr_t a, size_t n)
{
    uintptr_t base = (uintptr_t)tn_core_info(rank)->data_base;
    size_t size = (size_t)tn_core_info(rank)->size;
    return a >= base && a - base <= size && n <= size - (a - base);
}

/* ---- network execution: one RMA per piece ------------------------------ */

static int issue_piece(void *arg, char *dst, const char *src, size_t n)
{
    tn_vis_issue_t *is = arg;
    tn_rma_t d = {is->kind, is->rank, is->kind == TN_RMA_PUT ? (void *)src : dst,
                  is->kind == TN_RMA_PUT ? dst : (void *)src, n};
    int rc = tn_core_rma_start(&d, &is->done, is->flags);
    if (rc != TERN_OK) {
        is->err = rc;
        return 1;
    }
    is->started++;
    /* As a contiguous transfer's fragments: only the first may refuse. */
    is->flags &= ~TERN_FLAG_IMMEDIATE;
    return 0;
}

/* Issues every piece of a transfer with issue(spec, ..) (one RMA each, or
 * packed into active messages) with the completion the form asks: a stack object waited for
 * (blocking, and _nb without a remote event), events, or the context's nbi objects. Each
 * object holds one extra part while pieces are issued, so that it cannot
 * complete before the last piece is counted. */
int tn_vis_run_net(const char *call, int op, struct tern_ctx_s *c, int rank,
                   tn_vis_issue_fn issue, const void *spec, tern_event_t *lc_ev,
                   tern_event_t *rc_ev, unsigned flags)
{
    int get = op_is_get(op), mode = op / 2;
    if (mode == MODE_NB && !rc_ev)
        mode = MODE_BLOCKING;
    if (mode == MODE_BLOCKING)
        TN_NOT_IN_HANDLER(call);
    tn_comp_t stack, *lc = NULL, *rc = NULL;
    tern_event_t l = TERN_EVENT_DONE, r = TERN_EVENT_DONE;
    switch (mode) {
    case MODE_BLOCKING:
        tn_comp_init(&stack, 1);
        rc = &stack;
        break;
    case MODE_NB:
        rc = tn_event_new(&r);
        if (rc && lc_ev && !get && !(lc = tn_event_new(&l))) {
            tn_event_drop(r);
            rc = NULL;
        }
        if (!rc)
            return tn_core_fail(TERN_ERR_NOMEM, call, "no memory for an event");
        break;
    default:
        if (!c)
            c = tn_ctx_get(TERN_CTX_DEFAULT, call);
        lc = get ? NULL : &c->lc;
        rc = &c->rc;
        if (lc)
            tn_comp_add(lc, 1);
        tn_comp_add(rc, 1);
    }
    tn_vis_issue_t is = {
        get ? TN_RMA_GET : TN_RMA_PUT, rank, {lc, rc}, flags, 0, TERN_OK};
    issue(spec, &is);
    if (is.err != TERN_OK && is.started == 0) {
        /* nothing was issued: the call fails as a whole */
        if (mode == MODE_NB) {
            if (lc)
                tn_event_drop(l);
            tn_event_drop(r);
        } else if (mode == MODE_NBI) {
            if (lc)
                tn_comp_add(lc, -1);
            tn_comp_add(rc, -1);
        }
        if (is.err == TERN_ERR_AGAIN)
            return is.err;
        return tn_core_fail(is.err, call, "the transfer with rank %d could not start",
                            rank);
    }
    /* The extra parts end, carrying the error of a piece that could not
     * start after others had. */
    if (lc)
        tn_comp_done(lc, is.err);
    tn_comp_done(rc, is.err);
    switch (mode) {
    case MODE_BLOCKING: {
        int st = tn_comp_wait(&stack);
        if (st != TERN_OK)
            return tn_core_fail(st, call,
                                "the transfer of %zu pieces with rank %d failed (cause "
                                "logged above)",
                                is.started, rank);
        if (lc_ev)
            *lc_ev = TERN_EVENT_DONE;
        return TERN_OK;
    }
    case MODE_NB:
        if (lc_ev)
            *lc_ev = l;
        *rc_ev = r;
        return TERN_OK;
    default: return TERN_OK;
    }
}

/* The events of a transfer that completed in the call. */
static int done_now(int op, tern_event_t *lc_ev, tern_event_t *rc_ev)
{
    if (!op_is_get(op) && op != TERN_RMA_PUT_NBI_)
        TERN_PUT_FENCE_();
    if (lc_ev)
        *lc_ev = TERN_EVENT_DONE;
    if (rc_ev)
        *rc_ev = TERN_EVENT_DONE;
    return TERN_OK;
}

/* ---- vector and indexed ------------------------------------------------ */

/* A list of pieces: vec, or addr with one length for all. */
typedef struct vlist {
    size_t count;
    const tern_memvec_t *vec;
    void *const *addr;
    size_t len;
    const char *name; /* "dstlist" or "srclist" */
} vlist_t;

static inline void vitem(const vlist_t *l, size_t i, char **a, size_t *n)
{
    if (l->vec) {
        *a = l->vec[i].addr;
        *n = l->vec[i].len;
    } else {
        *a = l->addr[i];
        *n = l->len;
    }
}

typedef struct vspec {
    vlist_t dst, src;
} vspec_t;

/* Both lists in lockstep from piece i of each (the pieces before it
 * paired up one to one): every maximal run of bytes that is contiguous on
 * both sides is one piece; pieces of length 0 are skipped. */
static int vwalk_from(const vspec_t *v, size_t i, tn_vis_piece_fn fn, void *arg)
{
    size_t j = i, di = 0, sj = 0, dn = 0, sn = 0;
    char *da = NULL, *sa = NULL;
    for (;;) {
        for (; i < v->dst.count; i++, di = 0) {
            vitem(&v->dst, i, &da, &dn);
            if (di < dn)
                break;
        }
        for (; j < v->src.count; j++, sj = 0) {
            vitem(&v->src, j, &sa, &sn);
            if (sj < sn)
                break;
        }
        if (i == v->dst.count || j == v->src.count)
            return 0;
        size_t n = dn - di < sn - sj ? dn - di : sn - sj;
        int rc = fn(arg, da + di, sa + sj, n);
        if (rc)
            return rc;
        di += n;
        sj += n;
    }
}

/* Vectors: the pieces that pair up (equal lengths, the common case) one
 * call per pair until they stop pairing (the general walk costs about 5
 * times as much per piece), then the general walk. */
static int vwalk(const void *spec, tn_vis_piece_fn fn, void *arg)
{
    const vspec_t *v = spec;
    size_t i = 0;
    if (v->dst.vec && v->src.vec) {
        const tern_memvec_t *dv = v->dst.vec, *sv = v->src.vec;
        size_t n = v->dst.count < v->src.count ? v->dst.count : v->src.count;
        for (; i < n && dv[i].len == sv[i].len; i++)
            if (dv[i].len) {
                int rc = fn(arg, dv[i].addr, sv[i].addr, dv[i].len);
                if (rc)
                    return rc;
            }
    }
    return vwalk_from(v, i, fn, arg);
}

static TN_NOINLINE int piece_fail(const char *call, const vlist_t *l, int remote,
                                  int rank, size_t i)
{
    char *a;
    size_t n;
    vitem(l, i, &a, &n);
    if (!remote)
        return tn_core_fail(TERN_ERR_INVALID, call, "%s[%zu] is NULL with %zu bytes",
                            l->name, i, n);
    char what[64];
    snprintf(what, sizeof what, "%s[%zu]", l->name, i);
    return range_fail(call, rank, what, (uintptr_t)a, n);
}

/* Total bytes of l, checking its pieces: the remote list against rank's
 * segment, the local one for NULL addresses. One pass, one or two
 * compares per piece. */
/* The list checks below without a branch per piece: 0 when every piece
 * is sound (*total set), else vlist_check finds the first bad one and
 * names it. Remote pieces: [a, a+n) inside [base, base+size); local ones:
 * not NULL; pieces of length 0 are not looked at. About 5 instructions a
 * piece, against 11 to 17 for the walk that names the piece. */
static inline int vlist_sound(const vlist_t *l, int remote, uintptr_t base, size_t size,
                              size_t *total)
{
    int bad = 0;
    if (l->count && !(l->vec || l->addr))
        return 1;
    if (!l->vec) {
        if (l->len == 0 || !l->count) {
            *total = 0;
            return 0;
        }
        if (remote && l->len > size)
            return 1;
        if (remote) {
            bad = tn_vis_addrs_outside(l->addr, l->count, base, size - l->len);
        } else {
            for (size_t i = 0; i < l->count; i++)
                bad |= l->addr[i] == NULL;
        }
        *total = l->count * l->len; /* checked by the caller */
        return bad;
    }
    size_t t = 0;
    const tern_memvec_t *v = l->vec;
    if (remote) {
        /* every end inside the segment, and no offset or length so large
         * that an end could wrap; a piece of length 0 outside the segment
         * is left to vlist_check (it is skipped there) */
        uintptr_t big = 0, end = 0;
        for (size_t i = 0; i < l->count; i++) {
            uintptr_t off = (uintptr_t)v[i].addr - base, n = v[i].len, e = off + n;
            t += n;
            big |= off | n;
            end = e > end ? e : end;
        }
        /* no length above size, count * size fits: the sum did not wrap */
        size_t most;
        return (big >> 62) != 0 || end > size ||
               __builtin_mul_overflow(l->count, size, &most) || (*total = t, 0);
    }
    for (size_t i = 0; i < l->count; i++) {
        size_t n = v[i].len;
        bad |= __builtin_add_overflow(t, n, &t);
        bad |= (v[i].addr == NULL) & (n != 0);
    }
    *total = t;
    return bad;
}

static TN_NOINLINE int vlist_check(const char *call, const vlist_t *l, int remote,
                                   int rank, size_t *total)
{
    if (l->count && !(l->vec || l->addr))
        return tn_core_fail(TERN_ERR_INVALID, call, "%s is NULL with %s %zu", l->name,
                            l->name[0] == 'd' ? "dstcount" : "srccount", l->count);
    uintptr_t base = (uintptr_t)tn_core_info(rank)->data_base;
    size_t size = (size_t)tn_core_info(rank)->size;
    if (!l->vec) { /* indexed: one length */
        if (l->len == 0)
            return *total = 0, TERN_OK;
        size_t room = l->len <= size ? size - l->len : 0;
        for (size_t i = 0; i < l->count; i++) {
            uintptr_t a = (uintptr_t)l->addr[i];
            if (remote ? a - base > room || l->len > size : a == 0)
                return piece_fail(call, l, remote, rank, i);
        }
        *total = l->count * l->len; /* checked by the caller */
        return TERN_OK;
    }
    size_t t = 0;
    for (size_t i = 0; i < l->count; i++) {
        uintptr_t a = (uintptr_t)l->vec[i].addr;
        size_t n = l->vec[i].len;
        if (n == 0)
            continue;
        if (__builtin_add_overflow(t, n, &t))
            return tn_core_fail(TERN_ERR_OVERFLOW, call,
                                "the lengths of %s add up to more than SIZE_MAX",
                                l->name);
        if (remote ? a - base > size || n > size - (a - base) : a == 0)
            return piece_fail(call, l, remote, rank, i);
    }
    *total = t;
    return TERN_OK;
}

static inline int vlist_ok(const char *call, const vlist_t *l, int remote, int rank,
                           size_t *total)
{
    if (tn_likely(!vlist_sound(l, remote, (uintptr_t)tn_core_info(rank)->data_base,
                               (size_t)tn_core_info(rank)->size, total)))
        return TERN_OK;
    return vlist_check(call, l, remote, rank, total);
}

/* A piece of n bytes to a mapped peer, without a call for the small ones:
 * two loads then two stores of the widest size that fits (as memcpy does
 * inside); copy_min and above through the topology-aware copy. */
static inline void copy_any(int rank, char *d, const char *s, size_t n, size_t copy_min)
{
    if (n == 8) {
        memcpy(d, s, 8);
    } else if (n - 1 < 16) { /* 1 .. 16 */
        if (n >= 8) {
            uint64_t a, b;
            memcpy(&a, s, 8);
            memcpy(&b, s + n - 8, 8);
            memcpy(d, &a, 8);
            memcpy(d + n - 8, &b, 8);
        } else if (n >= 4) {
            uint32_t a, b;
            memcpy(&a, s, 4);
            memcpy(&b, s + n - 4, 4);
            memcpy(d, &a, 4);
            memcpy(d + n - 4, &b, 4);
        } else {
            char a = s[0], b = s[n / 2], c = s[n - 1];
            d[0] = a;
            d[n / 2] = b;
            d[n - 1] = c;
        }
    } else if (n < copy_min) {
        memcpy(d, s, n);
    } else if (n) {
        tern_copy_(rank, d, s, n);
    }
}

/* Vector pieces with a mapped peer: the pairs of equal length copied in
 * a loop (about 10 instructions a piece of 8 bytes), the rest through the
 * general walk. dd, sd: added to the destination and source addresses. */
static void vector_copy(int rank, const vspec_t *v, intptr_t dd, intptr_t sd,
                        tn_vis_piece_fn rest, void *arg)
{
    const tern_memvec_t *dv = v->dst.vec, *sv = v->src.vec;
    size_t n = v->dst.count < v->src.count ? v->dst.count : v->src.count, i = 0;
    size_t copy_min = tn_core_fast(rank)->copy_min;
    for (; i < n && dv[i].len == sv[i].len; i++)
        copy_any(rank, (char *)dv[i].addr + dd, (const char *)sv[i].addr + sd, dv[i].len,
                 copy_min);
    if (rest && (i < v->dst.count || i < v->src.count))
        vwalk_from(v, i, rest, arg);
}

/* Pieces that pair up one to one with a mapped peer, piece i from S(i) to
 * D(i): the copy loop with the size inlined for the common sizes, four
 * pieces a step (for 8-byte pieces about 5 instructions a piece, against
 * 7 for the plain loop of a program, which -O2 does not unroll). Each
 * destination address is computed into a register first (TERN_VIS_REG_):
 * left to the compiler, D(i) + dd became the store's base + index
 * addressing, and on Intel cores such a store takes an address port of
 * the loads (the simple-address store port takes base + offset only), so
 * a loop of three loads and a store a piece ran 25% slower than the
 * program's own loop (512 pieces of 8 bytes: 344 against 274 ns). */
#define PAIRED_ONE(D, S, size)        \
    do {                              \
        char *d_ = (D) + dd;          \
        TERN_VIS_REG_(d_);            \
        memcpy(d_, (S) + sd, (size)); \
    } while (0)
#define PAIRED_ROW(D, S, size)      \
    {                               \
        size_t i = 0;               \
        for (; i + 4 <= count;) {   \
            PAIRED_ONE(D, S, size); \
            i++;                    \
            PAIRED_ONE(D, S, size); \
            i++;                    \
            PAIRED_ONE(D, S, size); \
            i++;                    \
            PAIRED_ONE(D, S, size); \
            i++;                    \
        }                           \
        for (; i < count; i++)      \
            PAIRED_ONE(D, S, size); \
    }                               \
    break
#define PAIRED_COPY(D, S)                                \
    do {                                                 \
        if (n >= tn_core_fast(rank)->copy_min) {         \
            for (size_t i = 0; i < count; i++)           \
                tern_copy_(rank, (D) + dd, (S) + sd, n); \
            return;                                      \
        }                                                \
        switch (n) {                                     \
        case 1: PAIRED_ROW(D, S, 1);                     \
        case 2: PAIRED_ROW(D, S, 2);                     \
        case 4: PAIRED_ROW(D, S, 4);                     \
        case 8: PAIRED_ROW(D, S, 8);                     \
        case 16: PAIRED_ROW(D, S, 16);                   \
        case 32: PAIRED_ROW(D, S, 32);                   \
        case 64: PAIRED_ROW(D, S, 64);                   \
        default: PAIRED_ROW(D, S, n);                    \
        }                                                \
    } while (0)

static void indexed_copy(int rank, size_t count, char *const *dl, intptr_t dd,
                         const char *const *sl, intptr_t sd, size_t n)
{
    PAIRED_COPY(dl[i], sl[i]);
}

static void vector_same_copy(int rank, size_t count, const tern_memvec_t *dv, intptr_t dd,
                             const tern_memvec_t *sv, intptr_t sd, size_t n)
{
    PAIRED_COPY((char *)dv[i].addr, (const char *)sv[i].addr);
}

/* Vectors with a mapped peer whose pieces all have one length on both
 * sides (the common case; the counts are equal), checked in one pass over
 * both lists: the remote pieces inside [base, base+size), the local ones
 * not NULL. 0 when all holds (*total); otherwise the two lists are checked
 * one by one (and a bad piece named). About 16 instructions a piece: four
 * words of the two lists read, two running extremes, two compares. */
static inline int vec_same_sound(const tern_memvec_t *rv, const tern_memvec_t *lv,
                                 size_t count, uintptr_t base, size_t size, size_t *total)
{
    uintptr_t n0 = rv[0].len, hi = 0, lo = UINTPTR_MAX, odd = 0;
#pragma GCC unroll 2
    for (size_t i = 0; i < count; i++) {
        uintptr_t off = (uintptr_t)rv[i].addr - base, la = (uintptr_t)lv[i].addr;
        hi = off > hi ? off : hi;
        lo = la < lo ? la : lo;
        odd |= (rv[i].len ^ n0) | (lv[i].len ^ n0);
    }
    if (odd || lo == 0 || n0 == 0 || n0 > size || hi > size - n0 ||
        __builtin_mul_overflow(count, n0, total))
        return 1;
    return 0;
}

typedef struct mapped_copy {
    int rank, get;
    intptr_t delta;
} mapped_copy_t;

static int copy_piece(void *arg, char *dst, const char *src, size_t n)
{
    const mapped_copy_t *m = arg;
    if (m->get)
        tern_fast_copy_(m->rank, dst, src + m->delta, n);
    else
        tern_fast_copy_(m->rank, dst + m->delta, src, n);
    return 0;
}

static TN_NOINLINE int totals_fail(const char *call, size_t dt, size_t srct)
{
    return tn_core_fail(TERN_ERR_INVALID, call,
                        "the totals differ: dstlist holds %zu bytes, srclist %zu; both "
                        "sides must move the same bytes",
                        dt, srct);
}

static void lists_rma(const void *spec, tn_vis_issue_t *is)
{
    vwalk(spec, issue_piece, is);
}

/* A get's pieces, split at chunk bytes (what one Reply carries): counted
 * (out NULL) or recorded. */
typedef struct lget_fill {
    size_t chunk, n;
    tn_vis_lpiece_t *out;
} lget_fill_t;

static int lget_piece(void *arg, char *dst, const char *src, size_t n)
{
    lget_fill_t *f = arg;
    for (size_t at = 0; at < n; at += f->chunk) {
        size_t k = n - at < f->chunk ? n - at : f->chunk;
        if (f->out)
            f->out[f->n] = (tn_vis_lpiece_t){dst + at, src + at, k};
        f->n++;
    }
    return 0;
}

static void lists_pack(const void *spec, tn_vis_issue_t *is)
{
    if (is->kind == TN_RMA_GET) {
        /* the pieces are walked twice (count, then record) rather than
         * grown: one allocation of the exact size */
        lget_fill_t f = {tn_am_medium_max(is->rank), 0, NULL};
        vwalk(spec, lget_piece, &f);
        tn_vis_lget_t *g = tn_vis_lget_new(f.n, &f.out);
        if (!g) {
            is->err = TERN_ERR_NOMEM;
            return;
        }
        f.n = 0;
        vwalk(spec, lget_piece, &f);
        tn_vis_pack_list_get(g, f.n, is);
        return;
    }
    tn_vis_packer_t p = {.is = is};
    if (vwalk(spec, tn_vis_pack_piece, &p) == 0)
        tn_vis_pack_flush(&p);
}

static int run_lists(int form, tern_ctx_t ctx, int op, int rank, vspec_t *v,
                     tern_event_t *lc, tern_event_t *rc, tern_flags_t flags)
{
    const char *call = "tern_vis_";
    struct tern_ctx_s *c = NULL;
    int st = check_common(form, op, rank, ctx, flags, &call, &c);
    if (st != TERN_OK)
        return st;
    int get = op_is_get(op);
    size_t dt = 0, srct = 0;
    if (form == F_INDEXED) { /* totals known before any piece is looked at */
        if (__builtin_mul_overflow(v->dst.count, v->dst.len, &dt) ||
            __builtin_mul_overflow(v->src.count, v->src.len, &srct))
            return tn_core_fail(TERN_ERR_OVERFLOW, call,
                                "a count times its length is more than SIZE_MAX");
        if (dt != srct)
            return totals_fail(call, dt, srct);
    }
    /* The remote list is checked against the segment before anything
     * moves. The local list of an indexed transfer to a mapped peer is
     * used as memcpy's arguments are, unchecked, as the contiguous fast
     * path does: the copy loop then costs what a hand-written one does. */
    const tern_peer_fast_t *p = tn_core_fast(rank);
    vlist_t *remote = get ? &v->src : &v->dst, *local = get ? &v->dst : &v->src;
    size_t *rt = get ? &srct : &dt, *lt = get ? &dt : &srct;
    if (form == F_VECTOR && p->size && v->dst.count == v->src.count && v->dst.count &&
        remote->vec && local->vec &&
        vec_same_sound(remote->vec, local->vec, v->dst.count,
                       (uintptr_t)tn_core_info(rank)->data_base,
                       (size_t)tn_core_info(rank)->size, &dt) == 0) {
        tn_trace("%s(rank %d, %zu pieces of %zu B, flags 0x%x)", call, rank, v->dst.count,
                 v->dst.vec[0].len, flags);
        vector_same_copy(rank, v->dst.count, v->dst.vec, get ? 0 : p->delta, v->src.vec,
                         get ? p->delta : 0, v->dst.vec[0].len);
        return done_now(op, lc, rc);
    }
    if ((st = vlist_ok(call, remote, 1, rank, rt)) != TERN_OK)
        return st;
    if (form == F_VECTOR || !p->size) {
        if ((st = vlist_ok(call, local, 0, rank, lt)) != TERN_OK)
            return st;
    } else if (local->count && !local->addr) {
        return tn_core_fail(TERN_ERR_INVALID, call, "%s is NULL with %s %zu", local->name,
                            get ? "dstcount" : "srccount", local->count);
    }
    if (dt != srct)
        return totals_fail(call, dt, srct);
    tn_trace("%s(rank %d, %zu -> %zu pieces, %zu B, flags 0x%x)", call, rank,
             v->src.count, v->dst.count, dt, flags);
    if (dt == 0)
        return done_now(op, lc, rc);
    if (p->size) {
        mapped_copy_t m = {rank, get, p->delta};
        if (form == F_INDEXED && v->dst.len == v->src.len) {
            /* the common indexed case: pieces pair up one to one */
            indexed_copy(rank, v->dst.count, (char *const *)v->dst.addr,
                         get ? 0 : p->delta, (const char *const *)v->src.addr,
                         get ? p->delta : 0, v->dst.len);
        } else if (form == F_VECTOR) {
            vector_copy(rank, v, get ? 0 : p->delta, get ? p->delta : 0, copy_piece, &m);
        } else {
            vwalk(v, copy_piece, &m);
        }
        return done_now(op, lc, rc);
    }
    /* Pieces no larger than the packing limit (on average) go packed
     * into active messages, puts and gets alike; see
     * docs/design/non-contiguous.md. */
    size_t pieces = v->dst.count > v->src.count ? v->dst.count : v->src.count;
    int pack = dt / pieces <= tn_vis_pack_limit(rank, 0);
    return tn_vis_run_net(call, op, c, rank, pack ? lists_pack : lists_rma, v, lc, rc,
                          flags);
}

tern_status_t tern_vis_vector_(tern_ctx_t ctx, int op, int rank, size_t dstcount,
                               const tern_memvec_t *dstlist, size_t srccount,
                               const tern_memvec_t *srclist, tern_event_t *lc,
                               tern_event_t *rc, tern_flags_t flags)
{
    vspec_t v = {{dstcount, dstlist, NULL, 0, "dstlist"},
                 {srccount, srclist, NULL, 0, "srclist"}};
    return run_lists(F_VECTOR, ctx, op, rank, &v, lc, rc, flags);
}

tern_status_t tern_vis_indexed_(tern_ctx_t ctx, int op, int rank, size_t dstcount,
                                void *const *dstlist, size_t dstlen, size_t srccount,
                                const void *const *srclist, size_t srclen,
                                tern_event_t *lc, tern_event_t *rc, tern_flags_t flags)
{
    /* one length for the whole list: a NULL list with a count, or the
     * totals, are checked as for vectors */
    vspec_t v = {{dstcount, NULL, dstlist, dstlen, "dstlist"},
                 {srccount, NULL, (void *const *)srclist, srclen, "srclist"}};
    if (dstlen == 0)
        v.dst.count = dstlist ? dstcount : 0;
    if (srclen == 0)
        v.src.count = srclist ? srccount : 0;
    return run_lists(F_INDEXED, ctx, op, rank, &v, lc, rc, flags);
}

/* ---- strided ----------------------------------------------------------- */

typedef struct sspec {
    tn_vis_desc_t d;
    char *dst;
    const char *src;
} sspec_t;

static void strided_rma(const void *spec, tn_vis_issue_t *is)
{
    const sspec_t *s = spec;
    tn_vis_walk(&s->d, s->dst, s->src, issue_piece, is);
}

static void strided_pack(const void *spec, tn_vis_issue_t *is)
{
    const sspec_t *s = spec;
    if (is->kind == TN_RMA_GET)
        tn_vis_pack_strided_get(&s->d, s->dst, s->src, is);
    else
        tn_vis_pack_strided(&s->d, s->dst, s->src, is);
}

/* The arguments level by level, when tn_vis_describe found something to
 * report or a count of 0: each error names its level; the description
 * without its null dimensions, optimized. */
static TN_NOINLINE int strided_desc_checked(const char *call, void *dst,
                                            const ptrdiff_t *dststrides, const void *src,
                                            const ptrdiff_t *srcstrides, size_t elemsz,
                                            const size_t *count, size_t levels,
                                            tn_vis_desc_t *d, size_t *rep)
{
    d->elem = elemsz;
    d->soff = d->doff = 0;
    *rep = 1;
    size_t total = elemsz;
    int nd = 0, empty = elemsz == 0, wrap = -1;
    ptrdiff_t ext[4] = {0, 0, 0, 0}; /* source low, high; destination low, high */
    for (size_t k = 0; k < levels; k++) {
        size_t cnt = count[k];
        if (cnt > PTRDIFF_MAX)
            return tn_core_fail(TERN_ERR_INVALID, call,
                                "count[%zu] = %zu is negative as a signed value (%td)", k,
                                cnt, (ptrdiff_t)cnt);
        if (cnt <= 1) {
            empty |= cnt == 0;
            continue;
        }
        if (!empty && __builtin_mul_overflow(total, cnt, &total))
            return tn_core_fail(TERN_ERR_OVERFLOW, call,
                                "elemsz %zu times the counts is more than SIZE_MAX",
                                elemsz);
        ptrdiff_t ss = srcstrides[k], ds = dststrides[k];
        if (wrap < 0 &&
            (tn_vis_span_wraps(ext, cnt, ss) || tn_vis_span_wraps(ext + 2, cnt, ds)))
            wrap = (int)k;
        if (ss == 0 && ds == 0) {
            *rep *= cnt; /* bounded by total */
            continue;
        }
        d->count[nd] = cnt;
        d->sstride[nd] = ss;
        d->dstride[nd] = ds;
        nd++;
    }
    d->ndims = nd;
    if (empty) {
        d->elem = 0;
        d->ndims = 0;
        return TERN_OK;
    }
    if (!dst || !src)
        return tn_core_fail(TERN_ERR_INVALID, call, "%s is NULL with %zu bytes to move",
                            !dst ? "dst" : "src", total);
    if (wrap >= 0)
        return tn_core_fail(TERN_ERR_OVERFLOW, call,
                            "count[%d] = %zu with srcstrides[%d] = %td, dststrides[%d] = "
                            "%td: the extent wraps around",
                            wrap, count[wrap], wrap, srcstrides[wrap], wrap,
                            dststrides[wrap]);
    tn_vis_optimize(d);
    return TERN_OK;
}

int tn_vis_strided_desc(const char *call, void *dst, const ptrdiff_t *dststrides,
                        const void *src, const ptrdiff_t *srcstrides, size_t elemsz,
                        const size_t *count, size_t levels, tn_vis_desc_t *d, size_t *rep)
{
    if (levels > TERN_VIS_MAX_DIMS)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "stridelevels %zu: at most TERN_VIS_MAX_DIMS (%d)", levels,
                            TERN_VIS_MAX_DIMS);
    if (levels && (!count || !dststrides || !srcstrides))
        return tn_core_fail(TERN_ERR_INVALID, call, "%s is NULL with stridelevels %zu",
                            !count        ? "count"
                            : !dststrides ? "dststrides"
                                          : "srcstrides",
                            levels);
    if (elemsz > PTRDIFF_MAX)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "elemsz %zu is negative as a signed value", elemsz);
    /* One pass that also merges what continues (a 32-level description of
     * a 1-d motion costs little more than its 1-d form); anything to
     * report goes through the level-by-level checks. */
    ptrdiff_t ext[4];
    if (tn_unlikely(tn_vis_describe(d, elemsz, count, srcstrides, dststrides, levels, rep,
                                    ext) != 0 ||
                    (d->elem && (!dst || !src))))
        return strided_desc_checked(call, dst, dststrides, src, srcstrides, elemsz, count,
                                    levels, d, rep);
    if (d->elem)
        tn_vis_optimize(d);
    return TERN_OK;
}

int tn_vis_check_extent(const char *call, int rank, const tn_vis_desc_t *d, int side,
                        const void *base)
{
    ptrdiff_t lo, hi;
    tn_vis_extent(d, side, &lo, &hi);
    uintptr_t remote = (uintptr_t)base;
    if (in_segment(rank, remote + (uintptr_t)lo, (size_t)(hi - lo)))
        return TERN_OK;
    return range_fail(call, rank,
                      side == 0 ? "the strided source (src and srcstrides)"
                                : "the strided destination (dst and dststrides)",
                      remote + (uintptr_t)lo, (size_t)(hi - lo));
}

/* Whether the remote side's extent, bytes [ext[0], ext[1]) from remote
 * (as tn_vis_describe gives them), lies inside p's mapped segment:
 * tern_fast_ok_'s test. */
static TN_ALWAYS_INLINE int extent_mapped(const tern_peer_fast_t *p, const void *remote,
                                          const ptrdiff_t *ext)
{
    uintptr_t off = (uintptr_t)remote + (uintptr_t)ext[0] - p->base;
    return off <= p->size && (uintptr_t)(ext[1] - ext[0]) <= p->size - off;
}

/* strided_mapped for descriptions of several dimensions (or a repeat,
 * or anything tn_vis_describe_row hands over): tn_vis_describe, the
 * optimizer and the general copy loop. */
static __attribute__((noinline)) int
strided_mapped_nd(int op, int rank, const tern_peer_fast_t *p, void *dst,
                  const ptrdiff_t *dststrides, const void *src,
                  const ptrdiff_t *srcstrides, size_t elemsz, const size_t *count,
                  size_t levels)
{
    tn_vis_desc_t d;
    size_t rep;
    ptrdiff_t ext[4];
    if (tn_vis_describe(&d, elemsz, count, srcstrides, dststrides, levels, &rep, ext) !=
        0)
        return 0;
    if (d.elem == 0)
        return 1;
    int get = op_is_get(op);
    if (!extent_mapped(p, get ? src : dst, ext + (get ? 0 : 2)))
        return 0;
    tn_vis_optimize(&d);
    tn_trace("%s(rank %d, %zu levels -> %d, %zu pieces of %zu B)",
             call_names[F_STRIDED][op], rank, levels, d.ndims, tn_vis_pieces(&d), d.elem);
    if (get)
        tn_vis_copy(&d, dst, (const char *)src + p->delta, p->copy_min, tern_copy_, rank);
    else
        tn_vis_copy(&d, (char *)dst + p->delta, src, p->copy_min, tern_copy_, rank);
    return 1;
}

/* The fast path of a strided transfer with a mapped peer (self, shared
 * memory) from the default context with sound arguments: the checks of
 * check_common, tn_vis_strided_desc and tn_vis_check_extent folded into
 * one test each (the extent comes out of the description), then the copy
 * loop. 1 when done; 0 when anything is to report or the peer is not
 * mapped: the caller then takes the general path, which names the bad
 * argument. About 250 instructions before the copy loop for a
 * description that folds into one dimension (tn_vis_describe_row), with
 * the call and its arguments (scripts/vis-cost.sh), plus about 3 per
 * level of count 1 and 15 per level merged. */
static TN_ALWAYS_INLINE int strided_mapped(int op, int rank, void *dst,
                                           const ptrdiff_t *dststrides, const void *src,
                                           const ptrdiff_t *srcstrides, size_t elemsz,
                                           const size_t *count, size_t levels,
                                           tern_flags_t flags)
{
    if (!((unsigned)op <= TERN_RMA_GET_NBI_ && !(flags & ~TERN_FLAGS_KNOWN_) &&
          (unsigned)rank < tern_fast_.npeers && levels <= TN_VIS_MAXDIM &&
          (levels == 0 || (count && dststrides && srcstrides)) && dst && src))
        return 0;
    const tern_peer_fast_t *p = &tern_fast_.peer[rank];
    tn_vis_row_t r;
    int get = op_is_get(op);
    if (!p->size)
        return 0;
    if (tn_vis_describe_row(&r, elemsz, count, srcstrides, dststrides, levels) != 0)
        return strided_mapped_nd(op, rank, p, dst, dststrides, src, srcstrides, elemsz,
                                 count, levels);
    if (!extent_mapped(p, get ? src : dst, r.ext + (get ? 0 : 2)))
        return 0;
    /* tn_vis_optimize of one dimension: stride inversion, then folding */
    size_t c = r.count, n = r.elem;
    ptrdiff_t s = r.sstride, t = r.dstride, so = 0, to = 0;
    if (s < 0 || (s == 0 && t < 0)) {
        so = (ptrdiff_t)(c - 1) * s;
        to = (ptrdiff_t)(c - 1) * t;
        s = -s;
        t = -t;
    }
    if ((size_t)s == n && t == s) {
        n *= c;
        c = 1;
    }
    tn_trace("%s(rank %d, %zu levels -> 1, %zu pieces of %zu B, flags 0x%x)",
             call_names[F_STRIDED][op], rank, levels, c, n, flags);
    char *dp = (char *)dst + to + (get ? 0 : p->delta);
    const char *sp = (const char *)src + so + (get ? p->delta : 0);
    if (tn_likely(n < p->copy_min))
        tn_vis_copy_row(dp, t, sp, s, c, n);
    else
        for (size_t i = 0; i < c; i++)
            tern_copy_(rank, dp + (ptrdiff_t)i * t, sp + (ptrdiff_t)i * s, n);
    return 1;
}

tern_status_t tern_vis_strided_(tern_ctx_t ctx, int op, int rank, void *dst,
                                const ptrdiff_t *dststrides, const void *src,
                                const ptrdiff_t *srcstrides, size_t elemsz,
                                const size_t *count, size_t levels, tern_event_t *lc,
                                tern_event_t *rc, tern_flags_t flags)
{
    if (tn_likely(ctx == TERN_CTX_DEFAULT) &&
        strided_mapped(op, rank, dst, dststrides, src, srcstrides, elemsz, count, levels,
                       flags))
        return done_now(op, lc, rc);
    const char *call = "tern_vis_";
    struct tern_ctx_s *c = NULL;
    int st = check_common(F_STRIDED, op, rank, ctx, flags, &call, &c);
    if (st != TERN_OK)
        return st;
    sspec_t s;
    size_t rep;
    s.dst = dst;
    s.src = src;
    st = tn_vis_strided_desc(call, dst, dststrides, src, srcstrides, elemsz, count,
                             levels, &s.d, &rep);
    if (st != TERN_OK)
        return st;
    if (s.d.elem == 0)
        return done_now(op, lc, rc);
    int get = op_is_get(op);
    if ((st = tn_vis_check_extent(call, rank, &s.d, get ? 0 : 1, get ? src : dst)) !=
        TERN_OK)
        return st;
    tn_trace("%s(rank %d, %zu levels -> %d, %zu pieces of %zu B, flags 0x%x)", call, rank,
             levels, s.d.ndims, tn_vis_pieces(&s.d), s.d.elem, flags);
    const tern_peer_fast_t *p = tn_core_fast(rank);
    if (p->size) {
        if (get)
            tn_vis_copy(&s.d, dst, (const char *)src + p->delta, p->copy_min, tern_copy_,
                        rank);
        else
            tn_vis_copy(&s.d, (char *)dst + p->delta, src, p->copy_min, tern_copy_, rank);
        return done_now(op, lc, rc);
    }
    int pack = s.d.elem <= tn_vis_pack_limit(rank, s.d.ndims);
    return tn_vis_run_net(call, op, c, rank, pack ? strided_pack : strided_rma, &s, lc,
                          rc, flags);
}
