#!/bin/sh
# Instructions per OpenSHMEM call from PE 0 to a network peer (TERN_SHM=off,
# 2 PEs, tcp provider), counted by callgrind on PE 0's application thread:
# each loop's inclusive count per call (libtshmem, Tern, libfabric and the
# provider's user-space work; a blocking call's count includes the polls
# of its wait). Run it with TERN_PROGRESS_THREAD=0 and =1 to see what the
# progress thread adds to the application's own calls (its own work is
# outside these loops).
#   scripts/shmem-net-cost.sh [build-dir]     (needs valgrind)
set -e
cd "$(dirname "$0")/.."
build=$(cd "${1:-build}" && pwd)
# COST_MARK: PE 1 runs no get (it waits, then barriers)
COST_LIBS="-L$build/src/shmem -ltshmem -Wl,-rpath,$build/src/shmem" COST_SEGMENT=4M \
    COST_HEAD="loop (PE 0)|instr/call" COST_MARK=loop_getmem \
    exec scripts/cost/callgrind-net.sh "$build" 4000 \
    loop_putmem loop_putmem_nbi loop_quiet_idle loop_getmem loop_g loop_fetch_add loop_add \
    loop_barrier/4 -- scripts/cost/shmem_net_cost.c
