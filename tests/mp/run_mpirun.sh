#!/bin/sh
# Runs a multi-rank test under Open MPI's mpirun, the PMIx launcher of
# Debian, so that Tern bootstraps through PMIx instead of ternrun.
#
#   run_mpirun.sh [--expect-fail STATUS PATTERN COUNT] N prog [args...]
#
# Normal mode passes mpirun's exit status through. With --expect-fail the
# job must end with exit status STATUS and its output must hold exactly
# COUNT lines matching the grep pattern PATTERN (a test of abort paths).
# Exits 77 (skip) when there is no mpirun.openmpi; set TERN_MPIRUN to use
# another Open MPI mpirun.
expect_status= expect_pattern= expect_count=
if [ "$1" = "--expect-fail" ]; then
  expect_status=$2 expect_pattern=$3 expect_count=$4
  shift 4
fi
n=$1; shift

mpirun=${TERN_MPIRUN:-$(command -v mpirun.openmpi)}
if [ -z "$mpirun" ] || [ ! -x "$mpirun" ]; then
  echo "SKIP: mpirun.openmpi not found (apt-get install openmpi-bin, or set TERN_MPIRUN)"
  exit 77
fi

# Open MPI refuses to run as root unless told twice.
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# A ternrun around this script (or a developer's shell) must not divert
# the ranks away from PMIx: TERN_BOOT_ADDR wins over PMIx in tn_boot_create.
unset TERN_BOOT_ADDR TERN_BOOT_RANK TERN_BOOT_SIZE TERN_BOOT_NODE TERN_BOOT_JOBID

# --oversubscribe: more ranks than cores is the normal case in CI.
# --bind-to none: the tests do not depend on binding, and binding
# oversubscribed ranks is refused. The MCA settings keep mpirun on this
# host and its loopback, quick in a container without a network.
# Each job gets a session directory of its own: Open MPI 4 makes
# /tmp/ompi.<host>.<uid> by a check, then a mkdir, and a second mpirun
# starting at that moment (ctest -j) fails in orte_init with "A call to
# mkdir was unable to create the desired directory ... File exists"
# (seen in CI: mp.pmix_boot.n2 under ASan, 2026-11-28).
sess=$(mktemp -d "${TMPDIR:-/tmp}/tern_ompi.XXXXXX") || {
  echo "run_mpirun.sh: cannot make a session directory for mpirun in ${TMPDIR:-/tmp}" >&2
  exit 1
}
trap 'rm -rf "$sess"' EXIT
# A timeout's TERM (or INT, HUP) ends the script through exit, so the
# EXIT trap removes the directory then too (after mpirun has ended).
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
set -- "$mpirun" -n "$n" --oversubscribe --bind-to none \
  --mca plm_rsh_agent false --mca oob_tcp_if_include lo \
  --mca orte_tmpdir_base "$sess" "$@"

if [ -z "$expect_status" ]; then
  "$@"
  exit
fi

out=$(mktemp "${TMPDIR:-/tmp}/tern_mpirun.XXXXXX") || exit 1
"$@" >"$out" 2>&1
status=$?
cat "$out"
count=$(grep -c -e "$expect_pattern" "$out")
rm -f "$out"
if [ "$status" != "$expect_status" ] || [ "$count" != "$expect_count" ]; then
  echo "FAIL: expected exit status $expect_status and $expect_count line(s) matching '$expect_pattern'; got status $status and $count line(s)"
  exit 1
fi
echo "PASS: job ended with status $status as expected"
exit 0
