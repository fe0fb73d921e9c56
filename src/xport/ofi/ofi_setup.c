/* libfabric set-up: provider choice, endpoint, registration of the segment
 * mapping, address exchange. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include <tern/status.h>

#include "base/cfg.h"
#include "base/log.h"
#include "xport/ofi/ofi.h"
#include "xport/ofi/ofi_dl.h"

#define TN_FI_VERSION FI_VERSION(1, 9)

static const tn_xport_ops_t ofi_ops;

int tn_ofi_status(int fi_rc)
{
    switch (fi_rc) {
    case 0: return TERN_OK;
    case -FI_EAGAIN: return TERN_ERR_AGAIN;
    case -FI_ENOMEM: return TERN_ERR_NOMEM;
    case -FI_ENODATA:
    case -FI_ENOSYS:
    case -FI_EOPNOTSUPP: return TERN_ERR_UNSUPPORTED;
    case -FI_EINVAL: return TERN_ERR_INVALID;
    default: return TERN_ERR_SYS;
    }
}

static struct fi_info *make_hints(const tn_ofi_opts_t *opts, int want_msg_atomic)
{
    struct fi_info *h = tn_fi_allocinfo();
    if (!h)
        return NULL;
    h->ep_attr->type = FI_EP_RDM;
    /* RMA is what this transport uses now; messages and atomics are asked
     * for where offered, for active messages and atomic domains (the query
     * op reports neither until they are implemented). */
    h->caps = FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    if (want_msg_atomic)
        h->caps |= FI_MSG | FI_ATOMIC;
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    h->domain_attr->threading = FI_THREAD_SAFE;
    h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    if (opts->provider && *opts->provider)
        h->fabric_attr->prov_name = strdup(opts->provider);
    if (opts->domain && *opts->domain)
        h->domain_attr->name = strdup(opts->domain);
    if (opts->fabric && *opts->fabric)
        h->fabric_attr->name = strdup(opts->fabric);
    return h;
}

/* Whether a and b name the same interface: provider, fabric, domain and
 * source address (libfabric 1.17's tcp offers one entry per IP network of
 * an interface, so that eth0 may be 192.0.2.0/24, fe80::/64 and fd00::/64,
 * all of one provider and domain). */
static int same_iface(const struct fi_info *a, const struct fi_info *b)
{
    const char *an = a->fabric_attr->name, *bn = b->fabric_attr->name;
    const char *ad = a->domain_attr->name, *bd = b->domain_attr->name;
    return strcmp(a->fabric_attr->prov_name, b->fabric_attr->prov_name) == 0 && an &&
           bn && strcmp(an, bn) == 0 && ad && bd && strcmp(ad, bd) == 0 &&
           a->addr_format == b->addr_format && a->src_addrlen == b->src_addrlen &&
           (a->src_addrlen == 0 ||
            (a->src_addr && b->src_addr &&
             memcmp(a->src_addr, b->src_addr, a->src_addrlen) == 0));
}

/* Whether i is on the domain and fabric opts asks for (empty: any). The
 * names are matched here, not only hinted: libfabric 1.17's tcp, udp,
 * sockets and net providers ignore the hints' domain name. */
static int asked_for(const tn_ofi_opts_t *opts, const struct fi_info *i)
{
    const char *d = i->domain_attr->name, *f = i->fabric_attr->name;
    return (!opts->domain || !*opts->domain || (d && strcmp(d, opts->domain) == 0)) &&
           (!opts->fabric || !*opts->fabric || (f && strcmp(f, opts->fabric) == 0));
}

/* Whether name is one of the ", "-separated names in list. */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strstr(p, ", ");
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        if (!end)
            break;
        p = end + 2;
    }
    return 0;
}

enum { LIST_PROVIDERS, LIST_DOMAINS, LIST_FABRICS };

/* The distinct names of what (LIST_*) that offer RDM endpoints with RMA
 * here, of provider only if it is not empty (fabrics: of domain only if
 * it is not empty), ", "-separated into buf ("(none)" for none). Returns
 * how many. */
static int list_names(const char *provider, const char *domain, int what, char *buf,
                      size_t len)
{
    tn_ofi_opts_t any = {.provider = provider, .domain = domain};
    struct fi_info *h = make_hints(&any, 0), *info = NULL;
    int count = 0;
    buf[0] = '\0';
    if (h && tn_fi.getinfo(TN_FI_VERSION, NULL, NULL, 0, h, &info) == 0) {
        size_t used = 0;
        for (struct fi_info *i = info; i; i = i->next) {
            if (what == LIST_FABRICS && !asked_for(&any, i))
                continue;
            const char *p = what == LIST_DOMAINS   ? i->domain_attr->name
                            : what == LIST_FABRICS ? i->fabric_attr->name
                                                   : i->fabric_attr->prov_name;
            if (!p || listed(buf, p))
                continue;
            int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", p);
            if (w < 0 || (size_t)w >= len - used)
                break;
            used += (size_t)w;
            count++;
        }
    }
    tn_fi.freeinfo(info);
    tn_fi.freeinfo(h);
    if (!buf[0])
        snprintf(buf, len, "(none)");
    return count;
}

/* Unacknowledged writes (TN_XPORT_FLAG_UNACKED: the collectives' stamped
 * records, barrier flags, the atomic mailbox) are fi_inject_write, at
 * most the endpoint's inject size. A provider whose default is below
 * TN_OFI_UNACKED_WANT is asked again for the same interface (provider,
 * fabric, domain and source address, in the hints and matched in the
 * answer: one domain may have several fabrics, same_iface) with that
 * inject size in the hints: libfabric 1.17's tcp;ofi_rxm offers 64 B
 * by default (its tcp endpoints' 128 less the header of rxm's messages,
 * which an RMA inject does not carry; rxm_info_to_rxm) and grants 128
 * when asked (the hint reaches tcp, whose limit is 128). Where the
 * provider refuses, *info stays as it was. *base keeps the default inject
 * size, which every other path goes on using (messages and lazy puts: not
 * measured with more). docs/design/collectives.md, "Stamped records of
 * 112 bytes". */
