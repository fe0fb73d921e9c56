/* ternrun's event loop: one poll() over the signalfd, the listening
 * socket, every rank's connection and output pipes, and the exec-failure
 * pipe; timers (start-up deadline, SIGKILL after SIGTERM) are its timeout.
 * ternrun sleeps in poll() whenever nothing happens. */
#include "ternrun.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <tern/status.h>

#include "base/time.h"

enum { SRC_SIGNAL, SRC_EXEC, SRC_LISTEN, SRC_CONN, SRC_OUT };

typedef struct tr_src {
    int kind;
    int index; /* connection, or rank * 2 + stream */
} tr_src_t;

typedef struct tr_pollset {
    struct pollfd *pfd;
    tr_src_t *src;
    int n, cap;
} tr_pollset_t;

static int add(tr_pollset_t *ps, int fd, short events, int kind, int index)
{
    if (ps->n == ps->cap) {
        int cap = ps->cap ? ps->cap * 2 : 64;
        struct pollfd *p = realloc(ps->pfd, (size_t)cap * sizeof(*p));
        if (!p)
            return -1;
        ps->pfd = p;
        tr_src_t *s = realloc(ps->src, (size_t)cap * sizeof(*s));
        if (!s)
            return -1;
        ps->src = s;
        ps->cap = cap;
    }
    ps->pfd[ps->n] = (struct pollfd){.fd = fd, .events = events};
    ps->src[ps->n++] = (tr_src_t){kind, index};
    return 0;
}

static int build(tr_job_t *job, tr_pollset_t *ps)
{
    int rc = 0;
    ps->n = 0;
    rc |= add(ps, job->sfd, POLLIN, SRC_SIGNAL, 0);
    if (job->errfd >= 0)
        rc |= add(ps, job->errfd, POLLIN, SRC_EXEC, 0);
    if (!job->ending)
        rc |= add(ps, job->lfd, POLLIN, SRC_LISTEN, 0);
    for (int i = 0; i < job->nconns; i++) {
        const tr_conn_t *c = &job->conns[i];
        if (c->fd >= 0)
            rc |=
                add(ps, c->fd, (short)(POLLIN | (c->tx.head ? POLLOUT : 0)), SRC_CONN, i);
    }
    for (int i = 0; i < job->n; i++)
        for (int s = 0; s < 2; s++)
            if (job->ranks[i].out[s].fd >= 0)
                rc |= add(ps, job->ranks[i].out[s].fd, POLLIN, SRC_OUT, i * 2 + s);
    return rc;
}

static void on_signals(tr_job_t *job)
{
    struct signalfd_siginfo si;
    int chld = 0;
    while (read(job->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        if (si.ssi_signo == SIGCHLD)
            chld = 1;
        else
            tr_job_signal(job, (int)si.ssi_signo);
    }
    if (chld) /* one SIGCHLD may stand for several children */
        tr_job_reap(job);
}

/* One round of events, in an order that keeps reports right: a rank's last
 * messages and exec failures are taken before its exit is judged. */
static void dispatch(tr_job_t *job, const tr_pollset_t *ps)
{
    int sig_ready = 0, listen_ready = 0;
    for (int k = 0; k < ps->n; k++) {
        short re = ps->pfd[k].revents;
        if (!re)
            continue;
        const tr_src_t *s = &ps->src[k];
        switch (s->kind) {
        case SRC_SIGNAL: sig_ready = 1; break;
        case SRC_LISTEN: listen_ready = 1; break;
        case SRC_EXEC: tr_job_exec_failures(job); break;
        case SRC_CONN:
            if (re & POLLOUT)
                tr_proto_write(job, s->index);
            if (re & (POLLIN | POLLHUP | POLLERR))
                tr_proto_read(job, s->index);
            break;
        case SRC_OUT: {
            tr_rank_t *r = &job->ranks[s->index / 2];
            tr_out_read(job, s->index / 2, &r->out[s->index % 2]);
            break;
        }
        }
    }
    if (sig_ready)
        on_signals(job);
    if (listen_ready)
        tr_proto_accept(job);
}

static int start(tr_job_t *job)
{
    sigset_t set;
    tr_job_signals(&set); /* tr_spawn_holder has blocked these already */
    job->sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (job->sfd < 0) {
        fprintf(stderr, "ternrun: signalfd: %s\n", strerror(errno));
        return -1;
    }
    if (tn_wire_listen(job->jobid, job->addr, sizeof(job->addr), &job->lfd) != TERN_OK) {
        const char *dir = getenv("TERN_BOOT_SOCKET_DIR");
        if (dir && *dir)
            fprintf(stderr,
                    "ternrun: cannot create the bootstrap socket in "
                    "TERN_BOOT_SOCKET_DIR=%s: %s (it must name an existing directory "
                    "this user can write)\n",
                    dir, strerror(errno));
        else
            fprintf(stderr, "ternrun: cannot create the bootstrap socket: %s\n",
                    strerror(errno));
        return -1;
    }
    return 0;
}

int tr_loop_run(tr_job_t *job)
{
    if (start(job) != 0) {
        tr_job_finish(job);
        return 1;
    }
    if (tr_spawn_ranks(job) != 0)
        tr_job_end(job, 1, SIGTERM);
    tr_pollset_t ps = {0};
    while (job->nexited < job->n) {
        if (build(job, &ps) != 0) {
            fprintf(stderr, "ternrun: out of memory\n");
            tr_job_end(job, 1, SIGKILL);
            job->killed = 1;
            break;
        }
        double next = tr_job_next_timer(job);
        int ms = -1;
        if (next > 0) {
            ms = tn_poll_ms(next - tn_time_s());
        }
        int n = poll(ps.pfd, (nfds_t)ps.n, ms);
        if (n < 0 && errno != EINTR) {
            fprintf(stderr, "ternrun: poll: %s\n", strerror(errno));
            tr_job_end(job, 1, SIGKILL);
            job->killed = 1;
            break;
        }
        if (n > 0)
            dispatch(job, &ps);
        tr_job_timers(job, tn_time_s());
    }
    /* Leaving early (out of memory, poll failure): the ranks were killed;
     * collect them so that none is left a zombie or orphan. */
    while (job->nexited < job->n) {
        tr_job_reap(job);
        if (job->nexited < job->n)
            usleep(10000);
    }
    free(ps.pfd);
    free(ps.src);
    tr_job_finish(job);
    return job->exit_code;
}
