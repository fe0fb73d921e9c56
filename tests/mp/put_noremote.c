/* Puts without remote completion (TN_XPORT_FLAG_NOREMOTE, src/xport/xport.h),
 * each followed by an ordered unacknowledged flag write, as the
 * collectives' large exchanges use them (tn_core_put_flagged). Every rank
 * writes to the next rank when that one is reached over the network (in
 * mixed jobs, the ranks across the simulated nodes):
 * - ordering: the reader polls the flag in memory and checks every byte
 *   as soon as it sees it (the data was written first);
 * - reuse of the source: once the put's local completion ended, the
 *   writer overwrites its source at once, before the flag write; bytes the
 *   provider read after that would reach the reader as 0xee;
 * - sizes: within the inject size (no completion at all), one fragment,
 *   several fragments (TERN_OFI_MAX_MSG=4K in a second test), 1 MiB;
 * - tn_core_put_flagged to every rank, mapped ones included (shm: a
 *   put with remote completion), in every configuration;
 * - bad use: a remote completion object, none for local completion, a
 *   get: TERN_ERR_INVALID with a message, nothing issued;
 * - errors: with MP_FAULT=complete (the job runs under
 *   TERN_TEST_FAULT=complete:1, every completion failing) every put of
 *   more than the inject size must report its failure through its local
 *   completion; with MP_FAULT=issue (TERN_TEST_FAULT=issue:3 and 4 KiB
 *   fragments: a later fragment fails at issue while earlier ones are in
 *   flight) every 1 MiB put must report it, never lose it. */
#include <stdatomic.h>
#include <stdint.h>

#include "core/core.h"
#include "core/event.h"
#include "mp_util.h"
#include "xport/xport.h"

#define BIG    ((size_t)1 << 20)
#define ROUNDS 4
/* 1 MiB puts go BURST at a time, from as many sources: more than the
 * socket takes at once, so that the provider still reads the later ones'
 * sources after their calls returned. */
#define BURST 8

static const size_t sizes[] = {1, 100, 4096 + 3, 65536 + 5, BIG};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static const char *faulty; /* MP_FAULT: complete, issue, or NULL */

/* Starts a put of n bytes from src to the same offset of dst at rank,
 * without remote completion, its local completion counted in *lc. */
static int put_start(int rank, void *dst, const void *src, size_t n, tn_comp_t *lc)
{
    tn_comp_init(lc, 0);
    tn_xport_done_t done = {lc, NULL};
    tn_rma_t d = {TN_RMA_PUT,   rank, (void *)(uintptr_t)src, tern_sym_addr(rank, dst), n,
                  TN_REGION_SEG};
    return tn_core_rma_start(&d, &done, TN_XPORT_FLAG_NOREMOTE);
}

/* The same, waiting for its local completion: the status. */
static int put_noremote(int rank, void *dst, const void *src, size_t n)
{
    tn_comp_t lc;
    int st = put_start(rank, dst, src, n, &lc);
    return st != TERN_OK ? st : tn_comp_wait(&lc);
}

/* rank's copy of this rank's flag word at *w raised to v (ordered behind
 * every earlier put to rank). */
static void flag_write(int rank, _Atomic uint32_t *w, uint32_t v)
{
    tn_core_flag_write_unacked(tn_core_peer(rank), rank,
                               (uintptr_t)tern_sym_addr(rank, (void *)w), v,
                               "put_noremote");
}

static void wait_flag(_Atomic uint32_t *w, uint32_t v)
{
    while (atomic_load_explicit(w, memory_order_acquire) < v)
        MP_OK(tern_poll());
}

static void bad_use(const tn_peer_t *p, int to, unsigned char *land, unsigned char *src)
{
    tn_comp_t lc, rc;
    tn_comp_init(&lc, 1);
    tn_comp_init(&rc, 1);
    tn_rma_t put = {TN_RMA_PUT, to, src, tern_sym_addr(to, land), 64, TN_REGION_SEG};
    tn_rma_t get = {TN_RMA_GET, to, src, tern_sym_addr(to, land), 64, TN_REGION_SEG};
    tn_xport_done_t both = {&lc, &rc}, remote = {NULL, &rc}, none = {NULL, NULL};
    MP_EXPECT(p->xport->ops.rma(p->xport->x, &put, &both, TN_XPORT_FLAG_NOREMOTE),
              TERN_ERR_INVALID, "no remote one");
    MP_EXPECT(p->xport->ops.rma(p->xport->x, &put, &remote, TN_XPORT_FLAG_NOREMOTE),
              TERN_ERR_INVALID, "needs a local completion object");
    MP_EXPECT(p->xport->ops.rma(p->xport->x, &put, &none, TN_XPORT_FLAG_NOREMOTE),
              TERN_ERR_INVALID, "needs a local completion object");
    MP_EXPECT(p->xport->ops.rma(p->xport->x, &get, &remote, TN_XPORT_FLAG_NOREMOTE),
              TERN_ERR_INVALID, "this was a get");
    MP_CHECK(atomic_load(&lc.pending) == 1 && atomic_load(&rc.pending) == 1,
             "a refused put touched its completion objects");
}

/* tn_core_put_flagged, what the collectives call, to every rank: mapped
 * ones (shm: a put whose event is its remote completion) and network ones
 * (no remote completion: the flag behind it, flags[2 + writer], tells the
 * reader). Each writer's 4099 bytes land at its own offset. */
