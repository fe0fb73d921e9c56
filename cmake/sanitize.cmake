# TERN_SANITIZE: build every target (library, tools, benchmarks, tests) with
# the compiler's sanitizers, e.g. -DTERN_SANITIZE=address,undefined or
# -DTERN_SANITIZE=thread (scripts/test-sanitizers.sh builds and runs both).
# Every check aborts on its first finding (-fno-sanitize-recover=all), so a
# finding fails the test that made it. The suppression files for
# third-party libraries are in tests/sanitizers/; every test of such a
# build gets them, and the run-time options, through its environment.
set(TERN_SANITIZE "" CACHE STRING
  "Sanitizers for every target: address,undefined or thread (empty: none)")

# tern_sanitize_test_env(): appends TERN_SANITIZE_ENV to the environment of
# every test of the calling directory (CMake 3.25 sets test properties only
# in the directory that added the test). Every CMakeLists.txt that adds
# tests calls it at its end; tern_sanitize_check_dirs(), at the end of the
# top level, stops the configuration if one does not. Both do nothing
# without TERN_SANITIZE.
function(tern_sanitize_test_env)
  if(NOT TERN_SANITIZE)
    return()
  endif()
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(t ${tests})
    set(env ${TERN_SANITIZE_ENV})
    get_property(labels TEST ${t} PROPERTY LABELS)
    if(TERN_SANITIZE_ENV_DEEP AND ("pmix" IN_LIST labels OR "third_party" IN_LIST labels))
      set(env ${TERN_SANITIZE_ENV_DEEP})
    endif()
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT ${env})
    # Instrumented code runs several times slower: a timeout is there to
    # catch a hang, not to judge speed.
    get_property(timeout TEST ${t} PROPERTY TIMEOUT)
    if(timeout)
      math(EXPR timeout "${timeout} * ${TERN_SANITIZE_TIMEOUT_FACTOR}")
      set_property(TEST ${t} PROPERTY TIMEOUT ${timeout})
    endif()
  endforeach()
  set_property(DIRECTORY PROPERTY TERN_SANITIZE_ENV_SET TRUE)
endfunction()

function(tern_sanitize_check_dirs dir)
  if(NOT TERN_SANITIZE)
    return()
  endif()
  get_property(tests DIRECTORY ${dir} PROPERTY TESTS)
  get_property(done DIRECTORY ${dir} PROPERTY TERN_SANITIZE_ENV_SET)
  if(tests AND NOT done)
    message(FATAL_ERROR "${dir}/CMakeLists.txt adds tests but does not call "
      "tern_sanitize_test_env() at its end: its tests would run without the "
      "sanitizer options of tests/sanitizers/")
  endif()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(d ${subdirs})
    tern_sanitize_check_dirs(${d})
  endforeach()
endfunction()

if(NOT TERN_SANITIZE)
  return()
endif()

string(REPLACE "," ";" _tern_san_list "${TERN_SANITIZE}")
set(_tern_san_known address undefined thread leak)
foreach(s ${_tern_san_list})
  if(NOT s IN_LIST _tern_san_known)
    message(FATAL_ERROR "TERN_SANITIZE=${TERN_SANITIZE}: unknown sanitizer '${s}': "
      "use a comma-separated list of address, undefined, thread and leak, such as "
      "address,undefined or thread")
  endif()
endforeach()
if("thread" IN_LIST _tern_san_list AND
   ("address" IN_LIST _tern_san_list OR "leak" IN_LIST _tern_san_list))
  message(FATAL_ERROR "TERN_SANITIZE=${TERN_SANITIZE}: ThreadSanitizer cannot be combined "
    "with AddressSanitizer or LeakSanitizer; configure two builds "
    "(-DTERN_SANITIZE=address,undefined and -DTERN_SANITIZE=thread)")
endif()

set(TERN_SANITIZE_FLAGS -fsanitize=${TERN_SANITIZE} -fno-sanitize-recover=all
  -fno-omit-frame-pointer)
