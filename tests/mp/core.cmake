# Multi-rank tests of the native API (segments, RMA, barrier, threads).
tern_mp_test(NAME rma SOURCES rma.c RANKS 1 2 4 8)
# Puts that return at local completion (nbi, a none context) are complete
# at their target after quiet, as a third rank sees it (ofi: the flush
# read of ofi_rma.c; with noorder: FI_DELIVERY_COMPLETE on each put).
tern_mp_test(NAME put_flush SOURCES put_flush.c RANKS 3 4)
tern_mp_test(NAME put_flush_delivery SOURCES put_flush.c RANKS 3 CONFIGS net mixed
  ENV TERN_TEST_FAULT=noorder)
# The same with no put acknowledged (ofi_rma.c, "The first put
# acknowledged"): the flush read alone completes a lone put.
tern_mp_test(NAME put_flush_noack SOURCES put_flush.c RANKS 3 CONFIGS net mixed
  ENV TERN_TEST_FAULT=noack)
tern_mp_test(NAME barrier SOURCES barrier.c RANKS 1 2 3 4 8 16 TIMEOUT 180)
tern_mp_test(NAME barrier_block SOURCES barrier.c RANKS 4 8 ENV TERN_WAIT_MODE=block)
tern_mp_test(NAME barrier_yield SOURCES barrier.c RANKS 8 ENV TERN_WAIT_MODE=yield)
# A wait for a node-local word still serves network peers: a get and an
# active message to the waiting rank (barrier-and-waiting.md, "Polling
# cadence in a mixed job"); spinning, with and without the progress thread.
tern_mp_test(NAME wait_mixed SOURCES wait_mixed.c RANKS 3 4 TIMEOUT 60
  ENV TERN_WAIT_MODE=spin)
tern_mp_test(NAME wait_mixed_pt SOURCES wait_mixed.c RANKS 3 4 TIMEOUT 60
  ENV TERN_WAIT_MODE=spin TERN_PROGRESS_THREAD=1)
# tern_wait_until_u64's direct entry and the cache it reads, which must
# follow every input (active-messages.md, nineteenth pass): the hook set
# mid-job, each wait policy, both thread levels, the progress thread, 4
# ranks on 2 cores (oversubscribed), every configuration.
tern_mp_test(NAME wait_direct SOURCES wait_direct.c RANKS 1 2 3 4 TIMEOUT 60 INTERNAL ONE_THREAD)
tern_mp_test(NAME wait_direct_spin SOURCES wait_direct.c RANKS 2 4 TIMEOUT 60 INTERNAL ONE_THREAD
  ENV TERN_WAIT_MODE=spin)
tern_mp_test(NAME wait_direct_yield SOURCES wait_direct.c RANKS 2 TIMEOUT 60 INTERNAL ONE_THREAD
  ENV TERN_WAIT_MODE=yield)
tern_mp_test(NAME wait_direct_block SOURCES wait_direct.c RANKS 2 TIMEOUT 60 INTERNAL ONE_THREAD
  ENV TERN_WAIT_MODE=block)
tern_mp_test(NAME wait_direct_pt SOURCES wait_direct.c RANKS 2 TIMEOUT 60 INTERNAL
  ENV TERN_PROGRESS_THREAD=1)
tern_mp_test(NAME wait_direct_mt SOURCES wait_direct.c RANKS 2 TIMEOUT 60 INTERNAL
  ARGS --multiple)
tern_mp_test(NAME alloc SOURCES alloc.c RANKS 1 2 4)
tern_mp_test(NAME launcher_wait SOURCES launcher_wait.c RANKS 2 3 TIMEOUT 120)
tern_mp_test(NAME threads SOURCES threads.c RANKS 2 4)
tern_mp_test(NAME bad_input SOURCES bad_input.c RANKS 1 2)
tern_mp_test(NAME pingpong SOURCES pingpong.c RANKS 2 8)

add_executable(mp_hello hello.c)
target_link_libraries(mp_hello PRIVATE tern)
add_test(NAME mp.config_errors COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/config_errors.sh
  $<TARGET_FILE:ternrun> $<TARGET_FILE:mp_hello> $<TARGET_FILE:tern-info>)
set_tests_properties(mp.config_errors PROPERTIES TIMEOUT 120 LABELS "mp;shm")

add_test(NAME mp.hugepages COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/hugepages.sh
  $<TARGET_FILE:ternrun> $<TARGET_FILE:mp_hello>)
