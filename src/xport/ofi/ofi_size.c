/* Provider sizing: the provider's pools, buffer sizes and queue depths
 * come from what Tern needs (TERN_OFI_SIZE=tern), set as the provider's
 * variables before libfabric initializes its providers. A user's own FI_*
 * setting always wins. See docs/design/provider-sizing.md. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

/* What Tern needs of ofi_rxm (tcp;ofi_rxm, verbs;ofi_rxm): Tern moves data
 * with RMA, which rxm hands to the message endpoint without its bounce
 * buffers; those carry rxm's own control messages, atomics and Tern's
 * active messages: Short ones and small Mediums eagerly (a larger message
 * goes by rxm's rendezvous into the receive buffer Tern posted: one more
 * round trip, but rxm's pools, sized in buffers of this size per queue
 * entry, stay small), the receive buffers Tern posts, and per connection
 * what the credits let one peer have in flight (twice: the credit returns
 * travel too). */
static void plan(tn_ofi_sizing_t *s)
{
    size_t am_buf;
    long am_rx, am_tx;
    tn_ofi_msg_plan(0, &am_buf, &am_rx, &am_tx);
    size_t per_peer = 2 * (size_t)(tn_cfg.am_net_credits < 2 ? 2 : tn_cfg.am_net_credits);
    size_t buf = (am_buf < TN_OFI_AM_EAGER ? am_buf : TN_OFI_AM_EAGER) + TN_OFI_RXM_HDR;
    if (buf < TN_OFI_RXM_BUF_MIN)
        buf = TN_OFI_RXM_BUF_MIN;
    size_t rx = (size_t)am_rx > TN_OFI_RX_MIN ? (size_t)am_rx : TN_OFI_RX_MIN;
    size_t msg_rx = per_peer > TN_OFI_MSG_RX_MIN ? per_peer : TN_OFI_MSG_RX_MIN;
    size_t tx = (size_t)s->tx_depth + (size_t)am_tx;
    size_t msg_tx = tx < TN_OFI_MSG_TX_MAX ? tx : TN_OFI_MSG_TX_MAX;
    add(s, "FI_OFI_RXM_BUFFER_SIZE", buf, TN_OFI_RXM_BUF_MIN,
        "active messages up to 2 KiB eager (larger: rendezvous) + rxm header");
    add(s, "FI_OFI_RXM_EAGER_LIMIT", buf, 0, "equal to the buffer size (verbs needs it)");
    add(s, "FI_OFI_RXM_TX_SIZE", tx, tx,
        "Tern's operations in flight (TERN_OFI_TX_DEPTH) + message send buffers");
    add(s, "FI_OFI_RXM_RX_SIZE", rx, (size_t)am_rx,
        "active-message receive buffers (TERN_AM_NET_RECV)");
    add(s, "FI_OFI_RXM_MSG_TX_SIZE", msg_tx, 0, "per connection: operations in flight");
    add(s, "FI_OFI_RXM_MSG_RX_SIZE", msg_rx, per_peer,
        "per connection: what the credits let one peer send (TERN_AM_NET_CREDITS x 2)");
}

int tn_ofi_size_apply(int mode, long tx_depth, int warn)
{
    pthread_mutex_lock(&lock);
    if (sized) {
        pthread_mutex_unlock(&lock);
        return TERN_OK;
    }
    tn_ofi_sizing_t *s = &sizing;
    memset(s, 0, sizeof(*s));
    s->mode = mode;
    s->tx_depth = tx_depth > 0               ? tx_depth
                  : mode == TN_OFI_SIZE_TERN ? TN_OFI_TX_DEFAULT
                                             : 0;
    if (mode == TN_OFI_SIZE_TERN)
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
                        : "raise it or unset it to let Tern size it");
    }
    sized = 1;
    pthread_mutex_unlock(&lock);
    return TERN_OK;
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
