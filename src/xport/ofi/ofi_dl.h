/* libfabric is loaded with dlopen when a job first needs the network, not
 * linked: single-node jobs never load it (nor the provider libraries it
 * pulls in, some of which install signal handlers in their constructors),
 * and libtern runs on machines without libfabric. Everything else of the
 * libfabric API is inline calls through its ops tables. */
#ifndef TN_OFI_DL_H
#define TN_OFI_DL_H

#include <rdma/fabric.h>

typedef struct tn_fi_api {
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                   struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
    uint32_t (*version)(void);
} tn_fi_api_t;

extern tn_fi_api_t tn_fi;

/* Loads libfabric once (thread-safe); TERN_OK or TERN_ERR_UNSUPPORTED
 * after logging why (not installed: the package to install). Fatal-signal
 * handlers installed by the loaded libraries are undone. */
int tn_fi_load(void);

#define tn_fi_allocinfo() tn_fi.dupinfo(NULL)

#endif
