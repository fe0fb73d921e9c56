#!/bin/sh
# The setup scripts as a new user meets them, with apt, dpkg and sudo
# replaced by stubs that log their calls (nothing is installed):
#   scripts/install-deps.sh installs only what is missing, unattended, as
#   root or through sudo, and says clearly when it cannot;
#   scripts/test.sh (the README's test command) installs before it builds.
#   test_scripts.sh <source dir>
src=${1:-$(dirname "$0")/../..}
src=$(cd "$src" && pwd) || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "scripts: FAIL: $*" >&2; [ -f "$tmp/log" ] && sed 's/^/  log: /' "$tmp/log" >&2; exit 1; }

# A bin directory that is the whole PATH: the tools the scripts use, and
# stubs. Stubs read $tmp/installed (packages dpkg knows) and $tmp/uid.
bin=$tmp/bin
mkdir "$bin"
for t in sh grep tr cat env dirname cut; do
  p=$(command -v $t) || fail "this test needs $t"
  ln -s "$p" "$bin/$t"
done
stub() { printf '#!/bin/sh\n%s\n' "$2" >"$bin/$1"; chmod +x "$bin/$1"; }
stub dpkg-query "grep -qx \"\$3\" '$tmp/installed' && echo 'install ok installed'; exit 0"
stub apt-get "echo \"apt-get \$* DEBIAN_FRONTEND=\$DEBIAN_FRONTEND uid=\$(cat '$tmp/uid')\" >>'$tmp/log'"
stub id "cat '$tmp/uid'"
# The service policy install-deps writes (and removes) around apt-get: the
# real /usr/sbin must not change.
stub tee "cat >/dev/null; echo \"tee \$*\" >>'$tmp/log'"
stub chmod "echo \"chmod \$*\" >>'$tmp/log'"
stub rm "echo \"rm \$*\" >>'$tmp/log'"
# Like the real sudo: runs as root with a reset environment.
stub sudo "echo 0 >'$tmp/uid'; exec /usr/bin/env -i PATH=\"\$PATH\" \"\$@\""
all="build-essential cmake ninja-build pkg-config python3 libhwloc-dev hwloc
libfabric-dev libfabric-bin libpmix-dev libnuma-dev openmpi-bin libopenmpi-dev
procps iproute2 clang-format clang slurmctld slurmd slurm-client"

deps() { # uid, installed packages; runs install-deps, output in $tmp/out
  echo "$1" >"$tmp/uid"
  printf '%s\n' $2 >"$tmp/installed"
  : >"$tmp/log"
  PATH=$bin sh "$src/scripts/install-deps.sh" >"$tmp/out" 2>&1
  rc=$?
}

# Everything installed: nothing run, no privileges asked for.
deps 1000 "$all"
[ $rc -eq 0 ] || fail "all installed: exit $rc: $(cat "$tmp/out")"
grep -q "everything is installed" "$tmp/out" || fail "all installed: $(cat "$tmp/out")"
[ -s "$tmp/log" ] && fail "all installed, yet apt-get (or tee, chmod, rm) ran"

# A fresh machine, as root: update, then exactly the missing packages.
some=$(printf '%s\n' $all | grep -v -x -e hwloc -e libpmix-dev -e clang-format)
deps 0 "$some"
[ $rc -eq 0 ] || fail "root: exit $rc: $(cat "$tmp/out")"
grep -q "^apt-get update" "$tmp/log" || fail "root: no apt-get update"
grep -q "^apt-get install -y -qq --no-install-recommends hwloc libpmix-dev clang-format DEBIAN_FRONTEND=noninteractive uid=0$" \
  "$tmp/log" || fail "root: not the expected install"

# Not root, with sudo: the install runs as root and stays unattended
# although sudo resets the environment.
deps 1000 "$some"
[ $rc -eq 0 ] || fail "sudo: exit $rc: $(cat "$tmp/out")"
grep -q "^apt-get install .* hwloc libpmix-dev clang-format DEBIAN_FRONTEND=noninteractive uid=0$" \
  "$tmp/log" || fail "sudo: not installed as root, unattended"

# Not root, no sudo: a clear error naming what is missing and the way out.
rm "$bin/sudo"
deps 1000 "$some"
[ $rc -eq 1 ] || fail "no sudo: exit $rc, expected 1"
grep -q "missing packages: hwloc libpmix-dev clang-format; .*run this script as root, or install sudo" \
  "$tmp/out" || fail "no sudo: message: $(cat "$tmp/out")"
[ -s "$tmp/log" ] && fail "no sudo, yet apt-get (or tee, chmod, rm) ran"

# Not Debian: says nothing was installed and what to install, and lets the
# caller go on (the build names whatever is really missing).
rm "$bin/dpkg-query" "$bin/apt-get"
deps 0 ""
[ $rc -eq 0 ] || fail "not Debian: exit $rc"
grep -q "not a Debian-like system .*nothing was installed.*libfabric-dev" "$tmp/out" ||
  fail "not Debian: message: $(cat "$tmp/out")"

# test.sh on a copy whose install, build and ctest log their turn.
mkdir -p "$tmp/tree/scripts"
cp "$src/scripts/test.sh" "$src/scripts/mask-kallsyms.sh" "$tmp/tree/scripts/"
printf '#!/bin/sh\necho deps >>"%s/order"\n' "$tmp" >"$tmp/tree/scripts/install-deps.sh"
printf '#!/bin/sh\necho build >>"%s/order"\nmkdir -p build\n' "$tmp" >"$tmp/tree/scripts/build.sh"
stub ctest "echo \"ctest \$*\" >>'$tmp/order'"
chmod +x "$tmp/tree/scripts/"*.sh
PATH=$bin:$PATH sh "$tmp/tree/scripts/test.sh" -L unit >"$tmp/out" 2>&1 ||
  fail "test.sh: $(cat "$tmp/out")"
order=$(tr '\n' ' ' <"$tmp/order")
[ "$order" = "deps build ctest --output-on-failure --timeout 300 -j${TEST_JOBS:-3} -L unit " ] ||
  fail "test.sh ran: $order; expected install-deps, build, ctest"
echo "scripts: PASS"
