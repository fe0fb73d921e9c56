/* The tern-bench harness: options, size lists, timing, statistics over
 * trials, child processes and output (header, table, JSON lines), shared
 * by every benchmark family so that all of them measure and report alike. */
#ifndef TB_HARNESS_H
#define TB_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define TB_MAX_SIZES      64
#define TB_MAX_RANKS_LIST 16

/* Command-line options. Every family reads the ones it needs; "given"
 * fields tell an explicit option from a family default. */
typedef struct tb_opts {
    const char *sub;            /* subcommand name */
    int json;                   /* --json: JSON lines on stdout, rest on stderr */
    size_t sizes[TB_MAX_SIZES]; /* --sizes a:b (doubling) or a,b,c */
    int nsizes;
    long iters; /* --iters: cap on operations per trial */
    int iters_given;
    int trials;                   /* --trials: measured trials per row */
    int warmup;                   /* --warmup: unmeasured trials per row */
    int window;                   /* --window: nbi operations between syncs */
    double row_time;              /* --row-time: seconds one row may take */
    size_t size;                  /* --size: faultin segment size */
    int ranks[TB_MAX_RANKS_LIST]; /* --ranks: startup rank counts */
    int nranks;
    int nodes; /* --nodes: startup's simulated nodes (ternrun --nodes), 1: none */
    int peer;  /* --peer: rank 0's peer (default 1; 0 when alone) */
    const char
        *rows; /* --rows: comma-separated row names to run (amo, coll); NULL: all */
    int trials_given, warmup_given, window_given, size_given, ranks_given;
    const char *seg_origin; /* who chose the segment size, for the header */
    int seg_chosen;         /* tern-bench set TERN_SEGMENT_SIZE itself */
} tb_opts_t;

/* Parse argv after the subcommand into o (defaults already set by the
 * caller). Returns 0, or -1 after printing what was wrong. */
int tb_opts_parse(tb_opts_t *o, int argc, char **argv);
/* 1 when --rows was not given or names op (the row's op column). */
int tb_row_wanted(const tb_opts_t *o, const char *op);
/* Ends the job naming the first name of --rows that is none of bench's n
 * row names (the same on every rank, so every rank stops alike). */
void tb_rows_check(const tb_opts_t *o, const char *bench, const char *const *names,
                   size_t n);
/* Fill o->sizes with min..max doubling unless --sizes was given. */
void tb_sizes_default(tb_opts_t *o, size_t min, size_t max);
/* Parse "8", "4K", "64M", "1G" (powers of 1024). Returns 0 or -1. */
int tb_parse_size(const char *s, size_t *out);
/* "8", "4K", "64M": exact binary units where they fit, else bytes. */
const char *tb_size_str(size_t n, char *buf, size_t len);
size_t tb_sizes_max(const tb_opts_t *o);

/* Operations per trial: budget / n, at least 1, at most o->iters. Keeps
 * every row near the same time while --iters caps tiny smoke runs. */
long tb_ops_for(const tb_opts_t *o, size_t n, size_t budget_bytes);

/* Monotonic clock in ns (clock_gettime(CLOCK_MONOTONIC), vDSO: ~20 ns,
 * so it is read once per timed loop, never per operation). */
static inline uint64_t tb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Keeps the compiler from merging, hoisting or deleting memory accesses
 * across it; costs no instruction. Used once per iteration in Tern and raw
 * loops alike, so both are compiled under the same constraint. */
#define TB_COMPILER_BARRIER() __asm__ __volatile__("" ::: "memory")

/* What a receiver that uses its payload does: reads all n bytes (sums
 * them as words, then the tail bytes) into tb_read_sink. The Tern rows
 * that read (am_lat's medium_read) and their raw baselines call this same
 * function on the receiving side, so both pay the same reading and the
 * same transfer of the payload's lines from the sender's cache. */
extern volatile uint64_t tb_read_sink;
static inline void tb_read_payload(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t s = 0, w;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, b + i, 8);
        s += w;
    }
    for (; i < n; i++)
        s += b[i];
    tb_read_sink += s;
}

/* Median and the 10th/90th percentiles of a set of trials. */
typedef struct tb_stats {
    double med, p10, p90;
} tb_stats_t;

void tb_stats_of(double *v, int n, tb_stats_t *out); /* sorts v */
extern const tb_stats_t tb_stats_none;               /* all NaN: no baseline */

/* What a trial's elapsed time is turned into. */
typedef enum {
    TB_UNIT_NS,      /* ns per operation */
    TB_UNIT_HALF_NS, /* ns per half operation (half round trip) */
    TB_UNIT_MBPS,    /* 1e6 bytes per second; bytes_per_op needed */
    TB_UNIT_MMSGS,   /* 1e6 operations per second */
    TB_UNIT_MS,      /* ms per operation (a whole schedule, a job) */
} tb_unit_t;

const char *tb_unit_name(tb_unit_t u);
int tb_unit_higher_better(tb_unit_t u);

/* One timed loop: perform ops operations and return the elapsed ns. */
typedef uint64_t (*tb_loop_fn)(void *ctx, long ops);

