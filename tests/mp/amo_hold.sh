#!/bin/sh
# Runs tests/mp/amo_handler.c (handlers issue the provider's atomics and
# puts while every rank floods its neighbours, TERN_OFI_TX_DEPTH=4) with
# TERN_STATS=1 and checks the job's table: atomics from handlers were
# queued for later (ofi_defer.c), so the checks of amo_handler.c covered
# queued atomics and their fetched values. Fails if the job fails or no
# atomic was queued.
#   amo_hold.sh <config> <ternrun> <amo_handler> <ranks>
cfg=$1 ternrun=$2 prog=$3 n=$4
dir=$(dirname "$0")
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
TERN_STATS=1 TERN_OFI_TX_DEPTH=4 "$dir/run_config.sh" "$cfg" \
    "$ternrun" -n "$n" "$prog" >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/out" "$tmp/err"; echo "FAIL: job failed"; exit 1; }
line=$(grep "^tern\[job of.*stats: network, inside handlers:" "$tmp/err")
[ -n "$line" ] || { cat "$tmp/err"; echo "FAIL: no inside-handlers line for the job"; exit 1; }
echo "$line"
echo "$line" | awk '{ for (i = 1; i <= NF; i++) if ($i == "atomics") q = $(i-1) }
  END { if (q < 1) print "FAIL: no atomic from a handler was queued"; exit (q >= 1) ? 0 : 1 }' ||
    exit 1
echo "amo_hold ($cfg, $n ranks): PASS"
