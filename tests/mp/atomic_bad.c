/* Atomic domains, bad input: each refused with its status and a message
 * naming what is wrong, and nothing changed at the target. */
#include <string.h>

#include "mp_util.h"

/* The call's status must be want, and its message must contain text. */
#define BAD(want, text, call)                                                           \
    do {                                                                                \
        mp_capture_begin();                                                             \
        int rc_ = (call);                                                               \
        const char *msg_ = mp_capture_end();                                            \
        MP_CHECK(rc_ == (want), "%s returned %d, not %d", #call, rc_, (want));          \
        MP_CHECK(strstr(msg_, text), "%s: message '%s' lacks '%s'", #call, msg_, text); \
    } while (0)

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size(), right = (me + 1) % n;
    uint64_t *w;
    MP_OK(tern_alloc_sym(4 * sizeof(uint64_t), (void **)&w));
    w[0] = 42;
    MP_OK(tern_barrier());
    char *rw = tern_sym_addr(right, w);
    tern_ad_t ad, fd;
    uint64_t r = 0;
    int32_t r32;

    /* Creation. */
    BAD(TERN_ERR_INVALID, "bitwise operations (xor) are not defined on double",
        tern_ad_create(TERN_AT_DOUBLE, TERN_OP_FADD | TERN_OP_XOR, 0, &fd));
    BAD(TERN_ERR_INVALID, "bitwise operations (and, for) are not defined on float",
        tern_ad_create(TERN_AT_FLOAT, TERN_OP_AND | TERN_OP_FOR, 0, &fd));
    BAD(TERN_ERR_INVALID, "empty", tern_ad_create(TERN_AT_U64, 0, 0, &ad));
    BAD(TERN_ERR_INVALID, "bits beyond",
        tern_ad_create(TERN_AT_U64, TERN_OP_FADD | (1u << 30), 0, &ad));
    BAD(TERN_ERR_INVALID, "type 9", tern_ad_create(9, TERN_OP_FADD, 0, &ad));
    BAD(TERN_ERR_INVALID, "bits 0x4 are not defined",
        tern_ad_create(TERN_AT_U64, TERN_OP_FADD, 4, &ad));
    BAD(TERN_ERR_INVALID, "out is NULL",
        tern_ad_create(TERN_AT_U64, TERN_OP_FADD, 0, NULL));

    MP_OK(tern_ad_create(TERN_AT_U64, TERN_OP_FADD | TERN_OP_GET, 0, &ad));
    /* Operations. */
    BAD(TERN_ERR_INVALID, "op swap is not in the atomic domain's set {get, fadd}",
        tern_ad_op_u64(ad, right, rw, TERN_OP_SWAP, 1, 0, &r, 0));
    BAD(TERN_ERR_INVALID, "not one TERN_OP_",
        tern_ad_op_u64(ad, right, rw, TERN_OP_FADD | TERN_OP_GET, 1, 0, &r, 0));
    BAD(TERN_ERR_INVALID, "is for u64, not i32",
        tern_ad_op_i32(ad, right, rw, TERN_OP_FADD, 1, 0, &r32, 0));
    BAD(TERN_ERR_INVALID, "not aligned to the 8 bytes",
        tern_ad_op_u64(ad, right, rw + 4, TERN_OP_FADD, 1, 0, &r, 0));
    BAD(TERN_ERR_RANGE, "outside the segment of rank",
        tern_ad_op_u64(ad, right, &r, TERN_OP_FADD, 1, 0, &r, 0));
    BAD(TERN_ERR_INVALID, "result is NULL",
        tern_ad_op_nbi_u64(ad, right, rw, TERN_OP_FADD, 1, 0, NULL, 0));
    BAD(TERN_ERR_RANK, "rank", tern_ad_op_u64(ad, n, rw, TERN_OP_FADD, 1, 0, &r, 0));
    BAD(TERN_ERR_INVALID, "not TERN_FLAG_",
        tern_ad_op_u64(ad, right, rw, TERN_OP_FADD, 1, 0, &r, 0x100));
    BAD(TERN_ERR_INVALID, "is not an atomic domain",
        tern_ad_op_u64((tern_ad_t)&r, right, rw, TERN_OP_FADD, 1, 0, &r, 0));
    MP_OK(tern_ad_op_u64(ad, right, rw, TERN_OP_GET, 0, 0, &r, 0));
    MP_CHECK(r == 42, "the word changed to %llu", (unsigned long long)r);
    MP_OK(tern_barrier());

    /* Destroyed. */
    MP_OK(tern_ad_destroy(ad));
    BAD(TERN_ERR_INVALID, "was destroyed",
        tern_ad_op_u64(ad, right, rw, TERN_OP_FADD, 1, 0, &r, 0));
    BAD(TERN_ERR_INVALID, "was destroyed", tern_ad_destroy(ad));
    BAD(TERN_ERR_INVALID, "was destroyed", tern_ad_info(ad, NULL, NULL, 0));
    MP_CHECK(w[0] == 42, "the word changed to %llu", (unsigned long long)w[0]);
    return mp_finish("atomic_bad");
}
