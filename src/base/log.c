/* Logging to stderr with a "tern[rank@host]" prefix, one write per line so
 * that lines of different ranks do not interleave. */
#include "base/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int tn_log_level = 0;
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
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
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
