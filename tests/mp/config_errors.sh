#!/bin/sh
# Bad configuration gives a clear error naming the variable, the job ends
# promptly, nothing is left running; tern-info -c, the pre-flight check,
# agrees with tern_init on every value tried.
# Usage: config_errors.sh TERNRUN HELLO TERN_INFO
ternrun=$1 hello=$2 info=$3
fail() { echo "config_errors: FAIL: $*"; exit 1; }

# expect_fail "ENV=..." "needle" : runs 2 ranks, wants a non-zero exit
# within 20 s and the needle in the output.
expect_fail() {
  out=$(env $1 timeout 20 "$ternrun" -n 2 "$hello" 2>&1); rc=$?
  [ $rc -eq 124 ] && fail "$1: job hung"
  [ $rc -eq 0 ] && fail "$1: job succeeded"
  echo "$out" | grep -q -- "$2" || fail "$1: output lacks '$2': $out"
  echo "ok: $1 -> $(echo "$out" | grep -m1 -- "$2")"
}

expect_fail TERN_SEGMENT_SIZE=abc "TERN_SEGMENT_SIZE='abc' is not a size"
# Numbers are digits (sizes with a unit K/M/G/T, or a percentage): strtod
# took exponents, hexadecimal and spaces (review18: TERN_SEGMENT_SIZE=1e3
# ran with a 1000-byte segment), strtol a leading space or '+'. Each kind
# of variable: trailing garbage, empty, negative, past its type's range.
# VALUE may hold spaces: expect_bad VAR VALUE NEEDLE.
expect_bad() {
  out=$(env "$1=$2" timeout 20 "$ternrun" -n 2 "$hello" 2>&1); rc=$?
  [ $rc -eq 124 ] && fail "$1='$2': job hung"
  [ $rc -eq 0 ] && fail "$1='$2': job succeeded"
  echo "$out" | grep -qF -- "$3" || fail "$1='$2': output lacks '$3': $out"
  echo "ok: $1='$2' -> $(echo "$out" | grep -m1 -F -- "$3")"
}
expect_bad TERN_SEGMENT_SIZE 1e3 "TERN_SEGMENT_SIZE='1e3' is not a size"
expect_bad TERN_SEGMENT_SIZE 0x1000000 "TERN_SEGMENT_SIZE='0x1000000' is not a size"
expect_bad TERN_SEGMENT_SIZE " 64M" "TERN_SEGMENT_SIZE=' 64M' is not a size"
expect_bad TERN_SEGMENT_SIZE "64M " "TERN_SEGMENT_SIZE='64M ' is not a size"
expect_bad TERN_SEGMENT_SIZE 1.5M "TERN_SEGMENT_SIZE='1.5M' is not a size"
expect_bad TERN_SEGMENT_SIZE "" "TERN_SEGMENT_SIZE='' is not a size"
expect_bad TERN_SEGMENT_SIZE 99999999999999999999T "TERN_SEGMENT_SIZE='99999999999999999999T' is too large"
expect_bad TERN_COLL_EAGER 16Kx "TERN_COLL_EAGER='16Kx' is not a size"
expect_bad TERN_SPIN_COUNT 1e3 "TERN_SPIN_COUNT='1e3' is not a non-negative integer"
expect_bad TERN_SPIN_COUNT " 5" "TERN_SPIN_COUNT=' 5' is not a non-negative integer"
expect_bad TERN_SPIN_COUNT +5 "TERN_SPIN_COUNT='+5' is not a non-negative integer"
expect_bad TERN_SPIN_COUNT -1 "TERN_SPIN_COUNT='-1' is not a non-negative integer"
expect_bad TERN_SPIN_COUNT "" "TERN_SPIN_COUNT='' is not a non-negative integer"
expect_bad TERN_SPIN_COUNT 99999999999999999999 "TERN_SPIN_COUNT='99999999999999999999' is out of range"
expect_bad TERN_BOOT_TIMEOUT 1e3 "TERN_BOOT_TIMEOUT='1e3' is not a non-negative number"
expect_bad TERN_BOOT_TIMEOUT " 60" "TERN_BOOT_TIMEOUT=' 60' is not a non-negative number"
expect_bad TERN_BOOT_TIMEOUT 0x10 "TERN_BOOT_TIMEOUT='0x10' is not a non-negative number"
expect_bad TERN_SHM " 1" "TERN_SHM=' 1' is not a boolean"
expect_bad TERN_SHM "" "TERN_SHM='' is not a boolean"
expect_bad TERN_WAIT_MODE "spin " "TERN_WAIT_MODE='spin ' is not one of"
expect_bad TERN_SEGMENT_NUMA "bind: 0" "TERN_SEGMENT_NUMA='bind: 0': bind needs a NUMA domain number"
expect_fail TERN_SEGMENT_SIZE=0 "TERN_SEGMENT_SIZE=0"
expect_fail TERN_SEGMENT_SIZE=100T "lower TERN_SEGMENT_SIZE"
expect_fail TERN_SEGMENT_SIZE=150% "lower TERN_SEGMENT_SIZE"
expect_fail TERN_WAIT_MODE=sometimes "is not one of auto|spin|yield|block"
expect_fail TERN_HUGEPAGES=maybe "TERN_HUGEPAGES='maybe'"
expect_fail TERN_BOOT_TIMEOUT=soon "TERN_BOOT_TIMEOUT='soon' is not a"
expect_fail TERN_OFI_ATOMICS=0 "TERN_OFI_ATOMICS='0' is not one of auto|net|am"
expect_fail TERN_ORDER=relaxed "TERN_ORDER='relaxed' is not one of strict|partial|none"
expect_fail TERN_OFI_PUT_BOUNCE=lots "TERN_OFI_PUT_BOUNCE='lots' is not a size"
expect_fail TERN_SIGNAL_MSG_MAX=big "TERN_SIGNAL_MSG_MAX='big' is not a size"
# 2^64 - 4096: the team pool's sum wrapped, the world ring ran past it.
expect_fail "TERN_SHM=off TERN_COLL_WORLD_RING=18446744073709547520" "TERN_COLL_WORLD_RING=18446744073709547520 is above 1099511627776 (1 TiB): lower TERN_COLL_WORLD_RING"
expect_fail TERN_COLL_WORLD_RING=2T "TERN_COLL_WORLD_RING=2199023255552 is above"
# A wide record of the collectives is kept on the stack: at most 2 KiB.
expect_fail TERN_COLL_WIDE_MAX=4K "TERN_COLL_WIDE_MAX=4096 is above 2048"
# Network fragments and broadcast chunks of a few bytes: a job crawled
# (TERN_OFI_MAX_MSG=1 or TERN_COLL_PIPE_CHUNK=1: mp_coll over the network,
# 4 ranks, over 40 s; TERN_COLL_XCHG_PIECE=1: 18.9 s); at least 1K.
expect_fail "TERN_SHM=off TERN_OFI_MAX_MSG=1" "TERN_OFI_MAX_MSG=1 is below 1024: .*raise TERN_OFI_MAX_MSG"
expect_fail TERN_OFI_MAX_MSG=1023 "TERN_OFI_MAX_MSG=1023 is below 1024"
expect_fail "TERN_SHM=off TERN_COLL_PIPE_CHUNK=1" "TERN_COLL_PIPE_CHUNK=1 is below 1024: .*raise TERN_COLL_PIPE_CHUNK"
expect_fail "TERN_SHM=off TERN_COLL_XCHG_PIECE=1" "TERN_COLL_XCHG_PIECE=1 is below 1024: .*raise TERN_COLL_XCHG_PIECE"
# A get's reply in the mailbox carries at most 104 bytes.
expect_fail TERN_GET_MAILBOX=128 "TERN_GET_MAILBOX=128 is above 104"
# Combined nbi puts: at most 4 KiB each (core/put_agg.c).
expect_fail "TERN_SHM=off TERN_NBI_AGG_MAX=5000" "TERN_NBI_AGG_MAX=5000 is above 4096: .*lower TERN_NBI_AGG_MAX"
expect_fail TERN_NBI_AGG_MAX=some "TERN_NBI_AGG_MAX='some' is not a size"
# Below the 1 TiB bound but beyond memory: the error names the ring too.
expect_fail "TERN_SHM=off TERN_COLL_WORLD_RING=900G" "lower TERN_SEGMENT_SIZE or TERN_COLL_WORLD_RING"
# Above 32768 credits the provider's receive queue (twice as many) stalled
# libfabric 1.17's tcp: an active-message stream over tcp hung; 2^32 was
# taken as 0 credits (no send could go). Refused with a message.
expect_fail "TERN_SHM=off TERN_AM_NET_CREDITS=32769" "TERN_AM_NET_CREDITS=32769 is above 32768: .*lower TERN_AM_NET_CREDITS"
expect_fail "TERN_SHM=off TERN_AM_NET_CREDITS=4294967296" "TERN_AM_NET_CREDITS=4294967296 is above 32768"
# Below 2 the transport used 2 in silence, so 1 on one rank and 2 on the
# others (the same credits) were refused as different settings: refused.
expect_fail "TERN_SHM=off TERN_AM_NET_CREDITS=1" "TERN_AM_NET_CREDITS=1 is below 2: .*raise TERN_AM_NET_CREDITS"
expect_fail TERN_AM_NET_CREDITS=0 "TERN_AM_NET_CREDITS=0 is below 2"
expect_fail TERN_AM_NET_CREDITS=-5 "TERN_AM_NET_CREDITS='-5' is not a non-negative integer"
expect_fail "TERN_SHM=off TERN_OFI_PUT_BOUNCE=2G" "TERN_OFI_PUT_BOUNCE=2147483648 is above 1048576.*lower TERN_OFI_PUT_BOUNCE"
# The shared-memory message queues (in each segment's control area) sized
# beyond memory: the message named only TERN_SEGMENT_SIZE. And the
# network's receive queue: only 'ulimit -l' or TERN_SEGMENT_SIZE.
expect_fail TERN_AM_SHM_QUEUE=1T "lower TERN_SEGMENT_SIZE or TERN_AM_SHM_QUEUE or TERN_AM_MEDIUM_MAX"
expect_fail TERN_AM_MEDIUM_MAX=1T "lower TERN_SEGMENT_SIZE or TERN_AM_SHM_QUEUE or TERN_AM_MEDIUM_MAX"
# A Medium size a client cannot use (0 to 16 were taken: tern_am_max_medium
# said 0 or 16 and every Medium of a client failed).
expect_fail TERN_AM_MEDIUM_MAX=0 "TERN_AM_MEDIUM_MAX=0 is below 512: .*raise TERN_AM_MEDIUM_MAX"
expect_fail "TERN_SHM=off TERN_AM_MEDIUM_MAX=511" "TERN_AM_MEDIUM_MAX=511 is below 512"
# (Under AddressSanitizer libfabric's calloc of 30 GiB must return NULL, as
# the C library's does, instead of ending the process.)
expect_fail "TERN_SHM=off TERN_AM_NET_RECV=1T ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1" \
  "TERN_AM_NET_RECV=1099511627776.*lower TERN_AM_NET_RECV"
