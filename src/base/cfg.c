/* Parsing, printing and documenting the TERN_* table of cfg_vars.h. */
#include "base/cfg.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <tern/status.h>

#include "base/compiler.h"
#include "base/log.h"

extern char **environ;

tn_config_t tn_cfg;

static const tn_cfg_var_t cfg_table[] = {
#define TN_CFG_ENTRY_(field, name, type, def, choices, flags, help) \
    {name, TN_CFG_##type, def, choices, help, flags, offsetof(tn_config_t, field)},
    TN_CFG_VARS(TN_CFG_ENTRY_)
#undef TN_CFG_ENTRY_
};

size_t tn_cfg_count(void)
{
    return TN_ARRAY_LEN(cfg_table);
}

const tn_cfg_var_t *tn_cfg_var(size_t i)
{
    return i < TN_ARRAY_LEN(cfg_table) ? &cfg_table[i] : NULL;
}

const tn_cfg_var_t *tn_cfg_find(const char *name)
{
    for (size_t i = 0; i < TN_ARRAY_LEN(cfg_table); i++)
        if (strcmp(cfg_table[i].name, name) == 0)
            return &cfg_table[i];
    return NULL;
}

static size_t phys_mem_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    return pages > 0 && psz > 0 ? (size_t)pages * (size_t)psz : 0;
}

/* Why a number did not parse (tn_cfg_parse names it in its message). */
enum { NUM_OK, NUM_SYNTAX, NUM_RANGE, NUM_NEGATIVE };

/* Decimal digits at *s into *v, advancing *s: at least one digit, and
 * the value must fit 64 bits. Signs, spaces, "0x" and exponents are not
 * digits, so they are left for the caller to refuse. */
static int take_digits(const char **s, uint64_t *v, int *ndigits)
{
    uint64_t x = 0;
    int n = 0;
    const char *p = *s;
    for (; *p >= '0' && *p <= '9'; p++, n++) {
        unsigned d = (unsigned)(*p - '0');
        if (x > (UINT64_MAX - d) / 10)
            return NUM_RANGE;
        x = x * 10 + d;
    }
    if (n == 0)
        return NUM_SYNTAX;
    *s = p;
    *v = x;
    if (ndigits)
        *ndigits = n;
    return NUM_OK;
}

/* A size: DIGITS, optionally followed by one binary unit K, M, G or T
 * (any case; "KB", "KiB" and a bare "B" for bytes also read as written),
 * or a percentage of physical memory DIGITS[.DIGITS]%. Nothing else: no
 * spaces, signs, fractions of a unit, exponents or hexadecimal (strtod
 * took "1e3", "0x10" and " 64M", review18). Sizes past 2^64 - 1 bytes
 * are NUM_RANGE. */
static int size_parse(const char *text, size_t *out)
{
    const char *s = text;
    uint64_t v;
    int rc = take_digits(&s, &v, NULL);
    if (rc != NUM_OK)
        return rc;
    if (*s == '.' || *s == '%') { /* a percentage, possibly with a fraction */
        uint64_t den = 100;
        if (*s == '.') {
            s++;
            uint64_t frac;
            int nf;
            if ((rc = take_digits(&s, &frac, &nf)) != NUM_OK)
                return rc;
            if (*s != '%')
                return NUM_SYNTAX; /* "1.5G": a fraction only of a percentage */
            for (int i = 0; i < nf; i++) {
                if (v > UINT64_MAX / 10 || den > UINT64_MAX / 10)
                    return NUM_RANGE;
                v *= 10;
                den *= 10;
            }
            if (v > UINT64_MAX - frac)
                return NUM_RANGE;
            v += frac;
        }
        if (s[1] != '\0')
            return NUM_SYNTAX;
        unsigned __int128 b = (unsigned __int128)phys_mem_bytes() * v / den;
        if (b > SIZE_MAX)
            return NUM_RANGE;
        *out = (size_t)b;
        return NUM_OK;
    }
    unsigned shift = 0;
    switch (*s) {
    case '\0': break;
    case 'B':
    case 'b':
        if (s[1] != '\0')
            return NUM_SYNTAX;
        s++;
        break;
    case 'K':
    case 'k': shift = 10; break;
    case 'M':
    case 'm': shift = 20; break;
    case 'G':
    case 'g': shift = 30; break;
    case 'T':
    case 't': shift = 40; break;
    default: return NUM_SYNTAX;
    }
    if (shift) {
        s++;
        if (*s == 'i' || *s == 'I')
            s++;
        if (*s == 'b' || *s == 'B')
            s++;
        if (*s != '\0')
            return NUM_SYNTAX;
        if (v > (uint64_t)SIZE_MAX >> shift)
            return NUM_RANGE;
        v <<= shift;
    }
    if (v > SIZE_MAX)
        return NUM_RANGE;
    *out = (size_t)v;
    return NUM_OK;
}

