# tern_shared_executable(<var> <name> <key> <sources>...): adds the
# executable <name> built from <sources>, unless one was added before under
# the same <key> (sources and whatever else makes the program, such as its
# libraries): then <name> becomes an alias of that one. Tests of the same
# program in several settings share one executable, since each compile of a
# large test source costs seconds in every build CI makes. <var> is set to
# the real target (to link or depend on) and <var>_NEW to whether it is new
# (only a new one needs its libraries linked).
function(tern_shared_executable var name key)
  string(MD5 key "${CMAKE_CURRENT_SOURCE_DIR}|${key}")
  get_property(exe GLOBAL PROPERTY TERN_SHARED_EXE_${key})
  if(exe)
    add_executable(${name} ALIAS ${exe})
    set(${var}_NEW FALSE PARENT_SCOPE)
  else()
    set(exe ${name})
    set_property(GLOBAL PROPERTY TERN_SHARED_EXE_${key} ${exe})
    add_executable(${exe} ${ARGN})
    set(${var}_NEW TRUE PARENT_SCOPE)
  endif()
  set(${var} ${exe} PARENT_SCOPE)
endfunction()
