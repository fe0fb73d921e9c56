#!/bin/sh
# Runs a rank inside the network namespace of its simulated node:
# ternrun --nodes K gives each rank TERN_BOOT_NODE=<host>#<k>; the rank
# then runs in namespace <NETNS_PREFIX><k>.
k=${TERN_BOOT_NODE##*#}
exec ip netns exec "${NETNS_PREFIX}${k}" "$@"
