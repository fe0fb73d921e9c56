/* ternrun: starts the ranks of a job on this node, serves their bootstrap
 * (wire.h) and ends the whole job when one of them fails. State shared by
 * the launcher's files; docs/design/launcher.md explains the choices. */
#ifndef TERNRUN_H
#define TERNRUN_H

#include <sched.h> /* cpu_set_t (_GNU_SOURCE is set for the whole build) */
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/topo.h"
#include "boot/wire.h"
#include "place.h"

#define TR_MAX_RANKS    4096
#define TR_KILL_GRACE_S 0.5 /* SIGTERM, then SIGKILL this much later */
/* An error exit or an abort waits this long for a death by signal that
 * caused it; a death by signal waits this long for the other deaths by
 * signal, all named (a survivor's crash must not hide the first). */
#define TR_ERROR_GRACE_S 0.2
#define TR_EOF_GRACE_S \
    0.25                  /* a closed connection waits this long for the
                                exit status that explains it */
#define TR_DRAIN_S  1.0   /* output still read after the last rank ended */
#define TR_LINE_MAX 65536 /* longer output lines are split */

/* Bindings and mappings are base/topo.h's TN_BIND_* and TN_MAP_*. */

/* One piped output stream of a rank (only with --tag-output). */
typedef struct tr_out {
    int fd;   /* read end; -1 at end of stream */
    int dest; /* STDOUT_FILENO or STDERR_FILENO of ternrun */
    size_t len;
    char *buf; /* the partial line, TR_LINE_MAX bytes */
} tr_out_t;

/* One value a rank published in the key-value store (TN_WIRE_PUT). */
typedef struct tr_kv {
    char key[TN_WIRE_KEY_BYTES];
    tn_wire_blob_t *val;
} tr_kv_t;

typedef struct tr_rank {
    pid_t pid; /* 0 if never started */
    int exited;
    int status; /* from waitpid */
    int exec_failed;
    int joined; /* HELLO accepted */
    int init_done;
    int fini;         /* left the job cleanly */
    int aborted;      /* sent ABORT */
    int in_coll;      /* contributed to the collective in progress */
    int conn;         /* index in job->conns, -1 when not connected */
    double eof_at;    /* >0: connection lost without fini at this time */
    int leaving;      /* sent LEAVING: exiting without fini */
    int leave_errors; /* the errors it had logged then */
    int exit_told;    /* its error exit is judged (LEAVING with the code) */
    int bound;        /* cpus is applied with sched_setaffinity */
    cpu_set_t cpus;
    char cpus_text[128]; /* list form, "0-3"; the plan, also when simulated */
    char numa_text[32];  /* NUMA domains the cpuset covers, "0" */
    char unit_text[32];  /* "core 3", "NUMA 0", "not bound" */
    char nic_text[32];   /* nearest network device, "none" */
    char node[80];       /* TERN_BOOT_NODE */
    tr_out_t out[2];
    tr_kv_t *kv; /* [nkv] what it published, looked up by other ranks */
    int nkv;
} tr_rank_t;

typedef struct tr_conn {
    int fd;      /* -1: free slot */
    int rank;    /* -1 until HELLO */
    int closing; /* close once tx is flushed (after an ERROR reply) */
    int lookup;  /* a joined rank's lookup connection: GET only */
    tn_wire_rx_t rx;
    tn_wire_txq_t tx;
} tr_conn_t;