# Operations in flight beyond memory: only 'out of memory or segment space'.
# Not under AddressSanitizer: there its allocator either ends the process at
# the allocation or, returning NULL, lets smaller ones succeed and the job
# take more than 20 s (the fresh-clone CI of 57bfee2).
if [ -z "$ASAN_OPTIONS" ]; then
  expect_fail "TERN_SHM=off TERN_OFI_TX_DEPTH=100000000" "lower TERN_OFI_TX_DEPTH"
fi

# Values that parse but that tern_init refuses on this node.
expect_fail TERN_SEGMENT_NUMA=bogus "TERN_SEGMENT_NUMA='bogus' is not one of"
nnuma=$("$info" | sed -n 's/^ *NUMA domains *\([0-9]*\)$/\1/p')
[ -n "$nnuma" ] || fail "tern-info does not show the NUMA domains"
expect_fail TERN_SEGMENT_NUMA=bind:$nnuma "this node has $nnuma NUMA domain"

# TERN_HUGEPAGES=on where no huge pages can be had: the message says what
# is missing, and the status is not "bad value".
thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/shmem_enabled 2>/dev/null)
hfree=$(sed -n 's/^HugePages_Free: *//p' /proc/meminfo)
case $thp in always|within_size|advise|force) huge=1 ;; *) huge=0 ;; esac
[ "${hfree:-0}" -ge 66 ] && huge=1
if [ $huge = 0 ]; then
  expect_fail TERN_HUGEPAGES=on "no huge pages can be had: .*hugetlb page.*nr_hugepages.*shmem_enabled"
  echo "$out" | grep -q "bad TERN_\* configuration value\|bad configuration" &&
    fail "TERN_HUGEPAGES=on without huge pages is called a bad value: $out"
  echo "$out" | grep -q "hello: tern_init: out of memory" ||
    fail "TERN_HUGEPAGES=on: tern_init did not return TERN_ERR_NOMEM: $out"
