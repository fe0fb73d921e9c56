#!/bin/sh
# Memory per rank and start-up time against the rank count (issue 13): runs
# mp_mem_rss under ternrun with 1 MiB segments for each configuration (shm,
# net: TERN_SHM=off, mixed: --nodes 2) and rank count, peers never contacted
# ("idle") or all contacted by one put each ("all"); prints the median
# private (RssAnon) and shared (RssShmem) memory per rank, the start-up time
# (launch until every rank finished tern_init, as ternrun reports it with
# TERN_VERBOSE=1), the job's wall time, and the slope per added rank between
# the second-smallest and the largest count and between the two largest.
# With --build A,B (build directories of two trees, e.g. main and an older
# commit built apart) every point runs in each tree in turn, so that the
# trees are compared in the same run under the same load; the first column
# names the tree by its index in that list.
# Usage: scripts/scale-memory.sh [--json] [--ranks 2,16,64,256] [--configs shm,net,mixed]
#        [--modes idle,all] [--build DIR[,DIR...]] [--timeout S]
#        (from the top of the tree, after scripts/build.sh)
json=0 ranks=2,16,64,256 configs=shm,net,mixed modes=idle,all builds= limit=600
while [ $# -gt 0 ]; do
  case $1 in
    --json) json=1 ;;
    --ranks) ranks=$2; shift ;;
    --configs) configs=$2; shift ;;
    --modes) modes=$2; shift ;;
    --build) builds=$2; shift ;;
    --timeout) limit=$2; shift ;;
    *) echo "scale-memory.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
top=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$builds" ] || builds=$top/build
for b in $(echo $builds | tr , ' '); do
  [ -x "$b/tests/mp/mp_mem_rss" ] && [ -x "$b/tools/ternrun/ternrun" ] ||
    { echo "scale-memory.sh: $b has no mp_mem_rss or ternrun: build first (scripts/build.sh)" >&2; exit 2; }
done
export TERN_SEGMENT_SIZE=1M
rows=$(mktemp) || exit 2
point=0
trap 'rm -f "$rows"' EXIT
[ $json -eq 1 ] || printf '%-4s %-6s %-5s %6s %12s %12s %10s %8s\n' tree config peers ranks \
  'private kB' 'shared kB' 'start-up s' 'time s'
for cfg in $(echo $configs | tr , ' '); do
  for mode in $(echo $modes | tr , ' '); do
    for n in $(echo $ranks | tr , ' '); do
      # The trees take turns going first: a run right after a pause or
      # after another configuration's runs is slower (measured: 512 ranks
      # in shm, 13.8 s first against 9.1-10.6 s after, the same tree).
      point=$((point + 1)) order=
      i=0
      for b in $(echo $builds | tr , ' '); do
        if [ $((point % 2)) -eq 0 ]; then order="$order $i:$b"; else order="$i:$b $order"; fi
        i=$((i + 1))
      done
      for tb in $order; do
        tree=${tb%%:*} b=${tb#*:}
        case $cfg in
          shm) set -- "$b/tools/ternrun/ternrun" -n "$n" ;;
          net) set -- env TERN_SHM=off "$b/tools/ternrun/ternrun" -n "$n" ;;
          mixed) set -- "$b/tools/ternrun/ternrun" --nodes 2 -n "$n" ;;
        esac
        echo "scale-memory: tree $tree $cfg $mode $n ranks" >&2
        t0=$(date +%s.%N)
        out=$(TERN_VERBOSE=1 timeout "$limit" "$@" "$b/tests/mp/mp_mem_rss" "$mode" 2>&1) || {
          echo "scale-memory: tree $tree $cfg n=$n failed or took over $limit s: $(echo "$out" | tail -3)" >&2
          continue; }
        t1=$(date +%s.%N)
        row=$(echo "$out" | awk -v tree=$tree -v cfg=$cfg -v mode=$mode -v n=$n \
                                -v t="$(echo "$t1 - $t0" | bc)" '
          /RssAnon/ { a[++k] = $4; s[k] = $7 }
          /finished start-up/ { for (i = 1; i <= NF; i++) if ($i == "ms") su = $(i - 1) / 1000 }
          END { # medians
            for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) {
              if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
              if (s[j] < s[i]) { x = s[i]; s[i] = s[j]; s[j] = x } }
            m = int((k + 1) / 2)
            printf "%d %s %s %d %d %d %.2f %.2f\n", tree, cfg, mode, n, a[m], s[m], su, t }')
        echo "$row" >>"$rows"
        set -- $row
        if [ $json -eq 1 ]; then
          printf '{"tree":%s,"config":"%s","peers":"%s","ranks":%s,"private_kb":%s,"shared_kb":%s,"startup_s":%s,"time_s":%s}\n' "$@"
        else
          printf '%-4s %-6s %-5s %6s %12s %12s %10s %8s\n' "$@"
        fi
      done
    done
  done
done
# Slopes per added rank: from the second-smallest count to the largest (the
# smallest, 2, is one rank per node in mixed), and between the two largest
# (the marginal slope at the top: above the first, the top count is slower
# than the trend below it).
sort -k1,1n -k2,2 -k3,3 -k4,4n "$rows" | awk -v json=$json '
  { key = $1 " " $2 " " $3
    if (!(key in cnt)) order[++nk] = key
    c = ++cnt[key]; N[key, c] = $4; A[key, c] = $5; S[key, c] = $6; U[key, c] = $7 }
  function slope(k, i, j, what) {
    dn = N[k, j] - N[k, i]
    pa = (A[k, j] - A[k, i]) * 1024 / dn; ps = (S[k, j] - S[k, i]) * 1024 / dn
    pu = (U[k, j] - U[k, i]) * 1000 / dn
    split(k, f, " ")
    if (json)
      printf "{\"tree\":%s,\"config\":\"%s\",\"peers\":\"%s\",\"from\":%d,\"to\":%d,\"slope_private_b\":%.0f,\"slope_shared_b\":%.0f,\"slope_startup_ms\":%.2f}\n", f[1], f[2], f[3], N[k, i], N[k, j], pa, ps, pu
    else
      printf "%-4s %-6s %-5s slope per added rank %d->%d: private %.0f B, shared %.0f B, start-up %.2f ms\n", f[1], f[2], f[3], N[k, i], N[k, j], pa, ps, pu }
  END { for (i = 1; i <= nk; i++) { k = order[i]; c = cnt[k]
      if (c >= 3) slope(k, 2, c)
      else if (c == 2) slope(k, 1, 2)
      if (c >= 4) slope(k, c - 1, c) } }'
