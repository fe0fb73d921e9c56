# Settings every rank must share (TN_CFG_JOB, compared at tern_init by
# core/xports.c agree_job: cfg_agree.sh) and settings a rank may set
# alone that some calls still need alike (cfg_differ.sh). Each test starts
# the last rank of 3 with another value.

# mp.NAME.CFG.n3 for each CFG of CONFIGS that this build runs:
# cfg_agree.sh with PROGRAM and, when given, VAR BAD DEFAULT SAME [SHOWN]
# (an empty DEFAULT and SAME: unset; see the script).
function(tern_cfg_agree_test name configs program)
  foreach(cfg ${configs})
    if(NOT cfg IN_LIST TERN_MP_CONFIGS)
      continue()
    endif()
    set(cmd ${CMAKE_CURRENT_SOURCE_DIR}/cfg_agree.sh ${cfg} $<TARGET_FILE:ternrun>
      $<TARGET_FILE:mp_hello> $<TARGET_FILE:${program}> 3)
    if(ARGC EQUAL 8) # each quoted: an empty DEFAULT or SAME stays an argument
      add_test(NAME mp.${name}.${cfg}.n3
        COMMAND ${cmd} "${ARGV3}" "${ARGV4}" "${ARGV5}" "${ARGV6}" "${ARGV7}")
    elseif(ARGC EQUAL 7)
      add_test(NAME mp.${name}.${cfg}.n3
        COMMAND ${cmd} "${ARGV3}" "${ARGV4}" "${ARGV5}" "${ARGV6}")
    else()
      add_test(NAME mp.${name}.${cfg}.n3 COMMAND ${cmd})
    endif()
    set_tests_properties(mp.${name}.${cfg}.n3 PROPERTIES TIMEOUT 150
      LABELS "mp;${cfg}" ENVIRONMENT TERN_SEGMENT_SIZE=16M)
  endforeach()
endfunction()

# Settings that must be the same on every rank (TERN_COLL_*,
# TERN_AM_MEDIUM_MAX, TERN_AM_SHM_QUEUE, TERN_OFI_ATOMICS): one rank started with another
# value stops tern_init on every rank, naming it. Before the two TERN_AM_*
# were compared, one rank with TERN_AM_MEDIUM_MAX=1K hung mp_am over the
# network and a 4 KiB fcollect (net, mixed; 4 ranks), and one with
# TERN_AM_SHM_QUEUE=256K hung mp_am on shm (3 ranks).
tern_cfg_agree_test(cfg_agree "${TERN_MP_CONFIGS}" mp_coll)
tern_cfg_agree_test(cfg_agree_am_medium "${TERN_MP_CONFIGS}" mp_am
  TERN_AM_MEDIUM_MAX 1K 8K 8192)
tern_cfg_agree_test(cfg_agree_shm_queue "${TERN_MP_CONFIGS}" mp_am
  TERN_AM_SHM_QUEUE 256K 32K 32768)
# An atomic domain's mechanism (CPU atomics, the provider's, active
# messages) is chosen on every rank from TERN_OFI_ATOMICS: one rank with
# am among ranks with auto would mix mechanisms on one domain, which
# atomics.md allows only where they are coherent with each other.
tern_cfg_agree_test(cfg_agree_atomics "${TERN_MP_CONFIGS}" mp_atomic
  TERN_OFI_ATOMICS am auto AUTO)
