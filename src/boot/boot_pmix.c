/* Bootstrap through PMIx, for jobs started by mpirun, srun --mpi=pmix or
 * prterun. Rank and size come from the launcher's job data; allgather is a
 * put of this rank's blob, a data-collecting fence and one get per rank. */
#include "boot/boot.h"

#include "base/log.h"
#include "base/wait.h"

#include <tern/status.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

typedef struct tn_boot_pmix {
    pmix_proc_t self;
    /* Allgathers done so far. Every rank calls allgather the same number of
     * times (it is collective), so seq names the same call on every rank
     * and makes each call's key unique: PMIx keeps every put value until
     * finalize, and a reused key would return an older call's blob. */
    unsigned seq;
    /* Seconds any wait for the launcher may take; 0 waits without limit.
     * TERN_BOOT_TIMEOUT until init_done, then 0 (see pmix_boot_init_done). */
    double timeout_s;
    /* Set when a fence was given up (timeout) or failed: this rank's fences
     * no longer pair with the other ranks', so no collective may follow. */
    int broken;
} tn_boot_pmix_t;

int tn_boot_pmix_detected(void)
{
    /* A PMIx server exports the client's identity (namespace and rank)
     * into the environment of every process it starts, next to its
     * PMIX_SERVER_URI* contact; the client library cannot join without
     * the identity, so both must be present. */
    const char *ns = getenv("PMIX_NAMESPACE");
    const char *rank = getenv("PMIX_RANK");
    return ns != NULL && ns[0] != '\0' && rank != NULL && rank[0] != '\0';
}

/* Logs a failed PMIx call once, where it is first seen, and translates its
 * status: a timeout becomes TERN_ERR_TIMEOUT, everything else TERN_ERR_BOOT. */
static int pmix_boot_fail(const char *call, pmix_status_t rc, const char *doing,
                          double timeout_s)
{
    if (rc == PMIX_ERR_TIMEOUT) {
        tn_error("%s timed out after %g s while %s: some rank has not reached "
                 "the same point of start-up. Check that every rank calls "
                 "tern_init, or raise TERN_BOOT_TIMEOUT if start-up is "
                 "legitimately slow",
                 call, timeout_s, doing);
        return TERN_ERR_TIMEOUT;
    }
    tn_error("%s failed while %s: %s (PMIx status %d). The PMIx launcher "
             "(mpirun/srun/prterun) refused or lost this process; its own "
             "messages above say why",
             call, doing, PMIx_Error_string(rc), (int)rc);
    return TERN_ERR_BOOT;
}

/* PMIX_TIMEOUT of a PMIx_Get: whole seconds, 0 for none. */
static int pmix_boot_timeout_int(double timeout_s)
{
    /* Round up so that a short positive timeout is not mistaken for none. */
    if (!(timeout_s > 0))
        return 0;
    if (timeout_s >= (double)INT_MAX)
        return INT_MAX;
    int s = (int)timeout_s;
    return (double)s < timeout_s ? s + 1 : s;
}

/* ---- fence with a deadline ---------------------------------------------- */

/* A fence that times out leaves the ranks out of step: PMIx counts a
 * fence's contributions, not distinct ranks, so a later fence of this rank
 * could complete the abandoned one of the others (seen with Open MPI 4.1
 * and PMIx 4.2). A timeout therefore marks the bootstrap broken: no
 * collective may follow, only fini or abort.
 * The deadline is given to the server as PMIX_TIMEOUT, which (where the
 * launcher enforces it, as Open MPI's does) also removes the fence there;
 * a fence left open at the server would make Open MPI 4.1.4's mpirun crash
 * at exit now and then. Launchers that ignore PMIX_TIMEOUT would hang, so
 * this rank also stops waiting for the callback a little after the
 * server's deadline. The wait state is on the heap because a late callback
 * of a fence given up that way frees it. */
#define PMIX_BOOT_GRACE_S 2

typedef struct pmix_boot_wait {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    int abandoned;
    pmix_status_t status;
} pmix_boot_wait_t;

