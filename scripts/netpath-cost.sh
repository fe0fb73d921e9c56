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
src=${2:-.}
exec scripts/cost/callgrind-net.sh "${1:-build}" 20000 \
    loop_put_nbi loop_get loop_get_nbi loop_get_nbi_lone/8 -- -I"$src/include" \
    scripts/cost/netpath_cost.c
