#!/bin/sh
# Installs what Tern needs to build and test on Debian 12 (run as root, or
# with sudo available): compiler, CMake, hwloc, libfabric, PMIx, Open MPI
# (its mpirun is the PMIx launcher used by the tests), clang (the public
# headers are checked with it too: unit.header_clang) and Slurm (the tests
# start a private slurmctld and slurmd to run srun --mpi=pmix). Installs
# only what is missing: with everything installed it changes nothing and
# asks for no privileges, so scripts/test.sh runs it every time.
set -e
pkgs="build-essential cmake ninja-build pkg-config python3 \
  libhwloc-dev hwloc libfabric-dev libfabric-bin libpmix-dev libnuma-dev \
  openmpi-bin libopenmpi-dev procps iproute2 clang-format clang \
  slurmctld slurmd slurm-client"
if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: not a Debian-like system (no dpkg-query or apt-get), so" \
       "nothing was installed; install the equivalents of these Debian" \
       "packages yourself: $pkgs" | tr -s ' ' >&2
  exit 0
fi
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && { echo "install-deps: everything is installed"; exit 0; }
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install-deps: missing packages:$missing; installing them needs root:" \
         "run this script as root, or install sudo" >&2
    exit 1
  fi
  SUDO=sudo
fi
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
# Through env: sudo drops the caller's environment, and a prompt (tzdata,
# say) would stop an unattended run.
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
