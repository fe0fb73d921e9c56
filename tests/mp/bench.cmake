# Smoke tests of tern-bench: each subcommand runs with tiny sizes and
# iteration counts and --json, and bench/check_json.py checks that every
# output line is a JSON object with the keys a row must have. They test
# form, never speed: performance goals do not belong in tests.
find_program(TERN_PYTHON3 python3)
if(NOT TERN_PYTHON3)
  message(STATUS "python3 not found: tern-bench smoke tests not registered")
  return()
endif()

set(_tb_check ${TERN_PYTHON3} ${PROJECT_SOURCE_DIR}/bench/check_json.py)
set(_tb_quick --json --trials 3 --warmup 0)

# Subcommands that run under ternrun: name, minimum rows, arguments. The
# segment (the default 64 MiB) is not faulted in at start-up: these rows
# touch little of it (gups' 8 MiB table the most), and populating all of
# it was most of a short job's CPU (tern_test_segment_env in CMakeLists.txt).
# mp.bench_faultin and mp.bench_startup measure the fault-in; the bounded
# rows (_tern_bench_bounded below) keep it.
function(_tern_bench_mp sub rows)
  foreach(cfg ${TERN_MP_CONFIGS})
    set(tn mp.bench_${sub}.${cfg}.n2)
    add_test(NAME ${tn} COMMAND ${_tb_check} --bench ${sub} --min-rows ${rows} --
      ${PROJECT_SOURCE_DIR}/tests/mp/run_config.sh ${cfg}
      $<TARGET_FILE:ternrun> -n 2 $<TARGET_FILE:tern-bench> ${sub} ${_tb_quick} ${ARGN})
    set_tests_properties(${tn} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
      LABELS "mp;bench;${cfg}" ENVIRONMENT TERN_SEGMENT_FAULTIN=none)
  endforeach()
endfunction()

_tern_bench_mp(put_lat 6 --sizes 8:32 --iters 100)
_tern_bench_mp(get_lat 6 --sizes 8:32 --iters 100)
_tern_bench_mp(put_bw 2 --sizes 4K:8K --iters 16 --window 4)
_tern_bench_mp(get_bw 2 --sizes 4K:8K --iters 16 --window 4)
_tern_bench_mp(put_pingpong 3 --sizes 8:32 --iters 50)
_tern_bench_mp(put_rate 2 --iters 1000)
_tern_bench_mp(summary 5 --iters 4)
_tern_bench_mp(am_lat 5 --sizes 8:64 --iters 50)
_tern_bench_mp(am_rate 2 --iters 200)
_tern_bench_mp(am_bw 8 --sizes 256,4K --iters 50)
_tern_bench_mp(am_sched 3 --iters 12)
_tern_bench_mp(amo 6 --iters 200)
# --rows: exactly the rows named, in the bench's order; a name no row has
# is refused, naming it.
foreach(cfg ${TERN_MP_CONFIGS})
  set(tn mp.bench_amo_rows.${cfg}.n2)
  add_test(NAME ${tn} COMMAND ${_tb_check} --bench amo --ops fadd_lat_u32,hotspot_u64 --
    ${PROJECT_SOURCE_DIR}/tests/mp/run_config.sh ${cfg}
    $<TARGET_FILE:ternrun> -n 2 $<TARGET_FILE:tern-bench> amo ${_tb_quick} --iters 200
    --rows hotspot_u64,fadd_lat_u32)
  set_tests_properties(${tn} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
    LABELS "mp;bench;${cfg}")
endforeach()
add_test(NAME mp.bench_amo_rows_bad.shm.n1 COMMAND $<TARGET_FILE:ternrun> -n 1
  $<TARGET_FILE:tern-bench> amo --rows hotspot_u64,hotspot_u6)
set_tests_properties(mp.bench_amo_rows_bad.shm.n1 PROPERTIES TIMEOUT 60
  PASS_REGULAR_EXPRESSION "amo has no row 'hotspot_u6'" LABELS "mp;bench;shm")
