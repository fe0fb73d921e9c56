#!/bin/sh
# Builds Tern with sanitizers and runs the tests under them:
#   asan  AddressSanitizer (with LeakSanitizer) + UndefinedBehaviorSanitizer,
#         the whole suite but what is listed below, in build-asan/
#   tsan  ThreadSanitizer, the tests labelled "threads" (several threads in a
#         rank: TERN_THREAD_MULTIPLE, the progress thread) but the floods
#         (label flood), in build-tsan/
# Any finding fails the test that made it (see cmake/sanitize.cmake; the
# suppressions for third-party libraries are in tests/sanitizers/).
#
# usage: scripts/test-sanitizers.sh [--build-only] [asan|tsan|all]
#        [ctest arguments...]
# (default: all). --build-only builds the trees and runs no test (.ci/run
# builds them this way while the plain suite runs). TEST_JOBS tests at a
# time (default 3 for asan, as scripts/test.sh: every 8th test of its
# selection, alternated, 56.8 and 57.8 s at 2, 44.5 and 45.6 s at 3;
# 2 for tsan: without the floods, 107.8 and 110.5 s at 2 against 112.3
# and 113.8 s at 3 in one sitting; docs/design/ci-time.md). Needs what
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

# Instrumented runs repeat less: the am_order tests send 3 x 10^4 numbered
# Requests per pair instead of 10^5 (what their threaded variants send in
# every build), which still crosses the credit-exhaustion sleeps and the
# big Longs many times. A sanitizer finds a bad access or race the first
# time it happens; the plain suite keeps the long runs for rare orders.
# Under TSan (which runs all 15 of them) 71 s -> 38 s; ASan 21 -> 12 s.
TEST_ORDER_COUNT=${TEST_ORDER_COUNT:-30000}
export TEST_ORDER_COUNT

status=0
summary=""

# suite NAME DIR SANITIZERS BUILD-TARGET JOBS CTEST-SELECTION...
suite() {
  name=$1 dir=$2 san=$3 target=$4 jobs=$5
  shift 5
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
  (cd "$dir" && ../scripts/mask-kallsyms.sh ctest --output-on-failure --timeout 600 -j"$jobs" "$@") ||
    rc=$?
  t2=$(date +%s)
  line="$name: build $((t1 - t0)) s, tests $((t2 - t1)) s, $([ $rc -eq 0 ] && echo passed || echo FAILED)"
  echo "== $line"
  summary="$summary$line
"
  [ $rc -eq 0 ] || status=1
}

if [ "$which" = asan ] || [ "$which" = all ]; then
  # Left out, as they run no code path the rest of the suite does not:
  # - the 256-rank tests (label scale) and the 10^6-message floods (label
  #   flood): 256 ASan processes on a small machine take minutes and
  #   gigabytes of shadow memory, a flood ten times as long (mp.am's
  #   shorter flood stays);
  # - network and mixed runs of 8 ranks and more: the same programs run
  #   at 2-4 ranks (and 7, for the collectives' uneven trees), and on shm
  #   at every count; 8 and 16 ASan ranks on 2 cores took a quarter of
  #   the suite's time;
  # - mixed runs of 2 ranks: two simulated nodes of one rank each, so no
  #   rank has a node peer and every transfer takes the network path that
  #   the same program's net run takes (a node of one rank with shared
  #   memory on: the shm n1 runs); mixed at 3 and 4 ranks stays;
  # - mp.bench_bounded_*: they check that benchmark rows keep to their
  #   time bound, which ASan's slowdown makes meaningless; the same
  #   subcommands run under ASan in mp.bench_*;
  # - network runs of 1 rank: with no peer the network transport is never
  #   created (libfabric is not even loaded), so the job runs the self path
  #   of the same program's shm run of 1 rank; what TERN_SHM=off changes
  #   in it (each rank a node of its own, core/nodes.c) runs in every
  #   network test of 2 ranks and more;
  # - mixed runs of 4 ranks of the programs below, which also run mixed at 3
  #   (nodes {0,1} and {2}: node peers and network peers already): each
  #   gives every rank the same kind of peer in its roles at 3 as at 4
  #   (right and left neighbours, rank 0 and rank n-1 as targets, the
  #   writer/target/observer of put_flush), and none calls a collective
  #   that mp.coll.mixed.n4 does not run (static_data's broadcast from
  #   rank n-1: mp.coll broadcasts from every root);
  # - the OpenSHMEM programs' shm and net runs of 3 ranks, which also run
  #   at 2 and 4: the layer (src/shmem) branches on whether the job spans
  #   nodes and which PEs are mapped, not on the PE count, and the core's
  #   odd-count paths run in the mp.* tests of 3 ranks. The collectives
  #   (shmem.coll, aset, globals) and global_exit keep every count; so do
  #   the collectives' mixed runs of 4 (2x2 nodes: every leader has a
  #   member) and mp.signal_msg's (at 3 its pairs never cross nodes).
  #   Each dropped test and why: docs/design/ci-time.md, eleventh round.
  # - the OpenSHMEM programs built by oshcc and started by mpirun or srun,
  #   but for shmem.mpirun_oshcc_coll in each configuration: the rma and amo
  #   programs run under ASan through oshrun (shmem.{rma,amo}.*), and what
  #   mpirun and PMIx change is the bootstrap in shmem_init, the same for
  #   every program (mpirun_oshcc_coll); Slurm's PMIx runs in mp.slurm_*
  #   (and the rma and amo programs' oshcc builds, which only they need).
  #   docs/design/ci-time.md, thirteenth round.
  shmem_p2p='setup|alloc|rma|ctx|p2p|amo|amo_am|signal|lock|lock_am|spin|spin_am|session|profile|profile_static'
  suite asan build-asan address,undefined all "${TEST_JOBS:-3}" -LE "scale|flood" \
    -E '\.(net|mixed)\.n([89]|[1-9][0-9]+)$|\.mixed\.n2$|\.net\.n1$|^mp\.bench_bounded_'"|^mp\\.(amo_combine|amo_mailbox|put_flush|wait_mixed|wait_mixed_pt|static_data)\\.mixed\\.n4\$|^shmem\\.($shmem_p2p)\\.(mixed\\.n4|(shm|net)\\.n3)\$|^shmem\\.(mpirun_oshcc_(rma|amo)\\.|srun_oshcc_coll\\.|oshcc_build\\.(rma|amo)\$)" "$@"
fi
if [ "$which" = tsan ] || [ "$which" = all ]; then
  # Left out: mp.am_flood_pt (label flood; 2 x 10^5 Short Requests in a job
  # of 8 ranks with the progress thread, 13-16 s each). Each rank there
  # floods its right neighbour only, as in mp.am_pt (the same program with
  # the progress thread, 2 and 3 ranks, every configuration), which sends
  # 10^5 per job: more per sender (5 x 10^4 at 2 ranks) than the 8-rank
  # flood (2.5 x 10^4), with the same two threads per rank on each side.
  suite tsan build-tsan thread tern-threads-tests "${TEST_JOBS:-2}" -L threads -LE flood "$@"
fi
printf '== sanitizers:\n%s' "$summary"
exit $status
