#!/bin/sh
# Installs the build into a fresh prefix and builds examples/hello_put
# against it the ways a user would: the compiler wrapper terncc (also from
# a moved copy of the prefix and through a symbolic link), the guide's
# pkg-config one-liner, pkg-config + make (shared and STATIC=1), and CMake
# find_package(Tern) (Tern::tern and Tern::tern_static). Each program must
# link the installed library (not the build tree's) and pass when run by
# the installed ternrun with 2 ranks.
#
# usage: test_install.sh BUILD_DIR CONFIG EXAMPLES_DIR WORK_DIR LIBDIR CMAKE CC
set -u
build=$1 config=$2 examples=$3 work=$4 libdir=$5 cmake=$6 cc=$7

fail() { echo "FAIL: $*"; exit 1; }
step() { echo "== $*"; }

for tool in make pkg-config ldd; do
  command -v $tool >/dev/null 2>&1 || { echo "SKIP: $tool not found"; exit 77; }
done
# Programs must find libtern through their run path, not through this.
unset LD_LIBRARY_PATH

rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
prefix=$work/prefix

step "cmake --install into $prefix"
"$cmake" --install "$build" --config "$config" --prefix "$prefix" \
  >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "cmake --install failed"; }
for f in include/tern.h "$libdir/pkgconfig/tern.pc" "$libdir/cmake/Tern/TernConfig.cmake" \
         "$libdir/cmake/Tern/TernConfigVersion.cmake" "$libdir/cmake/Tern/TernTargets.cmake" \
         "$libdir/libtern.a" bin/ternrun bin/terncc; do
  [ -e "$prefix/$f" ] || fail "installed tree lacks $f"
done
ls "$prefix/$libdir"/libtern.so* >/dev/null 2>&1 || fail "installed tree lacks libtern.so"
ternrun=$prefix/bin/ternrun
prefix_real=$(cd "$prefix" && pwd -P)

step "pkg-config"
PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
export PKG_CONFIG_PATH
pkg-config --validate tern || fail "pkg-config --validate tern"
pkg-config --exists tern || fail "pkg-config does not find tern.pc in $PKG_CONFIG_PATH"
echo "tern $(pkg-config --modversion tern): $(pkg-config --cflags --libs tern)"
pc_libdir=$(pkg-config --variable=libdir tern)
[ "$(cd "$pc_libdir" && pwd -P)" = "$(cd "$prefix/$libdir" && pwd -P)" ] ||
  fail "tern.pc libdir $pc_libdir is not the installed $prefix/$libdir"
pc_incdir=$(pkg-config --variable=includedir tern)
[ -f "$pc_incdir/tern.h" ] || fail "tern.pc includedir $pc_incdir has no tern.h"