static void widen_inject(const tn_ofi_opts_t *opts, int want, struct fi_info **info,
                         size_t *base)
{
    struct fi_info *cur = *info, *got = NULL;
    *base = cur->tx_attr->inject_size;
    if (*base >= TN_OFI_UNACKED_WANT)
        return;
    tn_ofi_opts_t same = *opts;
    same.provider = cur->fabric_attr->prov_name;
    same.domain = cur->domain_attr->name;
    same.fabric = cur->fabric_attr->name;
    struct fi_info *h = make_hints(&same, want);
    if (!h)
        return;
    h->tx_attr->inject_size = TN_OFI_UNACKED_WANT;
    if (cur->src_addr && cur->src_addrlen && (h->src_addr = malloc(cur->src_addrlen))) {
        memcpy(h->src_addr, cur->src_addr, cur->src_addrlen); /* fi_freeinfo frees it */
        h->src_addrlen = cur->src_addrlen;
        h->addr_format = cur->addr_format;
    }
    if (tn_fi.getinfo(TN_FI_VERSION, NULL, NULL, 0, h, &got) == 0)
        for (struct fi_info *i = got; i; i = i->next) {
            if (!same_iface(i, cur) || i->tx_attr->inject_size < TN_OFI_UNACKED_WANT)
                continue;
            struct fi_info *dup = tn_fi.dupinfo(i);
            if (dup) {
                tn_fi.freeinfo(cur);
                *info = dup;
            }
            break;
        }
    tn_fi.freeinfo(got);
    tn_fi.freeinfo(h);
}

/* The best fi_info for opts: with messages and atomics if a provider has
 * them (for the AM and atomics work), else RMA alone; on the domain and
 * fabric asked for (asked_for: libfabric 1.17's tcp, udp, sockets and net
 * providers ignore the hints' domain name and would open their first
 * interface instead). *inject: the default inject size (widen_inject). */
static int get_info(const tn_ofi_opts_t *opts, struct fi_info **out, size_t *inject)
{
    const char *dom = opts->domain && *opts->domain ? opts->domain : NULL;
    const char *fab = opts->fabric && *opts->fabric ? opts->fabric : NULL;
    int rc = -FI_ENODATA;
    for (int want = 1; want >= 0 && rc == -FI_ENODATA; want--) {
        struct fi_info *h = make_hints(opts, want), *info = NULL, *i;
        if (!h)
            return TERN_ERR_NOMEM;
        rc = tn_fi.getinfo(TN_FI_VERSION, NULL, NULL, 0, h, &info);
        tn_fi.freeinfo(h);
        for (i = rc == 0 ? info : NULL; i; i = i->next)
            if (asked_for(opts, i))
                break;
        if (i) {
            *out = tn_fi.dupinfo(i); /* this one (the best) only */
            tn_fi.freeinfo(info);
            if (!*out)
                return TERN_ERR_NOMEM;
            if (opts->fault && strcmp(opts->fault, "nowiden") == 0)
                *inject = (*out)->tx_attr->inject_size; /* TERN_TEST_FAULT */
            else
                widen_inject(opts, want, out, inject);
            return TERN_OK;
        }
        tn_fi.freeinfo(info);
        if (rc == 0)
            rc = -FI_ENODATA; /* offered, but not on that domain or fabric */
    }
    char avail[512];
    const char *prov = opts->provider && *opts->provider ? opts->provider : NULL;
    if (fab && list_names(prov, dom, LIST_FABRICS, avail, sizeof(avail)) > 0) {
        tn_error("libfabric fabric '%s' is not offered%s%s%s%s%s%s for RDM RMA here: set "
                 "TERN_OFI_FABRIC to one of: %s (or leave it empty for the domain's "
                 "first)",
                 fab, prov ? " by provider '" : "", prov ? prov : "", prov ? "'" : "",
                 dom ? " on domain '" : "", dom ? dom : "", dom ? "'" : "", avail);
        return TERN_ERR_CONFIG;
    }
    if (dom && list_names(prov, NULL, LIST_DOMAINS, avail, sizeof(avail)) > 0) {
        tn_error("libfabric domain '%s' is not offered%s%s%s for RDM RMA here: set "
                 "TERN_OFI_DOMAIN to one of: %s (or leave it empty for the %s first)",
                 dom, prov ? " by provider '" : "", prov ? prov : "", prov ? "'" : "",
                 avail, prov ? "provider's" : "best provider's");
        return TERN_ERR_CONFIG;
    }
    list_names(NULL, NULL, LIST_PROVIDERS, avail, sizeof(avail));
    if (prov)
        tn_error("libfabric provider '%s'%s%s%s is not available for RDM RMA "
                 "here (%s): set TERN_OFI_PROVIDER to one of: %s",
                 prov, dom ? " with domain '" : "", dom ? dom : "", dom ? "'" : "",
                 tn_fi.strerror(-rc), avail);
    else
        tn_error("no libfabric provider offers RDM endpoints with RMA (%s); "
                 "providers seen: %s",
                 tn_fi.strerror(-rc), avail);
    return TERN_ERR_CONFIG;
}

/* Logs a failed libfabric call with what it means for the user. */
static int fi_fail(const char *call, int rc)
{
    const char *hint = "";
    if (rc == -FI_ENOMEM || rc == -FI_EACCES || rc == -FI_EPERM) {
        struct rlimit rl;
        if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
            hint = " (the locked-memory limit may be too low: raise 'ulimit -l' or "
                   "lower TERN_SEGMENT_SIZE)";
    }
    tn_error("libfabric %s failed: %s%s", call, tn_fi.strerror(-rc), hint);
    return tn_ofi_status(rc) == TERN_ERR_NOMEM ? TERN_ERR_NOMEM : TERN_ERR_SYS;
}

