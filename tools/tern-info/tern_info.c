/* tern-info: prints the version and build options of this Tern, its
 * transports, the node's topology and huge pages (default), every TERN_*
 * variable (-c), the configuration reference page (--markdown), this
 * process's binding inside a job (-b), the copy decisions inside a job
 * (--copy, which calls tern_init), Tern's memory per rank inside a job
 * (--memory, also tern_init) or a new copy calibration (--calibrate). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>

#include "base/cfg.h"
#include "build_info.h"
#include "core/core.h"
#include "mem/validate.h"
#include "tern_info.h"
#include "xport/registry.h"

static void usage(FILE *out)
{
    fprintf(out, "Usage: tern-info [option]\n"
                 "Shows what this build of Tern offers on this machine.\n"
                 "\n"
                 "  (none)          version, build options, transports, topology,\n"
                 "                  huge pages\n"
                 "  -a, --all       all of the above and every TERN_* variable\n"
                 "  -c, --config    every TERN_* variable: value in force, default,\n"
                 "                  description, checked as tern_init checks it (NUMA\n"
                 "                  domains, huge pages, memory of this node); exits 1\n"
                 "                  if tern_init would fail\n"
                 "      --parsable  with -c: key=value lines (NAME.value, NAME.status,\n"
                 "                  ..., config.tern_init) for scripts\n"
                 "  -n, --ranks N   with -c: check for N ranks on this node (default 1;\n"
                 "                  each segment holds a message queue per rank of\n"
                 "                  the node)\n"
                 "  -b, --bindings  this process's rank, CPU binding and NUMA domain;\n"
                 "                  run it as a job: ternrun -n 4 tern-info -b\n"
                 "      --copy      the topology-aware copy decisions (distance class\n"
                 "                  of every local rank, thresholds, the copy chosen\n"
                 "                  per size); run it as a job: ternrun -n 4 tern-info\n"
                 "                  --copy\n"
                 "      --memory    Tern's memory per rank, split into fixed, per\n"
                 "                  local peer, per remote peer and the provider's\n"
                 "                  share, with what each means; run it as a job:\n"
                 "                  ternrun -n 4 tern-info --memory\n"
                 "      --calibrate measure where non-temporal copies pay, now, and\n"
                 "                  keep the result for TERN_SHM_TOPO=auto\n"
                 "      --markdown  the configuration reference page\n"
                 "                  (docs/configuration.md) on standard output\n"
                 "  -v, --version   the version\n"
                 "  -h, --help      this text\n");
}

static void print_build(FILE *out)
{
    fprintf(out, "Tern %d.%d.%d\n", TERN_VERSION_MAJOR, TERN_VERSION_MINOR,
            TERN_VERSION_PATCH);
    fprintf(out, "  library version  %s\n", TN_BUILD_VERSION);
    fprintf(out, "  build type       %s\n", TN_BUILD_TYPE);
    fprintf(out, "  compiler         %s\n", TN_BUILD_COMPILER);
    fprintf(out, "  hwloc            %s\n", TN_BUILD_HWLOC_VERSION);
    fprintf(out, "  bootstrap        ternrun%s, single (no launcher)\n",
#ifdef TERN_HAVE_PMIX
            ", pmix (mpirun, srun, prterun)"
#else
            " (PMIx not built: TERN_WITH_PMIX=" TN_BUILD_PMIX ")"
#endif
    );
}

/* The registry's transports; then what each would open here with the
 * current TERN_* values (libfabric is loaded for the network transport;
 * nothing is opened). */
