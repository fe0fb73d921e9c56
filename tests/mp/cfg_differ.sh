#!/bin/sh
# A setting that one rank alone changed (the last rank, VAR=VALUE) where
# that is not refused at tern_init (not TN_CFG_JOB): PROG's job must end
# within 60 s (no hang) and its output must match REGEX, the message that
# names the setting (cfg_agree.sh covers the settings tern_init compares).
# Usage: cfg_differ.sh CONFIG TERNRUN PROG RANKS VAR VALUE REGEX [RC]
# RC: the job's exit status wanted, "fail" (default: any but 0) or "0".
cfg=$1 ternrun=$2 prog=$3 n=$4 var=$5 val=$6 re=$7 want=${8:-fail}
here=$(dirname "$0")
last=$((n - 1))
wrap="[ \"\$TERN_BOOT_RANK\" = $last ] && export $var=$val; exec \"\$@\""
out=$(timeout 60 "$here/run_config.sh" "$cfg" "$ternrun" -n "$n" sh -c "$wrap" sh "$prog" 2>&1)
rc=$?
fail() { echo "$out" | tail -20; echo "cfg_differ: FAIL: $cfg n$n, rank $last with $var=$val: $*"; exit 1; }
[ $rc -eq 124 ] && fail "the job hung (60 s)"
[ "$want" = fail ] && [ $rc -eq 0 ] && fail "the job succeeded"
[ "$want" = 0 ] && [ $rc -ne 0 ] && fail "the job failed ($rc)"
echo "$out" | grep -q -- "$re" || fail "no message matching '$re'"
echo "ok: $(echo "$out" | grep -m1 -- "$re" | cut -c1-200)"
echo "cfg_differ: $var $cfg n$n: PASS"
