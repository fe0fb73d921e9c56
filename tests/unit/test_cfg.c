/* The TERN_* configuration table: size, integer, boolean and enum parsing,
 * the messages for bad values and misspelled names, the size formatting
 * round trip, and the table's own consistency. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tern/status.h>

#include "base/cfg.h"

extern char **environ;

static int failures;

#define CHECK(cond, ...)                                                             \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
            failures++;                                                              \
        }                                                                            \
    } while (0)

/* ---- stderr capture ------------------------------------------------------ */

static int saved_stderr = -1, capture_rd = -1;

/* Sends stderr (fd 2) into a pipe until capture_end. Messages of these
 * tests are far below the pipe's capacity, so nothing blocks. */
static void capture_begin(void)
{
    int p[2];
    if (pipe(p) != 0) {
        perror("pipe");
        exit(1);
    }
    fflush(stderr);
    saved_stderr = dup(STDERR_FILENO);
    dup2(p[1], STDERR_FILENO);
    close(p[1]);
    capture_rd = p[0];
}

/* Restores stderr and returns what was written (static buffer). */
static const char *capture_end(void)
{
    static char buf[16384];
    fflush(stderr);
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
    fcntl(capture_rd, F_SETFL, O_NONBLOCK);
    size_t len = 0;
    ssize_t n;
    while (len < sizeof(buf) - 1 &&
           (n = read(capture_rd, buf + len, sizeof(buf) - 1 - len)) > 0)
        len += (size_t)n;
    buf[len] = '\0';
    close(capture_rd);
    return buf;
}

/* Removes every TERN_* variable, so that the caller's environment does
 * not change the results. */
static void clear_tern_env(void)
{
    for (;;) {
        char name[256] = "";
        for (char **e = environ; e && *e; e++) {
            if (strncmp(*e, "TERN_", 5) == 0) {
                size_t len = strcspn(*e, "=");
                if (len >= sizeof(name))
                    len = sizeof(name) - 1;
                memcpy(name, *e, len);
                name[len] = '\0';
                break;
            }
        }
        if (!name[0])
            return;
        unsetenv(name);
    }
}

/* ---- sizes --------------------------------------------------------------- */

static void size_ok(const char *text, size_t want)
{
    size_t v = 12345;
    int rc = tn_cfg_parse_size(text, &v);
    CHECK(rc == TERN_OK, "'%s' rejected (%d)", text, rc);
    CHECK(rc != TERN_OK || v == want, "'%s' gave %zu, expected %zu", text, v, want);
}

static void size_bad(const char *text)
{
    size_t v = 12345;
    int rc = tn_cfg_parse_size(text, &v);
    CHECK(rc == TERN_ERR_CONFIG, "'%s' accepted as %zu", text, v);
    CHECK(v == 12345, "'%s' changed the output on failure", text);
}

