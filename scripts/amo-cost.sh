#!/bin/sh
# Instructions per inline atomic-domain op (u64 and u32 fetch-add, u64
# compare-swap), per 8-byte put with signal and per tern_wait_until_u64
# whose word is already set, on one node, against the raw CPU atomic, the
# raw copy + release store and the raw spin's load and compare, counted
# by callgrind (repeatable on a noisy machine; latency figures: tern-bench
# amo and put_pingpong).
#   scripts/amo-cost.sh [build-dir]     (needs valgrind)
set -e
cd "$(dirname "$0")/.."
exec scripts/cost/callgrind-loops.sh "${1:-build}" scripts/cost/amo_cost.c - \
    loop_raw_fadd loop_fadd loop_fadd_u32 loop_raw_cswap loop_cswap loop_raw_signal \
    loop_put_signal loop_raw_wait loop_wait
