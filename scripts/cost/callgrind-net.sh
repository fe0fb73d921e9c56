#!/bin/sh
# Instructions per operation of each loop function of a cost program run on
# 2 ranks that reach each other through the network (TERN_SHM=off), counted
# by callgrind on rank 0: each loop's inclusive count (Tern, libfabric and
# the provider's user-space work; a blocking call's includes the polls of
# its wait) over its iterations. Shared by scripts/netpath-cost.sh,
# scripts/shmem-net-cost.sh and scripts/amo-net-cost.sh.
#   scripts/cost/callgrind-net.sh BUILD-DIR ITERS LOOP[/K]... -- CC-ARGS...
# A loop runs ITERS iterations, or ITERS/K with /K. The profile of the rank
# that did not run COST_MARK (a loop that rank 0 alone runs; default the
# first loop named) is skipped.
# CC-ARGS: the sources and flags of the program (include/ of this tree is
# searched after them). Env: COST_LIBS (libraries before libtern),
# COST_SEGMENT (TERN_SEGMENT_SIZE, default 1M), COST_HEAD (the table's
# two column titles, default "loop (rank 0)|instr/op").
set -e
build=$(cd "$1" && pwd) iters=$2
shift 2
loops=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  loops="$loops $1"
  shift
done
[ "${1:-}" = -- ] || { echo "$0: usage: BUILD-DIR ITERS LOOP[/K]... -- CC-ARGS..." >&2; exit 2; }
shift
command -v valgrind >/dev/null || { echo "$0: install valgrind" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086 # COST_LIBS is a list of flags
cc -O2 -g "$@" -Iinclude -o "$tmp/cost" ${COST_LIBS:-} -L"$build/src" -ltern \
  -Wl,-rpath,"$build/src"
TERN_SHM=off TERN_SEGMENT_SIZE=${COST_SEGMENT:-1M} "$build/tools/ternrun/ternrun" -n 2 \
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.%p" "$tmp/cost" >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; exit 1; }
for f in "$tmp"/cg.*; do
  callgrind_annotate --inclusive=yes "$f" 2>/dev/null | awk -v iters="$iters" \
    -v loops="$loops" -v mark="${COST_MARK:-}" -v head="${COST_HEAD:-loop (rank 0)|instr/op}" '
    BEGIN {
      n = split(loops, order, " ")
      for (k = 1; k <= n; k++) {
        div = 1
        if (split(order[k], p, "/") == 2) div = p[2]
        order[k] = p[1]; per[p[1]] = iters / div
      }
    }
    /loop_/ {
      for (i = 2; i <= NF; i++) if ($i ~ /loop_/) { name = $i; sub(/.*:/, "", name); sub(/ .*/, "", name) }
      gsub(",", "", $1)
      if ((name in per) && !(name in cost)) cost[name] = $1 / per[name]
    }
    END {
      if (!cost[mark == "" ? order[1] : mark]) exit # not rank 0
      split(head, h, "|")
      printf "%-16s %10s\n", h[1], h[2]
      for (k = 1; k <= n; k++) printf "%-16s %10.1f\n", order[k], cost[order[k]]
    }'
done
