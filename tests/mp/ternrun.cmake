# ternrun and the bootstrap it serves (tests/mp/ternrun_*). The boot test
# uses the boot API directly, so it runs whatever state the transports are
# in; the failure cases are in ternrun_cases.sh.
add_executable(ternrun_boot ${CMAKE_CURRENT_SOURCE_DIR}/ternrun_boot.c)
target_link_libraries(ternrun_boot PRIVATE tern_internal)

# More ranks than cores on purpose: start-up must stay fast when ranks
# share cores.
foreach(n 1 2 4 8 16)
  add_test(NAME mp.ternrun.boot.n${n}
    COMMAND $<TARGET_FILE:ternrun> -n ${n} $<TARGET_FILE:ternrun_boot>)
  set_tests_properties(mp.ternrun.boot.n${n} PROPERTIES TIMEOUT 20
    SKIP_RETURN_CODE 77 LABELS "mp;ternrun")
endforeach()

# Without a launcher: rank 0 of 1.
add_test(NAME mp.ternrun.boot.single COMMAND $<TARGET_FILE:ternrun_boot>)
set_tests_properties(mp.ternrun.boot.single PROPERTIES TIMEOUT 20
  SKIP_RETURN_CODE 77 LABELS "mp;ternrun")

set(TERNRUN_CASES crash exit_code no_fini abort abort_then_crash exit_then_crash
  abort_then_exit abort_then_no_fini exit_then_no_fini failed_then_exit crash_then_kill dropped
  left_early mismatch n0 nabc
  unknown_option missing_program no_init sigterm sigint launcher_killed
  launcher_gone no_launcher report_bindings bind_numa tag_output helper_killed
  startup_fast nodes non_tern np version bad_values cwd_program nodes_report)
foreach(c ${TERNRUN_CASES})
  add_test(NAME mp.ternrun.${c}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/ternrun_cases.sh ${c}
      $<TARGET_FILE:ternrun> $<TARGET_FILE:ternrun_boot>)
  set_tests_properties(mp.ternrun.${c} PROPERTIES TIMEOUT 30
    SKIP_RETURN_CODE 77 LABELS "mp;ternrun")
endforeach()

# The same failures through a real Tern program (tern_init, shm barrier).
add_executable(ternrun_tern ${CMAKE_CURRENT_SOURCE_DIR}/ternrun_tern.c)
target_link_libraries(ternrun_tern PRIVATE tern)
foreach(c tern_ok tern_crash tern_abort tern_no_final tern_no_init tern_exit_mid)
  add_test(NAME mp.ternrun.${c}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/ternrun_cases.sh ${c}
      $<TARGET_FILE:ternrun> $<TARGET_FILE:ternrun_tern>)
  set_tests_properties(mp.ternrun.${c} PROPERTIES TIMEOUT 30
    SKIP_RETURN_CODE 77 LABELS "mp;ternrun")
endforeach()

# The bootstrap's key-value store (lazy network addressing, issue 13):
# under ternrun, and alone (no store).
add_executable(mp_boot_kv ${CMAKE_CURRENT_SOURCE_DIR}/boot_kv.c)
target_link_libraries(mp_boot_kv PRIVATE tern_internal)
foreach(n 2 8)
  add_test(NAME mp.boot_kv.ternrun.n${n}
    COMMAND $<TARGET_FILE:ternrun> -n ${n} $<TARGET_FILE:mp_boot_kv>)
  set_tests_properties(mp.boot_kv.ternrun.n${n} PROPERTIES TIMEOUT 30
    SKIP_RETURN_CODE 77 LABELS "mp;ternrun")
endforeach()
add_test(NAME mp.boot_kv.single COMMAND $<TARGET_FILE:mp_boot_kv>)
set_tests_properties(mp.boot_kv.single PROPERTIES TIMEOUT 30 LABELS "mp;ternrun")
