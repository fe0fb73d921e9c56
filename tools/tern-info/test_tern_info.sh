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
run 2 "$info" --memory -c;    has "$err" "choose one"
# --memory alone is a job of one rank: no peers, the parts still stated
run 0 "$info" --memory;       has "$out" "Memory of rank 0 of 1"
has "$out" "per remote peer"; has "$out" "0 local peer(s)"; has "$out" "tern_init growth"
run 0 "$info" -v;             has "$out" '^tern-info (Tern) [0-9]*\.[0-9]*\.[0-9]*$'
run 0 "$info" --version;      has "$out" '^tern-info (Tern) [0-9]*\.[0-9]*\.[0-9]*$'
run 2 "$info" --parsable -b;  has "$err" "go with -c"
run 2 "$info" -c -n 0;        has "$err" "-n '0'"

# default: version, build, transports, topology, huge pages
run 0 "$info"
for s in "^Tern [0-9]" "build type" "bootstrap" "^Transports" "  self " \
         "  shm " "^Topology" "NUMA domains" "L3 caches" "cores" "PUs" \
         "^Huge pages" "THP shared memory" "^Configuration" "^Atomic domains"; do
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

# -c checks what tern_init checks beyond parsing (tn_cfg_validate): each of
# these parses, and tern_init refuses it
TERN_SEGMENT_SIZE=0 run 1 "$info" -c
has "$out" "^TERN_SEGMENT_SIZE=0  (set, INVALID"
has "$out" "error: TERN_SEGMENT_SIZE=0: a segment needs at least one byte"
has "$err" "tern_init would fail with TERN_ERR_CONFIG (1 bad value)"
TERN_SEGMENT_NUMA=bogus run 1 "$info" -c
has "$out" "^TERN_SEGMENT_NUMA=bogus  (set, INVALID"
has "$out" "error: TERN_SEGMENT_NUMA='bogus' is not one of interleave, local"
# the domain is checked against this node's topology (here 4 domains)
syn="pack:2 numa:2(memory=1GiB) core:2 pu:1"
HWLOC_SYNTHETIC=$syn TERN_SEGMENT_NUMA=bind:3 run 0 "$info" -c
has "$out" "^TERN_SEGMENT_NUMA=bind:3  (set)$"
HWLOC_SYNTHETIC=$syn TERN_SEGMENT_NUMA=bind:7 run 1 "$info" -c
has "$out" "error: TERN_SEGMENT_NUMA=bind:7: this node has 4 NUMA domains, no domain 7"
has "$err" "TERN_SEGMENT_NUMA=bind:7"
# more memory than this node has: not a bad value, but tern_init fails
TERN_SEGMENT_SIZE=1000T run 1 "$info" -c
has "$out" "^TERN_SEGMENT_SIZE=1000T  (set, NOT AVAILABLE here: tern_init fails with TERN_ERR_NOMEM)"
has "$out" "lower TERN_SEGMENT_SIZE"
has "$err" "tern_init would fail with TERN_ERR_NOMEM (1 not available on this node)"
# -n: the memory of this node shared by N ranks
TERN_SEGMENT_SIZE=1G run 0 "$info" -c
TERN_SEGMENT_SIZE=1G run 1 "$info" -c -n 1000000
has "$out" "segments of 1000000 rank(s) on this machine need"
# TERN_HUGEPAGES=on: fine where huge pages can be had, else it says what
# is missing (hugetlb pages, shared-memory THP) - not "bad value"
thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/shmem_enabled 2>/dev/null)
hfree=$(sed -n 's/^HugePages_Free: *//p' /proc/meminfo)
case $thp in
always|within_size|advise|force) huge=1 ;;
*) huge=0; [ "${hfree:-0}" -ge 33 ] && huge=1 ;;
esac
if [ $huge = 1 ]; then
    TERN_HUGEPAGES=on run 0 "$info" -c
    has "$out" "^TERN_HUGEPAGES=on  (set)$"
else
    TERN_HUGEPAGES=on run 1 "$info" -c
    has "$out" "^TERN_HUGEPAGES=on  (set, NOT AVAILABLE here: tern_init fails with TERN_ERR_NOMEM)"
    has "$out" "error: TERN_HUGEPAGES=on but no huge pages can be had: .* hugetlb page"
    has "$out" "/proc/sys/vm/nr_hugepages"
    has "$out" "shmem_enabled"
    hasnt "$out" "bad value"
    has "$err" "tern_init would fail with TERN_ERR_NOMEM"
fi
# every problem is named, not only the first
HWLOC_SYNTHETIC=$syn TERN_SEGMENT_SIZE=0 TERN_SEGMENT_NUMA=bind:9 run 1 "$info" -c
has "$out" "error: TERN_SEGMENT_SIZE=0"
has "$out" "error: TERN_SEGMENT_NUMA=bind:9"
has "$out" "2 invalid"
# TERN_TRACE in a directory that does not exist
TERN_TRACE=$dir/nodir/trace run 1 "$info" -c
has "$out" "error: TERN_TRACE='.*': the directory '.*nodir' does not exist"

# --parsable: key=value lines for scripts
run 0 "$info" -c --parsable
has "$out" "^TERN_SEGMENT_SIZE.value=64M$"
has "$out" "^TERN_SEGMENT_SIZE.set=0$"
has "$out" "^TERN_SEGMENT_SIZE.default=64M$"
has "$out" "^TERN_SEGMENT_SIZE.type=size$"
has "$out" "^TERN_SEGMENT_SIZE.status=ok$"
has "$out" "^TERN_BOOT_RANK.launcher=1$"
has "$out" "^config.tern_init=TERN_OK$"
has "$out" "^config.invalid=0$"
bad=$(grep -cv '^[A-Za-z_.]*=' "$out")
[ "$bad" -eq 0 ] || fail "$bad lines of --parsable are not key=value"
TERN_SEGMENT_NUMA=bogus TERN_WAIT_MODE=YIELD TERN_SEGMEN_SIZE=1 run 1 "$info" --parsable
has "$out" "^TERN_SEGMENT_NUMA.value=bogus$"
has "$out" "^TERN_SEGMENT_NUMA.status=invalid$"
has "$out" "^TERN_SEGMENT_NUMA.error=TERN_SEGMENT_NUMA='bogus' is not one of"
has "$out" "^TERN_WAIT_MODE.value=yield$"
has "$out" "^TERN_WAIT_MODE.env=YIELD$"
has "$out" "^config.unknown=TERN_SEGMEN_SIZE$"
has "$out" "^config.tern_init=TERN_ERR_CONFIG$"
TERN_SEGMENT_SIZE=1000T run 1 "$info" --parsable
has "$out" "^TERN_SEGMENT_SIZE.status=unavailable$"
has "$out" "^config.tern_init=TERN_ERR_NOMEM$"

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