int tn_cfg_parse_size(const char *text, size_t *out)
{
    return size_parse(text, out) == NUM_OK ? TERN_OK : TERN_ERR_CONFIG;
}

/* An integer: DIGITS, or -DIGITS where negative values are allowed; no
 * spaces or '+' (strtol skipped leading spaces), within a long. */
static int int_parse(const char *text, int allow_negative, long *out)
{
    const char *s = text;
    int neg = *s == '-';
    if (neg)
        s++;
    uint64_t v;
    int rc = take_digits(&s, &v, NULL);
    if (rc != NUM_OK)
        return rc;
    if (*s != '\0')
        return NUM_SYNTAX;
    if (neg && !allow_negative)
        return NUM_NEGATIVE;
    if (v > (uint64_t)LONG_MAX + (neg ? 1u : 0u))
        return NUM_RANGE;
    *out = neg ? (long)(0 - v) : (long)v;
    return NUM_OK;
}

/* A number: DIGITS[.DIGITS] (or .DIGITS), with '-' in front where
 * negative values are allowed; no exponent, hexadecimal, infinity, NaN
 * or spaces (all of which strtod takes). */
static int double_parse(const char *text, int allow_negative, double *out)
{
    const char *s = text;
    int neg = *s == '-';
    if (neg)
        s++;
    int digits = 0;
    for (; *s >= '0' && *s <= '9'; s++)
        digits++;
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++)
            digits++;
    if (!digits || *s != '\0')
        return NUM_SYNTAX;
    if (neg && !allow_negative)
        return NUM_NEGATIVE;
    errno = 0;
    double v = strtod(text, NULL);
    if (errno == ERANGE || !isfinite(v))
        return NUM_RANGE;
    *out = v;
    return NUM_OK;
}

static int parse_bool(const char *t, int *out)
{
    static const char *const yes[] = {"1", "yes", "on", "true", "y"};
    static const char *const no[] = {"0", "no", "off", "false", "n"};
    for (size_t i = 0; i < TN_ARRAY_LEN(yes); i++) {
        if (strcasecmp(t, yes[i]) == 0) {
            *out = 1;
            return TERN_OK;
        }
        if (strcasecmp(t, no[i]) == 0) {
            *out = 0;
            return TERN_OK;
        }
    }
    return TERN_ERR_CONFIG;
}

/* Index of text among "a|b|c", or -1. */
static int enum_index(const char *choices, const char *text)
{
    size_t tl = strlen(text);
    int idx = 0;
    for (const char *c = choices; *c; idx++) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (len == tl && strncasecmp(c, text, len) == 0)
            return idx;
        if (!bar)
            break;
        c = bar + 1;
    }
    return -1;
}

int tn_cfg_parse(const tn_cfg_var_t *var, const char *text, void *dst, char *err,
                 size_t errlen)
{
    switch (var->type) {
    case TN_CFG_SIZE: {
        size_t v;
        int rc = size_parse(text, &v);
        if (rc == NUM_OK) {
            *(size_t *)dst = v;
            return TERN_OK;
        }
        if (rc == NUM_RANGE)
            snprintf(err, errlen,
                     "%s='%s' is too large: a size is at most 2^64 - 1 bytes "
                     "(16777215T and a little more)",
                     var->name, text);
        else
            snprintf(err, errlen,
                     "%s='%s' is not a size: use whole bytes with an optional unit "
                     "K, M, G or T (4096, 512K, 64M, 2G), or a percentage of memory "
                     "(10%%, 0.5%%); no spaces, signs, exponents or fractions of a unit",
                     var->name, text);
        return TERN_ERR_CONFIG;
    }
    case TN_CFG_INT: {
        long v;
        int rc = int_parse(text, (var->flags & TN_CFG_SIGNED) != 0, &v);
        if (rc == NUM_OK) {
            *(long *)dst = v;
            return TERN_OK;
        }
        if (rc == NUM_RANGE)
            snprintf(err, errlen, "%s='%s' is out of range: at most %ld", var->name, text,
                     LONG_MAX);
        else
            snprintf(err, errlen, "%s='%s' is not a%s integer (decimal digits only)",
                     var->name, text, var->flags & TN_CFG_SIGNED ? "n" : " non-negative");
        return TERN_ERR_CONFIG;
    }
    case TN_CFG_BOOL:
        if (parse_bool(text, (int *)dst) == TERN_OK)
            return TERN_OK;
        snprintf(err, errlen, "%s='%s' is not a boolean: use 1/0, yes/no, on/off",
                 var->name, text);
        return TERN_ERR_CONFIG;
    case TN_CFG_ENUM: {
        int i = enum_index(var->choices, text);
        if (i >= 0) {
            *(int *)dst = i;
            return TERN_OK;
        }
        snprintf(err, errlen, "%s='%s' is not one of %s", var->name, text, var->choices);
        return TERN_ERR_CONFIG;
    }
    case TN_CFG_DOUBLE: {
        double v;
        int rc = double_parse(text, (var->flags & TN_CFG_SIGNED) != 0, &v);
        if (rc == NUM_OK) {
            *(double *)dst = v;
            return TERN_OK;
        }
        snprintf(err, errlen,
                 "%s='%s' is not a%s number: use decimal digits with an optional "
                 "fraction (60, 2.5)",
                 var->name, text, var->flags & TN_CFG_SIGNED ? "" : " non-negative");
        return TERN_ERR_CONFIG;
    }
    case TN_CFG_STRING: *(const char **)dst = text; return TERN_OK;
    }
    snprintf(err, errlen, "%s: unknown variable type", var->name);
    return TERN_ERR_CONFIG;
}

