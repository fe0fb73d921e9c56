/* Non-contiguous transfers inside core: the record of a transfer's pieces
 * being issued to a network peer (vis.c), and the packing of put pieces
 * into negotiated-payload active messages (vis_am.c). */
#ifndef TN_CORE_VIS_H
#define TN_CORE_VIS_H

#include <tern.h>

#include "core/core.h"
#include "core/vis_opt.h"

/* Pieces of one call being issued: each message or RMA counts one part in
 * done.rc (and done.lc for RMA puts); flags lose IMMEDIATE once something
 * was issued (the call then completes as a whole); err is the first
 * failure to issue. */
typedef struct tn_vis_issue {
    int kind, rank; /* TN_RMA_PUT or TN_RMA_GET; the peer */
    tn_xport_done_t done;
    unsigned flags;
    size_t started; /* RMAs or messages issued */
    int err;
} tn_vis_issue_t;

/* Issues every piece of a transfer (spec: the caller's) into is. */
typedef void (*tn_vis_issue_fn)(const void *spec, tn_vis_issue_t *is);

/* Runs issue(spec, ..) for a transfer with a network peer and completes it
 * as op (a TERN_RMA_*_ value) asks: blocking waits, _nb sets the events
 * lc_ev/rc_ev, _nbi counts in c (NULL: the default context). Nothing
 * issued and an error: the call fails as a whole (TERN_ERR_AGAIN
 * unlogged). */
struct tern_ctx_s;
int tn_vis_run_net(const char *call, int op, struct tern_ctx_s *c, int rank,
                   tn_vis_issue_fn issue, const void *spec, tern_event_t *lc_ev,
                   tern_event_t *rc_ev, unsigned flags);

/* The optimized description of a strided call's arguments, checked (each
 * error logged naming the argument): d->elem 0 when nothing moves; *rep:
 * how many times the description repeats (the product of the counts of
 * dimensions whose strides are both 0, which d leaves out: a copy moves
 * the same bytes again, an accumulate adds again). */
int tn_vis_strided_desc(const char *call, void *dst, const ptrdiff_t *dststrides,
                        const void *src, const ptrdiff_t *srcstrides, size_t elemsz,
                        const size_t *count, size_t levels, tn_vis_desc_t *d,
                        size_t *rep);
/* TERN_OK when side (0 source, 1 destination) of d from base lies in
 * rank's segment, else TERN_ERR_RANGE (or _OVERFLOW) logged for call. */
int tn_vis_check_extent(const char *call, int rank, const tn_vis_desc_t *d, int side,
                        const void *base);

/* Writes the pieces of a packed put's message (vis_wire.h: strided or
 * list) into this rank's segment after checking them all: NULL, or what
 * is wrong with the message and nothing written. */
const char *tn_vis_unpack_put(const char *buf, size_t len);

/* Registers the handlers of packed puts (tern_init, when some peer is
 * reached through the network). */
void tn_vis_am_init(void);

/* Largest piece that puts to rank pack into active messages (TERN_VIS_PACK_MAX,
 * bounded by the Medium payload to rank less the message heads); 0 when
 * nothing is packed for rank. head: the bytes of a strided message's head
 * with ndims dimensions. */
size_t tn_vis_pack_limit(int rank, int ndims);

/* Sends every piece of d (destinations in is->rank's segment, sources
 * here) packed into Medium Requests; the target unpacks and acknowledges
 * each one. */
void tn_vis_pack_strided(const tn_vis_desc_t *d, char *dst, const char *src,
                         tn_vis_issue_t *is);

/* Gets every piece of d (sources in is->rank's segment, destinations
 * here): Requests carry the source's description, the target gathers the
 * pieces into Medium Replies, whose handler scatters them here. */
void tn_vis_pack_strided_get(const tn_vis_desc_t *d, char *dst, const char *src,
                             tn_vis_issue_t *is);

/* Vector and indexed gets packed: the pieces of the call (each at most
 * tn_am_medium_max(rank) bytes, sources in the peer's segment), in a
 * record that the Replies scatter from and the last one frees.
 * tn_vis_lget_new: a record for n pieces (NULL: no memory);
 * tn_vis_pack_list_get: Requests carry {address, length} of the sources,
 * the target gathers them into Medium Replies; takes the record. */
typedef struct tn_vis_lpiece {
    char *dst;
    const char *src;
    size_t n;
} tn_vis_lpiece_t;
typedef struct tn_vis_lget tn_vis_lget_t;
tn_vis_lget_t *tn_vis_lget_new(size_t n, tn_vis_lpiece_t **pieces);
void tn_vis_pack_list_get(tn_vis_lget_t *g, size_t n, tn_vis_issue_t *is);
/* fn(arg) runs once every message of g is answered (its pieces written and
 * its part of the completion object ended) or failed, just before g is
 * freed: on whichever thread ran the last Reply, or in
 * tn_vis_pack_list_get itself (combined nbi gets, core/put_agg.c). */
void tn_vis_lget_on_done(tn_vis_lget_t *g, void (*fn)(void *), void *arg);

/* Strided accumulate to is->rank: the pieces of d (elem a multiple of the
 * type's size, destinations in the peer's segment, aligned) scaled here
 * (scale NULL: 1) and packed into Medium Requests whose handler adds them
 * under the target's stripe locks; d->elem must be at most
 * tn_vis_pack_limit(rank, d->ndims). */
void tn_vis_pack_acc(const tn_vis_desc_t *d, char *dst, const char *src, int type,
                     const void *scale, tn_vis_issue_t *is);

/* The same for pieces fed one by one (vector and indexed): tn_vis_pack_piece
 * is a tn_vis_piece_fn over a packer; tn_vis_pack_flush sends the last
 * message. */
typedef struct tn_vis_packer {
    tn_vis_issue_t *is;
    tern_am_sd_t sd;
    size_t used;      /* bytes of sd.buf filled */
    uint64_t npieces; /* in the open message */
    int open;
} tn_vis_packer_t;
int tn_vis_pack_piece(void *packer, char *dst, const char *src, size_t n);
void tn_vis_pack_flush(tn_vis_packer_t *p);

#endif
