#!/bin/sh
# An OpenSHMEM program as a user builds and starts it without oshrun: this
# build's oshcc compiles it, Open MPI's mpirun or Slurm's srun starts it,
# and Tern bootstraps through PMIx (issue 12: programs launched by
# mpirun/srun with PMIx work too).
#   launch_oshcc.sh build OSHCC OUT SOURCE [compiler arguments...]
#   launch_oshcc.sh CONFIG mpirun|srun N PROG
# The first form compiles SOURCE into OUT (a CTest fixture: each program is
# built once and started by every configuration's test, ci-time.md,
# thirteenth round). CONFIG: shm, net (TERN_SHM=off) or, under mpirun,
# mixed (two simulated nodes through scripts/mpirun-nodes.sh). The launch
# goes through tests/mp/run_mpirun.sh or run_srun.sh (a private Slurm),
# which skip with 77 where their launcher cannot run; the job's exit status
# is the test's.
here=$(cd "$(dirname "$0")" && pwd)
if [ "$1" = build ]; then
  [ $# -ge 4 ] || { echo "usage: launch_oshcc.sh build OSHCC OUT SOURCE [args...]" >&2; exit 1; }
  oshcc=$2 out=$3 src=$4
  shift 4
  mkdir -p "$(dirname "$out")" && rm -f "$out" || exit 1
  "$oshcc" -O1 -o "$out" "$src" "$@" || {
    echo "launch_oshcc.sh: $oshcc could not build $src"
    exit 1
  }
  exit 0
fi
[ $# -eq 4 ] || { echo "usage: launch_oshcc.sh CONFIG mpirun|srun N PROG" >&2; exit 1; }
cfg=$1 launcher=$2 n=$3 prog=$4
case $launcher in
  mpirun | srun) run=$here/../mp/run_$launcher.sh ;;
  *) echo "launch_oshcc.sh: unknown launcher '$launcher'" >&2; exit 1 ;;
esac
[ -x "$prog" ] || {
  echo "launch_oshcc.sh: no program '$prog' (built by the test shmem.oshcc_build.*:" \
    "it failed or did not run)"
  exit 1
}
case $cfg/$launcher in
  shm/* | net/*) exec "$here/../mp/run_config.sh" "$cfg" "$run" "$n" "$prog" ;;
  mixed/mpirun) exec "$run" "$n" "$here/../../scripts/mpirun-nodes.sh" 2 "$prog" ;;
  *) echo "launch_oshcc.sh: no configuration '$cfg' under $launcher" >&2; exit 1 ;;
esac
