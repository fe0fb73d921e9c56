/* Choosing the bootstrap: ternrun when it left its address in the
 * environment, PMIx when a PMIx launcher started us, else a single rank. */
#include "boot/boot.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tern/status.h>

#include "base/log.h"

enum { BOOT_TERNRUN, BOOT_PMIX, BOOT_SINGLE };

/* boot.c made the choice, so it remembers it to undo it: the ops table has
 * no destroy entry (yet), and only the ternrun implementation holds
 * anything (its socket) beyond what its fini releases. */
typedef struct boot_box {
    tn_boot_t pub;
    int kind;
} boot_box_t;

/* Defined in boot_ternrun.c: closes the socket if fini did not. */
void tn_boot_ternrun_release(tn_boot_t *b);

void tn_boot_default_node_key(char *key, size_t len)
{
    if (len == 0)
        return;
    const char *node = getenv("TERN_BOOT_NODE");
    if (node && *node) {
        strncpy(key, node, len - 1);
        key[len - 1] = '\0';
        return;
    }
    /* The full host name, not the short one the log prints: two nodes
     * "n1.a" and "n1.b" must not be taken for one. */
    if (gethostname(key, len - 1) != 0)
        strcpy(key, len > 9 ? "localhost" : "");
    key[len - 1] = '\0';
}

static int env_set(const char *name)
{
    const char *v = getenv(name);
    return v && *v;
}

int tn_boot_create(double timeout_s, tn_boot_t **out)
{
    boot_box_t *box = calloc(1, sizeof(*box));
    if (!box) {
        tn_error("bootstrap: out of memory");
        return TERN_ERR_NOMEM;
    }
    tn_boot_t *b = &box->pub;
    int rc;
    if (env_set("TERN_BOOT_ADDR")) {
        box->kind = BOOT_TERNRUN;
        rc = tn_boot_ternrun_create(b, timeout_s);
    }
#ifdef TERN_HAVE_PMIX
    else if (tn_boot_pmix_detected()) {
        box->kind = BOOT_PMIX;
        rc = tn_boot_pmix_create(b, timeout_s);
    }
#else
    else if (env_set("PMIX_RANK") || env_set("PMIX_NAMESPACE")) {
        tn_error("this process was started by a PMIx launcher (PMIX_RANK or "
                 "PMIX_NAMESPACE is set), but this Tern was built without "
                 "PMIx: rebuild with -DTERN_WITH_PMIX=ON (needs libpmix-dev), "
                 "or start the job with ternrun");
        rc = TERN_ERR_BOOT;
    }
#endif
    else {
        box->kind = BOOT_SINGLE;
        rc = tn_boot_single_create(b);
    }
    if (rc != TERN_OK) {
        free(box);
        return rc;
    }
    *out = b;
    return TERN_OK;
}

void tn_boot_destroy(tn_boot_t *b)
{
    if (!b)
        return;
    boot_box_t *box = (boot_box_t *)b; /* pub is the first member */
    if (box->kind == BOOT_TERNRUN)
        tn_boot_ternrun_release(b);
    free(box);
}
