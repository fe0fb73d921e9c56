#!/bin/sh
# Runs a multi-rank test under a real Slurm, so that Tern bootstraps through
# Slurm's PMIx plugin: starts a private slurmctld and slurmd on this machine
# (a throw-away slurm.conf, state and logs in a temporary directory), runs
#
#   srun --mpi=pmix -n N prog [args...]
#
# in it, then stops both daemons and removes the directory, on failure and
# on a signal too.
#
#   run_srun.sh [--expect-fail STATUS PATTERN COUNT] N prog [args...]
#
# Normal mode passes srun's exit status through (the highest of all ranks).
# With --expect-fail the job must end with exit status STATUS (or any
# non-zero status: "nonzero") and its output hold exactly COUNT lines
# matching the grep pattern PATTERN.
# Exits 77 (skip), saying why, where Slurm or its PMIx plugin is missing,
# when not root (slurmd starts job steps as root) or when the daemons do not
# come up (their logs are printed). RUN_SRUN_AUTH=none|munge chooses the
# authentication (default: auth/none where the plugin exists, else a private
# munged); RUN_SRUN_KEEP=1 keeps the directory for inspection.
#
# Where the kernel allows, everything runs in a PID namespace of its own
# (unshare): when this script ends, even by SIGKILL from a test timeout, the
# kernel ends every process left in it, daemons and job steps included.
expect_status= expect_pattern= expect_count=
if [ "$1" = "--expect-fail" ]; then
  expect_status=$2 expect_pattern=$3 expect_count=$4
  shift 4
fi
n=$1; shift

skip() { echo "SKIP: $*"; exit 77; }

for c in slurmctld slurmd srun sinfo; do
  command -v "$c" >/dev/null 2>&1 ||
    skip "$c not found (Debian: apt-get install slurmctld slurmd slurm-client)"
done
[ "$(id -u)" = 0 ] || skip "a private slurmd must run as root to start job steps"

# Re-run inside a new PID namespace (with its own /proc) unless already
# there; this process becomes its init. Without unshare, traps alone clean up.
if [ -z "$RUN_SRUN_IN_NS" ] && command -v unshare >/dev/null 2>&1 &&
  unshare --pid --fork --mount-proc true 2>/dev/null; then
  set -- "$n" "$@"
  [ -n "$expect_status" ] &&
    set -- --expect-fail "$expect_status" "$expect_pattern" "$expect_count" "$@"
  # --kill-child=TERM: a signal that ends unshare reaches this script's
  # traps below, which clean up; the kernel then ends whatever is left.
  RUN_SRUN_IN_NS=1 exec unshare --pid --fork --kill-child=TERM --mount-proc "$0" "$@"
fi
unset RUN_SRUN_IN_NS

dir=$(mktemp -d "${TMPDIR:-/tmp}/tern_slurm.XXXXXX") || exit 1
chmod 755 "$dir"
export SLURM_CONF="$dir/slurm.conf"
ctld_pid= slurmd_pid= munged_pid= srun_pid=

