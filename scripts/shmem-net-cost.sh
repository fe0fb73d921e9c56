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
command -v valgrind >/dev/null || { echo "$0: install valgrind" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -g -Iinclude scripts/cost/shmem_net_cost.c -o "$tmp/cost" -L"$build/src/shmem" \
    -ltshmem -Wl,-rpath,"$build/src/shmem" -L"$build/src" -ltern -Wl,-rpath,"$build/src"
TERN_SHM=off TERN_SEGMENT_SIZE=4M "$build/tools/ternrun/ternrun" -n 2 valgrind \
    --tool=callgrind --callgrind-out-file="$tmp/cg.%p" "$tmp/cost" >"$tmp/out" 2>&1 ||
    { cat "$tmp/out"; exit 1; }
for f in "$tmp"/cg.*; do
  callgrind_annotate --inclusive=yes "$f" 2>/dev/null | awk -v iters=4000 '
    / loop_[a-z_]+ / || /:loop_[a-z_]+ / {
      for (i = 2; i <= NF; i++) if ($i ~ /loop_/) { name = $i; sub(/.*:/, "", name); sub(/ .*/, "", name) }
      gsub(",", "", $1); if (!(name in cost)) cost[name] = $1 / (name == "loop_barrier" ? iters / 4 : iters)
    }
    END {
      if (!cost["loop_getmem"]) exit # PE 1: it waits, then barriers
      n = split("loop_putmem loop_putmem_nbi loop_quiet_idle loop_getmem loop_g loop_fetch_add loop_add loop_barrier", order, " ")
      printf "%-16s %10s\n", "loop (PE 0)", "instr/call"
      for (k = 1; k <= n; k++) printf "%-16s %10.1f\n", order[k], cost[order[k]]
    }'
done
