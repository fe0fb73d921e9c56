#!/bin/sh
# Layers point down only (STYLE.md): each directory of src/ may include
# its own headers and those of the layers below it; tools, benchmarks and
# tests may include anything; shmem/ (when it exists) only the public API.
cd "$(dirname "$0")/../.." || exit 1
allowed() {
  case $1 in
    base) echo "base" ;;
    boot|mem) echo "base $1" ;;
    xport) echo "base boot mem xport" ;;
    core) echo "base boot mem xport core" ;;
    shmem) echo "" ;;
  esac
}
bad=0
for layer in base boot mem xport core shmem; do
  [ -d src/$layer ] || continue
  ok=$(allowed $layer)
  for f in $(find src/$layer -name '*.[ch]'); do
    for inc in $(sed -n 's/^#include "\([a-z_]*\)\/.*/\1/p' "$f"); do
      case " $ok " in
        *" $inc "*) ;;
        *) echo "layers: $f includes $inc/ (a $layer file may use: ${ok:-only <tern.h>})"; bad=1 ;;
      esac
    done
  done
done
[ $bad -eq 0 ] && echo "layers: PASS"
exit $bad
