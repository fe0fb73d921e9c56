/* Tern status codes: every call returns one; TERN_OK is 0, errors are
 * negative and grouped (operation, peer, job), progress states positive. */
#ifndef TERN_STATUS_H
#define TERN_STATUS_H

#include "api.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    TERN_OK = 0,
    TERN_INPROGRESS = 1, /* event or nbi test: not complete yet */

    /* operation errors: the call was wrong or could not be done now */
    TERN_ERR_INVALID = -1,     /* bad argument (null pointer, bad flag) */
    TERN_ERR_RANK = -2,        /* rank outside [0, tern_size()) */
    TERN_ERR_RANGE = -3,       /* remote range not inside the peer's segment */
    TERN_ERR_OVERFLOW = -4,    /* address + size wraps around */
    TERN_ERR_AGAIN = -5,       /* IMMEDIATE: resources exhausted, retry later */
    TERN_ERR_NOMEM = -6,       /* segment or heap exhausted */
    TERN_ERR_UNSUPPORTED = -7, /* operation not offered by this build/peer */
    TERN_ERR_NOT_INIT = -8,    /* called before tern_init or after finalize */
    TERN_ERR_CONFIG = -9,      /* a TERN_* variable has a bad value */

    /* peer errors: another rank failed or disagreed */
    TERN_ERR_PEER = -20,     /* a peer died or is unreachable */
    TERN_ERR_MISMATCH = -21, /* a collective call disagreed across ranks */

    /* job and system errors */
    TERN_ERR_BOOT = -40,    /* bootstrap (launcher, PMIx) failed */
    TERN_ERR_SYS = -41,     /* a system call failed (see the log) */
    TERN_ERR_TIMEOUT = -42, /* a start-up phase exceeded TERN_BOOT_TIMEOUT */
};

/* A short English description of a status code ("remote range outside
 * the peer's segment"); never NULL, also for unknown codes. */
TERN_API const char *tern_strerror(int status);

#ifdef __cplusplus
}
#endif
#endif
