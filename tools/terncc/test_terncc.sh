#!/bin/sh
# The build tree's terncc: builds examples/hello_put.c, which must load the
# build tree's libtern through its run path and pass with 2 ranks; -show,
# -showme:compile/-showme:link, compile-only and TERN_CC.
#   test_terncc.sh TERNCC TERNRUN HELLO_PUT_C LIBDIR INCDIR
set -u
terncc=$1 ternrun=$2 src=$3 libdir=$4 incdir=$5
fail() { echo "FAIL: $*"; exit 1; }
command -v ldd >/dev/null 2>&1 || { echo "SKIP: ldd not found"; exit 77; }
unset LD_LIBRARY_PATH TERN_CC
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

# -show: the whole command, nothing run
show=$("$terncc" -show -O2 "$src" -o "$work/a b") || fail "terncc -show failed"
echo "terncc -show: $show"
for w in "-I$incdir" "-L$libdir" "-Wl,-rpath,$libdir" "-ltern" "-O2" "$src" "'$work/a b'"; do
  case " $show " in *" $w "*) ;; *) fail "-show lacks '$w': $show" ;; esac
done
[ -e "$work/a b" ] && fail "-show ran the compiler"
case $show in *" -ltern"*" -ltern"*) fail "-ltern twice: $show" ;; esac
# compile only: no library flags
show=$("$terncc" -show -c "$src") || fail "terncc -show -c failed"
case $show in *-ltern* | *-rpath*) fail "-c should not link: $show" ;; esac
# (a TERN_SANITIZE build puts its sanitizer flags first)
case "$("$terncc" -showme:compile)" in "-I$incdir" | *" -I$incdir") ;;
  *) fail "-showme:compile: $("$terncc" -showme:compile)" ;; esac
case "$("$terncc" -showme:link)" in
  "-L$libdir -Wl,-rpath,$libdir -ltern" | *" -L$libdir -Wl,-rpath,$libdir -ltern") ;;
  *) fail "-showme:link: $("$terncc" -showme:link)" ;; esac
"$terncc" -showme:bogus 2>"$work/err" && fail "-showme:bogus accepted"
grep -q "unknown option '-showme:bogus'" "$work/err" || fail "-showme:bogus: $(cat "$work/err")"
# TERN_CC: another compiler, with its options
show=$(TERN_CC="cc -DFROM_TERN_CC" "$terncc" -show "$src")
case $show in "cc -DFROM_TERN_CC "*) ;; *) fail "TERN_CC not used: $show" ;; esac

# build and run
"$terncc" -O2 -Wall "$src" -o "$work/hello_put" || fail "terncc could not build $src"
so=$(ldd "$work/hello_put" | sed -n 's/.*libtern\.so[^ ]* => \([^ ]*\) .*/\1/p')
[ "$(cd "$(dirname "$so")" && pwd -P)" = "$(cd "$libdir" && pwd -P)" ] ||
  fail "hello_put loads '$so', not the build tree's libtern in $libdir"
out=$("$ternrun" -n 2 "$work/hello_put" 2>&1) || fail "ternrun -n 2 hello_put: $out"
n=$(echo "$out" | grep -c '^rank [01] of 2: got "hello from rank [01]"')
[ "$n" -eq 2 ] || fail "expected a line from each of 2 ranks: $out"
echo "PASS: terncc builds hello_put against the build tree and it runs with 2 ranks"
