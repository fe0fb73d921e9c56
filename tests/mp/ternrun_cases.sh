#!/bin/sh
# ternrun's behaviour when things go wrong, and its options:
#   ternrun_cases.sh CASE TERNRUN BOOT_PROGRAM
# Each case runs ternrun, then checks its exit status, its message, how long
# it took and that no process of the job is left. Exit 0 pass, 1 fail.
case_name=$1
TR=$2
PROG=$3
[ -x "$TR" ] && [ -x "$PROG" ] || { echo "usage: $0 CASE TERNRUN PROGRAM" >&2; exit 1; }
case $TR in /*) ;; *) TR=$PWD/$TR ;; esac # some cases change directory
case $PROG in /*) ;; *) PROG=$PWD/$PROG ;; esac
ulimit -c 0 2>/dev/null # the crash cases must not leave core files
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ternrun_cases.XXXXXX") || exit 1
pids=$tmp/pids
mkdir "$pids"
out=$tmp/out

cleanup() {
    for f in "$pids"/*.pid; do
        [ -e "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
    done
    rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
    echo "FAIL ($case_name): $*" >&2
    if [ -s "$out" ]; then
        echo "--- output:" >&2
        head -c 4000 "$out" >&2
    fi
    exit 1
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# run ARGS...: ternrun ARGS, bounded; output in $out; sets rc and ms.
run() {
    t0=$(now_ms)
    timeout -k 2 20 "$TR" "$@" >"$out" 2>&1
    rc=$?
    ms=$(($(now_ms) - t0))
    [ $rc -eq 124 ] && fail "ternrun $* hung (stopped by timeout after 20 s)"
    return 0
}
expect_rc() { [ "$rc" -eq "$1" ] || fail "exit status $rc, expected $1"; }
expect_fail() { [ "$rc" -ne 0 ] || fail "exit status 0, expected a failure"; }
# A rank that leaves without tern_finalize leaves the runtime's (and
# libfabric's) objects allocated on purpose; under AddressSanitizer the
# exit-time leak check would report them and turn its exit status into 1.
no_leak_check() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" run "$@"; }
expect_msg() { grep -Eq -- "$1" "$out" || fail "no line matching: $1"; }
expect_count() { # PATTERN N
    c=$(grep -Ec -- "$1" "$out")
    [ "$c" -eq "$2" ] || fail "$c lines matching '$1', expected $2"
}
# A bad command line: the error on one line, then the hint, not the usage.
expect_one_line_error() {
    expect_count '^usage:' 0
    expect_msg '^ternrun --help for the options$'
    [ "$(wc -l <"$out")" -eq 2 ] || fail "$(wc -l <"$out") lines for a bad command line, expected 2"
}
expect_within() { [ "$ms" -le "$1" ] || fail "took $ms ms, expected at most $1 ms"; }

alive() { # a running process, not a zombie
    [ -r "/proc/$1/stat" ] || return 1
    state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
    [ -n "$state" ] && [ "$state" != Z ]
}
# expect_none_left MIN: at least MIN pid files, and none of them alive. A
# SIGKILLed process may take a moment to vanish: up to 1 s is allowed.
expect_none_left() {
    n=0
    for f in "$pids"/*.pid; do
        [ -e "$f" ] || continue
        n=$((n + 1))
        p=$(cat "$f")
        i=0
        while alive "$p"; do
            i=$((i + 1))
            [ $i -gt 20 ] && fail "process $p ($(basename "$f" .pid).pid) is still alive after ternrun exited"
            sleep 0.05
        done
    done
    [ $n -ge "$1" ] || fail "only $n pid files written, expected at least $1"
}
# wait_files N: until N pid files exist (at most 10 s)
wait_files() {
    i=0
    while [ "$(ls "$pids" | grep -c '\.pid$')" -lt "$1" ]; do
        i=$((i + 1))
        [ $i -gt 200 ] && fail "the job did not start (fewer than $1 pid files)"
        sleep 0.05
    done
}

# Each rank's reported cpuset equals what the kernel lets it use, for
# bound ranks; COUNT report lines exist.
check_bindings() {
    expect_count '^ternrun: \[[^]]+\] rank [0-9]+: cpuset [0-9,-]+ \((core|PU|NUMA) [0-9]+|not bound\), NUMA [0-9,-]+, NIC [^ ]+$' "$1"
    grep -E '^ternrun: \[[^]]+\] rank [0-9]+: ' "$out" | while read -r line; do
        r=$(echo "$line" | sed -E 's/.* rank ([0-9]+): .*/\1/')
        set=$(echo "$line" | sed -E 's/.*: cpuset ([0-9,-]+) .*/\1/')
        case $line in *"(not bound)"*) continue ;; esac
        got=$(sed -n "s/^rank $r affinity //p" "$out")
        [ "$got" = "$set" ] || { echo "rank $r runs on '$got', reported '$set'"; exit 1; }
    done || fail "a rank does not run where --report-bindings says"
}

