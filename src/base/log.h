/* Logging with a rank and host prefix; levels gated by TERN_VERBOSE. */
#ifndef TN_LOG_H
#define TN_LOG_H

#include <stdarg.h>

enum {
    TN_LOG_ERROR = -1,
    TN_LOG_WARN = 0,
    TN_LOG_INFO = 1,
    TN_LOG_DEBUG = 2,
    TN_LOG_TRACE = 3
};

extern int tn_log_level; /* from TERN_VERBOSE; warnings and errors always */
/* Errors logged by this process so far (any thread; relaxed count). */
extern unsigned long tn_log_errors;

/* Sets the prefix used from now on: "tern[rank@host]". rank < 0: unknown. */
void tn_log_set_rank(int rank);
const char *tn_log_host(void);

void tn_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define tn_error(...) tn_log(TN_LOG_ERROR, __VA_ARGS__)
#define tn_warn(...)  tn_log(TN_LOG_WARN, __VA_ARGS__)
#define tn_info(...)                          \
    do {                                      \
        if (tn_log_level >= TN_LOG_INFO)      \
            tn_log(TN_LOG_INFO, __VA_ARGS__); \
    } while (0)
#define tn_debug(...)                          \
    do {                                       \
        if (tn_log_level >= TN_LOG_DEBUG)      \
            tn_log(TN_LOG_DEBUG, __VA_ARGS__); \
    } while (0)
#define tn_trace(...)                                         \
    do {                                                      \
        if (tn_log_level >= TN_LOG_TRACE || tn_trace_fd >= 0) \
            tn_log(TN_LOG_TRACE, __VA_ARGS__);                \
    } while (0)

extern int tn_trace_fd; /* TERN_TRACE file, or -1: trace lines go there */

/* Opens the trace file of rank from pattern (%r: the rank; else .RANK is
 * appended). Returns 0, or -1 after logging why it could not. */
int tn_trace_open(const char *pattern, int rank);
void tn_trace_close(void);

/* Prints the message with the prefix and exits the process with code;
 * under a launcher the rest of the job is then ended by it. */
void tn_fatal(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

#endif