static void test_sizes(void)
{
    const size_t K = 1024, M = K * K, G = M * K, T = G * K;
    size_ok("4096", 4096);
    size_ok("0", 0);
    size_ok("512K", 512 * K);
    size_ok("64M", 64 * M);
    size_ok("2G", 2 * G);
    size_ok("1T", T);
    size_ok("2GiB", 2 * G);
    size_ok("2gib", 2 * G);
    size_ok("64MB", 64 * M);
    size_ok("64m", 64 * M);
    size_ok("1KiB", K);
    size_ok("100B", 100);
    size_ok("16383T", 16383 * T);
    size_ok("18446744073709551615", SIZE_MAX);
    size_ok("007", 7);

    /* a percentage of physical memory */
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    size_t phys = (size_t)pages * (size_t)psz;
    size_t v = 0;
    CHECK(tn_cfg_parse_size("10%", &v) == TERN_OK, "'10%%' rejected");
    size_t want = (size_t)((double)phys * 0.10);
    CHECK(v + 1 >= want && v <= want + 1, "'10%%' gave %zu, expected %zu", v, want);
    CHECK(tn_cfg_parse_size("100%", &v) == TERN_OK && v + 1 >= phys && v <= phys + 1,
          "'100%%' gave %zu, physical memory %zu", v, phys);
    want = phys / 1000;
    CHECK(tn_cfg_parse_size("0.1%", &v) == TERN_OK && v + 1 >= want && v <= want + 1,
          "'0.1%%' gave %zu, expected %zu", v, want);
    want = phys / 8;
    CHECK(tn_cfg_parse_size("12.50%", &v) == TERN_OK && v + 1 >= want && v <= want + 1,
          "'12.50%%' gave %zu, expected %zu", v, want);

    /* garbage */
    size_bad("abc");
    size_bad("");
    size_bad("   ");
    size_bad("-1");
    size_bad("-1G");
    size_bad("12Q");
    size_bad("G");
    size_bad("K12");
    size_bad("12 K 3");
    size_bad("64MM");
    size_bad("64Mx");
    size_bad("10%K");
    size_bad("nan");
    size_bad("inf");
    size_bad(".");
    /* what strtod took (review18): exponents, hexadecimal, spaces, signs,
     * fractions of a unit; the documented form is digits and a unit */
    size_bad("1e3");
    size_bad("1E3");
    size_bad("0x10");
    size_bad("0x10K");
    size_bad(" 64M");
    size_bad("64M ");
    size_bad(" 64M ");
    size_bad("64 M");
    size_bad("64M\n");
    size_bad("\t64");
    size_bad("+64M");
    size_bad("1.5G");
    size_bad("1.5");
    size_bad("1.");
    size_bad("%");
    size_bad(".5%");
    size_bad("1.%");
    size_bad("1e2%");
    size_bad("10%%");
    size_bad("-10%");
    size_bad("10 %");
    size_bad("64BB");
    size_bad("64KiBB");
    /* overflow: 2^64 bytes and beyond do not fit a size_t */
    size_bad("16777216T");
    size_bad("18446744073709551616");
    size_bad("99999999999999999999999");
    size_bad("1e400");
    size_bad("99999999999T");
    size_bad("99999999999999999999T");
    size_ok("16777215T", (size_t)16777215 << 40);
    size_bad("18446744073709551616K");
    size_bad("99999999999999999999%");
    size_bad("1.99999999999999999999%");

    /* tn_cfg_parse names the variable and the value, and says when the
     * value is too large rather than malformed */
    const tn_cfg_var_t sv = {"TERN_TEST_SIZE", TN_CFG_SIZE, "0", NULL, "t", 0, 0};
    char err[512];
    v = 5;
    CHECK(tn_cfg_parse(&sv, "1e3", &v, err, sizeof(err)) == TERN_ERR_CONFIG && v == 5 &&
              strstr(err, "TERN_TEST_SIZE='1e3' is not a size") != NULL,
          "'1e3': %s", err);
    CHECK(tn_cfg_parse(&sv, "99999999999999999999T", &v, err, sizeof(err)) ==
                  TERN_ERR_CONFIG &&
              v == 5 &&
              strstr(err, "TERN_TEST_SIZE='99999999999999999999T' is too large"),
          "'99999999999999999999T': %s", err);
}

/* tn_cfg_format_size writes the largest exact binary unit, and parsing
 * its output gives the value back. */
