/* Completion of operations that a transport finishes later (network):
 * explicit events and the calling thread's implicit (nbi) counters. Copies
 * to mapped peers complete in the call and never get here. */
#ifndef TN_EVENT_H
#define TN_EVENT_H

#include "core/core.h"

typedef int (*tn_put_fn)(int rank, void *dst, const void *src, size_t n,
                         const tn_xport_done_t *done, unsigned flags);
typedef int (*tn_get_fn)(void *dst, int rank, const void *src, size_t n,
                         const tn_xport_done_t *done, unsigned flags);

int tn_event_run_blocking_put(int rank, void *dst, const void *src, size_t n,
                              unsigned flags, tn_put_fn put);
int tn_event_run_blocking_get(void *dst, int rank, const void *src, size_t n,
                              unsigned flags, tn_get_fn get);
int tn_event_start_put(int rank, void *dst, const void *src, size_t n, tern_event_t *lc,
                       tern_event_t *rc, unsigned flags, tn_put_fn put);
int tn_event_start_get(void *dst, int rank, const void *src, size_t n, tern_event_t *done,
                       unsigned flags, tn_get_fn get);
int tn_nbi_start_put(int rank, void *dst, const void *src, size_t n, unsigned flags,
                     tn_put_fn put);
int tn_nbi_start_get(void *dst, int rank, const void *src, size_t n, unsigned flags,
                     tn_get_fn get);

#endif