static void pmix_boot_wait_free(pmix_boot_wait_t *w)
{
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

static int pmix_boot_ts_before(struct timespec a, struct timespec b)
{
    return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

/* Runs in PMIx's progress thread when the fence completes. */
static void pmix_boot_fence_cb(pmix_status_t status, void *cbdata)
{
    pmix_boot_wait_t *w = cbdata;
    pthread_mutex_lock(&w->lock);
    if (w->abandoned) {
        pthread_mutex_unlock(&w->lock);
        pmix_boot_wait_free(w);
        return;
    }
    w->status = status;
    w->done = 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

static pmix_boot_wait_t *pmix_boot_wait_create(void)
{
    pmix_boot_wait_t *w = calloc(1, sizeof(*w));
    if (w == NULL)
        return NULL;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, &attr);
    pthread_condattr_destroy(&attr);
    return w;
}

/* Fence over the whole namespace; collect: also distribute the values put
 * since the last fence. Returns TERN_OK, TERN_ERR_TIMEOUT or TERN_ERR_BOOT. */
static int pmix_boot_fence(tn_boot_pmix_t *p, int collect, const char *doing)
{
    if (p->broken) {
        tn_error("cannot start %s: an earlier start-up exchange with the "
                 "PMIx launcher failed (see above), so the ranks are out of "
                 "step; end the job",
                 doing);
        return TERN_ERR_BOOT;
    }
    pmix_info_t info[2];
    size_t ninfo = 0;
    bool flag = true;
    int timeout = pmix_boot_timeout_int(p->timeout_s);
    if (collect)
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    if (timeout > 0)
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_TIMEOUT, &timeout, PMIX_INT);

    pmix_boot_wait_t *w = pmix_boot_wait_create();
    if (w == NULL) {
        tn_error("out of memory while %s", doing);
        p->broken = 1;
        return TERN_ERR_NOMEM;
    }
    /* procs NULL: every process of this rank's namespace, i.e. the job */
    pmix_status_t rc =
        PMIx_Fence_nb(NULL, 0, ninfo ? info : NULL, ninfo, pmix_boot_fence_cb, w);
    if (rc == PMIX_OPERATION_SUCCEEDED) { /* done at once, no callback */
        pmix_boot_wait_free(w);
        return TERN_OK;
    }
    if (rc != PMIX_SUCCESS) {
        pmix_boot_wait_free(w);
        p->broken = 1;
        return pmix_boot_fail("PMIx_Fence_nb", rc, doing, p->timeout_s);
    }

    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    if (timeout > 0)
        deadline.tv_sec += (time_t)timeout + PMIX_BOOT_GRACE_S;
    pthread_mutex_lock(&w->lock);
    while (!w->done) {
        int (*hook)(void) = tn_wait_progress_hook;
        if (hook) { /* drive progress (boot.h: TN_BOOT_PROGRESS_MS) */
            pthread_mutex_unlock(&w->lock);
            hook();
            struct timespec now, slice;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (timeout > 0 && pmix_boot_ts_before(deadline, now)) {
                pthread_mutex_lock(&w->lock);
                break;
            }
            slice = now;
            slice.tv_nsec += TN_BOOT_PROGRESS_MS * 1000000L;
            if (slice.tv_nsec >= 1000000000L) {
                slice.tv_sec++;
                slice.tv_nsec -= 1000000000L;
            }
            pthread_mutex_lock(&w->lock);
            if (!w->done)
                pthread_cond_timedwait(&w->cond, &w->lock, &slice);
        } else if (timeout == 0) {
            pthread_cond_wait(&w->cond, &w->lock);
        } else if (pthread_cond_timedwait(&w->cond, &w->lock, &deadline) == ETIMEDOUT) {
            break;
        }
    }
    if (!w->done) {
        w->abandoned = 1; /* the callback frees w if it ever runs */
        pthread_mutex_unlock(&w->lock);
        p->broken = 1;
        return pmix_boot_fail("PMIx_Fence", PMIX_ERR_TIMEOUT, doing, p->timeout_s);
    }
    rc = w->status;
    pthread_mutex_unlock(&w->lock);
    pmix_boot_wait_free(w);
    if (rc != PMIX_SUCCESS) {
        p->broken = 1;
        return pmix_boot_fail("PMIx_Fence", rc, doing, p->timeout_s);
    }
    return TERN_OK;
}

/* ---- ops ------------------------------------------------------------------ */

static int pmix_boot_barrier(tn_boot_t *b)
{
    return pmix_boot_fence(b->impl, 0, "waiting in the start-up barrier");
}

static int pmix_boot_allgather(tn_boot_t *b, const void *in, size_t len, void *out)
{
    tn_boot_pmix_t *p = b->impl;
    if (len == 0) /* nothing to exchange, but still a collective */
        return pmix_boot_barrier(b);
    if (in == NULL || out == NULL) {
        tn_error("boot allgather of %zu bytes called with a NULL buffer", len);
        return TERN_ERR_INVALID;
    }

    char key[PMIX_MAX_KEYLEN + 1];
    snprintf(key, sizeof(key), "tern.ag.%u", p->seq++);

    /* The value only points at in: PMIx_Put copies it into the client's
     * cache, and PMIx_Commit sends the cache to the local server. */
    pmix_value_t val;
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)in;
    val.data.bo.size = len;
    /* A failure before the fence leaves the others waiting in a fence this
     * rank skipped: from then on the bootstrap is out of step. */
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &val);
    if (rc != PMIX_SUCCESS) {
        p->broken = 1;
        return pmix_boot_fail("PMIx_Put", rc, "publishing this rank's blob",
                              p->timeout_s);
    }
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        p->broken = 1;
        return pmix_boot_fail("PMIx_Commit", rc, "publishing this rank's blob",
                              p->timeout_s);
    }

    int st = pmix_boot_fence(p, 1, "exchanging start-up data (allgather)");
    if (st != TERN_OK)
        return st;

    /* After the collecting fence every blob is in this node's PMIx store:
     * PMIX_OPTIONAL keeps PMIx_Get from asking the server (and waiting for
     * a put that will never come) when a key is missing. */
    pmix_info_t info;
    bool optional = true;
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
    memcpy((char *)out + (size_t)b->rank * len, in, len);
    for (int r = 0; r < b->size; r++) {
        if (r == b->rank)
            continue;
        pmix_proc_t peer;
        PMIX_LOAD_PROCID(&peer, p->self.nspace, (pmix_rank_t)r);
        pmix_value_t *v = NULL;
        rc = PMIx_Get(&peer, key, &info, 1, &v);
        if (rc != PMIX_SUCCESS) {
            char doing[96];
            snprintf(doing, sizeof(doing), "reading rank %d's start-up data", r);
            return pmix_boot_fail("PMIx_Get", rc, doing, p->timeout_s);
        }
        if (v->type != PMIX_BYTE_OBJECT || v->data.bo.size != len) {
            tn_error("boot allgather: rank %d contributed %zu bytes (PMIx type "
                     "%d), this rank %zu: the ranks disagree on the start-up "
                     "sequence: do they all run the same program and the same "
                     "Tern library?",
                     r, v->type == PMIX_BYTE_OBJECT ? v->data.bo.size : 0, (int)v->type,
                     len);
            PMIX_VALUE_RELEASE(v);
            return TERN_ERR_MISMATCH;
        }
        memcpy((char *)out + (size_t)r * len, v->data.bo.bytes, len);
        PMIX_VALUE_RELEASE(v);
    }
    return TERN_OK;
}

