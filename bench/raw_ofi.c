/* Raw libfabric baseline (see raw_ofi.h). Deliberately written against
 * libfabric alone - no Tern internals - the way an application would. */
#include "raw_ofi.h"

#include "harness.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tern.h>

#ifdef TERN_HAVE_OFI
#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

struct tb_raw_ofi {
    int me, peer;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_ep *ep;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_mr *mr;
    char *buf; /* registered: [0, bytes) data, then the stop word, then the
                  fetch-add operand and result words */
    size_t bytes;
    fi_addr_t peer_addr;
    uint64_t peer_key, peer_base;
    int virt;
    size_t inject;
    long outstanding;
};

typedef struct raw_name {
    uint64_t key, base, len;
    uint8_t name[256];
} raw_name_t;

static int (*p_getinfo)(uint32_t, const char *, const char *, uint64_t,
                        const struct fi_info *, struct fi_info **);
static struct fi_info *(*p_dupinfo)(const struct fi_info *);
static void (*p_freeinfo)(struct fi_info *);
static int (*p_fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
static const char *(*p_strerror)(int);

/* libtern loads libfabric with dlopen; the benchmark does the same. */
static int load(void)
{
    void *h = dlopen("libfabric.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!h)
        return -1;
    *(void **)&p_getinfo = dlsym(h, "fi_getinfo");
    *(void **)&p_dupinfo = dlsym(h, "fi_dupinfo");
    *(void **)&p_freeinfo = dlsym(h, "fi_freeinfo");
    *(void **)&p_fabric = dlsym(h, "fi_fabric");
    *(void **)&p_strerror = dlsym(h, "fi_strerror");
    return p_getinfo && p_dupinfo && p_freeinfo && p_fabric && p_strerror ? 0 : -1;
}

static int open_ep(tb_raw_ofi_t *r)
{
    struct fi_info *h = p_dupinfo(NULL);
    h->ep_attr->type = FI_EP_RDM;
    h->caps = FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE | FI_MSG |
              FI_ATOMIC; /* as Tern asks, so the same provider path */
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    h->domain_attr->threading = FI_THREAD_SAFE;
    h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    const char *prov = getenv("TERN_OFI_PROVIDER"), *dom = getenv("TERN_OFI_DOMAIN");
    if (prov && *prov)
        h->fabric_attr->prov_name = strdup(prov);
    if (dom && *dom)
        h->domain_attr->name = strdup(dom);
    struct fi_info *all = NULL;
    int rc = p_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, h, &all);
    p_freeinfo(h);
    if (rc)
        return rc;
    r->info = p_dupinfo(all);
    p_freeinfo(all);
    struct fi_info *i = r->info;
    if ((rc = p_fabric(i->fabric_attr, &r->fabric, NULL)) ||
        (rc = fi_domain(r->fabric, i, &r->domain, NULL)))
        return rc;
    struct fi_cq_attr ca = {.format = FI_CQ_FORMAT_CONTEXT, .size = 4096};
    struct fi_av_attr aa = {.type = FI_AV_TABLE};
    if ((rc = fi_cq_open(r->domain, &ca, &r->cq, NULL)) ||
        (rc = fi_av_open(r->domain, &aa, &r->av, NULL)) ||
        (rc = fi_endpoint(r->domain, i, &r->ep, NULL)) ||
        (rc = fi_ep_bind(r->ep, &r->cq->fid, FI_TRANSMIT | FI_RECV)) ||
        (rc = fi_ep_bind(r->ep, &r->av->fid, 0)) || (rc = fi_enable(r->ep)))
        return rc;
    if ((rc = fi_mr_reg(r->domain, r->buf, r->bytes + 64,
                        FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 7, 0,
                        &r->mr, NULL)))
        return rc;
    if (i->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        fi_mr_bind(r->mr, &r->ep->fid, 0);
        fi_mr_enable(r->mr);
    }
    r->virt = (i->domain_attr->mr_mode & FI_MR_VIRT_ADDR) != 0;
    r->inject = i->tx_attr->inject_size;
    return 0;
}

tb_raw_ofi_t *tb_raw_ofi_setup(int peer, size_t bytes)
{
    int me = tern_rank();
    int part = me == 0 || me == peer;
    tb_raw_ofi_t *r = NULL;
    int ok = 1;
    raw_name_t *names = NULL;
    if (tern_alloc_sym(2 * sizeof(raw_name_t), (void **)&names) != TERN_OK)
        return NULL;
    if (part) {
        r = calloc(1, sizeof(*r));
        r->me = me;
        r->peer = peer;
        r->bytes = bytes;
        r->buf = aligned_alloc(4096, (bytes + 64 + 4095) / 4096 * 4096);
        memset(r->buf, 0, bytes + 64);
        int rc = load() ? -FI_ENOSYS : open_ep(r);
        if (rc) {
            fprintf(stderr, "raw libfabric baseline unavailable: %s\n",
                    (p_strerror ? p_strerror(-rc) : "libfabric not loadable"));
            ok = 0;
        } else {
            raw_name_t mine = {.key = fi_mr_key(r->mr),
                               .base = (uint64_t)(uintptr_t)r->buf};
            size_t len = sizeof(mine.name);
            fi_getname(&r->ep->fid, mine.name, &len);
            mine.len = len;
            /* slot 0: rank 0's name, slot 1: the peer's; both written to rank 0
             * and the peer's copies of the symmetric array. */
            int slot = me == 0 ? 0 : 1;
            tern_put(0, tern_sym_addr(0, &names[slot]), &mine, sizeof(mine), 0);
            tern_put(peer, tern_sym_addr(peer, &names[slot]), &mine, sizeof(mine), 0);
        }
    }
    tern_barrier();
    if (part && ok) {
        raw_name_t *other = &names[me == 0 ? 1 : 0];
        r->peer_key = other->key;
        r->peer_base = other->base;
        if (fi_av_insert(r->av, other->name, 1, &r->peer_addr, 0, NULL) != 1)
            ok = 0;
    }
    tern_barrier();
    tern_free_sym(names);
    if (part && !ok) {
        tb_raw_ofi_teardown(r);
        return NULL;
    }
    return r;
}

void tb_raw_ofi_teardown(tb_raw_ofi_t *r)
{
    if (!r)
        return;
    if (r->ep)
        fi_close(&r->ep->fid);
    if (r->mr)
        fi_close(&r->mr->fid);
    if (r->av)
        fi_close(&r->av->fid);
    if (r->cq)
        fi_close(&r->cq->fid);
    if (r->domain)
        fi_close(&r->domain->fid);
    if (r->fabric)
        fi_close(&r->fabric->fid);
    if (r->info)
        p_freeinfo(r->info);
    free(r->buf);
    free(r);
}

static long drain(tb_raw_ofi_t *r)
{
    struct fi_cq_entry e[16];
    ssize_t n = fi_cq_read(r->cq, e, 16);
    if (n > 0) {
        r->outstanding -= n;
        return n;
    }
    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        fi_cq_readerr(r->cq, &err, 0);
        fprintf(stderr, "raw libfabric baseline: completion error %s\n",
                p_strerror(err.err));
        exit(1);
    }
    return 0;
}

