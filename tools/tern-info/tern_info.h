/* tern-info: what this build and this machine offer Tern. Shared between
 * the option handling (tern_info.c) and the system probes (info_sys.c). */
#ifndef TERN_INFO_H
#define TERN_INFO_H

#include <stddef.h>
#include <stdio.h>

/* Sections of the default output; each prints a heading and its lines. */
void ti_print_topology(FILE *out);
void ti_print_hugepages(FILE *out);
void ti_print_am(FILE *out);
void ti_print_vis(FILE *out);
void ti_print_coll(FILE *out);

/* -b: this process's rank (from the launcher's environment), host, CPU
 * binding and NUMA domain, as one line written at once. Needs no
 * tern_init. Returns the exit status. */
int ti_print_binding(void);

/* --copy: run as a job (ternrun -n 4 tern-info --copy); tern_init, then
 * the first rank of each node prints the distance classes of its ranks,
 * the calibration and the copy decision table. Returns the exit status. */
int ti_print_copy(int argc, char **argv);
/* --memory: run as a job (ternrun -n 4 tern-info --memory); rank 0 prints
 * tern_memory_report's figures and what each means. Returns the exit
 * status. */
int ti_print_memory(int argc, char **argv);
/* --calibrate: measures where non-temporal copies pay, now, prints both
 * curves and updates the cache. Returns the exit status. */
int ti_print_calibrate(void);

#endif
