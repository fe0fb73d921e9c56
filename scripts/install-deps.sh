#!/bin/sh
# Installs what Tern needs to build and test on Debian 12 (run as root, or
# with sudo available): compiler, CMake, hwloc, libfabric, PMIx, Open MPI
# (its mpirun is the PMIx launcher used by the tests) and Slurm (the tests
# start a private slurmctld and slurmd to run srun --mpi=pmix).
set -e
pkgs="build-essential cmake ninja-build pkg-config python3 \
  libhwloc-dev hwloc libfabric-dev libfabric-bin libpmix-dev libnuma-dev \
  openmpi-bin libopenmpi-dev procps iproute2 clang-format \
  slurmctld slurmd slurm-client"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && { echo "install-deps: everything is installed"; exit 0; }
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
echo "install-deps: installing$missing"
# Debian starts the services of the packages it installs (munge, slurmd,
# slurmctld). The tests start private daemons of their own and need none of
# these: forbid starting services for the install (policy-rc.d answers 101),
# unless the machine already has such a policy.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  trap '$SUDO rm -f "$policy"' EXIT
  trap 'exit 130' INT TERM HUP
  printf '#!/bin/sh\n# install-deps.sh: no service starts during its install\nexit 101\n' |
    $SUDO tee "$policy" >/dev/null
  $SUDO chmod 755 "$policy"
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
