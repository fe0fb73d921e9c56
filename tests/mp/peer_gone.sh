#!/bin/sh
# A peer that exits before anyone contacts it (peer_gone.c): the job must
# end (not hang: the timeout), fail, and the launcher must name the rank
# that left. Usage: peer_gone.sh CONFIG TERNRUN PROG N
cfg=$1 ternrun=$2 prog=$3 n=$4
gone=$((n - 1))
fail() { echo "peer_gone.sh $cfg n=$n: FAIL: $*"; exit 1; }
export TERN_SEGMENT_SIZE=1M
out=$(timeout 60 "$(dirname "$0")/run_config.sh" "$cfg" "$ternrun" -n "$n" "$prog" 2>&1)
st=$?
echo "$out"
[ $st -ne 124 ] || fail "the job was still running after 60 s"
[ $st -ne 0 ] || fail "the job succeeded without rank $gone"
echo "$out" | grep -q "rank $gone (pid [0-9]*) exited with code 0 after joining the job but without tern_finalize" ||
  fail "no message naming rank $gone"
echo "peer_gone.sh $cfg n=$n: PASS (exit status $st)"
