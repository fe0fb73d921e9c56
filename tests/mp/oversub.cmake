# Oversubscription is judged per machine (tests/mp/oversub.c), which links
# the library internals to read the judgement. Every configuration, and
# simulated nodes finer than "mixed": one rank per node (--nodes 4 -n 4, the
# case of issue 7) and several.
tern_mp_test(NAME oversub SOURCES oversub.c RANKS 1 4 INTERNAL)
if(TERN_WITH_OFI)
  foreach(nk "4;4" "8;4" "3;2")
    list(GET nk 0 n)
    list(GET nk 1 k)
    set(tn mp.oversub.nodes${k}.n${n})
    add_test(NAME ${tn} COMMAND $<TARGET_FILE:ternrun> --nodes ${k} -n ${n}
      $<TARGET_FILE:mp_oversub> --nodes ${k})
    set_tests_properties(${tn} PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77
      LABELS "mp;mixed")
  endforeach()
endif()

# The memory check counts the machine too: four simulated nodes of one
# rank, each asking for 40% of the memory, must be refused before anything
# is allocated (without the fault-in, counting one node let it start).
if(TERN_WITH_OFI)
  add_test(NAME mp.oversub.memory_nodes4 COMMAND $<TARGET_FILE:ternrun> --nodes 4 -n 4
    $<TARGET_FILE:mp_hello>)
  set_tests_properties(mp.oversub.memory_nodes4 PROPERTIES TIMEOUT 60 LABELS "mp;mixed"
    ENVIRONMENT "TERN_SEGMENT_SIZE=40%;TERN_SEGMENT_FAULTIN=none"
    PASS_REGULAR_EXPRESSION "segments of 4 rank\\(s\\) on this machine need .* lower TERN_SEGMENT_SIZE")
endif()
