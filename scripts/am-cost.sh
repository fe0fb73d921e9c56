#!/bin/sh
# Instructions per active message on shared memory (send, poll, dispatch),
# counted by callgrind: the software cost of one message, repeatable on a
# noisy machine (latency figures: tern-bench am_lat).
#   scripts/am-cost.sh [build-dir]     (needs valgrind)
set -e
cd "$(dirname "$0")/.."
exec scripts/cost/callgrind-loops.sh "${1:-build}" scripts/cost/am_cost.c - \
    loop_poll_empty loop_short loop_medium8 loop_neg8 loop_round_trip loop_medium1k \
    loop_round_trip1k loop_long8 loop_wait_rt loop_wait_rt1k
