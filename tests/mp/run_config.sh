#!/bin/sh
# Runs a multi-rank test command in one transport configuration:
#   shm   - every rank on one node, shared memory between them
# (network-only and mixed configurations arrive with the network transport)
cfg=$1; shift
case "$cfg" in
  shm) exec "$@" ;;
  *) echo "run_config.sh: unknown configuration '$cfg'" >&2; exit 1 ;;
esac
