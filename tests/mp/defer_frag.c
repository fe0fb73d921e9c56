/* RMA of several fragments issued from inside active-message handlers
 * (src/xport/ofi/ofi_defer.c): every rank floods its neighbours with Short
 * Requests; each handler of message k from src puts L bytes back into
 * src's segment (every 4th message, nbi) and gets L bytes from src (every
 * 8th, nbi), with L a few times TERN_OFI_MAX_MSG, so that a transfer is
 * cut into fragments, and with TERN_OFI_TX_DEPTH=4 handlers' transfers
 * are queued (whole, or after some fragments went) and finished by later
 * polls. The main loops also put L bytes to their
 * right neighbour now and then, outside handlers, behind what is queued.
 * After a quiet and a barrier every rank checks byte for byte: each
 * handler's put landed whole at its place, each handler's get brought the
 * peer's bytes, and the main loop's puts landed.
 *
 * With TEST_DEFER_FAULT=1 (run with TERN_TEST_FAULT=issue:N) fragments
 * fail at issue: the failures must reach what completes the operations
 * (a put call's status, or the quiet), and nothing may hang; data is not
 * checked then. */
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "mp_util.h"

enum { H_FLOOD = 31 };

static int me, n, faults;
static long count;
static size_t len; /* bytes per transfer */
/* Symmetric: hput[t][j] (puts of rank t's handlers, j-th), mput[t][j]
 * (main-loop puts of rank t), gsrc (what handlers get from this rank). */
static unsigned char *hput, *mput, *gsrc;
static unsigned char *gdst; /* [n][count / 8 + 1][len]: this rank's gets */
static unsigned char *psrc; /* [len]: constant source of the handlers' puts */
static _Atomic long *got;   /* [n]: messages handled per sender */
static _Atomic long failed; /* calls refused with an error in handlers */

static size_t nput(void)
{
    return (size_t)(count / 4 + 1);
}

static void on_flood(tern_am_token_t t, void *buf, size_t l, const tern_am_arg_t *a,
                     int na)
{
    (void)buf;
    (void)l;
    int src = -1;
    MP_OK(tern_am_source(t, &src));
    long k = na == 1 ? (long)a[0] : -1;
    MP_CHECK(k == atomic_load_explicit(&got[src], memory_order_relaxed),
             "message %ld from %d out of order", k, src);
    int rc = TERN_OK;
    if (k % 4 == 0) {
        unsigned char *to = hput + ((size_t)me * nput() + (size_t)(k / 4)) * len;
        rc = tern_put_nbi(src, tern_sym_addr(src, to), psrc, len, 0);
    } else if (k % 8 == 2) {
        unsigned char *to =
            gdst + ((size_t)src * (size_t)(count / 8 + 1) + (size_t)(k / 8)) * len;
        rc = tern_get_nbi(to, src, tern_sym_addr(src, gsrc), len, 0);
    }
    if (rc != TERN_OK) {
        MP_CHECK(faults, "a handler's transfer failed: %s", tern_strerror(rc));
        atomic_fetch_add(&failed, 1);
    }
    atomic_fetch_add_explicit(&got[src], 1, memory_order_release);
}

static size_t check_bytes(const unsigned char *p, int rank, unsigned salt)
{
    size_t bad = 0;
    for (size_t i = 0; i < len; i++)
        bad += p[i] != mp_pattern(rank, i, salt);
    return bad;
}