static void post(tb_raw_ofi_t *r, int get, size_t off, size_t n)
{
    static struct fi_context2 ctx[1]; /* completions are only counted */
    struct iovec iov = {.iov_base = r->buf + off, .iov_len = n};
    void *desc = fi_mr_desc(r->mr);
    uint64_t raddr = r->virt ? r->peer_base + off : off;
    struct fi_rma_iov riov = {.addr = raddr, .len = n, .key = r->peer_key};
    struct fi_msg_rma msg = {.msg_iov = &iov,
                             .desc = &desc,
                             .iov_count = 1,
                             .addr = r->peer_addr,
                             .rma_iov = &riov,
                             .rma_iov_count = 1,
                             .context = ctx};
    uint64_t fl = FI_COMPLETION;
    if (!get) {
        fl |= FI_DELIVERY_COMPLETE;
        if (n <= r->inject)
            fl |= FI_INJECT;
    }
    ssize_t rc;
    while ((rc = get ? fi_readmsg(r->ep, &msg, fl) : fi_writemsg(r->ep, &msg, fl)) ==
           -FI_EAGAIN)
        drain(r);
    if (rc) {
        fprintf(stderr, "raw libfabric baseline: post failed: %s\n",
                p_strerror((int)-rc));
        exit(1);
    }
    r->outstanding++;
}