# Runs prog with the installed ternrun; both ranks must report.
# (-np, as mpirun users type it.)
run2() {
  out=$("$ternrun" -np 2 "$1" 2>&1)
  st=$?
  echo "$out"
  [ $st -eq 0 ] || fail "ternrun -n 2 $1 exited with $st"
  n=$(echo "$out" | grep -c '^rank [01] of 2: got "hello from rank [01]"')
  [ "$n" -eq 2 ] || fail "$1: expected a line from each of 2 ranks, got $n"
}
# libtern must come from the installed tree (shared) or not at all (static).
check_links() { # prog shared|static
  libs=$(ldd "$1") || fail "ldd $1"
  line=$(echo "$libs" | grep 'libtern\.so')
  if [ "$2" = static ]; then
    [ -z "$line" ] || fail "$1 should not load libtern.so: $line"
  else
    so=$(echo "$line" | sed -n 's/.*=> \(.*libtern\.so[^ ]*\) .*/\1/p')
    [ -n "$so" ] || fail "$1 does not load libtern.so: $libs"
    case "$(cd "$(dirname "$so")" && pwd -P)" in
      "$prefix_real"/*) ;;
      *) fail "$1 loads $so, not the installed library under $prefix" ;;
    esac
  fi
}

# Only the sources: a program a user built in examples/ must not be taken
# for one built here.
copy_examples() {
  mkdir -p "$1" && cp "$examples"/*.c "$examples"/Makefile "$examples"/CMakeLists.txt "$1" ||
    fail "cannot copy the examples from $examples"
}

step "terncc -show"
unset TERN_CC
terncc=$prefix/bin/terncc
# terncc finds the prefix from its own place: the real path of it
inc_real=$(cd "$prefix/include" && pwd -P) lib_real=$(cd "$prefix/$libdir" && pwd -P)
show=$("$terncc" -show -O2 hello_put.c -o hello_put) || fail "terncc -show failed"
echo "$show"
for w in "-I$inc_real" "-L$lib_real" "-Wl,-rpath,$lib_real" -ltern -O2 hello_put.c; do
  case " $show " in *" $w "*) ;; *) fail "terncc -show lacks '$w': $show" ;; esac
done
case $show in "$cc "*) ;; *) fail "terncc -show does not run $cc: $show" ;; esac
show=$("$terncc" -show -c hello_put.c)
case $show in *-ltern*) fail "terncc -show -c links: $show" ;; esac

step "terncc: build and run"
src=$work/terncc
copy_examples "$src"
(cd "$src" && "$terncc" -O2 hello_put.c -o hello_put) || fail "terncc could not build hello_put"
check_links "$src/hello_put" shared
run2 "$src/hello_put"

step "terncc from a moved prefix and through a symbolic link"
moved=$work/moved-prefix
cp -a "$prefix" "$moved" || fail "cannot copy the prefix"
moved_real=$(cd "$moved" && pwd -P)
show=$("$moved/bin/terncc" -show hello_put.c)
case $show in *"-L$moved_real/$libdir "*) ;; *) fail "moved terncc does not use $moved: $show" ;; esac
mkdir -p "$work/links" && ln -s "$prefix/bin/terncc" "$work/links/terncc"
show=$("$work/links/terncc" -show hello_put.c)
case $show in *"-L$lib_real "*) ;; *) fail "terncc through a link lost its prefix: $show" ;; esac
(cd "$src" && "$moved/bin/terncc" hello_put.c -o hello_moved) || fail "moved terncc failed"
so=$(ldd "$src/hello_moved" | sed -n 's/.*libtern\.so[^ ]* => \([^ ]*\) .*/\1/p')
case "$(cd "$(dirname "$so")" && pwd -P)" in
  "$moved_real"/*) ;;
  *) fail "hello_moved loads $so, not the moved prefix's" ;;
esac
run2 "$src/hello_moved"
rm -rf "$moved"

step "the guide's pkg-config one-liner"
# The command docs/guide.md shows, run as it is written (cc -> the
# compiler of this build): it must give a program that starts from this
# non-system prefix.
guide=$examples/../docs/guide.md
cmd=$(sed -n 's/^cc app\.c /app.c /p' "$guide" | head -n 1)
[ -n "$cmd" ] || fail "no 'cc app.c ... pkg-config ...' line in $guide"
echo "cc $cmd"
src=$work/guide
copy_examples "$src"
cp "$src/hello_put.c" "$src/app.c"
# (CFLAGS: a TERN_SANITIZE build's programs need its sanitizer flags)
(cd "$src" && eval "\"\$cc\" \${CFLAGS:-} $cmd") || fail "the guide's one-liner failed: cc $cmd"
check_links "$src/app" shared
run2 "$src/app"

for kind in shared static; do
  step "make ($kind) with pkg-config"
  src=$work/make-$kind
  copy_examples "$src"
  static=0; [ $kind = static ] && static=1
  make -C "$src" CC="$cc" STATIC=$static >"$src.log" 2>&1 ||
    { cat "$src.log"; fail "make STATIC=$static failed"; }
  check_links "$src/hello_put" $kind
  run2 "$src/hello_put"
done

for kind in shared static; do
  step "cmake find_package(Tern) ($kind)"
  src=$work/cmake-src-$kind
  bdir=$work/cmake-$kind
  copy_examples "$src"
  on=OFF; [ $kind = static ] && on=ON
  "$cmake" -S "$src" -B "$bdir" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_COMPILER="$cc" -DTERN_EXAMPLES_STATIC=$on >"$bdir.log" 2>&1 ||
    { cat "$bdir.log"; fail "configuring examples with CMake failed"; }
  tern_dir=$(sed -n 's/^Tern_DIR:PATH=//p' "$bdir/CMakeCache.txt")
  case "$(cd "$tern_dir" && pwd -P)" in
    "$prefix_real"/*) ;;
    *) fail "find_package(Tern) found $tern_dir, not the installed package" ;;
  esac
  "$cmake" --build "$bdir" >>"$bdir.log" 2>&1 ||
    { cat "$bdir.log"; fail "building examples with CMake failed"; }
  check_links "$bdir/hello_put" $kind
  run2 "$bdir/hello_put"
done

rm -rf "$work"
echo "PASS: installed package builds and runs examples/hello_put (terncc, pkg-config and CMake, shared and static)"
