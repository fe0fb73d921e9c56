/* Choosing the bootstrap: ternrun when it left its address in the
 * environment, PMIx when a PMIx launcher started us, else a single rank. */
#include "boot/boot.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tern/status.h>

#include "base/log.h"

void tn_boot_default_host_key(char *key, size_t len)
{
    if (len == 0)
        return;
    /* The full host name, not the short one the log prints: two nodes
     * "n1.a" and "n1.b" must not be taken for one. */
    if (gethostname(key, len - 1) != 0)
        strcpy(key, len > 9 ? "localhost" : "");
    key[len - 1] = '\0';
}

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
    tn_boot_default_host_key(key, len);
}

static int env_set(const char *name)
{
    const char *v = getenv(name);
    return v && *v;
}

int tn_boot_create(double timeout_s, tn_boot_t **out)
{
    tn_boot_t *b = calloc(1, sizeof(*b));
    if (!b) {
        tn_error("bootstrap: out of memory");
        return TERN_ERR_NOMEM;
    }
    int rc;
    if (env_set("TERN_BOOT_ADDR")) {
        rc = tn_boot_ternrun_create(b, timeout_s);
    }
#ifdef TERN_HAVE_PMIX
    else if (tn_boot_pmix_detected()) {
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
        rc = tn_boot_single_create(b);
    }
    if (rc != TERN_OK) {
        free(b);
        return rc;
    }
    *out = b;
    return TERN_OK;
}

void tn_boot_destroy(tn_boot_t *b)
{
    if (!b)
        return;
    if (b->ops && b->ops->destroy)
        b->ops->destroy(b);
    free(b);
}
