/* The transport contract (src/xport/xport.h), checked on every transport
 * this job's configuration creates (self and shm always; ofi where a peer
 * is on another node), through its ops table only: created from the
 * registry over a segment of the test's own, capabilities queried, puts
 * and gets with completion objects to every peer it reaches (segment and
 * control area, TN_XPORT_FLAG_CTRL, 0 bytes, a transfer larger than the
 * fragment size), bytes checked, peer_map checked against the data,
 * messages to every peer in reach (received exactly once, intact, through
 * set_recv) where the capabilities offer them and the stubs where not,
 * atomics as the capabilities say (fetch-add and compare-swap to every
 * rank, or the stub), poll from a second thread while the first issues
 * and waits, destroy. tern_init provides
 * the bootstrap, the node map and the configuration only. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cfg.h"
#include "core/core.h"
#include "mem/segment.h"
#include "mp_util.h"
#include "xport/registry.h"

#define SEG_BYTES   ((size_t)1 << 20)
#define CTRL_BYTES  ((size_t)4096)
#define SLOT        ((size_t)96 << 10) /* each writer's slot in a segment */
#define BIG         ((size_t)(64 << 10) + 5)
#define SMALL       ((size_t)100)
#define MAX_XPORTS  8
#define CTRL_STRIDE 64

typedef struct xp {
    const tn_xport_entry_t *e;
    tn_xport_t *x;
    tn_xport_caps_t caps;
} xp_t;

static xp_t xps[MAX_XPORTS];
static int nxps;
static tn_seg_t seg;
static tn_seg_info_t *segs;
static _Atomic int stop;

/* The class of rank from here, as the registry names them. */
static unsigned reach_of(int rank)
{
    if (rank == tern_rank())
        return TN_REACH_SELF;
    return tn_core_info(rank)->node == tn_core.node ? TN_REACH_NODE : TN_REACH_NET;
}

/* Remote progress while this rank waits in a bootstrap barrier; the main
 * thread polls too, so poll runs on two threads at once. */
static void *poller(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop))
        for (int i = 0; i < nxps; i++)
            MP_CHECK(xps[i].x->ops->poll(xps[i].x) >= 0, "%s: poll < 0", xps[i].e->name);
    return NULL;
}

static void wait_comp(tn_comp_t *c, const char *what)
{
    while (tn_comp_busy(c))
        for (int i = 0; i < nxps; i++)
            xps[i].x->ops->poll(xps[i].x);
    MP_CHECK(tn_comp_status(c) == TERN_OK, "%s ended with %d", what, tn_comp_status(c));
}

/* One rma through x with both completion objects, waited for. */
static void rma(xp_t *p, int kind, int rank, void *local, void *remote, size_t n,
                unsigned flags)
{
    /* One part counted in each object handed over, as core does. */
    tn_comp_t lc, rc;
    tn_comp_init(&lc, kind == TN_RMA_PUT);
    tn_comp_init(&rc, 1);
    tn_xport_done_t done = {kind == TN_RMA_PUT ? &lc : NULL, &rc};
    tn_rma_t op = {kind, rank, local, remote, n};
    int st = p->x->ops->rma(p->x, &op, &done, flags);
    MP_CHECK(st == TERN_OK, "%s: %s of %zu bytes with rank %d: %d", p->e->name,
             kind == TN_RMA_PUT ? "put" : "get", n, rank, st);
    wait_comp(&lc, "local completion");
    wait_comp(&rc, "remote completion");
}

/* Rank's segment, at offset off, in rank's own address space. */
static void *remote_at(int rank, size_t off)
{
    return (void *)(uintptr_t)(segs[rank].data_base + off);
}
static void *remote_ctrl(int rank, size_t off)
{
    return (void *)(uintptr_t)(segs[rank].data_base - segs[rank].ctrl_size + off);
}

static void fill(unsigned char *buf, int rank, size_t n, unsigned salt)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = mp_pattern(rank, i, salt);
}

