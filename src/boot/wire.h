/* The wire protocol between ternrun and its ranks: length-prefixed frames
 * over a byte stream. Only tn_wire_listen/tn_wire_connect know the address
 * scheme ("unix:@name", a Linux abstract socket); everything else works on
 * any stream fd, so a "tcp:host:port" scheme is a change to those two. */
#ifndef TN_WIRE_H
#define TN_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TN_WIRE_VERSION   4 /* 2: PUT, GET (key-value store); 3: LEAVING; 4: its status */
#define TN_WIRE_MAGIC     0x4e524554u /* "TERN" little-endian, opens HELLO */
#define TN_WIRE_HDR_BYTES 16
/* Largest payload either side accepts: a garbage length must not make the
 * launcher allocate gigabytes. Bootstrap blobs are a few hundred bytes. */
#define TN_WIRE_MAX_PAYLOAD ((uint64_t)1 << 30)
#define TN_WIRE_JOBID_MAX   48

/* Message types. Rank -> launcher: HELLO, GATHER, INIT_DONE, ABORT, FINI,
 * PUT, GET, HELLO_LOOKUP, LEAVING. Launcher -> rank: WELCOME, GATHER_OUT,
 * FINI_ACK, ERROR, GET_OUT. Every rank request except INIT_DONE, ABORT,
 * PUT and LEAVING has exactly one reply, so a rank never has more than one
 * request outstanding. */
enum {
    TN_WIRE_HELLO = 1,    /* arg: rank; payload: tn_wire_hello_t, packed */
    TN_WIRE_WELCOME,      /* arg: job size; no payload */
    TN_WIRE_GATHER,       /* payload: this rank's contribution (may be empty) */
    TN_WIRE_GATHER_OUT,   /* payload: all contributions, rank order */
    TN_WIRE_INIT_DONE,    /* no payload, no reply */
    TN_WIRE_ABORT,        /* arg: exit code; payload: message text */
    TN_WIRE_FINI,         /* no payload */
    TN_WIRE_FINI_ACK,     /* no payload: the launcher recorded the fini */
    TN_WIRE_ERROR,        /* payload: text; the request was refused */
    TN_WIRE_PUT,          /* payload: key (TN_WIRE_KEY_BYTES, NUL-padded), value */
    TN_WIRE_GET,          /* arg: the rank asked about; payload: key */
    TN_WIRE_GET_OUT,      /* payload: that rank's value */
    TN_WIRE_HELLO_LOOKUP, /* as HELLO, on a joined rank's second connection,
                             which carries only GET (answered: WELCOME) */
    TN_WIRE_LEAVING,      /* arg: errors this rank logged; payload: its exit
                             status, int32 little-endian (-1: unknown); no
                             reply: it exits without fini (boot.h leaving) */
};
/* Keys of the key-value store: fixed width on the wire. */
#define TN_WIRE_KEY_BYTES 32

/* Frame header, packed little-endian on the wire (tn_wire_hdr_pack), so
 * that both ends agree whatever carries the bytes. */
typedef struct tn_wire_hdr {
    uint32_t type;
    int32_t arg;
    uint64_t len; /* payload bytes that follow */
} tn_wire_hdr_t;

typedef struct tn_wire_hello {
    uint32_t magic;   /* TN_WIRE_MAGIC */
    uint32_t version; /* TN_WIRE_VERSION */
    int32_t rank;
    int32_t size;
    int32_t pid;
    char jobid[TN_WIRE_JOBID_MAX]; /* NUL-terminated */
} tn_wire_hello_t;
#define TN_WIRE_HELLO_BYTES (20 + TN_WIRE_JOBID_MAX)

void tn_wire_hdr_pack(const tn_wire_hdr_t *h, unsigned char out[TN_WIRE_HDR_BYTES]);
void tn_wire_hdr_unpack(const unsigned char in[TN_WIRE_HDR_BYTES], tn_wire_hdr_t *h);
void tn_wire_hello_pack(const tn_wire_hello_t *m, unsigned char out[TN_WIRE_HELLO_BYTES]);
/* TERN_OK, or TERN_ERR_BOOT when len or magic do not match. */
int tn_wire_hello_unpack(const void *in, size_t len, tn_wire_hello_t *m);

/* ---- endpoints: the only place that knows the address scheme ---------- */

/* Listen on a fresh endpoint named after name (non-blocking, close-on-exec
 * fd). Writes the address ranks connect to into addr: "unix:@tern-<name>"
 * (abstract, no file), or "unix:<dir>/tern-<name>.sock" when
 * TERN_BOOT_SOCKET_DIR names a directory (ranks in other network
 * namespaces). Returns TERN_OK or TERN_ERR_SYS with errno set. */
