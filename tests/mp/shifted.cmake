# Bad-input programs with every rank's segment a few MiB below its left
# neighbour's, overlapping it in address (shifted_layout.sh: ASLR off, the
# mmap area 4 MiB lower per rank): an address just past or below a peer's
# segment, as the peer sees it, then lies inside the caller's own segment,
# and the caller's own pointers inside a peer's segment. With ASLR this
# layout comes now and then by chance, and the tests' expected messages
# must not depend on it: mp.signal_order_none.net.n4 failed the fresh-clone
# CI's ASan run so (fixed by aff119e), and mp.bad_input's own-pointer
# refusal is only a mistake where no peer segment covers the pointer
# (mp_remote_overlap). 4 ranks, each with both neighbours overlapping.
# Skipped (77) where setarch -R or the stack limit cannot be had.
set(TERN_SHIFTED_SH ${CMAKE_CURRENT_SOURCE_DIR}/shifted_layout.sh)
foreach(case "bad_input" "signal;TERN_ORDER=none" "vis_bad" "atomic_bad")
  list(GET case 0 prog)
  set(env "")
  list(LENGTH case len)
  if(len GREATER 1)
    list(GET case 1 env)
  endif()
  tern_test_segment_env(env)
  set(cfgs net mixed)
  if(prog STREQUAL "bad_input")
    set(cfgs shm net mixed) # shm too: its own pointer in a mapped peer's range
  endif()
  foreach(cfg ${cfgs})
    if(NOT cfg IN_LIST TERN_MP_CONFIGS)
      continue()
    endif()
    set(tn mp.${prog}_shifted.${cfg}.n4)
    add_test(NAME ${tn} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run_config.sh ${cfg}
      $<TARGET_FILE:ternrun> -n 4 ${TERN_SHIFTED_SH} $<TARGET_FILE:mp_${prog}>)
    set_tests_properties(${tn} PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77
      LABELS "mp;${cfg}" ENVIRONMENT "${env}")
  endforeach()
endforeach()