static void print_transports(FILE *out)
{
    fprintf(out, "\nTransports\n");
    for (size_t i = 0; i < tn_xport_count(); i++)
        fprintf(out, "  %-6s %s\n", tn_xport_entry(i)->name, tn_xport_entry(i)->serves);
    static const char *const rule[] = {
        /* auto */
        "the network's atomics for every target (node-local and\n"
        "               self included) when the provider carries out every op\n"
        "               of the set and applies them in the NIC (Network:\n"
        "               atomics below); otherwise active messages: CPU\n"
        "               atomics in place on this node's ranks, a handler's\n"
        "               CPU atomics at the target for the others (also where\n"
        "               the provider emulates atomics in software, as\n"
        "               tcp;ofi_rxm does: active messages batch many in\n"
        "               flight)\n",
        /* net */
        "the network's atomics for every target (node-local and\n"
        "               self included) when the provider carries out every op\n"
        "               of the set (Network: atomics below); otherwise the\n"
        "               domain is refused (TERN_ERR_UNSUPPORTED)\n",
        /* am */
        "active messages: CPU atomics in place on this node's\n"
        "               ranks, a handler's CPU atomics at the target for the\n"
        "               others; the provider's atomics are not used\n",
    };
    int mode =
        tn_cfg.ofi_atomics >= 0 && tn_cfg.ofi_atomics <= 2 ? tn_cfg.ofi_atomics : 0;
    static const char *const names[] = {"auto", "net", "am"};
    fprintf(out,
            "\nAtomic domains (tern_ad_create, TERN_OFI_ATOMICS=%s; tern_ad_info and "
            "TERN_VERBOSE=1 give each one's choice)\n"
            "  one node     CPU atomics in place on the cross-mapped segments\n"
            "  nodes > 1    %s",
            names[mode], rule[mode]);
    char lim[32];
    size_t m = tn_cfg.signal_msg_max < tn_cfg.am_medium_max ? tn_cfg.signal_msg_max
                                                            : tn_cfg.am_medium_max;
    tn_cfg_format_size(m, lim, sizeof(lim));
    fprintf(
        out,
        "\nPut with signal across nodes: signal words are updated as a u64 {set, add}\n"
        "  domain would be (above). Where that takes active messages, data of up to\n"
        "  %s (TERN_SIGNAL_MSG_MAX, at most TERN_AM_MEDIUM_MAX) goes with its signal\n"
        "  in one message whose handler applies the signal once the data is in\n"
        "  place; longer data, and the provider's atomics, wait for the data's\n"
        "  remote completion before the signal\n",
        m ? lim : "0 (never)");
    for (size_t i = 0; i < tn_xport_count(); i++)
        if (tn_xport_entry(i)->describe)
            tn_xport_entry(i)->describe(out);
}

/* Prints text wrapped at width, every line indented by indent spaces. */
static void print_wrapped(FILE *out, const char *text, int indent, int width)
{
    const char *p = text;
    while (*p) {
        int room = width - indent;
        int len = (int)strlen(p);
        int cut = len;
        if (len > room) {
            cut = room;
            while (cut > 0 && p[cut] != ' ')
                cut--;
            if (cut == 0) /* one word longer than the line */
                cut = (int)strcspn(p, " ");
        }
        fprintf(out, "%*s%.*s\n", indent, "", cut, p);
        p += cut;
        while (*p == ' ')
            p++;
    }
}

/* What -c found about one variable: a value that does not parse, or one
 * that tn_cfg_validate (tern_init's own check) refuses. */
typedef struct var_state {
    int status;    /* TERN_OK, TERN_ERR_CONFIG or TERN_ERR_NOMEM */
    int validated; /* the problem comes from tn_cfg_validate */
    char err[512];
} var_state_t;

static const char *status_word(int status)
{
    return status == TERN_OK           ? "ok"
           : status == TERN_ERR_CONFIG ? "invalid"
                                       : "unavailable";
}

static const char *status_name(int status)
{
    return status == TERN_OK           ? "TERN_OK"
           : status == TERN_ERR_CONFIG ? "TERN_ERR_CONFIG"
                                       : "TERN_ERR_NOMEM";
}

/* The state of every variable (by table index), as tern_init would find
 * it with local_ranks ranks on this node; returns the number of problems. */