int main(int argc, char **argv)
{
    me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    n = tern_size();
    if (n < 2)
        return mp_finish("defer_frag"); /* no pair */
    int right = (me + 1) % n, left = (me + n - 1) % n, two = n > 2;
    const char *ce = getenv("TEST_DEFER_COUNT");
    count = ce ? atol(ce) : 2000;
    faults = getenv("TEST_DEFER_FAULT") != NULL;
    const char *le = getenv("TEST_DEFER_LEN");
    len = le ? (size_t)atol(le) : 3 * 1024 + 100; /* 4 fragments of TERN_OFI_MAX_MSG=1K */
    size_t nm = (size_t)(count / 64 + 1);
    MP_OK(tern_alloc_sym((size_t)n * (nput() + nm) * len + len, (void **)&hput));
    mput = hput + (size_t)n * nput() * len;
    gsrc = mput + (size_t)n * nm * len;
    memset(hput, 0, (size_t)n * (nput() + nm) * len);
    for (size_t i = 0; i < len; i++)
        gsrc[i] = mp_pattern(me, i, 7);
    gdst = calloc((size_t)n * (size_t)(count / 8 + 1), len);
    psrc = malloc(len);
    unsigned char *msrc = malloc(len);
    got = calloc((size_t)n, sizeof(*got));
    MP_CHECK(gdst && psrc && msrc && got, "malloc");
    for (size_t i = 0; i < len; i++) {
        psrc[i] = mp_pattern(me, i, 0);
        msrc[i] = mp_pattern(me, i, 1);
    }
    MP_OK(tern_am_register(H_FLOOD, on_flood, "defer_frag flood"));
    MP_OK(tern_barrier());

    long mfail = 0;
    size_t mj = 0;
    for (long i = 0; i < count; i++) {
        tern_am_arg_t a = (tern_am_arg_t)i;
        MP_OK(tern_am_request_short(right, H_FLOOD, &a, 1, 0));
        if (two)
            MP_OK(tern_am_request_short(left, H_FLOOD, &a, 1, 0));
        if (i % 64 == 0) { /* outside handlers, perhaps behind queued ones */
            unsigned char *to = mput + ((size_t)me * nm + mj++) * len;
            int rc = tern_put_nbi(right, tern_sym_addr(right, to), msrc, len, 0);
            if (rc != TERN_OK) {
                MP_CHECK(faults, "a main-loop put failed: %s", tern_strerror(rc));
                mfail++;
            }
        }
        if (me % 2 == 1 && i % 500 == 499)
            usleep(10000); /* a receiver that does not poll for a while */
    }
    while (atomic_load_explicit(&got[left], memory_order_acquire) < count ||
           (two && atomic_load_explicit(&got[right], memory_order_acquire) < count))
        MP_OK(tern_poll());
    int qrc = tern_quiet(); /* the handlers' transfers and the main loop's */
    MP_OK(tern_barrier());
    if (faults) {
        long hf = atomic_load(&failed);
        MP_CHECK(qrc == TERN_OK || qrc == TERN_ERR_SYS || qrc == TERN_ERR_PEER,
                 "quiet gave %s", tern_strerror(qrc));
        /* A second quiet has nothing left to report. */
        MP_OK(tern_quiet());
        MP_CHECK(qrc != TERN_OK || hf > 0 || mfail > 0,
                 "no injected failure reached a completion of this rank");
        printf("defer_frag: rank %d: quiet %s, %ld handler calls and %ld main-loop "
               "calls refused\n",
               me, tern_strerror(qrc), hf, mfail);
    } else {
        MP_OK(qrc);
        int from[2] = {right, left};
        for (int s = 0; s < 1 + two; s++) {
            int t = from[s]; /* its handlers put here, and got from here */
            for (size_t j = 0; j < (size_t)((count - 1) / 4 + 1); j++) {
                size_t bad = check_bytes(hput + ((size_t)t * nput() + j) * len, t, 0);
                MP_CHECK(bad == 0, "put %zu of rank %d's handlers: %zu bytes wrong", j, t,
                         bad);
            }
            for (size_t j = 0; 8 * j + 2 < (size_t)count; j++) {
                size_t bad = check_bytes(
                    gdst + ((size_t)t * (size_t)(count / 8 + 1) + j) * len, t, 7);
                MP_CHECK(bad == 0,
                         "get %zu of this rank's handlers from rank %d: %zu "
                         "bytes wrong",
                         j, t, bad);
            }
        }
        for (size_t j = 0; j < (size_t)((count - 1) / 64 + 1); j++) {
            size_t bad = check_bytes(mput + ((size_t)left * nm + j) * len, left, 1);
            MP_CHECK(bad == 0, "main-loop put %zu of rank %d: %zu bytes wrong", j, left,
                     bad);
        }
    }
    MP_OK(tern_barrier());
    free(got);
    free(msrc);
    free(psrc);
    free(gdst);
    return mp_finish("defer_frag");
}
