/* Rank side of the ternrun bootstrap: one stream socket to the launcher,
 * blocking request/reply calls (see wire.h for the frames). Start-up waits
 * are bounded; after init_done a rank may wait for ever (a barrier in
 * tern_finalize waits for the slowest rank's computation). */
#include "boot/boot.h"
#include "base/wait.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tern/status.h>

#include "base/cfg.h"
#include "base/log.h"
#include "boot/wire.h"

/* The launcher owns the job's start-up deadline (it can name the ranks
 * that did not arrive); a rank's own bound is a backstop for a launcher
 * that stopped answering, so it gives the launcher this head start. */
#define TERNRUN_GRACE_S 2.0
/* How long abort waits for the launcher to end this process. */
#define TERNRUN_ABORT_WAIT_MS 5000

typedef struct ternrun_state {
    int fd; /* -1 after fini */
    /* Lookups (get) travel on a connection of their own, opened at the
     * first one, so that a thread resolving a peer's address never waits
     * behind another thread's collective on fd (which may itself wait for
     * this rank's progress). */
    int kv_fd; /* -1: not open */
    pthread_mutex_t kv_lock;
    const char *addr, *jobid; /* the environment's strings */
    int init_done;            /* no deadline on waits once set */
    double timeout_s;
    unsigned ncoll; /* collectives done, to name one in messages */
} ternrun_state_t;

static ternrun_state_t *state_of(tn_boot_t *b)
{
    return b->impl;
}

/* How long a wait for ternrun may see nothing arrive; 0: unbounded. */
static double idle_of(const ternrun_state_t *st)
{
    if (st->init_done || st->timeout_s <= 0)
        return 0;
    return st->timeout_s + TERNRUN_GRACE_S;
}

/* Translates a wire status into the boot status, logging the cause once. */
static int wire_failed(const ternrun_state_t *st, const char *what, int rc)
{
    switch (rc) {
    case TERN_ERR_PEER:
        tn_error("bootstrap %s: the launcher (ternrun) closed the connection; "
                 "it has ended or is ending the job (see its message)",
                 what);
        return TERN_ERR_BOOT;
    case TERN_ERR_TIMEOUT:
        tn_error("bootstrap %s: no answer from ternrun within %g s: raise "
                 "TERN_BOOT_TIMEOUT if start-up is merely slow",
                 what, st->timeout_s + TERNRUN_GRACE_S);
        return TERN_ERR_TIMEOUT;
    case TERN_ERR_NOMEM:
        tn_error("bootstrap %s: out of memory", what);
        return TERN_ERR_NOMEM;
    case TERN_ERR_SYS:
        tn_error("bootstrap %s: talking to ternrun failed: %s", what, strerror(errno));
        return TERN_ERR_BOOT;
    default:
        tn_error("bootstrap %s: malformed frame from ternrun (protocol "
                 "mismatch between ternrun and libtern versions?)",
                 what);
        return TERN_ERR_BOOT;
    }
}

/* Sends one request and waits for its reply of type want. */
static int call(tn_boot_t *b, const char *what, uint32_t type, int32_t arg, const void *p,
                size_t len, uint32_t want, tn_wire_hdr_t *h, void **payload)
{
    ternrun_state_t *st = state_of(b);
    if (st->fd < 0) {
        tn_error("bootstrap %s after this rank left the job (fini)", what);
        return TERN_ERR_BOOT;
    }
    int rc = tn_wire_send(st->fd, type, arg, p, len);
    if (rc != TERN_OK)
        return wire_failed(st, what, rc);
    void *pl = NULL;
    /* Collective exchanges (and fini): drive the progress hook meanwhile
     * (boot.h, TN_BOOT_PROGRESS_MS). The key-value calls do not: a lazy
     * lookup runs inside transport code that progress would re-enter. */
    rc = tn_wire_recv_driving(st->fd, idle_of(st), tn_wait_progress_hook,
                              TN_BOOT_PROGRESS_MS, h, &pl);
    if (rc != TERN_OK)
        return wire_failed(st, what, rc);
    if (h->type == TN_WIRE_ERROR) {
        tn_error("bootstrap %s refused by ternrun: %.*s", what, (int)h->len,
                 pl ? (const char *)pl : "");
        free(pl);
        return TERN_ERR_BOOT;
    }
    if (h->type != want) {
        free(pl);
        return wire_failed(st, what, TERN_ERR_BOOT);
    }
    *payload = pl;
    return TERN_OK;
}

