#!/bin/sh
# The public headers (tern.h, shmem.h) compile with clang as well, from
# strict C99 and from C++ (DESIGN: C99 and C++ includable): the GNU C
# parts of the inline fast paths are taken under __GNUC__, which clang
# defines, and clang refuses some of what GCC accepts (the address of a
# vector element, for one). Skipped where no clang is installed.
cd "$(dirname "$0")/../.." || exit 1
cc=$(command -v clang 2>/dev/null)
if [ -z "$cc" ]; then
  for c in $(ls /usr/bin/clang-[0-9]* 2>/dev/null | sort -t- -k2 -n -r); do
    [ -x "$c" ] && { cc=$c; break; }
  done
fi
[ -n "$cc" ] || { echo "header_clang: SKIP: no clang"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf '#include <shmem.h>\nint main(void) { return 0; }\n' >"$tmp/shmem.c"
fail=0
run() { # what, then the compiler's arguments
  what=$1; shift
  if ! "$cc" -fsyntax-only -Wall -Wextra -Werror -Iinclude "$@" 2>"$tmp/err"; then
    echo "header_clang: FAIL: $what ($cc):"; head -20 "$tmp/err"; fail=1
  fi
}
run "tern.h from C99" -std=c99 -pedantic-errors tests/unit/header_c99.c
run "tern.h from C++" -x c++ -std=c++11 tests/unit/header_cxx.cpp
run "shmem.h from C" -std=c11 "$tmp/shmem.c"
run "shmem.h from C++" -x c++ -std=c++11 "$tmp/shmem.c"
[ $fail = 0 ] || exit 1
echo "header_clang: PASS ($cc)"
