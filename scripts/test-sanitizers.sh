#!/bin/sh
# Builds Tern with sanitizers and runs the tests under them:
#   asan  AddressSanitizer (with LeakSanitizer) + UndefinedBehaviorSanitizer,
#         the whole suite, in build-asan/
#   tsan  ThreadSanitizer, the tests labelled "threads" (several threads in a
#         rank: TERN_THREAD_MULTIPLE, the progress thread), in build-tsan/
# Any finding fails the test that made it (see cmake/sanitize.cmake; the
# suppressions for third-party libraries are in tests/sanitizers/).
#
# usage: scripts/test-sanitizers.sh [--build-only] [asan|tsan|all]
#        [ctest arguments...]
# (default: all). --build-only builds the trees and runs no test (.ci/run
# builds them this way while the plain suite runs). Needs what
# scripts/install-deps.sh installs (gcc brings the sanitizer run-time
# libraries).
set -e
cd "$(dirname "$0")/.."
build_only=0
if [ "${1:-}" = --build-only ]; then
  build_only=1
  shift
fi
which=${1:-all}
[ $# -gt 0 ] && shift
case "$which" in
  asan | tsan | all) ;;
  *)
    echo "test-sanitizers.sh: unknown suite '$which': use asan, tsan or all" >&2
    exit 2
    ;;
esac

status=0
summary=""

# suite NAME DIR SANITIZERS BUILD-TARGET CTEST-SELECTION...
suite() {
  name=$1 dir=$2 san=$3 target=$4
  shift 4
  t0=$(date +%s)
  echo "== $name: building $dir (TERN_SANITIZE=$san)"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTERN_SANITIZE="$san" >/dev/null
  cmake --build "$dir" -j"$(nproc)" --target "$target"
  t1=$(date +%s)
  if [ $build_only -eq 1 ]; then
    echo "== $name: build $((t1 - t0)) s"
    return
  fi
  echo "== $name: running the tests"
  rc=0
  (cd "$dir" && ctest --output-on-failure --timeout 600 -j2 "$@") || rc=$?
  t2=$(date +%s)
  line="$name: build $((t1 - t0)) s, tests $((t2 - t1)) s, $([ $rc -eq 0 ] && echo passed || echo FAILED)"
  echo "== $line"
  summary="$summary$line
"
  [ $rc -eq 0 ] || status=1
}

if [ "$which" = asan ] || [ "$which" = all ]; then
  # The 256-rank tests (label scale) and the 10^6-message floods (label
  # flood) are left out: 256 ASan processes on a small machine take
  # minutes and gigabytes of shadow memory, a flood ten times as long, and
  # they run no code path the rest of the suite (mp.am's shorter flood
  # included) does not.
  suite asan build-asan address,undefined all -LE "scale|flood" "$@"
fi
if [ "$which" = tsan ] || [ "$which" = all ]; then
  suite tsan build-tsan thread tern-threads-tests -L threads "$@"
fi
printf '== sanitizers:\n%s' "$summary"
exit $status
