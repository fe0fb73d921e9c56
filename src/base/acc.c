/* Element-wise atomic accumulate with CPU atomics (see base/acc.h). The
 * loops are written per type so that the compiler keeps each element's
 * load, multiply and locked update in registers; integer arithmetic is
 * unsigned so that overflow wraps instead of being undefined. */
#include "base/acc.h"

#include <string.h>

#define ACC_INT(U, dst, src, count, scale)                                    \
    do {                                                                      \
        U *d_ = (U *)(dst);                                                   \
        const char *s_ = (const char *)(src);                                 \
        for (size_t i_ = 0; i_ < (count); i_++) {                             \
            U v_;                                                             \
            memcpy(&v_, s_ + i_ * sizeof(U), sizeof(U));                      \
            __atomic_fetch_add(&d_[i_], (U)(v_ * (scale)), __ATOMIC_RELAXED); \
        }                                                                     \
    } while (0)

/* One compare-and-swap loop per element on the bit pattern U of the
 * floating type F. */
#define ACC_FP(F, U, dst, src, count, scale)                                            \
    do {                                                                                \
        U *d_ = (U *)(dst);                                                             \
        const char *s_ = (const char *)(src);                                           \
        for (size_t i_ = 0; i_ < (count); i_++) {                                       \
            F v_, cur_;                                                                 \
            memcpy(&v_, s_ + i_ * sizeof(F), sizeof(F));                                \
            v_ *= (scale);                                                              \
            U old_ = __atomic_load_n(&d_[i_], __ATOMIC_RELAXED), new_;                  \
            do {                                                                        \
                memcpy(&cur_, &old_, sizeof(F));                                        \
                cur_ += v_;                                                             \
                memcpy(&new_, &cur_, sizeof(F));                                        \
            } while (!__atomic_compare_exchange_n(&d_[i_], &old_, new_, 1,              \
                                                  __ATOMIC_RELAXED, __ATOMIC_RELAXED)); \
        }                                                                               \
    } while (0)

void tn_acc_cpu(int type, void *dst, const void *src, size_t count,
                const tn_aval_t *scale)
{
    switch (type) {
    case TN_ATYPE_I32: ACC_INT(uint32_t, dst, src, count, scale ? scale->u32 : 1u); break;
    case TN_ATYPE_I64: ACC_INT(uint64_t, dst, src, count, scale ? scale->u64 : 1u); break;
    case TN_ATYPE_FLOAT:
        ACC_FP(float, uint32_t, dst, src, count, scale ? scale->f : 1.0f);
        break;
    default: ACC_FP(double, uint64_t, dst, src, count, scale ? scale->d : 1.0); break;
    }
}

#define SCALE(T, out, src, count, scale)                                  \
    do {                                                                  \
        for (size_t i_ = 0; i_ < (count); i_++) {                         \
            T v_;                                                         \
            memcpy(&v_, (const char *)(src) + i_ * sizeof(T), sizeof(T)); \
            v_ = (T)(v_ * (scale));                                       \
            memcpy((char *)(out) + i_ * sizeof(T), &v_, sizeof(T));       \
        }                                                                 \
    } while (0)

void tn_acc_scale(int type, void *out, const void *src, size_t count,
                  const tn_aval_t *scale)
{
    if (!scale) {
        memmove(out, src, count * tn_atype_size(type));
        return;
    }
    switch (type) {
    case TN_ATYPE_I32: SCALE(uint32_t, out, src, count, scale->u32); break;
    case TN_ATYPE_I64: SCALE(uint64_t, out, src, count, scale->u64); break;
    case TN_ATYPE_FLOAT: SCALE(float, out, src, count, scale->f); break;
    default: SCALE(double, out, src, count, scale->d); break;
    }
}
