# Remote atomics: atomic domains, every op and type, contention, bad input.
tern_mp_test(NAME atomic SOURCES atomic.c RANKS 1 2 4 8)
# The same through the active-message path (forced), and contention with
# fetched values checked, by ranks and by threads of ranks.
tern_mp_test(NAME atomic_am SOURCES atomic.c RANKS 2 4 8 ENV TERN_OFI_ATOMICS=am)
# The provider's atomics (forced: auto takes active messages where the
# provider emulates atomics in software, as tcp;ofi_rxm here).
tern_mp_test(NAME atomic_net SOURCES atomic.c RANKS 2 4 ENV TERN_OFI_ATOMICS=net)
tern_mp_test(NAME atomic_contend_net SOURCES atomic_contend.c RANKS 2 4
  ENV TERN_OFI_ATOMICS=net TIMEOUT 120 ONE_THREAD)
tern_mp_test(NAME atomic_bad_net SOURCES atomic_bad.c RANKS 2 ENV TERN_OFI_ATOMICS=net)
tern_mp_test(NAME signal_net SOURCES signal.c RANKS 2 4 ENV TERN_OFI_ATOMICS=net)
tern_mp_test(NAME atomic_contend SOURCES atomic_contend.c RANKS 2 4 8 ONE_THREAD)
tern_mp_test(NAME atomic_contend_am SOURCES atomic_contend.c RANKS 2 4 8
  ENV TERN_OFI_ATOMICS=am TIMEOUT 120 ONE_THREAD)
tern_mp_test(NAME atomic_contend_mt SOURCES atomic_contend.c RANKS 2 4 ARGS 4
  ENV TERN_OFI_ATOMICS=am TIMEOUT 120)
tern_mp_test(NAME atomic_bad SOURCES atomic_bad.c RANKS 1 2)
tern_mp_test(NAME atomic_bad_am SOURCES atomic_bad.c RANKS 2 ENV TERN_OFI_ATOMICS=am)
# The provider lacking an op (fmult): the am fallback, and the refusal
# under TERN_OFI_ATOMICS=net.
tern_mp_test(NAME atomic_unsup SOURCES atomic_unsup.c RANKS 1 2
  ENV TERN_OFI_ATOMICS=net TERN_TEST_FAULT=noamo:fmult)
tern_mp_test(NAME atomic_fallback SOURCES atomic_unsup.c RANKS 1 2 4
  ENV TERN_TEST_FAULT=noamo:fmult)
tern_mp_test(NAME signal SOURCES signal.c RANKS 1 2 4 8)
tern_mp_test(NAME signal_am SOURCES signal.c RANKS 2 4 ENV TERN_OFI_ATOMICS=am)
# Put with signal as a ping-pong, the data checked as soon as the signal
# is seen, every comparison of the wait; with each path of the signal
# across nodes (am, the provider's atomics) and with ordering mode none.
tern_mp_test(NAME signal_pp SOURCES signal_pp.c RANKS 1 2 4)
tern_mp_test(NAME signal_pp_net SOURCES signal_pp.c RANKS 2 4 CONFIGS net mixed
  ENV TERN_OFI_ATOMICS=net)
tern_mp_test(NAME signal_pp_none SOURCES signal_pp.c RANKS 2 ENV TERN_ORDER=none)
# Replies handled by the progress thread while the caller waits.
tern_mp_test(NAME atomic_contend_pt SOURCES atomic_contend.c RANKS 2 4 ARGS 2
  ENV TERN_OFI_ATOMICS=am TERN_PROGRESS_THREAD=1 TIMEOUT 120)
# Ordering modes: every mode on its own context and TERN_ORDER's on the
# default one; the partial mode where the provider is made to order
# nothing (it then waits as strict does).
tern_mp_test(NAME order SOURCES order.c RANKS 1 2 4)
tern_mp_test(NAME order_partial SOURCES order.c RANKS 2 ENV TERN_ORDER=partial)
tern_mp_test(NAME order_none SOURCES order.c RANKS 2 4 ENV TERN_ORDER=none)
tern_mp_test(NAME order_noorder SOURCES order.c RANKS 2
  ENV TERN_ORDER=partial TERN_TEST_FAULT=noorder)
tern_mp_test(NAME order_am SOURCES order.c RANKS 2 ENV TERN_OFI_ATOMICS=am)
tern_mp_test(NAME order_net SOURCES order.c RANKS 2 ENV TERN_OFI_ATOMICS=net)
# A fetch after blocking adds that returned early sees them (the am path
# forced, and the default choice).
tern_mp_test(NAME amo_fetch_order SOURCES amo_fetch_order.c RANKS 2 3)
tern_mp_test(NAME amo_fetch_order_am SOURCES amo_fetch_order.c RANKS 2 3
  ENV TERN_OFI_ATOMICS=am)
# Put with signal delivers its data before its signal when the default
# context's mode is none (the data goes by a strict put).
tern_mp_test(NAME signal_order_none SOURCES signal.c RANKS 2 4 ENV TERN_ORDER=none)
# A barrier completes what returned early on partial and none contexts.
tern_mp_test(NAME barrier_early SOURCES barrier_early.c RANKS 1 2 4 ENV TERN_ORDER=none)
# Combined atomics on the am path: nbi ops, early blocking adds, fences,
# fetches, bad calls and a lone op that only a flush at a wait or at idle
# progress sends, with sleeping targets; with batches of 4 ops, with the
# progress thread, and with combining off.
tern_mp_test(NAME amo_combine SOURCES amo_combine.c RANKS 1 2 3 4 TIMEOUT 120)
tern_mp_test(NAME amo_combine_small SOURCES amo_combine.c RANKS 2 3
  ENV TERN_AMO_COMBINE=128 TIMEOUT 120)
