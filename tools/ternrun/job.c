/* The job's fate: judging each rank's exit, the start-up deadline, ending
 * the job (SIGTERM to its process group, SIGKILL shortly after) and the
 * cleanup that leaves nothing behind. */
#include "boot/wire.h"
#include "ternrun.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/time.h"

void tr_job_end(tr_job_t *job, int code, int sig)
{
    if (!job->ending) {
        job->ending = 1;
        job->exit_code = code;
    }
    if (job->pgid > 0)
        killpg(job->pgid, sig);
    if (job->kill_at == 0)
        job->kill_at = tn_time_s() + TR_KILL_GRACE_S;
}

/* Only the first failure is reported: what happens to the other ranks
 * after it is its consequence (deaths by a signal are gathered first, in
 * tr_job_signal_death). */
void tr_job_fail(tr_job_t *job, int code, const char *fmt, ...)
{
    if (job->ending)
        return;
    if (job->nsig_deaths > 0) /* a consequence: the deaths are reported at fail_at */
        return;
    /* A consequence of the error exit or abort held back (a collective it
     * left stuck): that one is reported, at its time, so that a death by
     * a signal in the window is still named. Reporting it here at once
     * lost the SIGSEGV of mp.ternrun.exit_then_crash whenever a peer's
     * next bootstrap collective came before it (7 of 30 runs, load 5.6). */
    if (job->fail_at > 0 && code < 128)
        return;
    char msg[4500];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "ternrun: %s; ending the job\n", msg);
    fflush(stderr);
    tr_job_end(job, code, SIGTERM);
}

void tr_job_fail_later(tr_job_t *job, int code, const char *fmt, ...)
{
    if (job->ending || job->fail_at > 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(job->fail_msg, sizeof(job->fail_msg), fmt, ap);
    va_end(ap);
    job->fail_code = code;
    job->fail_abort = 0;
    job->fail_exit = -1;
    job->fail_at = tn_time_s() + TR_ERROR_GRACE_S;
}

void tr_job_signal_death(tr_job_t *job, int rank, int status)
{
    if (job->ending)
        return;
    int sig = WTERMSIG(status);
    const char *core = WCOREDUMP(status) ? ", core dumped" : "";
    pid_t pid = job->ranks[rank].pid;
    if (job->nsig_deaths++ == 0) { /* the cause; a held back error exit is not */
        job->fail_code = 128 + sig;
        job->fail_abort = 0;
        job->fail_exit = -1;
        job->fail_at = tn_time_s() + TR_ERROR_GRACE_S;
        snprintf(job->fail_msg, sizeof(job->fail_msg),
                 "rank %d (pid %d) killed by signal %d (%s)%s", rank, (int)pid, sig,
                 strsignal(sig), core);
        return;
    }
    size_t used = strlen(job->fail_msg), left = sizeof(job->fail_msg) - used;
    int w = snprintf(job->fail_msg + used, left,
                     "; also rank %d (pid %d) killed by signal %d (%s)%s", rank, (int)pid,
                     sig, strsignal(sig), core);
    if (w < 0 || (size_t)w >= left) /* thousands of deaths: say there were more */
        snprintf(job->fail_msg + sizeof(job->fail_msg) - 6, 6, "; ...");
}

void tr_rank_list(const tr_job_t *job, int (*pick)(const tr_rank_t *), char *buf,
                  size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < job->n; i++) {
        if (!pick(&job->ranks[i]))
            continue;
        int j = i;
        while (j + 1 < job->n && pick(&job->ranks[j + 1]))
            j++;
        int w = j > i ? snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", i, j)
                      : snprintf(buf + used, len - used, "%s%d", used ? "," : "", i);
        if (w < 0 || (size_t)w >= len - used) {
            snprintf(buf + (len > 5 ? len - 5 : 0), len > 5 ? 5 : len, ",...");
            return;
        }
        used += (size_t)w;
        i = j;
    }
}

static int pick_absent(const tr_rank_t *r)
{
    return !r->joined;
}
static int pick_starting(const tr_rank_t *r)
{
    return r->joined && !r->init_done;
}
static int pick_in_coll(const tr_rank_t *r)
{
    return r->in_coll;
}