/* libfabric's ofi_rxm (1.17 and later: rxm_handle_comp_error) takes the
 * context of every failed operation of its core endpoint for one of its
 * own buffers, and dereferences it; an fi_inject_write that it passes
 * straight to its core endpoint has none, and tcp (1.17: tcpx_cq_report_error,
 * which spares its message injects but not its RMA injects) reports such
 * a write's failure, with a NULL context. So a peer that leaves (exits,
 * crashes) while writes without completion to it are on the wire or
 * posted made this rank's next poll die of SIGSEGV in fi_cq_read, inside
 * rxm (shmem.bad.exit_mid with the progress thread: the leaving PE's
 * thread served the survivors' mailbox gets up to its exit, so their next
 * request met the closed connection; docs/design/progress-thread.md,
 * "The crash"). With a counter bound for writes, rxm sends every inject
 * write through one of its own buffers (rxm_ep_inject_write: its
 * emulation, a write with an internal completion), whose failure it
 * handles: the error reaches this transport's queue with the write's
 * (NULL) context, where poll_cq reports it. The counter is never read.
 * Opt-in (TERN_OFI_INJECT_GUARD=1): each such write then costs a
 * completion that tcp signals through its wait object, measured at +2.4
 * us on a 2-PE network barrier_all (6.9 -> 9.3 us) and +2.6 us on the
 * mailbox's fetch_add (9.2 -> 12.0 us; 5 runs each, medians). */
static int guard_injects(tn_ofi_t *o)
{
    if (!tn_cfg.ofi_inject_guard || !strstr(o->info->fabric_attr->prov_name, "ofi_rxm"))
        return TERN_OK;
    struct fi_cntr_attr attr = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE};
    int rc = fi_cntr_open(o->domain, &attr, &o->inject_guard, NULL);
    if (rc)
        return fi_fail("fi_cntr_open (the write counter of ofi_rxm's inject writes)", rc);
    if ((rc = fi_ep_bind(o->ep, &o->inject_guard->fid, FI_WRITE)))
        return fi_fail("fi_ep_bind(write counter)", rc);
    return TERN_OK;
}

static int open_endpoint(tn_ofi_t *o)
{
    struct fi_info *i = o->info;
    int rc = tn_fi.fabric(i->fabric_attr, &o->fabric, NULL);
    if (rc)
        return fi_fail("fi_fabric", rc);
    if ((rc = fi_domain(o->fabric, i, &o->domain, NULL)))
        return fi_fail("fi_domain", rc);
    /* With the data: a signalled write's remote CQ data (ofi_rma.c). */
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_DATA,
                                 .size = i->tx_attr->size ? i->tx_attr->size * 2 : 4096,
                                 .wait_obj = FI_WAIT_NONE};
    if ((rc = fi_cq_open(o->domain, &cq_attr, &o->cq, NULL)))
        return fi_fail("fi_cq_open", rc);
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE, .count = (size_t)o->size};
    if ((rc = fi_av_open(o->domain, &av_attr, &o->av, NULL)))
        return fi_fail("fi_av_open", rc);
    if ((rc = fi_endpoint(o->domain, i, &o->ep, NULL)))
        return fi_fail("fi_endpoint", rc);
    if ((rc = fi_ep_bind(o->ep, &o->cq->fid, FI_TRANSMIT | FI_RECV)))
        return fi_fail("fi_ep_bind(cq)", rc);
    if ((rc = fi_ep_bind(o->ep, &o->av->fid, 0)))
        return fi_fail("fi_ep_bind(av)", rc);
    if ((rc = guard_injects(o)))
        return rc;
    if ((rc = fi_enable(o->ep))) {
        /* Enabling posts the provider's receive queue, FI_OFI_RXM_RX_SIZE
         * from TERN_AM_NET_RECV: name it when it is above its default. */
        const tn_ofi_sizing_t *s = tn_ofi_sizing();
        size_t def = 0;
        tn_cfg_parse_size(tn_cfg_find("TERN_AM_NET_RECV")->def, &def);
        if (rc == -FI_ENOMEM && s && tn_cfg.am_net_recv > def)
            tn_error("libfabric fi_enable: the endpoint's receive queue holds %ld "
                     "active-message receives of %zu bytes (TERN_AM_NET_RECV=%zu): "
                     "lower TERN_AM_NET_RECV",
                     s->am_rx, s->am_buf, (size_t)tn_cfg.am_net_recv);
        return fi_fail("fi_enable", rc);
    }
    return TERN_OK;
}

/* Registers the whole mapping (control area + segment) for remote access. */
static int register_segment(tn_ofi_t *o)
{
    int mode = o->info->domain_attr->mr_mode;
    uint64_t access = FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE;
    /* Without FI_MR_PROV_KEY the key is ours to choose: the segment's
     * registration takes key 1, the bounce buffers' key 2 (ofi_rma.c). */
    int rc = fi_mr_reg(o->domain, o->map, o->map_size, access, 0, 1, 0, &o->mr, NULL);
    if (rc)
        return fi_fail("fi_mr_reg of the segment", rc);
    if (mode & FI_MR_ENDPOINT) {
        if ((rc = fi_mr_bind(o->mr, &o->ep->fid, 0)))
            return fi_fail("fi_mr_bind", rc);
        if ((rc = fi_mr_enable(o->mr)))
            return fi_fail("fi_mr_enable", rc);
    }
    o->mr_desc = fi_mr_desc(o->mr);
    o->virt_addr = (mode & FI_MR_VIRT_ADDR) != 0;
    if (!o->static_size)
        return TERN_OK;
    /* The program's global variables: key 5 (the bounce buffers have 2,
     * the message buffers 3 and 4, private local buffers 6 and up,
     * ofi_mr.c). */
    rc = fi_mr_reg(o->domain, o->static_base, o->static_size, access, 0, 5, 0,
                   &o->static_mr, NULL);
    if (rc) {
        tn_error("libfabric cannot register the program's global variables [%p, +%zu) "
                 "for remote access: %s (set TERN_STATIC_DATA=off to run without it)",
                 o->static_base, o->static_size, tn_fi.strerror(-rc));
        return tn_ofi_status(rc);
    }
    if (mode & FI_MR_ENDPOINT) {
        if ((rc = fi_mr_bind(o->static_mr, &o->ep->fid, 0)))
            return fi_fail("fi_mr_bind (global variables)", rc);
        if ((rc = fi_mr_enable(o->static_mr)))
            return fi_fail("fi_mr_enable (global variables)", rc);
    }
    return TERN_OK;
}