case $case_name in
crash)
    run -n 4 "$PROG" --pid-dir "$pids" --crash 1
    expect_rc 139
    expect_msg '^ternrun: rank 1 \(pid [0-9]+\) killed by signal 11 \(Segmentation fault\).*; ending the job$'
    expect_within 2000
    expect_none_left 4
    ;;
exit_code)
    run -n 4 "$PROG" --pid-dir "$pids" --exit 2 3
    expect_rc 3
    expect_msg '^ternrun: rank 2 \(pid [0-9]+\) exited with code 3; ending the job$'
    expect_within 2000
    expect_none_left 4
    ;;
no_fini)
    run -n 2 "$PROG" --pid-dir "$pids" --no-fini 1
    expect_rc 1
    expect_msg '^ternrun: rank 1 \(pid [0-9]+\) exited with code 0 after joining the job but without tern_finalize'
    expect_within 2000
    expect_none_left 2
    ;;
abort)
    run -n 3 "$PROG" --pid-dir "$pids" --abort 1 5
    expect_rc 5
    expect_msg '^ternrun: rank 1 \(pid [0-9]+\) aborted the job with code 5: ternrun_boot asked for this abort'
    expect_within 2000
    expect_none_left 3
    ;;
abort_then_crash | exit_then_crash)
    # A rank aborts (or exits with an error), and another dies of a signal
    # 50 ms later, as when a rank's transfer to a peer killed by a signal
    # fails before ternrun reaps the peer: the death is the cause named,
    # within ternrun's 0.2 s grace (TR_ERROR_GRACE_S).
    if [ "$case_name" = abort_then_crash ]; then
        run -n 3 "$PROG" --pid-dir "$pids" --abort 1 5 --crash 2 --crash-after 50
    else
        run -n 3 "$PROG" --pid-dir "$pids" --exit 1 3 --crash 2 --crash-after 50
    fi
    expect_rc 139
    expect_msg '^ternrun: rank 2 \(pid [0-9]+\) killed by signal 11 \(Segmentation fault\).*; ending the job$'
    expect_count '^ternrun: .*ending the job$' 1
    expect_within 2000
    expect_none_left 3
    ;;
abort_then_exit | abort_then_no_fini)
    # A rank aborts, and another exits without tern_finalize (with code 3,
    # or 0) 50 ms later, as when a rank's transfer to a peer that exited
    # fails before ternrun reaps the peer (shmem_long_get with PE 3 failed,
    # PE 3 having called exit(3) or returned from main): the exit is the
    # cause named, with its status, within TR_ERROR_GRACE_S.
    if [ "$case_name" = abort_then_exit ]; then
        run -n 3 "$PROG" --pid-dir "$pids" --abort 1 5 --exit 2 3 --exit-after 50
        expect_rc 3
        expect_msg '^ternrun: rank 2 \(pid [0-9]+\) exited with code 3; ending the job$'
    else
        run -n 3 "$PROG" --pid-dir "$pids" --abort 1 5 --no-fini 2 --no-fini-after 50
        expect_rc 1
        expect_msg '^ternrun: rank 2 \(pid [0-9]+\) exited with code 0 after joining the job but without tern_finalize; ending the job$'
    fi
    expect_count '^ternrun: .*ending the job$' 1
    expect_within 2000
    expect_none_left 3
    ;;
