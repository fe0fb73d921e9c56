#!/bin/sh
# Runs tests/mp/amo_mailbox.c or tests/mp/get_mailbox.c with TERN_STATS=1,
# with one thread per rank and with more (four for atomics; six for gets,
# more than the mailbox's four slots), and checks the job's table: the
# mailbox carried what the program tests (fetching atomics, or gets), so
# the program's checks covered the mailbox, and every request sent was
# served. Fails if the job fails or the mailbox carried none.
#   mailbox_stats.sh <config> <ternrun> <mp_amo_mailbox|mp_get_mailbox> <ranks>
cfg=$1 ternrun=$2 prog=$3 n=$4
case $(basename "$prog") in
  *get_mailbox*) kind=gets more=6 ;;
  *amo_mailbox*) kind=fetching more=4 ;;
  *) echo "FAIL: mailbox_stats.sh: unknown program $prog"; exit 1 ;;
esac
dir=$(dirname "$0")
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for threads in 1 $more; do
    TERN_STATS=1 "$dir/run_config.sh" "$cfg" \
        "$ternrun" -n "$n" "$prog" "$threads" >"$tmp/out" 2>"$tmp/err" ||
        { cat "$tmp/out" "$tmp/err"; echo "FAIL: job failed ($threads threads)"; exit 1; }
    line=$(grep "^tern\[job of.*stats: atomic mailbox:" "$tmp/err")
    [ -n "$line" ] || { cat "$tmp/err"; echo "FAIL: no mailbox line for the job"; exit 1; }
    echo "$threads threads: $line"
    # The table counts "N fetching", "N gets" and "N served": every request
    # sent (fetches and gets alike) must have been served.
    echo "$line" | awk -v kind="$kind" '
      { for (i = 1; i <= NF; i++) { if ($i == "gets") g = $(i-1);
                                    if ($i == "fetching") f = $(i-1);
                                    if ($i == "served") v = $(i-1) } }
      END { mine = kind == "gets" ? g : f;
            if (mine < 1) print "FAIL: the mailbox sent no " kind;
            else if (g + f != v) print "FAIL: " g + f " sent, " v " served";
            exit (mine >= 1 && g + f == v) ? 0 : 1 }' || exit 1
done
echo "mailbox_stats ($(basename "$prog"), $cfg, $n ranks): PASS"