/* Bytes of a's card as published: the header and the name's bytes. */
static size_t card_len(const tn_ofi_addr_t *a)
{
    return offsetof(tn_ofi_addr_t, name) + (size_t)a->name_len;
}

/* Inserts rank's card into the address vector and keeps its entry
 * (address, key and registration base); publishes peers[rank] last
 * (readers test it first, tn_ofi_peer). Called with addr_lock held, or
 * before any other thread can see o. */
static int insert(tn_ofi_t *o, int rank, const tn_ofi_addr_t *a)
{
    tn_ofi_rkey_t *e = calloc(1, sizeof(*e));
    if (!e)
        return TERN_ERR_NOMEM;
    e->fi_addr = FI_ADDR_NOTAVAIL;
    int n = fi_av_insert(o->av, a->name, 1, &e->fi_addr, 0, NULL);
    if (n != 1) {
        tn_error("libfabric fi_av_insert of rank %d's address failed (%s)", rank,
                 n < 0 ? tn_fi.strerror(-n) : "not inserted");
        free(e);
        return TERN_ERR_SYS;
    }
    e->map_base = a->map_base;
    e->map_size = a->map_size;
    e->key = a->key;
    e->static_base = a->static_base;
    e->static_key = a->static_key;
    atomic_init(&e->credits, o->credit_init); /* 0 until messages are set up */
    atomic_init(&e->consumed, 0);
    atomic_init(&e->window, o->credit_init);
    atomic_init(&e->sent_to, 0);
    o->resolved++;
    __atomic_store_n(&o->peers[rank], e, __ATOMIC_RELEASE);
    return TERN_OK;
}

/* The key of this instance's card: instances are created collectively, in
 * the same order on every rank (a test may open a second one), so the
 * count names the same instance everywhere. */
static int instances;
static void card_key(const tn_ofi_t *o, char *key, size_t len)
{
    snprintf(key, len, "ofi.addr.%d", o->instance);
}

int tn_ofi_resolve(tn_ofi_t *o, int rank)
{
    if (rank < 0 || rank >= o->size) {
        tn_error("network transport: rank %d is not in the job of %d ranks", rank,
                 o->size);
        return TERN_ERR_RANK;
    }
    pthread_mutex_lock(&o->addr_lock);
    int rc = TERN_OK;
    if (!o->peers[rank]) {
        tn_ofi_addr_t card;
        size_t len = 0;
        char key[TN_BOOT_KEY_MAX];
        card_key(o, key, sizeof(key));
        rc = o->lazy ? o->boot->ops->get(o->boot, rank, key, &card, sizeof(card), &len)
                     : TERN_ERR_BOOT;
        if (rc == TERN_OK &&
            (len < offsetof(tn_ofi_addr_t, name) || card.name_len > TN_OFI_NAME_MAX ||
             len != card_len(&card))) {
            tn_error("rank %d's network address card has %zu bytes, not what this Tern "
                     "writes (ranks of different Tern builds?)",
                     rank, len);
            rc = TERN_ERR_MISMATCH;
        }
        if (rc == TERN_OK)
            rc = insert(o, rank, &card);
        if (rc != TERN_OK)
            tn_error("network transport: first contact with rank %d failed: its address "
                     "could not be resolved (%s)",
                     rank, tern_strerror(rc));
    }
    pthread_mutex_unlock(&o->addr_lock);
    return rc;
}

/* Start-up: this rank's card is published, lazily (through the
 * bootstrap's key-value store: each peer fetches it at first contact) or
 * eagerly (one allgather of every card, all inserted now). */
static int exchange(tn_ofi_t *o, tn_boot_t *boot, int lazy)
{
    tn_ofi_addr_t mine = {0};
    size_t len = sizeof(mine.name);
    int rc = fi_getname(&o->ep->fid, mine.name, &len);
    if (rc)
        return fi_fail("fi_getname", rc);
    mine.name_len = len;
    mine.map_base = (uint64_t)(uintptr_t)o->map;
    mine.map_size = o->map_size;
    mine.key = fi_mr_key(o->mr);
    if (o->static_mr) {
        mine.static_base = (uint64_t)(uintptr_t)o->static_base;
        mine.static_key = fi_mr_key(o->static_mr);
    }
    o->boot = boot;
    o->lazy = lazy && tn_boot_has_kv(boot) && card_len(&mine) <= TN_BOOT_VALUE_MAX;
    o->peers = calloc((size_t)o->size, sizeof(*o->peers));
    if (!o->peers)
        return TERN_ERR_NOMEM;
    o->instance = instances++;
    if (o->lazy) { /* seen by the others after core's start-up barrier */
        char key[TN_BOOT_KEY_MAX];
        card_key(o, key, sizeof(key));
        return boot->ops->put(boot, key, &mine, card_len(&mine));
    }
    tn_ofi_addr_t *all = calloc((size_t)o->size, sizeof(*all));
    if (!all)
        return TERN_ERR_NOMEM;
    rc = boot->ops->allgather(boot, &mine, sizeof(mine), all);
    size_t rss0 = tn_mem_rss_anon(); /* the address vector's growth */
    for (int r = 0; r < o->size && rc == TERN_OK; r++)
        rc = insert(o, r, &all[r]);
    o->provider_bytes += tn_mem_growth(rss0);
    free(all);
    return rc;
}

static int create(tn_boot_t *boot, void *map, size_t map_size, const tn_ofi_opts_t *opts,
                  tn_ofi_t **out);
