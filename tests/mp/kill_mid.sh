#!/bin/sh
# A rank killed with SIGKILL in the middle of a long phase (an AM flood,
# an atomic loop, OpenSHMEM collectives): the job must end within BOUND
# seconds of the kill (KILL_MID_BOUND, 15), fail, and the launcher must
# name the rank and the signal (under mpirun: see below). The program prints "mark: rank|PE V (pid P): ..." when the phase
# starts (TEST_MARK=1, tests/test_check.h); the caller's environment makes
# the phase long (TEST_AM_FLOOD, TEST_ORDER_COUNT, TEST_ATOMIC_COUNT,
# TEST_COLL_ROUNDS), so the kill lands in it, not before or after.
# Usage: kill_mid.sh CONFIG VICTIM LAUNCHER ARGS...   (as run_config.sh;
# the launcher is ternrun, oshrun or tests/mp/run_mpirun.sh).
cfg=$1 victim=$2
shift 2
bound=${KILL_MID_BOUND:-15}
case $1 in *run_mpirun.sh) mpirun=1 ;; *) mpirun=0 ;; esac
fail() {
  echo "kill_mid.sh $cfg rank $victim: FAIL: $*"
  [ -n "$out" ] && tail -20 "$out"
  exit 1
}
out=$(mktemp "${TMPDIR:-/tmp}/kill_mid.XXXXXX") || exit 1
job=
trap 'rm -f "$out"' EXIT
# A TERM (a timeout around this script, ctest's TIMEOUT_SIGNAL_NAME) ends
# the job too, then the script through exit, so the EXIT trap removes the
# output file: a shell killed by a signal it does not trap runs no EXIT
# trap. (CTest 3.25's own timeout sends SIGKILL, which nothing can trap.)
trap '[ -n "$job" ] && kill "$job" 2>/dev/null; exit 143' TERM
TEST_MARK=1 timeout 120 "$(dirname "$0")/run_config.sh" "$cfg" "$@" >"$out" 2>&1 &
job=$!
# The victim's mark (its pid), within 60 s of the start.
pid=
i=0
while [ $i -lt 600 ]; do
  pid=$(sed -n "s/.*mark: [A-Za-z]* $victim (pid \([0-9]*\)): .*/\1/p" "$out" | head -1)
  [ -n "$pid" ] && break
  kill -0 $job 2>/dev/null || break
  sleep 0.1
  i=$((i + 1))
done
if [ -z "$pid" ]; then
  wait $job
  st=$?
  [ $st -eq 77 ] && { cat "$out"; exit 77; } # the launcher skipped (no mpirun)
  fail "no mark from rank $victim (exit status $st)"
fi
sleep 0.5 # well inside the phase
kill -0 "$pid" 2>/dev/null || { wait $job; fail "rank $victim (pid $pid) ended before the kill"; }
grep -q ': PASS on' "$out" && fail "the job passed before the kill"
kill -9 "$pid"
t0=$(date +%s)
wait $job
st=$?
t1=$(date +%s)
cat "$out"
[ $st -ne 124 ] || fail "the job was still running 120 s after its start"
[ $st -ne 0 ] || fail "the job succeeded without rank $victim"
# ternrun's message (signal included); or Open MPI mpirun's
# (tests/mp/run_mpirun.sh), which reports the first exit it sees: now and
# then (1 run in about 40 under ctest -j2, none in 36 one at a time) a
# survivor's exit with status 1 comes first, and then only the survivors'
# Tern errors name the dead rank ("get with rank 3 failed: ... Transport
# endpoint is not connected"), not the signal.
if grep -q "rank $victim (pid $pid) killed by signal 9" "$out"; then
  :
elif [ "$mpirun" = 1 ] && grep -q -e "process rank $victim with PID [0-9]* on node .* exited on signal 9" \
  -e "^tern\[[0-9]*@.*\] error: .* with rank $victim failed" "$out"; then
  :
else
  fail "no message naming rank $victim (pid $pid) and signal 9"
fi
[ $((t1 - t0)) -le "$bound" ] || fail "the job took $((t1 - t0)) s to end after the kill"
echo "kill_mid.sh $cfg rank $victim: PASS (exit status $st, $((t1 - t0)) s after the kill)"
