#!/bin/sh
# An OpenSHMEM program as a user builds and starts it without oshrun: this
# build's oshcc compiles it, Open MPI's mpirun or Slurm's srun starts it,
# and Tern bootstraps through PMIx (issue 12: programs launched by
# mpirun/srun with PMIx work too).
#   launch_oshcc.sh CONFIG mpirun|srun OSHCC N SOURCE [compiler arguments...]
# CONFIG: shm, net (TERN_SHM=off) or, under mpirun, mixed (two simulated
# nodes through scripts/mpirun-nodes.sh). The launch goes through
# tests/mp/run_mpirun.sh or run_srun.sh (a private Slurm), which skip with
# 77 where their launcher cannot run; the job's exit status is the test's.
cfg=$1 launcher=$2 oshcc=$3 n=$4 src=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
case $launcher in
  mpirun | srun) run=$here/../mp/run_$launcher.sh ;;
  *) echo "launch_oshcc.sh: unknown launcher '$launcher'" >&2; exit 1 ;;
esac
dir=$(mktemp -d "${TMPDIR:-/tmp}/launch_oshcc.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 143' TERM
"$oshcc" -O1 -o "$dir/prog" "$src" "$@" || {
  echo "launch_oshcc.sh: $oshcc could not build $src"
  exit 1
}
case $cfg/$launcher in
  shm/* | net/*) "$here/../mp/run_config.sh" "$cfg" "$run" "$n" "$dir/prog" ;;
  mixed/mpirun) "$run" "$n" "$here/../../scripts/mpirun-nodes.sh" 2 "$dir/prog" ;;
  *) echo "launch_oshcc.sh: no configuration '$cfg' under $launcher" >&2; exit 1 ;;
esac
