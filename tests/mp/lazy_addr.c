/* Lazy network addressing (issue 13): a rank inserts a remote peer's
 * address into its address vector only when it first contacts it
 * (TERN_OFI_LAZY_ADDR=1, the default), counted by tern_memory_report's
 * net_addresses. After start-up and barriers: at most the barrier's
 * partners; after a put to one remote partner: that one more, at least
 * one; after puts and gets with every rank, byte-checked: exactly the
 * remote peers. With TERN_OFI_LAZY_ADDR=0 every rank's address is
 * inserted at start-up. In shm, no network, no addresses. */
#include <string.h>

#include "mp_util.h"

static int addresses(void)
{
    tern_memory_report_t r;
    MP_OK(tern_memory_report(&r));
    return r.net_addresses;
}

static int ceil_log2(int n)
{
    int k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    const char *lazy_env = getenv("TERN_OFI_LAZY_ADDR");
    int lazy = !lazy_env || strcmp(lazy_env, "0") != 0;
    tern_memory_report_t r;
    MP_OK(tern_memory_report(&r));
    /* The barrier runs a dissemination among one leader per node: its
     * network partners are at most log2 of the node count. */
    int partners = ceil_log2(r.remote_nodes + 1);
    uint64_t *slots;
    MP_OK(tern_alloc_sym(2 * (size_t)n * sizeof(*slots), (void **)&slots));
    memset(slots, 0, 2 * (size_t)n * sizeof(*slots));
    MP_OK(tern_barrier());
    MP_OK(tern_barrier());
    int a = addresses();
    if (r.remote_peers == 0)
        MP_CHECK(a == 0, "%d network addresses without remote peers", a);
    else if (!lazy)
        MP_CHECK(a == n, "eager addressing: %d addresses inserted in a job of %d", a, n);
    else
        MP_CHECK(a <= partners, "after barriers: %d addresses, barrier partners %d", a,
                 partners);

    /* Some pairs: each rank writes to the rank three (or half a job)
     * away, not a barrier partner (those are 2^k away) where n > 4. */
    int off = n > 4 ? 3 : n / 2;
    int to = (me + off) % n, remote = to != me && !mp_mapped(to);
    uint64_t v = 1000 + (uint64_t)me;
    MP_OK(tern_put(to, tern_sym_addr(to, &slots[me]), &v, sizeof(v), 0));
    MP_OK(tern_barrier());
    int from = (me - off + n) % n;
    if (from != me || n == 1)
        MP_CHECK(slots[from] == 1000 + (uint64_t)from, "slot of rank %d holds %llu", from,
                 (unsigned long long)slots[from]);
    int b = addresses();
    if (lazy && r.remote_peers > 0) {
        MP_CHECK(b <= partners + 1, "after one partner: %d addresses (barrier %d + 1)", b,
                 partners);
        MP_CHECK(!remote || b >= 1, "a put to remote rank %d inserted no address", to);
    }

    /* Every pair: puts and gets with every rank, checked byte for byte. */
    for (int p = 0; p < n; p++) {
        uint64_t w = ((uint64_t)me << 32) | (uint64_t)p;
        MP_OK(tern_put(p, tern_sym_addr(p, &slots[n + me]), &w, sizeof(w), 0));
    }
    MP_OK(tern_barrier());
    for (int p = 0; p < n; p++) {
        uint64_t got = 0, want = ((uint64_t)p << 32) | (uint64_t)me;
        MP_CHECK(slots[n + p] == want, "slot from rank %d holds %llx", p,
                 (unsigned long long)slots[n + p]);
        MP_OK(tern_get(&got, p, tern_sym_addr(p, &slots[n + me]), sizeof(got), 0));
        MP_CHECK(got == (((uint64_t)me << 32) | (uint64_t)p), "get from rank %d: %llx", p,
                 (unsigned long long)got);
    }
    int c = addresses();
    if (r.remote_peers > 0)
        MP_CHECK(c == (lazy ? r.remote_peers : n),
                 "after contacting everyone: %d addresses, %d remote peers (%s)", c,
                 r.remote_peers, lazy ? "lazy" : "eager");
    else
        MP_CHECK(c == 0, "%d addresses without remote peers", c);
    if (me == 0)
        printf("lazy_addr: %s addressing, rank 0: %d after barriers, %d after one "
               "partner, %d after all (%d remote peers)\n",
               lazy ? "lazy" : "eager", a, b, c, r.remote_peers);
    MP_OK(tern_barrier());
    return mp_finish("lazy_addr");
}
