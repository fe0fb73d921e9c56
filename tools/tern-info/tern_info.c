/* tern-info: prints the version and build options of this Tern, its
 * transports, the node's topology and huge pages (default), every TERN_*
 * variable (-c), the configuration reference page (--markdown), this
 * process's binding inside a job (-b), the copy decisions inside a job
 * (--copy, which calls tern_init) or a new copy calibration (--calibrate). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>

#include "base/cfg.h"
#include "base/compiler.h"
#include "build_info.h"
#include "tern_info.h"
#include "transports.h"
#ifdef TERN_HAVE_OFI
#include "xport/ofi/ofi.h"
#endif

static void usage(FILE *out)
{
    fprintf(out, "Usage: tern-info [option]\n"
                 "Shows what this build of Tern offers on this machine.\n"
                 "\n"
                 "  (none)          version, build options, transports, topology,\n"
                 "                  huge pages\n"
                 "  -a, --all       all of the above and every TERN_* variable\n"
                 "  -c, --config    every TERN_* variable: value in force, default,\n"
                 "                  description; exits 1 if one has a bad value\n"
                 "  -b, --bindings  this process's rank, CPU binding and NUMA domain;\n"
                 "                  run it as a job: ternrun -n 4 tern-info -b\n"
                 "      --copy      the topology-aware copy decisions (distance class\n"
                 "                  of every local rank, thresholds, the copy chosen\n"
                 "                  per size); run it as a job: ternrun -n 4 tern-info\n"
                 "                  --copy\n"
                 "      --calibrate measure where non-temporal copies pay, now, and\n"
                 "                  keep the result for TERN_SHM_TOPO=auto\n"
                 "      --markdown  the configuration reference page\n"
                 "                  (docs/configuration.md) on standard output\n"
                 "  -v, --version   the version only\n"
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

static void print_transports(FILE *out)
{
    fprintf(out, "\nTransports\n");
    for (size_t i = 0; i < TN_ARRAY_LEN(ti_transports); i++)
        fprintf(out, "  %-6s %s\n", ti_transports[i].name, ti_transports[i].serves);
#ifdef TERN_HAVE_OFI
    /* What the network transport would use with the current TERN_OFI_*
     * values (libfabric is loaded for this; nothing is opened). */
    const char *prov = getenv("TERN_OFI_PROVIDER"), *dom = getenv("TERN_OFI_DOMAIN");
    tn_ofi_opts_t o = {.provider = prov ? prov : "", .domain = dom ? dom : ""};
    fprintf(out, "\nNetwork (ofi, with TERN_OFI_PROVIDER='%s' TERN_OFI_DOMAIN='%s')\n",
            o.provider, o.domain);
    if (tn_ofi_describe(&o, out) != TERN_OK)
        fprintf(out, "  (no usable provider: see the message above)\n");
#endif
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

/* One variable: NAME=value in force, where it came from, then its
 * default, type and help. Returns 1 if its environment value is bad. */
static int print_var(FILE *out, const tn_config_t *cfg, const tn_cfg_var_t *v)
{
    char value[256], err[512], scratch[64];
    const char *env = getenv(v->name);
    int bad = 0;
    if (env) {
        /* parse again only to get the message: tn_cfg_load logged it to
         * stderr, this puts it next to the variable */
        union {
            size_t s;
            long l;
            int i;
            double d;
            const char *p;
        } dst;
        bad = tn_cfg_parse(v, env, &dst, err, sizeof(err)) != 0;
    }
    if (bad) {
        fprintf(out,
                "%s=%s  (set, INVALID: tern_init fails with "
                "TERN_ERR_CONFIG)\n",
                v->name, env);
        fprintf(out, "    error: %s\n", err);
    } else {
        tn_cfg_format(cfg, v, value, sizeof(value));
        if (!env)
            fprintf(out, "%s=%s\n", v->name, value);
        else if (strcmp(env, value) == 0)
            fprintf(out, "%s=%s  (set)\n", v->name, value);
        else
            fprintf(out, "%s=%s  (set as '%s')\n", v->name, value, env);
    }
    snprintf(scratch, sizeof(scratch), "%s", v->def[0] ? v->def : "(empty)");
    fprintf(out, "    %s; default %s\n", tn_cfg_type_name(v), scratch);
    print_wrapped(out, v->help, 4, 78);
    return bad;
}

