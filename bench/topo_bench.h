/* The topology benchmarks (copy, topo_put, stream) and what they share:
 * child jobs run with chosen TERN_* settings and CPUs, their result lines,
 * and page placement read back from the kernel. They compare settings
 * that Tern reads at start-up, so each setting runs in its own process,
 * and the settings take turns round after round in the same run. */
#ifndef TB_TOPO_BENCH_H
#define TB_TOPO_BENCH_H

#include <stddef.h>

#include "bench.h"

extern const tb_bench_t tb_bench_copy, tb_bench_topo_put, tb_bench_stream;

/* Hidden subcommands: the processes the three run. */
int tb_copy_child(int argc, char **argv);
int tb_topo_put_child(int argc, char **argv);
int tb_stream_child(int argc, char **argv);

/* Result lines of child processes: "TBT key=value key=value ...". */
#define TBT_TAG "TBT"
/* The value of key in line (a number), or NAN. */
double tbt_num(const char *line, const char *key);
/* The value of key in line (text up to the next space) into buf. */
int tbt_str(const char *line, const char *key, char *buf, size_t len);

/* Runs argv with env settings (NAME=value) and, when cpus is not NULL, on
 * those CPUs only ("0,1": what ternrun then binds the ranks within).
 * Output into out; returns the wait status or -1. */
int tbt_run(char *const argv[], const char *const sets[], int nsets, const char *cpus,
            char *out, size_t outlen);
/* The first line of out that starts with TBT_TAG and contains match (NULL:
 * any), from position *pos on; advances *pos. NULL when there is none. */
const char *tbt_next(const char *out, const char *match, size_t *pos, char *line,
                     size_t len);
/* A short reason from a failed child's output (its last line that is not
 * a result line). */
void tbt_why(const char *out, char *buf, size_t len);

/* NUMA domains of this machine from sysfs: count, and the CPU list of
 * domain d into buf ("0-3,8"). */
int tbt_numa_count(void);
int tbt_numa_cpus(int d, char *buf, size_t len);

/* Where the pages of [addr, addr+len) are: pages per NUMA node (OS
 * numbering) read back with move_pages, over at most 65536 pages evenly
 * spread; as text "NUMA 0 50%, NUMA 1 50%" (or the reason it failed). */
void tbt_placement(const void *addr, size_t len, char *buf, size_t buflen);

#endif
