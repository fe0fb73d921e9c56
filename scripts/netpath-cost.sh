#!/bin/sh
# Instructions per 8-byte put_nbi and get to a network peer already
# contacted (TERN_SHM=off, 2 ranks, tcp provider), counted by callgrind on
# rank 0: the loop's inclusive count (Tern and libfabric) and tn_ofi_rma's
# share, per operation. Repeatable where timings on a shared machine are not.
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
  grep -q "loop_put_nbi" "$f.txt" || continue # rank 1
  awk -v iters=20000 '
    /loop_put_nbi |loop_get |tn_ofi_rma / {
      for (i = 2; i <= NF; i++) if ($i ~ /(loop_|tn_ofi_rma)/) { name = $i; sub(/.*:/, "", name); sub(/ .*/, "", name) }
      gsub(",", "", $1); if (!(name in cost)) cost[name] = $1 / iters
    }
    END {
      printf "%-16s %10s\n", "function", "instr/op"
      printf "%-16s %10.1f\n", "loop_put_nbi", cost["loop_put_nbi"]
      printf "%-16s %10.1f\n", "loop_get", cost["loop_get"]
      printf "%-16s %10.1f  (both loops: per op over 2x%d ops)\n", "tn_ofi_rma", cost["tn_ofi_rma"] / 2, iters
    }' "$f.txt"
done