static int pmix_boot_init_done(tn_boot_t *b)
{
    /* PMIx has no "start-up finished" message: the launcher watches the
     * processes themselves and ends the job when one dies. What changes is
     * ours: TERN_BOOT_TIMEOUT bounds start-up only, so later boot calls
     * (the barrier of tern_finalize, reached whenever each rank is done
     * computing) wait without a deadline. */
    tn_boot_pmix_t *p = b->impl;
    p->timeout_s = 0;
    return TERN_OK;
}

/* 1 when the launcher is Open MPI 4's mpirun (ORTE), set to end the job
 * as soon as a process exits with a non-zero status (its default). */
static int pmix_boot_orte_ends_job_on_exit(void)
{
    if (getenv("OMPI_MCA_orte_hnp_uri") == NULL)
        return 0;
    const char *v = getenv("OMPI_MCA_orte_abort_on_non_zero_status");
    return v == NULL || !(strcmp(v, "0") == 0 || strcasecmp(v, "false") == 0 ||
                          strcasecmp(v, "no") == 0);
}

static void pmix_boot_abort(tn_boot_t *b, int code, const char *msg)
{
    /* Some launchers do not end a job for status 0. */
    if (code == 0)
        code = 1;
    if (msg == NULL)
        msg = "job aborted";
    /* The message is printed here: Open MPI 4.1's mpirun does not print
     * the one handed to PMIx_Abort. */
    tn_error("%s (ending the job with status %d)", msg, code);
    /* Open MPI 4.1.4's mpirun with PMIx 4.2 (Debian 12) crashes or hangs in
     * its own shutdown in about one run of four when PMIx_Abort arrives
     * while other ranks wait in a PMIx fence, which is where they are when
     * start-up fails on one rank. It ends the job reliably on a non-zero
     * exit, so there that is the abort. */
    if (pmix_boot_orte_ends_job_on_exit())
        _exit(code);
    /* procs NULL: every process of this job. */
    pmix_status_t rc = PMIx_Abort(code, msg, NULL, 0);
    if (rc != PMIX_SUCCESS)
        tn_error("PMIx_Abort failed (%s); exiting this rank with status %d, "
                 "the launcher should then end the other ranks",
                 PMIx_Error_string(rc), code);
    /* PMIx_Abort returns once the launcher has the request; the launcher
     * then kills every process of the job, this one included. */
    _exit(code);
}

