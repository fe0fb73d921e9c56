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
