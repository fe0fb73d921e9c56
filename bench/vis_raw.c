/* The baselines of tern-bench vis on a mapped peer: the copy loops a
 * program would write, in a compilation unit of their own.
 *
 * Why here and not in vis.c: a loop of five or six instructions runs at
 * up to twice its speed depending on where it lands relative to the
 * instruction fetch windows (32 bytes on Intel's decoded-instruction
 * cache, whose JCC erratum adds a penalty for jumps at a boundary; 64 on
 * AMD's op cache). Inside vis.c the hand loops moved whenever unrelated
 * code in that file changed, so the baseline, and every ratio to it,
 * depended on code placement (the indexed list loop ran about 20% slow
 * in vis7's runs; scratch measurements on an EPYC gave the strided loop
 * 17 to 32 ns for 32 elements by placement alone). This file is compiled
 * with -falign-functions=64 -falign-loops=32 (bench/CMakeLists.txt):
 * each loop starts at a 32-byte boundary, so it sits in one fetch window
 * whatever else changes, at its fast speed. The Tern side gets no such
 * help: its inline path compiles in vis.c with default flags, as in a
 * user's program. The loops themselves are what a program writes; the
 * compiler chooses their code (no unrolling by hand). See
 * docs/design/non-contiguous.md, "The baseline in its own unit". */
#include "vis_raw.h"

#include "harness.h"

#include <string.h>

uint64_t tb_vis_raw_put(char *dst, const char *src, size_t k, long ops)
{
    uint64_t t0 = tb_now_ns();
    for (long i = 0; i < ops; i++) {
        for (size_t j = 0; j < k; j++)
            memcpy(dst + j * VIS_STRIDE, src + j * VIS_ELEM, VIS_ELEM);
        TB_COMPILER_BARRIER();
    }
    return tb_now_ns() - t0;
}

uint64_t tb_vis_raw_get(char *dst, const char *src, size_t k, long ops)
{
    uint64_t t0 = tb_now_ns();
    for (long i = 0; i < ops; i++) {
        for (size_t j = 0; j < k; j++)
            memcpy(dst + j * VIS_ELEM, src + j * VIS_STRIDE, VIS_ELEM);
        TB_COMPILER_BARRIER();
    }
    return tb_now_ns() - t0;
}

uint64_t tb_vis_raw_lists(void *const *dl, const void *const *sl, size_t k, long ops)
{
    uint64_t t0 = tb_now_ns();
    for (long i = 0; i < ops; i++) {
        for (size_t j = 0; j < k; j++)
            memcpy(dl[j], sl[j], VIS_ELEM);
        TB_COMPILER_BARRIER();
    }
    return tb_now_ns() - t0;
}