static int pmix_boot_fini(tn_boot_t *b)
{
    free(b->impl);
    b->impl = NULL;
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS)
        return pmix_boot_fail("PMIx_Finalize", rc, "leaving the job", 0);
    return TERN_OK;
}

/* The key-value store is PMIx's own: a put is committed to the local
 * server at once, and after the next fence (the barrier, which collects
 * nothing) a PMIx_Get of another rank's key is fetched from its server on
 * demand (direct modex): nothing is moved for ranks never asked about. */
static int pmix_boot_put(tn_boot_t *b, const char *key, const void *val, size_t len)
{
    tn_boot_pmix_t *p = b->impl;
    char k[PMIX_MAX_KEYLEN + 1];
    snprintf(k, sizeof(k), "tern.kv.%s", key);
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)val;
    v.data.bo.size = len;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, k, &v);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        return pmix_boot_fail("PMIx_Put", rc, "publishing a start-up value",
                              p->timeout_s);
    return TERN_OK;
}

static int pmix_boot_get(tn_boot_t *b, int rank, const char *key, void *out, size_t cap,
                         size_t *len)
{
    tn_boot_pmix_t *p = b->impl;
    if (rank < 0 || rank >= b->size) {
        tn_error("bootstrap lookup of '%s' for rank %d: the job has ranks 0 to %d", key,
                 rank, b->size - 1);
        return TERN_ERR_RANK;
    }
    char k[PMIX_MAX_KEYLEN + 1], doing[96];
    snprintf(k, sizeof(k), "tern.kv.%s", key);
    snprintf(doing, sizeof(doing), "looking up rank %d's '%s'", rank, key);
    pmix_info_t info;
    size_t ninfo = 0;
    int timeout = pmix_boot_timeout_int(p->timeout_s);
    if (timeout > 0) {
        PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &timeout, PMIX_INT);
        ninfo = 1;
    }
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, p->self.nspace, (pmix_rank_t)rank);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&peer, k, ninfo ? &info : NULL, ninfo, &v);
    if (rc != PMIX_SUCCESS)
        return pmix_boot_fail("PMIx_Get", rc, doing, p->timeout_s);
    if (v->type != PMIX_BYTE_OBJECT || v->data.bo.size > cap) {
        tn_error("bootstrap %s: %zu bytes (PMIx type %d), more than the %zu expected "
                 "(ranks of different Tern builds?)",
                 doing, v->type == PMIX_BYTE_OBJECT ? v->data.bo.size : 0, (int)v->type,
                 cap);
        PMIX_VALUE_RELEASE(v);
        return TERN_ERR_INVALID;
    }
    memcpy(out, v->data.bo.bytes, v->data.bo.size);
    *len = v->data.bo.size;
    PMIX_VALUE_RELEASE(v);
    return TERN_OK;
}

static const tn_boot_ops_t tn_boot_pmix_ops = {
    .size = sizeof(tn_boot_ops_t),
    .name = "pmix",
    .allgather = pmix_boot_allgather,
    .barrier = pmix_boot_barrier,
    .init_done = pmix_boot_init_done,
    .abort = pmix_boot_abort,
    .fini = pmix_boot_fini,
    .put = pmix_boot_put,
    .get = pmix_boot_get,
};

/* ---- create --------------------------------------------------------------- */

/* Job-level or proc-level datum of the launcher as an unsigned number. */
static int pmix_boot_get_u32(tn_boot_pmix_t *p, const pmix_proc_t *proc, const char *key,
                             uint32_t *out)
{
    pmix_info_t info;
    size_t ninfo = 0;
    int timeout = pmix_boot_timeout_int(p->timeout_s);
    if (timeout > 0) {
        PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &timeout, PMIX_INT);
        ninfo = 1;
    }
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(proc, key, ninfo ? &info : NULL, ninfo, &v);
    if (rc != PMIX_SUCCESS)
        return rc;
    uint64_t n = 0;
    PMIX_VALUE_GET_NUMBER(rc, v, n, uint64_t);
    PMIX_VALUE_RELEASE(v);
    if (rc == PMIX_SUCCESS) {
        if (n > UINT32_MAX)
            return PMIX_ERR_BAD_PARAM;
        *out = (uint32_t)n;
    }
    return rc;
}