/* -c: every variable of the table. Returns the exit status. */
static int print_config(FILE *out)
{
    tn_config_t cfg;
    /* logs bad values and unknown TERN_* names on stderr */
    int rc = tn_cfg_load(&cfg);
    int nbad = 0, nset = 0;
    fprintf(out, "# TERN_* variables: the value in force, (set) when it "
                 "comes from the\n# environment.\n\n");
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            fprintf(out, "# Set by launchers (ternrun), not by users:\n\n");
        for (size_t i = 0; i < tn_cfg_count(); i++) {
            const tn_cfg_var_t *v = tn_cfg_var(i);
            if (!!(v->flags & TN_CFG_INTERNAL) != pass)
                continue;
            nbad += print_var(out, &cfg, v);
            nset += tn_cfg_is_set(v);
            fprintf(out, "\n");
        }
    }
    fprintf(out, "# %zu variables, %d set in the environment, %d invalid\n",
            tn_cfg_count(), nset, nbad);
    if (nbad || rc != TERN_OK) {
        fflush(out);
        fprintf(stderr,
                "tern-info: %d TERN_* variable%s %s a bad value: "
                "tern_init would fail with TERN_ERR_CONFIG\n",
                nbad, nbad == 1 ? "" : "s", nbad == 1 ? "has" : "have");
        return 1;
    }
    return 0;
}

/* Short configuration note at the end of the default output. */
static void print_config_summary(FILE *out)
{
    tn_config_t cfg;
    int rc = tn_cfg_load(&cfg);
    int nset = 0;
    for (size_t i = 0; i < tn_cfg_count(); i++)
        nset += tn_cfg_is_set(tn_cfg_var(i));
    fprintf(out,
            "\nConfiguration\n  %zu TERN_* variables, %d set in the "
            "environment%s (tern-info -c lists them)\n",
            tn_cfg_count(), nset,
            rc == TERN_OK ? "" : ", SOME INVALID: tern_init would fail");
}

int main(int argc, char **argv)
{
    enum { OPT_MARKDOWN = 256, OPT_COPY, OPT_CALIBRATE };
    static const struct option opts[] = {
        {"all", no_argument, NULL, 'a'},
        {"config", no_argument, NULL, 'c'},
        {"bindings", no_argument, NULL, 'b'},
        {"markdown", no_argument, NULL, OPT_MARKDOWN},
        {"copy", no_argument, NULL, OPT_COPY},
        {"calibrate", no_argument, NULL, OPT_CALIBRATE},
        {"version", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int mode = 0, c;
    opterr = 1; /* getopt names the bad option; usage follows */
    while ((c = getopt_long(argc, argv, "acbvh", opts, NULL)) != -1) {
        switch (c) {
        case 'a':
        case 'c':
        case 'b':
        case 'v':
        case OPT_MARKDOWN:
        case OPT_COPY:
        case OPT_CALIBRATE:
            if (mode && mode != c) {
                fprintf(stderr, "tern-info: choose one of -a, -c, -b, --copy, "
                                "--calibrate, --markdown, -v\n");
                usage(stderr);
                return 2;
            }
            mode = c;
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

    switch (mode) {
    case 'v':
        printf("%d.%d.%d\n", TERN_VERSION_MAJOR, TERN_VERSION_MINOR, TERN_VERSION_PATCH);
        return 0;
    case OPT_MARKDOWN: tn_cfg_write_markdown(stdout); return fflush(stdout) == 0 ? 0 : 1;
    case 'c': return print_config(stdout);
    case 'b': return ti_print_binding();
    case OPT_COPY: return ti_print_copy(argc, argv);
    case OPT_CALIBRATE: return ti_print_calibrate();
    default: break;
    }
    print_build(stdout);
    print_transports(stdout);
    ti_print_topology(stdout);
    ti_print_hugepages(stdout);
    if (mode == 'a') {
        printf("\n");
        return print_config(stdout);
    }
    print_config_summary(stdout);
    return 0;
}
