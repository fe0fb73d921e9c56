#!/bin/sh
# Topology through the tools: ternrun's placement options and their
# report, simulated topologies (XML with NICs, synthetic), bad input, the
# segment's NUMA placement and the copy decisions inside a job.
#   topo_cases.sh CASE TERNRUN TERN_INFO BOOT_PROG HELLO_PROG TOPO_COPY_PROG
# Exit 0 pass, 1 fail, 77 skip.
case_name=$1 TR=$2 INFO=$3 BOOT=$4 HELLO=$5 COPY=$6
here=$(cd "$(dirname "$0")" && pwd)
XML=$here/2pkg-4numa-2l3-nic.xml
for p in "$TR" "$INFO" "$BOOT" "$HELLO" "$COPY"; do
    [ -x "$p" ] || { echo "usage: $0 CASE TERNRUN TERN_INFO BOOT HELLO TOPO_COPY" >&2; exit 1; }
done
# a clean start: no topology or TERN_* settings from the caller
unset HWLOC_XMLFILE HWLOC_SYNTHETIC
for v in $(env | sed -n 's/^\(TERN_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
export TERN_SEGMENT_SIZE=8M
tmp=$(mktemp -d "${TMPDIR:-/tmp}/topo_cases.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out

fail() {
    echo "FAIL ($case_name): $*" >&2
    [ -s "$out" ] && { echo "--- output:" >&2; head -c 6000 "$out" >&2; }
    exit 1
}
run() { timeout -k 2 60 "$@" >"$out" 2>&1; rc=$?; [ $rc -eq 124 ] && fail "$* hung"; return 0; }
expect_rc() { [ "$rc" -eq "$1" ] || fail "exit status $rc, expected $1"; }
expect_msg() { grep -Eq -- "$1" "$out" || fail "no line matching: $1"; }
expect_no() { ! grep -Eq -- "$1" "$out" || fail "unexpected line matching: $1"; }
expect_count() {
    c=$(grep -Ec -- "$1" "$out")
    [ "$c" -eq "$2" ] || fail "$c lines matching '$1', expected $2"
}
# the report lines in rank order, as "cpuset/unit/numa/nic"
report() {
    sed -nE 's/^ternrun: \[[^]]+\] rank ([0-9]+): cpuset ([0-9,-]+) \(([^)]*)\), NUMA ([0-9,-]+), NIC (.*)$/\1|\2\/\3\/\4\/\5/p' "$out" |
        sort -t'|' -n | cut -d'|' -f2 | tr '\n' ';'
}
expect_report() {
    got=$(report)
    [ "$got" = "$1" ] || fail "bindings:
  got  $got
  want $1"
}
LINE='^ternrun: \[[^]]+\] rank [0-9]+: cpuset [0-9,-]+ \(((core|PU|L3|NUMA|package) [0-9]+|machine|not bound)\), NUMA [0-9,-]+, NIC [^ ]+$'
ncores=$(nproc)

case $case_name in
report_bindings)
    # one line per rank: host, rank, cpuset, NUMA domain, nearest NIC;
    # and each rank runs where its line says
    run "$TR" -n 2 --report-bindings "$BOOT" --affinity
    expect_rc 0
    expect_count "$LINE" 2
    expect_count '^ternrun: \[' 2
    for r in 0 1; do
        set=$(sed -nE "s/^ternrun: \[[^]]+\] rank $r: cpuset ([0-9,-]+) .*/\1/p" "$out")
        got=$(sed -n "s/^rank $r affinity //p" "$out")
        [ -n "$set" ] && [ "$set" = "$got" ] || fail "rank $r runs on '$got', reported '$set'"
    done
    ;;
bind_levels)
    # every binding level on this machine, checked against the kernel
    for b in core l3 numa package none; do
        run "$TR" -n 2 --bind-to $b --report-bindings "$BOOT" --affinity
        expect_rc 0
        expect_count "$LINE" 2
        [ $b = none ] && { expect_count '\(not bound\)' 2; continue; }
        for r in 0 1; do
            set=$(sed -nE "s/^ternrun: \[[^]]+\] rank $r: cpuset ([0-9,-]+) .*/\1/p" "$out")
            got=$(sed -n "s/^rank $r affinity //p" "$out")
            [ "$set" = "$got" ] || fail "--bind-to $b: rank $r runs on '$got', reported '$set'"
        done
    done
    run "$TR" -n 2 --bind-to socket true
    expect_rc 2
    expect_msg "--bind-to 'socket': use core, l3, numa, package or none"
    run "$TR" -n 2 --map-by diagonal true
    expect_rc 2
    expect_msg "--map-by 'diagonal'"
    run "$TR" -n 2 --map-by dist: true
    expect_rc 2
    ;;