# Changes kernel huge page settings: never alongside other tests.
set_tests_properties(mp.hugepages PROPERTIES TIMEOUT 120 LABELS "mp;shm" RUN_SERIAL TRUE
  SKIP_RETURN_CODE 77)
tern_mp_test(NAME events SOURCES events.c RANKS 2 4)
tern_mp_test(NAME ctx SOURCES ctx.c RANKS 1 2 4)

# TERN_STATS counts and TERN_TRACE files, in every configuration.
add_executable(mp_stats_ops stats_ops.c)
target_link_libraries(mp_stats_ops PRIVATE tern_mp_util)
tern_mp_script_test(NAME stats SCRIPT stats.sh PROGRAM mp_stats_ops RANKS 4)

# tern_init failing on one rank returns the error on every rank (issue 14).
tern_mp_test(NAME init_fail SOURCES init_fail.c RANKS 1 4 ENV TEST_FAIL=memory)
tern_mp_test(NAME init_fail_config SOURCES init_fail.c RANKS 1 4 ENV TEST_FAIL=config)

# Active messages: every category, Request/Reply, negotiated payload, a
# flood with sleeping receivers, bad input (tests/mp/am.c).
tern_mp_test(NAME am SOURCES am.c RANKS 1 2 4 TIMEOUT 120)
# Forged messages below the send calls (a buggy or hostile peer): each dropped
# at the target with an error naming it, no handler run (active-messages.md,
# twenty-third pass).
tern_mp_test(NAME am_forged SOURCES am_forged.c RANKS 1 2 TIMEOUT 60 INTERNAL)
# Sends, a second Prepare, waits and puts between a Prepare and its Commit
# (and a Reply between a Reply's): refused naming the Prepare, or (puts)
# done; the committed messages arrive once, the refused ones never.
tern_mp_test(NAME am_between SOURCES am_between.c RANKS 2 3 TIMEOUT 120)
# The same with a flood of 10^6 messages in the job (issue 8's delivery
# check), 2 and 8 ranks in every configuration: a few seconds on shm, up to
# 15 s over tcp with 8 ranks on 2 cores (label flood; the sanitizer runs
# leave it out).
tern_mp_test(NAME am_flood SOURCES am.c RANKS 2 8 TIMEOUT 400 LABELS flood
  ENV TEST_AM_FLOOD=1000000)
# The same with Mediums up to 64 KiB: on shm, data parts of 16 KiB and more
# go back to the data ring's start when the receiver has drained it.
tern_mp_test(NAME am_big SOURCES am.c RANKS 2 4 TIMEOUT 120 ENV TERN_AM_MEDIUM_MAX=64K)
tern_mp_test(NAME am_threads SOURCES am_threads.c RANKS 1 2 3 TIMEOUT 120)
# Requests still packed or in flight when their sender calls tern_finalize
# are handled before it returns anywhere (tests/mp/am_finalize.c).
tern_mp_test(NAME am_finalize SOURCES am_finalize.c RANKS 2 4 TIMEOUT 120)
# The same with the progress thread (TERN_PROGRESS_THREAD=1), which runs
# handlers while the main thread runs others of different senders and
# checks bad input: on net and mixed, 5-64 of each rank's 72-92 echo
# handlers of mp.am ran there (counted once, not by the test). Its
# handlers' refused calls capture stderr as the main thread's do
# (mp_util.c takes turns; before, 11 of 12 net and mixed runs failed on a
# message read from the other thread's pipe). On shm alone no thread
# starts (nothing needs polling); the queues still take their turns.
# About 1 s each; 8 ranks with 2 x 10^5 flood messages: 3.5-5 s.
tern_mp_test(NAME am_pt SOURCES am.c RANKS 2 3 TIMEOUT 120 ENV TERN_PROGRESS_THREAD=1)
tern_mp_test(NAME am_flood_pt SOURCES am.c RANKS 8 CONFIGS net mixed TIMEOUT 300
  LABELS flood ENV TERN_PROGRESS_THREAD=1 TEST_AM_FLOOD=200000)
tern_mp_test(NAME am_threads_pt SOURCES am_threads.c RANKS 2 3 TIMEOUT 120
  ENV TERN_PROGRESS_THREAD=1)
