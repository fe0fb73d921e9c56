/* Provider sizing: the provider's pools, buffer sizes and queue depths
 * come from what Tern needs (TERN_OFI_SIZE=tern), set as the provider's
 * variables before libfabric initializes its providers. A user's own FI_*
 * setting always wins. See docs/design/provider-sizing.md. */
#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <tern/status.h>

#include "base/cfg.h"
#include "base/log.h"
#include "xport/ofi/ofi.h"

static tn_ofi_sizing_t sizing;
static int sized; /* under lock: 1 once tn_ofi_size_apply ran */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* One provider variable: Tern's value, the least that works for Tern (0:
 * any), and why. */
static void add(tn_ofi_sizing_t *s, const char *var, size_t want, size_t need,
                const char *why)
{
    if (s->n >= TN_OFI_SIZE_ITEMS)
        return;
    tn_ofi_size_item_t *it = &s->item[s->n++];
    it->var = var;
    it->want = want;
    it->need = need;
    it->why = why;
}

/* A user's libfabric boolean set to false (libfabric's spellings: 0,
 * off, false, no). */
static int user_off(const char *var)
{
    const char *v = getenv(var);
    return v && (strcmp(v, "0") == 0 || strcasecmp(v, "off") == 0 ||
                 strcasecmp(v, "false") == 0 || strcasecmp(v, "no") == 0);
}

/* Whether rxm may receive its eager messages into its own bounce buffers
 * here: only over tcp does libfabric 1.17's rxm place an eager message
 * straight into the posted buffer (dynamic receive buffering, which only
 * the tcp provider offers, rxm_config_dyn_rbuf) and send it from the
 * caller's (direct send); over any other message provider (verbs, net),
 * or over tcp with either turned off by the user's
 * FI_OFI_RXM_ENABLE_DYN_RBUF=0 or FI_OFI_RXM_ENABLE_DIRECT_SEND=0, it
 * takes the buffer size as its eager limit (either off with 512-byte
 * buffers: mp_am_order, net, 3 ranks, 9000-48000 messages out of order;
 * with 8512-byte buffers it passes). The message provider is not tcp
 * when TERN_OFI_PROVIDER names another stack, and may not be when it is
 * empty on a machine with RDMA devices (verbs may then be chosen). */
static int rxm_bounces(void)
{
    if (user_off("FI_OFI_RXM_ENABLE_DYN_RBUF") ||
        user_off("FI_OFI_RXM_ENABLE_DIRECT_SEND"))
        return 1;
    const char *prov = tn_cfg.ofi_provider;
    if (prov && *prov)
        return strncmp(prov, "tcp;", 4) != 0 && strcmp(prov, "tcp") != 0;
    DIR *d = opendir("/sys/class/infiniband");
    int found = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        found |= e->d_name[0] != '.';
    if (d)
        closedir(d);
    return found;
}

/* What Tern needs of ofi_rxm (tcp;ofi_rxm, verbs;ofi_rxm): RMA goes to the
 * message endpoint without rxm's bounce buffers; those carry rxm's own
 * control messages, atomics and Tern's active messages, which must fit in
 * one buffer (rxm's eager path: a larger message takes its segmentation or
 * rendezvous protocol). Active messages post am_rx receives and have up to
 * am_tx sends in flight beside the RMA operations; a peer has at most
 * am_credits messages outstanding here, plus credit returns. */