static void test_format_size(void)
{
    static const struct {
        size_t v;
        const char *text;
    } cases[] = {
        {0, "0"},
        {1, "1"},
        {1023, "1023"},
        {1024, "1K"},
        {1536, "1536"},
        {1536 * 1024, "1536K"},
        {64ul << 20, "64M"},
        {2ul << 30, "2G"},
        {1ul << 40, "1T"},
        {1ul << 50, "1024T"},
        {(1ul << 30) + 4096, "1048580K"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[64];
        tn_cfg_format_size(cases[i].v, buf, sizeof(buf));
        CHECK(strcmp(buf, cases[i].text) == 0,
              "%zu formatted as '%s', "
              "expected '%s'",
              cases[i].v, buf, cases[i].text);
    }
    /* round trip over many values, exact ones and odd ones */
    for (int shift = 0; shift < 52; shift++) {
        size_t base = (size_t)1 << shift;
        size_t vals[] = {base, base - 1, base + 1, 3 * base, base * 1000};
        for (size_t j = 0; j < sizeof(vals) / sizeof(vals[0]); j++) {
            char buf[64];
            size_t back = 0;
            tn_cfg_format_size(vals[j], buf, sizeof(buf));
            int rc = tn_cfg_parse_size(buf, &back);
            CHECK(rc == TERN_OK && back == vals[j], "%zu -> '%s' -> %zu (rc %d)", vals[j],
                  buf, back, rc);
        }
    }
    /* a tiny buffer truncates, never overruns */
    char small[4] = {'x', 'x', 'x', 'x'};
    tn_cfg_format_size(123456789, small, 3);
    CHECK(small[2] == '\0' && small[3] == 'x', "format overran a 3-byte buffer");
}

/* ---- the other types, through tn_cfg_parse ------------------------------- */

static void test_bool(void)
{
    /* the table has no boolean yet: a stand-in variable of that type */
    const tn_cfg_var_t var = {"TERN_TEST_FLAG", TN_CFG_BOOL, "0", NULL, "test", 0, 0};
    static const char *const yes[] = {"1", "yes", "YES", "on", "On", "true", "TRUE", "y"};
    static const char *const no[] = {"0", "no", "NO", "off", "false", "n"};
    static const char *const bad[] = {"2",  "maybe", "",   "yess", "-1",
                                      "01", " 1",    "1 ", "on\n"};
    char err[512];
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        int v = -1;
        CHECK(tn_cfg_parse(&var, yes[i], &v, err, sizeof(err)) == TERN_OK && v == 1,
              "'%s' should be true (got %d)", yes[i], v);
    }
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        int v = -1;
        CHECK(tn_cfg_parse(&var, no[i], &v, err, sizeof(err)) == TERN_OK && v == 0,
              "'%s' should be false (got %d)", no[i], v);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int v = -1;
        err[0] = '\0';
        CHECK(tn_cfg_parse(&var, bad[i], &v, err, sizeof(err)) == TERN_ERR_CONFIG,
              "'%s' accepted as a boolean", bad[i]);
        CHECK(v == -1, "'%s' changed the value on failure", bad[i]);
        CHECK(strstr(err, "TERN_TEST_FLAG") && strstr(err, "yes/no"),
              "message for '%s' does not name the variable and the "
              "choices: %s",
              bad[i], err);
    }
}

