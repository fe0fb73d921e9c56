#!/bin/sh
# Instructions per active message on shared memory (send, poll, dispatch),
# counted by callgrind: the software cost of one message, repeatable on a
# noisy machine (latency figures: tern-bench am_lat).
#   scripts/am-cost.sh [build-dir]     (needs valgrind)
set -e
cd "$(dirname "$0")/.."
build=${1:-build}
command -v valgrind >/dev/null || { echo "am-cost: install valgrind" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -g -Iinclude scripts/cost/am_cost.c -o "$tmp/cost" -L"$build/src" -ltern \
    -Wl,-rpath,"$PWD/$build/src"
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$tmp/cost" >/dev/null 2>&1
callgrind_annotate --inclusive=yes "$tmp/cg.out" 2>/dev/null | awk -v iters=100000 '
  /loop_(poll_empty|short|medium8|round_trip) / {
    gsub(",", "", $1); n = $1 / iters
    for (i = 2; i <= NF; i++) if ($i ~ /loop_/) { name = $i; sub(/.*:/, "", name); sub(/ .*/, "", name) }
    cost[name] = n
  }
  END {
    printf "%-16s %10s\n", "loop", "instr/iter"
    split("loop_poll_empty loop_short loop_medium8 loop_round_trip", order, " ")
    for (k = 1; k <= 4; k++) printf "%-16s %10.1f\n", order[k], cost[order[k]]
  }'