static void check_caps(xp_t *p)
{
    const tn_xport_ops_t *o = p->x->ops;
    MP_CHECK(o->size == sizeof(tn_xport_ops_t), "%s: table of %zu bytes", p->e->name,
             o->size);
    MP_CHECK(strcmp(o->name, p->e->name) == 0, "table name '%s', entry '%s'", o->name,
             p->e->name);
    o->query(p->x, &p->caps);
    const tn_xport_caps_t *c = &p->caps;
    MP_CHECK(c->flags & TN_XCAP_RMA, "%s: no RMA", o->name);
    MP_CHECK(c->rma_max >= BIG && c->rma_frag > 0, "%s: rma_max %zu, rma_frag %zu",
             o->name, c->rma_max, c->rma_frag);
    /* Atomics: none claimed, and the op is the stub; or claimed and run in
     * amo_phase. */
    uint32_t any = 0;
    for (int t = 0; t < TN_ATYPE_COUNT; t++)
        any |= c->atomics[t];
    if (!any) {
        tn_amo_t a = {.rank = tern_rank(), .type = TN_ATYPE_U64, .op = TN_AOP_FADD};
        tn_xport_done_t d0 = {NULL, NULL};
        MP_CHECK(o->amo(p->x, &a, &d0, 0) == TERN_ERR_UNSUPPORTED,
                 "%s: amo without atomics in its capabilities", o->name);
    }
    /* Messages: offered with a limit, or the stubs. */
    if (c->flags & TN_XCAP_MSG) {
        MP_CHECK(c->msg_max >= TN_XPORT_MSG_OVERHEAD && c->msg_depth >= 1,
                 "%s: messages of %zu bytes, depth %zu", o->name, c->msg_max,
                 c->msg_depth);
    } else {
        MP_CHECK(c->msg_max == 0, "%s: message size without messages", o->name);
        MP_CHECK(o->set_recv(p->x, NULL, NULL) == TERN_ERR_UNSUPPORTED, "%s: set_recv",
                 o->name);
        tn_xport_msg_t m;
        MP_CHECK(o->msg_prepare(p->x, 0, 1, 0, &m) == TERN_ERR_UNSUPPORTED,
                 "%s: msg_prepare", o->name);
    }
    if (strcmp(o->name, "ofi") == 0 && tn_cfg.ofi_max_msg)
        MP_CHECK(c->rma_frag == tn_cfg.ofi_max_msg,
                 "ofi: fragments of %zu bytes, TERN_OFI_MAX_MSG says %zu", c->rma_frag,
                 (size_t)tn_cfg.ofi_max_msg);
    char line[256];
    o->summary(p->x, line, sizeof(line));
    MP_CHECK(line[0], "%s: empty summary", o->name);
}

/* Every peer p reaches: its slot for this rank gets a pattern (segment and
 * control area), 0 bytes both ways, a refused rank leaves the parts. */
static void put_phase(xp_t *p)
{
    int me = tern_rank();
    unsigned char *buf = malloc(BIG);
    MP_CHECK(buf, "malloc");
    for (int r = 0; r < tern_size(); r++) {
        if (!(p->e->reach & reach_of(r)))
            continue;
        fill(buf, me, BIG, 1);
        rma(p, TN_RMA_PUT, r, buf, remote_at(r, (size_t)me * SLOT), BIG, 0);
        uint32_t v = 0x7e000000u + (uint32_t)me;
        rma(p, TN_RMA_PUT, r, &v, remote_ctrl(r, (size_t)me * CTRL_STRIDE), sizeof(v),
            TN_XPORT_FLAG_CTRL);
        rma(p, TN_RMA_PUT, r, buf, remote_at(r, 0), 0, 0);
        rma(p, TN_RMA_GET, r, buf, remote_at(r, 0), 0, 0);
    }
    /* A rank outside a mapped transport's reach is refused, parts untouched. */
    if ((p->caps.flags & TN_XCAP_MAPPED) && tern_size() > 1) {
        int out = -1;
        for (int r = 0; r < tern_size() && out < 0; r++)
            if (!(p->e->reach & reach_of(r)) &&
                (p->e->reach != TN_REACH_NODE || reach_of(r) != TN_REACH_SELF))
                out = r;
        if (out >= 0) {
            tn_comp_t rc;
            tn_comp_init(&rc, 1);
            tn_xport_done_t done = {NULL, &rc};
            tn_rma_t op = {TN_RMA_PUT, out, buf, remote_at(out, 0), 8};
            MP_CHECK(p->x->ops->rma(p->x, &op, &done, 0) != TERN_OK,
                     "%s: put to rank %d out of its reach accepted", p->e->name, out);
            MP_CHECK(atomic_load(&rc.pending) == 1, "%s: refused put ended a part",
                     p->e->name);
        }
    }
    free(buf);
}

/* What every peer put here arrived; what this rank put there reads back
 * (and, for mapped peers, matches what peer_map's delta shows). */