static void test_int_double(void)
{
    const tn_cfg_var_t iv = {"TERN_TEST_INT", TN_CFG_INT, "0", NULL, "t",
                             TN_CFG_SIGNED,   0};
    const tn_cfg_var_t uv = {"TERN_TEST_COUNT", TN_CFG_INT, "0", NULL, "t", 0, 0};
    const tn_cfg_var_t dv = {"TERN_TEST_SECONDS", TN_CFG_DOUBLE, "0", NULL, "t", 0, 0};
    char err[512];
    long l = 0;
    CHECK(tn_cfg_parse(&iv, "42", &l, err, sizeof(err)) == TERN_OK && l == 42,
          "'42' gave %ld", l);
    CHECK(tn_cfg_parse(&iv, "-3", &l, err, sizeof(err)) == TERN_OK && l == -3,
          "'-3' gave %ld", l);
    CHECK(tn_cfg_parse(&uv, "-3", &l, err, sizeof(err)) == TERN_ERR_CONFIG &&
              strstr(err, "non-negative") != NULL,
          "unsigned '-3' accepted (%s)", err);
    static const char *const ibad[] = {"",
                                       "abc",
                                       "12x",
                                       "1.5",
                                       "99999999999999999999999",
                                       " 5",
                                       "5 ",
                                       "+5",
                                       "0x10",
                                       "1e3",
                                       "-",
                                       "--1",
                                       "- 1",
                                       "9223372036854775808",
                                       "-9223372036854775809"};
    for (size_t i = 0; i < sizeof(ibad) / sizeof(ibad[0]); i++) {
        l = 7;
        CHECK(tn_cfg_parse(&iv, ibad[i], &l, err, sizeof(err)) == TERN_ERR_CONFIG &&
                  l == 7,
              "'%s' accepted as an integer", ibad[i]);
        CHECK(strstr(err, "TERN_TEST_INT") != NULL, "message: %s", err);
    }
    CHECK(tn_cfg_parse(&iv, "9223372036854775807", &l, err, sizeof(err)) == TERN_OK &&
              l == 9223372036854775807L,
          "LONG_MAX gave %ld", l);
    CHECK(tn_cfg_parse(&iv, "-9223372036854775808", &l, err, sizeof(err)) == TERN_OK &&
              l == -9223372036854775807L - 1,
          "LONG_MIN gave %ld", l);
    CHECK(tn_cfg_parse(&uv, "-0", &l, err, sizeof(err)) == TERN_ERR_CONFIG,
          "unsigned '-0' accepted");
    CHECK(tn_cfg_parse(&uv, "99999999999999999999", &l, err, sizeof(err)) ==
                  TERN_ERR_CONFIG &&
              strstr(err, "TERN_TEST_COUNT='99999999999999999999' is out of range"),
          "overflow: %s", err);
    double d = 0;
    CHECK(tn_cfg_parse(&dv, "2.5", &d, err, sizeof(err)) == TERN_OK && d == 2.5,
          "'2.5' gave %g", d);
    CHECK(tn_cfg_parse(&dv, ".5", &d, err, sizeof(err)) == TERN_OK && d == 0.5,
          "'.5' gave %g", d);
    CHECK(tn_cfg_parse(&dv, "60", &d, err, sizeof(err)) == TERN_OK && d == 60,
          "'60' gave %g", d);
    static const char *const dbad[] = {"",   "abc", "5s",    "1e999",   "nan", "inf",
                                       "-1", "1e3", "0x10",  " 5",      "5 ",  "+5",
                                       ".",  "-",   "1.2.3", "infinity"};
    for (size_t i = 0; i < sizeof(dbad) / sizeof(dbad[0]); i++) {
        d = 7;
        CHECK(tn_cfg_parse(&dv, dbad[i], &d, err, sizeof(err)) == TERN_ERR_CONFIG &&
                  d == 7,
              "'%s' accepted as a number", dbad[i]);
    }
}

static void test_enum(void)
{
    const tn_cfg_var_t *v = tn_cfg_find("TERN_WAIT_MODE");
    CHECK(v != NULL, "TERN_WAIT_MODE is not in the table");
    if (!v)
        return;
    CHECK(v->type == TN_CFG_ENUM, "TERN_WAIT_MODE is not an enum");
    char err[512], buf[64];
    tn_config_t cfg;
    memset(&cfg, 0, sizeof(cfg));
    /* every choice parses to its index and formats back */
    const char *names[] = {"auto", "spin", "yield", "block"};
    for (int i = 0; i < 4; i++) {
        cfg.wait_mode = -1;
        CHECK(tn_cfg_parse(v, names[i], &cfg.wait_mode, err, sizeof(err)) == TERN_OK &&
                  cfg.wait_mode == i,
              "'%s' gave %d, expected %d", names[i], cfg.wait_mode, i);
        tn_cfg_format(&cfg, v, buf, sizeof(buf));
        CHECK(strcmp(buf, names[i]) == 0, "index %d formatted as '%s'", i, buf);
    }
    CHECK(tn_cfg_parse(v, "YIELD", &cfg.wait_mode, err, sizeof(err)) == TERN_OK &&
              cfg.wait_mode == 2,
          "choices are case-insensitive");
    static const char *const bad[] = {"fast",      "",      "yiel",  "yieldd",
                                      "auto|spin", "spin ", " spin", "spin\n"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cfg.wait_mode = 3;
        err[0] = '\0';
        CHECK(tn_cfg_parse(v, bad[i], &cfg.wait_mode, err, sizeof(err)) ==
                      TERN_ERR_CONFIG &&
                  cfg.wait_mode == 3,
              "'%s' accepted as a wait mode", bad[i]);
        CHECK(strstr(err, "TERN_WAIT_MODE") && strstr(err, "auto") &&
                  strstr(err, "spin") && strstr(err, "yield") && strstr(err, "block"),
              "message for '%s' does not list the choices: %s", bad[i], err);
    }
}

/* ---- tn_cfg_load: the environment ----------------------------------------- */

