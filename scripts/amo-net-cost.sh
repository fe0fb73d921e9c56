#!/bin/sh
# Instructions per network atomic on rank 0 (TERN_SHM=off, 2 ranks, the
# TERN_OFI_ATOMICS in effect): a blocking u64 fetch-add of an atomic
# domain against a client's own Short AM round trip doing the same, and
# nbi fetch-adds, and raw blocking fi_fetch_atomicmsg of the same provider
# (bench/raw_ofi.c, the raw row of tern-bench net); counted by callgrind (Tern, libfabric, the provider's
# user-space work; the kernel's is not counted: compare syscalls with
# strace -c on scripts/cost/amo_net_cost.c ad|client).
#   scripts/amo-net-cost.sh [build-dir]     (needs valgrind)
set -e
cd "$(dirname "$0")/.."
build=$(cd "${1:-build}" && pwd)
command -v valgrind >/dev/null || { echo "$0: install valgrind" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -g -Iinclude -DCOST_RAW_OFI -DTERN_HAVE_OFI=1 scripts/cost/amo_net_cost.c \
    bench/raw_ofi.c -o "$tmp/cost" -L"$build/src" -ltern -ldl -Wl,-rpath,"$build/src"
TERN_SHM=off TERN_SEGMENT_SIZE=1M "$build/tools/ternrun/ternrun" -n 2 valgrind \
    --tool=callgrind --callgrind-out-file="$tmp/cg.%p" "$tmp/cost" >"$tmp/out" 2>&1 ||
    { cat "$tmp/out"; exit 1; }
for f in "$tmp"/cg.*; do
  callgrind_annotate --inclusive=yes "$f" 2>/dev/null | awk -v iters=4000 '
    /loop_(ad|client|nbi|raw) / {
      for (i = 2; i <= NF; i++) if ($i ~ /loop_/) { name = $i; sub(/.*:/, "", name); sub(/ .*/, "", name) }
      gsub(",", "", $1); if (!(name in cost)) cost[name] = $1 / iters
    }
    END {
      if (!cost["loop_ad"]) exit # rank 1: it serves
      printf "%-16s %10s\n", "loop (rank 0)", "instr/op"
      printf "%-16s %10.1f\n", "loop_ad", cost["loop_ad"]
      printf "%-16s %10.1f\n", "loop_client", cost["loop_client"]
      printf "%-16s %10.1f\n", "loop_nbi", cost["loop_nbi"]
      printf "%-16s %10.1f\n", "loop_raw", cost["loop_raw"]
    }'
done