static void check_phase(xp_t *p)
{
    int me = tern_rank();
    unsigned char *want = malloc(BIG), *got = malloc(BIG);
    MP_CHECK(want && got, "malloc");
    for (int r = 0; r < tern_size(); r++) {
        if (!(p->e->reach & reach_of(r)))
            continue;
        fill(want, r, BIG, 1);
        MP_CHECK(memcmp((char *)seg.data + (size_t)r * SLOT, want, BIG) == 0,
                 "%s: the %zu bytes rank %d put here differ", p->e->name, BIG, r);
        uint32_t v;
        memcpy(&v, (char *)seg.map + (size_t)r * CTRL_STRIDE, sizeof(v));
        MP_CHECK(v == 0x7e000000u + (uint32_t)r, "%s: control word from rank %d: %x",
                 p->e->name, r, v);
        memset(got, 0, BIG);
        rma(p, TN_RMA_GET, r, got, remote_at(r, (size_t)me * SLOT), BIG, 0);
        fill(want, me, BIG, 1);
        MP_CHECK(memcmp(got, want, BIG) == 0, "%s: get from rank %d differs", p->e->name,
                 r);
        memset(got, 0, SMALL);
        rma(p, TN_RMA_GET, r, got, remote_at(r, (size_t)me * SLOT + 3), SMALL, 0);
        MP_CHECK(memcmp(got, want + 3, SMALL) == 0, "%s: small get from rank %d",
                 p->e->name, r);
        tn_xport_map_t m;
        int mapped = p->x->ops->peer_map(p->x, r, &m) == TERN_OK;
        MP_CHECK(mapped == !!(p->caps.flags & TN_XCAP_MAPPED),
                 "%s: peer_map of rank %d says %d", p->e->name, r, mapped);
        if (mapped) {
            const char *here = (const char *)((uintptr_t)remote_at(r, (size_t)me * SLOT) +
                                              (uintptr_t)m.delta);
            MP_CHECK(memcmp(here, want, BIG) == 0,
                     "%s: rank %d's segment through peer_map differs", p->e->name, r);
        }
    }
    free(want);
    free(got);
}

/* A transport that claims u64 fadd and cswap carries them out on every
 * rank of the job (core sends a network domain's atomics to node-local
 * ranks and this rank too): each rank adds 1 to a word of every rank, the
 * fetched values are below the job size; a cswap that does not match
 * leaves the word. */
#define AMO_OFF (SEG_BYTES - 8)
static void amo_phase(xp_t *p)
{
    uint32_t need = TN_AOP_BIT(TN_AOP_FADD) | TN_AOP_BIT(TN_AOP_CSWAP);
    if ((p->caps.atomics[TN_ATYPE_U64] & need) != need)
        return;
    for (int r = 0; r < tern_size(); r++) {
        uint64_t old = UINT64_MAX;
        tn_comp_t rc;
        tn_comp_init(&rc, 1);
        tn_xport_done_t done = {NULL, &rc};
        tn_amo_t a = {.rank = r,
                      .type = TN_ATYPE_U64,
                      .op = TN_AOP_FADD,
                      .remote = remote_at(r, AMO_OFF),
                      .a1 = {.u64 = 1},
                      .result = &old};
        MP_OK(p->x->ops->amo(p->x, &a, &done, 0));
        wait_comp(&rc, "fadd");
        MP_CHECK(old < (uint64_t)tern_size(), "%s: fadd on rank %d fetched %llu",
                 p->e->name, r, (unsigned long long)old);
        tn_comp_init(&rc, 1);
        a.op = TN_AOP_CSWAP;
        a.a1.u64 = 1000; /* never there */
        a.a2.u64 = 7;
        MP_OK(p->x->ops->amo(p->x, &a, &done, 0));
        wait_comp(&rc, "cswap");
        MP_CHECK(old >= 1 && old <= (uint64_t)tern_size(),
                 "%s: cswap on rank %d fetched %llu", p->e->name, r,
                 (unsigned long long)old);
    }
}

static void amo_check(xp_t *p)
{
    if (!(p->caps.atomics[TN_ATYPE_U64] & TN_AOP_BIT(TN_AOP_FADD)))
        return;
    uint64_t v;
    memcpy(&v, (char *)seg.data + AMO_OFF, sizeof(v));
    MP_CHECK(v == (uint64_t)tern_size(), "%s: %llu fadds arrived here, not %d",
             p->e->name, (unsigned long long)v, tern_size());
}

