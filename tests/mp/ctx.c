/* Contexts: nbi operations tracked per context, quiet and fence per
 * context, the default context as the short forms, bad contexts refused
 * with a message. */
#include <string.h>

#include "mp_util.h"

#define LEN 8192

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size(), right = (me + 1) % n, left = (me + n - 1) % n;
    unsigned char *seg;
    uint64_t *flag;
    MP_OK(tern_alloc_sym(2 * LEN, (void **)&seg));
    MP_OK(tern_alloc_sym(sizeof(*flag), (void **)&flag));
    *flag = 0;
    MP_OK(tern_barrier());
    static unsigned char src[2 * LEN], back[2 * LEN];
    for (size_t i = 0; i < sizeof(src); i++)
        src[i] = mp_pattern(me, i, 9);

    tern_ctx_t a, b;
    MP_OK(tern_ctx_create(0, &a));
    MP_OK(tern_ctx_create(0, &b));
    MP_CHECK(a != b && a != TERN_CTX_DEFAULT, "contexts are distinct");

    /* Payload on context a, fence, then the flag on a: the right neighbour
     * sees the payload once it sees the flag. */
    MP_OK(tern_ctx_put_nbi(a, right, tern_sym_addr(right, seg), src, LEN, 0));
    MP_OK(tern_ctx_put_nbi(b, right, tern_sym_addr(right, seg) + LEN, src + LEN, LEN, 0));
    MP_OK(tern_ctx_fence(a));
    uint64_t one = 1;
    MP_OK(tern_ctx_put_nbi(a, right, tern_sym_addr(right, flag), &one, sizeof(one), 0));
    MP_OK(tern_ctx_quiet(a));
    MP_OK(tern_wait_until_u64(flag, TERN_CMP_EQ, 1));
    for (size_t i = 0; i < LEN; i++)
        MP_CHECK(seg[i] == mp_pattern(left, i, 9), "fenced payload byte %zu", i);
    MP_OK(tern_ctx_quiet(b));
    MP_OK(tern_barrier());
    for (size_t i = LEN; i < 2 * LEN; i++)
        MP_CHECK(seg[i] == mp_pattern(left, i, 9), "context b byte %zu", i);

    /* Gets on a context, completed by that context's sync. */
    MP_OK(tern_ctx_get_nbi(b, back, right, tern_sym_addr(right, seg), 2 * LEN, 0));
    MP_OK(tern_ctx_nbi_sync(b, TERN_SYNC_REMOTE));
    for (size_t i = 0; i < 2 * LEN; i++)
        MP_CHECK(back[i] == mp_pattern(me, i, 9), "get byte %zu", i);
    /* Blocking and event forms take a context too. */
    tern_event_t ev;
    MP_OK(tern_ctx_get_nb(a, back, right, tern_sym_addr(right, seg), 16, &ev, 0));
    MP_OK(tern_event_wait(ev));
    MP_OK(tern_ctx_put(b, right, tern_sym_addr(right, flag), &one, sizeof(one), 0));
    MP_OK(tern_quiet());
    MP_OK(tern_fence());

    /* Misuse. */
    MP_OK(tern_ctx_destroy(b));
    MP_CHECK(tern_ctx_quiet(b) == TERN_ERR_INVALID, "destroyed context accepted");
    MP_CHECK(tern_ctx_put_nbi(b, right, tern_sym_addr(right, flag), &one, 8, 0) ==
                     TERN_ERR_INVALID ||
                 mp_mapped(right),
             "destroyed context accepted by a network put");
    MP_CHECK(tern_ctx_destroy(TERN_CTX_DEFAULT) == TERN_ERR_INVALID, "default destroyed");
    MP_CHECK(tern_ctx_quiet((tern_ctx_t)src) == TERN_ERR_INVALID, "garbage accepted");
    tern_ctx_t c;
    MP_CHECK(tern_ctx_create(5, &c) == TERN_ERR_INVALID, "unknown option accepted");
    MP_CHECK(tern_ctx_create(0, NULL) == TERN_ERR_INVALID, "NULL out accepted");
    /* A destroyed context is reused by the next create. */
    MP_OK(tern_ctx_create(0, &c));
    MP_OK(tern_ctx_destroy(c));
    MP_OK(tern_ctx_destroy(a)); /* a stays live until here */
    return mp_finish("ctx");
}
