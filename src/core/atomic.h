/* Atomic domains inside core: the record behind a tern_ad_t, shared by
 * core/atomic.c (create, choice, destroy) and core/atomic_op.c (the
 * operations). */
#ifndef TN_CORE_ATOMIC_H
#define TN_CORE_ATOMIC_H

#include "base/acc.h"
#include "base/amo.h"
#include "core/core.h"

#define TN_AD_LIVE 0x61646c76u
#define TN_AD_DEAD 0x61646464u
#define TN_AD_MAX  1024 /* domains alive at once */
/* Bytes of the network transport's summary line that a domain's reason
 * quotes, and of the reason the am path is taken (atomic.c, choose): under
 * 64 B of text around that line and a set of ops. */
#define TN_AD_LINE_MAX   160
#define TN_AD_WHY_AM_MAX (TN_AD_LINE_MAX + TN_AOP_SET_NAMES_MAX + 64)

/* Written by tern_ad_create before the handle is returned, read-only
 * after (any thread may use a domain). */
struct tern_ad_s {
    tern_ad_fast_t_ fast; /* what the inline path reads (tern/atomic.h) */
    uint32_t magic;       /* TN_AD_LIVE while created, TN_AD_DEAD after */
    int type;             /* TN_ATYPE_* (== TERN_AT_*) */
    uint32_t ops;         /* mask of 1u << TN_AOP_* (== TERN_OP_* bits) */
    int impl;             /* TERN_AD_IMPL_* */
    tn_core_xport_t *net; /* TERN_AD_IMPL_NET: the transport for every target */
    /* TERN_AD_IMPL_CPU and _AM: mapped peers run CPU atomics in place (the
     * inline path's fast.cpu is set); _AM sends the others' ops as
     * active messages that run CPU atomics at the target. */
    /* The choice, for tern_ad_info and TERN_VERBOSE. The longest is the am
     * path's (atomic.c, choose_am): 179 B of text with the node count, a
     * reason of up to TN_AD_WHY_AM_MAX - 1, the mailbox's 46, a type's 6
     * and a set of ops. */
    char why[180 + TN_AD_WHY_AM_MAX + 52 + TN_AOP_SET_NAMES_MAX];
};

/* The domain ad stands for, or NULL after logging TERN_ERR_INVALID for
 * call (unknown, or destroyed). */
struct tern_ad_s *tn_ad_get(tern_ad_t ad, const char *call);
/* The same without a message (NULL when ad is not live). */
struct tern_ad_s *tn_ad_get_quiet(tern_ad_t ad);

/* The active-message path (core/atomic_am.c). init registers its
 * handlers (tern_init, on every rank of a job that spans nodes); start
 * sends op to its (unmapped) target with one part counted in c, which the
 * Reply ends after storing the old value in op->result (when not NULL);
 * TERN_ERR_AGAIN under TERN_FLAG_IMMEDIATE, nothing counted then. */
void tn_ad_am_init(void);
/* Accumulate's handlers (core/acc.c), registered with the above; its
 * stripe locks' claim on the control area (tern_init, before the segment
 * exists, in the same order on every rank). */
void tn_acc_am_init(void);
void tn_acc_plan(tn_ctrl_space_t *space);
/* The stripe locks of a mapped rank (its control area is mapped here, or
 * it is this rank): every accumulate into its segment takes them. */
tn_acc_lock_t *tn_acc_locks(int rank);
/* A contiguous accumulate of count elements of type to unmapped rank as
 * Medium messages, each counted in c (its Reply ends the part) and in
 * *sent (when not NULL). IMMEDIATE applies to the first only. TERN_OK, or
 * the error of the message that could not be sent. */
int tn_acc_send(const char *call, int rank, char *dst, const char *src, size_t count,
                int type, const tn_aval_t *scale, tn_comp_t *c, unsigned flags,
                size_t *sent);
int tn_ad_am_start(const char *call, const tn_amo_t *op, tn_comp_t *c, unsigned flags);

/* Combining (core/atomic_agg.c): init registers its handlers (with
 * tn_ad_am_init) and reads TERN_AMO_COMBINE; on says whether it is on.
 * put queues op (to an unmapped peer, checked) in this thread's batch for
 * its target with one part counted in c, which the batch's Reply ends;
 * the batch leaves when full, when another target or completion object
 * takes its place, and at tn_ad_agg_flush. TERN_ERR_AGAIN only under
 * TERN_FLAG_IMMEDIATE when the batch had to leave first and could not,
 * nothing counted then. before sends this thread's batch to rank, so that
 * an op sent on its own after it stays behind it (per-pair order). fini
 * frees every thread's buffers (tern_finalize, after the last sync). */
void tn_ad_agg_init(void);
int tn_ad_agg_on(void);
int tn_ad_agg_put(const char *call, const tn_amo_t *op, tn_comp_t *c, unsigned flags);
int tn_ad_agg_before(const char *call, int rank, unsigned flags);
void tn_ad_agg_fini(void);

/* The mailbox (core/atomic_mbox.c): blocking fetching ops to network
 * peers as two completion-less RMA writes. plan claims its slots in the
 * control area (tern_init, after every other claim: with TERN_AMO_MAILBOX
 * and more than one rank); init (with tn_ad_am_init) registers its hello
 * handler and its tables; fini frees them. run issues op and waits for
 * its value: the op's status, or TN_AD_MBOX_NO when the mailbox cannot
 * take it (not a network peer, an op of this thread still travelling by
 * message, the thread's slot taken, IMMEDIATE before the first hello, the
 * target without a mailbox): the caller sends it by message. */
#define TN_AD_MBOX_NO 1
void tn_ad_mbox_plan(tn_ctrl_space_t *space);
void tn_ad_mbox_init(void);
void tn_ad_mbox_fini(void);
int tn_ad_mbox_run(const char *call, const tn_amo_t *op, unsigned flags);
/* A blocking get of n bytes (1 to TERN_GET_MAILBOX) from remote at a
 * network rank by the mailbox, into local: TERN_OK, the error, or
 * TN_AD_MBOX_NO as run (the caller reads it by RMA). The bounds of
 * remote were checked by the caller; the target checks them again. */
int tn_mbox_get(const char *call, void *local, int rank, const void *remote, size_t n,
                unsigned flags);
/* This thread's count of atomic-domain ops travelling by message (sent or
 * queued for combining, their Reply not yet handled): added to when sent
 * or queued, taken from by their Reply; may be shared with other threads
 * (only "zero" is relied on). */
_Atomic long *tn_ad_pending_mine(void);

#endif