static int count(const tr_job_t *job, int (*pick)(const tr_rank_t *), int *first)
{
    int n = 0;
    for (int i = 0; i < job->n; i++)
        if (pick(&job->ranks[i]) && n++ == 0 && first)
            *first = i;
    return n;
}

/* A collective in progress can never complete once a rank that has not
 * contributed has left: say which, instead of waiting for the deadline. */
void tr_job_check_stuck(tr_job_t *job)
{
    if (job->ending || job->coll_count == 0)
        return;
    char waiting[256];
    tr_rank_list(job, pick_in_coll, waiting, sizeof(waiting));
    for (int i = 0; i < job->n; i++) {
        const tr_rank_t *r = &job->ranks[i];
        if (r->in_coll)
            continue;
        if (r->exited && !r->joined) {
            tr_job_fail(job, 1,
                        "rank %d (pid %d) exited without joining the "
                        "job, while ranks %s wait for it in bootstrap "
                        "collective #%u: every rank must call tern_init",
                        i, (int)r->pid, waiting, job->coll_seq + 1);
            return;
        }
        if (r->fini || r->exited) {
            tr_job_fail(job, 1,
                        "rank %d (pid %d) left the job (tern_finalize) "
                        "while ranks %s wait for it in bootstrap collective "
                        "#%u",
                        i, (int)r->pid, waiting, job->coll_seq + 1);
            return;
        }
    }
}

void tr_job_error_exit(tr_job_t *job, int i, int code)
{
    tr_rank_t *r = &job->ranks[i];
    if (job->ending || r->exit_told)
        return;
    r->exit_told = 1;
    if (r->joined && !r->fini && !r->aborted && job->fail_at > 0 &&
        job->nsig_deaths == 0 && job->fail_abort) {
        /* It left the job on its own (no abort, no fini) while another
         * rank's abort is held back: an abort is a rank's answer to
         * something, here most likely a transfer to this rank that failed
         * as its sockets closed, before ternrun reaped it. This exit is
         * the cause named (the other dropped), as a death by a signal is. */
        job->fail_at = 0;
        job->fail_abort = 0;
    }
    if (job->fail_at > 0 && job->fail_exit >= 0 && job->nsig_deaths == 0 && !r->aborted &&
        r->leaving && r->leave_errors == 0 &&
        job->ranks[job->fail_exit].leave_errors > 0) {
        /* Both exited with an error, this one without a Tern error logged,
         * the other after some: that one is most likely a peer whose
         * transfer to this rank failed as its endpoints closed (a rank can
         * exit, and be reaped, before the peer that caused it). */
        job->fail_at = 0;
    }
    /* Its peers' death by a signal often comes to light here first (the
     * dead rank's sockets close before it can be reaped). */
    int held = job->fail_at > 0;
    tr_job_fail_later(job, code, "rank %d (pid %d) exited with code %d", i, (int)r->pid,
                      code);
    if (!held && !r->aborted)
        job->fail_exit = i;
}

static void rank_exited(tr_job_t *job, int i, int status)
{
    tr_rank_t *r = &job->ranks[i];
    /* Its last words (fini, abort) and an exec failure come first. */
    tr_proto_drain_rank(job, i);
    tr_job_exec_failures(job);
    r->exited = 1;
    r->status = status;
    job->nexited++;
    if (r->conn >= 0)
        tr_proto_close(job, r->conn);
    if (job->verbose >= 2)
        fprintf(stderr, "ternrun: rank %d (pid %d) ended, status 0x%x\n", i, (int)r->pid,
                status);
    if (job->ending || r->exec_failed)
        return;
    if (WIFSIGNALED(status)) {
        tr_job_signal_death(job, i, status);
        return;
    }
    if (r->joined && !r->fini && !r->aborted && job->fail_at > 0 &&
        job->nsig_deaths == 0 && WEXITSTATUS(status) == 0) {
        /* It left the job on its own (no abort, no fini) with status 0
         * while another rank's abort or error exit is held back: no rank
         * exits 0 without tern_finalize because a peer failed. This exit
         * is the cause named (the other dropped), as a death by a signal
         * is (tr_job_error_exit for an error exit). */
        job->fail_at = 0;
        job->fail_abort = 0;
    }
    if (WEXITSTATUS(status) != 0) {
        tr_job_error_exit(job, i, WEXITSTATUS(status));
    } else if (r->joined && !r->fini) {
        tr_job_fail(job, 1,
                    "rank %d (pid %d) exited with code 0 after joining "
                    "the job but without tern_finalize",
                    i, (int)r->pid);
    } else {
        tr_job_check_stuck(job);
    }
}

