#!/bin/sh
# The shared cache lines that cross between two ranks per round trip, for
# Tern's active messages and the raw flag ping-pong of tern-bench am_lat's
# baseline: each rank runs scripts/cost/am_lines.c under valgrind's lackey,
# and scripts/cost/lines_census.py names every shared line both touch
# (docs/design/active-messages.md, fifteenth pass). A count read from the
# code, checked without hardware counters (this VM has none); it shows which
# lines move, not how often a spinning reader takes one back.
#   scripts/am-lines.sh [build-dir] [CASE...]    (needs valgrind, python3)
# CASE is MODE or MODE:BYTES (am_lines.c: raw, rawread, short, medium,
# mread); by default raw:0 short raw:1024 medium:1024. AM_LINES_ROUNDS
# (default 200) rounds are counted, after as many of warm-up. A case takes
# about a minute on an idle machine and far longer when other work shares
# the cores (each rank's spin runs under valgrind); each is bounded by
# AM_LINES_TIMEOUT (default 280 s): do not wrap the script in a shorter
# timeout, which would leave its job running. After the runs recorded in
# the design note, every run hung in start-up (rank 0 spinning in
# bootstrap collective #5, rank 1 in poll) until the bound; not seen again
# since (review session 15, three cases, no hang: active-messages.md),
# cause never found.
set -e
cd "$(dirname "$0")/.."
build=build
if [ $# -gt 0 ] && [ -d "$1" ]; then build=$1; shift; fi
[ $# -gt 0 ] || set -- raw:0 short raw:1024 medium:1024
command -v valgrind >/dev/null || { echo "$0: install valgrind" >&2; exit 1; }
rounds=${AM_LINES_ROUNDS:-200}
# Start-up under valgrind is slow on a loaded machine.
export TERN_BOOT_TIMEOUT=${TERN_BOOT_TIMEOUT:-300}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -g -Iinclude scripts/cost/am_lines.c -o "$tmp/am_lines" -L"$build/src" -ltern \
    -Wl,-rpath,"$PWD/$build/src"
# One rank under lackey: its data accesses only (instruction lines dropped).
cat >"$tmp/rank.sh" <<'EOS'
#!/bin/sh
valgrind --tool=lackey --trace-mem=yes --log-fd=9 "$@" 9>&1 >/dev/null |
    grep '^ [LSM] ' >"$AM_LINES_OUT.$TERN_BOOT_RANK"
EOS
chmod +x "$tmp/rank.sh"
for c in "$@"; do
    mode=${c%%:*} bytes=0
    [ "$mode" != "$c" ] && bytes=${c#*:}
    echo "== $mode $bytes B"
    AM_LINES_OUT=$tmp/trace timeout "${AM_LINES_TIMEOUT:-280}" "$build/tools/ternrun/ternrun" -n 2 "$tmp/rank.sh" \
        "$tmp/am_lines" "$mode" "$bytes" "$rounds" 2>"$tmp/err" ||
        { cat "$tmp/err" >&2; exit 1; }
    python3 scripts/cost/lines_census.py "$tmp/err" "$tmp/trace.0" "$tmp/trace.1" "$rounds"
done