fi

# The pre-flight check and tern_init agree: tern-info -c -n 2 exits 1
# exactly when the 2-rank job fails at start-up, with the same message.
# TERN_AM_SHM_QUEUE=1T and TERN_AM_MEDIUM_MAX=1T: the shared-memory
# queues in the control area, which -c did not count (it said yes, every
# job said no).
# One setting a line (values may hold spaces).
while IFS= read -r setting; do
  job=$(env "$setting" timeout 20 "$ternrun" -n 2 "$hello" 2>&1); jrc=$?
  check=$(env "$setting" "$info" -c -n 2 2>&1 >/dev/null); crc=$?
  if [ $jrc -eq 0 ]; then
    [ $crc -eq 0 ] || fail "$setting: tern-info -c says no ($check) but the job ran"
  else
    [ $crc -eq 1 ] || fail "$setting: the job failed ($job) but tern-info -c exits $crc"
    # Figures such as the memory available move between the two runs;
    # the words around them must agree.
    msg=$(echo "$check" | sed -n '1s/^tern\[[^]]*\] error: //; 1s/^tern-info: //p' | sed 's/[0-9][0-9.]*/#/g')
    echo "$job" | sed 's/[0-9][0-9.]*/#/g' | grep -qF -- "$msg" ||
      fail "$setting: tern-info -c says '$msg', the job says: $job"
  fi
  echo "ok: '$setting': tern-info -c and tern_init agree ($([ $jrc -eq 0 ] && echo runs || echo fails))"
