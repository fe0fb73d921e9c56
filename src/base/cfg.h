/* The one table of TERN_* variables. Each is declared once in
 * cfg_vars.h (name, type, default, choices, help); the same table drives
 * parsing, tern-info, docs/configuration.md, the start-up report and the
 * warning about unknown TERN_* names. */
#ifndef TN_CFG_H
#define TN_CFG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    TN_CFG_SIZE,   /* bytes: 4096, 512K, 64M, 2G, 1T, or 25% (0.5%) of physical
                      memory; digits only: no spaces, signs, 1e3, 0x10, 1.5G */
    TN_CFG_INT,    /* decimal digits; a leading '-' only with TN_CFG_SIGNED */
    TN_CFG_BOOL,   /* 0/1, yes/no, on/off, true/false */
    TN_CFG_ENUM,   /* one of the '|'-separated choices; stored as its index */
    TN_CFG_DOUBLE, /* decimal number (seconds where the name says so) */
    TN_CFG_STRING, /* free text */
} tn_cfg_type_t;

#define TN_CFG_INTERNAL 0x1u /* set by launchers, not by users */
#define TN_CFG_SIGNED   0x2u /* INT/DOUBLE may be negative */
#define TN_CFG_JOB      0x4u /* the same on every rank (checked at tern_init) */

/* The largest TERN_COLL_WIDE_MAX taken (mem/validate.c refuses more):
 * the collectives keep a wide record and its partials on the stack
 * (core/coll_eager.c). */
#define TN_COLL_WIDE_LIMIT 2048
/* The largest blocking get TERN_GET_MAILBOX may send by the atomic
 * mailbox: its reply (seq, status, data, check word) fills a 128-byte
 * slot, the inject size asked of the provider (core/atomic_mbox.c). */
#define TN_MBOX_GET_MAX 104
/* TERN_NBI_AGG_MAX at most (mem/validate.c; core/put_agg.c). */
#define TN_NBI_AGG_LIMIT 4096
/* The least TERN_AM_MEDIUM_MAX taken (mem/validate.c refuses less): a
 * client may count on Medium payloads of this many bytes, as GASNet-EX's
 * clients count on 512. */
#define TN_AM_MEDIUM_MIN 512
/* The least nonzero TERN_OFI_MAX_MSG, TERN_COLL_PIPE_CHUNK and
 * TERN_COLL_XCHG_PIECE taken (mem/validate.c refuses less): in 1-byte
 * pieces mp_coll (net, 4 ranks) and a 1 MiB put took over 40 s (18.9 s
 * with TERN_COLL_XCHG_PIECE=1; 2.5 s at the defaults); at 1K mp_coll
 * takes 3.7 s and 2.6 s, a 1 MiB put_bw run 0.66 s (0.46 s at 16K); at 256
 * mp_coll took 6.2 s with TERN_OFI_MAX_MSG (notes/harden-runs/item3-*.txt).
 * Tests split transfers at 1K. */
#define TN_OFI_MAX_MSG_MIN     1024
#define TN_COLL_PIPE_CHUNK_MIN 1024
#define TN_COLL_XCHG_PIECE_MIN 1024

typedef struct tn_cfg_var {
    const char *name;
    tn_cfg_type_t type;
    const char *def;     /* default, as text */
    const char *choices; /* enum: "auto|spin|yield|block"; else NULL */
    const char *help;
    unsigned flags;
    size_t offset; /* where the value lives in tn_config_t */
} tn_cfg_var_t;

/* Storage types per kind of variable. */
#define TN_CFG_CTYPE_SIZE   size_t
#define TN_CFG_CTYPE_INT    long
#define TN_CFG_CTYPE_BOOL   int
#define TN_CFG_CTYPE_ENUM   int
#define TN_CFG_CTYPE_DOUBLE double
#define TN_CFG_CTYPE_STRING const char *

#include "cfg_vars.h"

typedef struct tn_config {
#define TN_CFG_FIELD_(field, name, type, def, choices, flags, help) \
    TN_CFG_CTYPE_##type field;
    TN_CFG_VARS(TN_CFG_FIELD_)
#undef TN_CFG_FIELD_
} tn_config_t;

/* Values in force in this process (filled by tn_cfg_load). */
extern tn_config_t tn_cfg;

size_t tn_cfg_count(void);
const tn_cfg_var_t *tn_cfg_var(size_t i);
const tn_cfg_var_t *tn_cfg_find(const char *name);

/* Parse text for var into dst (pointing at the field). On failure returns
 * TERN_ERR_CONFIG and writes a message naming what was wrong into err. */
int tn_cfg_parse(const tn_cfg_var_t *var, const char *text, void *dst, char *err,
                 size_t errlen);

/* Parse a size: digits with an optional unit ("512K", "64M", "2G"), or a
 * percentage of physical memory ("25%", "0.5%"); TERN_OK or
 * TERN_ERR_CONFIG (bad form, or past 2^64 - 1 bytes). */
int tn_cfg_parse_size(const char *text, size_t *out);

/* Fill cfg from defaults, then from the environment. Bad values are
 * logged (name, value, what is accepted) and give TERN_ERR_CONFIG; unknown
 * TERN_* names are warned about with the nearest known name. */
int tn_cfg_load(tn_config_t *cfg);
/* The same without a word: bad values keep their defaults (for tools that
 * report the configuration elsewhere). */
int tn_cfg_load_quiet(tn_config_t *cfg);

/* Current value of var in cfg as text (sizes with units). */
void tn_cfg_format(const tn_config_t *cfg, const tn_cfg_var_t *var, char *buf,
                   size_t len);
/* Was var set in the environment? */
int tn_cfg_is_set(const tn_cfg_var_t *var);

/* What a variable accepts, in words ("size", "integer", "a|b|c"). */
const char *tn_cfg_type_name(const tn_cfg_var_t *var);

/* Writes the reference page (docs/configuration.md) for the whole table. */
void tn_cfg_write_markdown(FILE *out);

/* A fingerprint of the TN_CFG_JOB variables' values in cfg (their
 * formatted text, so "1M" and "1024K" agree): ranks whose fingerprints
 * differ were started with different settings that must agree. */
uint64_t tn_cfg_job_fingerprint(const tn_config_t *cfg);

/* The TN_CFG_JOB variables of cfg as "NAME=value ..." into buf. */
void tn_cfg_job_list(const tn_config_t *cfg, char *buf, size_t len);

/* Size for people to read ("24.1 GiB", "64 MiB", "512 B"). */
void tn_format_bytes(size_t v, char *buf, size_t len);

/* Size as text with the largest exact binary unit ("64M", "1536K"). */
void tn_cfg_format_size(size_t v, char *buf, size_t len);

#endif
