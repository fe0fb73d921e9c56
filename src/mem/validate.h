/* The checks of the configuration that parsing alone cannot make (a NUMA
 * domain this node has, huge pages it can give, memory for the segment, a
 * writable trace path): one function, run at tern_init's start and by
 * tern-info -c, so that the pre-flight check and start-up never disagree. */
#ifndef TN_MEM_VALIDATE_H
#define TN_MEM_VALIDATE_H

#include <stddef.h>

#include "base/cfg.h"

/* One problem: the variable at fault, the status tern_init returns for it
 * and the message it logs (the cause and what to change). */
typedef struct tn_cfg_issue {
    const char *name; /* "TERN_SEGMENT_NUMA" */
    int status;       /* TERN_ERR_CONFIG: a value no machine accepts, or one
                         this node cannot honour (bind:7 on 2 domains);
                         TERN_ERR_NOMEM: the memory or huge pages it asks
                         for are not here */
    char msg[480];
} tn_cfg_issue_t;

#define TN_CFG_ISSUES_MAX 8

typedef struct tn_cfg_issues {
    int n;
    tn_cfg_issue_t issue[TN_CFG_ISSUES_MAX];
} tn_cfg_issues_t;

/* Validates cfg (already parsed) on this node for local_ranks ranks that
 * will share it (1 when unknown: before the job is joined, and in
 * tern-info -c). Logs nothing; every problem found goes into *out (may be
 * NULL). Returns TERN_OK or the status of the first problem. */
int tn_cfg_validate(const tn_config_t *cfg, int local_ranks, tn_cfg_issues_t *out);

/* The same, with ctrl_bytes of control area in each segment (what the
 * transports will claim there, known above this layer: tern-info -c asks
 * tn_core_xports_ctrl_bytes), named by ctrl_names in messages
 * ("TERN_AM_SHM_QUEUE or TERN_AM_MEDIUM_MAX"): the memory check is
 * tn_seg_plan's, as at tern_init's segment creation. */
int tn_cfg_validate_ctrl(const tn_config_t *cfg, int local_ranks, size_t ctrl_bytes,
                         const char *ctrl_names, tn_cfg_issues_t *out);

/* The variables that size the control area, as tern_init's messages name
 * them (the first is the one an issue is filed under). */
#define TN_CFG_CTRL_NAMES "TERN_AM_SHM_QUEUE or TERN_AM_MEDIUM_MAX"

/* tern_init's first step: parse the TERN_* variables into cfg
 * (tn_cfg_load) and validate them for one rank, logging each problem and
 * a closing line that points to tern-info -c. Returns TERN_OK,
 * TERN_ERR_CONFIG or TERN_ERR_NOMEM. */
int tn_cfg_check(tn_config_t *cfg);

#endif
