#!/bin/sh
# Instructions per 8-byte put/get/put_nbi on the inline fast path, against
# a raw 8-byte memcpy, counted by callgrind (repeatable on a noisy machine).
#   scripts/fastpath-cost.sh [build-dir]     (needs valgrind)
set -e
cd "$(dirname "$0")/.."
build=${1:-build}
command -v valgrind >/dev/null || { echo "fastpath-cost: install valgrind" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -g -Iinclude scripts/cost/fastpath_cost.c -o "$tmp/cost" -L"$build/src" -ltern \
    -Wl,-rpath,"$PWD/$build/src"
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$tmp/cost" >/dev/null 2>&1
callgrind_annotate --inclusive=yes "$tmp/cg.out" 2>/dev/null | awk -v iters=100000 '
  /loop_(raw|put|get|put_nbi) / {
    gsub(",", "", $1); n = $1 / iters
    for (i = 2; i <= NF; i++) if ($i ~ /loop_/) { name = $i; sub(/.*:/, "", name); sub(/ .*/, "", name) }
    cost[name] = n
  }
  END {
    printf "%-14s %8s %10s\n", "loop", "instr/op", "over raw"
    split("loop_raw loop_put loop_get loop_put_nbi", order, " ")
    for (k = 1; k <= 4; k++) { l = order[k]; printf "%-14s %8.1f %10.1f\n", l, cost[l], cost[l] - cost["loop_raw"] }
  }'