done <<EOF
TERN_SEGMENT_NUMA=bogus
TERN_SEGMENT_NUMA=bind:$nnuma
TERN_SEGMENT_NUMA=bind:0
TERN_SEGMENT_NUMA=bind: 0
TERN_SEGMENT_NUMA=local
TERN_SEGMENT_SIZE=0
TERN_SEGMENT_SIZE=1M
TERN_SEGMENT_SIZE=100T
TERN_HUGEPAGES=on
TERN_HUGEPAGES=try
TERN_SEGMENT_SIZE=abc
TERN_TRACE=/nonexistent/dir/trace
TERN_AM_NET_CREDITS=32769
TERN_AM_NET_CREDITS=32768
TERN_AM_NET_CREDITS=1
TERN_AM_NET_CREDITS=2
TERN_SEGMENT_SIZE=1e3
TERN_SEGMENT_SIZE=0x1000000
TERN_SEGMENT_SIZE= 64M
TERN_SEGMENT_SIZE=1.5M
TERN_SEGMENT_SIZE=
TERN_SEGMENT_SIZE=99999999999999999999T
TERN_SEGMENT_SIZE=1%
TERN_SPIN_COUNT=1e3
TERN_SPIN_COUNT= 5
TERN_SPIN_COUNT=-1
TERN_SPIN_COUNT=99999999999999999999
TERN_SPIN_COUNT=5
TERN_BOOT_TIMEOUT=1e3
TERN_BOOT_TIMEOUT=2.5
TERN_SHM= 1
TERN_WAIT_MODE=spin 
TERN_AM_SHM_QUEUE=1T
TERN_AM_MEDIUM_MAX=1T
TERN_AM_SHM_QUEUE=64K
TERN_OFI_MAX_MSG=1
TERN_OFI_MAX_MSG=1K
TERN_OFI_MAX_MSG=0
TERN_COLL_PIPE_CHUNK=1023
TERN_COLL_PIPE_CHUNK=1K
TERN_COLL_PIPE_CHUNK=0
TERN_COLL_XCHG_PIECE=1023
TERN_COLL_XCHG_PIECE=1K
EOF
# Also for one rank (the checker's default): its segment holds a queue too.
for setting in TERN_AM_SHM_QUEUE=1T TERN_AM_MEDIUM_MAX=1T; do
  check=$(env $setting "$info" -c 2>&1 >/dev/null) &&
    fail "$setting: tern-info -c (1 rank) accepts it: $check"
  echo "$check" | grep -q "lower TERN_SEGMENT_SIZE or TERN_AM_SHM_QUEUE or TERN_AM_MEDIUM_MAX" ||
    fail "$setting: tern-info -c does not name the queues: $check"
  job=$(env $setting timeout 20 "$ternrun" -n 1 "$hello" 2>&1) &&
    fail "$setting: a 1-rank job ran: $job"
  echo "ok: $setting refused by tern-info -c and by a 1-rank job"
