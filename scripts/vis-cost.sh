#!/bin/sh
# Instructions per non-contiguous put/get call to self (the mapped-peer
# copy loops) against the hand-written copy loop of the same 8-byte
# pieces, counted by callgrind; K pieces a call (default 512; K=2 shows
# the fixed cost of a call). Per piece: divide by K. RT=1: the level
# counts are run-time values (read from a volatile), as tern-bench vis
# passes them; otherwise constants the compiler sees.
#   [K=2] [RT=1] scripts/vis-cost.sh [build-dir]     (needs valgrind)
set -e
cd "$(dirname "$0")/.."
k=${K:-512}
iters=$((2000000 / (k + 8)))
COST_ITERS=$iters COST_CFLAGS="-DITERS=$iters -DK=$k${RT:+ -DRT}" \
    exec scripts/cost/callgrind-loops.sh "${1:-build}" scripts/cost/vis_cost.c loop_raw \
    loop_raw loop_raw_lists loop_s1 loop_s3 loop_s8 loop_s32 loop_indexed loop_vector loop_get_vector
