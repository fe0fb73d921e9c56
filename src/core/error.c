/* Error reporting of the native API: log once where the cause is known,
 * then return the status or end the job (TERN_ERROR_MODE=abort). */
#include <stdarg.h>
#include <stdio.h>

#include "base/log.h"
#include "core/core.h"

int tn_core_fail(int status, const char *call, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (tn_core.error_abort) {
        char full[1024];
        snprintf(full, sizeof(full), "%s: %s: %s (TERN_ERROR_MODE=abort)", call,
                 tern_strerror(status), msg);
        tern_abort(1, full);
    }
    tn_error("%s: %s: %s", call, tern_strerror(status), msg);
    return status;
}