static int parse_fault(const char *text, tn_ofi_fault_t *f, int quiet);

/* The provider entry chosen ahead of create by tn_ofi_unacked_plan, which
 * create then opens (taken: info NULL again), and get_info's status. */
static struct {
    int done, rc;
    struct fi_info *info;
    size_t inject;
    size_t growth; /* the heap the choice took (provider_bytes) */
} planned;

/* The options of the TERN_OFI_* variables (not the static region). */
static void cfg_opts(tn_ofi_opts_t *o)
{
    *o = (tn_ofi_opts_t){
        .provider = tn_cfg.ofi_provider,
        .domain = tn_cfg.ofi_domain,
        .fabric = tn_cfg.ofi_fabric,
        .tx_depth = tn_ofi_sizing()->tx_depth,
        .force_mr_local = tn_cfg.ofi_mr_local,
        .max_msg = tn_cfg.ofi_max_msg,
        .put_bounce = tn_cfg.ofi_put_bounce,
        .signal = tn_cfg.ofi_signal,
        .atomics = tn_cfg.ofi_atomics != TN_AMO_CFG_AM,
        .lazy_addr = tn_cfg.ofi_lazy_addr,
        .fault = tn_cfg.test_fault,
    };
}

/* The fragment cap create sets (o->max_msg). */
static size_t max_msg_of(const struct fi_info *info, const tn_ofi_opts_t *opts)
{
    size_t m = info->ep_attr->max_msg_size ? info->ep_attr->max_msg_size : SIZE_MAX;
    return opts->max_msg && opts->max_msg < m ? opts->max_msg : m;
}

size_t tn_ofi_unacked_plan(void)
{
    tn_ofi_prefetch_wait();
    tn_ofi_size_apply(1);
    tn_ofi_opts_t o;
    cfg_opts(&o);
    if (planned.info) /* a plan no create took (a start-up that failed) */
        tn_fi.freeinfo(planned.info);
    planned.info = NULL;
    planned.done = 1;
    planned.rc = tn_fi_load();
    size_t rss0 = tn_mem_rss_anon();
    if (planned.rc == TERN_OK)
        planned.rc = get_info(&o, &planned.info, &planned.inject);
    planned.growth = tn_mem_growth(rss0);
    tn_ofi_t probe = {.info = planned.info};
    if (planned.rc != TERN_OK || !planned.info ||
        parse_fault(o.fault, &probe.fault, 1) != TERN_OK)
        return 0;
    /* As create and ofi_query will: caps.unacked, the order caps (their
     * max_msg and TERN_TEST_FAULT=noorder), caps.inject. */
    probe.max_msg = max_msg_of(planned.info, &o);
    if (!(tn_ofi_order_caps(&probe) & TN_XCAP_ORDER_PUT) ||
        planned.inject < sizeof(uint32_t))
        return 0;
    return planned.info->tx_attr->inject_size;
}

void tn_ofi_job_settings(char *buf, size_t len)
{
    const struct fi_info *info = planned.done ? planned.info : NULL;
    tn_ofi_size_job(info ? info->fabric_attr->prov_name : NULL, buf, len);
}

int tn_ofi_create(const tn_xport_job_t *job, tn_xport_t **out)
{
    tn_ofi_prefetch_wait();
    tn_ofi_size_apply(1);
    tn_ofi_opts_t o;
    cfg_opts(&o);
    o.static_base = (void *)(uintptr_t)job->segs[job->rank].static_base;
    o.static_size = (size_t)job->segs[job->rank].static_size;
    tn_ofi_t *ofi;
    size_t rss0 = tn_mem_rss_anon(); /* loading, when no prefetch did */
    int rc = tn_fi_load();
    size_t load = tn_mem_growth(rss0);
    if (rc == TERN_OK)
        rc = create(job->boot, job->map, job->map_size, &o, &ofi);
    if (rc == TERN_OK) {
        ofi->provider_bytes += load + tn_ofi_prefetch_growth();
        *out = &ofi->base;
    }
    return rc;
}

/* TERN_TEST_FAULT: "" (none), "issue:N" or "complete:N" with N >= 1,
 * "noamo:OP" with OP an atomic op's name, "noorder", "noack" or "nowiden";
 * "peertab:..." is core's, not this transport's. quiet: no message. */
static int parse_fault(const char *text, tn_ofi_fault_t *f, int quiet)
{
    if (!text || !*text)
        return TERN_OK;
    if (strncmp(text, "peertab:", 8) == 0 || /* core's (core/peertab.c) */
        strncmp(text, "collseq:", 8) == 0 || /* core's (core/teams.c) */
        strncmp(text, "collstale:", 10) == 0 ||
        strncmp(text, "pagg:", 5) == 0) /* core's (core/put_agg.c) */
        return TERN_OK;
    if (strcmp(text, "noorder") == 0) {
        f->no_order = 1;
        return TERN_OK;
    }
    if (strcmp(text, "noack") == 0) {
        f->no_ack = 1;
        return TERN_OK;
    }
    if (strcmp(text, "nowiden") == 0) /* get_info's: nothing here */
        return TERN_OK;
    char kind[16], name[16];
    long every = 0;
    char end;
    if (sscanf(text, "noamo:%15[a-z]%c", name, &end) == 1)
        for (int op = 0; op < TN_AOP_COUNT; op++)
            if (strcmp(name, tn_aop_name(op)) == 0) {
                f->amo_hidden |= TN_AOP_BIT(op);
                return TERN_OK;
            }
    if (sscanf(text, "%15[a-z]:%ld%c", kind, &every, &end) == 2 && every >= 1) {
        if (strcmp(kind, "issue") == 0) {
            f->issue_every = every;
            return TERN_OK;
        }
        if (strcmp(kind, "complete") == 0) {
            f->complete_every = every;
            return TERN_OK;
        }
    }
    if (!quiet)
        tn_error("TERN_TEST_FAULT='%s' is not issue:N, complete:N (N >= 1), noamo:OP "
                 "(OP an atomic op such as fmult), noorder, noack or nowiden: set it to "
                 "make every N-th network fragment fail at issue or at completion, the "
                 "provider's atomics lack OP, the provider order nothing, no put go "
                 "acknowledged, or unacknowledged writes keep the default inject "
                 "size, or unset it",
                 text);
    return TERN_ERR_CONFIG;
}