static int ternrun_allgather(tn_boot_t *b, const void *in, size_t len, void *out)
{
    ternrun_state_t *st = state_of(b);
    char what[48];
    snprintf(what, sizeof(what), "collective #%u", st->ncoll + 1);
    tn_wire_hdr_t h;
    void *pl = NULL;
    int rc = call(b, what, TN_WIRE_GATHER, 0, in, len, TN_WIRE_GATHER_OUT, &h, &pl);
    if (rc != TERN_OK)
        return rc;
    if (h.len != (uint64_t)len * (uint64_t)b->size) {
        tn_error("bootstrap %s: ternrun returned %llu bytes for %d ranks of "
                 "%zu bytes (protocol mismatch)",
                 what, (unsigned long long)h.len, b->size, len);
        free(pl);
        return TERN_ERR_BOOT;
    }
    if (h.len)
        memcpy(out, pl, h.len);
    free(pl);
    st->ncoll++;
    return TERN_OK;
}

static int ternrun_barrier(tn_boot_t *b)
{
    return ternrun_allgather(b, NULL, 0, NULL);
}

static int ternrun_init_done(tn_boot_t *b)
{
    ternrun_state_t *st = state_of(b);
    if (st->fd < 0)
        return TERN_ERR_BOOT;
    int rc = tn_wire_send(st->fd, TN_WIRE_INIT_DONE, 0, NULL, 0);
    if (rc != TERN_OK)
        return wire_failed(st, "init_done", rc);
    st->init_done = 1;
    return TERN_OK;
}

/* Waits, at most TERNRUN_ABORT_WAIT_MS, for ternrun to end this process
 * (its signal) or hang up. Only hang-up is polled: another thread may be
 * reading the socket. */
static void await_end(ternrun_state_t *st)
{
    struct pollfd pfd = {.fd = st->fd, .events = POLLRDHUP};
    int n;
    do
        n = poll(&pfd, 1, TERNRUN_ABORT_WAIT_MS);
    while (n < 0 && errno == EINTR);
}

static void ternrun_abort(tn_boot_t *b, int code, const char *msg)
{
    ternrun_state_t *st = state_of(b);
    if (!msg)
        msg = "";
    if (st->fd < 0 ||
        tn_wire_send(st->fd, TN_WIRE_ABORT, code, msg, strlen(msg)) != TERN_OK) {
        /* No launcher to print it: say it here. */
        tn_error("abort with code %d: %s", code, *msg ? msg : "(no message)");
        _exit(code);
    }
    /* ternrun prints the message and ends every rank, this one included;
     * wait for that rather than race it with our own exit status. */
    await_end(st);
    _exit(code);
}

static int ternrun_fini(tn_boot_t *b)
{
    ternrun_state_t *st = state_of(b);
    tn_wire_hdr_t h;
    void *pl = NULL;
    /* Synchronous, so that ternrun knows we left before it sees us exit. */
    int rc = call(b, "fini", TN_WIRE_FINI, 0, NULL, 0, TN_WIRE_FINI_ACK, &h, &pl);
    free(pl);
    if (rc != TERN_OK)
        return rc;
    close(st->fd);
    st->fd = -1;
    return TERN_OK;
}

/* The key-value store lives in ternrun: a PUT is stored there (the
 * stream's order puts it before this rank's next barrier), a GET asks for
 * one rank's value. */
static int ternrun_put(tn_boot_t *b, const char *key, const void *val, size_t len)
{
    ternrun_state_t *st = state_of(b);
    unsigned char buf[TN_WIRE_KEY_BYTES + TN_BOOT_VALUE_MAX];
    size_t klen = strlen(key);
    if (klen >= TN_WIRE_KEY_BYTES || len > TN_BOOT_VALUE_MAX) {
        tn_error("bootstrap put of '%s': key or value too long (%zu, %zu bytes)", key,
                 klen, len);
        return TERN_ERR_INVALID;
    }
    if (st->fd < 0)
        return TERN_ERR_BOOT;
    memset(buf, 0, TN_WIRE_KEY_BYTES);
    memcpy(buf, key, klen);
    memcpy(buf + TN_WIRE_KEY_BYTES, val, len);
    int rc = tn_wire_send(st->fd, TN_WIRE_PUT, 0, buf, TN_WIRE_KEY_BYTES + len);
    return rc == TERN_OK ? TERN_OK : wire_failed(st, "put", rc);
}

static int hello(ternrun_state_t *st, int fd, uint32_t type, const char *addr,
                 const char *jobid, int rank, int size);

