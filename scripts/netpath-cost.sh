#!/bin/sh
# Instructions per 8-byte put_nbi, get and get_nbi (64 per sync, and one
# per sync) to a network peer already
# contacted (TERN_SHM=off, 2 ranks, tcp provider), counted by callgrind on
# rank 0: each loop's inclusive count per operation (Tern's issue path,
# libfabric's and the provider's progress). Repeatable where timings on a shared machine are not.
#   scripts/netpath-cost.sh [build-dir [source-dir]]     (needs valgrind)
# (source-dir: whose include/ matches build-dir, for a baseline tree)
set -e
cd "$(dirname "$0")/.."
build=$(cd "${1:-build}" && pwd) src=${2:-.}
command -v valgrind >/dev/null || { echo "$0: install valgrind" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -g -I"$src/include" scripts/cost/netpath_cost.c -o "$tmp/cost" -L"$build/src" \
    -ltern -Wl,-rpath,"$build/src"
TERN_SHM=off TERN_SEGMENT_SIZE=1M "$build/tools/ternrun/ternrun" -n 2 valgrind \
    --tool=callgrind --callgrind-out-file="$tmp/cg.%p" "$tmp/cost" >"$tmp/out" 2>&1 ||
    { cat "$tmp/out"; exit 1; }
for f in "$tmp"/cg.*; do
  callgrind_annotate --inclusive=yes "$f" 2>/dev/null >"$f.txt"
  awk -v iters=20000 '
    /loop_put_nbi |loop_get |loop_get_nbi |loop_get_nbi_lone / {
      for (i = 2; i <= NF; i++) if ($i ~ /loop_/) { name = $i; sub(/.*:/, "", name); sub(/ .*/, "", name) }
      gsub(",", "", $1); if (!(name in cost)) cost[name] = $1 / (name == "loop_get_nbi_lone" ? iters / 8 : iters)
    }
    END {
      if (!cost["loop_put_nbi"]) exit # rank 1: it only waits
      printf "%-16s %10s\n", "loop (rank 0)", "instr/op"
      printf "%-16s %10.1f\n", "loop_put_nbi", cost["loop_put_nbi"]
      printf "%-16s %10.1f\n", "loop_get", cost["loop_get"]
      printf "%-16s %10.1f\n", "loop_get_nbi", cost["loop_get_nbi"]
      printf "%-16s %10.1f\n", "loop_get_nbi_lone", cost["loop_get_nbi_lone"]
    }' "$f.txt"
done