tern_mp_test(NAME amo_combine_pt SOURCES amo_combine.c RANKS 2 4
  ENV TERN_PROGRESS_THREAD=1 TIMEOUT 120)
tern_mp_test(NAME amo_combine_off SOURCES amo_combine.c RANKS 2
  ENV TERN_AMO_COMBINE=0 TIMEOUT 120)
# Threads queueing on one shared context; one thread's quiet sends and
# completes the others' queued ops.
tern_mp_test(NAME amo_combine_mt SOURCES amo_combine_mt.c RANKS 1 2 3 TIMEOUT 120)
# Put with signal around the one-message limit (data checked byte for byte
# when the signal is seen, source reused at once), quiet, signal adds mixed
# with atomic adds on one word (exact count); the default choice, the
# provider's atomics (the signal after the data's remote completion) and
# the one-message path turned off.
tern_mp_test(NAME signal_msg SOURCES signal_msg.c RANKS 1 2 3 4)
tern_mp_test(NAME signal_msg_net SOURCES signal_msg.c RANKS 2 4 ENV TERN_OFI_ATOMICS=net)
tern_mp_test(NAME signal_msg_off SOURCES signal_msg.c RANKS 2 ENV TERN_SIGNAL_MSG_MAX=0)
# Atomics (the provider's, TERN_AD_PROVIDER) and puts from inside handlers
# while every rank floods its neighbours, with 4 network descriptors: a
# handler must neither wait for a descriptor nor lose the op
# (src/xport/ofi/ofi_amo.c, ofi_defer.c). A pass takes a few seconds.
tern_mp_test(NAME amo_handler SOURCES amo_handler.c RANKS 2 3 TIMEOUT 90
  ENV TERN_OFI_TX_DEPTH=4)
# The same, checking that atomics from handlers were queued
# (tests/mp/amo_hold.sh reads TERN_STATS).
tern_mp_script_test(NAME amo_hold SCRIPT amo_hold.sh PROGRAM mp_amo_handler
  CONFIGS net mixed RANKS 2 3 TIMEOUT 90)
# Put with signal from inside a handler: refused where it would wait (an
# unmapped target, or signal words on the provider's atomics), a copy and
# a CPU atomic where it would not. With the provider's atomics a handler's
# put with signal to a rank of its own node waited for ever (nothing polls
# inside a handler): the net-atomics run hung before the check.
tern_mp_test(NAME handler_wait SOURCES handler_wait.c RANKS 2 3)
tern_mp_test(NAME handler_wait_net SOURCES handler_wait.c RANKS 4 CONFIGS mixed TIMEOUT 30
  ENV TERN_OFI_ATOMICS=net)
# A blocking atomic of a provider domain from a handler to an unmapped
# rank: refused (it waited for ever over net before).
tern_mp_test(NAME handler_wait_atomic SOURCES handler_wait.c RANKS 2 4 CONFIGS net mixed TIMEOUT 30
  ENV TEST_HANDLER_WAIT_ATOMIC=1)
# Fetching atomics by the mailbox (core/atomic_mbox.c, the am path's
# blocking fetches to network peers) mixed with adds by message, from
# every rank and from 4 threads of each: exact fetched values and sums,
# and TERN_STATS shows the mailbox carried fetches (tests/mp/mailbox_stats.sh);
# with the progress thread; the default choice (auto); and a target that
# dies while a fetch waits for its reply (the job ends naming it).
add_executable(mp_amo_mailbox amo_mailbox.c)
target_link_libraries(mp_amo_mailbox PRIVATE tern_mp_util Threads::Threads)
tern_mp_script_test(NAME amo_mailbox SCRIPT mailbox_stats.sh PROGRAM mp_amo_mailbox
  CONFIGS net mixed RANKS 2 3 4 TIMEOUT 120 ENV TERN_OFI_ATOMICS=am)
tern_mp_script_test(NAME amo_mailbox_auto SCRIPT mailbox_stats.sh PROGRAM mp_amo_mailbox
  CONFIGS net mixed RANKS 2 TIMEOUT 120)
tern_mp_script_test(NAME amo_mailbox_pt SCRIPT mailbox_stats.sh PROGRAM mp_amo_mailbox
  CONFIGS net mixed RANKS 2 3 TIMEOUT 120 ENV TERN_OFI_ATOMICS=am TERN_PROGRESS_THREAD=1)
# The same checks with the mailbox off: every fetch by message.
tern_mp_test(NAME amo_mailbox_off SOURCES amo_mailbox.c RANKS 2 CONFIGS net mixed ARGS 4
  ENV TERN_OFI_ATOMICS=am TERN_AMO_MAILBOX=0 TIMEOUT 120)
add_executable(mp_amo_mailbox_die amo_mailbox_die.c)
target_link_libraries(mp_amo_mailbox_die PRIVATE tern_mp_util)
foreach(cfg net mixed)
  if(cfg IN_LIST TERN_MP_CONFIGS)
    add_test(NAME mp.amo_mailbox_die.${cfg}.n2
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run_config.sh ${cfg}
      $<TARGET_FILE:ternrun> -n 2 $<TARGET_FILE:mp_amo_mailbox_die>)
    set_tests_properties(mp.amo_mailbox_die.${cfg}.n2 PROPERTIES TIMEOUT 60
      LABELS "mp;${cfg}" ENVIRONMENT "TERN_OFI_ATOMICS=am"
      PASS_REGULAR_EXPRESSION "rank 1 \\(pid [0-9]+\\) exited with code 9")
  endif()
endforeach()
