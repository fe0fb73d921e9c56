/* Puts that carry their own arrival signal (TN_XPORT_FLAG_SIGNAL,
 * src/xport/xport.h), as the eager broadcast over the network uses them
 * (core/coll_eager.c). Every rank writes to the next rank through that
 * rank's transport (self, shm or the network: mixed jobs have both):
 * - ordering: the reader polls the signal word in memory and checks every
 *   byte as soon as it sees its value (the transport raises it after the
 *   data; a transport that raised it first fails this);
 * - done objects: no remote completion (TN_XPORT_FLAG_NOREMOTE, local
 *   completion only) and local + remote completion, alternately; the
 *   writer overwrites its source once local completion ended, so bytes
 *   the transport read after that would reach the reader as 0xee;
 * - sizes: within the inject size, one and several 4 KiB pages, 64 KiB
 *   (up to the transport's fragment: a signalled put is one fragment);
 * - raise, not store: a signal lower than the word's value leaves it;
 * - bad use, refused by the transport with a message and nothing issued:
 *   a get, 0 bytes, more than one fragment (TERN_OFI_MAX_MSG=4K in a
 *   second test), a misaligned or missing signal word, the static region,
 *   from a handler; a word outside the target's mapping (its first word
 *   past the end and 1 GiB past it, which the network's remote CQ data
 *   could name but the target could not raise; TN_XPORT_SIGNAL_SPAN past
 *   the word; below the mapping: never wrapped into it), in every
 *   transport;
 * - errors: MP_FAULT=complete (TERN_TEST_FAULT=complete:1, every network
 *   completion failing): every signalled put above the inject size
 *   reports its failure through its local completion; MP_FAULT=issue
 *   (issue:3): every third fails in the call, nothing issued. */
#include <stdatomic.h>
#include <stdint.h>

#include "core/core.h"
#include "core/event.h"
#include "mp_util.h"
#include "xport/xport.h"

#define BIG    ((size_t)65536)
#define ROUNDS 3

static const size_t sizes[] = {4, 100, 4096, 4096 * 3 + 5, BIG};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static const char *faulty; /* MP_FAULT: complete, issue, or NULL */

/* Starts a put of n bytes from src to the same offset of dst at rank that
 * raises rank's copy of *w to v: without remote completion (lc only) or
 * with both. */
static int put_signal(int rank, void *dst, const void *src, size_t n, _Atomic uint32_t *w,
                      uint32_t v, int noremote, tn_comp_t *lc, tn_comp_t *rc)
{
    tn_comp_init(lc, 0);
    tn_comp_init(rc, 0);
    tn_xport_done_t done = {lc, noremote ? NULL : rc};
    tn_rma_t d = {TN_RMA_PUT,
                  rank,
                  (void *)(uintptr_t)src,
                  tern_sym_addr(rank, dst),
                  n,
                  TN_REGION_SEG,
                  tern_sym_addr(rank, (void *)w),
                  v};
    return tn_core_rma_start(
        &d, &done, TN_XPORT_FLAG_SIGNAL | (noremote ? TN_XPORT_FLAG_NOREMOTE : 0));
}

static void wait_word(_Atomic uint32_t *w, uint32_t v)
{
    while ((int32_t)(atomic_load_explicit(w, memory_order_acquire) - v) < 0)
        MP_OK(tern_poll());
}

/* A 4-byte signalled put raising rank's *w to v, waited for locally. */
static void signal_only(int rank, uint32_t *scratch, _Atomic uint32_t *w, uint32_t v)
{
    tn_comp_t lc, rc;
    MP_OK(put_signal(rank, scratch, scratch, sizeof(*scratch), w, v, 1, &lc, &rc));
    MP_OK(tn_comp_wait(&lc));
}

