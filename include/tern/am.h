/* Active messages: run a registered handler at another rank.
 *
 * Three categories, as in GASNet-EX:
 *   Short   arguments only (up to TERN_AM_MAX_ARGS 64-bit words);
 *   Medium  arguments and a payload copied into a runtime buffer that the
 *           handler receives and may read until it returns;
 *   Long    arguments and a payload written into the target's segment at
 *           an address the sender gives; the data is visible there before
 *           the handler runs, which receives that address.
 * A Request runs a handler at the target; inside a Request handler the
 * Reply calls send at most one Reply back to the requester through the
 * token. Handlers learn the sender from the token (tern_am_source).
 *
 * Handlers run inside tern_poll and every waiting call (barrier, event
 * waits, nbi sync, tern_wait_until_u64, a send that waits for room), on the
 * calling thread, and on the progress thread when TERN_PROGRESS_THREAD=1
 * (which starts only where a transport needs polling: with network peers).
 * With TERN_THREAD_MULTIPLE, or with the progress thread at any thread
 * level (TERN_THREAD_SINGLE too: it polls while the application's thread
 * does), handlers of messages from different senders may run at once on
 * different threads, so handlers that share data must synchronize; those
 * of one sender run one at a time. To wait for a Reply (or any message),
 * wait on a word its handler sets with tern_wait_until_u64, which runs
 * handlers and pauses the CPU between checks that found nothing; a loop
 * of tern_poll calls without a pause asks for the line the sender is
 * writing again and again (on
 * shared memory, measured: Medium 1 KiB about 10% slower per message). A
 * handler must not wait: a Request, a waiting call, tern_poll,
 * an allocation or tern_am_register made from a handler returns
 * TERN_ERR_INVALID (tern_alloc: NULL), and a Reply never blocks (when
 * there is no room it is queued and sent by later progress). RMA to peers
 * on the node and non-blocking RMA are fine: non-blocking RMA to a
 * network peer that cannot be issued at once (no descriptor) is queued,
 * in order, and issued by later progress; its source must stay unchanged
 * until its local completion, as always.
 *
 * Order: the Requests that one thread of a rank sends to another rank
 * are handled there in the order sent, one at a time (never two handlers
 * of that pair at once, whatever thread polls): on one node (a ring per
 * pair) and across the network (where the provider keeps the order of
 * sends, FI_ORDER_SAS, as tcp;ofi_rxm and verbs;ofi_rxm do; Tern keeps
 * it through credits, packing and refused sends). Not ordered: messages
 * sent by different threads (whichever injects first goes first); a Reply
 * against Requests; a Reply that found no room and was queued, against
 * later Replies. A Long's data lands before its own handler runs, but a
 * later Long's may land before an earlier handler runs: do not reuse a
 * Long destination until its handler has run. Every message is delivered
 * exactly once, also one sent just before tern_finalize: that call first
 * waits until the Requests this rank sent through the network transport
 * (and the Replies of their handlers) have been handled.
 *
 * Completion: a Request or Reply call returns when its source buffer may be
 * reused (the payload has been copied or written); the handler runs later.
 * With TERN_FLAG_IMMEDIATE a call that cannot inject at once (no queue
 * room or credit) returns TERN_ERR_AGAIN having sent nothing (it polls
 * once first, so that a retry loop makes progress); without it, the call
 * runs incoming handlers until it can inject, so two ranks flooding each
 * other never deadlock. */
#ifndef TERN_AM_H
#define TERN_AM_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TERN_AM_MAX_ARGS     16  /* 64-bit arguments per message at most */
#define TERN_AM_MAX_HANDLERS 256 /* handler indexes 0..255 */

typedef uint64_t tern_am_arg_t;
/* Names the message a handler is running for (valid during the handler). */
typedef struct tern_am_token_s *tern_am_token_t;

/* One signature for every category: buf/len are NULL/0 for Short, the
 * runtime buffer for Medium, the address in this rank's segment for Long. */
typedef void (*tern_am_handler_t)(tern_am_token_t token, void *buf, size_t len,
                                  const tern_am_arg_t *args, int nargs);

/* Registers fn under index (0..TERN_AM_MAX_HANDLERS-1) on this rank, with a
 * name for diagnostics. Local: every rank registers the handlers it may
 * receive before any peer sends to it (register, then barrier). A message
 * for an index that its target has not registered is refused at the
 * sender, which names the index, when the sender has not registered it
 * either; a target receiving one logs it and drops it. TERN_ERR_INVALID for
 * a bad index, a NULL fn, or an index already taken by another handler. */
