/* The launcher's side of the wire: accepting ranks, serving their
 * requests, and the bootstrap collective (allgather through ternrun: every
 * rank sends its blob, all receive the concatenation in rank order). */
#include "ternrun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tern/status.h>

#include "base/time.h"

static int conn_slot(tr_job_t *job)
{
    for (int i = 0; i < job->nconns; i++)
        if (job->conns[i].fd < 0)
            return i;
    tr_conn_t *c = realloc(job->conns, (size_t)(job->nconns + 1) * sizeof(*c));
    if (!c)
        return -1;
    job->conns = c;
    job->conns[job->nconns].fd = -1;
    return job->nconns++;
}

void tr_proto_accept(tr_job_t *job)
{
    for (;;) {
        int fd;
        int rc = tn_wire_accept(job->lfd, &fd);
        if (rc != TERN_OK)
            return; /* none pending (or a transient failure: retried on
                       the next POLLIN) */
        /* An abstract socket has no file permissions: only our user (or
         * root) may talk to this ternrun. */
        uid_t uid;
        pid_t pid;
        if (tn_wire_peer_cred(fd, &uid, &pid) == TERN_OK && uid != getuid() && uid != 0) {
            if (job->verbose)
                fprintf(stderr,
                        "ternrun: refused a connection from pid %d "
                        "of user %u\n",
                        (int)pid, (unsigned)uid);
            close(fd);
            continue;
        }
        int ci = conn_slot(job);
        if (ci < 0) {
            close(fd);
            return;
        }
        tr_conn_t *c = &job->conns[ci];
        memset(c, 0, sizeof(*c));
        c->fd = fd;
        c->rank = -1;
        /* Until it has said who it is, a peer may send nothing but a
         * hello: no large buffer for an unknown sender. */
        c->rx.max = TN_WIRE_HELLO_BYTES;
    }
}

void tr_proto_close(tr_job_t *job, int ci)
{
    tr_conn_t *c = &job->conns[ci];
    if (c->fd < 0)
        return;
    close(c->fd);
    c->fd = -1;
    tn_wire_rx_reset(&c->rx);
    tn_wire_txq_clear(&c->tx);
    if (c->rank >= 0 && !c->lookup) {
        tr_rank_t *r = &job->ranks[c->rank];
        r->conn = -1;
        /* Lost without fini: the exit status that explains it usually
         * follows at once; if not, the rank left the job on its own. */
        if (!r->fini && !r->exited)
            r->eof_at = tn_time_s();
    }
}

static void send_frame(tr_job_t *job, int ci, uint32_t type, int32_t arg,
                       tn_wire_blob_t *blob)
{
    tr_conn_t *c = &job->conns[ci];
    if (tn_wire_txq_push(&c->tx, type, arg, blob) != TERN_OK) {
        tr_job_fail(job, 1, "out of memory");
        return;
    }
    tr_proto_write(job, ci);
}

static void send_text(tr_job_t *job, int ci, uint32_t type, const char *text)
{
    size_t len = strlen(text);
    tn_wire_blob_t *b = tn_wire_blob_create(len);
    if (!b) {
        tr_job_fail(job, 1, "out of memory");
        return;
    }
    memcpy(b->data, text, len);
    send_frame(job, ci, type, 0, b);
    tn_wire_blob_release(b);
}

/* A connection that is not one of our ranks (or a confused one) gets the
 * reason, then is dropped. */
static void refuse(tr_job_t *job, int ci, const char *why)
{
    if (job->verbose)
        fprintf(stderr, "ternrun: refused a connection: %s\n", why);
    send_text(job, ci, TN_WIRE_ERROR, why);
    job->conns[ci].closing = 1;
    if (!job->conns[ci].tx.head)
        tr_proto_close(job, ci);
}

