#!/bin/sh
# Runs tests/mp/get_mailbox.c with TERN_STATS=1, with one thread per rank
# and with six (more than the mailbox's four slots), and checks the job's
# table: the mailbox sent gets (so get_mailbox.c's checks covered them)
# and every one sent was served. Fails if the job fails or no get went by
# the mailbox.
#   get_mailbox.sh <config> <ternrun> <get_mailbox> <ranks>
cfg=$1 ternrun=$2 prog=$3 n=$4
dir=$(dirname "$0")
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for threads in 1 6; do
    TERN_STATS=1 "$dir/run_config.sh" "$cfg" \
        "$ternrun" -n "$n" "$prog" "$threads" >"$tmp/out" 2>"$tmp/err" ||
        { cat "$tmp/out" "$tmp/err"; echo "FAIL: job failed ($threads threads)"; exit 1; }
    line=$(grep "^tern\[job of.*stats: atomic mailbox:" "$tmp/err")
    [ -n "$line" ] || { cat "$tmp/err"; echo "FAIL: no mailbox line for the job"; exit 1; }
    echo "$threads threads: $line"
    echo "$line" | awk '{ for (i = 1; i <= NF; i++) { if ($i == "gets") g = $(i-1);
                                                   if ($i == "fetching") f = $(i-1);
                                                   if ($i == "served") v = $(i-1) } }
      END { if (g < 1) print "FAIL: the mailbox sent no get";
            else if (g + f != v) print "FAIL: " g + f " sent, " v " served";
            exit (g >= 1 && g + f == v) ? 0 : 1 }' || exit 1
done
echo "get_mailbox ($cfg, $n ranks): PASS"
