#!/bin/sh
# Settings that must be the same on every rank (TN_CFG_JOB: the TERN_COLL_*
# thresholds and piece sizes, from which every member derives the same
# algorithm and sequence numbers) are compared at tern_init (core/xports.c
# agree_job). One rank started with another TERN_COLL_PAIR_PIECE: tern_init
# fails on every rank, no rank hangs, and the message names the variable
# with both values. The same value written otherwise (262144 for 256K) is
# no difference: the job runs its collectives.
# Usage: cfg_agree.sh CONFIG TERNRUN HELLO COLL RANKS
cfg=$1 ternrun=$2 hello=$3 coll=$4 n=$5
here=$(dirname "$0")
fail() { echo "cfg_agree: FAIL: $*"; exit 1; }
last=$((n - 1))
run() { # VALUE PROGRAM: the last rank alone gets TERN_COLL_PAIR_PIECE=VALUE
  wrap="[ \"\$TERN_BOOT_RANK\" = $last ] && export TERN_COLL_PAIR_PIECE=$1; exec \"\$@\""
  timeout 60 "$here/run_config.sh" "$cfg" "$ternrun" -n "$n" sh -c "$wrap" sh "$2" 2>&1
}
out=$(run 1K "$hello"); rc=$?
[ $rc -eq 124 ] && fail "$cfg n$n: differing setting: job hung: $(echo "$out" | tail -5)"
[ $rc -eq 0 ] && fail "$cfg n$n: differing setting: job succeeded: $out"
echo "$out" | grep -q "differ: rank $last's (and 1 rank(s) in all) from rank 0's.*TERN_COLL_PAIR_PIECE=256K" ||
  fail "$cfg n$n: no message from rank 0 naming rank $last and its own value: $out"
echo "$out" | grep -q "rank $last has: .*TERN_COLL_PAIR_PIECE=1K" ||
  fail "$cfg n$n: no message from rank $last with its value: $out"
echo "ok: $(echo "$out" | grep -m1 'must be the same' | cut -c1-160)"
out=$(run 262144 "$coll"); rc=$?
[ $rc -eq 0 ] || fail "$cfg n$n: the same value written as 262144: job failed ($rc): $(echo "$out" | tail -20)"
echo "cfg_agree: $cfg n$n: PASS"
