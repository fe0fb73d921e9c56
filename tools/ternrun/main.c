/* ternrun's command line, its TERN_* settings, and the order of start-up
 * and teardown. */
#include "ternrun.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tern/status.h>

#include "base/cfg.h"
#include "base/time.h"
#include "build_info.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ternrun -n N [options] program [args...]\n"
            "Starts N ranks of program on this node and serves their bootstrap.\n"
            "\n"
            "  -n, -np, --np N       number of ranks (1..%d)\n"
            "  --bind-to core|l3|numa|package|none\n"
            "                        bind each rank to the core it is mapped to, or\n"
            "                        to that core's L3 cache, NUMA domain or package,\n"
            "                        or not at all; default: core when N is at most\n"
            "                        the number of cores, else none\n"
            "  --map-by packed|spread|numa|dist:DEVICE\n"
            "                        the order in which ranks take cores: in order\n"
            "                        (default), round-robin over packages or over\n"
            "                        NUMA domains, or nearest to network device\n"
            "                        DEVICE first (tern-info lists the devices)\n"
            "  --oversubscribe       allow more ranks than cores with --bind-to\n"
            "                        (they share cores round-robin)\n"
            "  --report-bindings     print each rank's host, cpuset, NUMA domain and\n"
            "                        nearest network device\n"
            "  --dry-run             plan and report the bindings, start nothing\n"
            "  --tag-output          prefix each output line of a rank with [rank]\n"
            "  --nodes K             simulate K nodes: ranks split into K blocks,\n"
            "                        each block with its own node identity (the\n"
            "                        split is shown with --report-bindings or\n"
            "                        TERN_VERBOSE=1)\n"
            "  --version             the version of ternrun\n"
            "  -h, --help            this text\n"
            "\n"
            "A program named without a '/' is looked up in PATH, then in the\n"
            "current directory (ternrun -n 2 hello runs ./hello).\n"
            "\n"
            "The job's exit status is 0 when every rank exits 0, else the first\n"
            "failing rank's code (128+signal when it was killed). The job is ended\n"
            "when any rank fails, and when start-up takes longer than\n"
            "TERN_BOOT_TIMEOUT seconds (default 60; 0 for no limit).\n",
            TR_MAX_RANKS);
}

/* A bad command line: what was wrong on one line, and where the options
 * are (the whole usage would bury the one line that matters). */
static int __attribute__((format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ternrun: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nternrun --help for the options\n");
    va_end(ap);
    return 2;
}

/* Strict positive integer in [1, max]: "abc", "4x", "0" and "-3" are
 * errors, not 0. */
static int parse_count(const char *s, long max, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > max)
        return -1;
    *out = (int)v;
    return 0;
}

