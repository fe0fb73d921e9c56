#!/bin/bash
# Builds Mellanox/NVIDIA's OpenSHMEM verification suite (a checkout of
# github.com/openshmem-org/tests-mellanox: one program, oshmem_test, of many
# test cases) with Tern's oshcc and runs each test case alone with oshrun in
# Tern's transport configurations (docs/shmem.md, "External test suites").
#
#   scripts/shmem-mellanox-tests.sh MLX_CHECKOUT OUT_DIR [BUILD_DIR]
#
# Env: CONFIGS (default "shm net mixed"; also net-pt and mixed-pt, the same
# with TERN_PROGRESS_THREAD=1), NPES ("2 4"), TIMEOUT (seconds per run, 60),
# CASES (a Perl regex over SUITE:tcN, default every case but the analysis
# suite, which the suite's --task=all ignores), ACTIVE_SETS (1: build with
# the suite's --enable-active-sets, -DCHECK_ACTIVE_SET, so that only the
# active set's PEs call the active-set reductions, as 1.6 requires; 0: as
# its default configure), MPI_INC (a directory with mpi.h: two nbi files
# include it without calling MPI; default Open MPI's), NO_BUILD=1.
# The build is the one of its Makefile.am with what its configure finds in a
# complete OpenSHMEM 1.5 library (-DHAVE_NBI, the alltoall cases, every
# HAVE_DECL_*), without the mix suite (MPI). Writes OUT_DIR/build.log,
# OUT_DIR/runs.tsv (case, name, config, PEs, pass/fail/warn/hang, exit
# code, seconds, first error line), logs under OUT_DIR/run, and prints the
# counts per configuration and PE count.
set -u
. "$(dirname "$0")/lib/shmem-suite.sh"
suite_args verifier/osh_main.c "$@"
V=$SUITE_DIR/verifier
CONFIGS=${CONFIGS:-shm net mixed}
NPES=${NPES:-2 4}
TIMEOUT=${TIMEOUT:-60}
CASES=${CASES:-'[a-z]+:tc\d+'}
MPI_INC=${MPI_INC:-/usr/lib/x86_64-linux-gnu/openmpi/include}
BIN=$OUT/oshmem_test
mkdir -p "$OUT/obj" "$OUT/run"

if [ "${NO_BUILD:-0}" != 1 ]; then
    # the config.h its configure would write for a complete library
    {
        echo '#define HAVE_UNISTD_H 1'
        for t in UINT ULONG ULONGLONG; do
            for op in AND OR XOR; do
                echo "#define HAVE_DECL_SHMEM_${t}_ATOMIC_FETCH_${op} 1"
                echo "#define HAVE_DECL_SHMEM_${t}_ATOMIC_${op} 1"
            done
        done
    } >"$OUT/config.h"
    as=
    [ "${ACTIVE_SETS:-1}" = 1 ] && as=-DCHECK_ACTIVE_SET
    srcs=$(sed -n '/^oshmem_test_SOURCES = /,/^$/p' "$V/Makefile.am" | grep -o '[a-z/_0-9]*\.c')
    srcs="$srcs nbi/osh_nbi_tc1.c nbi/osh_nbi_tc2.c coll/osh_coll_tc11.c coll/osh_coll_tc12.c"
    : >"$OUT/build.log"
    objs=()
    ok=1
    for s in $srcs; do
        o=$OUT/obj/$(tr / _ <<<"$s").o
        inc=()
        case $s in nbi/*) inc=(-I"$MPI_INC") ;; esac
        # shellcheck disable=SC2086 # as is one flag or none
        "$OSHCC" -g -O2 -Wall -Wundef -DHAVE_NBI $as "${inc[@]}" -I"$OUT" -I"$V" -I"$V/cmn" \
            -c "$V/$s" -o "$o" >>"$OUT/build.log" 2>&1 || ok=0
        objs+=("$o")
    done
    "$OSHCC" -g -O2 "${objs[@]}" -o "$BIN" -lm >>"$OUT/build.log" 2>&1 || ok=0
    [ $ok = 1 ] || { echo "$0: build failed, see $OUT/build.log" >&2; exit 1; }
    echo "build: $(grep -c 'warning:' "$OUT/build.log") warnings"
fi

# SUITE:tcN and name of every case, from the list the program prints (on stderr)
timeout 60 "$OSHRUN" -np 1 "$BIN" exec --info=case 2>&1 |
    awk '/^   [a-z]/ { s = $1 }
         /^      / { match($0, /\(tc[0-9]+/); print s ":" substr($0, RSTART + 1, RLENGTH - 1) "\t" $1 }' |
    grep -v '^analysis:' | grep -P "^($CASES)\t" >"$OUT/cases.tsv"
[ -s "$OUT/cases.tsv" ] || { echo "$0: no test case matches '$CASES'" >&2; exit 1; }

: >"$OUT/runs.tsv"
for cfg in $CONFIGS; do
    for n in $NPES; do
        suite_cmd "$cfg" "$n"
        while IFS=$'\t' read -r tc name; do
            log=$OUT/run/${tc/:/_}.$cfg.n$n.log
            : >"$log"
            suite_run "$TIMEOUT" "$log" "${cmd[@]}" "$BIN" exec --task="$tc" --no-colour
            # the case's result line: PASS, FAIL, WARN (setup failed) or SKIP
            word=$(grep -m1 -oE "^(PASS|FAIL|WARN|SKIP|NONE) +${tc%%:*} " "$log" | awk '{ print $1 }')
            if [ $rc = 124 ] || [ $rc = 137 ]; then
                st=hang
            elif [ $rc = 0 ] && [ -n "$word" ]; then
                st=$(tr 'A-Z' 'a-z' <<<"$word")
            else
                st=fail
            fi
            err=
            [ "$st" = pass ] || err=$(grep -m1 -iE 'error|abort|fail' "$log" | cut -c1-160)
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tc" "$name" "$cfg" "$n" "$st" "$rc" \
                "$t" "$err" >>"$OUT/runs.tsv"
        done <"$OUT/cases.tsv"
        echo "$cfg n$n: $(awk -F'\t' -v c="$cfg" -v n="$n" '$3 == c && $4 == n { t++; r[$5]++ }
            END { s = ""; for (k in r) s = s " " k " " r[k]; print t " cases:" s }' "$OUT/runs.tsv")"
    done
done
