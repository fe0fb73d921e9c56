# Smoke test of scripts/bench-shmem.py: shmem-bench built with Tern's oshcc
# and Open MPI's, tiny rows, one run per configuration; checks the JSON's
# form (bench/shmem/check_smoke.py), never speed. Skips (77) after checking
# Tern's side when Open MPI's oshcc is absent.
find_program(TERN_PYTHON3 python3)
if(TERN_PYTHON3)
  foreach(cfg ${TERN_MP_CONFIGS})
    set(tn mp.bench_shmem.${cfg}.n2)
    add_test(NAME ${tn} COMMAND ${TERN_PYTHON3}
      ${PROJECT_SOURCE_DIR}/bench/shmem/check_smoke.py ${CMAKE_BINARY_DIR} ${cfg})
    set_tests_properties(${tn} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
      LABELS "mp;bench;shmem;${cfg};third_party") # Open MPI's OSHMEM
  endforeach()
endif()
