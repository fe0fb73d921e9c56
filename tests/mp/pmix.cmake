# Tests of the PMIx bootstrap under Open MPI's mpirun (tests/mp/run_mpirun.sh;
# they skip with 77 when mpirun.openmpi is absent). Built only with PMIx.
if(NOT TERN_WITH_PMIX)
  return()
endif()

set(TERN_MPIRUN_SH ${CMAKE_CURRENT_SOURCE_DIR}/run_mpirun.sh)

# tern_pmix_test(NAME name RANKS n... COMMAND prog args... [EXPECT_FAIL ...]
#                [ENV VAR=value...])
# Test mp.<name>.n<N> runs "run_mpirun.sh [--expect-fail ...] N prog args";
# the literal @N@ in args is replaced by N. Segments of 16 MiB unless ENV
# sets a size, as in tern_mp_test.
function(tern_pmix_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "RANKS;COMMAND;EXPECT_FAIL;ENV" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  tern_test_segment_env(T_ENV) # as tern_mp_test
  set(fail)
  if(T_EXPECT_FAIL)
    set(fail --expect-fail ${T_EXPECT_FAIL})
  endif()
  foreach(n ${T_RANKS})
    string(REPLACE "@N@" "${n}" cmd "${T_COMMAND}")
    set(tn mp.${T_NAME}.n${n})
    add_test(NAME ${tn} COMMAND ${TERN_MPIRUN_SH} ${fail} ${n} ${cmd})
    set_tests_properties(${tn} PROPERTIES TIMEOUT ${T_TIMEOUT}
      SKIP_RETURN_CODE 77 LABELS "mp;pmix" ENVIRONMENT "${T_ENV}")
  endforeach()
endfunction()

# Bootstrap level: tn_boot_create under mpirun, below tern_init.
add_executable(mp_pmix_boot ${CMAKE_CURRENT_SOURCE_DIR}/pmix_boot.c)
target_link_libraries(mp_pmix_boot PRIVATE tern_internal)

tern_pmix_test(NAME pmix_boot RANKS 2 4
  COMMAND $<TARGET_FILE:mp_pmix_boot> @N@ basic)
tern_pmix_test(NAME pmix_boot_late RANKS 2 4
  COMMAND $<TARGET_FILE:mp_pmix_boot> @N@ late)
# N-1 early ranks each report their checks; rank 0 then aborts with 3.
tern_pmix_test(NAME pmix_boot_timeout RANKS 2
  EXPECT_FAIL 3 "pmix_boot timeout: rank [0-9]* checks passed" 1
  COMMAND $<TARGET_FILE:mp_pmix_boot> @N@ timeout)
tern_pmix_test(NAME pmix_boot_timeout RANKS 4
  EXPECT_FAIL 3 "pmix_boot timeout: rank [0-9]* checks passed" 3
  COMMAND $<TARGET_FILE:mp_pmix_boot> @N@ timeout)
tern_pmix_test(NAME pmix_boot_abort RANKS 4
  EXPECT_FAIL 7 "deliberate abort from rank 3 (ending the job with status 7)" 1
  COMMAND $<TARGET_FILE:mp_pmix_boot> @N@ abort)

# Native API under mpirun: tern_init bootstraps through PMIx. Run in each
# transport configuration that run_config.sh can set up around mpirun:
# "mixed" simulates nodes with ternrun --nodes, which mpirun cannot do.
add_executable(mp_pmix_api ${CMAKE_CURRENT_SOURCE_DIR}/pmix_api.c)
target_link_libraries(mp_pmix_api PRIVATE tern_mp_util)
foreach(cfg ${TERN_MP_CONFIGS})
  if(cfg STREQUAL "mixed")
    continue()
  endif()
  foreach(n 1 2 4)
    set(nodes 1) # one machine, also with TERN_SHM=0 (only the transport changes)
    set(tn mp.pmix_api.${cfg}.n${n})
    add_test(NAME ${tn} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run_config.sh ${cfg}
      ${TERN_MPIRUN_SH} ${n} $<TARGET_FILE:mp_pmix_api> ${n} basic ${nodes})
    set_tests_properties(${tn} PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77
      LABELS "mp;pmix;${cfg}" ENVIRONMENT TERN_SEGMENT_SIZE=16M)
  endforeach()
endforeach()
tern_pmix_test(NAME pmix_api_abort RANKS 4
  EXPECT_FAIL 5 "deliberate tern_abort (ending the job with status 5)" 1
  COMMAND $<TARGET_FILE:mp_pmix_api> @N@ abort)
# Under Open MPI 4's mpirun an abort is a non-zero exit (see
# pmix_boot_abort in src/boot/boot_pmix.c); with that mpirun told not to end
# the job on a non-zero exit, it must go through PMIx_Abort instead. Only
# the API test does that: with ranks waiting in a PMIx fence (as in the
# boot test), PMIx_Abort makes this mpirun crash or hang at its own exit
# now and then.
tern_pmix_test(NAME pmix_api_abort_pmix RANKS 4
  ENV OMPI_MCA_orte_abort_on_non_zero_status=0
  EXPECT_FAIL 5 "deliberate tern_abort (ending the job with status 5)" 1
  COMMAND $<TARGET_FILE:mp_pmix_api> @N@ abort)

# tern_init failing on one rank under mpirun: every rank gets the error
# (tests/mp/init_fail.c, built by core.cmake).
tern_pmix_test(NAME pmix_init_fail RANKS 2 4 COMMAND $<TARGET_FILE:mp_init_fail>
  ENV TEST_FAIL=memory)

# The key-value store through PMIx (PMIx_Put, then PMIx_Get on demand).
tern_pmix_test(NAME boot_kv.pmix RANKS 2 4 COMMAND $<TARGET_FILE:mp_boot_kv>)

# Simulated nodes under mpirun (scripts/mpirun-nodes.sh sets TERN_BOOT_NODE,
# which the PMIx bootstrap takes as the node): the collectives test in the
# mixed configuration, booted through PMIx, as tern-bench-mpi coll runs it
# against MPI.
tern_pmix_test(NAME coll_pmix_nodes RANKS 4 TIMEOUT 180
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/mpirun-nodes.sh 2 $<TARGET_FILE:mp_coll>
  ENV MP_EXPECT_NODES=2)

# A symmetric allocation's exchange through PMIx drives progress while it
# waits (launcher_wait.c), over the network where messages wait for credit.
tern_pmix_test(NAME pmix_launcher_wait RANKS 2 ENV TERN_SHM=off
  COMMAND $<TARGET_FILE:mp_launcher_wait>)
