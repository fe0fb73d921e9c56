# Tests of the network transport's limits and failures.
if(NOT TERN_WITH_OFI)
  return()
endif()
tern_mp_test(NAME flood SOURCES flood.c RANKS 2 4 CONFIGS shm net mixed
  ENV TERN_OFI_TX_DEPTH=8)
tern_mp_test(NAME flood_mr_local SOURCES flood.c RANKS 2 CONFIGS net
  ENV TERN_OFI_TX_DEPTH=8 TERN_OFI_MR_LOCAL=1)
tern_mp_test(NAME rma_mr_local SOURCES rma.c RANKS 2 CONFIGS net mixed
  ENV TERN_OFI_MR_LOCAL=1)
# Many private buffers above the bounce size in flight at once, each needing
# its own local registration (issue 7, defect 2).
tern_mp_test(NAME mr_cache SOURCES mr_cache.c RANKS 2 3 CONFIGS net
  ENV TERN_OFI_MR_LOCAL=1)
# Signal handlers kept across libfabric's loading (its PSM libraries
# install their own for SIGSEGV, SIGTERM, SIGINT...: ofi_dl.c puts back
# what was there).
tern_mp_test(NAME handlers_kept SOURCES handlers_kept.c RANKS 2 CONFIGS net mixed)
tern_mp_test(NAME progress_thread SOURCES progress_thread.c RANKS 2 CONFIGS net
  ENV TERN_PROGRESS_THREAD=1 TIMEOUT 30)
tern_mp_test(NAME rma_progress_thread SOURCES rma.c RANKS 2 4 CONFIGS net mixed
  ENV TERN_PROGRESS_THREAD=1)
# The handler-effects acquire at a wait's return is on only where another
# thread can run handlers: the progress thread (started only with a network
# peer) or TERN_THREAD_MULTIPLE; a shm-only job never pays it.
tern_mp_test(NAME effects_on SOURCES effects_on.c RANKS 2 INTERNAL)
tern_mp_test(NAME effects_on_pt SOURCES effects_on.c RANKS 1 2 ENV TERN_PROGRESS_THREAD=1
  INTERNAL)
tern_mp_test(NAME effects_on_mt SOURCES effects_on.c ARGS --multiple RANKS 2 INTERNAL)
add_test(NAME mp.net_errors COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/net_errors.sh
  $<TARGET_FILE:ternrun> $<TARGET_FILE:mp_hello> $<TARGET_FILE:mp_pingpong>)
set_tests_properties(mp.net_errors PROPERTIES TIMEOUT 90 LABELS "mp;net")
# The interface asked for (TERN_OFI_DOMAIN, TERN_OFI_FABRIC) is the one
# opened, also after the provider is asked again for a larger inject size.
add_test(NAME mp.ofi_iface COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ofi_iface.sh
  $<TARGET_FILE:ternrun> $<TARGET_FILE:mp_hello> $<TARGET_FILE:mp_coll>)
set_tests_properties(mp.ofi_iface PROPERTIES TIMEOUT 120 LABELS "mp;net"
  SKIP_RETURN_CODE 77)

# Two simulated nodes in separate network namespaces (root only).
foreach(prog rma barrier pingpong)
  add_test(NAME mp.netns.${prog} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/netns.sh
    $<TARGET_FILE:ternrun> $<TARGET_FILE:mp_${prog}>)
  set_tests_properties(mp.netns.${prog} PROPERTIES TIMEOUT 150 LABELS "mp;net;netns"
    SKIP_RETURN_CODE 77)
endforeach()

# Injected network failures reach every completion (TERN_TEST_FAULT): at
# completion, and at issue after earlier fragments are in flight.
tern_mp_test(NAME faults_complete SOURCES faults.c RANKS 2 4 CONFIGS net mixed
  ENV TERN_TEST_FAULT=complete:1)
tern_mp_test(NAME faults_partial SOURCES faults.c RANKS 2 CONFIGS net mixed
  ENV TERN_TEST_FAULT=issue:3 TERN_OFI_MAX_MSG=4K)

# A retry loop on TERN_ERR_AGAIN completes (the refusal polls once).
tern_mp_test(NAME immediate SOURCES immediate.c RANKS 2 4 ENV TERN_OFI_TX_DEPTH=1)

# Provider sizing (issue 13): a network rank's private memory after it has
# talked to every peer stays small (about 88 MB with tcp;ofi_rxm's own
# defaults, about 4 MB sized by Tern); user FI_* settings win, with a
# warning when they are below Tern's needs; tern-info says what was chosen.
# The limit is issue 13's goal, 8 MB per network rank at defaults (measured
# 4.2-4.6 MB at 2-512 ranks, docs/design/scale.md), far below the provider's
# own sizing (88 MB); sanitizer runtimes add their own private memory (about
# 10 MB per process under ASan).
set(_mem_max_kb 8192)
if(TERN_SANITIZE)
  set(_mem_max_kb 65536)
endif()
tern_mp_test(NAME mem_rss SOURCES mem_rss.c RANKS 2 8 CONFIGS net mixed
  ENV TERN_SEGMENT_SIZE=1M MP_MAX_ANON_KB=${_mem_max_kb})