int tn_wire_listen(const char *name, char *addr, size_t addrlen, int *fd_out);
/* Remove what listening left in the file system (nothing for abstract
 * addresses). */
void tn_wire_unlisten(const char *addr);
/* Accept one connection (non-blocking, close-on-exec fd). TERN_OK,
 * TERN_ERR_AGAIN when none is pending, TERN_ERR_SYS with errno set. */
int tn_wire_accept(int lfd, int *fd_out);
/* Connect to addr (blocking, close-on-exec fd). TERN_OK; TERN_ERR_INVALID
 * for an address this build cannot parse; TERN_ERR_SYS with errno set. */
int tn_wire_connect(const char *addr, int *fd_out);
/* Credentials of the process at the other end (unix sockets); TERN_OK or
 * TERN_ERR_UNSUPPORTED. */
int tn_wire_peer_cred(int fd, uid_t *uid, pid_t *pid);

/* ---- blocking side (ranks) --------------------------------------------- */

/* Send one frame completely. TERN_OK, TERN_ERR_PEER (the other end is
 * gone), TERN_ERR_SYS (errno set). */
int tn_wire_send(int fd, uint32_t type, int32_t arg, const void *p, size_t len);
/* Receive one frame, blocking in poll()/read(). idle_s bounds how long
 * nothing may arrive (<= 0: no bound): a large frame that keeps arriving
 * is never cut off. *payload is malloc'ed (NULL when empty) and owned by
 * the caller. TERN_OK, TERN_ERR_TIMEOUT, TERN_ERR_PEER (end of stream),
 * TERN_ERR_BOOT (malformed frame), TERN_ERR_NOMEM, TERN_ERR_SYS. */
int tn_wire_recv(int fd, double idle_s, tn_wire_hdr_t *h, void **payload);
/* tn_wire_recv that drives hook (when not NULL) at least every hook_ms
 * while it waits: a rank in a collective exchange with the launcher may
 * hold messages that its peers wait for before they join the exchange. */
int tn_wire_recv_driving(int fd, double idle_s, int (*hook)(void), int hook_ms,
                         tn_wire_hdr_t *h, void **payload);

/* ---- non-blocking side (the launcher's event loop) --------------------- */

/* Incremental reader of one connection. */
typedef struct tn_wire_rx {
    unsigned char hb[TN_WIRE_HDR_BYTES];
    size_t got; /* bytes of header + payload read so far */
    size_t max; /* largest payload accepted; 0: TN_WIRE_MAX_PAYLOAD */
    tn_wire_hdr_t h;
    unsigned char *payload;
} tn_wire_rx_t;

/* Reads what is available. Returns 1 when a frame is complete (rx->h and
 * rx->payload; take the payload, then tn_wire_rx_reset), 0 when more bytes
 * are needed, TERN_ERR_PEER at end of stream, TERN_ERR_BOOT for a
 * malformed frame, TERN_ERR_NOMEM, TERN_ERR_SYS. */
int tn_wire_rx_step(int fd, tn_wire_rx_t *rx);
/* Frees the payload and readies rx for the next frame (keeps max). */
void tn_wire_rx_reset(tn_wire_rx_t *rx);

/* A payload shared by several queued frames (the allgather result goes to
 * every rank without a copy per rank). */
typedef struct tn_wire_blob {
    size_t refs;
    size_t len;
    unsigned char data[];
} tn_wire_blob_t;

tn_wire_blob_t *tn_wire_blob_create(size_t len);
void tn_wire_blob_release(tn_wire_blob_t *b);

typedef struct tn_wire_txitem {
    struct tn_wire_txitem *next;
    unsigned char hb[TN_WIRE_HDR_BYTES];
    tn_wire_blob_t *blob; /* may be NULL */
    size_t off;           /* bytes of header + payload already sent */
} tn_wire_txitem_t;

/* Outgoing frames of one connection, sent as the socket accepts them. */
typedef struct tn_wire_txq {
    tn_wire_txitem_t *head, *tail;
} tn_wire_txq_t;

/* Queue a frame; blob (may be NULL) gains a reference. TERN_OK or
 * TERN_ERR_NOMEM. */
int tn_wire_txq_push(tn_wire_txq_t *q, uint32_t type, int32_t arg, tn_wire_blob_t *blob);
/* Send what the socket takes now. 1: queue empty; 0: bytes remain (wait for
 * POLLOUT); TERN_ERR_PEER or TERN_ERR_SYS on failure. */
int tn_wire_txq_flush(int fd, tn_wire_txq_t *q);
void tn_wire_txq_clear(tn_wire_txq_t *q);

#endif