#define FLAGGED 4099
static void flagged_to_all(unsigned char *land, unsigned char *src,
                           _Atomic uint32_t *flags)
{
    int me = tern_rank(), n = tern_size();
    MP_OK(tern_barrier()); /* every land free */
    for (size_t i = 0; i < FLAGGED; i++)
        src[i] = mp_pattern(me, i, 99);
    for (int q = 0; q < n; q++) {
        tern_event_t ev;
        MP_OK(tn_core_put_flagged("put_noremote", q,
                                  tern_sym_addr(q, land + (size_t)me * FLAGGED), src,
                                  FLAGGED, &ev));
        MP_OK(tern_event_wait(ev));
        if (!mp_mapped(q))
            flag_write(q, &flags[2 + me], 1);
    }
    memset(src, 0xee, FLAGGED);
    MP_OK(tern_barrier()); /* the mapped writers' data is here */
    for (int q = 0; q < n; q++) {
        if (!mp_mapped(q))
            wait_flag(&flags[2 + q], 1);
        size_t bad = 0;
        for (size_t i = 0; i < FLAGGED; i++)
            bad += land[(size_t)q * FLAGGED + i] != mp_pattern(q, i, 99);
        MP_CHECK(bad == 0, "tn_core_put_flagged from rank %d (%s): %zu bytes wrong", q,
                 mp_mapped(q) ? "mapped" : "network", bad);
    }
}

int main(int argc, char **argv)
{
    mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int me = tern_rank(), n = tern_size();
    int to = (me + 1) % n, from = (me - 1 + n) % n;
    faulty = getenv("MP_FAULT");
    unsigned char *land;
    _Atomic uint32_t
        *flags; /* [0]: data here (from "from"), [1]: land free (from "to") */
    MP_OK(tern_alloc_sym(BURST * BIG, (void **)&land));
    MP_OK(tern_alloc_sym((size_t)(n + 2) * sizeof(*flags), (void **)&flags));
    for (int i = 0; i < n + 2; i++)
        atomic_store(&flags[i], 0);
    unsigned char *src = malloc(BURST * BIG);
    MP_CHECK(src != NULL, "no memory");
    MP_OK(tern_barrier());
    int sends = n > 1 && !mp_mapped(to), gets = n > 1 && !mp_mapped(from);
    const tn_peer_t *p = sends ? tn_core_peer(to) : NULL;
    if (sends) {
        unsigned need = TN_XCAP_PUT_NOREMOTE | TN_XCAP_ORDER_PUT | TN_XCAP_PUT_UNACKED;
        MP_CHECK((p->xport->caps.flags & need) == need,
                 "the network transport to rank %d lacks caps 0x%x", to,
                 need & ~p->xport->caps.flags);
        bad_use(p, to, land, src);
    }
    size_t inject = p ? p->xport->caps.inject : 0;
    uint32_t k = 0, failed = 0, lost = 0;
    for (size_t s = 0; s < NSIZES; s++) {
        for (int r = 0; r < ROUNDS; r++) {
            size_t sz = sizes[s];
            k++;
            if (sends && faulty) {
                for (size_t i = 0; i < sz; i++)
                    src[i] = mp_pattern(me, i, k);
                int st = put_noremote(to, land, src, sz);
                int must_fail = strcmp(faulty, "issue") ? sz > inject : sz == BIG;
                if (st != TERN_OK)
                    failed++;
                else if (must_fail)
                    lost++;
                continue;
            }
            size_t burst = sz == BIG ? BURST : 1, tot = burst * sz;
            if (sends) {
                wait_flag(&flags[1], k - 1); /* the reader checked round k - 1 */
                for (size_t i = 0; i < tot; i++)
                    src[i] = mp_pattern(me, i, k);
                tn_comp_t lc[BURST];
                for (size_t b = 0; b < burst; b++)
                    MP_OK(put_start(to, land + b * sz, src + b * sz, sz, &lc[b]));
                for (size_t b = 0; b < burst; b++) {
                    MP_OK(tn_comp_wait(&lc[b]));
                    memset(src + b * sz, 0xee, sz); /* free once locally complete */
                }
                flag_write(to, &flags[0], k);
            }
            if (gets && !faulty) {
                wait_flag(&flags[0], k);
                size_t first, bad = mp_pattern_misses(land, tot, from, k, &first);
                MP_CHECK(bad == 0,
                         "round %u, %zu x %zu B from rank %d: %zu bytes wrong from byte "
                         "%zu (0x%02x: %s)",
                         k, burst, sz, from, bad, first, first < tot ? land[first] : 0,
                         first < tot && land[first] == 0xee
                             ? "the source was read after its local completion"
                             : "read before the data landed");
                flag_write(from, &flags[1], k);
            }
        }
    }
    if (sends && faulty)
        MP_CHECK(lost == 0 && failed > 0,
                 "MP_FAULT=%s: %u put(s) that failed reported success (inject size "
                 "%zu B), %u reported their failure",
                 faulty, lost, inject, failed);
    if (!faulty)
        flagged_to_all(land, src, flags);
    printf("put_noremote: rank %d wrote %s, read %s\n", me,
           sends ? "over the network" : "nothing", gets ? "over the network" : "nothing");
    free(src);
    return mp_finish("put_noremote");
}