static void test_load(void)
{
    tn_config_t cfg;
    const char *log;
    char buf[64];

    /* defaults, nothing logged */
    clear_tern_env();
    capture_begin();
    int rc = tn_cfg_load(&cfg);
    log = capture_end();
    CHECK(rc == TERN_OK, "defaults gave %d", rc);
    CHECK(log[0] == '\0', "defaults logged: %s", log);
    CHECK(cfg.segment_size == (size_t)64 << 20, "default segment %zu", cfg.segment_size);

    /* good values */
    setenv("TERN_SEGMENT_SIZE", "2GiB", 1);
    setenv("TERN_WAIT_MODE", "yield", 1);
    setenv("TERN_SPIN_COUNT", "10", 1);
    setenv("TERN_BOOT_TIMEOUT", "2.5", 1);
    capture_begin();
    rc = tn_cfg_load(&cfg);
    log = capture_end();
    CHECK(rc == TERN_OK && log[0] == '\0', "good values gave %d: %s", rc, log);
    CHECK(cfg.segment_size == (size_t)2 << 30, "segment %zu", cfg.segment_size);
    CHECK(cfg.wait_mode == 2, "wait mode %d", cfg.wait_mode);
    CHECK(cfg.spin_count == 10, "spin count %ld", cfg.spin_count);
    CHECK(cfg.boot_timeout == 2.5, "boot timeout %g", cfg.boot_timeout);
    tn_cfg_format(&cfg, tn_cfg_find("TERN_SEGMENT_SIZE"), buf, sizeof(buf));
    CHECK(strcmp(buf, "2G") == 0, "segment formatted as '%s'", buf);
    CHECK(tn_cfg_is_set(tn_cfg_find("TERN_WAIT_MODE")), "is_set missed it");
    CHECK(!tn_cfg_is_set(tn_cfg_find("TERN_HUGEPAGES")), "is_set invented it");
    clear_tern_env();

    /* a bad size: TERN_ERR_CONFIG, and the message names variable and value */
    setenv("TERN_SEGMENT_SIZE", "abc", 1);
    capture_begin();
    rc = tn_cfg_load(&cfg);
    log = capture_end();
    CHECK(rc == TERN_ERR_CONFIG, "TERN_SEGMENT_SIZE=abc gave %d", rc);
    CHECK(strstr(log, "TERN_SEGMENT_SIZE") && strstr(log, "abc"),
          "message does not name the variable and the value: '%s'", log);
    CHECK(strstr(log, "error") != NULL, "not logged as an error: '%s'", log);
    clear_tern_env();

    /* a bad enum: the message lists the choices */
    setenv("TERN_WAIT_MODE", "fast", 1);
    capture_begin();
    rc = tn_cfg_load(&cfg);
    log = capture_end();
    CHECK(rc == TERN_ERR_CONFIG, "TERN_WAIT_MODE=fast gave %d", rc);
    CHECK(strstr(log, "TERN_WAIT_MODE") && strstr(log, "fast") &&
              strstr(log, "auto|spin|yield|block"),
          "message does not list the choices: '%s'", log);
    clear_tern_env();

    /* two bad values: both reported, not only the first */
    setenv("TERN_SEGMENT_SIZE", "12Q", 1);
    setenv("TERN_SPIN_COUNT", "many", 1);
    capture_begin();
    rc = tn_cfg_load(&cfg);
    log = capture_end();
    CHECK(rc == TERN_ERR_CONFIG, "two bad values gave %d", rc);
    CHECK(strstr(log, "12Q") && strstr(log, "many"), "not both reported: '%s'", log);
    clear_tern_env();

    /* a misspelled name: a warning naming the nearest variable, not an error,
     * and the value is not used */
    setenv("TERN_SEGMEN_SIZE", "1G", 1);
    capture_begin();
    rc = tn_cfg_load(&cfg);
    log = capture_end();
    CHECK(rc == TERN_OK, "a misspelled name gave %d", rc);
    CHECK(strstr(log, "TERN_SEGMEN_SIZE") && strstr(log, "TERN_SEGMENT_SIZE"),
          "warning does not name the misspelling and TERN_SEGMENT_SIZE: '%s'", log);
    CHECK(strstr(log, "warning") != NULL, "not logged as a warning: '%s'", log);
    CHECK(cfg.segment_size == (size_t)64 << 20, "the misspelled variable was used: %zu",
          cfg.segment_size);
    clear_tern_env();

    /* an unknown name far from every variable is still warned about */
    setenv("TERN_COMPLETELY_UNRELATED_KNOB", "1", 1);
    capture_begin();
    rc = tn_cfg_load(&cfg);
    log = capture_end();
    CHECK(rc == TERN_OK && strstr(log, "TERN_COMPLETELY_UNRELATED_KNOB"),
          "unknown name: rc %d, '%s'", rc, log);
    clear_tern_env();
}