# Per-pair order of Requests (am.h, "Order"): 10^5 numbered Requests per
# pair of every send path, sleeping receivers (credits run out: packing);
# then with handlers on several threads (two polling threads per rank, or
# the progress thread), which over the network must still run one sender's
# handlers one at a time, in order (tests/mp/am_order.c).
tern_mp_test(NAME am_order SOURCES am_order.c RANKS 2 3 TIMEOUT 300 ONE_THREAD)
# With 3 ranks on 2 cores over the network, 10^5 per pair took 4-43 s from
# run to run (both cores busy: mixed, user + system 61 s in a 31 s run; the
# lead's runs average 22 s on net, 17 s on mixed): those two send 3 x 10^4,
# as the threaded variants and the sanitizer runs do, which still crosses a
# receiver's sleep and 7 big Longs per pair; 2 ranks keep 10^5. Refused
# sends queued last-in first-out (ofi_msg.c, on purpose) fail mixed.n3 at
# 3 x 10^4 (2 of 2 runs); net.n3 passed with them at 10^5 as at 3 x 10^4.
foreach(cfg net mixed)
  if(cfg IN_LIST TERN_MP_CONFIGS)
    set_property(TEST mp.am_order.${cfg}.n3 APPEND PROPERTY ENVIRONMENT TEST_ORDER_COUNT=30000)
  endif()
endforeach()
tern_mp_test(NAME am_order_mt SOURCES am_order.c RANKS 2 3 TIMEOUT 300
  ENV TEST_ORDER_POLLERS=2 TEST_ORDER_COUNT=30000)
tern_mp_test(NAME am_order_progress SOURCES am_order.c RANKS 2 3 TIMEOUT 300
  ENV TERN_PROGRESS_THREAD=1 TEST_ORDER_COUNT=30000)
# Handlers that put back to their senders while both ranks flood each
# other, with 4 network descriptors: before RMA from handlers was queued
# instead of waited for (ofi_defer.c) this hung in 20 of 20 runs on net
# and mixed; a pass takes a few seconds, so the timeout is short. Declared
# here for shm only: on net and mixed the same job (same program and
# settings, with TERN_STATS=1 added, and fewer Requests on mixed) is
# mp.am_hold below, which also checks that both paths inside handlers were
# taken.
tern_mp_test(NAME am_order_putback SOURCES am_order.c RANKS 2 3 TIMEOUT 90 CONFIGS shm
  ENV TERN_OFI_TX_DEPTH=4 TEST_ORDER_PUTBACK=1 ONE_THREAD)
# The putback job on net and mixed, checking that it took both paths inside
# handlers: puts queued and messages held back by a poll made from a handler
# (tests/mp/am_hold.sh). Requests per pair: 10^5 on net, in every build
# (also under the sanitizers, which send 3 x 10^4 elsewhere), 3 x 10^4 on
# mixed. The hang needs only the 4 descriptors to run out: the code before
# the fix (797aa5f) hung at 3 x 10^4 on net and mixed, 2 and 3 ranks (45 s
# of 45 s allowed each, where the fixed code passes in 0.4-10 s). But the
# count of puts queued on net is small and varies: at 3 x 10^4, 3 ranks,
# 0 (a failure), 8 and 23 in three runs, at 10^5 24 and 53; on mixed
# 35-83 at 2 ranks and 814-1177 at 3. Mixed at 10^5 took 20-35 s.
tern_mp_script_test(NAME am_hold SCRIPT am_hold.sh PROGRAM mp_am_order
  CONFIGS net RANKS 2 3 TIMEOUT 90 ENV TEST_ORDER_COUNT=100000)
tern_mp_script_test(NAME am_hold SCRIPT am_hold.sh PROGRAM mp_am_order
  CONFIGS mixed RANKS 2 3 TIMEOUT 90 ENV TEST_ORDER_COUNT=30000)
# The network receive buffers posted grow under bursts and shrink when
# quiet (TERN_STATS counts; net and mixed: shm has none).
add_executable(mp_am_rxbuf am_rxbuf.c)
target_link_libraries(mp_am_rxbuf PRIVATE tern_mp_util)
tern_mp_script_test(NAME am_rxbuf SCRIPT am_rxbuf.sh PROGRAM mp_am_rxbuf
  CONFIGS net mixed RANKS 2 TIMEOUT 120)
# A one-way stream grows its sender's credit window, within the receive
# buffers (TERN_STATS counts; net and mixed: shm has no credits).
add_executable(mp_am_window am_window.c)
target_link_libraries(mp_am_window PRIVATE tern_mp_util)
tern_mp_script_test(NAME am_window SCRIPT am_window.sh PROGRAM mp_am_window
  CONFIGS net mixed RANKS 2 4 TIMEOUT 120)