# Processes of this test's Slurm: the daemons and srun are started with
# RUN_SRUN_TAG=<this run's directory> in their environment, and the job
# steps and ranks inherit it; nothing else has it.
own_pids() {
  for p in /proc/[0-9]*; do
    { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qxF "RUN_SRUN_TAG=$dir" &&
      echo "${p#/proc/}"
  done
}

# 0 while the process runs (a child that ended but was not reaped yet is a
# zombie, which kill -0 still finds).
alive() {
  set -- $(cat "/proc/$1/stat" 2>/dev/null)
  [ -n "$3" ] && [ "$3" != Z ]
}

# Waits up to 5 s for a process to end, then kills it.
reap() {
  i=0
  while alive "$1" && [ $i -lt 50 ]; do
    sleep 0.1; i=$((i + 1))
  done
  kill -KILL "$1" 2>/dev/null
  wait "$1" 2>/dev/null
}

# Ends the job steps first (slurmd must still run to end them), then the
# daemons by their process ids, gently and then by force, then anything of
# this test's Slurm still alive (a step whose slurmd vanished).
cleanup() {
  trap - EXIT INT TERM HUP
  [ -n "$srun_pid" ] && kill -TERM "$srun_pid" 2>/dev/null
  if [ -n "$ctld_pid" ] && alive "$ctld_pid" && [ -n "$slurmd_pid" ] &&
    alive "$slurmd_pid"; then
    timeout 5 scancel --quiet --full --signal=KILL --user=root 2>/dev/null
    # A job leaves the queue once its steps have ended.
    deadline=$(($(date +%s) + 5))
    while [ -n "$(timeout 2 squeue -h 2>/dev/null)" ] &&
      [ "$(date +%s)" -le $deadline ]; do
      sleep 0.1
    done
  fi
  for pid in $slurmd_pid $ctld_pid $munged_pid; do
    kill -TERM "$pid" 2>/dev/null
  done
  for pid in $slurmd_pid $ctld_pid $munged_pid; do
    reap "$pid"
  done
  left=$(own_pids)
  if [ -n "$left" ]; then
    echo "run_srun: killing what is left of this test's Slurm:" \
      $(ps -o pid=,args= -p "$(echo $left | tr ' ' ,)")
    kill -KILL $left 2>/dev/null
  fi
  if [ -n "$RUN_SRUN_KEEP" ]; then
    echo "run_srun: kept $dir"
  else
    rm -rf "$dir"
  fi
}
trap cleanup EXIT
trap 'exit 143' INT TERM HUP

# The daemons' logs, less the complaints about the missing state files of a
# new cluster.
show_logs() {
  for f in "$dir"/log/*; do
    [ -s "$f" ] || continue
    echo "---- last lines of $(basename "$f") ----"
    grep -v -e 'state file' -e 'Trying backup' -e 'to recover$' -e 'found$' "$f" |
      tail -n 15
  done
}

# A TCP port nobody listens on (ss from iproute2; without it, any port in
# the range: a clash then shows as a daemon that does not start).
free_port() {
  while :; do
    p=$(( $(od -An -N2 -tu2 /dev/urandom) % 20000 + 20000 ))
    if ! command -v ss >/dev/null 2>&1 || [ -z "$(ss -Htln "sport = :$p")" ]; then
      echo "$p"; return
    fi
  done
}

# Where this Slurm keeps its plugins (Debian: /usr/lib/<triplet>/slurm-wlm).
plugin_dir=
for d in /usr/lib/*/slurm-wlm /usr/lib64/slurm /usr/lib/slurm /usr/local/lib/slurm; do
  [ -e "$d/mpi_none.so" ] && { plugin_dir=$d; break; }
done

auth=${RUN_SRUN_AUTH:-}
if [ -z "$auth" ]; then
  if [ -n "$plugin_dir" ] && [ -e "$plugin_dir/auth_none.so" ]; then
    auth=none
  else
    auth=munge
  fi
fi
auth_lines=
case "$auth" in
  none) auth_lines="AuthType=auth/none
CredType=cred/none" ;;
  munge)
    command -v munged >/dev/null 2>&1 ||
      skip "this Slurm has no auth/none plugin and munged is missing (apt-get install munge)"
    # A private munged with a throw-away key: the machine's own munge (if
    # any) is neither used nor touched.
    mkdir -p "$dir/munge" "$dir/log" && chmod 700 "$dir/munge"
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
    chmod 400 "$dir/munge/munge.key"
    env RUN_SRUN_TAG="$dir" munged --foreground --force --socket="$dir/munge/socket" \
      --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
      --seed-file="$dir/munge/seed" --log-file="$dir/log/munged.log" \
      >>"$dir/log/munged.log" 2>&1 &
    munged_pid=$!
    auth_lines="AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/socket" ;;
  *) echo "run_srun: RUN_SRUN_AUTH must be none or munge, not '$auth'" >&2; exit 1 ;;
esac

host=$(hostname -s)
# Enough CPUs for N ranks whatever this machine has: config_overrides makes
# slurmd trust this line instead of draining the node for "Low CPUs".
cpus=$(nproc)
[ "$cpus" -lt "$n" ] && cpus=$n
mkdir -p "$dir/state" "$dir/spool" "$dir/log"

write_conf() {
  cat >"$dir/slurm.conf" <<EOF
# Throw-away Slurm of one node for a Tern test (tests/mp/run_srun.sh).
ClusterName=tern
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
SlurmUser=root
SlurmdUser=root
$auth_lines
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# The PMIx plugin puts its per-step directory here: private to this test.
TmpFS=$dir
MailProg=/bin/true
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=tern Nodes=$host Default=YES MaxTime=10 State=UP OverSubscribe=YES
EOF
}