static void plan(tn_ofi_sizing_t *s)
{
    size_t eager = s->am_buf + TN_OFI_RXM_HDR;
    if (eager < TN_OFI_RXM_BUF_MIN)
        eager = TN_OFI_RXM_BUF_MIN;
    eager = (eager + 63) & ~(size_t)63;
    /* Over tcp, rxm receives an eager message straight into the posted
     * buffer and sends from the caller's (dynamic receive buffering,
     * direct send), so the eager limit may exceed its buffers, and the
     * buffers (about 2048 of them, whatever the queue sizes) stay small.
     * Elsewhere the buffer is the eager limit: a smaller one sends every
     * active message above it through rxm's segmentation (net;ofi_rxm with
     * 512-byte buffers: a 1 KiB Medium round trip 14.6 us instead of 5.6). */
    s->bounce = rxm_bounces();
    size_t buf = s->bounce ? eager : TN_OFI_RXM_BUF_MIN;
    size_t rx = (size_t)s->am_rx + TN_OFI_RX_MIN;
    size_t msg_rx = (size_t)(2 * s->am_credits);
    if (msg_rx < TN_OFI_MSG_RX_MIN)
        msg_rx = TN_OFI_MSG_RX_MIN;
    size_t tx = (size_t)(s->tx_depth + s->am_tx);
    size_t msg_tx = tx < TN_OFI_MSG_TX_MAX ? tx : TN_OFI_MSG_TX_MAX;
    add(s, "FI_OFI_RXM_BUFFER_SIZE", buf, s->bounce ? eager : 0,
        s->bounce
            ? "= the eager limit (rxm over a message provider other than tcp "
              "receives into these buffers)"
            : "rxm control and atomics only: RMA bypasses these buffers, and active "
              "messages too over tcp");
    s->item[s->n - 1].must = s->bounce; /* then it is the eager limit */
    add(s, "FI_OFI_RXM_EAGER_LIMIT", eager, s->am_buf ? eager : 0,
        "one active message (TERN_AM_MEDIUM_MAX + headers) + rxm header");
    s->item[s->n - 1].must = 1;
    add(s, "FI_OFI_RXM_TX_SIZE", tx, tx,
        "Tern's operations in flight (TERN_OFI_TX_DEPTH) + active-message sends");
    add(s, "FI_OFI_RXM_RX_SIZE", rx, (size_t)s->am_rx,
        "active-message receives posted (TERN_AM_NET_RECV / message buffer), + 16");
    add(s, "FI_OFI_RXM_MSG_TX_SIZE", msg_tx, 0, "per connection: operations in flight");
    add(s, "FI_OFI_RXM_MSG_RX_SIZE", msg_rx, 0,
        "per connection: 2 x TERN_AM_NET_CREDITS messages outstanding");
    /* The sockets provider's progress thread spins this many ms after its
     * last work before it sleeps (default 10): beside Tern's own spinning
     * waiter that is two busy threads per rank, and with more ranks than
     * cores a collective then waits for time slices (mp.coll over sockets,
     * 4 ranks on 2 cores: past 180 s with 10, 94 and 100 s with 0; an AM
     * round trip with 2 ranks 9-10 ms against 72-77 us; transports.md). */
    add(s, "FI_SOCKETS_PE_WAITTIME", 0, 0,
        "sockets provider: its progress thread sleeps at once instead of spinning 10 ms");
}

int tn_ofi_size_apply(int warn)
{
    pthread_mutex_lock(&lock);
    if (sized) {
        pthread_mutex_unlock(&lock);
        return TERN_OK;
    }
    tn_ofi_sizing_t *s = &sizing;
    memset(s, 0, sizeof(*s));
    s->mode = tn_cfg.ofi_size;
    long depth = tn_cfg.ofi_tx_depth;
    s->tx_depth = depth > 0 ? depth : s->mode == TN_OFI_SIZE_TERN ? TN_OFI_TX_DEFAULT : 0;
    tn_ofi_msg_plan(0, &s->am_buf, &s->am_rx, &s->am_tx);
    s->am_credits = tn_cfg.am_net_credits; /* 2 to 32768: mem/validate.c */
    if (s->mode == TN_OFI_SIZE_TERN)
        plan(s);
    for (int i = 0; i < s->n; i++) {
        tn_ofi_size_item_t *it = &s->item[i];
        const char *user = getenv(it->var);
        char text[32];
        snprintf(text, sizeof(text), "%zu", it->want);
        if (!user) {
            /* overwrite 0: a setting that appeared meanwhile still wins */
            setenv(it->var, text, 0);
            it->source = TN_OFI_SIZE_SET;
            it->value = it->want;
            continue;
        }
        it->source = TN_OFI_SIZE_USER;
        char *end;
        unsigned long long v = strtoull(user, &end, 0);
        it->value = end != user ? (size_t)v : 0;
        if (warn && it->need && it->value < it->need)
            tn_warn("%s=%s is the user's setting and is kept, but Tern needs at least "
                    "%zu (%s): %s",
                    it->var, user, it->need, it->why,
                    strcmp(it->var, "FI_OFI_RXM_TX_SIZE") == 0
                        ? "operations beyond it wait for the provider's queue; raise "
                          "it or lower TERN_OFI_TX_DEPTH"
                    : strcmp(it->var, "FI_OFI_RXM_RX_SIZE") == 0
                        ? "active-message receives cannot all be posted; raise it or "
                          "lower TERN_AM_NET_RECV"
                        /* the others are rxm's eager limit (must) */
                        : "over ofi_rxm, active messages above it would arrive out of "
                          "order, so tern_init stops there; raise it or lower "
                          "TERN_AM_MEDIUM_MAX");
    }
    sized = 1;
    pthread_mutex_unlock(&lock);
    return TERN_OK;
}