static void bad_use(const tn_peer_t *p, int to, unsigned char *land, unsigned char *src,
                    _Atomic uint32_t *w)
{
    tn_comp_t lc, rc;
    tn_comp_init(&lc, 1);
    tn_comp_init(&rc, 1);
    void *rw = tern_sym_addr(to, (void *)w);
    tn_rma_t put = {TN_RMA_PUT,    to, src, tern_sym_addr(to, land), 64,
                    TN_REGION_SEG, rw, 1};
    tn_rma_t get = put, empty = put, odd = put, none = put, stat = put, big = put;
    get.kind = TN_RMA_GET;
    empty.n = 0;
    odd.signal = (char *)rw + 1;
    none.signal = NULL;
    stat.region = TN_REGION_STATIC;
    big.n = p->xport->caps.rma_frag < BIG ? p->xport->caps.rma_frag + 1 : 0;
    tn_xport_done_t both = {&lc, &rc};
    tn_xport_t *x = p->xport->x;
    int (*rma)(tn_xport_t *, const tn_rma_t *, const tn_xport_done_t *, unsigned) =
        p->xport->ops.rma;
    unsigned f = TN_XPORT_FLAG_SIGNAL;
    MP_EXPECT(rma(x, &get, &both, f), TERN_ERR_INVALID, "it was a get");
    MP_EXPECT(rma(x, &empty, &both, f), TERN_ERR_INVALID, "within one fragment");
    MP_EXPECT(rma(x, &odd, &both, f), TERN_ERR_INVALID, "4-byte aligned");
    MP_EXPECT(rma(x, &none, &both, f), TERN_ERR_INVALID, "4-byte aligned");
    MP_EXPECT(rma(x, &stat, &both, f), TERN_ERR_INVALID, "not in the segment mapping");
    MP_EXPECT(rma(x, &put, &both, f | TN_XPORT_FLAG_HANDLER), TERN_ERR_INVALID,
              "from a message handler");
    if (big.n) /* TERN_OFI_MAX_MSG=4K: a put of two fragments */
        MP_EXPECT(rma(x, &big, &both, f), TERN_ERR_INVALID, "within one fragment");
    /* A word outside the target's mapping, refused by every transport:
     * past its end (the first word after it, and 1 GiB after it, inside
     * the span the network's remote CQ data can name, which the target
     * would otherwise drop), 16 GiB past the word, below the mapping. */
    const tn_peer_info_t *ti = tn_core_info(to);
    char *end = (char *)(uintptr_t)(ti->data_base - ti->ctrl_size) + tn_core.seg.map_size;
    tn_rma_t far = put, below = put, past = put, gib = put;
    far.signal = (char *)rw + TN_XPORT_SIGNAL_SPAN;
    below.signal = (void *)(uintptr_t)4096;
    past.signal = end;
    gib.signal = end + ((size_t)1 << 30);
    MP_EXPECT(rma(x, &past, &both, f), TERN_ERR_INVALID, "outside that rank's mapping");
    MP_EXPECT(rma(x, &gib, &both, f), TERN_ERR_INVALID, "outside that rank's mapping");
    MP_EXPECT(rma(x, &far, &both, f), TERN_ERR_INVALID, "outside that rank's mapping");
    MP_EXPECT(rma(x, &below, &both, f), TERN_ERR_INVALID, "outside that rank's mapping");
    MP_CHECK(atomic_load(&lc.pending) == 1 && atomic_load(&rc.pending) == 1,
             "a refused put touched its completion objects");
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int me = tern_rank(), n = tern_size();
    int to = (me + 1) % n, from = (me - 1 + n) % n;
    faulty = getenv("MP_FAULT");
    unsigned char *land;
    /* [0]: data here (raised by "from"), [1]: land free (raised by "to"),
     * [2]: the stale signal's check. */
    _Atomic uint32_t *words;
    uint32_t *scratch;
    MP_OK(tern_alloc_sym(BIG, (void **)&land));
    MP_OK(tern_alloc_sym(4 * sizeof(*words), (void **)&words));
    MP_OK(tern_alloc_sym(sizeof(*scratch), (void **)&scratch));
    for (int i = 0; i < 4; i++)
        atomic_store(&words[i], 0);
    *scratch = 0;
    unsigned char *src = malloc(BIG);
    MP_CHECK(src != NULL, "no memory");
    MP_OK(tern_barrier());
    const tn_peer_t *p = tn_core_peer(to);
    if (!(p->xport->caps.flags & TN_XCAP_PUT_SIGNAL)) {
        /* MP_NOSIGNAL: the network's transport has it turned off
         * (TERN_OFI_SIGNAL=0); a signalled put is refused, nothing else
         * is tested. Any other transport lacking it fails the test. */
        MP_CHECK(getenv("MP_NOSIGNAL") && !mp_mapped(to),
                 "the transport to rank %d (%s) lacks TN_XCAP_PUT_SIGNAL", to,
                 p->xport->ops.name);
        tn_comp_t lc, rc;
        tn_comp_init(&lc, 1);
        tn_comp_init(&rc, 1);
        tn_xport_done_t both = {&lc, &rc};
        tn_rma_t put = {TN_RMA_PUT,
                        to,
                        src,
                        tern_sym_addr(to, land),
                        64,
                        TN_REGION_SEG,
                        tern_sym_addr(to, (void *)words),
                        1};
        MP_EXPECT(p->xport->ops.rma(p->xport->x, &put, &both, TN_XPORT_FLAG_SIGNAL),
                  TERN_ERR_UNSUPPORTED, "TERN_OFI_SIGNAL=0");
        MP_CHECK(atomic_load(&lc.pending) == 1 && atomic_load(&rc.pending) == 1,
                 "a refused put touched its completion objects");
        MP_OK(tern_barrier());
        printf("put_signal: rank %d: refused to rank %d (%s)\n", me, to,
               p->xport->ops.name);
        free(src);
        return mp_finish("put_signal");
    }
    MP_CHECK(!getenv("MP_NOSIGNAL"), "TERN_OFI_SIGNAL=0 left TN_XCAP_PUT_SIGNAL on");
    int noremote_ok = (p->xport->caps.flags & TN_XCAP_PUT_NOREMOTE) != 0;
    if (!faulty)
        bad_use(p, to, land, src, words);
    size_t frag = p->xport->caps.rma_frag, inject = p->xport->caps.inject;
    uint32_t k = 0, failed = 0, lost = 0;
    for (size_t s = 0; s < NSIZES; s++) {
        size_t sz = sizes[s];
        if (sz > frag)
            continue;
        for (int r = 0; r < ROUNDS; r++) {
            k++;
            int noremote = noremote_ok && (k & 1);
            tn_comp_t lc, rc;
            for (size_t i = 0; i < sz; i++)
                src[i] = mp_pattern(me, i, k);
            if (faulty) {
                int st = put_signal(to, land, src, sz, &words[3], k, noremote, &lc, &rc);
                if (st == TERN_OK)
                    st = tn_comp_wait(&lc);
                if (st == TERN_OK && !noremote)
                    st = tn_comp_wait(&rc);
                int must_fail = strcmp(faulty, "issue") ? sz > inject : 0;
                if (st != TERN_OK)
                    failed++;
                else if (must_fail)
                    lost++;
                continue;
            }
            wait_word(&words[1], k - 1); /* the reader checked round k - 1 */
            MP_OK(put_signal(to, land, src, sz, &words[0], k, noremote, &lc, &rc));
            MP_OK(tn_comp_wait(&lc));
            memset(src, 0xee, sz); /* free once locally complete */
            if (!noremote)
                MP_OK(tn_comp_wait(&rc));
            wait_word(&words[0], k);
            size_t first, bad = mp_pattern_misses(land, sz, from, k, &first);
            MP_CHECK(bad == 0,
                     "round %u, %zu B from rank %d (%s): %zu bytes wrong from byte %zu "
                     "(0x%02x: %s)",
                     k, sz, from, noremote ? "no remote completion" : "lc + rc", bad,
                     first, first < sz ? land[first] : 0,
                     first < sz && land[first] == 0xee
                         ? "the source was read after its local completion"
                         : "the signal came before the data");
            signal_only(from, scratch, &words[1], k);
        }
    }
    if (faulty) {
        MP_CHECK(failed > 0 && lost == 0,
                 "MP_FAULT=%s: %u signalled put(s) that failed reported success "
                 "(inject size %zu B), %u reported their failure",
                 faulty, lost, inject, failed);
    } else if (p->xport->caps.flags & (TN_XCAP_ORDER_PUT | TN_XCAP_MAPPED)) {
        /* A stale value does not lower the word; the reader knows the
         * stale signal was handled when the one behind it arrived. */
        wait_word(&words[1], k); /* the reader is done with words[0] */
        signal_only(to, scratch, &words[0], k - 5);
        signal_only(to, scratch, &words[2], 1);
        wait_word(&words[2], 1);
        uint32_t now = atomic_load(&words[0]);
        MP_CHECK(now == k, "a signal of %u lowered the word from %u to %u", k - 5, k,
                 now);
    }
    printf("put_signal: rank %d wrote to rank %d by %s\n", me, to, p->xport->ops.name);
    free(src);
    return mp_finish("put_signal");
}
