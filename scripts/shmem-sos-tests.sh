#!/bin/bash
# Builds Sandia OpenSHMEM's test suite (a checkout of
# github.com/openshmem-org/tests-sos, which SOS runs as its `make check`)
# with Tern's oshcc/oshc++ and runs every program with oshrun in Tern's
# transport configurations (docs/shmem.md, "External test suites").
#
#   scripts/shmem-sos-tests.sh SOS_CHECKOUT OUT_DIR [BUILD_DIR]
#
# Env: CONFIGS (default "shm net mixed"; also net-pt and mixed-pt, with
# TERN_PROGRESS_THREAD=1: scripts/lib/shmem-suite.sh), NPES (2, as SOS's Makefiles and
# CI), TIMEOUT (seconds per run, 30), PROGS (only these, e.g.
# "unit__zero_comm dep__nop_collectives": builds and runs only these), NO_BUILD=1 (run what OUT_DIR/bin holds).
# Writes OUT_DIR/build.tsv (dir, program, ok/warn/error, first message),
# OUT_DIR/runs.tsv (program, config, PEs, pass/fail/crash/hang/skip, exit
# code, seconds, first error line), logs under OUT_DIR/build and OUT_DIR/run,
# and prints the counts. Programs are built one at a time as tests-sos's
# configure would in its standalone mode (-std=gnu11, -I test/include,
# -pthread and -fopenmp where its Makefile.am says); unit programs with a
# deprecated-API variant are built a second time with
# -DENABLE_DEPRECATED_TESTS (its --enable-deprecated-tests) as dep__NAME.
# test/shmemx is built too: every program there needs SOS's shmemx.h
# extensions, so its build errors are expected. Fortran is not built.
set -u
. "$(dirname "$0")/lib/shmem-suite.sh"
suite_args test/unit "$@"
T=$SUITE_DIR/test
CONFIGS=${CONFIGS:-shm net mixed}
NPES=${NPES:-2}
TIMEOUT=${TIMEOUT:-30}
mkdir -p "$OUT/bin" "$OUT/build" "$OUT/run"

# name dir lang flags sources...
build() {
    local name=$1 d=$2 lang=$3 fl=$4
    shift 4
    [ -z "${PROGS:-}" ] || grep -qw -- "$name" <<<"$PROGS" || return 0
    local srcs=() s
    for s in "$@"; do srcs+=("$T/$d/$s"); done
    local cc=$OSHCC std=-std=gnu11 log=$OUT/build/$name.log st
    [ "$lang" = cxx ] && cc=$OSHCXX std=
    # shellcheck disable=SC2086 # fl and std are lists of flags
    echo "$cc $std -O2 -I$T/include $fl ${srcs[*]} -o $OUT/bin/$name -lm" >"$log"
    # shellcheck disable=SC2086
    if $cc $std -O2 -I"$T/include" $fl "${srcs[@]}" -o "$OUT/bin/$name" -lm >>"$log" 2>&1; then
        st=ok
        grep -q 'warning:' "$log" && st=warn
    else
        st=error
        rm -f "$OUT/bin/$name"
    fi
    printf '%s\t%s\t%s\t%s\n' "$d" "$name" "$st" \
        "$(grep -m1 -E 'error|warning' "$log" | sed "s|$T/||g")" >>"$OUT/build.tsv"
}

# The programs of tests-sos's Makefile.am files (check_PROGRAMS, with
# pthreads, OpenMP, C++ and profiling enabled; not the Fortran ones, nor
# the MPI-hybrid ones of spec-example, which need SOS's PMI-MPI build).
UNIT_C="hello pi micro_unit_shmem circular_shift accessible_ping max_reduction
big_reduction to_all strided_put barrier bcast put1 get1 swap1 ping pingpong
shmalloc shmem_calloc shrealloc shmemalign get_g iput32 iput64 iput128
iput_short iput_double iput_float iput_long iput_longdouble iput_longlong sping
pingpong-short ipgm iput-iget swapm cswap waituntil atomic_inc set_lock
test_lock test_lock_cswap fcollect64 bigput bigget ns bcast_flood lfinc
shmem_info query_thread set_fetch alltoall alltoalls c11_test_shmem_g
c11_test_shmem_get c11_test_shmem_p c11_test_shmem_put c11_test_shmem_put_signal
c11_test_shmem_atomic_fetch c11_test_shmem_atomic_set c11_test_shmem_atomic_add
c11_test_shmem_atomic_inc c11_test_shmem_atomic_and c11_test_shmem_atomic_or
c11_test_shmem_atomic_xor c11_test_shmem_atomic_swap c11_test_shmem_atomic_cswap
c11_test_shmem_wait_until c11_test_shmem_wait_until_vector
c11_shmem_wait_until_all_any_some c11_test_shmem_test c11_shmem_test_vector
c11_shmem_test_all_any_some c11_shmem_team_collective_types
c11_shmem_team_reduce get_nbi put_nbi rma_coverage collect repeated_barriers
repeated_syncs broadcast_active_set reduce_active_set reduce_in_place
bcast_in_place collect_active_set atomic_bitwise nop_collectives
self_collectives zero_comm sync-size many-ctx shmem_test shmem_ptr
shmem_team_ptr shmem_malloc_with_hints put_signal put_signal_nbi signal_fetch
signal_wait_until shmem_team_b2b_collectives shmem_team_collect_active_set
shmem_team_max shmem_team_reuse_teams shmem_team_shared shmem_team_split_2d
shmem_team_translate shmem_team_reduce shmem_team_get_config
shmem_team_negative_stride shmem_ctx_get_team atomic_nbi fadd_nbi global_exit
pcontrol cxx_shmem_test_all"
UNIT_CXX="cxx_test_shmem_complex cxx_test_shmem_g cxx_test_shmem_get
cxx_test_shmem_p cxx_test_shmem_put cxx_test_shmem_atomic_fetch
cxx_test_shmem_atomic_set cxx_test_shmem_atomic_add cxx_test_shmem_atomic_inc
cxx_test_shmem_atomic_and cxx_test_shmem_atomic_or cxx_test_shmem_atomic_xor
cxx_test_shmem_atomic_swap cxx_test_shmem_atomic_cswap cxx_test_shmem_wait_until
cxx_test_shmem_test cxx_test_shmem_bitwise_reduce cxx_test_shmem_max_min_reduce
cxx_test_shmem_sum_prod_reduce"
UNIT_PTHREAD="mt_a2a mt_contention mt_membar threading web thread_wait"
SPEC="shmem_ctx_pipelined_reduce shmem_wait_until_all shmem_wait_until_any
shmem_wait_until_some shmem_wait_until_any_vector shmem_test_any
shmem_test_some shmem_team_split_strided shmem_team_split_2D
shmem_team_translate shmem_team_context shmem_team_broadcast
shmem_team_collect shmem_team_alltoall shmem_team_alltoalls shmem_team_sync
shmem_reduce_example"
SHMEMX_C="c11_test_shmem_ibput c11_test_shmem_ibget perf_counter
shmemx_team_node shmem_malloc_with_hints signal_add signal_set ex_scan in_scan
scan_in_place"
SHMEMX_CXX="cxx_test_shmem_g cxx_test_shmem_get cxx_test_shmem_ibget
cxx_test_shmem_p cxx_test_shmem_put cxx_test_shmem_ibput
cxx_test_shmem_atomic_fetch cxx_test_shmem_atomic_set cxx_test_shmem_atomic_add
cxx_test_shmem_atomic_inc cxx_test_shmem_atomic_and cxx_test_shmem_atomic_or
cxx_test_shmem_atomic_xor cxx_test_shmem_atomic_swap cxx_test_shmem_atomic_cswap
cxx_test_shmem_wait_until cxx_test_shmem_test"