/* Operations per trial that keep one row (warm-up and measured trials of
 * nloops loops: 2 with a raw baseline) within o->row_time, from a short
 * calibration of loop (16 operations, then 4x more until a call takes
 * 2 ms), and never more than cap. With collective set every rank calls it
 * in step (the loop needs them all) and all get rank 0's choice. */
long tb_ops_bounded(const tb_opts_t *o, tb_loop_fn loop, void *ctx, long cap, int nloops,
                    int collective);

/* The smallest of every rank's v, on every rank. Collective. */
long tb_agree_min(long v);

/* Run warm-up and measured trials of a Tern loop and its raw baseline,
 * alternating which goes first so that both see the same machine state.
 * raw may be NULL (no baseline: peer not mapped). With collective set,
 * every rank calls this in step and a barrier precedes each trial (for
 * loops in which several ranks take part); otherwise only the caller
 * runs. */
void tb_measure_pair(const tb_opts_t *o, tb_loop_fn tern, tb_loop_fn raw, void *ctx,
                     long ops, tb_unit_t unit, double bytes_per_op, int collective,
                     tb_stats_t *vt, tb_stats_t *vr);

/* One result row: a Tern figure and the raw figure of the same row. */
typedef struct tb_row {
    const char *bench; /* subcommand */
    const char *op;    /* "put", "put_nb", ... */
    size_t size;       /* bytes per operation */
    tb_unit_t unit;
    tb_stats_t tern, raw;
    long ops; /* operations per trial */
} tb_row_t;

/* ---- output ------------------------------------------------------------- */

/* Lines for the header: with --json they go to stderr so that stdout holds
 * JSON only. */
void tb_note(const tb_opts_t *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void tb_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Configuration as the job sees it, gathered from every rank. */
typedef struct tb_job {
    int rank, size, nodes, peer;
    int peer_mapped; /* tern_ptr works for the peer (shared memory) */
    int all_bound;
    size_t seg_size, page_size;
    char page_note[256];
    char faultin_mode[16];
} tb_job_t;

/* After tern_init: gather every rank's binding, print the header on rank 0
 * (title, host, CPU, ranks, nodes, binding, segment, TERN_* values, method,
 * baseline) and warn about unbound ranks. Collective. */
void tb_job_header(const tb_opts_t *o, tb_job_t *job, const char *baseline);
/* Header for subcommands that run without tern_init (faultin, startup). */
void tb_plain_header(const tb_opts_t *o, const char *baseline);

/* Generic Tern-vs-raw table: column heads, then one row per call. With
 * --json a row is a JSON line with bench, op, size, value, unit, p10, p90,
 * baseline, baseline_p10, baseline_p90, overhead, ratio, ops, trials. */
void tb_table_head(const tb_opts_t *o, tb_unit_t unit);
void tb_row_print(const tb_opts_t *o, const tb_job_t *job, const tb_row_t *r);

/* Minimal JSON line writer for rows that are not Tern-vs-raw pairs. */
typedef struct tb_json {
    char buf[2048];
    size_t len;
    int n;
} tb_json_t;
void tb_json_begin(tb_json_t *j);
void tb_json_str(tb_json_t *j, const char *key, const char *val);
void tb_json_num(tb_json_t *j, const char *key, double val); /* NaN: null */
void tb_json_int(tb_json_t *j, const char *key, long long val);
void tb_json_end(tb_json_t *j); /* prints the line on stdout */

/* Print a whole JSON line for a pair row, with extra keys already added
 * by the caller through j (may be NULL). */
void tb_row_json(const tb_opts_t *o, const tb_job_t *job, const tb_row_t *r,
                 tb_json_t *extra);

/* ---- processes and environment ---------------------------------------- */

/* Run argv with env (NULL: inherit) and capture its stdout and stderr
 * together into out (NUL-terminated, truncated to outlen). Returns the
 * wait status (as waitpid) or -1; *elapsed_s gets the wall time from
 * fork to exit. */
int tb_run_child(char *const argv[], char *const env[], char *out, size_t outlen,
                 double *elapsed_s);

/* A copy of the environment without TERN_BOOT_* (launcher-set) variables,
 * plus up to 8 "NAME=value" settings that replace existing ones. The
 * result is malloc'd; free with tb_env_free. */
char **tb_env_with(const char *const sets[], int nsets);
void tb_env_free(char **env);

/* Path of this executable (/proc/self/exe), and of ternrun (TB_TERNRUN,
 * else next to tern-bench in the install bindir or build tree, else PATH). */
const char *tb_self_exe(void);
int tb_find_ternrun(char *out, size_t len);

/* Fatal error: message naming rank and call, then tern_abort (or exit when
 * Tern is not initialized). */
void tb_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
#define TB_CHECK(call)                                                              \
    do {                                                                            \
        int tb_rc_ = (call);                                                        \
        if (tb_rc_ != 0)                                                            \
            tb_die("%s:%d: %s returned %d (%s)", __FILE__, __LINE__, #call, tb_rc_, \
                   tern_strerror(tb_rc_));                                          \
    } while (0)

/* Page-aligned, touched private memory (the local side of transfers). */
void *tb_alloc_local(size_t n);

#endif
