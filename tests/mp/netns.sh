#!/bin/sh
# Two simulated nodes in two Linux network namespaces joined by a veth
# pair, loopback down in both: the network transport must use the veth
# link, nothing reaches the other node through loopback. Root only
# (skipped otherwise). Usage: netns.sh TERNRUN PROG [ARGS...]
ternrun=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null 2>&1; then
  echo "netns: SKIP: needs root and iproute2 (ip)"; exit 77
fi
tag=t$$
ns0=tern_${tag}_0 ns1=tern_${tag}_1
va=tv${$}a vb=tv${$}b
sockdir=$(mktemp -d)
cleanup() {
  ip netns del "$ns0" 2>/dev/null; ip netns del "$ns1" 2>/dev/null
  rm -rf "$sockdir"
}
trap cleanup EXIT
if ! ip netns add "$ns0" 2>/dev/null; then
  echo "netns: SKIP: cannot create network namespaces here"; exit 77
fi
ip netns add "$ns1" || exit 1
ip link add "$va" type veth peer name "$vb" || { echo "netns: SKIP: no veth support"; exit 77; }
ip link set "$va" netns "$ns0" && ip link set "$vb" netns "$ns1" || exit 1
# TEST-NET-2 addresses, private to these two namespaces.
ip -n "$ns0" addr add 198.51.100.1/24 dev "$va" && ip -n "$ns0" link set "$va" up || exit 1
ip -n "$ns1" addr add 198.51.100.2/24 dev "$vb" && ip -n "$ns1" link set "$vb" up || exit 1
ip -n "$ns0" link show lo | grep -q "state DOWN" || { echo "netns: FAIL: loopback up in $ns0"; exit 1; }

out=$(NETNS_PREFIX=tern_${tag}_ TERN_BOOT_SOCKET_DIR=$sockdir TERN_VERBOSE=1 \
  timeout 120 "$ternrun" --nodes 2 -n 4 "$here/netns_exec.sh" "$@" 2>&1)
rc=$?
echo "$out"
# Rank 0 reports its endpoint: it must sit on the veth, not on loopback.
echo "$out" | grep -q "ofi: provider .*domain $va" || { echo "netns: FAIL: endpoint not on $va"; exit 1; }
[ -z "$(ls -A "$sockdir")" ] || { echo "netns: FAIL: files left in $sockdir"; exit 1; }
[ $rc -eq 0 ] && echo "netns: PASS (2 nodes in separate network namespaces over veth)"
exit $rc
