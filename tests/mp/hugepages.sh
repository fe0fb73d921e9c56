#!/bin/sh
# Huge page paths of segment creation: hugetlb pages reserved for the test,
# transparent huge pages for shared memory, and TERN_HUGEPAGES=on without
# either (a clear error). Needs root to change the kernel settings; they
# are restored on exit. Usage: hugepages.sh TERNRUN HELLO
ternrun=$1 hello=$2
nr=/proc/sys/vm/nr_hugepages
thp=/sys/kernel/mm/transparent_hugepage/shmem_enabled
if [ "$(id -u)" -ne 0 ] || [ ! -w $nr ]; then
  echo "hugepages: SKIP: needs root and a writable $nr"; exit 77
fi
old_nr=$(cat $nr)
old_thp=$( [ -r $thp ] && sed 's/.*\[\(.*\)\].*/\1/' $thp )
restore() { echo "$old_nr" > $nr; [ -n "$old_thp" ] && echo "$old_thp" > $thp 2>/dev/null; }
trap restore EXIT
fail() { echo "hugepages: FAIL: $*"; exit 1; }

# hugetlb: 2 ranks x (16 MiB + control) need 18 pages of 2 MiB.
echo 0 > $nr
[ -w $thp ] && echo never > $thp
out=$(TERN_HUGEPAGES=on TERN_SEGMENT_SIZE=16M timeout 20 "$ternrun" -n 2 "$hello" 2>&1)
[ $? -ne 0 ] || fail "TERN_HUGEPAGES=on succeeded without huge pages: $out"
echo "$out" | grep -q "no huge pages can be had" || fail "no clear error: $out"
echo "ok: TERN_HUGEPAGES=on without huge pages is a clear error"

echo 40 > $nr
if [ "$(cat $nr)" -ge 18 ]; then
  out=$(TERN_VERBOSE=1 TERN_HUGEPAGES=on TERN_SEGMENT_SIZE=16M timeout 20 "$ternrun" -n 2 "$hello" 2>&1) \
    || fail "hugetlb run failed: $out"
  echo "$out" | grep -q "2048 KiB pages (2048 KiB hugetlb pages" || fail "hugetlb not used: $out"
  echo "ok: hugetlb pages back the segment"
  [ "$(grep HugePages_Free /proc/meminfo | awk '{print $2}')" -eq "$(cat $nr)" ] \
    || fail "hugetlb pages still in use after the job"
else
  echo "note: the kernel gave only $(cat $nr) hugetlb pages; hugetlb path not tried"
fi
echo 0 > $nr

if [ -w $thp ]; then
  echo advise > $thp
  out=$(TERN_VERBOSE=1 TERN_HUGEPAGES=on TERN_SEGMENT_SIZE=64M timeout 20 "$ternrun" -n 2 "$hello" 2>&1) \
    || fail "THP run failed: $out"
  echo "$out" | grep -q "transparent huge pages: [0-9]*% of the segment in 2 MiB pages" \
    || fail "THP not reported: $out"
  echo "ok: $(echo "$out" | grep -o 'transparent huge pages: [0-9]*%[^)]*')"
fi
echo "hugepages: PASS"