int tr_parse_args(tr_job_t *job, int argc, char **argv)
{
    enum {
        OPT_BIND = 256,
        OPT_REPORT,
        OPT_TAG,
        OPT_NODES,
        OPT_MAP,
        OPT_OVER,
        OPT_DRY,
        OPT_VERSION
    };
    static const struct option opts[] = {
        {"np", required_argument, NULL, 'n'},
        {"bind-to", required_argument, NULL, OPT_BIND},
        {"map-by", required_argument, NULL, OPT_MAP},
        {"oversubscribe", no_argument, NULL, OPT_OVER},
        {"dry-run", no_argument, NULL, OPT_DRY},
        {"report-bindings", no_argument, NULL, OPT_REPORT},
        {"tag-output", no_argument, NULL, OPT_TAG},
        {"nodes", required_argument, NULL, OPT_NODES},
        {"version", no_argument, NULL, OPT_VERSION},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int have_n = 0;
    if (argc < 2) { /* nothing asked: the whole usage */
        usage(stderr);
        return 2;
    }
    opterr = 0;
    for (;;) {
        /* "+": stop at the program name, its options are its own;
         * ":": report a missing value apart from an unknown option */
        int c = getopt_long(argc, argv, "+:n:h", opts, NULL);
        if (c < 0)
            break;
        switch (c) {
        case 'n':
            /* -np N, as mpirun takes it: getopt sees -n with the value "p" */
            if (strcmp(argv[optind - 1], "-np") == 0 && optarg == argv[optind - 1] + 2) {
                if (optind >= argc)
                    return usage_error("option -np needs a value");
                optarg = argv[optind++];
            }
            if (parse_count(optarg, TR_MAX_RANKS, &job->n) != 0)
                return usage_error("-n '%s': the number of ranks must be an "
                                   "integer from 1 to %d",
                                   optarg, TR_MAX_RANKS);
            have_n = 1;
            break;
        case OPT_BIND:
            if (strcmp(optarg, "core") == 0)
                job->bind = TN_BIND_CORE;
            else if (strcmp(optarg, "l3") == 0)
                job->bind = TN_BIND_L3;
            else if (strcmp(optarg, "numa") == 0)
                job->bind = TN_BIND_NUMA;
            else if (strcmp(optarg, "package") == 0)
                job->bind = TN_BIND_PACKAGE;
            else if (strcmp(optarg, "none") == 0)
                job->bind = TN_BIND_NONE;
            else
                return usage_error("--bind-to '%s': use core, l3, numa, package or none",
                                   optarg);
            break;
        case OPT_MAP:
            if (strcmp(optarg, "packed") == 0)
                job->map = TN_MAP_PACKED;
            else if (strcmp(optarg, "spread") == 0)
                job->map = TN_MAP_SPREAD;
            else if (strcmp(optarg, "numa") == 0)
                job->map = TN_MAP_NUMA;
            else if (strncmp(optarg, "dist:", 5) == 0 && optarg[5]) {
                job->map = TN_MAP_DIST;
                job->device = optarg + 5;
            } else
                return usage_error("--map-by '%s': use packed, spread, numa or "
                                   "dist:DEVICE (a network device such as mlx5_0)",
                                   optarg);
            break;
        case OPT_OVER: job->oversubscribe = 1; break;
        case OPT_DRY: job->dry_run = 1; break;
        case OPT_REPORT: job->report_bindings = 1; break;
        case OPT_TAG: job->tag_output = 1; break;
        case OPT_NODES:
            if (parse_count(optarg, TR_MAX_RANKS, &job->nodes) != 0)
                return usage_error("--nodes '%s': must be a positive integer", optarg);
            break;
        case 'h': usage(stdout); exit(0);
        case OPT_VERSION: printf("ternrun (Tern) %s\n", TN_BUILD_VERSION); exit(0);
        case ':': return usage_error("option %s needs a value", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (!have_n)
        return usage_error("the number of ranks is missing: -n N");
    if (optind >= argc && !job->dry_run)
        return usage_error("the program to run is missing");
    if (job->nodes > job->n)
        return usage_error("--nodes %d is more than -n %d: every simulated "
                           "node needs a rank",
                           job->nodes, job->n);
    job->argv = argv + optind;
    return 0;
}

/* Is there an executable regular file at path? */
static int executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* A program named without a '/' that is not in PATH but is in the current
 * directory is run from there, as mpirun does: "ternrun -n 2 hello". */
static void find_program(tr_job_t *job)
{
    static char local[4096];
    const char *name = job->argv[0];
    if (strchr(name, '/') || !executable(name))
        return;
    const char *path = getenv("PATH");
    if (!path)
        path = "/bin:/usr/bin"; /* execvp's default */
    char buf[4096];
    for (const char *p = path;; p++) {
        size_t len = strcspn(p, ":");
        /* an empty entry is the current directory: execvp finds it there */
        if (len == 0 || (snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, p, name) <
                             (int)sizeof(buf) &&
                         executable(buf)))
            return;
        p += len;
        if (!*p)
            break;
    }
    if (snprintf(local, sizeof(local), "./%s", name) < (int)sizeof(local))
        job->argv[0] = local;
}

/* --nodes K: which ranks each simulated node got, on one line
 * ("ternrun: 5 ranks on 3 simulated nodes: vm#0 ranks 0-1, ..."). */
static void report_nodes(const tr_job_t *job)
{
    char line[1024];
    size_t off =
        (size_t)snprintf(line, sizeof(line),
                         "ternrun: %d ranks on %d simulated nodes (--nodes %d):", job->n,
                         job->nodes, job->nodes);
    for (int i = 0; i < job->n && off < sizeof(line);) {
        int j = i;
        while (j + 1 < job->n && strcmp(job->ranks[j + 1].node, job->ranks[i].node) == 0)
            j++;
        if (j == i)
            off += (size_t)snprintf(line + off, sizeof(line) - off, "%s %s rank %d",
                                    i ? "," : "", job->ranks[i].node, i);
        else
            off += (size_t)snprintf(line + off, sizeof(line) - off, "%s %s ranks %d-%d",
                                    i ? "," : "", job->ranks[i].node, i, j);
        i = j + 1;
    }
    if (off >= sizeof(line) - 1)
        off = sizeof(line) - 2;
    line[off++] = '\n';
    fwrite(line, 1, off, stderr);
    fflush(stderr);
}

/* TERN_BOOT_TIMEOUT and TERN_VERBOSE, read through the configuration table;
 * the ranks check the rest of the TERN_* variables themselves. */
static int read_settings(tr_job_t *job)
{
    static const char *const names[] = {"TERN_BOOT_TIMEOUT", "TERN_VERBOSE"};
    double timeout = 0;
    long verbose = 0;
    void *dst[] = {&timeout, &verbose};
    for (int i = 0; i < 2; i++) {
        const tn_cfg_var_t *v = tn_cfg_find(names[i]);
        const char *text = getenv(names[i]);
        char err[256];
        if (!v) {
            fprintf(stderr, "ternrun: internal: %s not in the table\n", names[i]);
            return 1;
        }
        if (tn_cfg_parse(v, text ? text : v->def, dst[i], err, sizeof(err)) != TERN_OK) {
            fprintf(stderr, "ternrun: %s\n", err);
            return 1;
        }
    }
    job->boot_timeout = timeout;
    job->verbose = (int)verbose;
    return 0;
}

/* A job id unique on this host and hard to guess: it names the socket,
 * and leftovers in /dev/shm are recognized by it. */
static void make_jobid(tr_job_t *job)
{
    uint32_t r = 0;
    if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
        r = (uint32_t)tn_time_ns();
    snprintf(job->jobid, sizeof(job->jobid), "%x-%08x", (unsigned)getpid(), r);
}

int main(int argc, char **argv)
{
    static tr_job_t job = {.bind = TN_BIND_AUTO,
                           .map = TN_MAP_PACKED,
                           .nodes = 1,
                           .lfd = -1,
                           .sfd = -1,
                           .errfd = -1};
    int rc = tr_parse_args(&job, argc, argv);
    if (rc)
        return rc;
    if (!job.dry_run)
        find_program(&job);
    if (read_settings(&job))
        return 2;
    job.t_start = tn_time_s();
    job.self = getpid();
    if (gethostname(job.host, sizeof(job.host) - 1) != 0)
        strcpy(job.host, "localhost");
    make_jobid(&job);
    job.ranks = calloc((size_t)job.n, sizeof(*job.ranks));
    if (!job.ranks) {
        fprintf(stderr, "ternrun: out of memory for %d ranks\n", job.n);
        return 1;
    }
    for (int i = 0; i < job.n; i++)
        job.ranks[i].conn = -1;
    rc = tr_bind_plan(&job);
    if (rc != 0)
        return rc;
    if (job.nodes > 1 && (job.report_bindings || job.dry_run || job.verbose >= 1))
        report_nodes(&job);
    if (job.report_bindings || job.dry_run)
        tr_bind_report(&job);
    if (job.dry_run)
        return 0;
    /* A reader that goes away (ternrun ... | head) must not kill ternrun
     * before it has ended the job. */
    signal(SIGPIPE, SIG_IGN);
    if (tr_spawn_holder(&job) != 0)
        return 1;
    return tr_loop_run(&job);
}
