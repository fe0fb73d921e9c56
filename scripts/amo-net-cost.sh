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
# bench/harness.c: raw_ofi.c's raw rows read through tb_read_payload
COST_LIBS="-ldl -lm" exec scripts/cost/callgrind-net.sh "${1:-build}" 4000 \
    loop_ad loop_client loop_nbi loop_raw -- \
    -DCOST_RAW_OFI -DTERN_HAVE_OFI=1 scripts/cost/amo_net_cost.c bench/raw_ofi.c bench/harness.c