TERN_API int tern_am_register(int index, tern_am_handler_t fn, const char *name);

/* The rank that sent the message of token. TERN_ERR_INVALID outside a
 * handler or for a bad token. */
TERN_API int tern_am_source(tern_am_token_t token, int *rank);

/* Largest Medium payload to rank (-1: to every rank of the job), and the
 * largest Long Reply payload (Long Requests take any length that fits the
 * target's segment). 0 before init or for a bad rank. TERN_AM_MEDIUM_MAX
 * sets the Medium size; it is at least 512. */
TERN_API size_t tern_am_max_medium(int rank);
TERN_API size_t tern_am_max_long_reply(int rank);

/* ---- fixed payload ------------------------------------------------------ */

TERN_API int tern_am_request_short(int rank, int handler, const tern_am_arg_t *args,
                                   int nargs, unsigned flags);
TERN_API int tern_am_request_medium(int rank, int handler, const void *buf, size_t len,
                                    const tern_am_arg_t *args, int nargs, unsigned flags);
/* dest: address in rank's segment (its own address space, as
 * tern_sym_addr gives it); [dest, dest+len) must lie inside the segment. */
TERN_API int tern_am_request_long(int rank, int handler, const void *buf, size_t len,
                                  void *dest, const tern_am_arg_t *args, int nargs,
                                  unsigned flags);

TERN_API int tern_am_reply_short(tern_am_token_t token, int handler,
                                 const tern_am_arg_t *args, int nargs, unsigned flags);
TERN_API int tern_am_reply_medium(tern_am_token_t token, int handler, const void *buf,
                                  size_t len, const tern_am_arg_t *args, int nargs,
                                  unsigned flags);
TERN_API int tern_am_reply_long(tern_am_token_t token, int handler, const void *buf,
                                size_t len, void *dest, const tern_am_arg_t *args,
                                int nargs, unsigned flags);

/* ---- negotiated payload (Medium) ----------------------------------------
 * Prepare reserves room for a Medium message of min_len..max_len payload
 * bytes and nargs arguments, and returns in sd a buffer and the length
 * granted (>= min_len, possibly more); the client assembles its payload in
 * sd->buf (on shared memory that is the receiver's queue itself, so no
 * copy follows) and Commit sends it with its final length (<= granted).
 * With client_buf (not NULL) holding the payload already, Prepare may
 * return client_buf as sd->buf.
 *
 * Between Prepare and Commit the thread is under a handler's rules (as
 * GASNet-EX's: "all communication calls are prohibited"; pairs do not
 * nest): it assembles the payload and calls Commit, on the same thread.
 * Every active-message send of that thread in between (a Short, Medium
 * or Long Request or Reply, another Prepare, to any rank), every call
 * that waits or polls (barrier, tern_poll, event waits, blocking RMA to
 * a network peer, atomics of an active-message domain) and tern_alloc
 * return TERN_ERR_INVALID having done nothing, with a message naming the
 * call and the pending Prepare ("called between
 * tern_am_prepare_request_medium (to rank 1) and its Commit"). What a
 * handler may do is allowed: non-blocking RMA, blocking RMA to a peer on
 * the node (a copy). The prepared message is still committed and
 * delivered once. Commit with a length over the one granted, or without
 * a Prepare, is TERN_ERR_INVALID and sends nothing (a refused Commit of
 * a prepared message sends an empty one in its place, which no handler
 * sees, and ends the Prepare). */
typedef struct tern_am_sd {
    void *buf;          /* where the payload goes */
    size_t len;         /* payload bytes granted */
    uint64_t priv_[12]; /* the runtime's */
} tern_am_sd_t;

TERN_API int tern_am_prepare_request_medium(int rank, const void *client_buf,
                                            size_t min_len, size_t max_len, int nargs,
                                            unsigned flags, tern_am_sd_t *sd);
TERN_API int tern_am_commit_request_medium(tern_am_sd_t *sd, int handler, size_t len,
                                           const tern_am_arg_t *args);
TERN_API int tern_am_prepare_reply_medium(tern_am_token_t token, const void *client_buf,
                                          size_t min_len, size_t max_len, int nargs,
                                          unsigned flags, tern_am_sd_t *sd);
TERN_API int tern_am_commit_reply_medium(tern_am_sd_t *sd, int handler, size_t len,
                                         const tern_am_arg_t *args);

#ifdef __cplusplus
}
#endif
#endif
