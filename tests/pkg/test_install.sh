#!/bin/sh
# Installs the build into a fresh prefix and builds examples/hello_put
# against it the four ways a user would: pkg-config + make (shared and
# STATIC=1), and CMake find_package(Tern) (Tern::tern and Tern::tern_static).
# Each program must link the installed library (not the build tree's) and
# pass when run by the installed ternrun with 2 ranks.
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
         "$libdir/libtern.a" bin/ternrun; do
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
run2() {
  out=$("$ternrun" -n 2 "$1" 2>&1)
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
echo "PASS: installed package builds and runs examples/hello_put (pkg-config and CMake, shared and static)"