static void boot_barrier(void)
{
    MP_OK(tn_core.boot->ops->barrier(tn_core.boot));
}

/* Messages: MSGS from every rank in reach, each carrying (sender, index)
 * and a pattern of 1..msg_max bytes; counted per sender as they arrive. */
#define MSGS 40
static _Atomic int got_msgs[1024];
static _Atomic uint64_t seen[1024]; /* per sender: a bit per message index */
static _Atomic int bad_msgs, misordered;

/* Intact and exactly once from every transport; in order per sender where
 * the transport promises it (shared memory: one FIFO queue per pair; the
 * network may complete receives out of order, and two threads poll here). */
static void on_msg(void *arg, int src, void *buf, size_t n)
{
    (void)arg;
    const uint32_t *w = buf;
    int ok = n >= 8 && (int)w[0] == src && src >= 0 && src < 1024 && w[1] < MSGS;
    for (size_t i = 8; ok && i < n; i++)
        ok = ((unsigned char *)buf)[i] == mp_pattern(src, i, w[1]);
    if (!ok || (atomic_fetch_or(&seen[src], 1ull << w[1]) & (1ull << w[1]))) {
        atomic_fetch_add(&bad_msgs, 1); /* damaged, or a second time */
        return;
    }
    if ((int)w[1] != atomic_fetch_add(&got_msgs[src], 1))
        atomic_fetch_add(&misordered, 1);
}

