/* Atomic operations as every layer names them: the types and operations
 * of atomic domains (an op set is a mask of 1u << TN_AOP_*), the operand
 * value, and the CPU implementation on a word of memory (used for mapped
 * peers, and by the AM path at the target). */
#ifndef TN_AMO_H
#define TN_AMO_H

#include <stddef.h>
#include <stdint.h>

enum {
    TN_ATYPE_I32,
    TN_ATYPE_U32,
    TN_ATYPE_I64,
    TN_ATYPE_U64,
    TN_ATYPE_FLOAT,
    TN_ATYPE_DOUBLE,
    TN_ATYPE_COUNT
};
enum {
    TN_AOP_GET,
    TN_AOP_SET,
    TN_AOP_SWAP,
    TN_AOP_CSWAP,
    TN_AOP_ADD,
    TN_AOP_SUB,
    TN_AOP_INC,
    TN_AOP_DEC,
    TN_AOP_AND,
    TN_AOP_OR,
    TN_AOP_XOR,
    TN_AOP_MIN,
    TN_AOP_MAX,
    TN_AOP_MULT,
    TN_AOP_FADD, /* fetching forms: the old value comes back */
    TN_AOP_FSUB,
    TN_AOP_FINC,
    TN_AOP_FDEC,
    TN_AOP_FAND,
    TN_AOP_FOR,
    TN_AOP_FXOR,
    TN_AOP_FMIN,
    TN_AOP_FMAX,
    TN_AOP_FMULT,
    TN_AOP_COUNT
};

/* TERN_OFI_ATOMICS, in the order of its choices. */
enum { TN_AMO_CFG_AUTO = 0, TN_AMO_CFG_NET = 1, TN_AMO_CFG_AM = 2 };

#define TN_AOP_BIT(op) (1u << (op))
/* Operations that return the old value. */
#define TN_AOPS_FETCHING                                                           \
    (TN_AOP_BIT(TN_AOP_GET) | TN_AOP_BIT(TN_AOP_SWAP) | TN_AOP_BIT(TN_AOP_CSWAP) | \
     (((1u << TN_AOP_COUNT) - 1) & ~((1u << TN_AOP_FADD) - 1)))
/* Bitwise operations (refused for float and double). */
#define TN_AOPS_BITWISE                                                        \
    (TN_AOP_BIT(TN_AOP_AND) | TN_AOP_BIT(TN_AOP_OR) | TN_AOP_BIT(TN_AOP_XOR) | \
     TN_AOP_BIT(TN_AOP_FAND) | TN_AOP_BIT(TN_AOP_FOR) | TN_AOP_BIT(TN_AOP_FXOR))
#define TN_AOPS_ALL ((1u << TN_AOP_COUNT) - 1)

/* One operand or result of any type (the first 4 or 8 bytes are used). */
typedef union tn_aval {
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f;
    double d;
} tn_aval_t;

/* Bytes of a value of type (4 or 8). */
static inline size_t tn_atype_size(int type)
{
    return type == TN_ATYPE_I32 || type == TN_ATYPE_U32 || type == TN_ATYPE_FLOAT ? 4 : 8;
}

/* Names for messages: "u64", "fadd". */
const char *tn_atype_name(int type);
const char *tn_aop_name(int op);
/* The names of the ops in set, ", "-separated, into buf. A buf of
 * TN_AOP_SET_NAMES_MAX bytes holds every set: all 24 names, 85 bytes,
 * 23 separators and the NUL (tests/unit/test_amo_cpu.c checks it). */
#define TN_AOP_SET_NAMES_MAX 132
void tn_aop_set_names(uint32_t set, char *buf, size_t len);

/* op on the naturally aligned word p of type with CPU atomics (sequentially
 * consistent), as atomic with respect to every other tn_amo_cpu on the
 * same word from any process that maps it. a1: the operand (CSWAP: the
 * value compared), a2: CSWAP's new value. *old receives the previous
 * value (for every op). Integer arithmetic wraps; MIN, MAX, MULT and the
 * floating-point ones are compare-and-swap loops; CSWAP on float and
 * double compares bit patterns. Cost: one locked instruction for
 * GET/SET/SWAP/CSWAP/ADD-like and bitwise integer ops. */
void tn_amo_cpu(int type, int op, void *p, const tn_aval_t *a1, const tn_aval_t *a2,
                tn_aval_t *old);

#endif
