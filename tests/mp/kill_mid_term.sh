#!/bin/sh
# kill_mid.sh stopped by SIGTERM (a timeout around it) while it waits for
# its job: it must exit 143 at once, end the job it started and leave no
# output file in TMPDIR. The job is a stand-in that never prints a mark
# (a shell that records its pid, then sleeps), so kill_mid.sh is in its
# wait for the victim's mark when the TERM comes.
#   kill_mid_term.sh            (no arguments; needs only sh and coreutils)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kill_mid_term.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/tmpdir" "$tmp/pid"
fail() {
  echo "kill_mid_term.sh: FAIL: $*"
  [ -f "$tmp/log" ] && sed 's/^/  kill_mid.sh: /' "$tmp/log"
  exit 1
}
TMPDIR=$tmp/tmpdir "$here/kill_mid.sh" shm 1 \
  sh -c 'echo $$ >"$1/job.pid"; exec sleep 60' sh "$tmp/pid" >"$tmp/log" 2>&1 &
script=$!
i=0
while [ ! -s "$tmp/pid/job.pid" ]; do
  i=$((i + 1))
  [ $i -gt 100 ] && fail "the job did not start within 10 s"
  sleep 0.1
done
jobpid=$(cat "$tmp/pid/job.pid")
[ -n "$(ls "$tmp/tmpdir")" ] || fail "kill_mid.sh made no output file in TMPDIR"
kill -TERM $script
t0=$(date +%s)
wait $script
st=$?
[ $st -eq 143 ] || fail "exit status $st after SIGTERM, expected 143"
i=0
while kill -0 "$jobpid" 2>/dev/null; do
  i=$((i + 1))
  [ $i -gt 50 ] && fail "its job (pid $jobpid) still runs 5 s after kill_mid.sh ended"
  sleep 0.1
done
left=$(ls "$tmp/tmpdir")
[ -z "$left" ] || fail "left in TMPDIR: $left"
echo "kill_mid_term.sh: PASS (exit 143 $(($(date +%s) - t0)) s after SIGTERM; job ended, nothing left)"