# rxm over tcp with its direct send off copies every message into its
# own buffers, whose size is then its eager limit (ofi_size.c,
# rxm_bounces): with Tern's 512-byte buffers a Medium above them took
# rxm's other protocols and arrived out of order (mp_am_order, net, 3
# ranks: 9000-48000 out of order; the same with dynamic receive
# buffering off).
tern_mp_test(NAME am_order_rxm_copy SOURCES am_order.c RANKS 3 CONFIGS net TIMEOUT 300
  ENV FI_OFI_RXM_ENABLE_DIRECT_SEND=0 TEST_ORDER_COUNT=30000)
add_test(NAME mp.ofi_size COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ofi_size.sh
  $<TARGET_FILE:ternrun> $<TARGET_FILE:mp_mem_rss> $<TARGET_FILE:tern-info>)
set_tests_properties(mp.ofi_size PROPERTIES TIMEOUT 120 LABELS "mp;net")
set_property(TEST mp.ofi_size APPEND PROPERTY ENVIRONMENT "MP_MAX_ANON_KB=${_mem_max_kb}")

# Puts without remote completion followed by an ordered flag write, as the
# collectives' large exchanges use them (TN_XPORT_FLAG_NOREMOTE): the data
# there when the flag is, the source reusable at local completion, bad use
# refused, and injected failures reported through the local completion.
tern_mp_test(NAME put_noremote SOURCES put_noremote.c RANKS 2 4 CONFIGS shm net mixed
  INTERNAL)
tern_mp_test(NAME put_noremote_frag SOURCES put_noremote.c RANKS 2 CONFIGS net mixed
  ENV TERN_OFI_MAX_MSG=4K INTERNAL)
tern_mp_test(NAME put_noremote_faults SOURCES put_noremote.c RANKS 2 CONFIGS net
  ENV TERN_TEST_FAULT=complete:1 MP_FAULT=complete INTERNAL)
tern_mp_test(NAME put_noremote_faults_partial SOURCES put_noremote.c RANKS 2 CONFIGS net
  ENV TERN_TEST_FAULT=issue:3 TERN_OFI_MAX_MSG=4K MP_FAULT=issue INTERNAL)
# Puts that carry their own arrival signal (TN_XPORT_FLAG_SIGNAL), as the
# eager broadcast over the network uses them: the data there when the
# signal is, the source reusable at local completion, a stale signal never
# lowers the word, bad use refused, injected failures reported.
tern_mp_test(NAME put_signal SOURCES put_signal.c RANKS 1 2 4 CONFIGS shm net mixed
  INTERNAL)
tern_mp_test(NAME put_signal_frag SOURCES put_signal.c RANKS 2 CONFIGS net mixed
  ENV TERN_OFI_MAX_MSG=4K INTERNAL)
tern_mp_test(NAME put_signal_faults SOURCES put_signal.c RANKS 2 CONFIGS net
  ENV TERN_TEST_FAULT=complete:1 MP_FAULT=complete INTERNAL)
tern_mp_test(NAME put_signal_faults_issue SOURCES put_signal.c RANKS 2 CONFIGS net
  ENV TERN_TEST_FAULT=issue:3 MP_FAULT=issue INTERNAL)
tern_mp_test(NAME put_signal_off SOURCES put_signal.c RANKS 2 CONFIGS net
  ENV TERN_OFI_SIGNAL=0 MP_NOSIGNAL=1 INTERNAL)
# tern_agg_tests(NAME): the runs of the combining test program NAME.c
# (nbi_agg, get_agg: core/put_agg.c, docs/design/nbi-aggregation.md):
# plain; --threads, 3 threads on default and shared contexts; the progress
# thread; a small Medium limit (buffers fill after a few operations);
# combining off; --fault, a message that fails names its peer.
function(tern_agg_tests name)
  tern_mp_test(NAME ${name} SOURCES ${name}.c RANKS 2 3 4 TIMEOUT 120)
  tern_mp_test(NAME ${name}_mt SOURCES ${name}.c ARGS --threads RANKS 2 3 TIMEOUT 120)
  tern_mp_test(NAME ${name}_pt SOURCES ${name}.c RANKS 2 4
    ENV TERN_PROGRESS_THREAD=1 TIMEOUT 120)
  tern_mp_test(NAME ${name}_small SOURCES ${name}.c RANKS 2 3
    ENV TERN_AM_MEDIUM_MAX=600 TIMEOUT 120)
  tern_mp_test(NAME ${name}_off SOURCES ${name}.c RANKS 2 ENV TERN_NBI_AGG_MAX=0 TIMEOUT 120)
  tern_mp_test(NAME ${name}_fault SOURCES ${name}.c ARGS --fault RANKS 2 CONFIGS net mixed
    ENV TERN_TEST_FAULT=pagg:1)
endfunction()
# Combined nbi puts: many small overlapping nbi puts with longer ones that
# go alone, then a get, a fetching atomic, a put with signal, an active
# message or a flag the target spins on must see them.
tern_agg_tests(nbi_agg)
# Combined nbi gets: many small gets from random places (around the limit,
# and longer ones that go alone) checked byte for byte after quiet, nbi
# sync, fence, nbi test or a blocking get; nbi puts and gets of the same
# words interleaved (each get sees the latest earlier put, no later one);
# lone gets.
tern_agg_tests(get_agg)