include(CheckCSourceCompiles)
string(REPLACE ";" " " CMAKE_REQUIRED_FLAGS "${TERN_SANITIZE_FLAGS}")
set(CMAKE_REQUIRED_LINK_OPTIONS ${TERN_SANITIZE_FLAGS})
check_c_source_compiles("int main(void) { return 0; }" TERN_SANITIZE_WORKS_${TERN_SANITIZE})
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(NOT TERN_SANITIZE_WORKS_${TERN_SANITIZE})
  message(FATAL_ERROR "TERN_SANITIZE=${TERN_SANITIZE}: ${CMAKE_C_COMPILER} cannot build "
    "and link with ${TERN_SANITIZE_FLAGS} (with gcc on Debian: apt-get install "
    "libasan8 libubsan1 libtsan2; see CMakeFiles/CMakeError.log)")
endif()
# -O1 (placed after the build type's -O2, so it wins): what the sanitizers'
# documentation recommends, and three times quicker to build instrumented
# (src/shmem/coll.c under ASan: 3.9 s at -O2 -g, 1.2 s at -O1 -g).
add_compile_options(${TERN_SANITIZE_FLAGS} -O1)
add_link_options(${TERN_SANITIZE_FLAGS})
message(STATUS "Sanitizers: ${TERN_SANITIZE_FLAGS}")

# Test timeouts are multiplied by this in a sanitized build.
if("thread" IN_LIST _tern_san_list)
  set(TERN_SANITIZE_TIMEOUT_FACTOR 3)
else()
  set(TERN_SANITIZE_TIMEOUT_FACTOR 2)
endif()

# Run-time options of every test (through tern_sanitize_test_env()): stop at
# the first finding with a failing exit status, which ternrun passes on as
# the job's; leak checking at each rank's exit; suppressions for third-party
# libraries only.
#
# The stack of every allocation is taken by the frame-pointer unwinder
# (ASan's default), except in tests labelled "pmix" or "third_party"
# (TERN_SANITIZE_ENV_DEEP: fast_unwind_on_malloc=0, the DWARF unwinder).
# Those run Open MPI, PMIx or hwloc's I/O discovery, whose known leaks
# lsan.supp names by a frame deep in the library; built without frame
# pointers, the libraries stop the fast unwinder before that frame, and
# the leak would be reported. Elsewhere the choice changes no finding:
# Tern's own code keeps its frame pointers (above), a leak is found
# whatever its stack, and a shorter stack can only make a suppression miss,
# which fails the test. Measured, every 8th test of the ASan selection
# (121), alternated in one lock hold: 60.6 and 55.8 s with the DWARF
# unwinder everywhere, 51.1 and 49.4 s with the fast one (user CPU 52.8
# and 46.8 s -> 37.0 and 35.1 s); the tests that then failed were the three
# MPI and PMIx ones of the sample, by a suppressed leak
# (docs/design/ci-time.md).
set(_tern_supp ${PROJECT_SOURCE_DIR}/tests/sanitizers)
set(TERN_SANITIZE_ENV)
set(TERN_SANITIZE_ENV_DEEP)
if("address" IN_LIST _tern_san_list)
  set(_asan "detect_leaks=1:halt_on_error=1:exitcode=1")
  list(APPEND TERN_SANITIZE_ENV "ASAN_OPTIONS=${_asan}")
  list(APPEND TERN_SANITIZE_ENV_DEEP "ASAN_OPTIONS=${_asan}:fast_unwind_on_malloc=0")
endif()
if("address" IN_LIST _tern_san_list OR "leak" IN_LIST _tern_san_list)
  set(_lsan "suppressions=${_tern_supp}/lsan.supp:print_suppressions=0")
  list(APPEND TERN_SANITIZE_ENV "LSAN_OPTIONS=${_lsan}")
  list(APPEND TERN_SANITIZE_ENV_DEEP "LSAN_OPTIONS=fast_unwind_on_malloc=0:${_lsan}")
endif()
if("undefined" IN_LIST _tern_san_list)
  list(APPEND TERN_SANITIZE_ENV "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=1")
endif()
if("thread" IN_LIST _tern_san_list)
  list(APPEND TERN_SANITIZE_ENV
    "TSAN_OPTIONS=halt_on_error=1:exitcode=66:second_deadlock_stack=1:suppressions=${_tern_supp}/tsan.supp")
endif()
if(TERN_SANITIZE_ENV_DEEP) # the same options but for the unwinder
  foreach(e ${TERN_SANITIZE_ENV})
    if(NOT e MATCHES "^(ASAN|LSAN)_OPTIONS=")
      list(APPEND TERN_SANITIZE_ENV_DEEP "${e}")
    endif()
  endforeach()
endif()
