# Non-contiguous put and get (vector, indexed, strided): every form and
# shape byte for byte, IMMEDIATE, overlapping destinations; bad input.
tern_mp_test(NAME vis SOURCES vis.c RANKS 1 2 4 TIMEOUT 120)
tern_mp_test(NAME vis_bad SOURCES vis_bad.c RANKS 1 2)
# The network paths one by one: one RMA per piece (packing off), and
# packing into small messages (many per call, list pieces split across
# messages).
tern_mp_test(NAME vis_rma SOURCES vis.c RANKS 2 4 CONFIGS net mixed TIMEOUT 120
  ENV TERN_VIS_PACK_MAX=0)
tern_mp_test(NAME vis_pack_small SOURCES vis.c RANKS 2 4 CONFIGS net mixed TIMEOUT 120
  ENV TERN_VIS_PACK_MAX=64K TERN_AM_MEDIUM_MAX=600)
# Strided accumulate: every type and shape byte for byte, contention,
# bad input; over the network also with small messages (many per call)
# and with packing off (every piece a contiguous accumulate).
tern_mp_test(NAME vis_acc SOURCES vis_acc.c RANKS 1 2 4 TIMEOUT 120)
tern_mp_test(NAME vis_acc_pack_small SOURCES vis_acc.c RANKS 2 CONFIGS net mixed
  TIMEOUT 120 ENV TERN_VIS_PACK_MAX=64K TERN_AM_MEDIUM_MAX=600)
tern_mp_test(NAME vis_acc_nopack SOURCES vis_acc.c RANKS 2 CONFIGS net mixed TIMEOUT 120
  ENV TERN_VIS_PACK_MAX=0)
# Few message credits and a shallow send queue: IMMEDIATE accumulates are
# refused now and then, each whole (the others applied whole).
tern_mp_test(NAME vis_acc_scarce SOURCES vis_acc.c RANKS 2 4 CONFIGS net mixed TIMEOUT 120
  ENV TERN_AM_NET_CREDITS=2 TERN_OFI_TX_DEPTH=1)
# Forged packed messages sent straight to the internal handlers: refused
# at the target, nothing written, the reason logged. Linked with the
# library's internals (so built here rather than with tern_mp_test).
add_executable(mp_vis_forged ${CMAKE_CURRENT_SOURCE_DIR}/vis_forged.c
  ${CMAKE_CURRENT_SOURCE_DIR}/mp_util.c)
target_link_libraries(mp_vis_forged PRIVATE tern_internal)
target_include_directories(mp_vis_forged PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
foreach(cfg ${TERN_MP_CONFIGS})
  foreach(n 1 2)
    if(cfg STREQUAL "mixed" AND n LESS 2)
      continue()
    endif()
    set(tn mp.vis_forged.${cfg}.n${n})
    add_test(NAME ${tn} COMMAND ${PROJECT_SOURCE_DIR}/tests/mp/run_config.sh ${cfg}
      $<TARGET_FILE:ternrun> -n ${n} $<TARGET_FILE:mp_vis_forged>)
    set_tests_properties(${tn} PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77
      LABELS "mp;${cfg}")
  endforeach()
endforeach()