oversubscribe)
    n=$((ncores + 1))
    run "$TR" -n $n --bind-to core true
    expect_rc 2
    expect_msg "^ternrun: $n ranks but only $ncores (cores|PUs) usable for --bind-to core: ranks would share"
    expect_msg "--oversubscribe"
    run "$TR" -n $n --bind-to core --oversubscribe --report-bindings "$BOOT" --affinity
    expect_rc 0
    expect_count "$LINE" $n
    expect_msg "^ternrun: oversubscribed: $n ranks on $ncores"
    # without an explicit binding: not bound, and said why
    run "$TR" -n $n --report-bindings true
    expect_rc 0
    expect_count '\(not bound\)' $n
    expect_msg "^ternrun: not binding \(default\): $n ranks"
    ;;
dist_unknown)
    run "$TR" -n 2 --map-by dist:nosuchnic0 "$BOOT"
    expect_rc 2
    expect_msg "^ternrun: --map-by dist:nosuchnic0: (no network device named 'nosuchnic0' on this node; its devices are: |this node has no network device)"
    HWLOC_XMLFILE=$XML run "$TR" -n 2 --map-by dist:mlx5_9 --dry-run
    expect_rc 2
    expect_msg "no network device named 'mlx5_9' on this node; its devices are: eth0, mlx5_0, ib0"
    ;;
dist_order)
    # simulated: 2 packages x 4 NUMA x 2 L3 x 2 cores, mlx5_0 on package 1,
    # eth0 on NUMA domain 1 - nearest first
    HWLOC_XMLFILE=$XML run "$TR" -n 6 --map-by dist:mlx5_0 --dry-run
    expect_rc 0
    expect_count "$LINE" 6
    expect_msg "topology simulated"
    expect_report "16/core 16/4/mlx5_0;17/core 17/4/mlx5_0;18/core 18/4/mlx5_0;19/core 19/4/mlx5_0;20/core 20/5/mlx5_0;21/core 21/5/mlx5_0;"
    HWLOC_XMLFILE=$XML run "$TR" -n 6 --map-by dist:eth0 --dry-run
    expect_report "4/core 4/1/eth0;5/core 5/1/eth0;6/core 6/1/eth0;7/core 7/1/eth0;0/core 0/0/eth0;1/core 1/0/eth0;"
    HWLOC_XMLFILE=$XML run "$TR" -n 3 --map-by dist:ib0 --bind-to numa --dry-run
    expect_report "16-19/NUMA 4/4/mlx5_0;16-19/NUMA 4/4/mlx5_0;16-19/NUMA 4/4/mlx5_0;"
    HWLOC_XMLFILE=$XML run "$TR" -n 4 --map-by spread --bind-to l3 --dry-run
    expect_report "0-1/L3 0/0/eth0;16-17/L3 8/4/mlx5_0;0-1/L3 0/0/eth0;16-17/L3 8/4/mlx5_0;"
    HWLOC_SYNTHETIC="pack:2 numa:1 l3:1 core:8 pu:1" run "$TR" -n 4 --map-by spread --dry-run
    expect_report "0/core 0/0/none;8/core 8/1/none;1/core 1/0/none;9/core 9/1/none;"
    # the ranks of a simulated job get their plan as their place
    HWLOC_XMLFILE=$XML run "$TR" -n 2 --map-by dist:mlx5_0 sh -c 'echo "rank $TERN_BOOT_RANK plan $TERN_BOOT_CPUSET"'
    expect_rc 0
    expect_msg "^rank 0 plan 16$"
    expect_msg "^rank 1 plan 17$"
    ;;
bad_topology)
    HWLOC_XMLFILE=$here/bad.xml run "$TR" -n 2 --report-bindings true
    expect_rc 1
    expect_msg "HWLOC_XMLFILE: hwloc cannot read the XML file '.*bad.xml': malformed: fix it or unset HWLOC_XMLFILE"
    HWLOC_XMLFILE=$tmp/none.xml run "$TR" -n 2 --bind-to core true
    expect_rc 1
    expect_msg "no such file"
    HWLOC_SYNTHETIC="pack:2 core:x" run "$TR" -n 2 --dry-run
    expect_rc 1
    expect_msg "HWLOC_SYNTHETIC: hwloc cannot read the synthetic description 'pack:2 core:x': malformed"
    # a rank given a bad topology fails its tern_init with the reason
    HWLOC_SYNTHETIC="pack:2 core:x" run "$TR" -n 1 --bind-to none "$HELLO"
    [ "$rc" -ne 0 ] || fail "tern_init succeeded with a malformed HWLOC_SYNTHETIC"
    expect_msg "HWLOC_SYNTHETIC"
    ;;
