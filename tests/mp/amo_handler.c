/* Atomics issued from inside active-message handlers while every rank
 * floods its neighbours with Requests: each handler of a message from src
 * adds to a word of src (nbi ADD, every 2nd message), fetch-adds another
 * (nbi FADD into a local array, every 8th) and puts 8 bytes back (every
 * 16th), on a domain created with TERN_AD_PROVIDER, so that across nodes
 * every op is the network provider's atomic (src/xport/ofi/ofi_amo.c).
 * With TERN_OFI_TX_DEPTH=4 the transmit descriptors run out: a handler
 * must then neither wait for one nor lose the op (queued and issued by
 * later polls, counted in the context). The main loops also add to their
 * right neighbour now and then, outside handlers, while handlers' ops may
 * be queued. After a quiet and a barrier every rank checks: each word has
 * exactly the adds sent to it, the fetched values of each handler's
 * fetch-adds are 0..m-1 once each, and every put landed. A domain created
 * without TERN_AD_PROVIDER that takes the active-message path refuses an
 * op from a handler to a network peer, naming TERN_AD_PROVIDER. */
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "mp_util.h"

enum { H_FLOOD = 30 };

static int me, n, right, left;
static long count;
static tern_ad_t ad, ad_am; /* TERN_AD_PROVIDER; and flags 0 */
static int am_impl;         /* ad_am takes the active-message path */
/* Symmetric, per source rank s: aword[s] (handler adds), fword[s] (handler
 * fetch-adds), mword[s] (main-loop adds), pword[s][k] (handler puts). */
static uint64_t *aword, *fword, *mword, *pword;
static uint64_t *fres;    /* [n][count / 8 + 1]: this rank's handlers' fetches */
static uint64_t *pv;      /* [count / 16 + 1]: constant sources of the puts */
static _Atomic long *got; /* [n]: messages handled per sender */
static _Atomic long bad;

static void on_flood(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                     int na)
{
    (void)buf;
    (void)len;
    int src = -1;
    MP_OK(tern_am_source(t, &src));
    long k = (long)a[0];
    if (na != 1 || k != atomic_load_explicit(&got[src], memory_order_relaxed)) {
        if (atomic_fetch_add(&bad, 1) < 5)
            fprintf(stderr, "rank %d: message %ld from %d out of order\n", me, k, src);
    }
    if (k == 0 && am_impl && !mp_mapped(src)) {
        /* An am domain's op is a Request: refused from a handler in every
         * form, naming the way out (it said "which must not wait" for an
         * nbi op, and the header promised the nbi form works). */
        tern_event_t ev;
        MP_EXPECT(tern_ad_op_nbi_u64(ad_am, src, tern_sym_addr(src, &aword[me]),
                                     TERN_OP_ADD, 1, 0, NULL, 0),
                  TERN_ERR_INVALID, "TERN_AD_PROVIDER");
        MP_EXPECT(tern_ad_op_nb_u64(ad_am, src, tern_sym_addr(src, &aword[me]),
                                    TERN_OP_ADD, 1, 0, NULL, &ev, 0),
                  TERN_ERR_INVALID, "TERN_AD_PROVIDER");
    }
    if (k % 2 == 0)
        MP_OK(tern_ad_op_nbi_u64(ad, src, tern_sym_addr(src, &aword[me]), TERN_OP_ADD, 1,
                                 0, NULL, 0));
    if (k % 8 == 0)
        MP_OK(tern_ad_op_nbi_u64(ad, src, tern_sym_addr(src, &fword[me]), TERN_OP_FADD, 1,
                                 0, &fres[(size_t)src * (size_t)(count / 8 + 1) + k / 8],
                                 0));
    if (k % 16 == 0)
        MP_OK(tern_put_nbi(
            src, tern_sym_addr(src, &pword[(size_t)me * (count / 16 + 1) + k / 16]),
            &pv[k / 16], 8, 0));
    atomic_fetch_add_explicit(&got[src], 1, memory_order_release);
}

/* The fetches of this rank's handlers from src's word: 0..m-1 once each. */
static void check_fetches(int src)
{
    long m = (count - 1) / 8 + 1;
    uint64_t *row = &fres[(size_t)src * (size_t)(count / 8 + 1)];
    unsigned char *seen = calloc((size_t)m, 1);
    MP_CHECK(seen, "calloc");
    long wrong = 0;
    for (long j = 0; j < m; j++) {
        if (row[j] >= (uint64_t)m || seen[row[j]]++) {
            if (wrong++ < 3)
                fprintf(stderr, "rank %d: fetch %ld from rank %d gave %llu\n", me, j, src,
                        (unsigned long long)row[j]);
        }
    }
    free(seen);
    MP_CHECK(wrong == 0, "%ld fetched values from rank %d wrong or repeated", wrong, src);
}