exit_then_no_fini)
    # A rank exits with an error, and another exits 0 without tern_finalize
    # 50 ms later, as when a rank returns from main without finalizing and
    # a peer whose get from it failed exits 1 before ternrun reaps it
    # (both were reaped in one batch, the survivor first): a rank does
    # not exit 0 without finalizing because a peer failed, so that exit is
    # the cause named.
    run -n 3 "$PROG" --pid-dir "$pids" --exit 1 3 --no-fini 2 --no-fini-after 50
    expect_rc 1
    expect_msg '^ternrun: rank 2 \(pid [0-9]+\) exited with code 0 after joining the job but without tern_finalize; ending the job$'
    expect_count '^ternrun: .*ending the job$' 1
    expect_within 2000
    expect_none_left 3
    ;;
failed_then_exit)
    # Rank 1 exits 1 having logged an error, rank 2 exits 3 50 ms later
    # with none, both saying so first (LEAVING): as a peer whose get from a
    # rank that called exit(3) failed, and which exited (and was reaped)
    # before that rank. Rank 2 is the cause named.
    run -n 3 "$PROG" --pid-dir "$pids" --fail-exit 1 1 --exit 2 3 --exit-after 50 --leaving
    expect_rc 3
    expect_msg '^ternrun: rank 2 \(pid [0-9]+\) exited with code 3; ending the job$'
    expect_count '^ternrun: .*ending the job$' 1
    expect_within 2000
    expect_none_left 3
    ;;
crash_then_kill)
    # Two deaths by different signals 50 ms apart, as when a survivor's
    # libfabric crashes (SIGSEGV in fi_cq_read) before ternrun reaps the
    # peer killed by SIGKILL: both are named, in the order reaped, the
    # first in the one-death form, the status from the first.
    run -n 4 "$PROG" --pid-dir "$pids" --crash 1 --kill 3 --kill-after 50
    expect_rc 139
    expect_msg '^ternrun: rank 1 \(pid [0-9]+\) killed by signal 11 \(Segmentation fault\).*; ending the job$'
    expect_msg '^ternrun: rank 1 \(pid [0-9]+\) killed by signal 11 \(Segmentation fault\); also rank 3 \(pid [0-9]+\) killed by signal 9 \(Killed\); ending the job$'
    expect_count '^ternrun: .*ending the job$' 1
    expect_within 2000
    expect_none_left 4
    ;;
dropped)
    run -n 3 "$PROG" --pid-dir "$pids" --drop 2
    expect_rc 1
    expect_msg '^ternrun: rank 2 \(pid [0-9]+\) closed its connection to ternrun without tern_finalize; ending the job$'
    expect_within 2000
    expect_none_left 3
    ;;
left_early)
    # rank 1 is not a Tern program: fine alone, but rank 0 waits for it
    run -n 2 sh -c '[ "$TERN_BOOT_RANK" = 1 ] && exit 0; exec "$0" "$@"' "$PROG" --pid-dir "$pids"
    expect_rc 1
    expect_msg '^ternrun: rank 1 \(pid [0-9]+\) exited without joining the job, while ranks 0 wait for it in bootstrap collective #1: every rank must call tern_init; ending the job$'
    expect_within 2000
    expect_none_left 1
    ;;
mismatch)
    run -n 3 "$PROG" --pid-dir "$pids" --mismatch 1
    expect_rc 1
    expect_msg 'ranks disagree in bootstrap collective #2: rank [0-9] contributed (8|9) bytes, others (8|9)'
    expect_none_left 3
    ;;
n0)
    run -n 0 "$PROG"
    expect_rc 2
    expect_msg "^ternrun: -n '0': the number of ranks must be an integer from 1"
    expect_one_line_error
    ;;
