# Topology awareness (docs/design/topology.md): copies through the fast
# path in every TERN_SHM_TOPO mode, distance classes and thresholds in real
# and simulated jobs (the simulated ones take the XML and synthetic
# topologies of tests/topo/ and check tables written here), and the tools'
# cases in tests/topo/topo_cases.sh.
#
# topo_copy links the library internals to read the peer table; it is built
# here, as most of its tests below run it with ternrun options of their own.
add_executable(mp_topo_copy ${CMAKE_CURRENT_SOURCE_DIR}/topo_copy.c
  ${CMAKE_CURRENT_SOURCE_DIR}/mp_util.c)
target_link_libraries(mp_topo_copy PRIVATE tern_internal)
target_include_directories(mp_topo_copy PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})

set(_topo_xml ${PROJECT_SOURCE_DIR}/tests/topo/2pkg-4numa-2l3-nic.xml)

# This machine: every mode, byte for byte; on a node with one L3 every pair
# of ranks shares it. auto also in the network and mixed configurations.
foreach(mode auto on off)
  set(_cfgs shm)
  if(mode STREQUAL "auto")
    set(_cfgs ${TERN_MP_CONFIGS})
  endif()
  foreach(cfg ${_cfgs})
    foreach(n 1 2 4)
      if(cfg STREQUAL "mixed" AND n LESS 2)
        continue()
      endif()
      set(tn mp.topo.copy_${mode}.${cfg}.n${n})
      add_test(NAME ${tn} COMMAND ${PROJECT_SOURCE_DIR}/tests/mp/run_config.sh ${cfg}
        $<TARGET_FILE:ternrun> -n ${n} $<TARGET_FILE:mp_topo_copy> --mode ${mode}
        --all-local same-l3)
      set_tests_properties(${tn} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
        LABELS "mp;topo;${cfg}" ENVIRONMENT "TERN_SHM_TOPO=${mode}")
    endforeach()
  endforeach()
endforeach()
# Above the measured threshold of this machine (tens of MiB), two ranks.
add_test(NAME mp.topo.copy_big.shm.n2 COMMAND $<TARGET_FILE:ternrun> -n 2
  $<TARGET_FILE:mp_topo_copy> --big)
set_tests_properties(mp.topo.copy_big.shm.n2 PROPERTIES TIMEOUT 120
  SKIP_RETURN_CODE 77 LABELS "mp;topo;shm" ENVIRONMENT "TERN_SEGMENT_SIZE=64M")

# Simulated topologies: ternrun plans the bindings on the described machine
# and hands each rank its CPU set; thresholds estimated from the L3 size
# (16 MiB in both descriptions: hot 16777216, cold 65536) so that the
# decisions are known in advance.
set(_sim_env "TERN_WAIT_MODE=yield;TERN_SHM_CALIBRATE=never;TERN_SEGMENT_SIZE=8M")
set(_hot 16777216)
set(_cold 65536)
function(_topo_sim name env)
  add_test(NAME mp.topo.sim_${name} COMMAND $<TARGET_FILE:ternrun> ${ARGN})
  set_tests_properties(mp.topo.sim_${name} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
    LABELS "mp;topo" ENVIRONMENT "${_sim_env};${env}")
endfunction()
# 2 packages x 4 NUMA x 2 L3 x 2 cores, spread: cores 0, 16, 1, 17
_topo_sim(xml_spread "HWLOC_XMLFILE=${_topo_xml}" -n 4 --map-by spread
  $<TARGET_FILE:mp_topo_copy>
  --classes "0-1=other-package,0-2=same-l3,0-3=other-package,1-2=other-package,1-3=same-l3,2-3=other-package"
  --thr "self=${_hot}/${_hot},same-l3=${_hot}/${_hot},other-package=${_cold}/${_hot}")