/* One lookup on the lookup connection (kv_lock held). */
static int kv_call(tn_boot_t *b, const char *what, int rank, const char *kbuf,
                   tn_wire_hdr_t *h, void **pl)
{
    ternrun_state_t *st = state_of(b);
    int rc;
    if (st->kv_fd < 0) {
        int fd = -1;
        rc = tn_wire_connect(st->addr, &fd);
        if (rc != TERN_OK) {
            tn_error("bootstrap %s: cannot reach ternrun at %s: %s", what, st->addr,
                     strerror(errno));
            return TERN_ERR_BOOT;
        }
        rc = hello(st, fd, TN_WIRE_HELLO_LOOKUP, st->addr, st->jobid, b->rank, b->size);
        if (rc != TERN_OK) {
            close(fd);
            return rc;
        }
        st->kv_fd = fd;
    }
    rc = tn_wire_send(st->kv_fd, TN_WIRE_GET, rank, kbuf, TN_WIRE_KEY_BYTES);
    if (rc == TERN_OK)
        rc = tn_wire_recv(st->kv_fd, 0, h, pl);
    if (rc != TERN_OK)
        return wire_failed(st, what, rc);
    if (h->type == TN_WIRE_ERROR) {
        tn_error("bootstrap %s refused by ternrun: %.*s", what, (int)h->len,
                 *pl ? (const char *)*pl : "");
        free(*pl);
        *pl = NULL;
        return TERN_ERR_BOOT;
    }
    if (h->type != TN_WIRE_GET_OUT) {
        free(*pl);
        *pl = NULL;
        return wire_failed(st, what, TERN_ERR_BOOT);
    }
    return TERN_OK;
}

static int ternrun_get(tn_boot_t *b, int rank, const char *key, void *out, size_t cap,
                       size_t *len)
{
    ternrun_state_t *st = state_of(b);
    if (rank < 0 || rank >= b->size) {
        tn_error("bootstrap lookup of '%s' for rank %d: the job has ranks 0 to %d", key,
                 rank, b->size - 1);
        return TERN_ERR_RANK;
    }
    char what[96], kbuf[TN_WIRE_KEY_BYTES];
    snprintf(what, sizeof(what), "lookup of rank %d's '%s'", rank, key);
    memset(kbuf, 0, sizeof(kbuf));
    strncpy(kbuf, key, sizeof(kbuf) - 1);
    tn_wire_hdr_t h;
    void *pl = NULL;
    pthread_mutex_lock(&st->kv_lock);
    int rc = kv_call(b, what, rank, kbuf, &h, &pl);
    pthread_mutex_unlock(&st->kv_lock);
    if (rc != TERN_OK)
        return rc;
    if (h.len > cap) {
        tn_error("bootstrap %s: %llu bytes, more than the %zu expected (ranks of "
                 "different Tern builds?)",
                 what, (unsigned long long)h.len, cap);
        free(pl);
        return TERN_ERR_INVALID;
    }
    if (h.len)
        memcpy(out, pl, h.len);
    *len = (size_t)h.len;
    free(pl);
    return TERN_OK;
}

static void ternrun_leaving(tn_boot_t *b, int errors, int status)
{
    ternrun_state_t *st = state_of(b);
    /* On the main connection, as ABORT: a thread of this rank in a
     * bootstrap call at the moment the process exits is not guarded. */
    if (st->fd < 0)
        return;
    int32_t s = status;
    unsigned char pl[4] = {(unsigned char)s, (unsigned char)(s >> 8),
                           (unsigned char)(s >> 16), (unsigned char)((uint32_t)s >> 24)};
    if (tn_wire_send(st->fd, TN_WIRE_LEAVING, errors, pl, sizeof(pl)) != TERN_OK ||
        status <= 0)
        return;
    /* An error exit: ternrun ends the job on this LEAVING, as on the exit
     * itself. Wait for that, as ternrun_abort does, so that this rank's
     * endpoints stay open until its peers are ended: libfabric 1.17's
     * ofi_rxm crashes a peer whose inject write to a closed connection
     * fails (docs/design/progress-thread.md, "The crash"). Bounded: the
     * exit goes on if ternrun does not answer. */
    await_end(st);
}

static void ternrun_destroy(tn_boot_t *b);

static const tn_boot_ops_t ternrun_ops = {
    .size = sizeof(tn_boot_ops_t),
    .name = "ternrun",
    .allgather = ternrun_allgather,
    .barrier = ternrun_barrier,
    .init_done = ternrun_init_done,
    .abort = ternrun_abort,
    .fini = ternrun_fini,
    .destroy = ternrun_destroy,
    .put = ternrun_put,
    .get = ternrun_get,
    .leaving = ternrun_leaving,
};