static int check_vars(const tn_config_t *cfg, int local_ranks, var_state_t *st)
{
    int nbad = 0;
    for (size_t i = 0; i < tn_cfg_count(); i++) {
        const tn_cfg_var_t *v = tn_cfg_var(i);
        const char *env = getenv(v->name);
        st[i].status = TERN_OK;
        st[i].validated = 0;
        st[i].err[0] = '\0';
        union {
            size_t s;
            long l;
            int i;
            double d;
            const char *p;
        } dst;
        if (env && tn_cfg_parse(v, env, &dst, st[i].err, sizeof(st[i].err)) != TERN_OK) {
            st[i].status = TERN_ERR_CONFIG;
            nbad++;
        }
    }
    /* The control area that local_ranks ranks of one node claim (the
     * shared-memory message queues: TERN_AM_SHM_QUEUE, TERN_AM_MEDIUM_MAX),
     * as the transports compute it from tn_cfg; the memory check is then
     * tern_init's own (tn_seg_plan). TERN_AM_SHM_QUEUE=1T passed here and
     * failed every job. */
    tn_cfg = *cfg;
    tn_cfg_issues_t is;
    tn_cfg_validate_ctrl(cfg, local_ranks, tn_core_xports_ctrl_bytes(local_ranks),
                         TN_CFG_CTRL_NAMES, &is);
    for (int k = 0; k < is.n; k++)
        for (size_t i = 0; i < tn_cfg_count(); i++)
            if (strcmp(tn_cfg_var(i)->name, is.issue[k].name) == 0 &&
                st[i].status == TERN_OK) {
                st[i].status = is.issue[k].status;
                st[i].validated = 1;
                snprintf(st[i].err, sizeof(st[i].err), "%s", is.issue[k].msg);
                nbad++;
            }
    return nbad;
}

/* One variable: NAME=value in force, where it came from, then its
 * default, type and help. */
static void print_var(FILE *out, const tn_config_t *cfg, const tn_cfg_var_t *v,
                      const var_state_t *st)
{
    char value[256], scratch[64];
    const char *env = getenv(v->name);
    tn_cfg_format(cfg, v, value, sizeof(value));
    if (st->status == TERN_ERR_CONFIG && env)
        fprintf(out, "%s=%s  (set, INVALID: tern_init fails with TERN_ERR_CONFIG)\n",
                v->name, env);
    else if (st->status == TERN_ERR_CONFIG)
        fprintf(out, "%s=%s  (INVALID here: tern_init fails with TERN_ERR_CONFIG)\n",
                v->name, value);
    else if (st->status != TERN_OK)
        fprintf(out, "%s=%s  (%sNOT AVAILABLE here: tern_init fails with %s)\n", v->name,
                env ? env : value, env ? "set, " : "", status_name(st->status));
    else if (!env)
        fprintf(out, "%s=%s\n", v->name, value);
    else if (strcmp(env, value) == 0)
        fprintf(out, "%s=%s  (set)\n", v->name, value);
    else
        fprintf(out, "%s=%s  (set as '%s')\n", v->name, value, env);
    if (st->status != TERN_OK)
        fprintf(out, "    error: %s\n", st->err);
    snprintf(scratch, sizeof(scratch), "%s", v->def[0] ? v->def : "(empty)");
    fprintf(out, "    %s; default %s\n", tn_cfg_type_name(v), scratch);
    print_wrapped(out, v->help, 4, 78);
}

/* key=value with the value on one line: backslash and newline escaped. */
static void print_kv(FILE *out, const char *name, const char *key, const char *value)
{
    fprintf(out, "%s.%s=", name, key);
    for (const char *p = value; *p; p++) {
        if (*p == '\\')
            fputs("\\\\", out);
        else if (*p == '\n')
            fputs("\\n", out);
        else
            fputc(*p, out);
    }
    fputc('\n', out);
}

/* --parsable: the same content as key=value lines, for scripts (like
 * ompi_info --parsable): NAME.value, .set, .env (when set), .default,
 * .type, .launcher, .status (ok, invalid, unavailable), .error (when not
 * ok), .help; then config.* totals and the status tern_init would return. */
static void print_var_parsable(FILE *out, const tn_config_t *cfg, const tn_cfg_var_t *v,
                               const var_state_t *st)
{
    char value[256];
    const char *env = getenv(v->name);
    tn_cfg_format(cfg, v, value, sizeof(value));
    print_kv(out, v->name, "value", st->status == TERN_ERR_CONFIG && env ? env : value);
    print_kv(out, v->name, "set", env ? "1" : "0");
    if (env)
        print_kv(out, v->name, "env", env);
    print_kv(out, v->name, "default", v->def);
    print_kv(out, v->name, "type", tn_cfg_type_name(v));
    print_kv(out, v->name, "launcher", v->flags & TN_CFG_INTERNAL ? "1" : "0");
    print_kv(out, v->name, "status", status_word(st->status));
    if (st->status != TERN_OK)
        print_kv(out, v->name, "error", st->err);
    print_kv(out, v->name, "help", v->help);
}

