/* tn_cfg_validate: what tern_init would refuse in a parsed configuration,
 * found without starting anything. The segment's checks are tn_seg_plan
 * itself, so this cannot drift from what segment creation does. */
#include "mem/validate.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <tern/status.h>

#include "base/log.h"
#include "mem/segment.h"

/* The largest TERN_COLL_WORLD_RING taken. */
#define TN_COLL_WORLD_RING_MAX ((size_t)1 << 40)
/* The largest TERN_AM_NET_CREDITS taken: the ofi transport asks the
 * provider for twice as many receives per connection
 * (FI_OFI_RXM_MSG_RX_SIZE, xport/ofi/ofi_size.c), and libfabric 1.17's
 * tcp;ofi_rxm stalls for good above 65536 (mp_am_order over tcp, 2
 * ranks: 32000 credits pass in 1.2 s, 33000 hang; 40000 credits with
 * FI_OFI_RXM_MSG_RX_SIZE=64000 pass, with 66000 hang). Returned credits
 * also travel in 16 bits (ofi_msg.c, wire_hdr_t), and the transport keeps
 * them in an int: 2^32 became 0 credits, every send waiting forever. */
#define TN_AM_NET_CREDITS_MAX 32768
#define TN_AM_NET_CREDITS_MIN 2

static int add(tn_cfg_issues_t *out, const char *name, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The first error of a check: first, unless it is TERN_OK. */
static int first_error(int first, int rc)
{
    return first != TERN_OK ? first : rc;
}

/* Records an issue in out (when given and not full); returns status. */
static int add(tn_cfg_issues_t *out, const char *name, int status, const char *fmt, ...)
{
    if (!out || out->n >= TN_CFG_ISSUES_MAX)
        return status;
    tn_cfg_issue_t *i = &out->issue[out->n++];
    i->name = name;
    i->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(i->msg, sizeof(i->msg), fmt, ap);
    va_end(ap);
    return status;
}

/* Which variable a tn_seg_plan message is about. */
static const char *seg_culprit(const char *msg)
{
    if (strstr(msg, "of control area per rank"))
        return "TERN_AM_SHM_QUEUE"; /* check_memory names TN_CFG_CTRL_NAMES */
    if (strncmp(msg, "TERN_SEGMENT_NUMA", 17) == 0)
        return "TERN_SEGMENT_NUMA";
    if (strncmp(msg, "TERN_HUGEPAGES", 14) == 0)
        return "TERN_HUGEPAGES";
    return "TERN_SEGMENT_SIZE";
}

/* TERN_TRACE: the directory of the trace files must exist and be
 * writable (tn_trace_open makes one file per rank there). */
static int check_trace(const char *pattern, tn_cfg_issues_t *out)
{
    if (!pattern || !*pattern)
        return TERN_OK;
    char dir[4096];
    const char *slash = strrchr(pattern, '/');
    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else if (slash == pattern)
        snprintf(dir, sizeof(dir), "/");
    else
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - pattern), pattern);
    if (strstr(dir, "%r"))
        return TERN_OK; /* a directory per rank: known only at start-up */
    if (access(dir, W_OK | X_OK) != 0) {
        add(out, "TERN_TRACE", TERN_ERR_CONFIG,
            "TERN_TRACE='%s': the directory '%s' %s: set TERN_TRACE to a path in a "
            "writable directory",
            pattern, dir, errno == ENOENT ? "does not exist" : "is not writable");
        return TERN_ERR_CONFIG;
    }
    return TERN_OK;
}

/* A piece size (name=value) where 0 means whole (zero_means): nonzero
 * values below min are refused. */
static int check_piece(tn_cfg_issues_t *out, const char *name, size_t value, size_t min,
                       const char *what, const char *zero_means)
{
    if (value == 0 || value >= min)
        return TERN_OK;
    return add(out, name, TERN_ERR_CONFIG,
               "%s=%zu is below %zu: %s in pieces that small take minutes; raise %s "
               "(0: %s)",
               name, value, min, what, name, zero_means);
}