segment_bind7)
    TERN_SEGMENT_NUMA=bind:7 run "$TR" -n 2 "$HELLO"
    [ "$rc" -ne 0 ] || fail "TERN_SEGMENT_NUMA=bind:7 started"
    expect_msg "TERN_SEGMENT_NUMA=bind:7: this node has [0-9]+ NUMA domains?, no domain 7: use bind:0"
    TERN_SEGMENT_NUMA=bind:x run "$TR" -n 1 "$HELLO"
    [ "$rc" -ne 0 ] || fail "TERN_SEGMENT_NUMA=bind:x started"
    expect_msg "TERN_SEGMENT_NUMA='bind:x': bind needs a NUMA domain number"
    for m in interleave local bind:0 firsttouch; do
        TERN_SEGMENT_NUMA=$m TERN_VERBOSE=1 run "$TR" -n 2 "$HELLO"
        expect_rc 0
        expect_msg "segment memory: TERN_SEGMENT_NUMA .*; pages: NUMA 0 [0-9]+%.*pages read back, policy "
    done
    ;;
verbose_report)
    TERN_VERBOSE=1 run "$TR" -n 2 "$HELLO"
    expect_rc 0
    expect_msg "place: cpus [0-9,-]+, NUMA [0-9,-]+"
    expect_msg "shm copies: TERN_SHM_TOPO=auto, (avx512|avx2|sse2) non-temporal kernel; non-temporal from"
    expect_msg "local peers: 1 (same-l3|same-numa|other-numa|other-package)"
    TERN_VERBOSE=1 TERN_SHM_TOPO=off run "$TR" -n 2 "$HELLO"
    expect_msg "shm copies: TERN_SHM_TOPO=off: regular copies only"
    TERN_SHM_TOPO=sometimes run "$TR" -n 1 "$HELLO"
    [ "$rc" -ne 0 ] || fail "TERN_SHM_TOPO=sometimes started"
    expect_msg "TERN_SHM_TOPO='sometimes' is not one of auto\|on\|off"
    ;;
unbound_warning)
    # simulated 32 cores: ranks not bound within one L3 are warned about,
    # once, with what follows for their copies
    HWLOC_XMLFILE=$XML TERN_WAIT_MODE=yield TERN_SHM_CALIBRATE=never \
        run "$TR" -n 3 --bind-to none "$COPY" --classes "0-1=other-package,1-2=other-package"
    expect_rc 0
    expect_count "3 ranks of this node \(0,1,2\) are not bound within one L3 cache" 1
    # bound ranks: no warning
    HWLOC_XMLFILE=$XML TERN_WAIT_MODE=yield TERN_SHM_CALIBRATE=never \
        run "$TR" -n 2 --bind-to core "$COPY" --classes "0-1=same-l3"
    expect_rc 0
    expect_no "not bound within"
    ;;
tern_info)
    # the topology with each device's nearest cores
    HWLOC_XMLFILE=$XML run "$INFO"
    expect_rc 0
    expect_msg "^Topology \(hwloc, from HWLOC_XMLFILE=.*2pkg-4numa-2l3-nic.xml\)"
    expect_msg "^  network devices 2"
    expect_msg "^    eth0 +PCI 0000:05:00.0"
    expect_msg "nearest cores 4-7 \(PUs 4-7; NUMA 1, package 0\)"
    expect_msg "^    mlx5_0, ib0 +PCI 0000:81:00.0"
    expect_msg "nearest cores 16-31 \(PUs 16-31; package 1\)"
    expect_msg "simulated: not this machine"
    run "$INFO"
    expect_rc 0
    expect_msg "^  network devices"
    # inside a job: classes, calibration and the decision table
    run "$TR" -n 2 "$INFO" --copy
    expect_rc 0
    expect_msg "^Copies with shared-memory peers on .* \(TERN_SHM_TOPO=auto, "
    expect_msg "^  calibration: "
    expect_msg "^    rank 0 +s [3nxp]$"
    expect_msg "^    rank 1 +[3nxp] s$"
    expect_count "^ +[0-9]+ (B|KiB|MiB) +([RN] +){9}[RN]$" 22
    expect_msg "^ +64 B( +R){10}$"
    TERN_SHM_TOPO=on run "$TR" -n 1 "$INFO" --copy
    expect_msg "^ +64 B( +N){10}$"
    TERN_SHM_TOPO=off run "$TR" -n 1 "$INFO" --copy
    expect_msg "^ +128 MiB( +R){10}$"
    # simulated, estimated thresholds: the table of a 2-package machine
    HWLOC_XMLFILE=$XML TERN_WAIT_MODE=yield TERN_SHM_CALIBRATE=never \
        run "$TR" -n 4 --map-by spread "$INFO" --copy
    expect_rc 0
    expect_msg "^    rank 0 +s p 3 p$"
    expect_msg "^    rank 1 +p s p 3$"
    expect_msg "other-package\*"
    expect_msg "^ +32 KiB +R +R +R +R +R +R +R +R +R +R$"
    expect_msg "^ +64 KiB +R +R +R +R +N +R +N +R +N +R$"
    expect_msg "^ +16 MiB( +N){10}$"
    ;;
*)
    echo "unknown case $case_name" >&2
    exit 1
    ;;
esac
echo "PASS ($case_name)"
