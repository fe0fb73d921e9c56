#!/bin/sh
# The floor of a blocking round trip over the network provider, in one
# job (TERN_SHM=off, 2 ranks): Tern's blocking fetch-add and 8 B get
# against raw libfabric's message round trip, fetch atomic, 8 B read and
# a round trip of inject writes polled in memory
# (scripts/cost/net_floor.c, bench/raw_ofi.c); then, unless NO_OSHMEM=1,
# libtshmem against Open MPI's OSHMEM on the same rows
# (scripts/bench-shmem.py --rows lat,amo --sizes 8). See
# docs/design/shmem-atomics.md, "Fetching AMOs and blocking get over tcp".
#   scripts/net-floor.sh [build-dir] [ops per row and round, default 2000]
set -e
cd "$(dirname "$0")/.."
build=$(cd "${1:-build}" && pwd)
ops=${2:-2000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -g -Iinclude -Ibench -DTERN_HAVE_OFI=1 scripts/cost/net_floor.c bench/raw_ofi.c \
    -o "$tmp/net_floor" -L"$build/src" -ltern -ldl -Wl,-rpath,"$build/src"
TERN_SHM=off "$build/tools/ternrun/ternrun" -n 2 "$tmp/net_floor" "$ops"
if [ "${NO_OSHMEM:-0}" != 1 ] && command -v oshcc >/dev/null; then
  python3 scripts/bench-shmem.py --build-dir "$build" --config net --rows lat,amo \
      --sizes 8 --row-time 0.1 --trials 3
fi