_tern_bench_mp(order 6 --sizes 8,4K --iters 200)
_tern_bench_mp(acc 4 --sizes 8:64 --iters 50)
_tern_bench_mp(gups 1 --iters 2000)
_tern_bench_mp(coll 9 --sizes 8,4K --iters 50)
_tern_bench_mp(vis 12 --sizes 16,4K --iters 20 --window 2)
# coll at 8 ranks: fcollect and alltoall of 1 MiB per rank receive 8 MiB,
# which the bench used to skip without a word (its buffers were 4 MiB
# whatever the job); now they are sized for 16 ranks at the largest size.
add_test(NAME mp.bench_coll_rows.shm.n8 COMMAND ${_tb_check} --bench coll
  --ops fcollect,fcollect,alltoall,alltoall --
  ${PROJECT_SOURCE_DIR}/tests/mp/run_config.sh shm
  $<TARGET_FILE:ternrun> -n 8 $<TARGET_FILE:tern-bench> coll ${_tb_quick} --sizes 8,1M
  --iters 4 --rows fcollect,alltoall)
set_tests_properties(mp.bench_coll_rows.shm.n8 PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
  LABELS "mp;bench;shm")
# broadcast_all (the broadcast until every rank is done) comes only when
# named in --rows, right after broadcast.
if(TARGET tern-bench-mpi)
  add_test(NAME mp.bench_coll_bcast_all_mpi.n2 COMMAND ${_tb_check} --bench coll
    --ops broadcast,broadcast,broadcast_all,broadcast_all,alltoall,alltoall --
    ${PROJECT_SOURCE_DIR}/tests/mp/run_mpirun.sh 2 $<TARGET_FILE:tern-bench-mpi> coll
    ${_tb_quick} --sizes 8,4K --iters 50 --rows alltoall,broadcast_all,broadcast)
  set_tests_properties(mp.bench_coll_bcast_all_mpi.n2 PROPERTIES TIMEOUT 120
    SKIP_RETURN_CODE 77 LABELS "mp;bench;shm;third_party")
endif()
# vis --rows: the rows named, in the bench's order, at every size; a name
# no row has is refused, naming it.
add_test(NAME mp.bench_vis_rows.shm.n2 COMMAND ${_tb_check} --bench vis
  --ops strided_32d,indexed,strided_32d,indexed --
  ${PROJECT_SOURCE_DIR}/tests/mp/run_config.sh shm
  $<TARGET_FILE:ternrun> -n 2 $<TARGET_FILE:tern-bench> vis ${_tb_quick} --sizes 16,4K
  --iters 20 --window 2 --rows indexed,strided_32d)
set_tests_properties(mp.bench_vis_rows.shm.n2 PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
  LABELS "mp;bench;shm")
add_test(NAME mp.bench_vis_rows_bad.shm.n1 COMMAND $<TARGET_FILE:ternrun> -n 1
  $<TARGET_FILE:tern-bench> vis --rows indexed,strided_2d)
set_tests_properties(mp.bench_vis_rows_bad.shm.n1 PROPERTIES TIMEOUT 60
  PASS_REGULAR_EXPRESSION "vis has no row 'strided_2d'" LABELS "mp;bench;shm")
_tern_bench_mp(vis_elem 2 --sizes 8,1K --iters 4 --window 2)
if(TERN_WITH_OFI)
  _tern_bench_mp(net 5 --iters 20)
endif()

# Bounded rows: at default iteration caps a network row used to run 10^6
# operations whatever one costs (put_lat took over twelve minutes). With a
# small --row-time every subcommand must end well inside the timeout given
# to check_json.py, on every configuration (issue 7).
function(_tern_bench_bounded sub)
  foreach(cfg ${TERN_MP_CONFIGS})
    set(tn mp.bench_bounded_${sub}.${cfg}.n2)
    add_test(NAME ${tn} COMMAND ${_tb_check} --bench ${sub} --min-rows 1 --timeout 30 --
      ${PROJECT_SOURCE_DIR}/tests/mp/run_config.sh ${cfg}
      $<TARGET_FILE:ternrun> -n 2 $<TARGET_FILE:tern-bench> ${sub} --json --trials 3
      --warmup 1 --row-time 0.05 ${ARGN})
    set_tests_properties(${tn} PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77
      LABELS "mp;bench;${cfg}")
  endforeach()
endfunction()

_tern_bench_bounded(put_lat --sizes 8,1M)
_tern_bench_bounded(get_lat --sizes 8,1M)
_tern_bench_bounded(put_pingpong --sizes 8,64K)
_tern_bench_bounded(put_rate)
_tern_bench_bounded(put_bw --sizes 4K,64M)
_tern_bench_bounded(summary)
_tern_bench_bounded(am_lat --sizes 8,8K)
_tern_bench_bounded(am_rate)
_tern_bench_bounded(am_bw --sizes 256,1M)
_tern_bench_bounded(am_sched --iters 12)
_tern_bench_bounded(amo)
_tern_bench_bounded(acc --sizes 8,4M)
_tern_bench_bounded(gups)
_tern_bench_bounded(coll --sizes 8,1M)

