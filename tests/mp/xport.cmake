# The transport contract (tests/mp/xport_contract.c): every transport the
# configuration creates, through its ops table. Linked with the library
# internals (the registry, the segment), so built here rather than with
# tern_mp_test (which links the shared library).
add_executable(mp_xport_contract ${CMAKE_CURRENT_SOURCE_DIR}/xport_contract.c
  ${CMAKE_CURRENT_SOURCE_DIR}/mp_util.c)
target_link_libraries(mp_xport_contract PRIVATE tern_internal)
target_include_directories(mp_xport_contract PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})

function(_xport_contract suffix env)
  foreach(cfg ${ARGN})
    foreach(n 1 2 4)
      if(cfg STREQUAL "mixed" AND n LESS 2)
        continue()
      endif()
      set(tn mp.xport_contract${suffix}.${cfg}.n${n})
      add_test(NAME ${tn} COMMAND ${PROJECT_SOURCE_DIR}/tests/mp/run_config.sh ${cfg}
        $<TARGET_FILE:ternrun> -n ${n} $<TARGET_FILE:mp_xport_contract>)
      set_tests_properties(${tn} PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77
        LABELS "mp;${cfg}" ENVIRONMENT "${env}")
    endforeach()
  endforeach()
endfunction()
_xport_contract("" "" ${TERN_MP_CONFIGS})
# Transfers of several fragments through the network transport.
if(TERN_WITH_OFI)
  _xport_contract("_frag" "TERN_OFI_MAX_MSG=4K" net mixed)
endif()
