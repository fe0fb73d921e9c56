#!/bin/sh
# The specification's environment variables: SHMEM_SYMMETRIC_SIZE (and
# SMA_SYMMETRIC_SIZE) sizing the heap through TERN_SEGMENT_SIZE, bad sizes,
# SHMEM_VERSION, SHMEM_INFO; and oshrun's -np.
#   env_cases.sh OSHRUN PROBE
OSHRUN=$1
PROBE=$2
out=$(mktemp "${TMPDIR:-/tmp}/shmem_env.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT
fail() {
    echo "FAIL: $*" >&2
    echo "--- output:" >&2
    head -c 3000 "$out" >&2
    exit 1
}
# run [VAR=value ...] -- oshrun arguments...
run() {
    envs=""
    while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    shift
    env -u SHMEM_SYMMETRIC_SIZE -u SMA_SYMMETRIC_SIZE -u TERN_SEGMENT_SIZE \
        -u SHMEM_VERSION -u SHMEM_INFO -u SHMEM_DEBUG $envs \
        timeout -k 2 30 "$OSHRUN" "$@" >"$out" 2>&1
    rc=$?
    [ $rc -eq 124 ] && fail "oshrun $* hung"
    return 0
}
heap() { sed -n 's/^heap //p' "$out"; }
# expect_heap MIN: at least MIN bytes, less than MIN + 2 MiB (page rounding)
expect_heap() {
    [ $rc -eq 0 ] || fail "exit status $rc"
    h=$(heap)
    [ -n "$h" ] || fail "no heap size printed"
    [ "$h" -ge "$1" ] && [ "$h" -lt $(($1 + 2097152)) ] ||
        fail "heap of $h bytes, expected $1 (rounded up to a page)"
}

run SHMEM_SYMMETRIC_SIZE=3.5M -- -np 2 "$PROBE"
expect_heap 3670016
run SHMEM_SYMMETRIC_SIZE=20kk -- -n 2 "$PROBE" # one multiplier; the rest ignored
expect_heap 20480
run SHMEM_SYMMETRIC_SIZE=.5m -- -n 1 "$PROBE"
expect_heap 524288
run SHMEM_SYMMETRIC_SIZE=3000000 -- -n 1 "$PROBE"
expect_heap 3000000
run SMA_SYMMETRIC_SIZE=5m -- -n 2 "$PROBE"
expect_heap 5242880
run SHMEM_SYMMETRIC_SIZE=3m SMA_SYMMETRIC_SIZE=5m -- -n 2 "$PROBE" # SHMEM_ wins
expect_heap 3145728
run SHMEM_SYMMETRIC_SIZE=2m TERN_SEGMENT_SIZE=6M -- -n 2 "$PROBE" # Tern's own wins
expect_heap 6291456

for bad in abc -5m 12x 1e400 ''; do
    run "SHMEM_SYMMETRIC_SIZE=$bad" -- -n 2 "$PROBE"
    [ $rc -ne 0 ] || fail "SHMEM_SYMMETRIC_SIZE='$bad' was accepted"
    grep -q "SHMEM_SYMMETRIC_SIZE='$bad' is not a size" "$out" ||
        fail "no message naming SHMEM_SYMMETRIC_SIZE='$bad'"
done

run SHMEM_VERSION=1 -- -n 3 "$PROBE"
[ $rc -eq 0 ] || fail "SHMEM_VERSION=1: exit status $rc"
[ "$(grep -c '^Tern OpenSHMEM: OpenSHMEM 1\.6' "$out")" -eq 1 ] ||
    fail "SHMEM_VERSION=1: not exactly one version line"
run SMA_VERSION=yes -- -n 2 "$PROBE"
grep -q '^Tern OpenSHMEM: OpenSHMEM 1\.6' "$out" || fail "SMA_VERSION: no version line"
run SHMEM_VERSION=0 -- -n 2 "$PROBE"
grep -q '^Tern OpenSHMEM' "$out" && fail "SHMEM_VERSION=0 printed the version"
run SHMEM_INFO=1 SHMEM_SYMMETRIC_SIZE=4m -- -n 2 "$PROBE"
[ $rc -eq 0 ] || fail "SHMEM_INFO=1: exit status $rc"
for v in SHMEM_VERSION SHMEM_INFO SHMEM_SYMMETRIC_SIZE SHMEM_DEBUG; do
    grep -q "^  $v " "$out" || fail "SHMEM_INFO does not describe $v"
done
grep -q '(now: 4m)' "$out" || fail "SHMEM_INFO does not show SHMEM_SYMMETRIC_SIZE=4m"

# oshrun: -np and -np=, and the program's own options left alone
run -- -np=2 "$PROBE" -np 5 --nodes 3
[ $rc -eq 0 ] || fail "oshrun -np=2: exit status $rc"
grep -q '^shmem probe: PASS on 2 PEs' "$out" || fail "oshrun -np=2 did not start 2 PEs"
grep -q '^arg 1: -np$' "$out" && grep -q '^arg 2: 5$' "$out" &&
    grep -q '^arg 3: --nodes$' "$out" || fail "the program's arguments were changed"
run -- --nodes 2 -np 4 "$PROBE"
grep -q '^shmem probe: PASS on 4 PEs' "$out" || fail "oshrun --nodes 2 -np 4"
echo "shmem env: PASS"