# tern-bench-mpi coll under mpirun (its rows against MPI's collectives).
if(TARGET tern-bench-mpi)
  add_test(NAME mp.bench_coll_mpi.n2 COMMAND ${_tb_check} --bench coll --min-rows 9 --
    ${PROJECT_SOURCE_DIR}/tests/mp/run_mpirun.sh 2 $<TARGET_FILE:tern-bench-mpi> coll
    ${_tb_quick} --sizes 8,4K --iters 50)
  set_tests_properties(mp.bench_coll_mpi.n2 PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
    LABELS "mp;bench;shm;third_party")
  # tern-bench-mpi amo: its rows against MPI-3 RMA atomics, on one node
  # (Open MPI 4.1.4's osc rdma crashes in its vader BTL here, so osc sm)
  # and over tcp (osc pt2pt on the tcp BTL; Tern with TERN_SHM=off).
  foreach(cfg shm net)
    set(tn mp.bench_amo_mpi.${cfg}.n2)
    add_test(NAME ${tn} COMMAND ${_tb_check} --bench amo --min-rows 6 --
      ${PROJECT_SOURCE_DIR}/tests/mp/run_mpirun.sh 2 $<TARGET_FILE:tern-bench-mpi> amo
      ${_tb_quick} --iters 100)
    set(env "OMPI_MCA_osc=^rdma")
    if(cfg STREQUAL "net")
      set(env "OMPI_MCA_osc=pt2pt;OMPI_MCA_btl=self,tcp;TERN_SHM=off")
    endif()
    set_tests_properties(${tn} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
      LABELS "mp;bench;${cfg};third_party" ENVIRONMENT "${env}")
  endforeach()
endif()
# vis: one trial and no warm-up. A row of 64 KiB over the network costs at
# least (warm-up + trials) x (one Tern operation + one baseline loop of
# 8192 puts) whatever --row-time says, tens of milliseconds each, so with
# 3 + 1 the 24 rows took 8 s alone and 20 s in a loaded CI run (of the
# 30 s bound). What the test checks, that a row's operation count comes
# from --row-time and not from the 10^6 cap, does not depend on the trials.
_tern_bench_bounded(vis --sizes 64,64K --trials 1 --warmup 0)
_tern_bench_bounded(vis_elem --sizes 8,16K)

# Subcommands that start their own processes (no ternrun around them).
add_test(NAME mp.bench_faultin COMMAND ${_tb_check} --bench faultin --min-rows 4 --
  $<TARGET_FILE:tern-bench> faultin --json --size 16M --trials 1)
add_test(NAME mp.bench_startup COMMAND ${_tb_check} --bench startup --min-rows 1 --
  $<TARGET_FILE:tern-bench> startup --json --ranks 2 --trials 1 --warmup 0)
set_tests_properties(mp.bench_startup PROPERTIES
  ENVIRONMENT "TB_TERNRUN=$<TARGET_FILE:ternrun>")
# Memory per rank beside start-up (issue 13), over the network (the
# provider's share is then counted) and on two simulated nodes.
if(TERN_WITH_OFI)
  foreach(cfg net mixed)
    set(tn mp.bench_startup_mem.${cfg})
    set(pos mem_private,mem_shared,mem_provider)
    set(nodes)
    set(env "TB_TERNRUN=$<TARGET_FILE:ternrun>;TERN_SEGMENT_SIZE=1M")
    if(cfg STREQUAL "net")
      list(APPEND env TERN_SHM=off)
    else()
      set(nodes --nodes 2)
    endif()
    add_test(NAME ${tn} COMMAND ${_tb_check} --bench startup --min-rows 2 --positive ${pos} --
      $<TARGET_FILE:tern-bench> startup --json --ranks 2,4 ${nodes} --trials 1 --warmup 0)
    set_tests_properties(${tn} PROPERTIES ENVIRONMENT "${env}" TIMEOUT 120
      SKIP_RETURN_CODE 77 LABELS "mp;bench;${cfg}")
  endforeach()
endif()
add_test(NAME mp.bench_alloc COMMAND ${_tb_check} --bench alloc --min-rows 4 --
  $<TARGET_FILE:tern-bench> alloc ${_tb_quick} --sizes 100,1000 --iters 1000)
set_tests_properties(mp.bench_faultin mp.bench_startup mp.bench_alloc PROPERTIES
  TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS "mp;bench")
