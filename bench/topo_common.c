/* What the topology benchmarks share: child processes on chosen CPUs with
 * chosen settings, their "TBT key=value" result lines, the NUMA domains
 * of the machine (sysfs) and page placement read back with move_pages. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "topo_bench.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

double tbt_num(const char *line, const char *key)
{
    char buf[64];
    if (tbt_str(line, key, buf, sizeof buf) != 0)
        return NAN;
    char *end;
    double v = strtod(buf, &end);
    return end == buf ? NAN : v;
}

int tbt_str(const char *line, const char *key, char *buf, size_t len)
{
    size_t kl = strlen(key);
    for (const char *p = line; (p = strstr(p, key)) != NULL; p += kl) {
        if ((p == line || p[-1] == ' ') && p[kl] == '=') {
            const char *v = p + kl + 1;
            size_t n = strcspn(v, " \n");
            snprintf(buf, len, "%.*s", (int)n, v);
            return 0;
        }
    }
    return -1;
}

/* "0,1" or "0-3" into a cpu_set_t. */
static int parse_cpus(const char *list, cpu_set_t *set)
{
    CPU_ZERO(set);
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", list);
    for (char *tok = strtok(tmp, ","); tok; tok = strtok(NULL, ",")) {
        int a, b;
        if (sscanf(tok, "%d-%d", &a, &b) == 2) {
            for (int c = a; c <= b && c < CPU_SETSIZE; c++)
                CPU_SET(c, set);
        } else if (sscanf(tok, "%d", &a) == 1 && a >= 0 && a < CPU_SETSIZE) {
            CPU_SET(a, set);
        } else {
            return -1;
        }
    }
    return CPU_COUNT(set) > 0 ? 0 : -1;
}

int tbt_run(char *const argv[], const char *const sets[], int nsets, const char *cpus,
            char *out, size_t outlen)
{
    cpu_set_t old, want;
    int pinned = 0;
    /* The child inherits this process's CPUs; ternrun binds the ranks
     * within them. */
    if (cpus && sched_getaffinity(0, sizeof old, &old) == 0 &&
        parse_cpus(cpus, &want) == 0 && sched_setaffinity(0, sizeof want, &want) == 0)
        pinned = 1;
    char **env = tb_env_with(sets, nsets);
    int st = tb_run_child(argv, env, out, outlen, NULL);
    tb_env_free(env);
    if (pinned)
        sched_setaffinity(0, sizeof old, &old);
    return st;
}

const char *tbt_next(const char *out, const char *match, size_t *pos, char *line,
                     size_t len)
{
    const char *p = out + *pos;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        const char *next = p + l + (e ? 1 : 0);
        if (l > strlen(TBT_TAG) && !strncmp(p, TBT_TAG " ", strlen(TBT_TAG) + 1)) {
            snprintf(line, len, "%.*s", (int)l, p);
            if (!match || strstr(line, match)) {
                *pos = (size_t)(next - out);
                return line;
            }
        }
        p = next;
    }
    *pos = (size_t)(p - out);
    return NULL;
}

void tbt_why(const char *out, char *buf, size_t len)
{
    const char *best = NULL, *p = out;
    size_t best_len = 0;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l > 0 && strncmp(p, TBT_TAG " ", strlen(TBT_TAG) + 1)) {
            best = p;
            best_len = l;
        }
        p += l + (e ? 1 : 0);
    }
    if (best)
        snprintf(buf, len, "%.*s", (int)best_len, best);
    else
        snprintf(buf, len, "no output");
}

static int read_text(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char *ok = fgets(buf, (int)len, f);
    fclose(f);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

int tbt_numa_count(void)
{
    int n = 0;
    char path[96], buf[64];
    for (int d = 0; d < 1024; d++) {
        snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", d);
        if (read_text(path, buf, sizeof buf) == 0)
            n = d + 1;
    }
    return n > 0 ? n : 1;
}

int tbt_numa_cpus(int d, char *buf, size_t len)
{
    char path[96];
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", d);
    return read_text(path, buf, len);
}

void tbt_placement(const void *addr, size_t len, char *buf, size_t buflen)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t npages = len / page, want = npages < 65536 ? npages : 65536;
    void **pages = malloc((want ? want : 1) * sizeof *pages);
    int *status = malloc((want ? want : 1) * sizeof *status);
    long counts[64] = {0}, absent = 0;
    if (!pages || !status || want == 0) {
        snprintf(buf, buflen, "not read back");
        free(pages);
        free(status);
        return;
    }
    uintptr_t base = ((uintptr_t)addr + page - 1) & ~(uintptr_t)(page - 1);
    for (size_t i = 0; i < want; i++)
        pages[i] = (void *)(base + (npages - 1) * i / want * page);
    if (syscall(SYS_move_pages, 0, (unsigned long)want, pages, NULL, status, 0) != 0) {
        snprintf(buf, buflen, "not read back (move_pages: %s)", strerror(errno));
    } else {
        for (size_t i = 0; i < want; i++) {
            if (status[i] >= 0 && status[i] < 64)
                counts[status[i]]++;
            else
                absent++;
        }
        size_t off = 0;
        buf[0] = '\0';
        for (int d = 0; d < 64; d++)
            if (counts[d] && off + 24 < buflen)
                off += (size_t)snprintf(buf + off, buflen - off, "%sNUMA %d %.0f%%",
                                        off ? ", " : "", d,
                                        100.0 * counts[d] / (double)want);
        if (absent && off + 24 < buflen)
            snprintf(buf + off, buflen - off, "%sunbacked %.0f%%", off ? ", " : "",
                     100.0 * absent / (double)want);
    }
    free(pages);
    free(status);
}