/* Edit distance, for the "did you mean" hint on misspelled names. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return (size_t)-1;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = diag + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static void warn_unknown(const char *name)
{
    const char *best = NULL;
    size_t bestd = (size_t)-1;
    for (size_t i = 0; i < TN_ARRAY_LEN(cfg_table); i++) {
        size_t d = edit_distance(name, cfg_table[i].name);
        if (d < bestd) {
            bestd = d;
            best = cfg_table[i].name;
        }
    }
    if (best && bestd <= 4)
        tn_warn("unknown variable %s ignored; did you mean %s? "
                "(tern-info -c lists them all)",
                name, best);
    else
        tn_warn("unknown variable %s ignored (tern-info -c lists them all)", name);
}

static int load(tn_config_t *cfg, int report)
{
    int rc = TERN_OK;
    char err[512];
    for (size_t i = 0; i < TN_ARRAY_LEN(cfg_table); i++) {
        const tn_cfg_var_t *v = &cfg_table[i];
        void *dst = (char *)cfg + v->offset;
        if (tn_cfg_parse(v, v->def, dst, err, sizeof(err)) != TERN_OK)
            tn_fatal(1, "internal: default of %s does not parse", v->name);
        const char *env = getenv(v->name);
        if (env && tn_cfg_parse(v, env, dst, err, sizeof(err)) != TERN_OK) {
            if (report)
                tn_error("%s", err);
            rc = TERN_ERR_CONFIG;
        }
    }
    for (char **e = environ; report && e && *e; e++) {
        if (strncmp(*e, "TERN_", 5) != 0)
            continue;
        const char *eq = strchr(*e, '=');
        size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
        char name[128];
        if (len >= sizeof(name))
            len = sizeof(name) - 1;
        memcpy(name, *e, len);
        name[len] = '\0';
        if (!tn_cfg_find(name))
            warn_unknown(name);
    }
    if (cfg == &tn_cfg)
        tn_log_level = (int)cfg->verbose;
    return rc;
}

int tn_cfg_load(tn_config_t *cfg)
{
    return load(cfg, 1);
}

int tn_cfg_load_quiet(tn_config_t *cfg)
{
    return load(cfg, 0);
}

void tn_cfg_format_size(size_t v, char *buf, size_t len)
{
    static const char units[] = "KMGT";
    int u = -1;
    while (v != 0 && v % 1024 == 0 && u < 3) {
        v /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, len, "%zu", v);
    else
        snprintf(buf, len, "%zu%c", v, units[u]);
}

void tn_cfg_format(const tn_config_t *cfg, const tn_cfg_var_t *var, char *buf, size_t len)
{
    const void *src = (const char *)cfg + var->offset;
    switch (var->type) {
    case TN_CFG_SIZE: tn_cfg_format_size(*(const size_t *)src, buf, len); break;
    case TN_CFG_INT: snprintf(buf, len, "%ld", *(const long *)src); break;
    case TN_CFG_BOOL: snprintf(buf, len, "%s", *(const int *)src ? "1" : "0"); break;
    case TN_CFG_DOUBLE: snprintf(buf, len, "%g", *(const double *)src); break;
    case TN_CFG_STRING: snprintf(buf, len, "%s", *(const char *const *)src); break;
    case TN_CFG_ENUM: {
        int idx = *(const int *)src;
        const char *c = var->choices;
        for (int i = 0; i < idx && c; i++) {
            c = strchr(c, '|');
            if (c)
                c++;
        }
        size_t n = c ? strcspn(c, "|") : 0;
        snprintf(buf, len, "%.*s", (int)n, c ? c : "");
        break;
    }
    }
}

uint64_t tn_cfg_job_fingerprint(const tn_config_t *cfg)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a over "NAME=value;" */
    char val[256];
    for (size_t i = 0; i < TN_ARRAY_LEN(cfg_table); i++) {
        const tn_cfg_var_t *v = &cfg_table[i];
        if (!(v->flags & TN_CFG_JOB))
            continue;
        tn_cfg_format(cfg, v, val, sizeof(val));
        for (const char *parts[] = {v->name, "=", val, ";"}, **q = parts; q < parts + 4;
             q++)
            for (const unsigned char *c = (const unsigned char *)*q; *c; c++)
                h = (h ^ *c) * 1099511628211ull;
    }
    return h;
}

