#!/bin/sh
# Runs a command (the test suite) with /proc/kallsyms hidden, when it can.
#   scripts/mask-kallsyms.sh COMMAND [ARGS...]
#
# Why: libfabric 1.17's verbs provider reads all of /proc/kallsyms twice,
# 1 KiB at a time, in every process's first fi_getinfo, looking for two
# symbols of RDMA peer-memory kernel modules (docs/design/ci-time.md,
# docs/design/network-transport.md). That is about 0.1 s of system CPU per
# network rank, more than half of what a 4-rank network test costs in all,
# and no setting of libfabric avoids it. Hidden (an empty file bound over
# it in a private mount namespace), the provider finds the symbols absent,
# as it does anyway on a machine without those modules.
#
# Only as root (binding needs it), only when unshare works, and never with
# TEST_KEEP_KALLSYMS=1; otherwise the command runs as it is. The mount is
# private to this command and its children.
if [ "${TEST_KEEP_KALLSYMS:-0}" != 1 ] && [ "$(id -u)" = 0 ] &&
    unshare -m --propagation private true 2>/dev/null; then
    exec unshare -m --propagation private sh -c '
        mount --bind /dev/null /proc/kallsyms 2>/dev/null ||
            echo "mask-kallsyms.sh: /proc/kallsyms stays visible (bind mount refused)" >&2
        exec "$@"' sh "$@"
fi
exec "$@"