static void msg_phase(xp_t *p)
{
    if (!(p->caps.flags & TN_XCAP_MSG))
        return;
    int me = tern_rank(), expect = 0;
    for (int r = 0; r < tern_size() && r < 1024; r++) {
        atomic_store(&got_msgs[r], 0);
        atomic_store(&seen[r], 0);
    }
    atomic_store(&misordered, 0);
    MP_OK(p->x->ops->set_recv(p->x, on_msg, NULL));
    boot_barrier();
    for (int k = 0; k < MSGS; k++)
        for (int r = 0; r < tern_size(); r++) {
            if (!(p->e->reach & reach_of(r)))
                continue;
            expect += k == 0;
            size_t n = 8 + (size_t)(k * 997 + r) % (p->caps.msg_max - 7);
            tn_xport_msg_t m;
            MP_OK(p->x->ops->msg_prepare(p->x, r, n, 0, &m));
            MP_CHECK(m.buf && m.cap >= n, "%s: prepared %zu of %zu bytes", p->e->name,
                     m.cap, n);
            uint32_t w[2] = {(uint32_t)me, (uint32_t)k};
            memcpy(m.buf, w, 8);
            for (size_t i = 8; i < n; i++)
                ((unsigned char *)m.buf)[i] = mp_pattern(me, i, (unsigned)k);
            MP_OK(p->x->ops->msg_commit(p->x, &m, n));
        }
    /* Every sender in reach delivers all of its messages here. */
    for (;;) {
        int done = 0;
        for (int r = 0; r < tern_size() && r < 1024; r++)
            done += (p->e->reach & reach_of(r)) && atomic_load(&got_msgs[r]) == MSGS;
        if (done == expect)
            break;
        p->x->ops->poll(p->x);
    }
    MP_CHECK(atomic_load(&bad_msgs) == 0, "%s: %d messages damaged or duplicated",
             p->e->name, atomic_load(&bad_msgs));
    MP_CHECK(!(p->caps.flags & TN_XCAP_MAPPED) || atomic_load(&misordered) == 0,
             "%s: %d messages out of order between one pair", p->e->name,
             atomic_load(&misordered));
    boot_barrier(); /* nobody sends any more: the extra polls find nothing */
    for (int i = 0; i < 3; i++)
        p->x->ops->poll(p->x);
    for (int r = 0; r < tern_size() && r < 1024; r++)
        MP_CHECK(atomic_load(&got_msgs[r]) == ((p->e->reach & reach_of(r)) ? MSGS : 0),
                 "%s: %d messages from rank %d", p->e->name, atomic_load(&got_msgs[r]),
                 r);
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    if ((size_t)n * SLOT > SEG_BYTES || (size_t)n * CTRL_STRIDE > CTRL_BYTES) {
        if (me == 0)
            printf("xport_contract: %d ranks do not fit the test segment: skipped\n", n);
        tern_finalize();
        return 77;
    }

    /* A segment of the test's own, described to every rank; its control
     * area holds the test's words, then each transport's claim. */
    size_t ctrl_off[MAX_XPORTS * 2], ctrl = CTRL_BYTES;
    for (size_t i = 0; i < tn_xport_count(); i++) {
        const tn_xport_entry_t *e = tn_xport_entry(i);
        ctrl_off[i] = SIZE_MAX;
        if (e->ctrl_bytes) {
            ctrl_off[i] = ctrl;
            ctrl += (e->ctrl_bytes(n) + 63) & ~(size_t)63;
        }
    }
    tn_seg_opts_t so = {.size = SEG_BYTES,
                        .ctrl_size = ctrl,
                        .hugepages = TN_HUGE_OFF,
                        .faultin = TN_FAULTIN_SERIAL,
                        .threads = 1,
                        .local_ranks = tn_core.host_ranks};
    MP_OK(tn_seg_create(&so, &seg));
    memset(seg.map, 0, seg.map_size);
    tn_seg_info_t mine = {(uint64_t)(uintptr_t)seg.data,
                          seg.size,
                          seg.map_size,
                          seg.ctrl_size,
                          (int32_t)getpid(),
                          seg.fd};
    segs = calloc((size_t)n, sizeof(*segs));
    int *node = calloc((size_t)n, sizeof(*node));
    MP_CHECK(segs && node, "calloc");
    MP_OK(tn_core.boot->ops->allgather(tn_core.boot, &mine, sizeof(mine), segs));
    for (int r = 0; r < n; r++)
        node[r] = tn_core_info(r)->node;
    tn_xport_job_t job = {.boot = tn_core.boot,
                          .rank = me,
                          .size = n,
                          .node = node,
                          .nnodes = tn_core.nnodes,
                          .local_ranks = tn_core.local_ranks,
                          .local_size = tn_core.local_size,
                          .local_rank = tn_core.local_rank,
                          .span_first = tn_core.span_first,
                          .span = tn_core.span,
                          .segs = segs,
                          .map = seg.map,
                          .map_size = seg.map_size,
                          .threads = 1}; /* two threads poll (phase_threads) */

    /* Created from the registry by core's rule (the same on every rank). */
    unsigned present = TN_REACH_SELF | (tn_core.nnodes > 1 ? TN_REACH_NET : 0) |
                       (tn_core.nnodes < n ? TN_REACH_NODE : 0);
    for (size_t i = 0; i < tn_xport_count(); i++) {
        const tn_xport_entry_t *e = tn_xport_entry(i);
        MP_CHECK(tn_xport_find(e->name) == e, "find '%s'", e->name);
        if (e->when != TN_CREATE_ALWAYS && !(e->reach & present))
            continue;
        MP_CHECK(nxps < MAX_XPORTS, "too many transports");
        xps[nxps].e = e;
        job.ctrl_off = ctrl_off[i];
        MP_OK(e->create(&job, &xps[nxps].x));
        nxps++;
    }
    MP_CHECK(tn_xport_find("no-such-transport") == NULL, "find of an unknown name");
    boot_barrier(); /* every peer mapped the segment */
    tn_seg_close_fd(&seg);
    for (int i = 0; i < nxps; i++)
        check_caps(&xps[i]);

    pthread_t th;
    MP_CHECK(pthread_create(&th, NULL, poller, NULL) == 0, "thread");
    for (int i = 0; i < nxps; i++)
        put_phase(&xps[i]);
    boot_barrier();
    for (int i = 0; i < nxps; i++)
        check_phase(&xps[i]);
    boot_barrier();
    for (int i = 0; i < nxps; i++)
        msg_phase(&xps[i]);
    boot_barrier();
    for (int i = 0; i < nxps; i++)
        amo_phase(&xps[i]);
    boot_barrier();
    for (int i = 0; i < nxps; i++)
        amo_check(&xps[i]);
    boot_barrier();
    atomic_store(&stop, 1);
    pthread_join(th, NULL);

    if (me == 0) {
        printf("xport_contract: checked");
        for (int i = 0; i < nxps; i++)
            printf(" %s", xps[i].e->name);
        printf("\n");
    }
    for (int i = nxps; i-- > 0;)
        xps[i].x->ops->destroy(xps[i].x);
    boot_barrier(); /* no peer reads this segment any more */
    tn_seg_destroy(&seg);
    free(segs);
    free(node);
    return mp_finish("xport_contract");
}