static void on_hello(tr_job_t *job, int ci, const tn_wire_rx_t *rx)
{
    tr_conn_t *c = &job->conns[ci];
    tn_wire_hello_t m;
    char why[256];
    uid_t uid;
    pid_t pid = 0;
    tn_wire_peer_cred(c->fd, &uid, &pid);
    if (tn_wire_hello_unpack(rx->payload, rx->h.len, &m) != TERN_OK) {
        refuse(job, ci, "malformed hello");
        return;
    }
    if (m.version != TN_WIRE_VERSION) {
        snprintf(why, sizeof(why),
                 "wire protocol version %u, ternrun speaks "
                 "%u: use the ternrun of the same Tern installation",
                 m.version, TN_WIRE_VERSION);
        refuse(job, ci, why);
        return;
    }
    if (strcmp(m.jobid, job->jobid) != 0) {
        refuse(job, ci, "job id does not match this ternrun");
        return;
    }
    if (m.size != job->n || m.rank < 0 || m.rank >= job->n) {
        snprintf(why, sizeof(why),
                 "rank %d of %d is not a rank of this job "
                 "of %d",
                 m.rank, m.size, job->n);
        refuse(job, ci, why);
        return;
    }
    tr_rank_t *r = &job->ranks[m.rank];
    if (r->joined) {
        snprintf(why, sizeof(why),
                 "rank %d has already joined this job "
                 "(tern_init twice in one job is not supported)",
                 m.rank);
        refuse(job, ci, why);
        return;
    }
    c->rank = m.rank;
    c->rx.max = 0;
    r->conn = ci;
    r->joined = 1;
    job->njoined++;
    if (job->t_first_join == 0)
        job->t_first_join = tn_time_s();
    if (job->verbose >= 2)
        fprintf(stderr, "ternrun: rank %d joined (pid %d) after %.1f ms\n", m.rank,
                (int)pid, (tn_time_s() - job->t_start) * 1e3);
    send_frame(job, ci, TN_WIRE_WELCOME, job->n, NULL);
}

/* Checks a contribution against the collective in progress, starting one
 * if none is; 0 when it fits. */
static int gather_admit(tr_job_t *job, int rank, size_t len)
{
    if (job->ranks[rank].in_coll) {
        tr_job_fail(job, 1,
                    "rank %d sent two contributions to bootstrap "
                    "collective #%u (protocol error)",
                    rank, job->coll_seq + 1);
        return -1;
    }
    if (job->coll_count > 0) {
        if (len == job->coll_len)
            return 0;
        tr_job_fail(job, 1,
                    "ranks disagree in bootstrap collective #%u: "
                    "rank %d contributed %zu bytes, others %zu (every rank "
                    "must make the same start-up calls)",
                    job->coll_seq + 1, rank, len, job->coll_len);
        return -1;
    }
    uint64_t total = (uint64_t)len * (uint64_t)job->n;
    if (total > TN_WIRE_MAX_PAYLOAD) {
        tr_job_fail(job, 1,
                    "rank %d asked for a bootstrap allgather of %zu "
                    "bytes per rank, %llu in all: more than ternrun's limit "
                    "of %llu bytes",
                    rank, len, (unsigned long long)total,
                    (unsigned long long)TN_WIRE_MAX_PAYLOAD);
        return -1;
    }
    job->coll_len = len;
    job->coll_buf = tn_wire_blob_create((size_t)total);
    if (!job->coll_buf) {
        tr_job_fail(job, 1,
                    "out of memory for a bootstrap allgather of "
                    "%llu bytes",
                    (unsigned long long)total);
        return -1;
    }
    return 0;
}

static void on_gather(tr_job_t *job, int rank, const tn_wire_rx_t *rx)
{
    size_t len = (size_t)rx->h.len;
    if (gather_admit(job, rank, len) != 0)
        return;
    if (len)
        memcpy(job->coll_buf->data + (size_t)rank * len, rx->payload, len);
    job->ranks[rank].in_coll = 1;
    if (++job->coll_count < job->n) {
        tr_job_check_stuck(job);
        return;
    }
    /* Complete: one shared result, queued to every rank. */
    tn_wire_blob_t *out = job->coll_buf;
    job->coll_buf = NULL;
    job->coll_count = 0;
    job->coll_seq++;
    for (int i = 0; i < job->n; i++) {
        job->ranks[i].in_coll = 0;
        if (job->ranks[i].conn >= 0)
            send_frame(job, job->ranks[i].conn, TN_WIRE_GATHER_OUT, 0, out);
    }
    tn_wire_blob_release(out);
}

/* The key-value store: a rank's published values, each kept until the
 * launcher exits (a few per rank, a few hundred bytes each). A key put
 * again replaces its value. */
