#!/bin/sh
# Runs a multi-rank test command ("ternrun -n N prog args") in one
# transport configuration:
#   shm    - every rank on one node, shared memory between them
#   net    - every rank through the network transport (TERN_SHM=off)
#   mixed  - two simulated nodes (ternrun --nodes 2): shared memory inside
#            a node, the network transport across
cfg=$1; shift
case "$cfg" in
  shm) exec "$@" ;;
  net) TERN_SHM=off exec "$@" ;;
  mixed) ternrun=$1; shift; exec "$ternrun" --nodes 2 "$@" ;;
  *) echo "run_config.sh: unknown configuration '$cfg'" >&2; exit 1 ;;
esac