int tn_ofi_size_check(const char *prov)
{
    const tn_ofi_sizing_t *s = tn_ofi_sizing();
    if (!s || !prov || !strstr(prov, "ofi_rxm"))
        return TERN_OK;
    for (int i = 0; i < s->n; i++) {
        const tn_ofi_size_item_t *it = &s->item[i];
        if (!it->must || it->source != TN_OFI_SIZE_USER || it->value >= it->need)
            continue;
        tn_error("%s=%s is the user's setting, below one network active message with "
                 "rxm's header (%zu bytes, from TERN_AM_MEDIUM_MAX): rxm would carry "
                 "larger ones by its other protocols, which deliver them out of order; "
                 "unset it, raise it to %zu or more, or lower TERN_AM_MEDIUM_MAX",
                 it->var, getenv(it->var), it->need, it->need);
        return TERN_ERR_CONFIG;
    }
    return TERN_OK;
}

/* A libfabric variable's value in force for the job-wide comparison: a
 * number in decimal, a boolean as 0 or 1, else the text; "-" when unset
 * (libfabric's default: a rank with the default written out differs). */
static void job_value(const char *var, int boolean, char *buf, size_t len)
{
    const char *v = getenv(var);
    char *end;
    unsigned long long x = v ? strtoull(v, &end, 0) : 0;
    if (!v || !*v) /* libfabric takes an empty value as unset */
        snprintf(buf, len, "-");
    else if (boolean && user_off(var))
        snprintf(buf, len, "0");
    else if (boolean && (strcmp(v, "1") == 0 || strcasecmp(v, "on") == 0 ||
                         strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0))
        snprintf(buf, len, "1");
    else if (!boolean && end != v && *end == '\0')
        snprintf(buf, len, "%llu", x);
    else
        snprintf(buf, len, "%s", v);
}

void tn_ofi_size_job(const char *prov, char *buf, size_t len)
{
    /* rxm refuses a connection whose eager limit is not its own
     * (rxm_verify_connreq: "eager_limit mismatch"), and retries: one rank
     * with another FI_OFI_RXM_EAGER_LIMIT (1024 or 16384; others 8512),
     * FI_OFI_RXM_BUFFER_SIZE=16384, FI_OFI_RXM_ENABLE_DYN_RBUF=0 or
     * FI_OFI_RXM_ENABLE_DIRECT_SEND=0 hung mp_hello and mp_am_order (net,
     * 3 ranks; each alike on every rank passes). These decide the limit;
     * compared as set, they also refuse a few pairs rxm would accept
     * (FI_OFI_RXM_BUFFER_SIZE=1024 or 4096 on one rank passed). */
    static const struct {
        const char *var;
        int boolean;
    } vars[] = {{"FI_OFI_RXM_EAGER_LIMIT", 0},
                {"FI_OFI_RXM_BUFFER_SIZE", 0},
                {"FI_OFI_RXM_ENABLE_DYN_RBUF", 1},
                {"FI_OFI_RXM_ENABLE_DIRECT_SEND", 1}};
    int w = snprintf(buf, len, "ofi_provider=%s", prov ? prov : "-");
    size_t used = w < 0 ? len : (size_t)w;
    if (!prov || !strstr(prov, "ofi_rxm"))
        return;
    for (size_t i = 0; i < TN_ARRAY_LEN(vars) && used < len; i++) {
        char val[64];
        job_value(vars[i].var, vars[i].boolean, val, sizeof(val));
        w = snprintf(buf + used, len - used, " %s=%s", vars[i].var, val);
        used = w < 0 ? len : used + (size_t)w;
    }
}

const tn_ofi_sizing_t *tn_ofi_sizing(void)
{
    pthread_mutex_lock(&lock);
    const tn_ofi_sizing_t *s = sized ? &sizing : NULL;
    pthread_mutex_unlock(&lock);
    return s;
}

void tn_ofi_size_describe(FILE *out)
{
    const tn_ofi_sizing_t *s = tn_ofi_sizing();
    if (!s)
        return;
    if (s->mode != TN_OFI_SIZE_TERN) {
        fprintf(out, "  sizing    the provider's defaults (TERN_OFI_SIZE=provider)\n");
        return;
    }
    fprintf(out,
            "  sizing    by Tern (TERN_OFI_SIZE=tern; a user's FI_* setting wins):\n");
    for (int i = 0; i < s->n; i++) {
        const tn_ofi_size_item_t *it = &s->item[i];
        if (it->source == TN_OFI_SIZE_USER)
            fprintf(out, "    %-24s %6zu  the user's setting (Tern's: %zu, %s)\n",
                    it->var, it->value, it->want, it->why);
        else
            fprintf(out, "    %-24s %6zu  %s\n", it->var, it->value, it->why);
    }
}