# Windows stop at 65535 credits, what one header's 16 bits return: with
# 8192 credits and receive buffers for more (200M of 1 KiB Mediums) they
# grew to 131072, the returned count wrapped, and a stream of 200000 1 KiB
# messages hung after some 130000.
tern_mp_test(NAME am_window_wide SOURCES am_window.c CONFIGS net mixed RANKS 2 3
  TIMEOUT 120 ENV MP_STREAM=200000 TERN_AM_NET_CREDITS=8192 TERN_AM_MEDIUM_MAX=1K
  TERN_AM_NET_RECV=200M)
# A receiver dies while its sender is blocked on it: the job ends naming it.
add_executable(mp_am_die am_die.c)
target_link_libraries(mp_am_die PRIVATE tern_mp_util)
foreach(cfg ${TERN_MP_CONFIGS})
  add_test(NAME mp.am_die.${cfg}.n2 COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run_config.sh ${cfg}
    $<TARGET_FILE:ternrun> -n 2 $<TARGET_FILE:mp_am_die>)
  set_tests_properties(mp.am_die.${cfg}.n2 PROPERTIES TIMEOUT 60 LABELS "mp;${cfg}"
    PASS_REGULAR_EXPRESSION "rank 1 \\(pid [0-9]+\\) exited with code 9")
endforeach()
# The same with the progress thread polling beside the blocked sender
# (label threads: built by tern-threads-tests for the ThreadSanitizer run).
add_dependencies(tern-threads-tests mp_am_die)
foreach(cfg net mixed)
  if(NOT cfg IN_LIST TERN_MP_CONFIGS)
    continue()
  endif()
  add_test(NAME mp.am_die_pt.${cfg}.n2 COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run_config.sh ${cfg}
    $<TARGET_FILE:ternrun> -n 2 $<TARGET_FILE:mp_am_die>)
  set_tests_properties(mp.am_die_pt.${cfg}.n2 PROPERTIES TIMEOUT 60 LABELS "mp;${cfg};threads"
    ENVIRONMENT "TERN_PROGRESS_THREAD=1;TERN_SEGMENT_SIZE=16M"
    PASS_REGULAR_EXPRESSION "rank 1 \\(pid [0-9]+\\) exited with code 9")
endforeach()
# RMA of several fragments (TERN_OFI_MAX_MSG=1K, transfers of 3 KiB + 100)
# from handlers with 4 network descriptors (ofi_defer.c: 1496 puts and
# gets queued per rank in a 3-rank net run, TERN_STATS=1): puts and gets
# checked byte for byte, with main-loop puts behind the queue. Then with
# every 7th fragment failing at issue: the failures reach a completion of
# every rank (a call's status or the quiet) and nothing hangs. Network
# only (on shm nothing is queued); about 2 s each.
tern_mp_test(NAME defer_frag SOURCES defer_frag.c RANKS 3 CONFIGS net mixed TIMEOUT 90
  ENV TERN_OFI_TX_DEPTH=4 TERN_OFI_MAX_MSG=1K)
tern_mp_test(NAME defer_frag_fault SOURCES defer_frag.c RANKS 2 CONFIGS net mixed
  TIMEOUT 90 ENV TERN_OFI_TX_DEPTH=4 TERN_OFI_MAX_MSG=1K TERN_TEST_FAULT=issue:7
  TEST_DEFER_FAULT=1)
# Nbi operations of handlers run by the progress thread are completed, and
# their errors returned, by the application's quiet (event.c: syncs of a
# default context cover the progress thread's). The fault run returned
# TERN_OK before (the error lost in the progress thread's context).
tern_mp_test(NAME handler_progress SOURCES handler_progress.c RANKS 2 CONFIGS net mixed
  ENV TERN_PROGRESS_THREAD=1 TERN_OFI_TX_DEPTH=4 TERN_OFI_MAX_MSG=1K)
tern_mp_test(NAME handler_progress_fault SOURCES handler_progress.c RANKS 2
  CONFIGS net mixed ENV TERN_PROGRESS_THREAD=1 TERN_OFI_TX_DEPTH=4 TERN_OFI_MAX_MSG=1K
  TERN_TEST_FAULT=issue:5 TEST_HP_FAULT=1)
