/* Framing, endpoints and the blocking and non-blocking transfer loops of
 * the ternrun wire protocol (see wire.h). */
#include "boot/wire.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <tern/status.h>

#include "base/time.h"

/* ---- packing ------------------------------------------------------------ */

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)p[i] << (8 * i);
    return v;
}

void tn_wire_hdr_pack(const tn_wire_hdr_t *h, unsigned char out[TN_WIRE_HDR_BYTES])
{
    put32(out, h->type);
    put32(out + 4, (uint32_t)h->arg);
    put32(out + 8, (uint32_t)h->len);
    put32(out + 12, (uint32_t)(h->len >> 32));
}

void tn_wire_hdr_unpack(const unsigned char in[TN_WIRE_HDR_BYTES], tn_wire_hdr_t *h)
{
    h->type = get32(in);
    h->arg = (int32_t)get32(in + 4);
    h->len = (uint64_t)get32(in + 8) | (uint64_t)get32(in + 12) << 32;
}

void tn_wire_hello_pack(const tn_wire_hello_t *m, unsigned char out[TN_WIRE_HELLO_BYTES])
{
    put32(out, m->magic);
    put32(out + 4, m->version);
    put32(out + 8, (uint32_t)m->rank);
    put32(out + 12, (uint32_t)m->size);
    put32(out + 16, (uint32_t)m->pid);
    size_t n = strnlen(m->jobid, TN_WIRE_JOBID_MAX - 1);
    memset(out + 20, 0, TN_WIRE_JOBID_MAX);
    memcpy(out + 20, m->jobid, n);
}

int tn_wire_hello_unpack(const void *in, size_t len, tn_wire_hello_t *m)
{
    const unsigned char *p = in;
    if (len != TN_WIRE_HELLO_BYTES || get32(p) != TN_WIRE_MAGIC)
        return TERN_ERR_BOOT;
    m->magic = get32(p);
    m->version = get32(p + 4);
    m->rank = (int32_t)get32(p + 8);
    m->size = (int32_t)get32(p + 12);
    m->pid = (int32_t)get32(p + 16);
    memcpy(m->jobid, p + 20, TN_WIRE_JOBID_MAX);
    m->jobid[TN_WIRE_JOBID_MAX - 1] = '\0';
    return TERN_OK;
}

/* ---- endpoints ------------------------------------------------------------ */

/* Abstract-namespace address: sun_path starts with NUL, the name is not
 * NUL-terminated and has no filesystem entry, so nothing is left behind
 * whatever way the launcher ends. */
static int abstract_addr(const char *name, struct sockaddr_un *sa, socklen_t *len)
{
    size_t n = strlen(name);
    if (n == 0 || n + 1 > sizeof(sa->sun_path))
        return TERN_ERR_INVALID;
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    memcpy(sa->sun_path + 1, name, n);
    *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
    return TERN_OK;
}

/* Filesystem address: reachable from other network namespaces (abstract
 * ones are per namespace), at the price of a file that the launcher
 * removes when the job ends (tn_wire_unlisten). */
static int path_addr(const char *path, struct sockaddr_un *sa, socklen_t *len)
{
    size_t n = strlen(path);
    if (n == 0 || n + 1 > sizeof(sa->sun_path))
        return TERN_ERR_INVALID;
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    memcpy(sa->sun_path, path, n + 1);
    *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
    return TERN_OK;
}

