#!/bin/sh
# Instructions per OpenSHMEM call (libtshmem) against the Tern-native call
# doing the same (8-byte put/get/put_nbi, typed long get/put, p, g, fetch-add, add, compare-swap,
# put with signal, barrier, and the active-set broadcast64 and long_sum_to_all
# over every PE inline, through the library's function and natively, on 1 PE),
# counted by callgrind (repeatable on a noisy machine).
#   scripts/shmem-cost.sh [build-dir]     (needs valgrind)
set -e
cd "$(dirname "$0")/.."
b=${1:-build}
COST_LIBS="-L$b/src/shmem -ltshmem -Wl,-rpath,$PWD/$b/src/shmem" \
    exec scripts/cost/callgrind-loops.sh "$b" scripts/cost/shmem_cost.c - \
    loop_tern_put loop_shmem_putmem loop_tern_get loop_shmem_getmem loop_shmem_long_get loop_shmem_long_put loop_tern_put_nbi \
    loop_shmem_putmem_nbi loop_shmem_long_p loop_shmem_long_g loop_tern_fadd loop_shmem_fetch_add \
    loop_tern_add loop_shmem_add loop_tern_cswap loop_shmem_cswap loop_tern_put_signal \
    loop_shmem_putmem_signal loop_tern_barrier loop_shmem_barrier_all \
    loop_tern_bcast loop_shmem_broadcast64 loop_lib_broadcast64 \
    loop_tern_allreduce loop_shmem_long_sum_to_all loop_lib_long_sum_to_all