/* Handles the exits waiting to be reaped, deaths by signal first: a rank
 * killed by a signal is usually why its peers then fail with an error, and
 * only the first failure is reported. */
void tr_job_reap(tr_job_t *job)
{
    enum { BATCH = 64 };
    for (;;) {
        int st[BATCH], idx[BATCH], n = 0;
        while (n < BATCH) {
            int status;
            pid_t pid = waitpid(-1, &status, WNOHANG);
            if (pid <= 0)
                break;
            if (pid == job->holder) { /* someone killed it; the group lives on
                                         while ranks are in it */
                job->holder = 0;
                continue;
            }
            for (int i = 0; i < job->n; i++)
                if (job->ranks[i].pid == pid && !job->ranks[i].exited) {
                    idx[n] = i;
                    st[n++] = status;
                    break;
                }
        }
        if (n == 0)
            return;
        for (int pass = 0; pass < 2; pass++)
            for (int k = 0; k < n; k++)
                if ((pass == 0) == (WIFSIGNALED(st[k]) != 0))
                    rank_exited(job, idx[k], st[k]);
    }
}

void tr_job_signal(tr_job_t *job, int sig)
{
    if (++job->signals_seen == 1) {
        fprintf(stderr,
                "ternrun: received signal %d (%s); passing it to "
                "the job and ending it\n",
                sig, strsignal(sig));
        tr_job_end(job, 128 + sig, sig);
    } else { /* asked twice: no more grace */
        tr_job_end(job, 128 + sig, SIGKILL);
        job->killed = 1;
    }
}

void tr_job_exec_failures(tr_job_t *job)
{
    while (job->errfd >= 0) {
        int msg[2];
        ssize_t n = read(job->errfd, msg, sizeof(msg));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return;                      /* nothing now */
        if (n != (ssize_t)sizeof(msg)) { /* end: every rank has exec'ed */
            close(job->errfd);
            job->errfd = -1;
            return;
        }
        if (msg[0] < 0 || msg[0] >= job->n)
            continue;
        job->ranks[msg[0]].exec_failed = 1;
        if (!job->ending) {
            fprintf(stderr, "ternrun: cannot execute '%s': %s\n", job->argv[0],
                    strerror(msg[1]));
            tr_job_end(job, 127, SIGTERM);
        }
    }
}

static void start_up_timeout(tr_job_t *job)
{
    char absent[256], starting[256], what[600];
    int first = -1;
    int nabsent = count(job, pick_absent, &first);
    int nstarting = count(job, pick_starting, NULL);
    tr_rank_list(job, pick_absent, absent, sizeof(absent));
    tr_rank_list(job, pick_starting, starting, sizeof(starting));
    if (nabsent == 1)
        snprintf(what, sizeof(what),
                 "rank %s (pid %d) never reached tern_init"
                 "%s",
                 absent, (int)job->ranks[first].pid,
                 job->ranks[first].exited ? " and has exited" : "");
    else if (nabsent > 1)
        snprintf(what, sizeof(what), "ranks %s never reached tern_init", absent);
    else
        snprintf(what, sizeof(what),
                 "every rank joined, but ranks %s did not "
                 "finish tern_init (%d of %d are in bootstrap collective #%u)",
                 starting, job->coll_count, job->n, job->coll_seq + 1);
    if (nabsent && nstarting)
        snprintf(what + strlen(what), sizeof(what) - strlen(what),
                 " while ranks %s wait in tern_init", starting);
    tr_job_fail(job, 1,
                "start-up did not finish within TERN_BOOT_TIMEOUT=%g "
                "s: %s; raise TERN_BOOT_TIMEOUT if start-up is merely slow",
                job->boot_timeout, what);
}