static void on_put(tr_job_t *job, int rank, const tn_wire_rx_t *rx)
{
    tr_rank_t *r = &job->ranks[rank];
    size_t len = (size_t)rx->h.len;
    if (len < TN_WIRE_KEY_BYTES || rx->payload[TN_WIRE_KEY_BYTES - 1] != '\0') {
        tr_job_fail(job, 1, "rank %d sent a malformed bootstrap put (protocol error)",
                    rank);
        return;
    }
    tn_wire_blob_t *v = tn_wire_blob_create(len - TN_WIRE_KEY_BYTES);
    if (!v) {
        tr_job_fail(job, 1, "out of memory for rank %d's bootstrap put", rank);
        return;
    }
    memcpy(v->data, rx->payload + TN_WIRE_KEY_BYTES, v->len);
    for (int i = 0; i < r->nkv; i++)
        if (strcmp(r->kv[i].key, (const char *)rx->payload) == 0) {
            tn_wire_blob_release(r->kv[i].val);
            r->kv[i].val = v;
            return;
        }
    tr_kv_t *kv = realloc(r->kv, (size_t)(r->nkv + 1) * sizeof(*kv));
    if (!kv) {
        tn_wire_blob_release(v);
        tr_job_fail(job, 1, "out of memory for rank %d's bootstrap put", rank);
        return;
    }
    r->kv = kv;
    memcpy(kv[r->nkv].key, rx->payload, TN_WIRE_KEY_BYTES);
    kv[r->nkv++].val = v;
}

/* A lookup of another rank's value: the value, or an error reply that the
 * asking rank reports (the job goes on: the caller decides). */
static void on_get(tr_job_t *job, int ci, int rank, const tn_wire_rx_t *rx)
{
    int want = rx->h.arg;
    char why[160];
    if (rx->h.len != TN_WIRE_KEY_BYTES || rx->payload[TN_WIRE_KEY_BYTES - 1] != '\0') {
        tr_job_fail(job, 1, "rank %d sent a malformed bootstrap lookup (protocol error)",
                    rank);
        return;
    }
    const char *key = (const char *)rx->payload;
    if (want < 0 || want >= job->n) {
        snprintf(why, sizeof(why), "rank %d is not in this job of %d ranks", want,
                 job->n);
        send_text(job, ci, TN_WIRE_ERROR, why);
        return;
    }
    const tr_rank_t *r = &job->ranks[want];
    for (int i = 0; i < r->nkv; i++)
        if (strcmp(r->kv[i].key, key) == 0) {
            send_frame(job, ci, TN_WIRE_GET_OUT, 0, r->kv[i].val);
            return;
        }
    snprintf(why, sizeof(why), "rank %d has published no '%.32s'%s", want, key,
             r->joined ? "" : " (it never joined the job)");
    send_text(job, ci, TN_WIRE_ERROR, why);
}

static void on_abort(tr_job_t *job, int rank, const tn_wire_rx_t *rx)
{
    int len = (int)(rx->h.len > 4000 ? 4000 : rx->h.len);
    const char *msg = len ? (const char *)rx->payload : "(no message)";
    /* An exit status has 8 bits: a code they would turn into 0 becomes 1. */
    int code = rx->h.arg & 0xff;
    if (code == 0 && rx->h.arg != 0)
        code = 1;
    /* Held back as an error exit is: a rank that aborts because a peer
     * vanished (a transfer to it failed) often tells before the launcher
     * reaps the peer, killed by a signal or gone on its own (an exit
     * without tern_finalize), which is then the cause named (rank_exited). */
    int held = job->fail_at > 0;
    job->ranks[rank].aborted = 1;
    tr_job_fail_later(job, code,
                      "rank %d (pid %d) aborted the job with code %d: "
                      "%.*s",
                      rank, (int)job->ranks[rank].pid, rx->h.arg,
                      len ? len : (int)strlen(msg), msg);
    if (!held && job->fail_at > 0)
        job->fail_abort = 1;
}

/* A joined rank's second connection, for lookups only (the first may be
 * busy in a collective while a thread of the rank resolves a peer). */