nabc)
    run -n abc "$PROG"
    expect_rc 2
    expect_msg "^ternrun: -n 'abc': the number of ranks must be an integer"
    run -n 3x "$PROG"
    expect_rc 2
    ;;
unknown_option)
    run --frobnicate -n 2 "$PROG"
    expect_rc 2
    expect_msg "^ternrun: unknown option '--frobnicate'"
    expect_one_line_error
    run "$PROG"
    expect_rc 2
    expect_msg 'the number of ranks is missing'
    run -n 2
    expect_rc 2
    expect_msg 'the program to run is missing'
    run -n 2 --bind-to socket "$PROG"
    expect_rc 2
    expect_msg "^ternrun: --bind-to 'socket': use core, l3, numa, package or none"
    ;;
missing_program)
    run -n 4 nosuchprog_ternrun_test
    expect_rc 127
    expect_count "^ternrun: cannot execute 'nosuchprog_ternrun_test': No such file or directory$" 1
    expect_within 2000
    ;;
no_init)
    TERN_BOOT_TIMEOUT=1 run -n 3 "$PROG" --pid-dir "$pids" --no-init 2
    expect_rc 1
    expect_msg '^ternrun: start-up did not finish within TERN_BOOT_TIMEOUT=1 s: rank 2 \(pid [0-9]+\) never reached tern_init while ranks 0-1 wait in tern_init; raise TERN_BOOT_TIMEOUT'
    [ "$ms" -ge 900 ] || fail "ended after $ms ms, before the 1 s timeout"
    expect_within 4000
    expect_none_left 3
    ;;
sigterm | sigint)
    sig=TERM code=143
    [ "$case_name" = sigint ] && sig=INT code=130
    # A shell starts background commands with SIGINT ignored, and ternrun
    # keeps an inherited "ignore"; env gives it the default back.
    env --default-signal=INT "$TR" -n 2 "$PROG" --pid-dir "$pids" --hang --helper >"$out" 2>&1 &
    trpid=$!
    wait_files 4
    sleep 0.3
    t0=$(now_ms)
    kill -$sig $trpid
    wait $trpid
    rc=$?
    ms=$(($(now_ms) - t0))
    expect_rc $code
    expect_msg "^ternrun: received signal [0-9]+ \((Terminated|Interrupt)\); passing it to the job"
    expect_within 2000
    expect_none_left 4
    ;;
launcher_killed)
    # SIGKILL leaves ternrun no chance to clean up: the ranks die of
    # PR_SET_PDEATHSIG, their helpers through the process-group holder.
    "$TR" -n 2 "$PROG" --pid-dir "$pids" --hang --helper >"$out" 2>&1 &
    trpid=$!
    wait_files 4
    sleep 0.3
    kill -9 $trpid
    wait $trpid
    expect_none_left 4
    ;;
launcher_gone)
    # Ranks that escaped the job's group and session (setsid) outlive a
    # SIGKILLed ternrun: rank 0, waiting in start-up for rank 1, must fail
    # with a message rather than hang.
    "$TR" -n 2 sh -c 'setsid "$0" --pid-dir "$1" --no-init 1 2>"$1/err.$TERN_BOOT_RANK" & wait' \
        "$PROG" "$pids" >"$out" 2>&1 &
    trpid=$!
    wait_files 2
    sleep 0.5
    kill -9 $trpid
    wait $trpid
    out=$pids/err.0
    p0=$(cat "$pids/0.pid")
    i=0
    while alive "$p0"; do
        i=$((i + 1))
        [ $i -gt 60 ] && fail "rank 0 still waits 3 s after ternrun died"
        sleep 0.05
    done
    expect_msg 'the launcher \(ternrun\) closed the connection'
    expect_msg 'bootstrap failed'
    ;;
