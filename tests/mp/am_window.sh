#!/bin/sh
# Runs tests/mp/am_window.c with TERN_STATS=1 and checks rank 0's table:
# the credit windows of its streaming senders grew (only network senders
# have one: in mixed jobs rank 0's node peer does not count), and by no
# more credits in all than its receive buffers, whatever the number of
# senders (TERN_AM_NET_RECV=128K: 16 buffers, the least there is).
#   am_window.sh <config> <ternrun> <am_window> <ranks>
cfg=$1 ternrun=$2 prog=$3 n=$4
dir=$(dirname "$0")
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
TERN_STATS=1 TERN_AM_NET_RECV=128K "$dir/run_config.sh" "$cfg" "$ternrun" -n "$n" \
    "$prog" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; echo "FAIL: job failed"; exit 1; }
line=$(grep "^tern\[0@.*stats: network credit windows grown" "$tmp/err")
[ -n "$line" ] || { cat "$tmp/err"; echo "FAIL: no credit-window line for rank 0"; exit 1; }
echo "$line"
echo "$line" | awk '{ for (i = 1; i <= NF; i++) { if ($i == "times,") t = $(i-1); if ($i == "credits") c = $(i-1) } }
  END { if (t < 1) print "FAIL: no window grew"; if (c > 16) print "FAIL: " c " credits granted beyond the 16 receive buffers";
        exit (t >= 1 && c <= 16) ? 0 : 1 }' ||
    exit 1
echo "am_window ($cfg, $n ranks): PASS"
