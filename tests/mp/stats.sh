#!/bin/sh
# TERN_STATS=1 counts what the ranks did: the job's table adds up to the
# operations tests/mp/stats_ops.c makes (10 puts of 100 B, 5 gets of 50 B
# and one bad call per rank), on every path; TERN_TRACE writes one file per
# rank with a line per out-of-line call.
#   stats.sh <config> <ternrun> <stats_ops> <ranks>
cfg=$1 ternrun=$2 prog=$3 n=$4
dir=$(dirname "$0")
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
TERN_STATS=1 TERN_TRACE="$tmp/trace.%r" "$dir/run_config.sh" "$cfg" "$ternrun" -n "$n" \
    "$prog" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; echo "FAIL: job failed"; exit 1; }
grep "stats:" "$tmp/err" | head -20
awk -v n="$n" '
  /tern\[job of/ && / put / { puts += $(NF-8); pbytes += $(NF-6); gets += $(NF-3); gbytes += $(NF-1) }
  /tern\[job of/ && /out-of-line calls/ { bad = $(NF-2) }
  END {
    ok = puts == 10 * n && pbytes == 1000 * n && gets == 5 * n && gbytes == 250 * n && bad == n
    printf "job: %d puts (%d B), %d gets (%d B), %d bad calls; expected %d, %d, %d, %d, %d\n",
           puts, pbytes, gets, gbytes, bad, 10 * n, 1000 * n, 5 * n, 250 * n, n
    exit ok ? 0 : 1
  }' "$tmp/err" || { echo "FAIL: the job's counts do not add up"; exit 1; }
tables=$(grep -c "stats: shm copies" "$tmp/err")
[ "$tables" -eq $((n + 1)) ] || { echo "FAIL: $tables tables, expected one per rank and the job's"; exit 1; }
for r in $(seq 0 $((n - 1))); do
    [ -s "$tmp/trace.$r" ] || { echo "FAIL: no trace file for rank $r"; exit 1; }
    grep -q "tern_put(.*rank" "$tmp/trace.$r" || { echo "FAIL: rank $r's trace lacks its bad tern_put"; exit 1; }
done
echo "stats ($cfg, $n ranks): PASS"