no_launcher)
    TERN_BOOT_ADDR=unix:@tern-no-such-job TERN_BOOT_RANK=0 TERN_BOOT_SIZE=2 \
        TERN_BOOT_JOBID=x "$PROG" >"$out" 2>&1
    rc=$?
    expect_rc 1
    expect_msg 'cannot reach ternrun at unix:@tern-no-such-job: Connection refused'
    TERN_BOOT_ADDR=unix:@tern-x TERN_BOOT_RANK=abc TERN_BOOT_SIZE=2 \
        TERN_BOOT_JOBID=x "$PROG" >"$out" 2>&1
    rc=$?
    expect_rc 1
    expect_msg "TERN_BOOT_RANK='abc' is not an integer"
    ;;
report_bindings)
    run -n 2 --report-bindings "$PROG" --affinity
    expect_rc 0
    check_bindings 2
    # more ranks than cores: not bound by default, and told why
    n=$(($(nproc) + 1))
    run -n $n --report-bindings "$PROG" --affinity
    expect_rc 0
    check_bindings $n
    expect_count '\(not bound\)' $n
    expect_msg "^ternrun: not binding \(default\): $n ranks but only [0-9]+ cores"
    run -n $n --bind-to core --oversubscribe --report-bindings "$PROG" --affinity
    expect_rc 0
    check_bindings $n
    expect_count '\((core|PU) [0-9]+\)' $n
    run -n 2 --bind-to none --report-bindings "$PROG" --affinity
    expect_rc 0
    expect_count '\(not bound\)' 2
    ;;
bind_numa)
    run -n 2 --bind-to numa --report-bindings "$PROG" --affinity
    expect_rc 0
    check_bindings 2
    expect_count '\(NUMA [0-9]+\)' 2
    ;;
tag_output)
    # 3 ranks each write 200 long lines to stdout and 50 to stderr at the
    # same time, then a last line without newline: every line must come
    # out whole, with its own rank's prefix, on the right stream.
    script='r=$TERN_BOOT_RANK; l=$(printf "%0300d" 0 | tr 0 "$r")
i=0; while [ $i -lt 200 ]; do echo "$l"; [ $((i % 4)) = 0 ] && echo "err $r" >&2; i=$((i+1)); done
printf "tail$r"'
    timeout 20 "$TR" -n 3 --tag-output sh -c "$script" >"$tmp/o" 2>"$tmp/e"
    rc=$?
    cat "$tmp/o" "$tmp/e" >"$out"
    expect_rc 0
    for r in 0 1 2; do
        c=$(grep -Ec "^\[$r\] ${r}{300}$" "$tmp/o")
        [ "$c" -eq 200 ] || fail "$c whole stdout lines of rank $r, expected 200"
        c=$(grep -Ec "^\[$r\] err $r$" "$tmp/e")
        [ "$c" -eq 50 ] || fail "$c stderr lines of rank $r, expected 50"
        grep -Eq "^\[$r\] tail$r$" "$tmp/o" || fail "last line of rank $r (no newline) lost"
    done
    [ "$(wc -l <"$tmp/o")" -eq 603 ] || fail "stdout has $(wc -l <"$tmp/o") lines, expected 603"
    [ "$(wc -l <"$tmp/e")" -eq 150 ] || fail "stderr has $(wc -l <"$tmp/e") lines, expected 150"
    ;;