/* Reads one TERN_BOOT_* variable through the configuration table. */
static int env_value(const char *name, void *dst)
{
    const tn_cfg_var_t *v = tn_cfg_find(name);
    const char *text = getenv(name);
    char err[256];
    if (!v)
        tn_fatal(1, "internal: %s missing from the configuration table", name);
    if (!text)
        text = v->def;
    if (tn_cfg_parse(v, text, dst, err, sizeof(err)) != TERN_OK) {
        tn_error("%s; TERN_BOOT_* variables are set by ternrun for its ranks: "
                 "unset them to run this program alone",
                 err);
        return TERN_ERR_BOOT;
    }
    return TERN_OK;
}

static int hello(ternrun_state_t *st, int fd, uint32_t type, const char *addr,
                 const char *jobid, int rank, int size)
{
    tn_wire_hello_t m = {.magic = TN_WIRE_MAGIC,
                         .version = TN_WIRE_VERSION,
                         .rank = rank,
                         .size = size,
                         .pid = (int32_t)getpid()};
    strncpy(m.jobid, jobid, sizeof(m.jobid) - 1);
    unsigned char buf[TN_WIRE_HELLO_BYTES];
    tn_wire_hello_pack(&m, buf);
    int rc = tn_wire_send(fd, type, rank, buf, sizeof(buf));
    if (rc != TERN_OK)
        return wire_failed(st, "hello", rc);
    tn_wire_hdr_t h;
    void *pl = NULL;
    rc = tn_wire_recv(fd, idle_of(st), &h, &pl);
    if (rc != TERN_OK)
        return wire_failed(st, "hello", rc);
    if (h.type == TN_WIRE_ERROR) {
        tn_error("ternrun at %s refused rank %d: %.*s", addr, rank, (int)h.len,
                 pl ? (const char *)pl : "");
        free(pl);
        return TERN_ERR_BOOT;
    }
    free(pl);
    if (h.type != TN_WIRE_WELCOME || h.arg != size)
        return wire_failed(st, "hello", TERN_ERR_BOOT);
    return TERN_OK;
}

int tn_boot_ternrun_create(tn_boot_t *b, double timeout_s)
{
    const char *addr = NULL, *jobid = NULL;
    long rank = -1, size = 0;
    if (env_value("TERN_BOOT_ADDR", &addr) != TERN_OK ||
        env_value("TERN_BOOT_JOBID", &jobid) != TERN_OK ||
        env_value("TERN_BOOT_RANK", &rank) != TERN_OK ||
        env_value("TERN_BOOT_SIZE", &size) != TERN_OK)
        return TERN_ERR_BOOT;
    if (size < 1 || rank < 0 || rank >= size || !*jobid ||
        strlen(jobid) >= TN_WIRE_JOBID_MAX) {
        tn_error("TERN_BOOT_RANK=%ld, TERN_BOOT_SIZE=%ld, TERN_BOOT_JOBID='%s' "
                 "do not describe a rank of a job; they are set by ternrun: "
                 "unset TERN_BOOT_* to run this program alone",
                 rank, size, jobid);
        return TERN_ERR_BOOT;
    }
    ternrun_state_t *st = calloc(1, sizeof(*st));
    if (!st)
        return TERN_ERR_NOMEM;
    st->timeout_s = timeout_s;
    st->kv_fd = -1;
    st->addr = addr;
    st->jobid = jobid;
    pthread_mutex_init(&st->kv_lock, NULL);
    int rc = tn_wire_connect(addr, &st->fd);
    if (rc == TERN_ERR_INVALID) {
        tn_error("TERN_BOOT_ADDR='%s' is not an address this Tern can reach "
                 "(expected unix:@name from ternrun)",
                 addr);
        free(st);
        return TERN_ERR_BOOT;
    }
    if (rc != TERN_OK) {
        tn_error("cannot reach ternrun at %s: %s; the launcher has ended, or "
                 "this process was not started by it (unset TERN_BOOT_* to "
                 "run alone)",
                 addr, strerror(errno));
        free(st);
        return TERN_ERR_BOOT;
    }
    rc = hello(st, st->fd, TN_WIRE_HELLO, addr, jobid, (int)rank, (int)size);
    if (rc != TERN_OK) {
        close(st->fd);
        free(st);
        return rc;
    }
    b->ops = &ternrun_ops;
    b->rank = (int)rank;
    b->size = (int)size;
    b->impl = st;
    tn_boot_default_node_key(b->node_key, sizeof(b->node_key));
    tn_boot_default_host_key(b->host_key, sizeof(b->host_key));
    return TERN_OK;
}

static void ternrun_destroy(tn_boot_t *b)
{
    ternrun_state_t *st = state_of(b);
    if (!st)
        return;
    if (st->fd >= 0)
        close(st->fd);
    if (st->kv_fd >= 0)
        close(st->kv_fd);
    pthread_mutex_destroy(&st->kv_lock);
    free(st);
    b->impl = NULL;
}
