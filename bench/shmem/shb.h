/* shmem-bench: OSU-style OpenSHMEM benchmarks written once against plain
 * shmem.h, built with any OpenSHMEM's oshcc. This header is the harness
 * shared by the rows (shb.c) and the Tern-native comparison rows
 * (shb_native.c, built with Tern only). */
#ifndef SHB_H
#define SHB_H

#include <stddef.h>

/* How a row's value is made from a trial of n operations taking t seconds. */
enum shb_kind {
    SHB_LAT_US,  /* t / n in microseconds (lower is better) */
    SHB_BW_MBS,  /* size * n / t in MB/s (higher) */
    SHB_RATE_M,  /* n * scale / t in millions per second (higher) */
    SHB_TIME_MS, /* t / n in milliseconds (lower) */
};

/* One trial of a row: every PE calls it with the same n and size; it runs
 * n operations and returns the seconds it took on this PE, completion
 * included (quiet, or the reply of a ping-pong). PE 0's time counts. */
typedef double (*shb_loop_fn)(long n, size_t size);

typedef struct shb_row {
    const char *family; /* the --rows name that selects it */
    const char *op;     /* the op key of its JSON rows */
    enum shb_kind kind;
    double scale; /* SHB_RATE_M: units per operation (GUPS: PEs) */
    shb_loop_fn loop;
    size_t bytes_per_op; /* caps a trial's bytes (0: no cap) */
    const char *note;    /* how the row measures, for the JSON "method" */
    const char *impl;    /* the JSON "impl"; NULL: the library built with */
} shb_row_t;

/* Runs one row at one size on every PE (collective); PE 0 prints it. */
void shb_run(const shb_row_t *row, size_t size);
/* Runs row over the sizes of its family unless --rows leaves it out. */
void shb_run_sizes(const shb_row_t *row, const size_t *sizes, int nsizes);
/* 1 if --rows selects family. */
int shb_selected(const char *family);
/* Wall clock in seconds. */
double shb_now(void);
/* Symmetric buffers of the rows (shmem_malloc'd once): at least
 * shb_max_bytes each. */
extern void *shb_src, *shb_dst;
extern size_t shb_max_bytes;
extern int shb_me, shb_npes;
/* Default sizes of the RMA families (bytes). */
extern const size_t *shb_rma_sizes;
extern int shb_rma_nsizes;
/* Sizes of the signal, broadcast and reduction rows (bytes). */
extern const size_t *shb_small_sizes;
extern int shb_small_nsizes;

/* Tern-native rows: defined by shb_native.c in the Tern build only; weak
 * references, so the OSHMEM build has none. shb_native_init sets them up
 * (collective, before the first row); shb_native_pair gives the native
 * row of a library row's op, or NULL. shb_run_sizes runs a library row
 * and its native pair together, size by size, their trials alternating:
 * rows run minutes apart in one process drift with the machine (and a
 * process's early rows ran slower than its late ones), which made
 * libtshmem look 1.2 to 1.7x slower than native on net when the two,
 * interleaved, differ by 1 to 2%; and on a VM whose shared-memory speed
 * moves within seconds, even a row run right after its pair can see the
 * other speed (shm put_signal_pp 8 B: 0.19 against 0.035 us). */
void shb_native_init(void) __attribute__((weak));
void shb_native_fini(void) __attribute__((weak));
const shb_row_t *shb_native_pair(const char *op) __attribute__((weak));

#endif
