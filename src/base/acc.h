/* Accumulate on a word array: dst[i] += scale * src[i], element-wise
 * atomic with CPU atomics (used for mapped peers, and by the
 * active-message path at the target). Types are TN_ATYPE_I32, _I64,
 * _FLOAT and _DOUBLE. */
#ifndef TN_ACC_H
#define TN_ACC_H

#include <stddef.h>

#include "base/amo.h"

/* 1 when accumulate takes type. */
static inline int tn_acc_type_ok(int type)
{
    return type == TN_ATYPE_I32 || type == TN_ATYPE_I64 || type == TN_ATYPE_FLOAT ||
           type == TN_ATYPE_DOUBLE;
}

/* dst[i] += scale * src[i] for i < count (scale NULL: 1), each element one
 * atomic update (integers: a locked add, wrapping; float and double: a
 * compare-and-swap loop on the bit pattern), so that concurrent
 * accumulates to overlapping elements lose nothing. dst is naturally
 * aligned; src may be unaligned. No ordering beyond each element's
 * atomicity (relaxed): callers that publish the result fence after. */
void tn_acc_cpu(int type, void *dst, const void *src, size_t count,
                const tn_aval_t *scale);
/* out[i] = scale * src[i] (integers wrap); out and src may be unaligned. */
void tn_acc_scale(int type, void *out, const void *src, size_t count,
                  const tn_aval_t *scale);

#endif
