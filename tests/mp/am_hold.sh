#!/bin/sh
# Runs tests/mp/am_order.c with handlers that put back to their senders
# (TEST_ORDER_PUTBACK=1) and 4 network descriptors (TERN_OFI_TX_DEPTH=4),
# with TERN_STATS=1, and checks the job's table: handlers' puts were
# queued for later (ofi_defer.c) and polls made inside handlers held
# received messages back (rx_later), so the order checks of am_order.c
# ran across both paths. Fails if the job fails or either count is 0.
#   am_hold.sh <config> <ternrun> <am_order> <ranks>
cfg=$1 ternrun=$2 prog=$3 n=$4
dir=$(dirname "$0")
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
TERN_STATS=1 TERN_OFI_TX_DEPTH=4 TEST_ORDER_PUTBACK=1 "$dir/run_config.sh" "$cfg" \
    "$ternrun" -n "$n" "$prog" >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err"; echo "FAIL: job failed"; exit 1; }
line=$(grep "^tern\[job of.*stats: network, inside handlers:" "$tmp/err")
[ -n "$line" ] || { cat "$tmp/err"; echo "FAIL: no inside-handlers line for the job"; exit 1; }
echo "$line"
echo "$line" | awk '{ for (i = 1; i <= NF; i++) { if ($i == "RMA") q = $(i-1); if ($i == "messages") h = $(i-1) } }
  END { if (q < 1) print "FAIL: no put from a handler was queued";
        if (h < 1) print "FAIL: no message was held back inside a handler";
        exit (q >= 1 && h >= 1) ? 0 : 1 }' || exit 1
echo "am_hold ($cfg, $n ranks): PASS"
