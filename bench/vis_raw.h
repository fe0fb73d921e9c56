/* The hand-written copy loops that tern-bench vis races Tern's
 * non-contiguous calls against on a mapped peer (bench/vis_raw.c): the
 * loop a program holding tern_ptr's pointer writes, compiled on their own
 * with their loops aligned (see vis_raw.c). Each returns the ns taken by
 * ops rounds of k 8-byte elements. */
#ifndef TB_VIS_RAW_H
#define TB_VIS_RAW_H

#include <stddef.h>
#include <stdint.h>

#define VIS_ELEM   8
#define VIS_STRIDE 32 /* 25% density */

/* put: element j from src + 8j to dst + 32j */
uint64_t tb_vis_raw_put(char *dst, const char *src, size_t k, long ops);
/* get: element j from src + 32j to dst + 8j */
uint64_t tb_vis_raw_get(char *dst, const char *src, size_t k, long ops);
/* indexed: element j from sl[j] to dl[j] */
uint64_t tb_vis_raw_lists(void *const *dl, const void *const *sl, size_t k, long ops);

#endif