/* This rank's node identity. The launcher's host name for the process is
 * preferred (it reads well in messages); a name too long for node_key, or
 * none, falls back to the launcher's node id, which is unique per node.
 * Every rank of a job takes the same branch, so keys stay comparable. */
static int pmix_boot_node_key(tn_boot_pmix_t *p, char *key, size_t keylen)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&p->self, PMIX_HOSTNAME, NULL, 0, &v);
    if (rc == PMIX_SUCCESS) {
        int ok = v->type == PMIX_STRING && v->data.string != NULL &&
                 v->data.string[0] != '\0' && strlen(v->data.string) < keylen;
        if (ok)
            snprintf(key, keylen, "%s", v->data.string);
        PMIX_VALUE_RELEASE(v);
        if (ok)
            return TERN_OK;
    }
    uint32_t nodeid;
    rc = pmix_boot_get_u32(p, &p->self, PMIX_NODEID, &nodeid);
    if (rc == PMIX_SUCCESS) {
        snprintf(key, keylen, "pmix-node-%u", nodeid);
        return TERN_OK;
    }
    tn_error("the PMIx launcher gives neither PMIX_HOSTNAME nor PMIX_NODEID "
             "for this process (%s), so Tern cannot tell which ranks share "
             "a node; use a launcher with PMIx 3 or newer, or start the job "
             "with ternrun",
             PMIx_Error_string(rc));
    return TERN_ERR_BOOT;
}

int tn_boot_pmix_create(tn_boot_t *b, double timeout_s)
{
    int st;
    tn_boot_pmix_t *p = calloc(1, sizeof(*p));
    if (p == NULL) {
        tn_error("out of memory creating the PMIx bootstrap");
        return TERN_ERR_NOMEM;
    }
    p->timeout_s = timeout_s > 0 ? timeout_s : 0;

    pmix_status_t rc = PMIx_Init(&p->self, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        tn_error("PMIx_Init failed: %s (PMIx status %d). The environment "
                 "names a PMIx job (PMIX_NAMESPACE=%s, PMIX_RANK=%s) whose "
                 "launcher cannot be reached: start the program directly "
                 "under mpirun, srun --mpi=pmix or prterun, or unset the "
                 "PMIX_* variables to run it alone or under ternrun",
                 PMIx_Error_string(rc), (int)rc, getenv("PMIX_NAMESPACE"),
                 getenv("PMIX_RANK"));
        st = TERN_ERR_BOOT;
        goto fail_free;
    }

    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, p->self.nspace, PMIX_RANK_WILDCARD);
    uint32_t size = 0;
    rc = pmix_boot_get_u32(p, &job, PMIX_JOB_SIZE, &size);
    if (rc != PMIX_SUCCESS) {
        st = pmix_boot_fail("PMIx_Get(PMIX_JOB_SIZE)", rc, "reading the number of ranks",
                            p->timeout_s);
        goto fail_fini;
    }
    if (size == 0 || size > INT_MAX || p->self.rank >= size) {
        tn_error("the PMIx launcher reports rank %u in a job of %u ranks; "
                 "Tern needs 0 <= rank < size <= %d",
                 (unsigned)p->self.rank, (unsigned)size, INT_MAX);
        st = TERN_ERR_BOOT;
        goto fail_fini;
    }

    char key[sizeof(b->node_key)];
    st = pmix_boot_node_key(p, key, sizeof(key));
    if (st != TERN_OK)
        goto fail_fini;

    b->ops = &tn_boot_pmix_ops;
    b->rank = (int)p->self.rank;
    b->size = (int)size;
    /* A PMIx node is a machine: its host name (or node id) names both,
     * unless a wrapper simulates nodes on it (TERN_BOOT_NODE, as ternrun
     * --nodes sets it; scripts/mpirun-nodes.sh): then ranks of one
     * simulated node share memory and the others are reached over the
     * network, against MPI in the same job. */
    memcpy(b->host_key, key, sizeof(key));
    const char *sim = getenv("TERN_BOOT_NODE");
    if (sim && *sim)
        snprintf(key, sizeof(key), "%s", sim);
    memcpy(b->node_key, key, sizeof(key));
    b->impl = p;
    tn_debug("PMIx bootstrap: namespace %s, rank %d of %d, node %s", p->self.nspace,
             b->rank, b->size, b->node_key);
    return TERN_OK;

fail_fini:
    PMIx_Finalize(NULL, 0);
fail_free:
    free(p);
    return st;
}
