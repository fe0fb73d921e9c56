/* tern_strerror: the text of every status code. */
#include <tern/status.h>

const char *tern_strerror(int status)
{
    switch (status) {
    case TERN_OK: return "success";
    case TERN_INPROGRESS: return "operation still in progress";
    case TERN_ERR_INVALID: return "invalid argument";
    case TERN_ERR_RANK: return "rank out of range";
    case TERN_ERR_RANGE: return "remote range outside the peer's segment";
    case TERN_ERR_OVERFLOW: return "address plus size overflows";
    case TERN_ERR_AGAIN: return "resources exhausted, try again (IMMEDIATE)";
    case TERN_ERR_NOMEM: return "out of memory or segment space";
    case TERN_ERR_UNSUPPORTED: return "operation not supported";
    case TERN_ERR_NOT_INIT: return "Tern is not initialized";
    case TERN_ERR_CONFIG: return "bad TERN_* configuration value";
    case TERN_ERR_PEER: return "a peer failed or is unreachable";
    case TERN_ERR_MISMATCH: return "ranks disagreed in a collective call";
    case TERN_ERR_BOOT: return "bootstrap failed";
    case TERN_ERR_SYS: return "system call failed";
    case TERN_ERR_TIMEOUT: return "start-up timed out";
    default: return "unknown status code";
    }
}
