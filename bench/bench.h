/* The benchmark families of tern-bench: what main needs to know to run
 * each subcommand, and the row functions the summary reuses. */
#ifndef TB_BENCH_H
#define TB_BENCH_H

#include "harness.h"

typedef struct tb_bench {
    const char *name;
    const char *help;          /* one line for --help */
    int with_tern;             /* runs under ternrun: main calls tern_init */
    size_t min_size, max_size; /* default --sizes range (doubling), or 0 */
    int min_ranks;             /* with_tern: fewer ranks is a usage error */
    const char *baseline;      /* what the raw column is, for the header */
    /* Family defaults (sizes, iters, trials) applied before parsing. */
    void (*defaults)(tb_opts_t *o);
    /* Bytes of symmetric heap per rank the run needs (with_tern only). */
    size_t (*segment_need)(const tb_opts_t *o);
    /* job is NULL when with_tern is 0. Returns the exit code. */
    int (*run)(tb_opts_t *o, tb_job_t *job);
} tb_bench_t;

extern const tb_bench_t tb_bench_put_lat, tb_bench_get_lat;
extern const tb_bench_t tb_bench_put_bw, tb_bench_get_bw;
extern const tb_bench_t tb_bench_put_pingpong, tb_bench_put_rate;
extern const tb_bench_t tb_bench_faultin, tb_bench_startup, tb_bench_summary;
extern const tb_bench_t tb_bench_net, tb_bench_alloc, tb_bench_am_lat, tb_bench_am_rate;
extern const tb_bench_t tb_bench_am_bw, tb_bench_am_sched;
extern const tb_bench_t tb_bench_amo, tb_bench_acc, tb_bench_gups, tb_bench_order;
extern const tb_bench_t tb_bench_coll;
extern const tb_bench_t tb_bench_vis;
extern const tb_bench_t tb_bench_vis_elem;

/* The floor that startup compares a job with: seconds to fault in bytes
 * of fresh shared memory with one thread per online CPU, and to give the
 * pages back the same way. 0, or -1 when that memory cannot be had. */
typedef struct tb_floor {
    double faultin_s, release_s;
    int threads;
} tb_floor_t;
int tb_faultin_floor(size_t bytes, tb_floor_t *out);

/* Hidden subcommands: the programs that faultin and startup time. */
int tb_faultin_child(int argc, char **argv);
int tb_noop_child(int argc, char **argv);

/* Row functions shared with summary. The remote buffer is a symmetric
 * allocation of at least n bytes (bw: n bytes) whose address on the peer
 * the function derives itself. */

/* Latency of one blocking (nb = 0) or non-blocking put/get of n bytes from
 * rank 0 to job->peer. Rank 0 only. */
void tb_lat_row(const tb_opts_t *o, const tb_job_t *job, void *sym, int get, int nb,
                size_t n, tb_row_t *row);
/* Bandwidth of a window of nbi puts/gets of n bytes to remote completion.
 * Rank 0 only. */
void tb_bw_row(const tb_opts_t *o, const tb_job_t *job, void *sym, int get, size_t n,
               tb_row_t *row);
/* Put ping-pong between rank 0 and job->peer with payload n (<= the
 * payload buffer of tb_pingpong_setup). Collective over all ranks. */
typedef struct tb_pingpong tb_pingpong_t;
tb_pingpong_t *tb_pingpong_setup(const tb_job_t *job, size_t max_payload);
void tb_pingpong_row(const tb_opts_t *o, const tb_job_t *job, tb_pingpong_t *pp, size_t n,
                     tb_row_t *row);
void tb_pingpong_teardown(tb_pingpong_t *pp);
/* The raw flag ping-pong of n payload bytes alone (a tb_loop_fn body for
 * other families' baselines; collective like the row), and whether rank 0's
 * peer is mapped so that it can run. */
uint64_t tb_pingpong_raw(tb_pingpong_t *pp, size_t n, long ops);
/* The same exchange where each receiver reads the n bytes it was sent
 * (tb_read_payload) before it answers: the baseline of rows whose handlers
 * read their payload. */
uint64_t tb_pingpong_raw_read(tb_pingpong_t *pp, size_t n, long ops);
int tb_pingpong_raw_ok(const tb_pingpong_t *pp);
/* Rate of 8 B puts (nbi = 1: tern_put_nbi with one sync at the end;
 * nbi = 0: blocking tern_put). Rank 0 only. */
void tb_rate_row(const tb_opts_t *o, const tb_job_t *job, void *sym, int nbi,
                 tb_row_t *row);

#endif