# Nothing of a surrounding allocation or ternrun may leak into the job.
for v in $(env | sed -n 's/^\(SLURM_[A-Z_]*\)=.*/\1/p; s/^\(TERN_BOOT_[A-Z_]*\)=.*/\1/p'); do
  [ "$v" = SLURM_CONF ] || unset "$v"
done

# Starts both daemons and waits until the node is idle. Returns 1 when a
# daemon died (a port taken between free_port and its bind: worth another
# try), 2 when the node is not idle after 15 s.
start_slurm() {
  write_conf "$(free_port)" "$(free_port)"
  env RUN_SRUN_TAG="$dir" slurmctld -D -i -f "$SLURM_CONF" >>"$dir/log/slurmctld.out" 2>&1 &
  ctld_pid=$!
  env RUN_SRUN_TAG="$dir" slurmd -D -f "$SLURM_CONF" >>"$dir/log/slurmd.out" 2>&1 &
  slurmd_pid=$!
  deadline=$(($(date +%s) + 15))
  while [ "$(date +%s)" -le $deadline ]; do
    alive "$ctld_pid" && alive "$slurmd_pid" || return 1
    # sinfo waits several seconds for a controller that is not there
    [ "$(timeout 2 sinfo -h -n "$host" -o %t 2>/dev/null)" = idle ] && return 0
    sleep 0.1
  done
  return 2
}

stop_slurm() {
  for pid in $slurmd_pid $ctld_pid; do
    kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  done
  ctld_pid= slurmd_pid=
  rm -rf "$dir/state" "$dir/spool" && mkdir -p "$dir/state" "$dir/spool"
}

t0=$(date +%s.%N)
tries=1
while :; do
  start_slurm
  rc=$?
  [ $rc = 0 ] && break
  if [ $rc = 2 ] || [ $tries -ge 3 ]; then
    show_logs
    [ $rc = 2 ] && why="its node was not idle after 15 s" ||
      why="a daemon died at start ($tries tries)"
    skip "the private Slurm (slurmctld + slurmd, auth/$auth) did not come up: $why; logs above"
  fi
  stop_slurm
  tries=$((tries + 1))
done
echo "run_srun: $(srun --version) up in" \
  "$(echo "$(date +%s.%N) $t0" | awk '{printf "%.1f", $1 - $2}') s (auth/$auth)"

srun --mpi=list 2>&1 | grep -q '^[[:space:]]*pmix' ||
  skip "this Slurm has no PMIx MPI plugin (srun --mpi=list: $(srun --mpi=list 2>&1 | tr -s '\n\t' '  '))"

out="$dir/out"
# Exactly the command docs/guide.md gives. No --kill-on-bad-exit: a rank
# that exits without tern_finalize makes Slurm's PMIx plugin end the step.
# The timeout stays below the test's, so that the cleanup here runs.
# srun runs in the background because a shell runs its traps only between
# commands: "wait" lets a signal in at once.
env RUN_SRUN_TAG="$dir" timeout 50 srun --mpi=pmix -n "$n" "$@" >"$out" 2>&1 &
srun_pid=$!
wait "$srun_pid"
status=$?
srun_pid=
cat "$out"

# The PMIx plugin of Debian 12's Slurm dlopens the unversioned libpmix.so,
# which only libpmix-dev installs.
if grep -q "can not load PMIx library" "$out" "$dir/log/slurmd.log" 2>/dev/null; then
  show_logs
  skip "Slurm's PMIx plugin cannot load libpmix.so (Debian 12: apt-get install libpmix-dev)"
fi

if [ -z "$expect_status" ]; then
  [ "$status" = 0 ] || show_logs
  exit "$status"
fi
count=$(grep -c -e "$expect_pattern" "$out")
status_ok=0
if [ "$expect_status" = nonzero ]; then
  [ "$status" != 0 ] && status_ok=1
else
  [ "$status" = "$expect_status" ] && status_ok=1
fi
if [ $status_ok = 0 ] || [ "$count" != "$expect_count" ]; then
  show_logs
  echo "FAIL: expected exit status $expect_status and $expect_count line(s) matching '$expect_pattern'; got status $status and $count line(s)"
  exit 1
fi
echo "PASS: job ended with status $status as expected"
exit 0
