#!/bin/sh
# Memory per rank against the rank count (issue 13): runs mp_mem_rss under
# ternrun with 1 MiB segments for each configuration (shm, net: TERN_SHM=off,
# mixed: --nodes 2) and rank count, peers never contacted ("idle") or all
# contacted by one put each ("all"); prints the median private (RssAnon)
# and shared (RssShmem) memory per rank, the job's wall time, and the slope
# per added rank between the smallest and largest count.
# Usage: scripts/scale-memory.sh [--json] [--ranks 2,16,64,256] [--configs shm,net,mixed]
#        [--modes idle,all]   (from the top of the tree, after scripts/build.sh)
json=0 ranks=2,16,64,256 configs=shm,net,mixed modes=idle,all
while [ $# -gt 0 ]; do
  case $1 in
    --json) json=1 ;;
    --ranks) ranks=$2; shift ;;
    --configs) configs=$2; shift ;;
    --modes) modes=$2; shift ;;
    *) echo "scale-memory.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
top=$(cd "$(dirname "$0")/.." && pwd)
ternrun=$top/build/tools/ternrun/ternrun mem=$top/build/tests/mp/mp_mem_rss
[ -x "$mem" ] || { echo "scale-memory.sh: build first (scripts/build.sh)" >&2; exit 2; }
export TERN_SEGMENT_SIZE=1M
[ $json -eq 1 ] || printf '%-6s %-5s %6s %12s %12s %8s\n' config peers ranks 'private kB' 'shared kB' 'time s'
for cfg in $(echo $configs | tr , ' '); do
  for mode in $(echo $modes | tr , ' '); do
    first= last=
    for n in $(echo $ranks | tr , ' '); do
      case $cfg in
        shm) set -- "$ternrun" -n "$n" ;;
        net) set -- env TERN_SHM=off "$ternrun" -n "$n" ;;
        mixed) set -- "$ternrun" --nodes 2 -n "$n" ;;
      esac
      echo "scale-memory: $cfg $mode $n ranks" >&2
      t0=$(date +%s.%N)
      out=$("$@" "$mem" "$mode" 2>&1) || { echo "scale-memory: $cfg n=$n failed: $out" >&2; continue; }
      t1=$(date +%s.%N)
      row=$(echo "$out" | awk -v cfg=$cfg -v mode=$mode -v n=$n -v t="$(echo "$t1 - $t0" | bc)" '
        /RssAnon/ { a[++k] = $4; s[k] = $7 }
        END { # medians
          for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) {
            if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
            if (s[j] < s[i]) { x = s[i]; s[i] = s[j]; s[j] = x } }
          m = int((k + 1) / 2); printf "%s %s %d %d %d %.2f\n", cfg, mode, n, a[m], s[m], t }')
      set -- $row
      [ -z "$first" ] && first="$3 $4 $5"
      last="$3 $4 $5"
      if [ $json -eq 1 ]; then
        printf '{"config":"%s","peers":"%s","ranks":%s,"private_kb":%s,"shared_kb":%s,"time_s":%s}\n' "$@"
      else
        printf '%-6s %-5s %6s %12s %12s %8s\n' "$@"
      fi
    done
    if [ -n "$first" ] && [ "$first" != "$last" ]; then
      slope=$(echo "$first $last" | awk '{ dn = $4 - $1; printf "%.0f %.0f", ($5 - $2) * 1024 / dn, ($6 - $3) * 1024 / dn }')
      set -- $slope
      if [ $json -eq 1 ]; then
        printf '{"config":"%s","peers":"%s","slope_private_b":%s,"slope_shared_b":%s}\n' $cfg $mode "$1" "$2"
      else
        printf '%-6s %-5s  slope per added rank: private %s B, shared %s B\n' $cfg $mode "$1" "$2"
      fi
    fi
  done
done
