#!/bin/sh
# Simulates K nodes in an Open MPI job on one host, as ternrun --nodes K
# does: rank r of N gets TERN_BOOT_NODE=simnode<r*K/N>, so Tern maps the
# segments of one simulated node and reaches the others over the network
# (MPI, in the same processes, still sees one host).
#   mpirun -n 4 scripts/mpirun-nodes.sh 2 build/bench/tern-bench-mpi coll
k=$1; shift
r=${OMPI_COMM_WORLD_RANK:?"not started by Open MPI's mpirun"}
n=${OMPI_COMM_WORLD_SIZE:?"not started by Open MPI's mpirun"}
case "$k" in
  '' | *[!0-9]* | 0) echo "mpirun-nodes.sh: K '$k' must be a positive integer" >&2; exit 1 ;;
esac
TERN_BOOT_NODE=simnode$((r * k / n)) exec "$@"