done

# A misspelled name is a warning with the nearest name; the job runs.
out=$(TERN_SEGMEN_SIZE=1M timeout 20 "$ternrun" -n 2 "$hello" 2>&1) || fail "misspelling ended the job: $out"
echo "$out" | grep -q "unknown variable TERN_SEGMEN_SIZE.*did you mean TERN_SEGMENT_SIZE" \
  || fail "no warning naming TERN_SEGMENT_SIZE: $out"
echo "ok: misspelled name warned"

# Units and percentages are accepted.
TERN_SEGMENT_SIZE=3M timeout 20 "$ternrun" -n 2 "$hello" >/dev/null 2>&1 || fail "TERN_SEGMENT_SIZE=3M"
TERN_SEGMENT_SIZE=0.1% timeout 20 "$ternrun" -n 2 "$hello" >/dev/null 2>&1 || fail "TERN_SEGMENT_SIZE=0.1%"
# Nothing left running. Zombies do not count: a process that ended after
# its parent (LeakSanitizer's tracer when ternrun stops a rank during its
# exit-time leak check, in TERN_SANITIZE builds) is reaped by init, which
# may take a second or two.
sleep 0.2
name=$(basename "$hello" | cut -c1-15)
# Only ranks whose ternrun is gone: other tests running at the same time
# (ctest -j) start the same program under ternruns of their own.
left=$(ps -eo stat=,pid=,ppid=,comm= | awk -v n="$name" '
  { st[NR] = $1; pid[NR] = $2; pp[NR] = $3; cm[NR] = $4; comm[$2] = $4 }
  END { for (i = 1; i <= NR; i++)
          if (st[i] !~ /^Z/ && cm[i] == n && comm[pp[i]] != "ternrun") print pid[i] }')
[ -n "$left" ] && fail "processes left behind: $left"
echo "config_errors: PASS"
