#!/bin/sh
# A wide record (core/coll_eager.c: an allreduce, or an fcollect or
# all-to-all block, of 113 B to TERN_COLL_WIDE_MAX by one network write
# with local completion only) whose write fails ends the job with a
# message that names it, instead of leaving its reader (or its writer)
# waiting: mp_coll_wide under TERN_TEST_FAULT=complete:1 (every network
# write's completion reports a failure; the first 512 B allreduce is the
# job's first such write) must fail, within the timeout, saying so; also
# with the exchanges first, and with a 12 KiB allreduce first (a region
# above one Medium message: one write that raises its flag).
# Usage: coll_wide.sh CONFIG TERNRUN COLL_WIDE RANKS
cfg=$1 ternrun=$2 prog=$3 n=$4
here=$(dirname "$0")
fail() { echo "coll_wide: FAIL: $*"; exit 1; }
# Once as it is, then with the exchanges first (mp_coll_wide x): the first
# failing write is an fcollect's wide record (512 B blocks).
check() { # ARG WHAT [MESSAGE]
  out=$(TERN_TEST_FAULT=complete:1 timeout 60 "$here/run_config.sh" "$cfg" "$ternrun" \
    -n "$n" "$prog" $1 2>&1); rc=$?
  [ $rc -eq 124 ] && fail "$cfg n$n $1: job hung (timeout): $(echo "$out" | tail -5)"
  [ $rc -ne 0 ] || fail "$cfg n$n $1: the job passed with every write failing: $(echo "$out" | tail -5)"
  msg=${3:-"$2: the network write of a record.*failed"}
  echo "$out" | grep -q "$msg" ||
    fail "$cfg n$n $1: no message naming the $2 write ($msg): $(echo "$out" | tail -10)"
  echo "$out" | grep "$msg" | head -2
}
check "" allreduce
check x fcollect
# A 12 KiB allreduce first (mp_coll_wide r): its region's write, which
# carries the flag, fails; the member's wait for its partner's region (or
# the drain after it) ends the job, the cause (the put) logged before.
check r allreduce "network write of a team flag, or of data that carries one, failed\|allreduce: \(the\|a\) network write to rank [0-9]* failed"
echo "$out" | grep -q "put with rank [0-9]* failed: fault injected" ||
  fail "$cfg n$n r: the failed put is not named: $(echo "$out" | tail -10)"
echo "coll_wide: $cfg n$n: PASS"