int tn_wire_listen(const char *name, char *addr, size_t addrlen, int *fd_out)
{
    char full[108];
    struct sockaddr_un sa;
    socklen_t salen;
    const char *dir = getenv("TERN_BOOT_SOCKET_DIR");
    int n = dir && *dir ? snprintf(full, sizeof(full), "%s/tern-%s.sock", dir, name)
                        : snprintf(full, sizeof(full), "tern-%s", name);
    if (n < 0 || (size_t)n >= sizeof(full) ||
        (dir && *dir ? path_addr(full, &sa, &salen) : abstract_addr(full, &sa, &salen)) !=
            TERN_OK) {
        errno = ENAMETOOLONG;
        return TERN_ERR_SYS;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return TERN_ERR_SYS;
    if (bind(fd, (struct sockaddr *)&sa, salen) != 0 || listen(fd, SOMAXCONN) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return TERN_ERR_SYS;
    }
    snprintf(addr, addrlen, dir && *dir ? "unix:%s" : "unix:@%s", full);
    *fd_out = fd;
    return TERN_OK;
}

void tn_wire_unlisten(const char *addr)
{
    if (strncmp(addr, "unix:/", 6) == 0)
        unlink(addr + 5);
}

int tn_wire_accept(int lfd, int *fd_out)
{
    int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
                       errno == ECONNABORTED
                   ? TERN_ERR_AGAIN
                   : TERN_ERR_SYS;
    *fd_out = fd;
    return TERN_OK;
}

int tn_wire_connect(const char *addr, int *fd_out)
{
    struct sockaddr_un sa;
    socklen_t salen;
    if (strncmp(addr, "unix:@", 6) == 0) {
        if (abstract_addr(addr + 6, &sa, &salen) != TERN_OK)
            return TERN_ERR_INVALID;
    } else if (strncmp(addr, "unix:/", 6) == 0) {
        if (path_addr(addr + 5, &sa, &salen) != TERN_OK)
            return TERN_ERR_INVALID;
    } else {
        return TERN_ERR_INVALID;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return TERN_ERR_SYS;
    int rc;
    do
        rc = connect(fd, (struct sockaddr *)&sa, salen);
    while (rc != 0 && errno == EINTR);
    if (rc != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return TERN_ERR_SYS;
    }
    *fd_out = fd;
    return TERN_OK;
}

int tn_wire_peer_cred(int fd, uid_t *uid, pid_t *pid)
{
    struct ucred cr;
    socklen_t len = sizeof(cr);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0)
        return TERN_ERR_UNSUPPORTED;
    *uid = cr.uid;
    *pid = cr.pid;
    return TERN_OK;
}

/* ---- blocking side -------------------------------------------------------- */

static int errno_status(void)
{
    return errno == EPIPE || errno == ECONNRESET ? TERN_ERR_PEER : TERN_ERR_SYS;
}

int tn_wire_send(int fd, uint32_t type, int32_t arg, const void *p, size_t len)
{
    unsigned char hb[TN_WIRE_HDR_BYTES];
    tn_wire_hdr_t h = {.type = type, .arg = arg, .len = len};
    tn_wire_hdr_pack(&h, hb);
    struct iovec iov[2] = {{hb, sizeof(hb)}, {(void *)p, len}};
    struct msghdr mh = {.msg_iov = iov, .msg_iovlen = len ? 2 : 1};
    size_t left = sizeof(hb) + len;
    while (left > 0) {
        /* MSG_NOSIGNAL: a launcher that went away is an error status, not
         * a SIGPIPE that kills the rank without a word. */
        ssize_t w = sendmsg(fd, &mh, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno_status();
        }
        left -= (size_t)w;
        while (w > 0 && mh.msg_iovlen > 0) {
            size_t step =
                (size_t)w < mh.msg_iov->iov_len ? (size_t)w : mh.msg_iov->iov_len;
            mh.msg_iov->iov_base = (char *)mh.msg_iov->iov_base + step;
            mh.msg_iov->iov_len -= step;
            w -= (ssize_t)step;
            if (mh.msg_iov->iov_len == 0) {
                mh.msg_iov++;
                mh.msg_iovlen--;
            }
        }
    }
    return TERN_OK;
}

/* Blocks in poll() until fd is readable or idle_s pass: the rank sleeps
 * in the kernel, it does not spin. */
/* hook, when not NULL, is driven at least every hook_ms while waiting. */
static int wait_readable(int fd, double idle_s, int (*hook)(void), int hook_ms)
{
    double deadline = idle_s > 0 ? tn_time_s() + idle_s : 0;
    for (;;) {
        int ms = -1;
        if (deadline > 0) {
            double left = deadline - tn_time_s();
            if (left <= 0)
                return TERN_ERR_TIMEOUT;
            ms = tn_poll_ms(left);
        }
        if (hook) {
            hook();
            if (ms < 0 || ms > hook_ms)
                ms = hook_ms;
        }
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int n = poll(&pfd, 1, ms);
        if (n > 0)
            return TERN_OK;
        if (n < 0 && errno != EINTR)
            return TERN_ERR_SYS;
    }
}

static int read_full(int fd, void *buf, size_t len, double idle_s, int (*hook)(void),
                     int hook_ms)
{
    size_t got = 0;
    while (got < len) {
        int rc = wait_readable(fd, idle_s, hook, hook_ms);
        if (rc != TERN_OK)
            return rc;
        ssize_t r = read(fd, (char *)buf + got, len - got);
        if (r == 0)
            return TERN_ERR_PEER;
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            return errno_status();
        }
        got += (size_t)r;
    }
    return TERN_OK;
}