/* ---- the table itself ---------------------------------------------------- */

static void test_table(void)
{
    tn_config_t cfg;
    clear_tern_env();
    capture_begin();
    tn_cfg_load(&cfg);
    capture_end();
    CHECK(tn_cfg_count() > 0, "empty table");
    CHECK(tn_cfg_var(tn_cfg_count()) == NULL, "tn_cfg_var past the end");
    CHECK(tn_cfg_find("TERN_NO_SUCH_VARIABLE") == NULL, "found a ghost");
    for (size_t i = 0; i < tn_cfg_count(); i++) {
        const tn_cfg_var_t *v = tn_cfg_var(i);
        CHECK(strncmp(v->name, "TERN_", 5) == 0, "%s: not TERN_*", v->name);
        CHECK(tn_cfg_find(v->name) == v, "%s: find gives another entry", v->name);
        CHECK(v->help && strlen(v->help) > 10, "%s: no help", v->name);
        CHECK(v->def != NULL, "%s: no default", v->name);
        CHECK((v->type == TN_CFG_ENUM) == (v->choices != NULL),
              "%s: choices only and always for enums", v->name);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(tn_cfg_var(j)->name, v->name) != 0, "%s declared twice",
                  v->name);
        /* the default, formatted, parses back to the same value */
        char text[256], err[512];
        union {
            size_t s;
            long l;
            int i;
            double d;
            const char *p;
        } back;
        tn_cfg_format(&cfg, v, text, sizeof(text));
        CHECK(tn_cfg_parse(v, text, &back, err, sizeof(err)) == TERN_OK,
              "%s: default formats as '%s', which does not parse: %s", v->name, text,
              err);
    }

    /* the reference page names every user variable */
    char *page = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&page, &len);
    CHECK(f != NULL, "open_memstream");
    if (!f)
        return;
    tn_cfg_write_markdown(f);
    fclose(f);
    for (size_t i = 0; i < tn_cfg_count(); i++) {
        const tn_cfg_var_t *v = tn_cfg_var(i);
        char cell[160];
        snprintf(cell, sizeof(cell), "`%s`", v->name);
        CHECK(strstr(page, cell) != NULL, "%s missing from the page", v->name);
    }
    /* every table row has the header's number of cells: a '|' inside a
     * cell (an enum's choices) must be escaped */
    int header_cells = -1;
    for (char *line = page; line && *line;) {
        char *nl = strchr(line, '\n');
        if (line[0] == '|') {
            int cells = 0;
            for (char *c = line; c < (nl ? nl : line + strlen(line)); c++)
                if (*c == '|' && (c == line || c[-1] != '\\'))
                    cells++;
            if (header_cells < 0)
                header_cells = cells;
            CHECK(cells == header_cells,
                  "row has %d separators, header %d: "
                  "%.*s",
                  cells, header_cells, (int)(nl ? nl - line : (long)strlen(line)), line);
        }
        line = nl ? nl + 1 : NULL;
    }
    free(page);
}

int main(void)
{
    clear_tern_env();
    test_sizes();
    test_format_size();
    test_bool();
    test_int_double();
    test_enum();
    test_load();
    test_table();
    clear_tern_env();
    if (failures) {
        fprintf(stderr, "FAIL: %d check(s) of the configuration table\n", failures);
        return 1;
    }
    printf("PASS: configuration table\n");
    return 0;
}