static int create(tn_boot_t *boot, void *map, size_t map_size, const tn_ofi_opts_t *opts,
                  tn_ofi_t **out)
{
    tn_ofi_t *o = calloc(1, sizeof(*o));
    if (!o)
        return TERN_ERR_NOMEM;
    o->base.ops = &ofi_ops;
    o->map = map;
    o->map_size = map_size;
    o->static_base = opts->static_base;
    o->static_size = opts->static_size;
    o->rank = boot->rank;
    o->size = boot->size;
    pthread_mutex_init(&o->lock, NULL);
    pthread_mutex_init(&o->addr_lock, NULL);
    o->tx_queue_tail = &o->tx_queue;
    o->defer_tail = &o->defer_head;
    int rc = parse_fault(opts->fault, &o->fault, 0);
    size_t rss0 = tn_mem_rss_anon(); /* the provider's opening */
    if (rc == TERN_OK && planned.done) {
        /* The entry tn_ofi_unacked_plan chose (and reported) is opened. */
        rc = planned.rc;
        o->info = planned.info;
        o->inject_size = planned.inject;
        o->provider_bytes += planned.growth;
        planned.done = 0;
        planned.info = NULL;
    } else if (rc == TERN_OK) {
        rc = get_info(opts, &o->info, &o->inject_size);
    }
    if (rc == TERN_OK)
        rc = tn_ofi_size_check(o->info->fabric_attr->prov_name);
    if (rc == TERN_OK)
        rc = open_endpoint(o);
    if (rc == TERN_OK)
        rc = register_segment(o);
    o->provider_bytes += tn_mem_growth(rss0);
    if (rc == TERN_OK) {
        o->mr_local =
            (o->info->domain_attr->mr_mode & FI_MR_LOCAL) || opts->force_mr_local;
        o->unacked_max = o->info->tx_attr->inject_size; /* inject_size: get_info */
        o->max_msg = max_msg_of(o->info, opts);
        o->nops = opts->tx_depth > 0       ? opts->tx_depth
                  : o->info->tx_attr->size ? (long)o->info->tx_attr->size
                                           : 256;
        /* Writes with their own signal (TN_XPORT_FLAG_SIGNAL) carry it as
         * 8 bytes of remote CQ data, which the target's poll reads. Not
         * over sockets: libfabric 1.17's sockets provider drops the
         * target's completion of a write with remote CQ data (its write
         * path never sets FI_REMOTE_CQ_DATA in the entry's flags,
         * sock_pe_report_remote_write), so the signal would never come. */
        o->signal_off = !opts->signal ? "TERN_OFI_SIGNAL=0"
                        : o->info->domain_attr->cq_data_size < sizeof(uint64_t)
                            ? "the provider carries less than 8 bytes of remote CQ data"
                        : strcmp(o->info->fabric_attr->prov_name, "sockets") == 0
                            ? "the sockets provider does not report remote CQ data"
                            : NULL;
        o->signal_ok = o->signal_off == NULL;
        o->atomics_off = !opts->atomics;
        tn_ofi_amo_caps(o, o->amo_caps);
        o->put_bounce = opts->put_bounce;
        rc = tn_ofi_op_pool_create(o);
        /* Idle local registrations are kept only where the provider does
         * not need them itself (TERN_OFI_MR_LOCAL forced the path): one
         * that pins pages would keep a freed buffer's old pages; its own
         * cache, which watches for unmapped memory, serves reuse there. */
        int keep_idle = !(o->info->domain_attr->mr_mode & FI_MR_LOCAL);
        if (rc == TERN_OK && o->mr_local)
            rc = tn_ofi_mr_cache_create(o, keep_idle);
    }
    if (rc == TERN_OK)
        rc = exchange(o, boot, opts->lazy_addr);
    if (rc == TERN_OK)
        rc = tn_ofi_msg_setup(o);
    if (rc != TERN_OK) {
        tn_ofi_destroy(o);
        return rc;
    }
    char line[256];
    tn_ofi_summary(&o->base, line, sizeof(line));
    tn_debug("%s", line);
    *out = o;
    return TERN_OK;
}

void tn_ofi_destroy(tn_ofi_t *o)
{
    if (!o)
        return;
    /* Drain what is still in flight so no completion targets freed memory,
     * and send what still waits (packed messages wait for a credit). */
    for (int spins = 0; o->cq && spins < 1000000 &&
                        (o->inflight > 0 || atomic_load(&o->npacking) ||
                         atomic_load(&o->tx_queued) || atomic_load(&o->ndefer));
         spins++)
        tn_ofi_poll(&o->base);
    tn_ofi_defer_fini(o); /* what is still queued ends with an error */
    o->closing = 1;
    if (o->ep)
        fi_close(&o->ep->fid);
    if (o->inject_guard)
        fi_close(&o->inject_guard->fid);
    tn_ofi_msg_teardown(o);
    tn_ofi_op_pool_destroy(o);
    tn_ofi_mr_cache_destroy(o);
    if (o->static_mr)
        fi_close(&o->static_mr->fid);
    if (o->mr)
        fi_close(&o->mr->fid);
    if (o->av)
        fi_close(&o->av->fid);
    if (o->cq)
        fi_close(&o->cq->fid);
    if (o->domain)
        fi_close(&o->domain->fid);
    if (o->fabric)
        fi_close(&o->fabric->fid);
    if (o->info)
        tn_fi.freeinfo(o->info);
    for (int r = 0; o->peers && r < o->size; r++)
        free(o->peers[r]);
    free(o->peers);
    pthread_mutex_destroy(&o->lock);
    pthread_mutex_destroy(&o->addr_lock);
    free(o);
}