typedef struct tr_job {
    /* options */
    int n;
    int bind;           /* TN_BIND_* */
    int map;            /* TN_MAP_* */
    const char *device; /* --map-by dist:DEVICE */
    int oversubscribe;
    int dry_run;   /* plan and report, start nothing */
    int simulated; /* the topology is not this machine's (XML, synthetic) */
    int report_bindings;
    int tag_output;
    int nodes;           /* simulated nodes (--nodes), 1 = this host */
    char **argv;         /* program and its arguments */
    double boot_timeout; /* TERN_BOOT_TIMEOUT; <= 0: none */
    int verbose;
    char bind_note[512]; /* why the binding is what it is (for the report) */

    /* resources */
    char host[64];
    char jobid[TN_WIRE_JOBID_MAX];
    char addr[128];
    int lfd;      /* listening socket */
    int sfd;      /* signalfd: SIGCHLD, SIGINT, SIGTERM, SIGHUP */
    int errfd;    /* read end of the exec-failure pipe, -1 when done */
    pid_t holder; /* leader of the job's process group (see spawn.c) */
    pid_t pgid;
    pid_t self;
    tr_rank_t *ranks;
    tr_conn_t *conns;
    int nconns;

    /* progress */
    int nexited;
    int njoined;
    int ninit_done;
    double t_start;
    double t_first_join; /* 0 until a rank joins */

    /* the bootstrap collective in progress */
    unsigned coll_seq; /* collectives completed */
    int coll_count;    /* contributions so far */
    size_t coll_len;   /* bytes per rank */
    tn_wire_blob_t *coll_buf;

    /* ending */
    int ending;
    int exit_code;
    int signals_seen; /* user signals received */
    double kill_at;   /* >0: SIGKILL the group at this time */
    int killed;
    /* A rank's error exit or abort, reported after a short grace unless a
     * rank dies by a signal meanwhile (then that death is the cause,
     * reported); an abort also gives way to a rank that exits without
     * tern_finalize or an abort of its own (that exit is the cause). A
     * death by a signal is also held for that grace, from the first one:
     * every death by a signal in it is named, in the order reaped, and the
     * other failures in it are consequences. */
    double fail_at; /* >0: report fail_msg at this time */
    int fail_code;
    int nsig_deaths;     /* deaths by a signal in fail_msg */
    int fail_abort;      /* fail_msg is a rank's abort */
    int fail_exit;       /* fail_msg is this rank's error exit; -1: not one */
    char fail_msg[4200]; /* an abort's text: up to 4000 bytes */
} tr_job_t;

/* main.c */
int tr_parse_args(tr_job_t *job, int argc, char **argv);

/* bind.c: computes every rank's binding before any is started; 0, or the
 * exit status after printing why not (2: a request that cannot be met) */
int tr_bind_plan(tr_job_t *job);
void tr_bind_report(const tr_job_t *job);

/* spawn.c */
int tr_spawn_holder(tr_job_t *job);
/* The signals ternrun handles for the job (blocked, read from a signalfd). */
void tr_job_signals(sigset_t *set);
int tr_spawn_ranks(tr_job_t *job);

/* job.c: the job's fate */
void tr_job_fail(tr_job_t *job, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* As tr_job_fail, TR_ERROR_GRACE_S later unless a rank dies by a signal
 * meanwhile (that death is then reported); a failure already held back
 * is kept (the first is reported). */
void tr_job_fail_later(tr_job_t *job, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Rank's death by a signal (waitpid status): the first starts the
 * TR_ERROR_GRACE_S window, those in it are added to its report. */
void tr_job_signal_death(tr_job_t *job, int rank, int status);
void tr_job_end(tr_job_t *job, int code, int sig);
/* Rank i's exit with code (1-255), judged once: when it exits, or before
 * that when it says so in LEAVING (it then waits for the job's end). */
void tr_job_error_exit(tr_job_t *job, int i, int code);
void tr_job_reap(tr_job_t *job);
void tr_job_signal(tr_job_t *job, int sig);
void tr_job_exec_failures(tr_job_t *job);
void tr_job_timers(tr_job_t *job, double now);
/* Reports a failure held back for TR_ERROR_GRACE_S, if any. */
void tr_job_fail_pending(tr_job_t *job);
double tr_job_next_timer(const tr_job_t *job);
void tr_job_check_stuck(tr_job_t *job);
void tr_job_finish(tr_job_t *job);
/* "1,3-5" into buf, for ranks whose flag (by pick) is set */
void tr_rank_list(const tr_job_t *job, int (*pick)(const tr_rank_t *), char *buf,
                  size_t len);

/* proto.c: the launcher's side of the wire */
void tr_proto_accept(tr_job_t *job);
void tr_proto_read(tr_job_t *job, int ci);
void tr_proto_write(tr_job_t *job, int ci);
void tr_proto_drain_rank(tr_job_t *job, int rank);
void tr_proto_close(tr_job_t *job, int ci);

/* output.c: --tag-output */
int tr_out_open(tr_out_t *o, int dest, int *child_fd);
void tr_out_read(const tr_job_t *job, int rank, tr_out_t *o);
void tr_out_drain_all(tr_job_t *job, double until);

/* loop.c */
int tr_loop_run(tr_job_t *job);

#endif
