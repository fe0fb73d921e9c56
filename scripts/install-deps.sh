#!/bin/sh
# Installs what Tern needs to build and test on Debian 12 (run as root, or
# with sudo available): compiler, CMake, hwloc, libfabric, PMIx, and Open MPI
# (its mpirun is the PMIx launcher used by the tests).
set -e
pkgs="build-essential cmake ninja-build pkg-config python3 \
  libhwloc-dev hwloc libfabric-dev libfabric-bin libpmix-dev libnuma-dev \
  openmpi-bin libopenmpi-dev procps iproute2 clang-format"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && { echo "install-deps: everything is installed"; exit 0; }
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
echo "install-deps: installing$missing"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
