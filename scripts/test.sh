#!/bin/sh
# Installs what is missing (scripts/install-deps.sh, nothing when all is
# there), builds Tern and runs the whole test suite (unit and multi-rank
# tests in every transport configuration of this build) with CTest.
set -e
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build
ctest --output-on-failure --timeout 300 -j2 "$@"
