/* --tag-output: each rank's stdout and stderr come through a pipe and
 * leave ternrun one whole line per write(), prefixed with "[rank] ", so
 * that lines of different ranks never mix. */
#include "ternrun.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/time.h"

int tr_out_open(tr_out_t *o, int dest, int *child_fd)
{
    int p[2];
    o->buf = malloc(TR_LINE_MAX);
    if (!o->buf || pipe2(p, O_CLOEXEC) != 0) {
        free(o->buf);
        o->buf = NULL;
        return -1;
    }
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    o->fd = p[0];
    o->dest = dest;
    o->len = 0;
    *child_fd = p[1];
    return 0;
}

static void emit(int rank, int dest, const char *s, size_t n)
{
    char prefix[16];
    int plen = snprintf(prefix, sizeof(prefix), "[%d] ", rank);
    struct iovec iov[3] = {{prefix, (size_t)plen}, {(void *)s, n}, {"\n", 1}};
    struct iovec *v = iov;
    int cnt = 3;
    while (cnt > 0) {
        ssize_t w = writev(dest, v, cnt);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return; /* reader gone (EPIPE): the output is dropped */
        }
        while (cnt > 0 && (size_t)w >= v->iov_len) {
            w -= (ssize_t)v->iov_len;
            v++;
            cnt--;
        }
        if (cnt > 0) {
            v->iov_base = (char *)v->iov_base + w;
            v->iov_len -= (size_t)w;
        }
    }
}

static void out_close(int rank, tr_out_t *o)
{
    if (o->len) /* a last line without its newline */
        emit(rank, o->dest, o->buf, o->len);
    close(o->fd);
    o->fd = -1;
    free(o->buf);
    o->buf = NULL;
    o->len = 0;
}

void tr_out_read(const tr_job_t *job, int rank, tr_out_t *o)
{
    /* A bounded number of reads, so that one chatty rank does not keep the
     * event loop from everything else. */
    for (int rounds = 0; rounds < 16 && o->fd >= 0; rounds++) {
        ssize_t r = read(o->fd, o->buf + o->len, TR_LINE_MAX - o->len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (r <= 0) {
            out_close(rank, o);
            return;
        }
        o->len += (size_t)r;
        size_t start = 0;
        char *nl;
        while ((nl = memchr(o->buf + start, '\n', o->len - start)) != NULL) {
            emit(rank, o->dest, o->buf + start, (size_t)(nl - o->buf) - start);
            start = (size_t)(nl - o->buf) + 1;
        }
        if (start == 0 && o->len == TR_LINE_MAX) { /* split a giant line */
            emit(rank, o->dest, o->buf, o->len);
            start = o->len;
        }
        memmove(o->buf, o->buf + start, o->len - start);
        o->len -= start;
    }
}

/* After the last rank ended: read what is left until every pipe is at
 * end of file, or until the deadline (a process outside the job's group
 * may still hold a pipe open). */
void tr_out_drain_all(tr_job_t *job, double until)
{
    if (!job->tag_output)
        return;
    struct pollfd *pfd = calloc((size_t)job->n * 2, sizeof(*pfd));
    if (!pfd)
        return;
    for (;;) {
        int n = 0;
        for (int i = 0; i < job->n; i++)
            for (int s = 0; s < 2; s++)
                if (job->ranks[i].out[s].fd >= 0)
                    pfd[n++] =
                        (struct pollfd){.fd = job->ranks[i].out[s].fd, .events = POLLIN};
        double left = until - tn_time_s();
        if (n == 0 || left <= 0)
            break;
        if (poll(pfd, (nfds_t)n, tn_poll_ms(left)) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < job->n; i++)
            for (int s = 0; s < 2; s++)
                if (job->ranks[i].out[s].fd >= 0)
                    tr_out_read(job, i, &job->ranks[i].out[s]);
    }
    for (int i = 0; i < job->n; i++)
        for (int s = 0; s < 2; s++)
            if (job->ranks[i].out[s].fd >= 0)
                out_close(i, &job->ranks[i].out[s]);
    free(pfd);
}