# TERN_SHM decides which ranks share a node (the transports' grouping):
# one rank with TERN_SHM=0 among ranks of one node ended the job at the
# first barrier with "rank 2 has published no 'ofi.addr.0'" (shm and
# mixed, 3 ranks); now tern_init names TERN_SHM. Under net every rank has
# it off already.
tern_cfg_agree_test(cfg_agree_shm "shm;mixed" mp_coll TERN_SHM 0 1 on)
# TERN_AM_NET_CREDITS: a sender has that many messages outstanding at a
# network peer, and the peer returns them when half its own value has been
# handled (xport/ofi/ofi_msg.c, return_due). One rank with 2 among ranks
# with 8 hung mp_am (net, 2 and 3 ranks: its one-way stream stopped at 2
# messages, the peer waiting for 4), one with 64 hung mp_am, mp_am_order
# and mp_coll (net, mixed). Shared memory does not read it (not tested
# there; it is compared all the same).
tern_cfg_agree_test(cfg_agree_net_credits "net;mixed" mp_am TERN_AM_NET_CREDITS 2 8 08)
# One rank with TERN_OFI_LAZY_ADDR=0 made an address exchange the
# others did not: the job ended with "ranks disagree in bootstrap
# collective #6: rank 2 contributed 304 bytes, others 0"; one with
# TERN_OFI_PROVIDER=sockets (the others tcp;ofi_rxm) hung mp_hello
# after "operation with rank -1 failed: Input/output error" (net, 3
# ranks), and so did one with FI_PROVIDER=sockets. Now tern_init names
# the setting; for the provider it compares the one each rank chose
# (ofi_provider), so TERN_OFI_PROVIDER=tcp on one rank, which chooses
# tcp;ofi_rxm as an empty value does, runs (it was refused while the
# variable itself was compared).
tern_cfg_agree_test(cfg_agree_lazy_addr "net;mixed" mp_coll TERN_OFI_LAZY_ADDR 0 1 on)
tern_cfg_agree_test(cfg_agree_provider "net;mixed" mp_hello TERN_OFI_PROVIDER sockets
  tcp tcp ofi_provider)
tern_cfg_agree_test(cfg_agree_fi_provider "net;mixed" mp_hello FI_PROVIDER sockets
  tcp tcp ofi_provider)
# ofi_rxm refuses a connection from an endpoint with another eager limit
# ("eager_limit mismatch", FI_LOG_LEVEL=warn) and retries for ever: one
# rank with FI_OFI_RXM_EAGER_LIMIT=16384 or 1024 (the others Tern's 8512),
# FI_OFI_RXM_BUFFER_SIZE=16384, FI_OFI_RXM_ENABLE_DYN_RBUF=0 or
# FI_OFI_RXM_ENABLE_DIRECT_SEND=0 hung mp_hello or mp_am_order (net, 3
# ranks; 40-60 s timeouts, 5-6 s with the value on every rank). Now
# tern_init compares the values in force; the same value as Tern's, set by
# the user on one rank, runs.
tern_cfg_agree_test(cfg_agree_rxm_eager "net;mixed" mp_am FI_OFI_RXM_EAGER_LIMIT 16384
  8512 8512)
tern_cfg_agree_test(cfg_agree_rxm_buffer "net;mixed" mp_am FI_OFI_RXM_BUFFER_SIZE 16384
  512 512)
tern_cfg_agree_test(cfg_agree_rxm_dyn_rbuf "net;mixed" mp_am FI_OFI_RXM_ENABLE_DYN_RBUF 0
  - "")
# One rank with TERN_OFI_SIZE=provider (ofi_rxm's buffer and eager
# sizes left at libfabric's defaults, the others' set by Tern) hung
# mp_am_order (net, 3 ranks; 30 and 40 s timeouts, 6.5 s alike).
tern_cfg_agree_test(cfg_agree_ofi_size "net;mixed" mp_am TERN_OFI_SIZE provider tern TERN)
# TERN_STATS: tern_finalize gathers every rank's counts for the job's
# table. One rank with TERN_STATS=1 (shm, net, mixed; 3 ranks) ended a job
# that had run well with "ranks disagree in bootstrap collective #8: rank 2
# contributed 288 bytes, others 0"; now tern_init names TERN_STATS.
tern_cfg_agree_test(cfg_agree_stats "shm;net" mp_hello TERN_STATS 1 0 off)

# Settings a rank may set alone, but which some calls need alike
# (cfg_differ.sh: the job ends, naming the setting). Symmetric allocation
# places blocks by the segment's size: one rank with TERN_SEGMENT_SIZE=32M
# among ranks with 16M failed every tern_alloc_sym with "offsets differ:
# some rank made other symmetric calls", which it had not.
foreach(cfg ${TERN_MP_CONFIGS})
  add_test(NAME mp.cfg_differ_segment.${cfg}.n3
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cfg_differ.sh ${cfg} $<TARGET_FILE:ternrun>
    $<TARGET_FILE:mp_alloc> 3 TERN_SEGMENT_SIZE 32M
    "rank [0-9]*'s segment is .* (set TERN_SEGMENT_SIZE alike on every rank")
  set_tests_properties(mp.cfg_differ_segment.${cfg}.n3 PROPERTIES TIMEOUT 90
    LABELS "mp;${cfg}" ENVIRONMENT TERN_SEGMENT_SIZE=16M)
endforeach()