static void on_hello_lookup(tr_job_t *job, int ci, const tn_wire_rx_t *rx)
{
    tr_conn_t *c = &job->conns[ci];
    tn_wire_hello_t m;
    if (tn_wire_hello_unpack(rx->payload, rx->h.len, &m) != TERN_OK ||
        m.version != TN_WIRE_VERSION || strcmp(m.jobid, job->jobid) != 0 ||
        m.size != job->n || m.rank < 0 || m.rank >= job->n ||
        !job->ranks[m.rank].joined) {
        refuse(job, ci, "a lookup connection must come from a joined rank of this job");
        return;
    }
    c->rank = m.rank;
    c->lookup = 1;
    c->rx.max = TN_WIRE_KEY_BYTES;
    send_frame(job, ci, TN_WIRE_WELCOME, job->n, NULL);
}

static void dispatch(tr_job_t *job, int ci, tn_wire_rx_t *rx)
{
    tr_conn_t *c = &job->conns[ci];
    if (c->rank < 0) {
        if (rx->h.type == TN_WIRE_HELLO)
            on_hello(job, ci, rx);
        else if (rx->h.type == TN_WIRE_HELLO_LOOKUP)
            on_hello_lookup(job, ci, rx);
        else
            refuse(job, ci, "expected hello first");
        return;
    }
    if (c->lookup) {
        if (rx->h.type == TN_WIRE_GET)
            on_get(job, ci, c->rank, rx);
        else
            tr_job_fail(job, 1,
                        "rank %d sent message type %u on its lookup connection "
                        "(protocol error)",
                        c->rank, rx->h.type);
        return;
    }
    int rank = c->rank;
    tr_rank_t *r = &job->ranks[rank];
    switch (rx->h.type) {
    case TN_WIRE_GATHER: on_gather(job, rank, rx); break;
    case TN_WIRE_INIT_DONE:
        if (!r->init_done) {
            r->init_done = 1;
            job->ninit_done++;
            if (job->verbose >= 1 && job->ninit_done == job->n)
                fprintf(stderr,
                        "ternrun: all %d ranks finished start-up "
                        "%.1f ms after launch\n",
                        job->n, (tn_time_s() - job->t_start) * 1e3);
        }
        break;
    case TN_WIRE_ABORT: on_abort(job, rank, rx); break;
    case TN_WIRE_PUT: on_put(job, rank, rx); break;
    case TN_WIRE_GET: on_get(job, ci, rank, rx); break;
    case TN_WIRE_LEAVING:
        r->leaving = 1;
        r->leave_errors = rx->h.arg;
        if (rx->h.len == 4) {
            const unsigned char *p = rx->payload;
            int32_t st = (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
                                   (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
            if (st > 0 && st <= 255) /* it waits for the job's end */
                tr_job_error_exit(job, rank, st);
        }
        break;
    case TN_WIRE_FINI:
        r->fini = 1;
        send_frame(job, ci, TN_WIRE_FINI_ACK, 0, NULL);
        tr_job_check_stuck(job);
        break;
    default:
        tr_job_fail(job, 1,
                    "rank %d (pid %d) sent a malformed message (type "
                    "%u): protocol mismatch between the program's libtern "
                    "and this ternrun?",
                    rank, (int)r->pid, rx->h.type);
    }
}

void tr_proto_read(tr_job_t *job, int ci)
{
    for (;;) {
        tr_conn_t *c = &job->conns[ci];
        if (c->fd < 0)
            return;
        int rc = tn_wire_rx_step(c->fd, &c->rx);
        if (rc == 0)
            return;
        if (rc < 0) {
            if (rc == TERN_ERR_BOOT && c->rank >= 0)
                tr_job_fail(job, 1,
                            "rank %d sent a malformed frame "
                            "(protocol mismatch?)",
                            c->rank);
            tr_proto_close(job, ci);
            return;
        }
        /* Take the frame; the connection's reader starts afresh (its
         * limit kept: on_hello lifts it). */
        tn_wire_rx_t rx = c->rx;
        memset(&c->rx, 0, sizeof(c->rx));
        c->rx.max = rx.max;
        dispatch(job, ci, &rx);
        tn_wire_rx_reset(&rx);
    }
}

void tr_proto_write(tr_job_t *job, int ci)
{
    tr_conn_t *c = &job->conns[ci];
    if (c->fd < 0)
        return;
    int rc = tn_wire_txq_flush(c->fd, &c->tx);
    if (rc < 0 || (rc == 1 && c->closing))
        tr_proto_close(job, ci);
}

void tr_proto_drain_rank(tr_job_t *job, int rank)
{
    int ci = job->ranks[rank].conn;
    if (ci >= 0)
        tr_proto_read(job, ci);
}