static void wait_all(tb_raw_ofi_t *r)
{
    while (r->outstanding > 0)
        drain(r);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double tb_raw_ofi_lat(tb_raw_ofi_t *r, int get, size_t n, long iters)
{
    double t0 = now();
    for (long i = 0; i < iters; i++) {
        post(r, get, 0, n);
        wait_all(r);
    }
    return (now() - t0) / (double)iters * 1e9;
}

double tb_raw_ofi_bw(tb_raw_ofi_t *r, int get, size_t n, long iters, int window)
{
    double t0 = now();
    for (long i = 0; i < iters;) {
        for (int w = 0; w < window && i < iters; w++, i++)
            post(r, get, 0, n);
        wait_all(r);
    }
    return (double)n * (double)iters / (now() - t0) / 1e6;
}

/* Posts a receive of up to n bytes into the upper half of the buffer. */
static void post_recv(tb_raw_ofi_t *r, size_t n)
{
    static struct fi_context2 ctx[1];
    ssize_t rc;
    while ((rc = fi_recv(r->ep, r->buf + r->bytes / 2, n ? n : 1, fi_mr_desc(r->mr),
                         FI_ADDR_UNSPEC, ctx)) == -FI_EAGAIN)
        drain(r);
    if (rc) {
        fprintf(stderr, "raw libfabric baseline: fi_recv failed: %s\n",
                p_strerror((int)-rc));
        exit(1);
    }
    r->outstanding++;
}

static void post_send(tb_raw_ofi_t *r, size_t n)
{
    static struct fi_context2 ctx[1];
    ssize_t rc;
    while ((rc = fi_send(r->ep, r->buf, n ? n : 1, fi_mr_desc(r->mr), r->peer_addr,
                         ctx)) == -FI_EAGAIN)
        drain(r);
    if (rc) {
        fprintf(stderr, "raw libfabric baseline: fi_send failed: %s\n",
                p_strerror((int)-rc));
        exit(1);
    }
    r->outstanding++;
}

/* read (a constant at each call): each receiver reads the n bytes it
 * received (tb_read_payload) before it answers or sends again. */
static inline __attribute__((always_inline)) double pingpong(tb_raw_ofi_t *r, size_t n,
                                                             long ops, int read)
{
    double t0 = now();
    for (long i = 0; i < ops; i++) {
        post_recv(r, n); /* both completions, the receive and the send */
        if (r->me == 0)
            post_send(r, n);
        else
            while (r->outstanding > 0)
                drain(r);
        if (read && r->me != 0)
            tb_read_payload(r->buf + r->bytes / 2, n);
        if (r->me != 0)
            post_send(r, n);
        wait_all(r);
        if (read && r->me == 0)
            tb_read_payload(r->buf + r->bytes / 2, n);
    }
    return (now() - t0) / (double)ops / 2 * 1e9;
}

double tb_raw_ofi_pingpong(tb_raw_ofi_t *r, size_t n, long ops)
{
    return pingpong(r, n, ops, 0);
}

double tb_raw_ofi_pingpong_read(tb_raw_ofi_t *r, size_t n, long ops)
{
    return pingpong(r, n, ops, 1);
}

double tb_raw_ofi_stream(tb_raw_ofi_t *r, size_t n, long ops, int window)
{
    double t0 = now();
    for (long i = 0; i < ops; i += window) {
        long w = ops - i < window ? ops - i : window;
        if (r->me == 0) {
            post_recv(r, 1); /* the batch's answer */
            for (long k = 0; k < w; k++)
                post_send(r, n);
        } else {
            for (long k = 0; k < w; k++)
                post_recv(r, n);
            while (r->outstanding > 0)
                drain(r);
            post_send(r, 1);
        }
        wait_all(r);
    }
    return (double)n * (double)ops / (now() - t0) / 1e6;
}

/* An fi_inject_write of len bytes at v to the peer's data word 0,
 * draining the completion queue while the provider has no room. */
static void inject_word(tb_raw_ofi_t *r, const void *v, size_t len)
{
    uint64_t raddr = r->virt ? r->peer_base : 0;
    ssize_t rc;
    while ((rc = fi_inject_write(r->ep, v, len, r->peer_addr, raddr, r->peer_key)) ==
           -FI_EAGAIN)
        drain(r);
    if (rc) {
        fprintf(stderr, "raw libfabric baseline: fi_inject_write failed: %s\n",
                p_strerror((int)-rc));
        exit(1);
    }
}

/* Rank 0 and the peer together: ns per round trip of an 8-byte
 * fi_inject_write to the peer's data word 0, answered by the same back;
 * each side polls the word in memory while reading its completion queue
 * (manual progress). No completion is reported anywhere (inject, no
 * remote CQ data): the floor of a round trip that avoids the provider's
 * per-completion work (docs/design/shmem-atomics.md, "Fetching AMOs and
 * blocking get over tcp"). base makes the values of each call new. */
double tb_raw_ofi_write_rtt(tb_raw_ofi_t *r, long ops, uint64_t base)
{
    volatile uint64_t *w = (volatile uint64_t *)r->buf;
    double t0 = now();
    for (long i = 1; i <= ops; i++) {
        uint64_t v = base + (uint64_t)i;
        if (r->me != 0)
            while (*w != v)
                drain(r);
        inject_word(r, &v, sizeof(v));
        if (r->me == 0)
            while (*w != v)
                drain(r);
    }
    return (now() - t0) / (double)ops * 1e9;
}

/* Both ranks at once: ns per exchange of 4-byte flags, each written by
 * fi_inject_write and polled in memory (the barrier's floor). */
double tb_raw_ofi_flags(tb_raw_ofi_t *r, long ops)
{
    static uint32_t seq; /* the last exchange's number, the same on both */
    volatile uint32_t *mine = (volatile uint32_t *)r->buf;
    double t0 = now();
    for (long i = 0; i < ops; i++) {
        uint32_t v = ++seq;
        inject_word(r, &v, sizeof(v));
        while ((int32_t)(*mine - v) < 0)
            drain(r);
    }
    return (now() - t0) / (double)ops * 1e9;
}

/* One u64 fetch-add of 1 to the peer's word 0; operand and result in the
 * registered words after the stop word. */
static void post_fadd(tb_raw_ofi_t *r)
{
    static struct fi_context2 ctx[1];
    uint64_t *w = (uint64_t *)(r->buf + r->bytes);
    w[1] = 1;
    void *desc = fi_mr_desc(r->mr);
    struct fi_ioc op = {.addr = &w[1], .count = 1}, res = {.addr = &w[2], .count = 1};
    struct fi_rma_ioc rio = {
        .addr = r->virt ? r->peer_base : 0, .count = 1, .key = r->peer_key};
    struct fi_msg_atomic msg = {.msg_iov = &op,
                                .desc = &desc,
                                .iov_count = 1,
                                .addr = r->peer_addr,
                                .rma_iov = &rio,
                                .rma_iov_count = 1,
                                .datatype = FI_UINT64,
                                .op = FI_SUM,
                                .context = ctx};
    ssize_t rc;
    while ((rc = fi_fetch_atomicmsg(r->ep, &msg, &res, &desc, 1,
                                    FI_COMPLETION | FI_DELIVERY_COMPLETE)) == -FI_EAGAIN)
        drain(r);
    if (rc) {
        fprintf(stderr, "raw libfabric baseline: fi_fetch_atomicmsg failed: %s\n",
                p_strerror((int)-rc));
        exit(1);
    }
    r->outstanding++;
}

double tb_raw_ofi_fadd(tb_raw_ofi_t *r, long iters, int window)
{
    struct fi_atomic_attr attr = {0};
    if (fi_query_atomic(r->domain, FI_UINT64, FI_SUM, &attr, FI_FETCH_ATOMIC) ||
        attr.count < 1)
        return 0;
    double t0 = now();
    for (long i = 0; i < iters;) {
        for (int k = 0; k < window && i < iters; k++, i++)
            post_fadd(r);
        wait_all(r);
    }
    return (now() - t0) / (double)iters * 1e9;
}

void tb_raw_ofi_release(tb_raw_ofi_t *r)
{
    static uint64_t stop_value;
    stop_value++;
    /* The stop word lies after the data: write our counter there. */
    memcpy(r->buf + r->bytes, &stop_value, sizeof(stop_value));
    post(r, 0, r->bytes, sizeof(stop_value));
    wait_all(r);
}

void tb_raw_ofi_serve(tb_raw_ofi_t *r)
{
    static uint64_t served;
    served++;
    volatile uint64_t *stop = (volatile uint64_t *)(r->buf + r->bytes);
    while (*stop < served)
        drain(r);
}

#else /* no network transport in this build */

tb_raw_ofi_t *tb_raw_ofi_setup(int peer, size_t bytes)
{
    return NULL;
}
void tb_raw_ofi_teardown(tb_raw_ofi_t *r) {}
double tb_raw_ofi_lat(tb_raw_ofi_t *r, int get, size_t n, long iters)
{
    return 0;
}
double tb_raw_ofi_bw(tb_raw_ofi_t *r, int get, size_t n, long iters, int window)
{
    return 0;
}
double tb_raw_ofi_pingpong(tb_raw_ofi_t *r, size_t n, long ops)
{
    (void)r, (void)n, (void)ops;
    return 0;
}
double tb_raw_ofi_pingpong_read(tb_raw_ofi_t *r, size_t n, long ops)
{
    (void)r, (void)n, (void)ops;
    return 0;
}
double tb_raw_ofi_stream(tb_raw_ofi_t *r, size_t n, long ops, int window)
{
    (void)r, (void)n, (void)ops, (void)window;
    return 0;
}
double tb_raw_ofi_write_rtt(tb_raw_ofi_t *r, long ops, uint64_t base)
{
    (void)r, (void)ops, (void)base;
    return 0;
}
double tb_raw_ofi_flags(tb_raw_ofi_t *r, long ops)
{
    (void)r, (void)ops;
    return 0;
}
double tb_raw_ofi_fadd(tb_raw_ofi_t *r, long iters, int window)
{
    (void)r, (void)iters, (void)window;
    return 0;
}
void tb_raw_ofi_release(tb_raw_ofi_t *r) {}
void tb_raw_ofi_serve(tb_raw_ofi_t *r) {}

#endif
