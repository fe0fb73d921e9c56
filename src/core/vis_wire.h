/* The messages of packed non-contiguous transfers (core/vis_am.c), here
 * so that a test can forge them (tests/mp/vis_forged.c). Fields are in
 * the host's order (one job runs on one architecture) and read with
 * memcpy: a payload has no alignment guarantee.
 *   strided put (TN_VISM_STRIDED to TN_VISH_PUT) and accumulate
 *     (TN_VISM_ACC to TN_VISH_ACC): tn_vis_head_t, then ndims x {uint64
 *     count, int64 dstride}, then the data of pieces [first,
 *     first+npieces) of the description in loop-nest order, elem bytes
 *     each; args [0] the completion object, accumulate [1] the type (the
 *     values are already scaled);
 *   list put (TN_VISM_LIST to TN_VISH_PUT): tn_vis_head_t, then npieces x
 *     {uint64 address, uint64 length, the bytes};
 *   strided get (TN_VISM_GET to TN_VISH_GET): as strided without the data
 *     (dbase: the source of piece 0 at the target, the strides the
 *     source's); the Reply (TN_VISH_GOT) carries the data alone;
 *   list get (TN_VISM_LIST_GET to TN_VISH_LGET): tn_vis_head_t, then
 *     npieces x {uint64 address, uint64 length} of sources; the Reply
 *     (TN_VISH_LGOT) carries the data alone.
 * Puts and accumulates are acknowledged by tn_am_reply_done (core/am.h):
 * a Short Reply with [0] status, [1] the completion object of the Request. */
#ifndef TN_CORE_VIS_WIRE_H
#define TN_CORE_VIS_WIRE_H

#include <stdint.h>

#include "core/am.h"

/* handler ids */
enum {
    TN_VISH_PUT = TN_AMH_VIS,
    TN_VISH_GET,
    TN_VISH_GOT,
    TN_VISH_LGET,
    TN_VISH_LGOT,
    TN_VISH_ACC
};
_Static_assert(TN_VISH_ACC < TN_AMH_VIS + 8, "VIS owns 8 handler slots");
/* message kinds */
enum {
    TN_VISM_STRIDED = 1,
    TN_VISM_LIST = 2,
    TN_VISM_GET = 3,
    TN_VISM_LIST_GET = 4,
    TN_VISM_ACC = 5
};

typedef struct tn_vis_head {
    uint32_t kind;  /* TN_VISM_* */
    uint32_t ndims; /* strided */
    uint64_t elem;  /* strided: bytes per piece */
    uint64_t first; /* strided: index of the first piece carried */
    uint64_t npieces;
    uint64_t dbase; /* strided: destination of piece 0 (offset applied) */
} tn_vis_head_t;

#define TN_VIS_DIM_BYTES   16u /* count and stride of one dimension */
#define TN_VIS_ENTRY_BYTES 16u /* address and length of one list piece */

#endif
