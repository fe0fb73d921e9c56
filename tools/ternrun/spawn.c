/* Starting processes: the holder of the job's process group, then the
 * ranks, each bound, with its bootstrap variables, in that group. */
#include "ternrun.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

static struct rlimit nofile_orig;
static int nofile_raised;

/* Dies with ternrun whatever the way: PR_SET_PDEATHSIG, plus the check
 * that closes the window where ternrun died before the prctl. */
static void die_with_parent(pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
}

/* The holder leads the job's process group and does little else. ternrun
 * signals the group with killpg, so the group id must not be reused while
 * ternrun may still signal it: a rank as leader could exit and be reaped,
 * and its pid (the group id) then be given to an unrelated process. The
 * holder is reaped last, after the final SIGKILL of the group. It blocks
 * every signal, so forwarded SIGINT/SIGTERM pass it by. Its other duty:
 * when ternrun dies without cleaning up (SIGKILL), it kills the whole group,
 * which reaches what PR_SET_PDEATHSIG of the ranks cannot: processes the
 * ranks started (a rank run through a wrapper script, a helper). */
static void __attribute__((noreturn)) holder(pid_t parent)
{
    sigset_t all, usr1;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
    setpgid(0, 0);
    int fd = open("/dev/null", O_RDWR);
    if (fd >= 0) { /* hold none of ternrun's streams open */
        dup2(fd, 0);
        dup2(fd, 1);
        dup2(fd, 2);
    }
    prctl(PR_SET_NAME, "ternrun-group"); /* tell it apart in ps/top */
    prctl(PR_SET_PDEATHSIG, SIGUSR1);
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    for (;;) {
        if (getppid() != parent)
            killpg(0, SIGKILL);   /* the group, the holder included */
        sigwaitinfo(&usr1, NULL); /* anyone may send SIGUSR1: recheck */
    }
}

void tr_job_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGCHLD);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

int tr_spawn_holder(tr_job_t *job)
{
    sigset_t set;
    tr_job_signals(&set);
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0) {
        perror("ternrun: sigprocmask");
        return 1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "ternrun: cannot start a process: %s\n", strerror(errno));
        return 1;
    }
    if (pid == 0)
        holder(job->self);
    setpgid(pid, pid); /* also here: whichever of the two runs first */
    job->holder = pid;
    job->pgid = pid;
    return 0;
}

/* Each rank may need a socket and two pipes in ternrun. */
static void raise_nofile(int n)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    rlim_t need = (rlim_t)n * 3 + 64;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
        nofile_orig = rl;
        nofile_raised = 1;
        rl.rlim_cur =
            rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static void set_env(const char *name, const char *value)
{
    if (setenv(name, value, 1) != 0)
        _exit(127);
}

/* In the child, between fork and exec. ternrun is single-threaded, so
 * the child may use any libc function here. */
static void __attribute__((noreturn))
child(tr_job_t *job, int i, const int *outfd, int errw, int stdin_tty)
{
    tr_rank_t *r = &job->ranks[i];
    setpgid(0, job->pgid);
    die_with_parent(job->self);
    /* signalfd needs the signals blocked in ternrun; the mask and ignored
     * dispositions survive exec, so the program gets them back here. */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    if (nofile_raised)
        setrlimit(RLIMIT_NOFILE, &nofile_orig);
    if (outfd[0] >= 0)
        dup2(outfd[0], STDOUT_FILENO);
    if (outfd[1] >= 0)
        dup2(outfd[1], STDERR_FILENO);
    /* Ranks run in a background process group: reading a terminal would
     * stop them (SIGTTIN). Rank 0 keeps a non-terminal stdin (a pipe or a
     * file); the others read nothing. */
    if (i != 0 || stdin_tty) {
        int fd = open("/dev/null", O_RDONLY);
        if (fd >= 0 && fd != STDIN_FILENO) {
            dup2(fd, STDIN_FILENO);
            close(fd);
        }
    }
    char num[16];
    set_env("TERN_BOOT_ADDR", job->addr);
    set_env("TERN_BOOT_JOBID", job->jobid);
    snprintf(num, sizeof(num), "%d", i);
    set_env("TERN_BOOT_RANK", num);
    snprintf(num, sizeof(num), "%d", job->n);
    set_env("TERN_BOOT_SIZE", num);
    set_env("TERN_BOOT_NODE", r->node);
    /* A simulated topology cannot bind: the rank takes its planned CPUs
     * as its place (base/topo.c, tn_topo_my_cpuset). */
    if (job->simulated)
        set_env("TERN_BOOT_CPUSET", r->cpus_text);
    else
        unsetenv("TERN_BOOT_CPUSET");
    if (r->bound && sched_setaffinity(0, sizeof(r->cpus), &r->cpus) != 0)
        fprintf(stderr,
                "ternrun: warning: cannot bind rank %d to cpuset %s: "
                "%s; it runs unbound\n",
                i, r->cpus_text, strerror(errno));
    execvp(job->argv[0], job->argv);
    /* Tell ternrun, which prints one message for the whole job. */
    int msg[2] = {i, errno};
    ssize_t w = write(errw, msg, sizeof(msg));
    (void)w;
    _exit(127);
}

static int spawn_one(tr_job_t *job, int i, int errw, int stdin_tty)
{
    tr_rank_t *r = &job->ranks[i];
    int outfd[2] = {-1, -1};
    for (int s = 0; s < 2; s++) {
        r->out[s].fd = -1;
        if (job->tag_output &&
            tr_out_open(&r->out[s], s ? STDERR_FILENO : STDOUT_FILENO, &outfd[s]) != 0)
            return -1;
    }
    pid_t pid = fork();
    if (pid == 0)
        child(job, i, outfd, errw, stdin_tty);
    int e = errno;
    for (int s = 0; s < 2; s++)
        if (outfd[s] >= 0)
            close(outfd[s]); /* else ternrun would never see end of file */
    if (pid < 0) {
        errno = e;
        return -1;
    }
    setpgid(pid, job->pgid); /* fails harmlessly once the child has exec'ed */
    r->pid = pid;
    return 0;
}

int tr_spawn_ranks(tr_job_t *job)
{
    raise_nofile(job->n);
    int ep[2];
    if (pipe2(ep, O_CLOEXEC) != 0) {
        fprintf(stderr, "ternrun: cannot create a pipe: %s\n", strerror(errno));
        return -1;
    }
    fcntl(ep[0], F_SETFL, O_NONBLOCK);
    job->errfd = ep[0];
    int stdin_tty = isatty(STDIN_FILENO);
    int rc = 0;
    for (int i = 0; i < job->n; i++) {
        if (spawn_one(job, i, ep[1], stdin_tty) != 0) {
            fprintf(stderr,
                    "ternrun: cannot start rank %d: %s; ending the "
                    "job\n",
                    i, strerror(errno));
            for (int j = i; j < job->n; j++) { /* never started */
                job->ranks[j].exited = 1;
                job->nexited++;
            }
            rc = -1;
            break;
        }
    }
    close(ep[1]); /* the children hold the write ends until they exec */
    return rc;
}
