#!/bin/sh
# Installs what is missing (scripts/install-deps.sh, nothing when all is
# there), builds Tern and runs the whole test suite (unit and multi-rank
# tests in every transport configuration of this build) with CTest, with
# libfabric's scan of /proc/kallsyms masked where it can be
# (scripts/mask-kallsyms.sh says why; TEST_KEEP_KALLSYMS=1 keeps it).
# TEST_JOBS tests at a time (default 3: a network test's ranks sleep
# 0.2 s each in libfabric's providers' constructors, leaving a core idle;
# 3 at a time took 10% less than 2 on the same tests in one sitting and
# passed the whole suite. 4 were no faster on a fresh-clone CI run and
# pushed a bounded network benchmark past its bound;
# docs/design/ci-time.md).
set -e
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build
../scripts/mask-kallsyms.sh ctest --output-on-failure --timeout 300 -j"${TEST_JOBS:-3}" "$@"