helper_killed)
    run -n 2 "$PROG" --pid-dir "$pids" --helper --crash 1
    expect_rc 139
    expect_none_left 4
    rm -f "$pids"/*.pid
    run -n 2 "$PROG" --pid-dir "$pids" --helper
    expect_rc 0
    expect_none_left 4
    ;;
startup_fast)
    # 16 ranks on however few cores: best of three runs under 1 s
    best=999999
    for i in 1 2 3; do
        run -n 16 "$PROG"
        expect_rc 0
        [ "$ms" -lt "$best" ] && best=$ms
    done
    echo "ternrun -n 16 of the boot test: best $best ms"
    [ "$best" -le 1000 ] || fail "ternrun -n 16 took $best ms at best, expected at most 1000 ms"
    ;;
nodes)
    run -n 4 --nodes 2 "$PROG" --nodes 2
    expect_rc 0
    run -n 5 --nodes 3 "$PROG" --nodes 3
    expect_rc 0
    # the check itself must be able to fail: one node where 2 are expected
    run -n 4 "$PROG" --nodes 2
    expect_rc 1
    expect_msg 'check failed: same_block == same_key'
    run -n 2 --nodes 3 "$PROG"
    expect_rc 2
    ;;
np)
    # -np N, as Open MPI's and MPICH's mpirun take it
    run -np 3 "$PROG"
    expect_rc 0
    run -np 2 --nodes 2 "$PROG" --nodes 2
    expect_rc 0
    run -np
    expect_rc 2
    expect_msg '^ternrun: option -np needs a value$'
    expect_one_line_error
    run -np 0 "$PROG"
    expect_rc 2
    expect_msg "^ternrun: -n '0'"
    expect_one_line_error
    # "-n p" is still a bad count, not -np
    run -n p "$PROG"
    expect_rc 2
    expect_msg "^ternrun: -n 'p'"
    ;;
version)
    run --version
    expect_rc 0
    expect_msg '^ternrun \(Tern\) [0-9]+\.[0-9]+\.[0-9]+$'
    expect_count . 1
    ;;
bad_values)
    # every bad value or option: one line and the hint
    for args in "-n 0 true" "-n abc true" "--frobnicate -n 2 true" "-n 2 --bind-to socket true" \
        "-n 2 --map-by diagonal true" "-n 2 --nodes 0 true" "-n 2 --nodes 3 true" \
        "-n 2" "true" "-n"; do
        # shellcheck disable=SC2086
        run $args
        expect_rc 2
        expect_one_line_error
    done
    # nothing at all: the whole usage
    run
    expect_rc 2
    expect_msg '^usage: ternrun -n N'
    # a socket directory that does not exist: the message names it and
    # the variable
    TERN_BOOT_SOCKET_DIR=$tmp/no/such/dir run -n 2 "$PROG"
    expect_fail
    expect_msg "TERN_BOOT_SOCKET_DIR=$tmp/no/such/dir: No such file"
    ;;
cwd_program)
    # A program in the current directory named without ./ runs when no
    # command of that name is in PATH (as mpirun does); PATH comes first.
    mkdir "$tmp/cwd" "$tmp/bin"
    printf '#!/bin/sh\necho "local $TERN_BOOT_RANK"\n' >"$tmp/cwd/tern_cwd_prog"
    chmod +x "$tmp/cwd/tern_cwd_prog"
    cp "$PROG" "$tmp/cwd/"
    (cd "$tmp/cwd" && run -n 2 tern_cwd_prog && echo "rc=$rc" >>"$out") || exit 1
    expect_msg '^rc=0$'
    expect_count '^local [01]$' 2
    (cd "$tmp/cwd" && run -n 2 "$(basename "$PROG")" && echo "rc=$rc" >>"$out") || exit 1
    expect_msg '^rc=0$'
    printf '#!/bin/sh\necho "from path"\n' >"$tmp/bin/tern_cwd_prog"
    chmod +x "$tmp/bin/tern_cwd_prog"
    (cd "$tmp/cwd" && PATH=$tmp/bin:$PATH run -n 2 tern_cwd_prog && echo "rc=$rc" >>"$out") ||
        exit 1
    expect_msg '^rc=0$'
    expect_count '^from path$' 2
    expect_count '^local' 0
    # not executable here: still "cannot execute", exit 127
    chmod -x "$tmp/cwd/tern_cwd_prog"
    (cd "$tmp/cwd" && run -n 2 tern_cwd_prog && echo "rc=$rc" >>"$out") || exit 1
    expect_msg '^rc=127$'
    expect_msg "^ternrun: cannot execute 'tern_cwd_prog'"
    ;;
nodes_report)
    # how the ranks were split over simulated nodes: with --report-bindings,
    # --dry-run or TERN_VERBOSE=1; not otherwise
    run -n 5 --nodes 3 --report-bindings "$PROG" --nodes 3
    expect_rc 0
    expect_msg '^ternrun: 5 ranks on 3 simulated nodes \(--nodes 3\): [^ ]+#0 ranks 0-1, [^ ]+#1 ranks 2-3, [^ ]+#2 rank 4$'
    run -n 4 --nodes 2 --dry-run
    expect_rc 0
    expect_msg '^ternrun: 4 ranks on 2 simulated nodes \(--nodes 2\): [^ ]+#0 ranks 0-1, [^ ]+#1 ranks 2-3$'
    TERN_VERBOSE=1 run -n 3 --nodes 3 "$PROG" --nodes 3
    expect_rc 0
    expect_msg '^ternrun: 3 ranks on 3 simulated nodes \(--nodes 3\): [^ ]+#0 rank 0, [^ ]+#1 rank 1, [^ ]+#2 rank 2$'
    run -n 4 --nodes 2 "$PROG" --nodes 2
    expect_rc 0
    expect_count 'simulated nodes' 0
    ;;
non_tern)
    run -n 3 true
    expect_rc 0
    expect_within 2000
    run -n 2 sh -c 'exit $TERN_BOOT_RANK'
    expect_rc 1
    expect_msg '^ternrun: rank 1 \(pid [0-9]+\) exited with code 1; ending the job$'
    ;;
tern_ok)
    run -n 4 "$PROG" --pid-dir "$pids"
    expect_rc 0
    expect_msg '^ternrun_tern: PASS$'
    expect_none_left 4
    ;;
tern_crash)
    run -n 4 "$PROG" --pid-dir "$pids" --crash 2
    expect_rc 139
    expect_msg '^ternrun: rank 2 \(pid [0-9]+\) killed by signal 11 \(Segmentation fault\).*; ending the job$'
    expect_within 2000
    expect_none_left 4
    ;;
tern_abort)
    run -n 3 "$PROG" --pid-dir "$pids" --abort 0 7
    expect_rc 7
    expect_msg '^ternrun: rank 0 \(pid [0-9]+\) aborted the job with code 7: ternrun_tern asked for this abort'
    expect_within 2000
    expect_none_left 3
    ;;
tern_exit_mid)
    # Over the network, rank 3 calls exit(3) while the others get from it
    # in a loop and exit 1 when a get fails: whichever ternrun reaps
    # first, rank 3 is named (it told ternrun it was leaving, with no error
    # logged, before its endpoints closed). Rank 3 then waits in its exit
    # handler, its endpoints open, until ternrun ends it (SIGTERM, or
    # SIGKILL after the grace), so that no survivor's write to it fails;
    # an exit of its own would show as status 0x300. Five jobs.
    for i in 1 2 3 4 5; do
        TERN_SHM=off TERN_VERBOSE=2 no_leak_check -n 4 "$PROG" --pid-dir "$pids" \
            --exit-mid 3 3
        expect_rc 3
        expect_msg '^ternrun: rank 3 \(pid [0-9]+\) exited with code 3; ending the job$'
        expect_msg '^ternrun: rank 3 \(pid [0-9]+\) ended, status 0x(f|9)$'
        expect_within 4000
        expect_none_left 4
    done
    ;;
tern_no_final)
    no_leak_check -n 3 "$PROG" --pid-dir "$pids" --no-final 1
    expect_rc 1
    expect_msg '^ternrun: rank 1 \(pid [0-9]+\) exited with code 0 after joining the job but without tern_finalize'
    expect_within 2000
    expect_none_left 3
    ;;
tern_no_init)
    TERN_BOOT_TIMEOUT=1 run -n 3 "$PROG" --pid-dir "$pids" --no-init 1
    expect_rc 1
    expect_msg '^ternrun: start-up did not finish within TERN_BOOT_TIMEOUT=1 s: rank 1 \(pid [0-9]+\) never reached tern_init'
    expect_within 4000
    expect_none_left 3
    ;;
*)
    echo "ternrun_cases.sh: unknown case '$case_name'" >&2
    exit 1
    ;;
esac
exit 0
