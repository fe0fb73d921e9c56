/* Logging to stderr with a "tern[rank@host]" prefix, one write per line so
 * that lines of different ranks do not interleave. */
#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int tn_log_level = 0;
unsigned long tn_log_errors;
int tn_trace_fd = -1;
static int log_rank = -1;
static char log_host[64];

const char *tn_log_host(void)
{
    if (!log_host[0]) {
        if (gethostname(log_host, sizeof(log_host) - 1) != 0)
            strcpy(log_host, "?");
        char *dot = strchr(log_host, '.');
        if (dot)
            *dot = '\0';
    }
    return log_host;
}

void tn_log_set_rank(int rank)
{
    log_rank = rank;
}

static void log_v(int level, const char *fmt, va_list ap)
{
    static const char *const tag[] = {"error: ", "warning: ", "", "debug: ", "trace: "};
    char line[2048];
    int n;
    if (level == TN_LOG_ERROR)
        __atomic_fetch_add(&tn_log_errors, 1, __ATOMIC_RELAXED);
    if (log_rank >= 0)
        n = snprintf(line, sizeof(line), "tern[%d@%s] %s", log_rank, tn_log_host(),
                     tag[level + 1]);
    else
        n = snprintf(line, sizeof(line), "tern[%s] %s", tn_log_host(), tag[level + 1]);
    if (n < 0)
        return;
    int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    if (m < 0)
        return;
    size_t len = strlen(line);
    if (len == 0 || line[len - 1] != '\n') {
        line[len++] = '\n';
        line[len] = '\0';
    }
    int fd = level == TN_LOG_TRACE && tn_trace_fd >= 0 ? tn_trace_fd : STDERR_FILENO;
    ssize_t w = write(fd, line, len);
    (void)w;
}

int tn_trace_open(const char *pattern, int rank)
{
    char path[4096];
    const char *r = strstr(pattern, "%r");
    int n = r ? snprintf(path, sizeof(path), "%.*s%d%s", (int)(r - pattern), pattern,
                         rank, r + 2)
              : snprintf(path, sizeof(path), "%s.%d", pattern, rank);
    if (n < 0 || (size_t)n >= sizeof(path)) {
        tn_error("TERN_TRACE='%s' makes a path longer than %zu bytes", pattern,
                 sizeof(path) - 1);
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_APPEND, 0644);
    if (fd < 0) {
        tn_error("TERN_TRACE: cannot open '%s' for writing: %s; set TERN_TRACE to a "
                 "writable path",
                 path, strerror(errno));
        return -1;
    }
    tn_trace_fd = fd;
    return 0;
}

void tn_trace_close(void)
{
    if (tn_trace_fd >= 0)
        close(tn_trace_fd);
    tn_trace_fd = -1;
}

void tn_log(int level, const char *fmt, ...)
{
    if (level < TN_LOG_ERROR)
        level = TN_LOG_ERROR;
    if (level > TN_LOG_TRACE)
        level = TN_LOG_TRACE;
    va_list ap;
    va_start(ap, fmt);
    log_v(level, fmt, ap);
    va_end(ap);
}

void tn_fatal(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_v(TN_LOG_ERROR, fmt, ap);
    va_end(ap);
    _exit(code ? code : 1);
}