/* TERN_* names in the environment that no variable has, comma-separated. */
static void unknown_names(char *buf, size_t len)
{
    extern char **environ;
    size_t off = 0;
    buf[0] = '\0';
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "TERN_", 5) != 0)
            continue;
        size_t n = strcspn(*e, "=");
        char name[128];
        snprintf(name, sizeof(name), "%.*s", (int)n, *e);
        if (!tn_cfg_find(name) && off + n + 2 < len)
            off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "", name);
    }
}

/* -c: every variable of the table, checked as tern_init checks it (for
 * local_ranks ranks on this node). Returns the exit status. */
static int print_config(FILE *out, int parsable, int local_ranks)
{
    tn_config_t cfg;
    /* logs bad values and unknown TERN_* names on stderr */
    int rc = tn_cfg_load(&cfg);
    var_state_t *st = calloc(tn_cfg_count(), sizeof(*st));
    if (!st) {
        fprintf(stderr, "tern-info: out of memory\n");
        return 1;
    }
    int nbad = check_vars(&cfg, local_ranks, st);
    int ninvalid = 0, nset = 0, first = TERN_OK;
    for (size_t i = 0; i < tn_cfg_count(); i++) {
        ninvalid += st[i].status == TERN_ERR_CONFIG;
        nset += tn_cfg_is_set(tn_cfg_var(i));
        if (first == TERN_OK || (first != TERN_ERR_CONFIG && st[i].status != TERN_OK))
            first = st[i].status; /* a bad value wins: tern_init parses first */
    }
    if (first == TERN_OK && rc != TERN_OK)
        first = rc;
    if (!parsable)
        fprintf(out,
                "# TERN_* variables: the value in force, (set) when it "
                "comes from the\n# environment; checked as tern_init checks "
                "them, for %d rank%s on this node.\n\n",
                local_ranks, local_ranks == 1 ? "" : "s");
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && !parsable)
            fprintf(out, "# Set by launchers (ternrun), not by users:\n\n");
        for (size_t i = 0; i < tn_cfg_count(); i++) {
            const tn_cfg_var_t *v = tn_cfg_var(i);
            if (!!(v->flags & TN_CFG_INTERNAL) != pass)
                continue;
            if (parsable) {
                print_var_parsable(out, &cfg, v, &st[i]);
            } else {
                print_var(out, &cfg, v, &st[i]);
                fprintf(out, "\n");
            }
        }
    }
    char unknown[1024];
    unknown_names(unknown, sizeof(unknown));
    if (parsable) {
        fprintf(out, "config.variables=%zu\nconfig.set=%d\nconfig.invalid=%d\n",
                tn_cfg_count(), nset, ninvalid);
        fprintf(out, "config.unavailable=%d\nconfig.unknown=%s\n", nbad - ninvalid,
                unknown);
        fprintf(out, "config.local_ranks=%d\nconfig.tern_init=%s\n", local_ranks,
                status_name(first));
    } else {
        fprintf(out, "# %zu variables, %d set in the environment, %d invalid",
                tn_cfg_count(), nset, ninvalid);
        if (nbad > ninvalid)
            fprintf(out, ", %d not available here", nbad - ninvalid);
        fprintf(out, "\n");
    }
    if (first != TERN_OK) {
        fflush(out);
        /* tn_cfg_load logged the values that do not parse; the rest here */
        for (size_t i = 0; i < tn_cfg_count(); i++)
            if (st[i].validated)
                fprintf(stderr, "tern-info: %s\n", st[i].err);
        int nna = nbad - ninvalid;
        fprintf(stderr, "tern-info: tern_init would fail with %s (", status_name(first));
        if (ninvalid)
            fprintf(stderr, "%d bad value%s%s", ninvalid, ninvalid == 1 ? "" : "s",
                    nna ? ", " : "");
        if (nna)
            fprintf(stderr, "%d not available on this node", nna);
        if (!nbad)
            fprintf(stderr, "see above");
        fprintf(stderr, ")\n");
    }
    free(st);
    return first == TERN_OK ? 0 : 1;
}

