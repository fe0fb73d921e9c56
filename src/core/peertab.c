/* The node-shared peer table: one row per rank of the job (segment and
 * static region, node) kept once per node in shared memory, written by the
 * node's leader and read in place by every rank of the node, instead of a
 * private copy in each rank (docs/design/scale.md, "Node-shared peer
 * tables"). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/cfg.h"
#include "base/log.h"
#include "core/core.h"

/* The node is the program's view of it (the launcher's machine or
 * simulated node), not the transports': with TERN_SHM=off the table is
 * still one per machine. It is bookkeeping read at start-up and on slow
 * paths, not a data path between ranks. */
static struct {
    tn_peer_info_t *rows; /* this rank's mapping: writable in the leader */
    size_t bytes;         /* mapped: rows rounded up to pages */
    int fd;               /* the leader's memfd until tn_peertab_close */
    int leader;           /* lowest rank of its node: writes the rows */
    int own_copy;         /* the leader's could not be mapped: a private copy */
} tab = {.fd = -1};

static size_t table_bytes(int size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t b = (size_t)size * sizeof(tn_peer_info_t);
    return (b + page - 1) / page * page;
}

/* The lowest rank of rank me's node in view_of (ranks in order). */
static int leader_of(const int *view_of, int me)
{
    int r = 0;
    while (view_of[r] != view_of[me])
        r++;
    return r;
}

/* TERN_TEST_FAULT=peertab:create or peertab:map (tests of the private
 * copy): 1 when the fault named is asked for. The network transport
 * leaves values starting "peertab:" to this file. */
static int fault(const char *what)
{
    return strncmp(tn_cfg.test_fault, "peertab:", 8) == 0 &&
           strcmp(tn_cfg.test_fault + 8, what) == 0;
}

/* A private copy of the rows, for a rank that has no node table to read. */
static int own_copy(void)
{
    void *p =
        mmap(NULL, tab.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        tn_error("no memory for the peer table (%zu bytes for %d ranks)", tab.bytes,
                 tn_core.size);
        return TERN_ERR_NOMEM;
    }
    tab.rows = p;
    tab.own_copy = 1;
    return TERN_OK;
}

int tn_peertab_prepare(const int *view_of, int *fd)
{
    *fd = -1;
    tab.leader = leader_of(view_of, tn_core.rank) == tn_core.rank;
    tab.bytes = table_bytes(tn_core.size);
    if (strncmp(tn_cfg.test_fault, "peertab:", 8) == 0 && !fault("create") &&
        !fault("map")) {
        tn_error("TERN_TEST_FAULT='%s' is not peertab:create or peertab:map: set it to "
                 "make the node's peer table fail to be created by the node's lowest "
                 "rank or to be mapped by the others, or unset it",
                 tn_cfg.test_fault);
        return TERN_ERR_CONFIG;
    }
    if (!tab.leader)
        return TERN_OK;
    /* Where the node's table cannot be made, the node works as well with a
     * private copy in every rank (what the rows cost is then per rank of
     * the job in each rank, as before the node-shared table): the leader
     * publishes no descriptor and its ranks copy the rows too. */
    const char *why = "fault injected (TERN_TEST_FAULT=peertab:create)";
    void *p = MAP_FAILED;
    if (!fault("create")) {
        tab.fd = memfd_create("tern-peers", MFD_CLOEXEC);
        if (tab.fd >= 0 && ftruncate(tab.fd, (off_t)tab.bytes) == 0)
            p = mmap(NULL, tab.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, tab.fd, 0);
        why = strerror(errno);
    }
    if (p == MAP_FAILED) {
        tn_debug("the node's peer table (%zu bytes of shared memory for %d ranks) could "
                 "not be made (%s): every rank of this node keeps a private copy",
                 tab.bytes, tn_core.size, why);
        tn_peertab_close();
        return own_copy();
    }
    tab.rows = p;
    *fd = tab.fd;
    return TERN_OK;
}

/* Maps the leader's table read-only through /proc/<pid>/fd/<fd> (open
 * until the leader's tn_peertab_close, after the next barrier); where
 * that is not allowed (TERN_SHM=off chosen because processes may not
 * open each other's descriptors), the rank keeps a private copy. */
static int map_leader(int leader, const tn_seg_info_t *in)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)in->pid, (int)in->ptab_fd);
    const char *why = in->ptab_fd < 0 ? "it published none" : NULL;
    int pfd = -1;
    if (!why && fault("map"))
        why = "fault injected (TERN_TEST_FAULT=peertab:map)";
    else if (!why)
        pfd = open(path, O_RDONLY | O_CLOEXEC);
    void *p = MAP_FAILED;
    if (pfd >= 0) {
        p = mmap(NULL, tab.bytes, PROT_READ, MAP_SHARED, pfd, 0);
        close(pfd);
    }
    if (p != MAP_FAILED) {
        tab.rows = p;
        return TERN_OK;
    }
    tn_debug("the peer table of this node's leader, rank %d (pid %d), could not be "
             "mapped (%s: %s): this rank keeps a private copy (%zu bytes)",
             leader, (int)in->pid, path, why ? why : strerror(errno), tab.bytes);
    return own_copy();
}

int tn_peertab_fill(const tn_seg_info_t *all, const int *node_of, const int *view_of)
{
    if (!tab.leader) {
        int leader = leader_of(view_of, tn_core.rank);
        int rc = map_leader(leader, &all[leader]);
        if (rc != TERN_OK)
            return rc;
    }
    if (tab.leader || tab.own_copy) {
        for (int r = 0; r < tn_core.size; r++)
            tab.rows[r] = (tn_peer_info_t){
                .data_base = all[r].data_base,
                .size = all[r].size,
                .ctrl_size = all[r].ctrl_size,
                .static_base = all[r].static_base,
                .static_size = all[r].static_size,
                .node = node_of[r],
                .view_node = view_of[r],
            };
    }
    tn_core.info = tab.rows;
    return TERN_OK;
}

void tn_peertab_close(void)
{
    if (tab.fd >= 0)
        close(tab.fd);
    tab.fd = -1;
}

void tn_peertab_destroy(void)
{
    tn_peertab_close();
    if (tab.rows)
        munmap(tab.rows, tab.bytes);
    tab.rows = NULL;
    tab.own_copy = 0;
    tn_core.info = NULL;
}

size_t tn_peertab_bytes(int *private_copy)
{
    *private_copy = tab.own_copy;
    return tab.rows ? tab.bytes : 0;
}
