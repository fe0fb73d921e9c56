/* Layout of the control area at the start of every rank's segment mapping:
 * flags written by peers (shared-memory stores or network writes) and read
 * by the owner. One flag per cache line. */
#ifndef TN_CTRL_H
#define TN_CTRL_H

#include <stdatomic.h>
#include <stdint.h>

#define TN_CTRL_ROUNDS 32 /* dissemination rounds: 2^32 ranks */

typedef struct tn_ctrl_flag {
    _Alignas(64) _Atomic uint32_t epoch; /* written by the signalling peer */
    _Atomic uint32_t sleeping;           /* set by the owner before futex_wait */
} tn_ctrl_flag_t;

typedef struct tn_ctrl {
    tn_ctrl_flag_t node_barrier[TN_CTRL_ROUNDS]; /* shm barrier inside a node */
    tn_ctrl_flag_t net_barrier[TN_CTRL_ROUNDS];  /* barrier across nodes */
} tn_ctrl_t;

_Static_assert(sizeof(tn_ctrl_flag_t) == 64, "one flag per cache line");
_Static_assert(sizeof(tn_ctrl_t) == 2 * 64 * TN_CTRL_ROUNDS, "shared layout");

#endif
