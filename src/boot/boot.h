/* Bootstrap: how a rank learns the job (rank, size, which ranks share its
 * node) and exchanges small blobs with all other ranks before any transport
 * exists. Three implementations, one ops table each: ternrun's own wire
 * protocol, PMIx (mpirun, srun, prterun) and single (no launcher). */
#ifndef TN_BOOT_H
#define TN_BOOT_H

#include <stddef.h>
#include <stdint.h>

typedef struct tn_boot tn_boot_t;

typedef struct tn_boot_ops {
    size_t size; /* sizeof(tn_boot_ops_t), so the table can grow */
    const char *name;
    /* Collective: every rank contributes len bytes (same len everywhere);
     * out receives size*len bytes, rank r's contribution at r*len. */
    int (*allgather)(tn_boot_t *b, const void *in, size_t len, void *out);
    /* Collective barrier through the launcher (slow; start-up only). */
    int (*barrier)(tn_boot_t *b);
    /* Tell the launcher this rank finished start-up (ends the
     * TERN_BOOT_TIMEOUT watch for it). Not collective. */
    int (*init_done)(tn_boot_t *b);
    /* Ask the launcher to end the whole job; does not return. */
    void (*abort)(tn_boot_t *b, int code, const char *msg);
    /* Leave the job cleanly: after this, exiting is not a failure. */
    int (*fini)(tn_boot_t *b);
    /* Free what the implementation holds (whether or not fini ran);
     * NULL when it holds nothing. */
    void (*destroy)(tn_boot_t *b);
    /* ---- key-value store (may be NULL: then start-up exchanges everything
     * by allgather). Keys are short strings (at most TN_BOOT_KEY_MAX - 1
     * characters), values at most TN_BOOT_VALUE_MAX bytes. ---- */
    /* Publishes this rank's value under key; not collective. Others see it
     * after the next barrier (or allgather) that this rank joins. */
    int (*put)(tn_boot_t *b, const char *key, const void *val, size_t len);
    /* rank's value under key into buf (cap bytes), its length into *len.
     * Not collective; may be called at any time between init and fini, by
     * one thread at a time (callers serialize). TERN_OK; TERN_ERR_RANK
     * for a rank not in the job; TERN_ERR_BOOT when rank has published no
     * such key or the launcher cannot be reached (logged, naming rank and
     * key); TERN_ERR_INVALID when the value is larger than cap. */
    int (*get)(tn_boot_t *b, int rank, const char *key, void *buf, size_t cap,
               size_t *len);
    /* The process is exiting without fini (exit() with the job up): tell
     * the launcher, with the number of errors this rank logged, before
     * its endpoints close and its peers fail against it, so that the
     * launcher names this rank and not a peer that failed because of it.
     * status: the exit status (0-255), or -1 when unknown. With a
     * non-zero status the launcher ends the job, so the call may wait
     * (bounded) for it to do so: this rank's endpoints then stay open
     * while its peers still write to it (docs/design/launcher.md).
     * Best effort, no reply; may be NULL. */
    void (*leaving)(tn_boot_t *b, int errors, int status);
} tn_boot_ops_t;

/* While a rank waits for the launcher with a progress hook installed
 * (base/wait.h), it drives the hook at least this often (ms). */
#define TN_BOOT_PROGRESS_MS 1

#define TN_BOOT_KEY_MAX   32
#define TN_BOOT_VALUE_MAX 1024

struct tn_boot {
    const tn_boot_ops_t *ops;
    int rank;
    int size;
    /* Identity of this rank's node: ranks with equal node_key share memory.
     * Filled by the implementation (host name, PMIx node id, or ternrun's
     * simulated node). */
    char node_key[64];
    /* Identity of the physical machine: ranks with equal host_key share its
     * cores and memory, whatever node they belong to. Equal to node_key
     * except under ternrun --nodes, where several simulated nodes share
     * one host. */
    char host_key[64];
    void *impl; /* implementation state */
};

/* Whether b offers the key-value store (a table built with it and both
 * calls set). */
static inline int tn_boot_has_kv(const tn_boot_t *b)
{
    return b->ops->size >= offsetof(tn_boot_ops_t, get) + sizeof(b->ops->get) &&
           b->ops->put && b->ops->get;
}

/* b->ops->leaving where the table has it. */
static inline void tn_boot_leaving(tn_boot_t *b, int errors, int status)
{
    if (b->ops->size >= offsetof(tn_boot_ops_t, leaving) + sizeof(b->ops->leaving) &&
        b->ops->leaving)
        b->ops->leaving(b, errors, status);
}

/* Picks the bootstrap from the environment: TERN_BOOT_ADDR set by ternrun,
 * PMIx variables (PMIX_RANK / PMIX_NAMESPACE), else a single rank.
 * timeout_s bounds every wait for the launcher during start-up.
 * Returns TERN_OK with *out set, or TERN_ERR_BOOT / TERN_ERR_TIMEOUT after
 * logging the cause. */
int tn_boot_create(double timeout_s, tn_boot_t **out);
void tn_boot_destroy(tn_boot_t *b);

/* Implementations (each returns TERN_OK and fills b, or an error). */
int tn_boot_ternrun_create(tn_boot_t *b, double timeout_s);
int tn_boot_pmix_create(tn_boot_t *b, double timeout_s);
int tn_boot_single_create(tn_boot_t *b);
/* 1 when the environment says this process was started by a PMIx launcher */
int tn_boot_pmix_detected(void);

/* Fills key with this machine's full host name (shared helper). */
void tn_boot_default_host_key(char *key, size_t len);
/* Fills key with the node ternrun assigned (TERN_BOOT_NODE), else with this
 * machine's host name (shared helper). */
void tn_boot_default_node_key(char *key, size_t len);

#endif
