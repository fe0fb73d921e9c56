# Sourced (bash) by the scripts that build an external OpenSHMEM test suite
# with Tern's oshcc and run it with oshrun (scripts/shmem-mellanox-tests.sh,
# scripts/shmem-sos-tests.sh): their arguments, Tern's tools, the launch
# command of each transport configuration and a timed, bounded run.

# suite_args CHECK-FILE "$@": reads CHECKOUT OUT_DIR [BUILD_DIR] into
# SUITE_DIR, OUT and B (default: this tree's build/), sets OSHCC, OSHCXX and
# OSHRUN, and exits with a message when CHECKOUT lacks CHECK-FILE (a path in
# it that marks the suite) or Tern is not built.
suite_args() {
    local check=$1 usage="usage: $0 CHECKOUT OUT_DIR [BUILD_DIR]"
    shift
    SUITE_DIR=${1:?$usage}
    OUT=${2:?$usage}
    B=${3:-$(cd "$(dirname "$0")/.." && pwd)/build}
    OSHCC=$B/src/shmem/oshcc
    OSHCXX=$B/src/shmem/oshc++
    OSHRUN=$B/src/shmem/oshrun
    [ -e "$SUITE_DIR/$check" ] || {
        echo "$0: $SUITE_DIR: not a checkout of the suite (no $check)" >&2
        exit 1
    }
    [ -x "$OSHCC" ] || { echo "$0: $OSHCC: build Tern first (scripts/build.sh)" >&2; exit 1; }
}

# suite_cmd CONFIG NPES: sets the array cmd to the launch command of NPES
# PEs in a configuration: shm, net (TERN_SHM=off), mixed (two simulated
# nodes), net-pt and mixed-pt (those two with TERN_PROGRESS_THREAD=1).
suite_cmd() {
    case $1 in
        shm) cmd=("$OSHRUN" -np "$2") ;;
        net) cmd=(env TERN_SHM=off "$OSHRUN" -np "$2") ;;
        mixed) cmd=("$OSHRUN" --nodes 2 -np "$2") ;;
        net-pt) cmd=(env TERN_SHM=off TERN_PROGRESS_THREAD=1 "$OSHRUN" -np "$2") ;;
        mixed-pt) cmd=(env TERN_PROGRESS_THREAD=1 "$OSHRUN" --nodes 2 -np "$2") ;;
        *) echo "$0: unknown configuration '$1'" >&2; exit 1 ;;
    esac
}

# suite_run SECONDS LOG COMMAND...: runs COMMAND with no input, its output
# appended to LOG, killed after SECONDS (then after 5 more); sets rc to its
# exit code (124 or 137 when it was killed) and t to the seconds it took.
suite_run() {
    local limit=$1 log=$2 t0
    shift 2
    t0=$(date +%s.%N)
    timeout -k 5 "$limit" "$@" >>"$log" 2>&1 </dev/null
    rc=$?
    t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
}