static double boot_deadline(const tr_job_t *job)
{
    /* Counted from the first rank's arrival, not from launch: a program
     * may work for a while before tern_init, and a job none of whose
     * ranks is a Tern program has no start-up to watch. */
    if (job->ending || job->boot_timeout <= 0 || job->t_first_join == 0 ||
        job->ninit_done == job->n)
        return 0;
    return job->t_first_join + job->boot_timeout;
}

double tr_job_next_timer(const tr_job_t *job)
{
    double t = 0;
#define TR_EARLIER_(x)                    \
    do {                                  \
        double x_ = (x);                  \
        if (x_ > 0 && (t == 0 || x_ < t)) \
            t = x_;                       \
    } while (0)
    if (!job->killed)
        TR_EARLIER_(job->kill_at);
    if (!job->ending)
        TR_EARLIER_(job->fail_at);
    TR_EARLIER_(boot_deadline(job));
    for (int i = 0; i < job->n && !job->ending; i++)
        if (job->ranks[i].eof_at > 0 && !job->ranks[i].exited)
            TR_EARLIER_(job->ranks[i].eof_at + TR_EOF_GRACE_S);
#undef TR_EARLIER_
    return t;
}

void tr_job_fail_pending(tr_job_t *job)
{
    if (job->fail_at > 0 && !job->ending) {
        job->fail_at = 0;
        job->nsig_deaths = 0;
        tr_job_fail(job, job->fail_code, "%s", job->fail_msg);
    }
    job->fail_at = 0;
}

void tr_job_timers(tr_job_t *job, double now)
{
    if (job->fail_at > 0 && now >= job->fail_at)
        tr_job_fail_pending(job);
    if (job->kill_at > 0 && !job->killed && now >= job->kill_at) {
        killpg(job->pgid, SIGKILL);
        job->killed = 1;
    }
    double dl = boot_deadline(job);
    if (dl > 0 && now >= dl)
        start_up_timeout(job);
    for (int i = 0; i < job->n; i++) {
        tr_rank_t *r = &job->ranks[i];
        if (r->eof_at > 0 && !r->exited && now >= r->eof_at + TR_EOF_GRACE_S) {
            r->eof_at = 0;
            tr_job_fail(job, 1,
                        "rank %d (pid %d) closed its connection to "
                        "ternrun without tern_finalize",
                        i, (int)r->pid);
        }
    }
}

/* Ranks create their segments with memfd, which leaves no name; this is
 * defence against a rank that made a named one and was killed. */
static void remove_shm(const tr_job_t *job)
{
    char prefix[80];
    snprintf(prefix, sizeof(prefix), "tern-%s-", job->jobid);
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0 && job->verbose)
            fprintf(stderr, "ternrun: removed /dev/shm/%s left by the job\n", e->d_name);
    }
    closedir(d);
}

void tr_job_finish(tr_job_t *job)
{
    tr_job_fail_pending(job);
    tn_wire_unlisten(job->addr);
    /* Whatever a rank left in the group (a forked helper) goes too; the
     * holder keeps the group id ours until this point. */
    if (job->holder > 0) {
        killpg(job->pgid, SIGKILL);
        while (waitpid(job->holder, NULL, 0) < 0 && errno == EINTR)
            ;
        job->holder = 0;
    }
    tr_out_drain_all(job, tn_time_s() + TR_DRAIN_S);
    remove_shm(job);
    for (int i = 0; i < job->nconns; i++)
        tr_proto_close(job, i);
    if (job->lfd >= 0)
        close(job->lfd);
    if (job->verbose >= 1)
        fprintf(stderr,
                "ternrun: job of %d ranks ended after %.1f ms, exit "
                "status %d\n",
                job->n, (tn_time_s() - job->t_start) * 1e3, job->exit_code);
}
