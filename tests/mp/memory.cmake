# Memory accounting (tern_memory_report, issue 13): every configuration,
# two job sizes in the program (mem_report.c) and compared between two job
# sizes (mem_report.sh). Sanitizer runtimes add private memory beside every
# allocation: the comparison with RssAnon is left out there.
set(_mem_rss_check 1)
if(TERN_SANITIZE)
  set(_mem_rss_check 0)
endif()
tern_mp_test(NAME mem_report SOURCES mem_report.c RANKS 2 8
  ENV TERN_SEGMENT_SIZE=1M MP_MEM_RSS_CHECK=${_mem_rss_check})
foreach(cfg ${TERN_MP_CONFIGS})
  add_test(NAME mp.mem_report_sizes.${cfg} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/mem_report.sh
    ${CMAKE_CURRENT_SOURCE_DIR}/run_config.sh ${cfg} $<TARGET_FILE:ternrun>
    $<TARGET_FILE:mp_mem_report> 2 16 $<TARGET_FILE:tern-info>)
  set_tests_properties(mp.mem_report_sizes.${cfg} PROPERTIES TIMEOUT 180 LABELS "mp;${cfg}"
    ENVIRONMENT MP_MEM_RSS_CHECK=${_mem_rss_check})
endforeach()

# Bytes allocated per rank never contacted (peer_growth.sh; node-shared
# peer tables): two job sizes per configuration, each a job of its own.
add_executable(mp_peer_growth peer_growth.c)
target_link_libraries(mp_peer_growth PRIVATE tern_mp_util)
foreach(cfg ${TERN_MP_CONFIGS})
  add_test(NAME mp.peer_growth.${cfg} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/peer_growth.sh
    ${cfg} $<TARGET_FILE:ternrun> $<TARGET_FILE:mp_peer_growth> 4 24)
  set_tests_properties(mp.peer_growth.${cfg} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
    LABELS "mp;${cfg}")
endforeach()

# The node's peer table and its fallback, a private copy in each rank
# (peertab.c): read in place, the node's table not made
# (TERN_TEST_FAULT=peertab:create), not mapped by the node's other ranks
# (peertab:map); and a bad fault name refused.
tern_mp_test(NAME peertab SOURCES peertab.c RANKS 4 ARGS shared ENV TERN_SEGMENT_SIZE=1M)
foreach(f create map)
  tern_mp_test(NAME peertab_${f} SOURCES peertab.c RANKS 4 ARGS ${f}
    ENV TERN_SEGMENT_SIZE=1M TERN_TEST_FAULT=peertab:${f})
endforeach()
foreach(cfg ${TERN_MP_CONFIGS})
  add_test(NAME mp.peertab_bad_fault.${cfg}.n2 COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run_config.sh
    ${cfg} $<TARGET_FILE:ternrun> -n 2 $<TARGET_FILE:mp_peertab> shared)
  set_tests_properties(mp.peertab_bad_fault.${cfg}.n2 PROPERTIES TIMEOUT 60
    LABELS "mp;${cfg}" ENVIRONMENT "TERN_TEST_FAULT=peertab:bogus"
    PASS_REGULAR_EXPRESSION "TERN_TEST_FAULT='peertab:bogus' is not peertab:create or peertab:map")
endforeach()

# A peer that exits before anyone contacts it (issue 13): the job ends,
# the launcher names it, nothing hangs (peer_gone.c, peer_gone.sh).
add_executable(mp_peer_gone peer_gone.c)
target_link_libraries(mp_peer_gone PRIVATE tern_mp_util)
tern_mp_script_test(NAME peer_gone SCRIPT peer_gone.sh PROGRAM mp_peer_gone RANKS 2 4
  TIMEOUT 90)
