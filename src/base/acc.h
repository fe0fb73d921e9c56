/* Accumulate on an array of the target's segment: dst[i] += scale *
 * src[i], atomic element-wise with respect to every other accumulate,
 * through stripe locks that live in the target's control area (shared by
 * the processes that map it, and used by the active-message handler at
 * the target). Types are TN_ATYPE_I32, _I64, _FLOAT and _DOUBLE. */
#ifndef TN_ACC_H
#define TN_ACC_H

#include <stdatomic.h>
#include <stddef.h>

#include "base/amo.h"

#define TN_ACC_STRIPES      64 /* locks per target segment */
#define TN_ACC_STRIPE_SHIFT 12 /* each covers 4 KiB blocks, round robin */

/* One lock per cache line: 0 free, 1 held. Writers: any accumulating
 * process of the node, and the target's handler. */
typedef struct tn_acc_lock {
    _Alignas(64) _Atomic uint32_t held;
} tn_acc_lock_t;
_Static_assert(sizeof(tn_acc_lock_t) == 64, "one lock per cache line");

/* 1 when accumulate takes type. */
static inline int tn_acc_type_ok(int type)
{
    return type == TN_ATYPE_I32 || type == TN_ATYPE_I64 || type == TN_ATYPE_FLOAT ||
           type == TN_ATYPE_DOUBLE;
}

/* dst[i] += scale * src[i] for i < count (scale NULL: 1; integers wrap),
 * a 4 KiB block at a time under the lock of its stripe: locks is the
 * target's table, off the offset of dst in the target's segment (the same
 * from every process). dst is naturally aligned; src may be unaligned and
 * must not overlap dst. Each block's lock is released before the next is
 * taken, so no two locks are ever held. */
void tn_acc_striped(int type, void *dst, size_t off, const void *src, size_t count,
                    const tn_aval_t *scale, tn_acc_lock_t *locks);
/* Many small pieces of one accumulate (strided): consecutive pieces in
 * the same stripe share one lock round trip. tn_acc_run_piece adds
 * count elements as tn_acc_striped does, keeping the lock of a piece that
 * lies in one block held for the next; tn_acc_run_end releases it. Still
 * no two locks are ever held. Nothing may wait between the calls. */
typedef struct tn_acc_run {
    int type;
    const tn_aval_t *scale;
    tn_acc_lock_t *locks, *held;
} tn_acc_run_t;
void tn_acc_run_piece(tn_acc_run_t *r, void *dst, size_t off, const void *src,
                      size_t count);
void tn_acc_run_end(tn_acc_run_t *r);
/* npieces pieces of count elements, piece i from src + i*sstride to dst +
 * i*dstride (at off + i*dstride in the target's segment), as many calls
 * of tn_acc_run_piece but with the type's loop inlined: a piece of one
 * element in a held stripe costs a compare, a load, a multiply-add and a
 * store. */
void tn_acc_run_row(tn_acc_run_t *r, char *dst, ptrdiff_t dstride, size_t off,
                    const char *src, ptrdiff_t sstride, size_t count, size_t npieces);

/* out[i] = scale * src[i] (integers wrap); out and src may be unaligned. */
void tn_acc_scale(int type, void *out, const void *src, size_t count,
                  const tn_aval_t *scale);

#endif
