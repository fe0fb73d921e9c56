#!/bin/sh
# Settings that must be the same on every rank (TN_CFG_JOB: the TERN_COLL_*
# thresholds and piece sizes, from which every member derives the same
# algorithm and sequence numbers; TERN_AM_MEDIUM_MAX and TERN_AM_SHM_QUEUE,
# from which the receive buffers, the shared-memory queues' layout and the
# collectives' message sizes follow; TERN_SHM, which groups the ranks into
# nodes for the transports; TERN_OFI_ATOMICS, from which every rank picks
# an atomic domain's mechanism, coherent only when all pick the same;
# TERN_AM_NET_CREDITS, the network messages a sender may have outstanding,
# returned by the receiver after half its own value; TERN_OFI_LAZY_ADDR
# and TERN_OFI_SIZE, without which ranks make other start-up exchanges or
# disagree on the provider's eager sizes; TERN_STATS, for which
# tern_finalize gathers every rank's counts) are compared at tern_init
# (core/xports.c agree_job), and so are the network provider each rank
# chose (from TERN_OFI_PROVIDER and FI_PROVIDER) and ofi_rxm's variables
# that decide its eager limit, without which ranks cannot connect. One rank started with another value of VAR:
# tern_init fails on every rank, no rank hangs, and the message names the
# variable with both values. The same value written otherwise (SAME, e.g.
# 262144 for 256K; an empty DEFAULT and SAME: unset) is no difference: the
# job runs PROG.
# SHOWN: the name the messages give with the values, where the setting
# compared is not VAR itself (ofi_provider: the provider each rank chose
# from TERN_OFI_PROVIDER and FI_PROVIDER; default VAR).
# Usage: cfg_agree.sh CONFIG TERNRUN HELLO PROG RANKS [VAR BAD DEFAULT SAME [SHOWN]]
# (default: TERN_COLL_PAIR_PIECE 1K 256K 262144)
cfg=$1 ternrun=$2 hello=$3 prog=$4 n=$5
var=${6:-TERN_COLL_PAIR_PIECE} bad=${7:-1K} def=${8-256K} same=${9-262144}
shown=${10:-$var}
here=$(dirname "$0")
fail() { echo "cfg_agree: FAIL: $*"; exit 1; }
last=$((n - 1))
run() { # VALUE PROGRAM: the last rank alone gets VAR=VALUE
  wrap="[ \"\$TERN_BOOT_RANK\" = $last ] && export $var='$1'; exec \"\$@\""
  timeout 60 "$here/run_config.sh" "$cfg" "$ternrun" -n "$n" sh -c "$wrap" sh "$2" 2>&1
}
out=$(run "$bad" "$hello"); rc=$?
[ $rc -eq 124 ] && fail "$cfg n$n: differing $var: job hung: $(echo "$out" | tail -5)"
[ $rc -eq 0 ] && fail "$cfg n$n: differing $var: job succeeded: $out"
echo "$out" | grep -q "differ: rank $last's (and 1 rank(s) in all) from rank 0's.*$shown=$def" ||
  fail "$cfg n$n: no message from rank 0 naming rank $last and its own $shown: $out"
echo "$out" | grep -q "rank $last has: .*$shown=$bad" ||
  fail "$cfg n$n: no message from rank $last with its $shown: $out"
echo "ok: $(echo "$out" | grep -m1 'must be the same' | cut -c1-160)"
out=$(run "$same" "$prog"); rc=$?
[ $rc -eq 0 ] || fail "$cfg n$n: the same $var written as $same: job failed ($rc): $(echo "$out" | tail -20)"
echo "cfg_agree: $var $cfg n$n: PASS"
