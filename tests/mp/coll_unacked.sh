#!/bin/sh
# The collectives' stamped records (core/coll_eager.c) have the size every
# member can write: the job's smallest unacknowledged network write,
# agreed at start-up (core/xports.c), not each rank's own. One rank runs
# with TERN_TEST_FAULT=nowiden (its unacknowledged writes keep the
# provider's default inject size, 64 B over tcp;ofi_rxm, as on a rank
# whose provider grants less), the others with the 128 B asked for; the
# collectives test (mp_coll: records of 1 to 113 B around the limits, in
# teams with one member per node) must pass. With each rank's own size
# rank 0 wrote records of up to 112 B that rank 1 awaited as messages.
# Usage: coll_unacked.sh CONFIG TERNRUN COLL RANKS
cfg=$1 ternrun=$2 coll=$3 n=$4
here=$(dirname "$0")
fail() { echo "coll_unacked: FAIL: $*"; exit 1; }
# Rank 1 alone gets the fault (the launcher's TERN_BOOT_RANK says which).
wrap='[ "$TERN_BOOT_RANK" = 1 ] && export TERN_TEST_FAULT=nowiden; exec "$@"'
out=$(TERN_VERBOSE=2 timeout 120 "$here/run_config.sh" "$cfg" "$ternrun" -n "$n" \
  sh -c "$wrap" sh "$coll" 2>&1); rc=$?
[ $rc -eq 124 ] && fail "$cfg n$n: job hung (timeout): $(echo "$out" | tail -5)"
[ $rc -eq 0 ] || fail "$cfg n$n: job failed ($rc): $(echo "$out" | tail -20)"
# The two sizes were really in the job.
echo "$out" | grep -q 'tern\[1@.*unacknowledged writes 64 B' ||
  fail "$cfg n$n: rank 1 did not run with 64 B: $(echo "$out" | grep 'ofi: provider')"
echo "$out" | grep -q 'tern\[0@.*unacknowledged writes 128 B' ||
  fail "$cfg n$n: rank 0 did not run with 128 B: $(echo "$out" | grep 'ofi: provider')"
echo "$out" | grep '] ofi: provider' | cut -c1-110
echo "coll_unacked: $cfg n$n: PASS"
