#!/bin/sh
# Installs what is missing (scripts/install-deps.sh, nothing when all is
# there), builds Tern and runs the whole test suite (unit and multi-rank
# tests in every transport configuration of this build) with CTest, with
# libfabric's scan of /proc/kallsyms masked where it can be
# (scripts/mask-kallsyms.sh says why; TEST_KEEP_KALLSYMS=1 keeps it).
# TEST_JOBS tests at a time (default 2: on a fresh-clone CI run 4 at a
# time were no faster and pushed a bounded network benchmark past its
# bound; docs/design/ci-time.md).
set -e
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build
../scripts/mask-kallsyms.sh ctest --output-on-failure --timeout 300 -j"${TEST_JOBS:-2}" "$@"
