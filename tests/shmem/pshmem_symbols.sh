#!/bin/sh
# The profiling interface, checked on the built libraries: every function
# libtshmem exports (except the tshmem_* helpers of shmem.h's macros) is
# weak and has its twin "p" + name (pshmem_*, pshmalloc, pstart_pes ...)
# at the same address, a global function; pshmem.h declares every twin.
# usage: pshmem_symbols.sh NM libtshmem.so libtshmem.a pshmem.h
set -e
nm=$1 so=$2 ar=$3 hdr=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # label; stdin: "addr type name" lines of defined symbols
  awk -v what="$1" '
    $2 == "T" || $2 == "W" { addr[$3] = $1; type[$3] = $2 }
    END {
      # twins: p + the name of another exported function
      for (s in addr) if (s ~ /^p/ && substr(s, 2) in addr) twin[s] = 1
      bad = 0; n = 0
      for (s in addr) {
        if (s in twin || s ~ /^tshmem_/) continue
        n++; t = "p" s
        if (type[s] != "W") { print what ": " s " is not weak (" type[s] ")"; bad = 1 }
        if (!(t in addr)) { print what ": " s " has no " t; bad = 1; continue }
        if (addr[t] != addr[s]) { print what ": " t " is not at the address of " s; bad = 1 }
        if (type[t] != "T") { print what ": " t " is not a global function (" type[t] ")"; bad = 1 }
      }
      if (n < 1000) { print what ": only " n " OpenSHMEM functions"; bad = 1 }
      print what ": " n " OpenSHMEM functions checked"
      exit bad
    }'
}
"$nm" -D --defined-only "$so" > "$tmp/so"
check "$so" < "$tmp/so" || fail=1
# The archive holds one object: its symbol table is the library's.
"$nm" --defined-only "$ar" | awk 'NF == 3' > "$tmp/ar"
check "$ar" < "$tmp/ar" || fail=1
# pshmem.h names exactly the twins the shared library exports.
sed -n 's/^extern __typeof__([A-Za-z0-9_]*) \([A-Za-z0-9_]*\);$/\1/p' "$hdr" | sort > "$tmp/h"
awk '$2 ~ /[TW]/ { a[$3] = 1 } END { for (s in a) if (s ~ /^p/ && substr(s, 2) in a) print s }' \
  "$tmp/so" | sort > "$tmp/s"
if ! cmp -s "$tmp/h" "$tmp/s"; then
  echo "pshmem.h and $so differ:"
  diff "$tmp/h" "$tmp/s" | head -20
  fail=1
fi
echo "pshmem.h: $(wc -l < "$tmp/h") declarations"
[ $fail = 0 ] && echo "pshmem_symbols: PASS"
exit $fail
