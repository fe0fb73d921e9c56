#!/bin/sh
# Instructions per iteration of each loop function of a cost program,
# counted by callgrind (repeatable on a noisy machine); shared by
# scripts/fastpath-cost.sh and scripts/am-cost.sh.
#   scripts/cost/callgrind-loops.sh BUILD-DIR SOURCE.c REF-LOOP|- LOOP...
# Each loop runs 100000 iterations (COST_ITERS, which the program must
# also be built with: COST_CFLAGS=-DITERS=...); with a REF-LOOP, a second
# column gives each loop's count over it.
set -e
build=$1 src=$2 ref=$3
shift 3
command -v valgrind >/dev/null || { echo "$0: install valgrind" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# COST_LIBS: libraries before libtern (scripts/shmem-cost.sh: libtshmem).
cc -O2 -g -Iinclude ${COST_CFLAGS:-} "$src" -o "$tmp/cost" ${COST_LIBS:-} -L"$build/src" -ltern \
    -Wl,-rpath,"$PWD/$build/src"
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$tmp/cost" >/dev/null 2>&1
callgrind_annotate --inclusive=yes "$tmp/cg.out" 2>/dev/null | awk -v iters="${COST_ITERS:-100000}" \
    -v ref="$ref" -v loops="$*" '
  /loop_[a-z0-9_]+ / {
    for (i = 2; i <= NF; i++) if ($i ~ /loop_/) { name = $i; sub(/.*:/, "", name); sub(/ .*/, "", name) }
    gsub(",", "", $1); cost[name] = $1 / iters
  }
  END {
    n = split(loops, order, " ")
    printf "%-16s %10s%s\n", "loop", "instr/iter", ref == "-" ? "" : sprintf(" %10s", "over " ref)
    for (k = 1; k <= n; k++) {
      l = order[k]
      printf "%-16s %10.1f", l, cost[l]
      if (ref != "-") printf " %10.1f", cost[l] - cost[ref]
      printf "\n"
    }
  }'