void tn_cfg_job_list(const tn_config_t *cfg, char *buf, size_t len)
{
    size_t used = 0;
    char val[256];
    buf[0] = '\0';
    for (size_t i = 0; i < TN_ARRAY_LEN(cfg_table) && used < len; i++) {
        const tn_cfg_var_t *v = &cfg_table[i];
        if (!(v->flags & TN_CFG_JOB))
            continue;
        tn_cfg_format(cfg, v, val, sizeof(val));
        int w =
            snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", v->name, val);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

int tn_cfg_is_set(const tn_cfg_var_t *var)
{
    return getenv(var->name) != NULL;
}

const char *tn_cfg_type_name(const tn_cfg_var_t *v)
{
    switch (v->type) {
    case TN_CFG_SIZE: return "size";
    case TN_CFG_INT: return "integer";
    case TN_CFG_BOOL: return "boolean";
    case TN_CFG_ENUM: return v->choices;
    case TN_CFG_DOUBLE: return "number";
    case TN_CFG_STRING: return "text";
    }
    return "?";
}

/* Writes s as a Markdown table cell: a bare '|' would end the cell. */
static void md_cell(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', out);
        fputc(*s, out);
    }
}

void tn_cfg_write_markdown(FILE *out)
{
    fprintf(out, "# Configuration\n\n"
                 "<!-- Generated by `tern-info --markdown` from "
                 "src/base/cfg_vars.h; do not edit. -->\n\n"
                 "Tern is configured only through environment variables. "
                 "Sizes are whole bytes with an optional unit K, M, G or T "
                 "(`4096`, `512K`, `64M`, `2G`; powers of 1024, either case, "
                 "`KB` and `KiB` read as `K`), or a percentage of physical "
                 "memory (`10%%`, `0.5%%`). Integers are decimal digits, with "
                 "a leading `-` only where the variable takes negative values; "
                 "numbers are digits with an optional fraction (`2.5`). No "
                 "spaces, `+` signs, exponents (`1e3`) or hexadecimal (`0x10`). "
                 "A bad value stops `tern_init` "
                 "with a message naming the variable; an unknown `TERN_*` "
                 "name is warned about. `tern-info -c` prints the values in "
                 "force.\n\n"
                 "| Variable | Type | Default | Description |\n"
                 "|---|---|---|---|\n");
    for (size_t i = 0; i < TN_ARRAY_LEN(cfg_table); i++) {
        const tn_cfg_var_t *v = &cfg_table[i];
        if (v->flags & TN_CFG_INTERNAL)
            continue;
        fprintf(out, "| `%s` | ", v->name);
        md_cell(out, tn_cfg_type_name(v));
        fprintf(out, " | `%s` | ", v->def[0] ? v->def : "(empty)");
        md_cell(out, v->help);
        if (v->flags & TN_CFG_JOB)
            fprintf(out, " The same on every rank: tern_init stops on every rank "
                         "when they differ.");
        fprintf(out, " |\n");
    }
    fprintf(out, "\nSet by launchers (not for users):");
    for (size_t i = 0; i < TN_ARRAY_LEN(cfg_table); i++)
        if (cfg_table[i].flags & TN_CFG_INTERNAL)
            fprintf(out, " `%s`", cfg_table[i].name);
    fprintf(out, ".\n");
}

void tn_format_bytes(size_t v, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double d = (double)v;
    int u = 0;
    while (d >= 1024 && u < 5) {
        d /= 1024;
        u++;
    }
    if (u == 0 || d == (double)(size_t)d)
        snprintf(buf, len, "%.0f %s", d, units[u]);
    else
        snprintf(buf, len, "%.1f %s", d, units[u]);
}
