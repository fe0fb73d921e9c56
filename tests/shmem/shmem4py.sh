#!/bin/sh
# shmem4py (the Python bindings for OpenSHMEM, cffi over the library) built
# against this build's oshcc and libtshmem, its own unittest suite run with
# oshrun in one transport configuration.
#   shmem4py.sh CFG NP OSHRUN OSHCC LIBTSHMEM WORKDIR
# CFG prepare (NP ignored): only builds the cache; the suite's test of that
# name runs first, so the others do not wait on it holding a ctest slot.
# WORKDIR caches a Python venv (numpy < 2: shmem4py 1.0.0 fails under
# numpy 2), the shmem4py 1.0.0 source (SHMEM4PY_SDIST=file.tar.gz, or from
# PyPI with pip) and the module, rebuilt when libtshmem is newer. Exit 77
# (skip) when Python, the packages or the source cannot be had; a build or a
# test failure is a failure.
cfg=$1 np=$2 OSHRUN=$3 OSHCC=$4 LIB=$5 WORK=$6
here=$(cd "$(dirname "$0")" && pwd)
VER=1.0.0
skip() {
    echo "SKIP: shmem4py: $*" >&2
    exit 77
}
case "$("$OSHCC" -show)" in
*-fsanitize*) skip "a sanitizer build's library cannot be loaded into an uninstrumented python" ;;
esac
command -v python3 >/dev/null || skip "no python3"
mkdir -p "$WORK" || exit 1

# Preparation, once for all configurations (ctest -j runs them together).
prepare() {
    py=$WORK/venv/bin/python
    if ! [ -x "$py" ]; then
        python3 -m venv --system-site-packages "$WORK/venv" >"$WORK/venv.log" 2>&1 ||
            skip "python3 -m venv failed (see $WORK/venv.log)"
    fi
    # setuptools and wheel too, so that pip download below prepares the
    # sdist's metadata with them (--no-build-isolation) instead of filling an
    # isolated environment from the index first (docs/design/ci-time.md,
    # tenth round).
    if ! "$py" -c 'import cffi, numpy, setuptools, wheel, sys
sys.exit(int(numpy.__version__.split(".")[0]) >= 2)' 2>/dev/null; then
        timeout 600 "$py" -m pip install -q cffi 'numpy<2' setuptools wheel >"$WORK/pip.log" 2>&1 ||
            skip "cannot install cffi, numpy<2, setuptools and wheel into $WORK/venv (see $WORK/pip.log)"
    fi
    sdist=${SHMEM4PY_SDIST:-$WORK/shmem4py-$VER.tar.gz}
    if ! [ -f "$sdist" ]; then
        timeout 300 "$py" -m pip download -q --no-deps --no-build-isolation --no-binary :all: \
            -d "$WORK" "shmem4py==$VER" >"$WORK/download.log" 2>&1 ||
            skip "cannot download shmem4py $VER (see $WORK/download.log; or set SHMEM4PY_SDIST)"
    fi
    src=$WORK/src
    so=$(ls "$src"/src/shmem4py/api*.so 2>/dev/null | head -n 1)
    if [ -n "$so" ] && [ "$so" -nt "$LIB" ] && [ "$so" -nt "$here/../../include/shmem.h" ]; then
        return 0
    fi
    rm -rf "$src" && mkdir -p "$src" && tar xzf "$sdist" -C "$src" --strip-components 1 ||
        skip "cannot unpack $sdist"
    # The one thing shmem4py needs from Tern beyond shmem.h: the header that
    # tells it which routines exist (include/tshmem/shmem4py.h). Its cffi
    # module is 3.5 MB of generated C: -O0 -g0 (appended after Python's own
    # -O3 -g, so it wins) compiles it in 10 s instead of 3 minutes, and the
    # tests check behaviour, not the speed of the bindings.
    if ! (cd "$src" && OSHCC="$OSHCC -include tshmem/shmem4py.h" CFLAGS="-O0 -g0" \
        "$py" setup.py build_ext --inplace) >"$WORK/build.log" 2>&1; then
        echo "FAIL: shmem4py does not build against libtshmem:" >&2
        grep -E 'error|warning' "$WORK/build.log" | head -n 30 >&2
        exit 1
    fi
}
exec 9>"$WORK/.lock"
flock 9
( prepare ) || exit $?
flock -u 9
[ "$cfg" = prepare ] && exit 0

# The suite: every PE runs the same unittest modules; the job fails if any PE fails.
cd "$WORK/src/test" || exit 1
PYTHONPATH=$WORK/src/src timeout -k 5 240 sh "$here/../mp/run_config.sh" "$cfg" "$OSHRUN" \
    -np "$np" "$WORK/venv/bin/python" -m unittest discover -q
