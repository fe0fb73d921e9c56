#!/bin/sh
# Instructions per 8-byte put/get/put_nbi on the inline fast path, against
# a raw 8-byte memcpy, and per quiet/nbi sync/fence with nothing outstanding, counted by callgrind (repeatable on a noisy machine).
#   scripts/fastpath-cost.sh [build-dir]     (needs valgrind)
set -e
cd "$(dirname "$0")/.."
exec scripts/cost/callgrind-loops.sh "${1:-build}" scripts/cost/fastpath_cost.c loop_raw \
    loop_raw loop_put loop_get loop_put_nbi loop_quiet loop_nbi_sync loop_ctx_quiet loop_fence