if [ "${NO_BUILD:-0}" != 1 ]; then
    : >"$OUT/build.tsv"
    for p in $UNIT_C; do build "unit__$p" unit c "" "$p.c"; done
    build unit__rma_coverage_pshmem unit c -DTEST_PSHMEM rma_coverage.c
    for p in $UNIT_CXX; do build "unit__$p" unit cxx "" "$p.cpp"; done
    for p in $UNIT_PTHREAD; do build "unit__$p" unit c -pthread "$p.c"; done
    build unit__mt_lock_test unit c -pthread mt_lock_test.c mt_lock.c
    build unit__query_thread_funneled unit c -DENABLE_THREADS query_thread.c
    for f in $(grep -l ENABLE_DEPRECATED_TESTS "$T"/unit/*.c "$T"/unit/*.cpp); do
        p=$(basename "${f%.*}")
        grep -qw "$p" <<<"$UNIT_C $UNIT_CXX" || continue
        case $f in
            *.cpp) build "dep__$p" unit cxx -DENABLE_DEPRECATED_TESTS "$p.cpp" ;;
            *) build "dep__$p" unit c -DENABLE_DEPRECATED_TESTS "$p.c" ;;
        esac
    done
    for p in $SPEC; do build "spec-example__$p" spec-example c "" "$p.c"; done
    build spec-example__shmem_ctx spec-example c -fopenmp shmem_ctx.c
    build apps__binary-search apps c "" binary-search.c
    build apps__gups apps c "" gups.c
    build apps__mandelbrot apps c -pthread mandelbrot.c
    for p in $SHMEMX_C; do build "shmemx__$p" shmemx c -DENABLE_SHMEMX_TESTS "$p.c"; done
    build shmemx__gettid_register shmemx c "-pthread -DENABLE_SHMEMX_TESTS" gettid_register.c
    for p in $SHMEMX_CXX; do build "shmemx__$p" shmemx cxx -DENABLE_SHMEMX_TESTS "$p.cpp"; done
fi

progs=${PROGS:-$(ls "$OUT/bin")}
for cfg in $CONFIGS; do
    for p in $progs; do
        [ -x "$OUT/bin/$p" ] || continue # a build error
        log=$OUT/run/$p.$cfg.n$NPES.log
        suite_cmd "$cfg" "$NPES"
        cmd+=("$OUT/bin/$p")
        echo "${cmd[*]}" >"$log"
        suite_run "$TIMEOUT" "$log" "${cmd[@]}"
        case $rc in
            0) r=pass ;;
            77) r=skip ;;
            124 | 137) r=hang ;;
            *) if grep -qE 'killed by signal|Segmentation|core dumped' "$log"; then
                   r=crash
               else
                   r=fail
               fi ;;
        esac
        first=
        if [ $r != pass ]; then
            first=$(sed 1d "$log" | grep -m1 -iE 'error|fail|abort|signal|assert|mismatch|expected|wrong|invalid|unsupported' | cut -c1-200)
            [ -n "$first" ] || first=$(sed -n 2p "$log" | cut -c1-200)
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$cfg" "$NPES" $r $rc "$t" "$first" >>"$OUT/runs.tsv"
    done
done
echo "builds: $(cut -f3 "$OUT/build.tsv" | sort | uniq -c | tr -s ' \n' ' ')"
awk -F'\t' '{ n[$2 " n" $3 " " $4]++ } END { for (k in n) print k ": " n[k] }' "$OUT/runs.tsv" | sort