/* What the handlers of rank t (which received this rank's messages) did
 * here. */
static void check_from(int t)
{
    uint64_t adds = (uint64_t)((count + 1) / 2), fadds = (uint64_t)((count - 1) / 8 + 1);
    MP_CHECK(aword[t] == adds, "adds from rank %d's handlers: %llu, expected %llu", t,
             (unsigned long long)aword[t], (unsigned long long)adds);
    MP_CHECK(fword[t] == fadds, "fetch-adds from rank %d's handlers: %llu, expected %llu",
             t, (unsigned long long)fword[t], (unsigned long long)fadds);
    long missing = 0;
    for (long j = 0; 16 * j < count; j++)
        if (pword[(size_t)t * (count / 16 + 1) + j] != pv[j])
            missing++;
    MP_CHECK(missing == 0, "%ld puts from rank %d's handlers missing", missing, t);
}

int main(int argc, char **argv)
{
    me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    n = tern_size();
    if (n < 2)
        return mp_finish("amo_handler"); /* no pair */
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    const char *ce = getenv("TEST_AMOH_COUNT");
    count = ce ? atol(ce) : 20000;
    MP_OK(tern_ad_create(TERN_AT_U64, TERN_OP_ADD | TERN_OP_FADD, TERN_AD_PROVIDER, &ad));
    int impl;
    char why[640];
    MP_OK(tern_ad_info(ad, &impl, why, sizeof(why)));
    if (me == 0)
        printf("amo_handler: domain: %s\n", why);
    MP_OK(tern_ad_create(TERN_AT_U64, TERN_OP_ADD | TERN_OP_FADD, 0, &ad_am));
    MP_OK(tern_ad_info(ad_am, &impl, NULL, 0));
    am_impl = impl == TERN_AD_IMPL_AM;
    size_t per_p = (size_t)(count / 16 + 1);
    MP_OK(tern_alloc_sym((size_t)n * (3 + per_p) * 8, (void **)&aword));
    memset(aword, 0, (size_t)n * (3 + per_p) * 8);
    fword = aword + n;
    mword = fword + n;
    pword = mword + n;
    fres = calloc((size_t)n * (size_t)(count / 8 + 1), sizeof(*fres));
    pv = malloc(per_p * sizeof(*pv));
    got = calloc((size_t)n, sizeof(*got));
    MP_CHECK(fres && pv && got, "malloc");
    for (size_t j = 0; j < per_p; j++)
        pv[j] = 0x1000 + j;
    MP_OK(tern_am_register(H_FLOOD, on_flood, "amo_handler flood"));
    MP_OK(tern_barrier());

    int two = n > 2;
    long madds = 0;
    for (long i = 0; i < count; i++) {
        tern_am_arg_t a = (tern_am_arg_t)i;
        MP_OK(tern_am_request_short(right, H_FLOOD, &a, 1, 0));
        if (two)
            MP_OK(tern_am_request_short(left, H_FLOOD, &a, 1, 0));
        if (i % 32 == 0) { /* outside handlers, perhaps behind queued ones */
            MP_OK(tern_ad_op_nbi_u64(ad, right, tern_sym_addr(right, &mword[me]),
                                     TERN_OP_ADD, 1, 0, NULL, 0));
            madds++;
        }
        if (me % 2 == 1 && i % 5000 == 4999)
            usleep(20000); /* a receiver that does not poll for a while */
    }
    while (atomic_load_explicit(&got[left], memory_order_acquire) < count ||
           (two && atomic_load_explicit(&got[right], memory_order_acquire) < count))
        MP_OK(tern_poll());
    MP_OK(tern_quiet()); /* the handlers' ops and the main loop's */
    MP_OK(tern_barrier());
    long nbad = atomic_load(&bad);
    MP_CHECK(nbad == 0, "%ld messages out of order", nbad);
    check_fetches(left);
    check_from(right);
    if (two) {
        check_fetches(right);
        check_from(left);
    }
    MP_CHECK(mword[left] == (uint64_t)madds,
             "main-loop adds from rank %d: %llu, expected %ld", left,
             (unsigned long long)mword[left], madds);
    MP_OK(tern_barrier());
    MP_OK(tern_ad_destroy(ad));
    MP_OK(tern_ad_destroy(ad_am));
    free(got);
    free(pv);
    free(fres);
    return mp_finish("amo_handler");
}
