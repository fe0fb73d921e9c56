/* The registry of built-in transports and the stubs that stand for the
 * operations a transport does not have. */
#include "xport/registry.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <tern/status.h>

#include "base/compiler.h"
#include "base/log.h"

static const tn_xport_entry_t entries[] = {
    {"self", "this rank itself: a put or get is a memcpy", TN_REACH_SELF,
     TN_CREATE_ALWAYS, tn_self_create, NULL, NULL},
    {"shm",
     "ranks on this node: segments are cross-mapped, a put is a copy; active "
     "messages through queues in shared memory (also to this rank itself)",
     TN_REACH_NODE | TN_REACH_SELF, TN_CREATE_ALWAYS, tn_shm_create, NULL, NULL,
     tn_shm_ctrl_bytes},
#ifdef TERN_HAVE_OFI
    {"ofi", "ranks on other nodes: libfabric RDM endpoints", TN_REACH_NET,
     TN_CREATE_WHEN_REACHED, tn_ofi_create, tn_ofi_describe, tn_ofi_prefetch, NULL,
     tn_ofi_unacked_plan, tn_ofi_job_settings},
#endif
};

size_t tn_xport_count(void)
{
    return TN_ARRAY_LEN(entries);
}

const tn_xport_entry_t *tn_xport_entry(size_t i)
{
    return i < TN_ARRAY_LEN(entries) ? &entries[i] : NULL;
}

const tn_xport_entry_t *tn_xport_find(const char *name)
{
    for (size_t i = 0; i < TN_ARRAY_LEN(entries); i++)
        if (strcmp(entries[i].name, name) == 0)
            return &entries[i];
    return NULL;
}

void tn_xport_prepare(unsigned reach)
{
    for (size_t i = 0; i < TN_ARRAY_LEN(entries); i++)
        if ((entries[i].reach & reach) && entries[i].prepare)
            entries[i].prepare();
}

/* ---- stubs ---------------------------------------------------------------- */

void tn_xport_no_query(tn_xport_t *x, tn_xport_caps_t *out)
{
    (void)x;
    memset(out, 0, sizeof(*out));
}

int tn_xport_no_poll(tn_xport_t *x)
{
    (void)x;
    return 0;
}

int tn_xport_no_rma(tn_xport_t *x, const tn_rma_t *op, const tn_xport_done_t *done,
                    unsigned flags)
{
    (void)x, (void)op, (void)done, (void)flags;
    return TERN_ERR_UNSUPPORTED;
}

int tn_xport_signal_check(const char *who, const tn_rma_t *op, unsigned flags,
                          size_t frag, uint64_t map_base, uint64_t map_size)
{
    const char *why = NULL;
    uint64_t off = (uint64_t)(uintptr_t)op->signal - map_base; /* below: wraps */
    if (op->kind != TN_RMA_PUT)
        why = "it was a get";
    else if (op->n == 0 || op->n > frag)
        why = "its length is not within one fragment (1 .. the transport's rma_frag)";
    else if (op->region != TN_REGION_SEG)
        why = "its target is not in the segment mapping";
    else if (!op->signal || ((uintptr_t)op->signal & 3))
        why = "its signal word is not a 4-byte aligned address";
    else if (flags & TN_XPORT_FLAG_HANDLER)
        why = "it was started from a message handler";
    else if (off >= map_size || map_size - off < sizeof(uint32_t)) {
        tn_error("%s: a put with its own signal (TN_XPORT_FLAG_SIGNAL) to rank %d "
                 "refused: its signal word %p is outside that rank's mapping (%llu B "
                 "from %#llx): the signal could not be raised and its waiter would "
                 "wait for ever",
                 who, op->rank, op->signal, (unsigned long long)map_size,
                 (unsigned long long)map_base);
        return TERN_ERR_INVALID;
    }
    if (!why)
        return TERN_OK;
    tn_error("%s: a put with its own signal (TN_XPORT_FLAG_SIGNAL) of %zu B to rank %d "
             "refused: %s",
             who, op->n, op->rank, why);
    return TERN_ERR_INVALID;
}

int tn_xport_no_peer_map(tn_xport_t *x, int rank, tn_xport_map_t *out)
{
    (void)x, (void)rank, (void)out;
    return TERN_ERR_UNSUPPORTED;
}

int tn_xport_no_set_recv(tn_xport_t *x, tn_xport_recv_fn fn, void *arg)
{
    (void)x, (void)fn, (void)arg;
    return TERN_ERR_UNSUPPORTED;
}

int tn_xport_no_msg_prepare(tn_xport_t *x, int rank, size_t n, unsigned flags,
                            tn_xport_msg_t *m)
{
    (void)x, (void)rank, (void)n, (void)flags, (void)m;
    return TERN_ERR_UNSUPPORTED;
}

int tn_xport_no_msg_commit(tn_xport_t *x, tn_xport_msg_t *m, size_t n)
{
    (void)x, (void)m, (void)n;
    return TERN_ERR_UNSUPPORTED;
}

int tn_xport_msg_send_prepared(tn_xport_t *x, int rank, const void *head, size_t hn,
                               const void *payload, size_t len, unsigned flags)
{
    const tn_xport_ops_t *o = x->ops; /* the transport's own table */
    if (o->size < offsetof(tn_xport_ops_t, msg_commit) + sizeof(o->msg_commit) ||
        !o->msg_prepare || !o->msg_commit)
        return TERN_ERR_UNSUPPORTED;
    tn_xport_msg_t m;
    int rc = o->msg_prepare(x, rank, hn + len, flags, &m);
    if (rc != TERN_OK)
        return rc;
    memcpy(m.buf, head, hn);
    if (len)
        memcpy((char *)m.buf + hn, payload, len);
    return o->msg_commit(x, &m, hn + len);
}

void tn_xport_no_summary(tn_xport_t *x, char *buf, size_t len)
{
    snprintf(buf, len, "%s", x->ops->name);
}

int tn_xport_no_copy_info(tn_xport_t *x, int rank, tern_copy_info_t *out)
{
    (void)x, (void)rank, (void)out;
    return TERN_ERR_UNSUPPORTED;
}

int tn_xport_no_amo(tn_xport_t *x, const tn_amo_t *op, const tn_xport_done_t *done,
                    unsigned flags)
{
    (void)x, (void)op, (void)done, (void)flags;
    return TERN_ERR_UNSUPPORTED;
}

void tn_xport_no_mem(tn_xport_t *x, tn_mem_tally_t *t, size_t *provider)
{
    (void)x, (void)t, (void)provider;
}

tn_msgq_t *tn_xport_no_msg_queue(tn_xport_t *x, int rank)
{
    (void)x, (void)rank;
    return NULL;
}

int tn_xport_no_msg_inqueues(tn_xport_t *x, tn_msgq_t **in)
{
    (void)x;
    *in = NULL;
    return 0;
}
