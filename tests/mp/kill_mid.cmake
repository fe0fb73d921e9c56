# A rank killed with SIGKILL in the middle of a long phase over the
# network (kill_mid.sh waits for the victim's "mark:" line, then kills it):
# the job ends within 15 s naming the rank and the signal. The phases:
# an AM flood (mp_am), ordered Short/Medium/Long streams (mp_am_order) and
# atomic contention on one word (mp_atomic), each made long by its count;
# shmem.kill_mid_coll (tests/shmem) kills a PE in OpenSHMEM collectives.
# net: 3 ranks; mixed: 4 ranks (2 nodes), the victim with a shm peer and
# network peers.
set(TERN_KILL_MID_SH ${CMAKE_CURRENT_SOURCE_DIR}/kill_mid.sh)
foreach(cfg net mixed)
  if(NOT cfg IN_LIST TERN_MP_CONFIGS)
    continue()
  endif()
  if(cfg STREQUAL "net")
    set(n 3)
  else()
    set(n 4)
  endif()
  math(EXPR victim "${n} - 1")
  foreach(case "am;TEST_AM_FLOOD=1000000000" "am_order;TEST_ORDER_COUNT=1000000000"
      "atomic;TEST_ATOMIC_COUNT=1000000000")
    list(GET case 0 prog)
    list(GET case 1 env)
    tern_test_segment_env(env)
    set(tn mp.kill_mid_${prog}.${cfg}.n${n})
    add_test(NAME ${tn} COMMAND ${TERN_KILL_MID_SH} ${cfg} ${victim}
      $<TARGET_FILE:ternrun> -n ${n} $<TARGET_FILE:mp_${prog}>)
    set_tests_properties(${tn} PROPERTIES TIMEOUT 150 LABELS "mp;${cfg}"
      ENVIRONMENT "${env}")
  endforeach()
endforeach()

# kill_mid.sh itself stopped by SIGTERM while it waits: exit 143, its job
# ended, no output file left (a stand-in job, no Tern program).
add_test(NAME mp.kill_mid_term COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/kill_mid_term.sh)
set_tests_properties(mp.kill_mid_term PROPERTIES TIMEOUT 60 LABELS "mp")