/* Which kinds the ordering caps cover, for reports. */
static const char *order_name(unsigned caps)
{
    caps &= TN_XCAP_ORDER_PUT | TN_XCAP_ORDER_AMO;
    return caps == (TN_XCAP_ORDER_PUT | TN_XCAP_ORDER_AMO) ? "puts and atomics"
           : caps == TN_XCAP_ORDER_PUT                     ? "puts"
           : caps == TN_XCAP_ORDER_AMO                     ? "atomics"
                                                           : "nothing";
}

void tn_ofi_summary(tn_xport_t *x, char *buf, size_t len)
{
    const tn_ofi_t *o = (const tn_ofi_t *)x;
    const struct fi_info *i = o->info;
    snprintf(buf, len,
             "ofi: provider %s, domain %s, fabric %s, inject %zu B (unacknowledged "
             "writes %zu B), %ld ops in flight, "
             "%s addressing, %s progress%s, %s, write order kept for %s, puts up to "
             "%zu B done at issue, provider sized by %s, addresses %s",
             i->fabric_attr->prov_name, i->domain_attr->name,
             i->fabric_attr->name ? i->fabric_attr->name : "(unnamed)", o->inject_size,
             o->unacked_max, o->nops, o->virt_addr ? "virtual" : "offset",
             i->domain_attr->data_progress == FI_PROGRESS_AUTO ? "automatic" : "manual",
             o->mr_local ? ", local buffers registered" : "",
             o->atomics_off           ? "atomics off (TERN_OFI_ATOMICS=am)"
             : !(i->caps & FI_ATOMIC) ? "no atomics"
             : o->amo_caps[TN_ATYPE_U64]
                 ? (tn_ofi_amo_soft(i) ? "atomics (emulated)" : "atomics")
                 : "no atomics on u64",
             order_name(tn_ofi_order_caps(o)),
             o->put_bounce > o->inject_size ? o->put_bounce : o->inject_size,
             tn_ofi_sizing() && tn_ofi_sizing()->mode == TN_OFI_SIZE_TERN
                 ? "Tern"
                 : "its defaults",
             o->lazy ? "resolved at first contact" : "exchanged at start-up");
}

int tn_ofi_describe(FILE *out)
{
    /* The environment, not tn_cfg: tern-info runs without tern_init. */
    const char *prov = getenv("TERN_OFI_PROVIDER"), *dom = getenv("TERN_OFI_DOMAIN");
    const char *fab = getenv("TERN_OFI_FABRIC");
    tn_ofi_opts_t o = {
        .provider = prov ? prov : "", .domain = dom ? dom : "", .fabric = fab ? fab : ""};
    /* The sizing reads tn_cfg, which tern-info loaded (quietly). */
    tn_ofi_size_apply(1);
    fprintf(out,
            "\nNetwork (ofi, with TERN_OFI_PROVIDER='%s' TERN_OFI_DOMAIN='%s' "
            "TERN_OFI_FABRIC='%s')\n",
            o.provider, o.domain, o.fabric);
    struct fi_info *info = NULL;
    size_t inject = 0;
    int rc = tn_fi_load();
    if (rc == TERN_OK)
        rc = get_info(&o, &info, &inject);
    if (rc != TERN_OK) {
        fprintf(out, "  (no usable provider: see the message above)\n");
        return rc;
    }
    fprintf(out, "  provider  %s (libfabric %u.%u)\n", info->fabric_attr->prov_name,
            FI_MAJOR(tn_fi.version()), FI_MINOR(tn_fi.version()));
    fprintf(out, "  domain    %s\n", info->domain_attr->name);
    fprintf(out, "  fabric    %s\n",
            info->fabric_attr->name ? info->fabric_attr->name : "(unnamed)");
    char maxmsg[32] = "no limit"; /* the provider says SIZE_MAX */
    if (info->ep_attr->max_msg_size != SIZE_MAX)
        tn_cfg_format_size(info->ep_attr->max_msg_size, maxmsg, sizeof(maxmsg));
    fprintf(
        out,
        "  caps      RMA%s%s, inject %zu B (unacknowledged writes %zu B), max message "
        "%s, tx depth %zu\n",
        info->caps & FI_MSG ? ", messages" : "",
        info->caps & FI_ATOMIC ? ", atomics" : "", inject, info->tx_attr->inject_size,
        maxmsg, info->tx_attr->size);
    fprintf(out, "  mr_mode  %s%s%s%s%s\n",
            info->domain_attr->mr_mode & FI_MR_VIRT_ADDR ? " virt_addr" : " offset",
            info->domain_attr->mr_mode & FI_MR_PROV_KEY ? " prov_key" : "",
            info->domain_attr->mr_mode & FI_MR_LOCAL ? " local" : "",
            info->domain_attr->mr_mode & FI_MR_ENDPOINT ? " endpoint" : "",
            info->domain_attr->mr_mode & FI_MR_ALLOCATED ? " allocated" : "");
    fprintf(out, "  progress  data %s\n",
            info->domain_attr->data_progress == FI_PROGRESS_AUTO ? "automatic"
                                                                 : "manual");
    tn_ofi_t probe = {.info = info, .max_msg = info->ep_attr->max_msg_size};
    fprintf(out,
            "  order     write after write kept for %s (TERN_ORDER=partial returns "
            "early there)\n",
            order_name(tn_ofi_order_caps(&probe)));
    fprintf(out,
            "            active messages from one thread to one peer handled in the "
            "order sent: %s\n",
            tn_ofi_order_caps(&probe) & TN_XCAP_ORDER_MSG ? "yes (FI_ORDER_SAS)"
                                                          : "no (no FI_ORDER_SAS)");
    /* Recorded, not relied on: ofi_rxm drops it once atomics are asked for
     * (docs/design/net-put.md, "Put with signal"). */
    uint64_t both = info->tx_attr->msg_order & info->rx_attr->msg_order;
    fprintf(out,
            "            messages after writes to one peer in order (FI_ORDER_SAW): %s "
            "(not relied on)\n",
            both & FI_ORDER_SAW ? "yes" : "no");
    const char *amo = getenv("TERN_OFI_ATOMICS");
    int mode = TN_AMO_CFG_AUTO;
    char err[128];
    if (amo && tn_cfg_parse(tn_cfg_find("TERN_OFI_ATOMICS"), amo, &mode, err,
                            sizeof(err)) != TERN_OK)
        mode = TN_AMO_CFG_AUTO; /* tern-info -c reports the bad value */
    tn_ofi_amo_describe(out, info, mode != TN_AMO_CFG_AM);
    tn_ofi_size_describe(out);
    tn_fi.freeinfo(info);
    return TERN_OK;
}

