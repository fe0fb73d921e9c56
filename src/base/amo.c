/* CPU atomics on one word (base/amo.h), and the names of types and ops. */
#include <stdio.h>
#include <string.h>

#include "base/amo.h"

static const char *const type_names[TN_ATYPE_COUNT] = {"i32", "u32",   "i64",
                                                       "u64", "float", "double"};
static const char *const op_names[TN_AOP_COUNT] = {
    "get",  "set",  "swap", "cswap", "add",  "sub",  "inc",  "dec",
    "and",  "or",   "xor",  "min",   "max",  "mult", "fadd", "fsub",
    "finc", "fdec", "fand", "for",   "fxor", "fmin", "fmax", "fmult"};

const char *tn_atype_name(int type)
{
    return type >= 0 && type < TN_ATYPE_COUNT ? type_names[type] : "?";
}

const char *tn_aop_name(int op)
{
    return op >= 0 && op < TN_AOP_COUNT ? op_names[op] : "?";
}

void tn_aop_set_names(uint32_t set, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int op = 0; op < TN_AOP_COUNT && used < len; op++)
        if (set & TN_AOP_BIT(op)) {
            int w =
                snprintf(buf + used, len - used, "%s%s", used ? ", " : "", op_names[op]);
            if (w < 0)
                break;
            used += (size_t)w;
        }
    if (!buf[0] && len)
        snprintf(buf, len, "(none)");
}

/* The non-fetching op of op (FADD -> ADD); GET, SET, SWAP, CSWAP stay. */
static int base_op(int op)
{
    return op >= TN_AOP_FADD ? op - TN_AOP_FADD + TN_AOP_ADD : op;
}

#define SC __ATOMIC_SEQ_CST

/* Integer ops on T (a signed or unsigned type of width W): the locked
 * instructions where there is one, a CAS loop for MIN/MAX/MULT. Sums are
 * done in the unsigned type U so that they wrap without undefined
 * behaviour. */
#define INT_OP(T, U, p, op, a, b, oldp)                                              \
    do {                                                                             \
        T *w_ = (T *)(p);                                                            \
        T o_;                                                                        \
        switch (op) {                                                                \
        case TN_AOP_GET: o_ = __atomic_load_n(w_, SC); break;                        \
        case TN_AOP_SET: o_ = __atomic_exchange_n(w_, (a), SC); break;               \
        case TN_AOP_SWAP: o_ = __atomic_exchange_n(w_, (a), SC); break;              \
        case TN_AOP_CSWAP:                                                           \
            o_ = (a);                                                                \
            __atomic_compare_exchange_n(w_, &o_, (b), 0, SC, SC);                    \
            break;                                                                   \
        case TN_AOP_ADD: o_ = (T)__atomic_fetch_add((U *)w_, (U)(a), SC); break;     \
        case TN_AOP_SUB: o_ = (T)__atomic_fetch_sub((U *)w_, (U)(a), SC); break;     \
        case TN_AOP_INC: o_ = (T)__atomic_fetch_add((U *)w_, (U)1, SC); break;       \
        case TN_AOP_DEC: o_ = (T)__atomic_fetch_sub((U *)w_, (U)1, SC); break;       \
        case TN_AOP_AND: o_ = __atomic_fetch_and(w_, (a), SC); break;                \
        case TN_AOP_OR: o_ = __atomic_fetch_or(w_, (a), SC); break;                  \
        case TN_AOP_XOR: o_ = __atomic_fetch_xor(w_, (a), SC); break;                \
        default: { /* MIN, MAX, MULT */                                              \
            o_ = __atomic_load_n(w_, __ATOMIC_RELAXED);                              \
            T n_;                                                                    \
            do {                                                                     \
                if ((op) == TN_AOP_MIN)                                              \
                    n_ = (a) < o_ ? (a) : o_;                                        \
                else if ((op) == TN_AOP_MAX)                                         \
                    n_ = (a) > o_ ? (a) : o_;                                        \
                else                                                                 \
                    n_ = (T)((U)o_ * (U)(a));                                        \
            } while (                                                                \
                !__atomic_compare_exchange_n(w_, &o_, n_, 1, SC, __ATOMIC_RELAXED)); \
        }                                                                            \
        }                                                                            \
        memcpy((oldp), &o_, sizeof(T));                                              \
    } while (0)

/* Floating-point ops on F through its bit pattern B: every update is a CAS
 * loop on the bits (the hardware has no floating-point atomics). */
#define FP_OP(F, B, p, op, a, b, oldp)                                                 \
    do {                                                                               \
        B *w_ = (B *)(p), ob_, nb_, ab_, bb_;                                          \
        F o_, n_, av_ = (a);                                                           \
        memcpy(&ab_, &av_, sizeof(B));                                                 \
        F bv_ = (b);                                                                   \
        memcpy(&bb_, &bv_, sizeof(B));                                                 \
        if ((op) == TN_AOP_GET) {                                                      \
            ob_ = __atomic_load_n(w_, SC);                                             \
        } else if ((op) == TN_AOP_SET || (op) == TN_AOP_SWAP) {                        \
            ob_ = __atomic_exchange_n(w_, ab_, SC);                                    \
        } else if ((op) == TN_AOP_CSWAP) {                                             \
            ob_ = ab_;                                                                 \
            __atomic_compare_exchange_n(w_, &ob_, bb_, 0, SC, SC);                     \
        } else {                                                                       \
            ob_ = __atomic_load_n(w_, __ATOMIC_RELAXED);                               \
            do {                                                                       \
                memcpy(&o_, &ob_, sizeof(F));                                          \
                switch (op) {                                                          \
                case TN_AOP_ADD: n_ = o_ + av_; break;                                 \
                case TN_AOP_SUB: n_ = o_ - av_; break;                                 \
                case TN_AOP_INC: n_ = o_ + (F)1; break;                                \
                case TN_AOP_DEC: n_ = o_ - (F)1; break;                                \
                case TN_AOP_MIN: n_ = av_ < o_ ? av_ : o_; break;                      \
                case TN_AOP_MAX: n_ = av_ > o_ ? av_ : o_; break;                      \
                default: n_ = o_ * av_; break; /* MULT */                              \
                }                                                                      \
                memcpy(&nb_, &n_, sizeof(B));                                          \
            } while (                                                                  \
                !__atomic_compare_exchange_n(w_, &ob_, nb_, 1, SC, __ATOMIC_RELAXED)); \
        }                                                                              \
        memcpy((oldp), &ob_, sizeof(B));                                               \
    } while (0)

void tn_amo_cpu(int type, int op, void *p, const tn_aval_t *a1, const tn_aval_t *a2,
                tn_aval_t *old)
{
    op = base_op(op);
    switch (type) {
    case TN_ATYPE_I32: INT_OP(int32_t, uint32_t, p, op, a1->i32, a2->i32, old); break;
    case TN_ATYPE_U32: INT_OP(uint32_t, uint32_t, p, op, a1->u32, a2->u32, old); break;
    case TN_ATYPE_I64: INT_OP(int64_t, uint64_t, p, op, a1->i64, a2->i64, old); break;
    case TN_ATYPE_U64: INT_OP(uint64_t, uint64_t, p, op, a1->u64, a2->u64, old); break;
    case TN_ATYPE_FLOAT: FP_OP(float, uint32_t, p, op, a1->f, a2->f, old); break;
    default: FP_OP(double, uint64_t, p, op, a1->d, a2->d, old); break;
    }
}
