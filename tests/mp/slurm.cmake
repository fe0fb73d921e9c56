# Tests of the PMIx bootstrap under a real Slurm: each starts a private
# slurmctld + slurmd, runs "srun --mpi=pmix -n 4 prog" and stops them
# (tests/mp/run_srun.sh; they skip with 77, saying why, without Slurm, its
# PMIx plugin or root). Built only with PMIx; the programs come from
# pmix.cmake and core.cmake.
if(NOT TERN_WITH_PMIX)
  return()
endif()

set(TERN_SRUN_SH ${CMAKE_CURRENT_SOURCE_DIR}/run_srun.sh)

# Segments of 16 MiB, as in tern_mp_test (srun passes the environment on).
function(tern_slurm_test name)
  set_tests_properties(${name} PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77
    LABELS "mp;pmix;slurm;${ARGN}" ENVIRONMENT TERN_SEGMENT_SIZE=16M)
endfunction()

# Bootstrap level, below tern_init: identity, node keys, allgather, barrier.
add_test(NAME mp.slurm_boot.n4
  COMMAND ${TERN_SRUN_SH} 4 $<TARGET_FILE:mp_pmix_boot> 4 basic)
tern_slurm_test(mp.slurm_boot.n4)
# Slurm's answer to a fence that times out (PMIX_TIMEOUT) must leave the
# early ranks able to report and rank 0 able to end the job. In the
# failure tests below, a "still alive" line (a rank the launcher did not
# end) also counts, and so fails the test.
add_test(NAME mp.slurm_boot_timeout.n4
  COMMAND ${TERN_SRUN_SH} --expect-fail 3
  "pmix_boot timeout: rank [0-9]* checks passed\\|still alive\\|was not ended" 3
  4 $<TARGET_FILE:mp_pmix_boot> 4 timeout)
tern_slurm_test(mp.slurm_boot_timeout.n4)

# The native API and RMA checked byte for byte on every rank, in each
# transport configuration srun can have ("mixed" needs ternrun --nodes).
foreach(cfg ${TERN_MP_CONFIGS})
  if(cfg STREQUAL "mixed")
    continue()
  endif()
  set(nodes 1) # one machine, also with TERN_SHM=off (only the transport changes)
  add_test(NAME mp.slurm_api.${cfg}.n4
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run_config.sh ${cfg}
    ${TERN_SRUN_SH} 4 $<TARGET_FILE:mp_pmix_api> 4 basic ${nodes})
  tern_slurm_test(mp.slurm_api.${cfg}.n4 ${cfg})
  add_test(NAME mp.slurm_rma.${cfg}.n4
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run_config.sh ${cfg}
    ${TERN_SRUN_SH} 4 $<TARGET_FILE:mp_rma>)
  tern_slurm_test(mp.slurm_rma.${cfg}.n4 ${cfg})
endforeach()

# tern_abort on one rank ends the whole step with its status.
add_test(NAME mp.slurm_abort.n4
  COMMAND ${TERN_SRUN_SH} --expect-fail 5
  "deliberate tern_abort (ending the job with status 5)\\|still alive" 1
  4 $<TARGET_FILE:mp_pmix_api> 4 abort)
tern_slurm_test(mp.slurm_abort.n4)
# A rank that exits without tern_finalize: Slurm's PMIx plugin ends the
# step (the others are killed, so srun's status is theirs, 137).
add_test(NAME mp.slurm_exit.n4
  COMMAND ${TERN_SRUN_SH} --expect-fail nonzero
  "exits with 1 without tern_finalize\\|still alive" 1
  4 $<TARGET_FILE:mp_pmix_api> 4 exit)
tern_slurm_test(mp.slurm_exit.n4)
