/* Calls that would wait, made from inside an active-message handler
 * (include/tern/am.h: "a waiting call made from a handler returns
 * TERN_ERR_INVALID"; issue 8). Every rank sends one Request to its right
 * neighbour, whose handler targets the sender (its left neighbour):
 *  - put with signal (blocking and nbi, with and without data) to a rank
 *    that is not mapped here, or whose signal word takes the provider's
 *    atomics, waits (for the data's remote completion, for the network
 *    atomic): refused, naming the call, nothing sent (the sender's signal
 *    word stays 0);
 *  - to a mapped rank whose signal word takes CPU atomics (one node, or
 *    the active-message path) it is a copy and a CPU atomic, no wait: it
 *    works (the signal word gets the four adds);
 *  - the vector waits on signal words and tern_ctx_destroy (which
 *    completes the context's operations) refuse, as tern_wait_until_u64
 *    and tern_ctx_quiet do: nothing polls inside a handler, so a wait
 *    there never ends unless it needs nothing.
 * With TEST_HANDLER_WAIT_ATOMIC=1 (mp.handler_wait_atomic) the handler
 * also tries a blocking atomic of a TERN_AD_PROVIDER domain on an
 * unmapped rank, which is refused the same way. */
#include <stdatomic.h>
#include <string.h>

#include "mp_util.h"

enum { H_TRY = 32 };

static int me, n;
static uint64_t *sig;      /* symmetric: [0] the signal word the right
                             neighbour's handler targets */
static unsigned char *buf; /* symmetric: 64 bytes of data */
static tern_ad_t ad;
static int try_atomic;
static _Atomic uint64_t done; /* set by the handler when it is through */
static int rc_sig0, rc_sig8, rc_nbi0, rc_nbi8, rc_amo = TERN_OK;
static tern_ctx_t hctx; /* created by main, destroyed by the handler? */
static int rc_all, rc_any, rc_some, rc_destroy;
static uint64_t zero[1]; /* a word already at the value waited for */
static char msg[4][256];

static void keep(int i, const char *m)
{
    snprintf(msg[i], sizeof(msg[i]), "%s", m ? m : "");
}

static void on_try(tern_am_token_t t, void *b, size_t l, const tern_am_arg_t *a, int na)
{
    (void)b;
    (void)l;
    (void)a;
    (void)na;
    int src = -1;
    MP_OK(tern_am_source(t, &src));
    uint64_t *ps = tern_sym_addr(src, &sig[0]);
    unsigned char *pb = tern_sym_addr(src, buf);
    static const unsigned char data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    mp_capture_begin();
    rc_sig0 = tern_put_signal(src, pb, NULL, 0, ps, 1, TERN_SIGNAL_ADD, 0);
    keep(0, mp_capture_end());
    mp_capture_begin();
    rc_sig8 = tern_put_signal(src, pb, data, 8, ps, 1, TERN_SIGNAL_ADD, 0);
    keep(1, mp_capture_end());
    mp_capture_begin();
    rc_nbi0 = tern_put_signal_nbi(src, pb, NULL, 0, ps, 1, TERN_SIGNAL_ADD, 0);
    keep(2, mp_capture_end());
    mp_capture_begin();
    rc_nbi8 = tern_put_signal_nbi(src, pb, data, 8, ps, 1, TERN_SIGNAL_ADD, 0);
    keep(3, mp_capture_end());
    size_t idx = 0, cnt = 0;
    rc_all = tern_wait_until_all_u64(zero, 1, NULL, TERN_CMP_EQ, 0);
    rc_any = tern_wait_until_any_u64(zero, 1, NULL, TERN_CMP_EQ, 0, &idx);
    rc_some = tern_wait_until_some_u64(zero, 1, NULL, TERN_CMP_EQ, 0, &idx, &cnt);
    rc_destroy = tern_ctx_destroy(hctx);
    if (try_atomic)
        rc_amo = tern_ad_op_u64(ad, src, ps, TERN_OP_ADD, 1, 0, NULL, 0);
    atomic_store_explicit(&done, 1, memory_order_release);
}

