#!/bin/sh
# Collective latency against Open MPI in the same job (tern-bench-mpi coll),
# for the shm, net and mixed configurations at 2 and 4 ranks: the figures of
# docs/design/collectives.md. Each net and mixed row runs twice, with the
# eager ring off (TERN_COLL_EAGER=0, the algorithms before it) and on; with
# COLL_BEFORE=DIR, every configuration (shm too) with DIR's build
# (DIR/build/bench/tern-bench-mpi, an earlier commit's tree) and this one's
# instead, job after job in one run.
# COLL_EAGER_OFF=no skips the TERN_COLL_EAGER=0 jobs (one job per row).
# COLL_RANKS lists the job sizes (default "2 4"; mixed needs 4 or more).
# COLL_ENV="VAR=VALUE ..." sets those variables in every rank of every job
# (mpirun -x), e.g. COLL_ENV=TERN_COLL_XCHG_PIECE=0 for an A/B of a setting.
#   [COLL_BEFORE=DIR] [COLL_CONFIGS="shm net mixed"] [COLL_RANKS="2 4 8"] \
#   [COLL_ENV="TERN_X=1 ..."] \
#   scripts/coll-vs-mpi.sh [--sizes 8,1K,4K] [more tern-bench options]
# MPI: shm uses its shared-memory BTL; net uses TCP only (pml ob1, btl
# tcp,self), as Tern with TERN_SHM=off; mixed simulates 2 nodes for Tern
# (scripts/mpirun-nodes.sh) while MPI, which sees one host, keeps its
# shared-memory BTL between all ranks (its best case).
cd "$(dirname "$0")/.." || exit 1
[ $# -eq 0 ] && set -- --sizes 8,1K,4K --row-time 0.2
mpirun=${TERN_MPIRUN:-mpirun.openmpi}
configs=${COLL_CONFIGS:-shm net mixed}
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
run() { # cfg n eager bench-binary label
  cfg=$1 n=$2 eager=$3 bench=$4 label=$5; shift 5
  bind="--bind-to core"
  [ "$n" -gt "$(nproc)" ] && bind="--oversubscribe --bind-to none"
  case $cfg in
    shm) set -- $bind "$bench" coll "$@" ;;
    net) set -- $bind --mca pml ob1 --mca btl tcp,self -x TERN_SHM=off "$bench" coll "$@" ;;
    mixed) set -- $bind scripts/mpirun-nodes.sh 2 "$bench" coll "$@" ;;
  esac
  echo "== $cfg, $n ranks, TERN_COLL_EAGER=${eager:-default}${COLL_ENV:+, $COLL_ENV}$label"
  [ -n "$eager" ] && set -- -x TERN_COLL_EAGER="$eager" "$@"
  for v in $COLL_ENV; do set -- -x "$v" "$@"; done
  "$mpirun" -n "$n" --mca plm_rsh_agent false --mca oob_tcp_if_include lo "$@" 2>&1 |
    sed -e '/^# skipped/b' -e '/^#/d' # the header goes; skipped rows are named
}
now=build/bench/tern-bench-mpi
for n in ${COLL_RANKS:-2 4}; do
  for cfg in $configs; do
    [ "$cfg" = mixed ] && [ "$n" -lt 4 ] && continue # 1 rank per node: as net
    if [ -n "$COLL_BEFORE" ]; then
      run "$cfg" "$n" "" "$COLL_BEFORE/build/bench/tern-bench-mpi" ", before" "$@"
      run "$cfg" "$n" "" "$now" ", after" "$@"
    elif [ "$cfg" = shm ]; then # no ring on one node
      run shm "$n" "" "$now" "" "$@"
    else
      [ "$COLL_EAGER_OFF" != no ] && run "$cfg" "$n" 0 "$now" "" "$@"
      run "$cfg" "$n" "" "$now" "" "$@"
    fi
  done
done
