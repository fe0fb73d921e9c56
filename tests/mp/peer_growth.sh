#!/bin/sh
# Bytes a rank allocates per rank of the job it never contacts (issue 13:
# at most 64), from the heap in use after tern_init (mp_peer_growth) at two
# job sizes: rank 0's growth divided by the peers added. net: every added
# rank is a remote peer (TERN_SHM=off); mixed: nodes of two ranks each, so
# the added ranks are remote; shm: every added rank is a local peer,
# mapped at start-up: its growth must stay within the memory report's
# part per local peer plus 64 B (nothing per rank that the report misses).
# Usage: peer_growth.sh CONFIG TERNRUN PROG SMALL LARGE (even counts)
cfg=$1 ternrun=$2 prog=$3 small=$4 large=$5
fail() { echo "peer_growth.sh $cfg: FAIL: $*"; exit 1; }
export TERN_SEGMENT_SIZE=1M
# Freed chunks kept in glibc's per-thread cache count as in use in
# mallinfo2: start-up's temporary tables would show as +-1.5 KiB of noise
# that depends on the job size. Without the cache the heap grows smoothly
# with the ranks (measured: 4..32 ranks, 48-50 B per added rank).
export GLIBC_TUNABLES=glibc.malloc.tcache_count=0
limit=64

field() { # field NAME LINE
  echo "$2" | sed -n "s/.* $1 \([0-9]*\).*/\1/p"
}
measure() { # runs both job sizes: line_N, heaps_N
  for n in $small $large; do
    case $cfg in
      shm) out=$(timeout 150 "$ternrun" -n "$n" "$prog" 2>&1) ;;
      net) out=$(TERN_SHM=off timeout 150 "$ternrun" -n "$n" "$prog" 2>&1) ;;
      mixed) out=$(timeout 150 "$ternrun" --nodes $((n / 2)) -n "$n" "$prog" 2>&1) ;;
      *) fail "unknown configuration" ;;
    esac || fail "n=$n: $out"
    line=$(echo "$out" | grep "^peer_growth: rank 0 of ")
    [ -n "$line" ] || fail "n=$n: no line from rank 0: $out"
    echo "n=$n: $line"
    # Every rank's heap, to tell a rank 0 that stands out from a job that grew.
    heaps=$(echo "$out" | sed -n 's/^peer_growth: rank \([0-9]*\) of .* heap \([0-9]*\) .*/\1:\2/p' |
      sort -n | tr '\n' ' ')
    eval "line_$n=\"\$line\"; heaps_$n=\"\$heaps\""
  done
}
measure
eval "a=\"\$line_$small\"; b=\"\$line_$large\""
eval "heaps=\"rank:heap at $small ranks: \$heaps_$small; at $large ranks: \$heaps_$large\""
ha=$(field heap "$a") hb=$(field heap "$b")
if [ "$ha" = 0 ] && [ "$hb" = 0 ]; then
  echo "peer_growth.sh $cfg: mallinfo2 counts nothing here (a sanitizer's allocator): skipped"
  exit 77
fi
d=$((hb - ha))
if [ "$cfg" = shm ]; then
  added=$(($(field local "$b") - $(field local "$a")))
  [ "$(field remote "$b")" = 0 ] || fail "shm has remote peers: $b"
  bound=$(($(field per_local "$a") + limit))
  what="local peer (the report's part per local peer: $(field per_local "$a") B)"
else
  added=$(($(field remote "$b") - $(field remote "$a")))
  [ "$(field local "$a")" = "$(field local "$b")" ] || fail "local peers differ: $a / $b"
  bound=$limit
  what="remote peer never contacted"
fi
[ "$added" -gt 0 ] || fail "no peers added between $small and $large ranks"
per=$((d / added))
exact=$(awk -v d="$d" -v a="$added" 'BEGIN { printf "%.1f", d / a }')
echo "heap grew by $d B for $added added peers: $exact B per $what; bound $bound B"
if [ "$per" -gt "$bound" ]; then
  # The heap after tern_init moves by a few hundred bytes with timing (what
  # threads started at init allocate before the count; seen under load:
  # 68.8 B per peer once, 51-54 B otherwise): measure both sizes once more
  # and keep each size's smaller heap. A real growth per peer shows in both.
  echo "above the bound: measuring again"
  measure
  eval "a2=\"\$line_$small\"; b2=\"\$line_$large\""
  ha2=$(field heap "$a2") hb2=$(field heap "$b2")
  [ "$ha2" -lt "$ha" ] && ha=$ha2
  [ "$hb2" -lt "$hb" ] && hb=$hb2
  d=$((hb - ha))
  per=$((d / added))
  exact=$(awk -v d="$d" -v a="$added" 'BEGIN { printf "%.1f", d / a }')
  echo "smaller heap of two runs at each size: $d B for $added added peers: $exact B per $what; bound $bound B"
fi
[ "$per" -le "$bound" ] ||
  fail "$exact B per added $what, above $bound B (rank 0's heap $ha B at $small ranks, $hb B at $large; $heaps)"
echo "peer_growth.sh $cfg: PASS"
