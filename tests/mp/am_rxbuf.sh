#!/bin/sh
# Runs tests/mp/am_rxbuf.c with TERN_STATS=1 and checks rank 0's table:
# its posted network receive buffers doubled during the bursts and halved
# during the ping-pong. Fails if the set never grows or never shrinks.
#   am_rxbuf.sh <config> <ternrun> <am_rxbuf> <ranks>
cfg=$1 ternrun=$2 prog=$3 n=$4
dir=$(dirname "$0")
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# More credits than half the 16 buffers posted at first, so that one
# sender's burst can fill them.
TERN_STATS=1 TERN_AM_NET_CREDITS=64 "$dir/run_config.sh" "$cfg" "$ternrun" -n "$n" \
    "$prog" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; echo "FAIL: job failed"; exit 1; }
line=$(grep "^tern\[0@.*stats: network receive buffers posted:" "$tmp/err")
[ -n "$line" ] || { cat "$tmp/err"; echo "FAIL: no receive-buffer line for rank 0"; exit 1; }
echo "$line"
echo "$line" | awk '{ for (i = 1; i <= NF; i++) { if ($i == "doubled") g = $(i+1); if ($i == "halved") h = $(i+1) } }
  END { if (g < 1) print "FAIL: the posted set never grew"; if (h < 1) print "FAIL: the posted set never shrank"; exit (g >= 1 && h >= 1) ? 0 : 1 }' ||
    exit 1
echo "am_rxbuf ($cfg, $n ranks): PASS"