int main(int argc, char **argv)
{
    me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    n = tern_size();
    if (n < 2)
        return mp_finish("handler_wait"); /* no pair */
    int right = (me + 1) % n, left = (me + n - 1) % n, all_mapped = 1;
    for (int r = 0; r < n; r++)
        all_mapped &= mp_mapped(r);
    try_atomic = getenv("TEST_HANDLER_WAIT_ATOMIC") != NULL;
    MP_OK(tern_alloc_sym(64 + 64, (void **)&sig));
    memset(sig, 0, 128);
    buf = (unsigned char *)sig + 64;
    MP_OK(tern_ad_create(TERN_AT_U64, TERN_OP_ADD, TERN_AD_PROVIDER, &ad));
    MP_OK(tern_ctx_create(0, &hctx));
    MP_OK(tern_am_register(H_TRY, on_try, "handler_wait try"));
    MP_OK(tern_barrier());

    tern_am_arg_t a = 0;
    MP_OK(tern_am_request_short(right, H_TRY, &a, 1, 0));
    MP_OK(tern_wait_until_u64((const volatile uint64_t *)&done, TERN_CMP_EQ, 1));
    MP_OK(tern_quiet());
    MP_OK(tern_barrier());

    /* This rank's handler targeted left; right's handler targeted us. A
     * put with signal completes in the call where both sides are mapped
     * and signal words take CPU atomics there: one node, or the am path
     * (an atomic domain for u64 {set, add} says which). */
    tern_ad_t sd;
    int impl = -1;
    MP_OK(tern_ad_create(TERN_AT_U64, TERN_OP_SET | TERN_OP_ADD, 0, &sd));
    MP_OK(tern_ad_info(sd, &impl, NULL, 0));
    MP_OK(tern_ad_destroy(sd));
    int cpu_words = all_mapped || impl == TERN_AD_IMPL_AM;
    const char *names[4] = {"tern_put_signal", "tern_put_signal", "tern_put_signal_nbi",
                            "tern_put_signal_nbi"};
    int rcs[4] = {rc_sig0, rc_sig8, rc_nbi0, rc_nbi8};
    for (int i = 0; i < 4; i++) {
        if (mp_mapped(left) && cpu_words) {
            MP_CHECK(rcs[i] == TERN_OK,
                     "%s (%d bytes) from a handler to mapped rank %d: %s", names[i],
                     i & 1 ? 8 : 0, left, tern_strerror(rcs[i]));
            continue;
        }
        MP_CHECK(rcs[i] == TERN_ERR_INVALID,
                 "%s (%d bytes) from a handler to %s rank %d gave %s, expected "
                 "TERN_ERR_INVALID (it would wait)",
                 names[i], i & 1 ? 8 : 0, mp_mapped(left) ? "mapped" : "unmapped", left,
                 tern_strerror(rcs[i]));
        MP_CHECK(strstr(msg[i], names[i]) && strstr(msg[i], "handler"),
                 "%s from a handler: message '%s' does not name the call and the handler",
                 names[i], msg[i]);
    }
    if (try_atomic && !mp_mapped(left))
        MP_CHECK(
            rc_amo == TERN_ERR_INVALID,
            "blocking atomic of a provider domain from a handler to unmapped rank %d "
            "gave %s, expected TERN_ERR_INVALID (it waits)",
            left, tern_strerror(rc_amo));
    /* Waiting calls refuse in a handler, ready or not (as
     * tern_wait_until_u64 and tern_ctx_quiet do): the vector waits, and
     * tern_ctx_destroy, which completes the context's operations. */
    const char *wnames[4] = {"tern_wait_until_all_u64", "tern_wait_until_any_u64",
                             "tern_wait_until_some_u64", "tern_ctx_destroy"};
    int wrcs[4] = {rc_all, rc_any, rc_some, rc_destroy};
    for (int i = 0; i < 4; i++)
        MP_CHECK(wrcs[i] == TERN_ERR_INVALID,
                 "%s from a handler gave %s, expected TERN_ERR_INVALID (it may wait, and "
                 "nothing polls inside a handler)",
                 wnames[i], tern_strerror(wrcs[i]));
    MP_OK(tern_ctx_destroy(hctx)); /* still there */
    uint64_t want = mp_mapped(right) && cpu_words ? 4 : 0;
    MP_CHECK(try_atomic || sig[0] == want,
             "signal word %llu, expected %llu (right neighbour's calls %s)",
             (unsigned long long)sig[0], (unsigned long long)want,
             want ? "complete in place" : "refused: nothing sent");
    MP_OK(tern_barrier());
    MP_OK(tern_ad_destroy(ad));
    return mp_finish("handler_wait");
}