# packed on cores 0-7: one L3 per pair, one NUMA domain per four
_topo_sim(xml_packed "HWLOC_XMLFILE=${_topo_xml}" -n 8 --bind-to core
  $<TARGET_FILE:mp_topo_copy>
  --classes "0-1=same-l3,0-2=same-numa,0-3=same-numa,0-4=other-numa,3-4=other-numa,5-6=same-numa,6-7=same-l3,1-7=other-numa"
  --thr "same-l3=${_hot}/${_hot},same-numa=${_cold}/${_hot},other-numa=${_cold}/${_hot}")
# nearest to mlx5_0 (package 1), bound to NUMA domains: both on NUMA 4
_topo_sim(xml_dist_numa "HWLOC_XMLFILE=${_topo_xml}" -n 2 --map-by dist:mlx5_0
  --bind-to numa $<TARGET_FILE:mp_topo_copy> --classes "0-1=same-numa"
  --thr "same-numa=${_cold}/${_hot}")
# nearest to eth0 (NUMA 1): cores 4-7, then 0
_topo_sim(xml_dist_eth "HWLOC_XMLFILE=${_topo_xml}" -n 5 --map-by dist:eth0
  $<TARGET_FILE:mp_topo_copy>
  --classes "0-1=same-l3,0-2=same-numa,3-4=other-numa,0-4=other-numa")
# non-temporal everywhere, whatever the class
_topo_sim(xml_on "HWLOC_XMLFILE=${_topo_xml};TERN_SHM_TOPO=on" -n 2 --map-by spread
  $<TARGET_FILE:mp_topo_copy> --mode on --classes "0-1=other-package"
  --thr "other-package=0/0,self=0/0")
# 2 packages x 1 NUMA x 1 L3 x 8 cores
_topo_sim(2x8 "HWLOC_SYNTHETIC=pack:2 numa:1 l3:1 core:8 pu:1" -n 4 --map-by spread
  $<TARGET_FILE:mp_topo_copy>
  --classes "0-1=other-package,0-2=same-l3,1-3=same-l3,2-3=other-package"
  --thr "same-l3=${_hot}/${_hot},other-package=${_cold}/${_hot}")

# ternrun, tern-info and bad input through the tools.
set(TOPO_CASES report_bindings bind_levels oversubscribe dist_unknown dist_order
  bad_topology segment_bind7 verbose_report unbound_warning tern_info)
foreach(c ${TOPO_CASES})
  add_test(NAME mp.topo.${c}
    COMMAND sh ${PROJECT_SOURCE_DIR}/tests/topo/topo_cases.sh ${c}
      $<TARGET_FILE:ternrun> $<TARGET_FILE:tern-info> $<TARGET_FILE:ternrun_boot>
      $<TARGET_FILE:mp_hello> $<TARGET_FILE:mp_topo_copy>)
  set_tests_properties(mp.topo.${c} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
    LABELS "mp;topo")
endforeach()

# Smoke tests of the topology benchmarks (form, never speed): tiny sizes,
# one round, --json checked by bench/check_json.py.
find_program(TERN_PYTHON3 python3)
if(TERN_PYTHON3)
  set(_tbc ${TERN_PYTHON3} ${PROJECT_SOURCE_DIR}/bench/check_json.py)
  add_test(NAME mp.bench_copy COMMAND ${_tbc} --bench copy --min-rows 6 --
    $<TARGET_FILE:tern-bench> copy --json --sizes 64,8M --trials 1 --warmup 0)
  add_test(NAME mp.bench_topo_put COMMAND ${_tbc} --bench topo_put --min-rows 12 --
    $<TARGET_FILE:tern-bench> topo_put --json --sizes 64,1M --trials 1 --warmup 0)
  add_test(NAME mp.bench_stream COMMAND ${_tbc} --bench stream --min-rows 6 --
    $<TARGET_FILE:tern-bench> stream --json --size 24M --trials 1 --warmup 0)
  set_tests_properties(mp.bench_copy mp.bench_topo_put mp.bench_stream PROPERTIES
    TIMEOUT 180 SKIP_RETURN_CODE 77 LABELS "mp;bench;topo"
    ENVIRONMENT "TB_TERNRUN=$<TARGET_FILE:ternrun>")
endif()