/* Short configuration note at the end of the default output. */
static void print_config_summary(FILE *out)
{
    tn_config_t cfg;
    int rc = tn_cfg_load(&cfg);
    var_state_t *st = calloc(tn_cfg_count(), sizeof(*st));
    int nbad = st ? check_vars(&cfg, 1, st) : 0;
    int nset = 0;
    for (size_t i = 0; i < tn_cfg_count(); i++)
        nset += tn_cfg_is_set(tn_cfg_var(i));
    free(st);
    fprintf(out,
            "\nConfiguration\n  %zu TERN_* variables, %d set in the "
            "environment%s (tern-info -c lists them)\n",
            tn_cfg_count(), nset,
            rc == TERN_OK && nbad == 0 ? "" : ", SOME INVALID: tern_init would fail");
}

int main(int argc, char **argv)
{
    enum { OPT_MARKDOWN = 256, OPT_COPY, OPT_CALIBRATE, OPT_PARSABLE, OPT_MEMORY };
    static const struct option opts[] = {
        {"all", no_argument, NULL, 'a'},
        {"config", no_argument, NULL, 'c'},
        {"bindings", no_argument, NULL, 'b'},
        {"markdown", no_argument, NULL, OPT_MARKDOWN},
        {"copy", no_argument, NULL, OPT_COPY},
        {"calibrate", no_argument, NULL, OPT_CALIBRATE},
        {"memory", no_argument, NULL, OPT_MEMORY},
        {"parsable", no_argument, NULL, OPT_PARSABLE},
        {"ranks", required_argument, NULL, 'n'},
        {"version", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int mode = 0, c, parsable = 0, local_ranks = 1;
    char *end;
    opterr = 1; /* getopt names the bad option; usage follows */
    while ((c = getopt_long(argc, argv, "acbvhn:", opts, NULL)) != -1) {
        switch (c) {
        case 'a':
        case 'c':
        case 'b':
        case 'v':
        case OPT_MARKDOWN:
        case OPT_COPY:
        case OPT_CALIBRATE:
        case OPT_MEMORY:
            if (mode && mode != c) {
                fprintf(stderr, "tern-info: choose one of -a, -c, -b, --copy, "
                                "--memory, --calibrate, --markdown, -v\n");
                usage(stderr);
                return 2;
            }
            mode = c;
            break;
        case OPT_PARSABLE: parsable = 1; break;
        case 'n':
            local_ranks = (int)strtol(optarg, &end, 10);
            if (*end || end == optarg || local_ranks < 1 || local_ranks > 1 << 20) {
                fprintf(stderr,
                        "tern-info: -n '%s': the ranks per node must be a positive "
                        "integer\n",
                        optarg);
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "tern-info: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }

    if (parsable && mode == 0)
        mode = 'c'; /* --parsable alone: the configuration check */
    if ((parsable || local_ranks != 1) && mode != 'c') {
        fprintf(stderr, "tern-info: --parsable and -n go with -c\n");
        return 2;
    }
    switch (mode) {
    case 'v': printf("tern-info (Tern) %s\n", TN_BUILD_VERSION); return 0;
    case OPT_MARKDOWN: tn_cfg_write_markdown(stdout); return fflush(stdout) == 0 ? 0 : 1;
    case 'c': return print_config(stdout, parsable, local_ranks);
    case 'b': return ti_print_binding();
    case OPT_COPY: return ti_print_copy(argc, argv);
    case OPT_CALIBRATE: return ti_print_calibrate();
    case OPT_MEMORY: return ti_print_memory(argc, argv);
    default: break;
    }
    /* The transports size themselves from TERN_* (their sections print what
     * this configuration gives); bad values are reported below. */
    tn_cfg_load_quiet(&tn_cfg);
    print_build(stdout);
    print_transports(stdout);
    ti_print_am(stdout);
    ti_print_vis(stdout);
    ti_print_coll(stdout);
    ti_print_topology(stdout);
    ti_print_hugepages(stdout);
    if (mode == 'a') {
        printf("\n");
        return print_config(stdout, 0, 1);
    }
    print_config_summary(stdout);
    return 0;
}