static void ofi_destroy_op(tn_xport_t *x)
{
    tn_ofi_destroy((tn_ofi_t *)x);
}

/* The write-after-write orders the endpoint keeps on both sides (tx and
 * rx attributes), for the ordering modes (docs/design/ordering.md). The
 * per-kind bits (libfabric 1.17: FI_ORDER_RMA_WAW among writes,
 * FI_ORDER_ATOMIC_WAW among atomics) are what TERN_ORDER=partial needs;
 * the generic FI_ORDER_WAW also counts, for every fragment only when the
 * provider's ordered size covers it. tcp;ofi_rxm with atomics asked for
 * gives the per-kind bits and drops FI_ORDER_WAW (max_order_waw_size 0):
 * its atomics are messages handled apart from its writes. */
unsigned tn_ofi_order_caps(const tn_ofi_t *o)
{
    const struct fi_info *i = o->info;
    if (o->fault.no_order)
        return 0;
    uint64_t both = i->tx_attr->msg_order & i->rx_attr->msg_order;
    size_t waw = i->ep_attr->max_order_waw_size;
    int any = (both & FI_ORDER_WAW) && waw >= o->max_msg;
    unsigned caps = 0;
#ifdef FI_ORDER_RMA_WAW
    if (both & FI_ORDER_RMA_WAW)
        caps |= TN_XCAP_ORDER_PUT;
#endif
#ifdef FI_ORDER_ATOMIC_WAW
    if ((both & FI_ORDER_ATOMIC_WAW) && (i->caps & FI_ATOMIC))
        caps |= TN_XCAP_ORDER_AMO;
#endif
    if (any)
        caps |= TN_XCAP_ORDER_PUT | ((i->caps & FI_ATOMIC) ? TN_XCAP_ORDER_AMO : 0);
    if (both & FI_ORDER_SAS) /* sends; ofi_msg.c keeps its own order */
        caps |= TN_XCAP_ORDER_MSG;
    return caps;
}

/* RMA, messages where the provider offers FI_MSG, and atomics (those
 * fi_query_atomic confirms). */
static void ofi_query(tn_xport_t *x, tn_xport_caps_t *out)
{
    const tn_ofi_t *o = (const tn_ofi_t *)x;
    memset(out, 0, sizeof(*out));
    out->flags = TN_XCAP_RMA | TN_XCAP_POLL | TN_XCAP_PUT_UNACKED | TN_XCAP_PUT_NOREMOTE |
                 (o->msg_max ? TN_XCAP_MSG : 0);
    out->rma_max = SIZE_MAX;
    out->rma_frag = o->max_msg;
    out->inject = o->inject_size;
    out->unacked = o->unacked_max;
    out->msg_max = o->msg_max;
    out->msg_depth = o->msg_max ? (size_t)o->credit_init : 0;
    memcpy(out->atomics, o->amo_caps, sizeof(out->atomics));
    if (tn_ofi_amo_soft(o->info))
        out->flags |= TN_XCAP_AMO_SOFT;
    if (tn_ofi_rma_soft(o->info))
        out->flags |= TN_XCAP_RMA_SOFT;
    out->flags |= tn_ofi_order_caps(o);
    if (o->signal_ok)
        out->flags |= TN_XCAP_PUT_SIGNAL;
}

/* Tern's own: the transport, operation descriptors (and bounce slots),
 * the registration cache, message buffers and their descriptors as
 * allocated (receive buffers are resident once messages land in them);
 * per rank of the job the pointer to its entry and message credits, per
 * contacted rank its entry. The provider's share was measured when it
 * was opened. */
static void ofi_mem(tn_xport_t *x, tn_mem_tally_t *t, size_t *provider)
{
    tn_ofi_t *o = (tn_ofi_t *)x;
    t->fixed += sizeof(*o) + (size_t)o->nops * sizeof(*o->ops);
    if (o->bounce) { /* resident as slots are used */
        t->fixed += (size_t)o->nops * o->slot;
        t->untouched += (size_t)o->nops * o->slot;
    }
    if (o->mrc)
        t->fixed += tn_ofi_mr_cache_bytes();
    if (o->rx) {
        t->fixed += (size_t)(o->nrx + o->ntx) * o->msg_buf + tn_ofi_msg_desc_bytes(o);
        t->untouched += (size_t)(o->nrx + o->ntx) * o->msg_buf;
    }
    t->each_rank += sizeof(*o->peers);
    t->net_addresses += o->resolved;
    t->each_contacted = sizeof(**o->peers);
    *provider += o->provider_bytes;
}

static const tn_xport_ops_t ofi_ops = {
    .size = sizeof(tn_xport_ops_t),
    .name = "ofi",
    .destroy = ofi_destroy_op,
    .query = ofi_query,
    .poll = tn_ofi_poll,
    .rma = tn_ofi_rma,
    .peer_map = tn_xport_no_peer_map,
    .set_recv = tn_ofi_set_recv,
    .msg_prepare = tn_ofi_msg_prepare,
    .msg_commit = tn_ofi_msg_commit,
    .msg_send = tn_ofi_msg_send,
    .summary = tn_ofi_summary,
    .copy_info = tn_xport_no_copy_info,
    .amo = tn_ofi_amo,
    .mem = ofi_mem,
};
