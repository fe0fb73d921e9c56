#!/bin/sh
# tern-info: options, exit codes and the content of every mode.
#   test_tern_info.sh <tern-info>
info=$1
[ -x "$info" ] || { echo "usage: test_tern_info.sh <tern-info>" >&2; exit 1; }
# a clean configuration: no TERN_* from the caller's environment
for v in $(env | sed -n 's/^\(TERN_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
unset HWLOC_XMLFILE HWLOC_SYNTHETIC

dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
out=$dir/out err=$dir/err
fails=0
fail() { echo "FAIL: $*" >&2; echo "--- stdout" >&2; cat "$out" >&2;
         echo "--- stderr" >&2; cat "$err" >&2; fails=$((fails + 1)); }
# run <expected exit code> <command...>: output in $out/$err
run() { want=$1; shift; "$@" >"$out" 2>"$err"; got=$?
        [ "$got" = "$want" ] || fail "'$*' exited $got, expected $want"; }
has() { grep -q -- "$2" "$1" || fail "'$2' not in $(basename "$1")"; }
hasnt() { ! grep -q -- "$2" "$1" || fail "'$2' unexpectedly in $(basename "$1")"; }

# usage and bad options
run 0 "$info" -h;             has "$out" "Usage: tern-info"
run 0 "$info" --help;         has "$out" "--markdown"
run 2 "$info" --bogus;        has "$err" "Usage: tern-info"; has "$err" "bogus"
run 2 "$info" -x;             has "$err" "Usage: tern-info"
run 2 "$info" extra;          has "$err" "unexpected argument 'extra'"
run 2 "$info" -c -b;          has "$err" "choose one"
run 0 "$info" -v;             has "$out" '^[0-9]*\.[0-9]*\.[0-9]*$'

# default: version, build, transports, topology, huge pages
run 0 "$info"
for s in "^Tern [0-9]" "build type" "bootstrap" "^Transports" "  self " \
         "  shm " "^Topology" "NUMA domains" "L3 caches" "cores" "PUs" \
         "^Huge pages" "THP shared memory" "^Configuration"; do
    has "$out" "$s"
done
[ -s "$err" ] && fail "default mode wrote to stderr"

# topology from a synthetic machine: 2 packages x 2 NUMA domains x 4 cores
# x 2 PUs, one 16 MiB L3 per NUMA domain
HWLOC_SYNTHETIC="pack:2 l3:2(size=16MiB) numa:1(memory=1GiB) core:4 pu:2" \
    run 0 "$info"
has "$out" "from HWLOC_SYNTHETIC"
has "$out" "packages       2$"
has "$out" "NUMA domains   4$"
has "$out" "L3 caches      4$"
has "$out" "L3 3 .*16 MiB   PUs 24-31"
has "$out" "NUMA 1 .*1 GiB   PUs 8-15"
has "$out" "cores          16$"
has "$out" "PUs            32 "

# -c: every variable, its value and where it came from
run 0 "$info" -c
has "$out" "^TERN_SEGMENT_SIZE=64M$"
has "$out" "^TERN_WAIT_MODE=auto$"
has "$out" "Set by launchers"
has "$out" "0 set in the environment, 0 invalid"
TERN_SEGMENT_SIZE=1G TERN_WAIT_MODE=YIELD run 0 "$info" -c
has "$out" "^TERN_SEGMENT_SIZE=1G  (set)$"
has "$out" "^TERN_WAIT_MODE=yield  (set as 'YIELD')$"
has "$out" "2 set in the environment"
# a bad value: named with the value, exit 1
TERN_SEGMENT_SIZE=abc run 1 "$info" -c
has "$out" "^TERN_SEGMENT_SIZE=abc  (set, INVALID"
has "$out" "error: TERN_SEGMENT_SIZE='abc' is not a size"
has "$err" "TERN_SEGMENT_SIZE='abc'"
has "$err" "tern_init would fail with TERN_ERR_CONFIG"
TERN_WAIT_MODE=fast run 1 "$info" -c
has "$out" "auto|spin|yield|block"
# a misspelled name: warned with the nearest known one, not an error
TERN_SEGMEN_SIZE=1G run 0 "$info" -c
has "$err" "TERN_SEGMEN_SIZE"
has "$err" "did you mean TERN_SEGMENT_SIZE"
# the default mode mentions an invalid configuration
TERN_SEGMENT_SIZE=abc run 0 "$info"
has "$out" "SOME INVALID"

# -a: everything
run 0 "$info" -a
has "$out" "^Topology"; has "$out" "^TERN_VERBOSE=0$"

# --markdown: the reference page
run 0 "$info" --markdown
has "$out" "^# Configuration"; has "$out" "TERN_SEGMENT_SIZE"
hasnt "$out" "| \`TERN_BOOT_RANK\`"

# -b: the binding, with or without a launcher, no tern_init
run 0 "$info" -b
has "$out" "not in a job"; has "$out" "cpus "
TERN_BOOT_RANK=3 TERN_BOOT_SIZE=4 TERN_BOOT_NODE=n1 run 0 "$info" -b
has "$out" "^rank 3/4 host .* node n1 pid [0-9]*: cpus "; has "$out" "NUMA "
if command -v taskset >/dev/null 2>&1; then
    cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
    TERN_BOOT_RANK=0 TERN_BOOT_SIZE=1 run 0 taskset -c "$cpu" "$info" -b
    has "$out" "cpus $cpu (1 PU, "
    hasnt "$out" "every PU of the node"
fi

if [ "$fails" -ne 0 ]; then
    echo "FAIL: $fails check(s) of tern-info failed" >&2
    exit 1
fi
echo "PASS: tern-info"