/* A size with a largest useful value: above it, why, and what 0 does. */
static int check_most(tn_cfg_issues_t *out, const char *name, size_t value, size_t max,
                      const char *why, const char *zero_means)
{
    if (value <= max)
        return TERN_OK;
    return add(out, name, TERN_ERR_CONFIG, "%s=%zu is above %zu: %s; lower %s (0 %s)",
               name, value, max, why, name, zero_means);
}

int tn_cfg_validate(const tn_config_t *cfg, int local_ranks, tn_cfg_issues_t *out)
{
    return tn_cfg_validate_ctrl(cfg, local_ranks, 0, NULL, out);
}

int tn_cfg_validate_ctrl(const tn_config_t *cfg, int local_ranks, size_t ctrl_bytes,
                         const char *ctrl_names, tn_cfg_issues_t *out)
{
    if (out)
        out->n = 0;
    int first = TERN_OK;

    /* The segment: size, NUMA placement, huge pages, memory - the plan
     * tn_seg_create makes. It stops at its first problem: to name every
     * culprit, the plan is made again with that variable made harmless. */
    tn_seg_opts_t o = {
        .size = cfg->segment_size,
        .ctrl_size = ctrl_bytes, /* 0: one page */
        .ctrl_names = ctrl_names,
        .hugepages = cfg->hugepages,
        .faultin = cfg->segment_faultin,
        .local_ranks = local_ranks > 0 ? local_ranks : 1,
        .numa = cfg->segment_numa,
    };
    int rc;
    for (int round = 0; round < 3; round++) {
        tn_seg_plan_t plan;
        char err[480];
        rc = tn_seg_plan(&o, &plan, err, sizeof(err));
        if (rc == TERN_OK) {
            tn_seg_plan_free(&plan);
            break;
        }
        const char *who = seg_culprit(err);
        first = first_error(first, add(out, who, rc, "%s", err));
        if (strcmp(who, "TERN_SEGMENT_NUMA") == 0)
            o.numa = "interleave";
        else if (strcmp(who, "TERN_HUGEPAGES") == 0)
            o.hugepages = TN_HUGE_TRY;
        else if (strcmp(who, "TERN_AM_SHM_QUEUE") == 0)
            o.ctrl_size = 0;
        else /* its default, so that the other checks still mean something */
            tn_cfg_parse_size(tn_cfg_find("TERN_SEGMENT_SIZE")->def, &o.size);
    }
    /* Refused everywhere (shm-only jobs too), so that tern-info -c agrees
     * with every job. */
    if (cfg->am_net_credits > TN_AM_NET_CREDITS_MAX) {
        first = first_error(
            first,
            add(out, "TERN_AM_NET_CREDITS", TERN_ERR_CONFIG,
                "TERN_AM_NET_CREDITS=%ld is above %d: the network provider's receive "
                "queue per connection (twice it) would stall libfabric's tcp; lower "
                "TERN_AM_NET_CREDITS",
                (long)cfg->am_net_credits, TN_AM_NET_CREDITS_MAX));
    } else if (cfg->am_net_credits < TN_AM_NET_CREDITS_MIN) {
        /* The transport raised smaller values to 2 in silence, so 1 on
         * one rank and 2 on the others, the same credits, were refused as
         * different by tern_init's job-wide comparison; 0 read as 2 too
         * (negative values fail to parse). */
        first = first_error(
            first,
            add(out, "TERN_AM_NET_CREDITS", TERN_ERR_CONFIG,
                "TERN_AM_NET_CREDITS=%ld is below %d: a sender needs at least %d "
                "active messages outstanding per network peer; raise "
                "TERN_AM_NET_CREDITS",
                (long)cfg->am_net_credits, TN_AM_NET_CREDITS_MIN, TN_AM_NET_CREDITS_MIN));
    }
    first = first_error(first, check_trace(cfg->trace, out));
    /* The world team's eager ring is added to every rank's segment in
     * jobs across nodes (core/teams.c); near 2^64 its size wrapped the
     * team pool's sum, which then came out smaller than the ring (writes
     * past the pool). Refused everywhere, so that tern-info -c agrees. */
    if (cfg->coll_world_ring > TN_COLL_WORLD_RING_MAX) {
        first = first_error(first, add(out, "TERN_COLL_WORLD_RING", TERN_ERR_CONFIG,
                                       "TERN_COLL_WORLD_RING=%zu is above %zu (1 TiB): "
                                       "lower TERN_COLL_WORLD_RING",
                                       (size_t)cfg->coll_world_ring,
                                       (size_t)TN_COLL_WORLD_RING_MAX));
    }
    if (cfg->coll_wide_max > TN_COLL_WIDE_LIMIT) {
        first = first_error(
            first,
            add(out, "TERN_COLL_WIDE_MAX", TERN_ERR_CONFIG,
                "TERN_COLL_WIDE_MAX=%zu is above %d: a wide record of the collectives "
                "carries at most %d bytes; lower TERN_COLL_WIDE_MAX (0 turns wide "
                "records off)",
                (size_t)cfg->coll_wide_max, TN_COLL_WIDE_LIMIT, TN_COLL_WIDE_LIMIT));
    }
    if (cfg->am_medium_max < TN_AM_MEDIUM_MIN) {
        first = first_error(first, add(out, "TERN_AM_MEDIUM_MAX", TERN_ERR_CONFIG,
                                       "TERN_AM_MEDIUM_MAX=%zu is below %d: a client may "
                                       "count on Medium payloads of %d bytes; raise "
                                       "TERN_AM_MEDIUM_MAX",
                                       (size_t)cfg->am_medium_max, TN_AM_MEDIUM_MIN,
                                       TN_AM_MEDIUM_MIN));
    }
    /* Pieces of a few bytes: a job crawled (mp_coll over the network, 4
     * ranks: over 40 s with TERN_OFI_MAX_MSG=1 or TERN_COLL_PIPE_CHUNK=1,
     * 18.9 s with TERN_COLL_XCHG_PIECE=1, 2.5 s at the defaults). Refused
     * everywhere, so that tern-info -c agrees. */
    first = first_error(first, check_piece(out, "TERN_OFI_MAX_MSG", cfg->ofi_max_msg,
                                           TN_OFI_MAX_MSG_MIN, "network transfers",
                                           "the provider's maximum"));
    first = first_error(first, check_piece(out, "TERN_COLL_PIPE_CHUNK",
                                           cfg->coll_pipe_chunk, TN_COLL_PIPE_CHUNK_MIN,
                                           "a pipelined broadcast", "one chunk"));
    first =
        first_error(first, check_piece(out, "TERN_COLL_XCHG_PIECE", cfg->coll_xchg_piece,
                                       TN_COLL_XCHG_PIECE_MIN,
                                       "an fcollect or all-to-all", "one put per block"));
    first = first_error(
        first, check_most(out, "TERN_NBI_AGG_MAX", cfg->nbi_agg_max, TN_NBI_AGG_LIMIT,
                          "longer nbi puts gain nothing from sharing a message",
                          "sends every nbi put alone"));
    first = first_error(
        first, check_most(out, "TERN_GET_MAILBOX", cfg->get_mailbox, TN_MBOX_GET_MAX,
                          "a get's reply in the mailbox carries at most that",
                          "sends every get as an RMA read"));
    return first;
}

int tn_cfg_check(tn_config_t *cfg)
{
    int rc = tn_cfg_load(cfg); /* logs each bad value */
    tn_cfg_issues_t is;
    int vrc = tn_cfg_validate(cfg, 1, &is);
    for (int i = 0; i < is.n; i++)
        tn_error("%s", is.issue[i].msg);
    if (rc == TERN_OK)
        rc = vrc;
    if (rc == TERN_ERR_CONFIG)
        tn_error("tern_init: bad configuration (see above); tern-info -c lists "
                 "every variable and what it accepts");
    else if (rc != TERN_OK)
        tn_error("tern_init: this node cannot give what the configuration asks "
                 "for (see above); tern-info -c checks a configuration before "
                 "a job");
    return rc;
}
