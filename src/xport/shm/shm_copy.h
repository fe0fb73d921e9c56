/* Topology-aware copies with mapped peers (shared-memory peers and self):
 * the policy (which copy a put or get of n bytes with a peer of a given
 * distance class gets), the calibration it is built from (measured once
 * per machine and cached), the per-rank table that tern_copy_ reads, and
 * its set-up when the shm transport is created (shm_topo.c). The copy
 * kernels are in base/copy.h. */
#ifndef TN_SHM_COPY_H
#define TN_SHM_COPY_H

#include <stddef.h>
#include <stdint.h>

#include <tern/topo.h>

#include "base/copy.h"
#include "base/topo.h"
#include "xport/registry.h"

/* TERN_SHM_TOPO, in the order of its choices. */
enum { TN_SHM_TOPO_AUTO = 0, TN_SHM_TOPO_ON = 1, TN_SHM_TOPO_OFF = 2 };
/* TERN_SHM_CALIBRATE */
enum { TN_CALIB_AUTO = 0, TN_CALIB_ALWAYS = 1, TN_CALIB_NEVER = 2 };

#define TN_COPY_NEVER ((size_t)-1)

/* Non-temporal stores for copies of put[c] (get[c]) bytes or more with a
 * peer of distance class c; TN_COPY_NEVER: regular copies only. */
typedef struct tn_copy_policy {
    int mode; /* TN_SHM_TOPO_* */
    int isa;  /* tn_copy_isa_t of the non-temporal kernel */
    size_t put[TN_DIST_COUNT];
    size_t get[TN_DIST_COUNT];
    uint64_t islands; /* bit b: also non-temporal for sizes in
                                  [2^b, 2^(b+1)) below the thresholds */
} tn_copy_policy_t;

/* The policy for mode from the calibration's two crossovers: a put's
 * data is read next by the peer, so a peer sharing this rank's L3 (and
 * self) gets the hot crossover and a peer outside it the cold one; a
 * get's data is read next by this rank, so every class gets the hot one;
 * the hot curve's islands (sizes below its crossover where non-temporal
 * stores are faster all the same) hold for every class. on: 0 everywhere;
 * off: TN_COPY_NEVER everywhere. calib may be NULL for on and off. */
void tn_copy_policy_make(int mode, const tn_copy_calib_t *calib, tn_copy_policy_t *out);

/* 1 when a copy of n bytes with a peer of class dist (put: towards it)
 * uses non-temporal stores under p. */
static inline int tn_copy_policy_nt(const tn_copy_policy_t *p, int dist, int put,
                                    size_t n)
{
    size_t thr = put ? p->put[dist] : p->get[dist];
    return n >= thr ||
           (n && (p->islands >> (63 - __builtin_clzll((unsigned long long)n)) & 1));
}

/* The smallest size a peer of class dist gets a non-temporal copy at, in
 * either direction (the fast path's copy_min). */
size_t tn_copy_policy_min(const tn_copy_policy_t *p, int dist);

/* Thresholds estimated without measuring (TERN_SHM_CALIBRATE=never): the
 * hot crossover at the size of one L3 (hwloc), the cold one at 64 KiB. */
void tn_copy_calib_estimate(const tn_topo_t *t, tn_copy_calib_t *out);

/* Where the calibration comes from: the cache file for this machine (path
 * into path), read if valid; else measured (with mode != NEVER) and
 * written; else estimated. origin gets a sentence for reports. Returns
 * TERN_OK (an unusable cache is only logged at debug level). */
int tn_copy_calib_obtain(int calib_mode, const char *cache_dir, const tn_topo_t *t,
                         tn_copy_calib_t *out, char *origin, size_t originlen);

/* The cache file name for this machine and build: a hash of the CPU
 * model, the kernel ISA, the topology's shape and the C library, so that a
 * home directory shared by different nodes holds one file per kind. */
int tn_copy_calib_path(const char *cache_dir, const tn_topo_t *t, char *path, size_t len,
                       char *key, size_t keylen);

/* ---- state while a job runs (set by the shm transport's create) ---------- */

/* One rank as tern_copy_ sees it. Written once at start-up, read after. */
typedef struct tn_shm_copy_peer {
    uintptr_t lo;   /* its segment as mapped here */
    uintptr_t size; /* its segment's size; 0: not mapped here */
    int dist;       /* TN_DIST_* from this rank; -1 when not mapped */
} tn_shm_copy_peer_t;

/* Everything tern_copy_ and the queries read (shm_copy.c), written by
 * tn_shm_copy_setup (shm_topo.c) before the fast path can reach it. */
typedef struct tn_shm_copy_state {
    tn_copy_policy_t policy;
    tn_copy_calib_t calib;
    char origin[768];          /* where the calibration came from */
    tn_shm_copy_peer_t *peers; /* [npeers], by global rank - first: the span
                                  of this node's ranks (tn_xport_job_t) */
    int first, npeers;
} tn_shm_copy_state_t;
extern tn_shm_copy_state_t tn_shm_copy_state;

/* Exchanges every rank's CPU set (and each node leader's calibration),
 * sets the policy and each rank's distance class. lo[r] is rank r's
 * segment as mapped here, or 0 when it is not. Collective over the job;
 * logs the placement and the copy decisions (shm_topo.c). */
int tn_shm_copy_setup(const tn_xport_job_t *job, const uintptr_t *lo);
void tn_shm_copy_teardown(void);

/* The smallest copy with rank that goes out of line (the fast path's
 * copy_min): SIZE_MAX when rank is not mapped or never gets a
 * non-temporal copy. */
size_t tn_shm_copy_min(int rank);
/* What tern_copy_info reports for rank (any rank of the job). */
void tn_shm_copy_info(int rank, tern_copy_info_t *out);

/* The policy and calibration in force in this process (after init), with
 * the sentence on where the calibration came from. */
const tn_copy_policy_t *tn_copy_policy_current(void);
const tn_copy_calib_t *tn_copy_calib_current(const char **origin);

#endif
