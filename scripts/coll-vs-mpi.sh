#!/bin/sh
# Collective latency against Open MPI in the same job (tern-bench-mpi coll),
# for the shm, net and mixed configurations at 2 and 4 ranks: the figures of
# docs/design/collectives.md. Each net and mixed row runs twice, with the
# eager ring off (TERN_COLL_EAGER=0, the algorithms before it) and on.
#   scripts/coll-vs-mpi.sh [--sizes 8,1K,4K] [more tern-bench options]
# MPI: shm uses its shared-memory BTL; net uses TCP only (pml ob1, btl
# tcp,self), as Tern with TERN_SHM=off; mixed simulates 2 nodes for Tern
# (scripts/mpirun-nodes.sh) while MPI, which sees one host, keeps its
# shared-memory BTL between all ranks (its best case).
cd "$(dirname "$0")/.." || exit 1
[ $# -eq 0 ] && set -- --sizes 8,1K,4K --row-time 0.2
mpirun=${TERN_MPIRUN:-mpirun.openmpi}
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
bench=build/bench/tern-bench-mpi
run() { # cfg n eager
  cfg=$1 n=$2 eager=$3; shift 3
  bind="--bind-to core"
  [ "$n" -gt "$(nproc)" ] && bind="--oversubscribe --bind-to none"
  case $cfg in
    shm) set -- $bind "$bench" coll "$@" ;;
    net) set -- $bind --mca pml ob1 --mca btl tcp,self -x TERN_SHM=off "$bench" coll "$@" ;;
    mixed) set -- $bind scripts/mpirun-nodes.sh 2 "$bench" coll "$@" ;;
  esac
  echo "== $cfg, $n ranks, TERN_COLL_EAGER=${eager:-default}"
  TERN_COLL_EAGER=$eager "$mpirun" -n "$n" --mca plm_rsh_agent false \
    --mca oob_tcp_if_include lo -x TERN_COLL_EAGER "$@" 2>&1 | grep -v '^#'
}
for n in 2 4; do
  run shm "$n" 4K "$@"
  for cfg in net mixed; do
    [ "$cfg" = mixed ] && [ "$n" -lt 4 ] && continue # 1 rank per node: as net
    run "$cfg" "$n" 0 "$@"
    run "$cfg" "$n" 4K "$@"
  done
done