int tn_wire_recv_driving(int fd, double idle_s, int (*hook)(void), int hook_ms,
                         tn_wire_hdr_t *h, void **payload)
{
    unsigned char hb[TN_WIRE_HDR_BYTES];
    int rc = read_full(fd, hb, sizeof(hb), idle_s, hook, hook_ms);
    if (rc != TERN_OK)
        return rc;
    tn_wire_hdr_t hh;
    tn_wire_hdr_unpack(hb, &hh);
    if (hh.len > TN_WIRE_MAX_PAYLOAD)
        return TERN_ERR_BOOT;
    void *p = NULL;
    if (hh.len) {
        p = malloc(hh.len);
        if (!p)
            return TERN_ERR_NOMEM;
        rc = read_full(fd, p, hh.len, idle_s, hook, hook_ms);
        if (rc != TERN_OK) {
            free(p);
            return rc;
        }
    }
    *h = hh;
    *payload = p;
    return TERN_OK;
}

int tn_wire_recv(int fd, double idle_s, tn_wire_hdr_t *h, void **payload)
{
    return tn_wire_recv_driving(fd, idle_s, NULL, 0, h, payload);
}

/* ---- non-blocking side ------------------------------------------------- */

void tn_wire_rx_reset(tn_wire_rx_t *rx)
{
    size_t max = rx->max;
    free(rx->payload);
    memset(rx, 0, sizeof(*rx));
    rx->max = max;
}

int tn_wire_rx_step(int fd, tn_wire_rx_t *rx)
{
    for (;;) {
        size_t want;
        unsigned char *dst;
        if (rx->got < TN_WIRE_HDR_BYTES) {
            want = TN_WIRE_HDR_BYTES - rx->got;
            dst = rx->hb + rx->got;
        } else {
            size_t have = rx->got - TN_WIRE_HDR_BYTES;
            if (have == rx->h.len)
                return 1;
            want = (size_t)rx->h.len - have;
            dst = rx->payload + have;
        }
        ssize_t r = recv(fd, dst, want, MSG_DONTWAIT);
        if (r == 0)
            return TERN_ERR_PEER;
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            return errno_status();
        }
        rx->got += (size_t)r;
        if (rx->got == TN_WIRE_HDR_BYTES) {
            tn_wire_hdr_unpack(rx->hb, &rx->h);
            if (rx->h.len > (rx->max ? rx->max : TN_WIRE_MAX_PAYLOAD))
                return TERN_ERR_BOOT;
            if (rx->h.len) {
                rx->payload = malloc(rx->h.len);
                if (!rx->payload)
                    return TERN_ERR_NOMEM;
            }
        }
    }
}

tn_wire_blob_t *tn_wire_blob_create(size_t len)
{
    tn_wire_blob_t *b = malloc(sizeof(*b) + len);
    if (b) {
        b->refs = 1;
        b->len = len;
    }
    return b;
}

void tn_wire_blob_release(tn_wire_blob_t *b)
{
    if (b && --b->refs == 0)
        free(b);
}

int tn_wire_txq_push(tn_wire_txq_t *q, uint32_t type, int32_t arg, tn_wire_blob_t *blob)
{
    tn_wire_txitem_t *it = calloc(1, sizeof(*it));
    if (!it)
        return TERN_ERR_NOMEM;
    tn_wire_hdr_t h = {.type = type, .arg = arg, .len = blob ? blob->len : 0};
    tn_wire_hdr_pack(&h, it->hb);
    if (blob) {
        blob->refs++;
        it->blob = blob;
    }
    if (q->tail)
        q->tail->next = it;
    else
        q->head = it;
    q->tail = it;
    return TERN_OK;
}

static void txq_pop(tn_wire_txq_t *q)
{
    tn_wire_txitem_t *it = q->head;
    q->head = it->next;
    if (!q->head)
        q->tail = NULL;
    tn_wire_blob_release(it->blob);
    free(it);
}

int tn_wire_txq_flush(int fd, tn_wire_txq_t *q)
{
    while (q->head) {
        tn_wire_txitem_t *it = q->head;
        size_t plen = it->blob ? it->blob->len : 0;
        struct iovec iov[2];
        int n = 0;
        if (it->off < TN_WIRE_HDR_BYTES) {
            iov[n].iov_base = it->hb + it->off;
            iov[n++].iov_len = TN_WIRE_HDR_BYTES - it->off;
            if (plen) {
                iov[n].iov_base = it->blob->data;
                iov[n++].iov_len = plen;
            }
        } else {
            size_t done = it->off - TN_WIRE_HDR_BYTES;
            iov[n].iov_base = it->blob->data + done;
            iov[n++].iov_len = plen - done;
        }
        struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        ssize_t w = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            return errno_status();
        }
        it->off += (size_t)w;
        if (it->off == TN_WIRE_HDR_BYTES + plen)
            txq_pop(q);
    }
    return 1;
}

void tn_wire_txq_clear(tn_wire_txq_t *q)
{
    while (q->head)
        txq_pop(q);
}
