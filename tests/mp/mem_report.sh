#!/bin/sh
# tern_memory_report between two job sizes in one configuration: the parts
# per local peer, per remote peer and per remote node are the same at both
# sizes (they are rates, not shares of a total), the fixed part moves by
# no more than the barrier's log2-sized state, and Tern's own total grows
# by exactly the added peers times their parts. Also TERN_VERBOSE=1's line.
# And tern-info --memory as a job.
# Usage: mem_report.sh RUN_CONFIG CONFIG TERNRUN MP_MEM_REPORT SMALL LARGE TERN_INFO
run=$1 cfg=$2 ternrun=$3 prog=$4 small=$5 large=$6 info=$7
fail() { echo "mem_report.sh $cfg: FAIL: $*"; exit 1; }
export TERN_SEGMENT_SIZE=1M

field() { # field NAME LINE
  echo "$2" | sed -n "s/.* $1 \([0-9]*\).*/\1/p"
}
for n in $small $large; do
  out=$(timeout 120 "$run" "$cfg" "$ternrun" -n "$n" "$prog" 2>&1) || fail "n=$n: $out"
  line=$(echo "$out" | grep "^mem_report: rank 0 of ")
  [ -n "$line" ] || fail "n=$n: no report line: $out"
  echo "n=$n: $line"
  eval "line_$n=\"\$line\""
done
eval "a=\"\$line_$small\"; b=\"\$line_$large\""
for f in per_local per_remote per_node shared_local untouched; do
  [ "$(field $f "$a")" = "$(field $f "$b")" ] ||
    fail "$f differs between $small and $large ranks: $(field $f "$a") vs $(field $f "$b")"
done
fa=$(field fixed "$a") fb=$(field fixed "$b")
d=$((fb - fa)); [ $d -lt 0 ] && d=$((-d))
[ $d -le 64 ] || fail "fixed part moved by $d B between $small and $large ranks"
pred=$(( $(field own "$a") + ($(field local "$b") - $(field local "$a")) * $(field per_local "$a") \
  + ($(field remote "$b") - $(field remote "$a")) * $(field per_remote "$a") \
  + ($(field nodes "$b") - $(field nodes "$a")) * $(field per_node "$a") + fb - fa ))
[ "$pred" = "$(field own "$b")" ] || fail "own at $large ranks is $(field own "$b"), the parts predict $pred"
echo "ok: per-peer parts equal at $small and $large ranks, own grows by the added peers"

out=$(TERN_VERBOSE=1 timeout 120 "$run" "$cfg" "$ternrun" -n "$small" "$prog" 2>&1) || fail "verbose: $out"
echo "$out" | grep -q "tern\[0@.*\] memory: Tern's own private .* = fixed .* local peer(s) x .* remote peer(s) x .*provider .*(measured); private total .*, RssAnon grew" ||
  fail "TERN_VERBOSE=1: no memory line: $out"
echo "ok: $(echo "$out" | grep -m1 "memory: Tern's own")"
out=$(timeout 120 "$run" "$cfg" "$ternrun" -n "$small" "$info" --memory 2>&1) || fail "tern-info --memory: $out"
echo "$out" | grep -q "Memory of rank 0 of $small" || fail "tern-info --memory: $out"
echo "$out" | grep -Eq "per remote peer +[0-9]+ B" || fail "tern-info --memory: $out"
echo "$out" | grep -Eq "node peer table +[1-9][0-9]* B" || fail "tern-info --memory: $out"
echo "ok: tern-info --memory"
echo "mem_report.sh $cfg: PASS"
