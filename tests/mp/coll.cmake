# Teams and collectives (tests/mp/coll.c, coll_bad.c): every collective on
# the world, node and split teams, in every configuration.
tern_mp_test(NAME coll SOURCES coll.c RANKS 1 2 3 4 7 8 16 LIBS m TIMEOUT 180)
# The variants below run coll.c with settings that move the bounds of one
# algorithm. Those whose settings are read by one collective's code only run
# the parts of coll.c that call it (ARGS: barrier, bcast, allreduce,
# exchange; none: all): TERN_COLL_RING_PIECE, _PAIR_PIECE, _RHD_MAX and
# _TREE_MAX are read only under tern_allreduce (core/coll_reduce.c,
# coll_ring.c, coll_rhd.c, coll_eager.c's eager allreduce);
# TERN_COLL_BCAST_EAGER, _PIPE_CHUNK, _BCAST_CHAIN and _BCAST_PUT only under
# tern_broadcast (core/coll.c, coll_bcast.c, coll_eager.c's eager broadcast),
# which the barrier and exchange parts call too; TERN_COLL_XCHG_PIECE only
# by fcollect and all-to-all above the Medium limit (the exchange part). The
# other parts run in mp.coll at the same rank counts and configurations with
# the defaults; the settings that change every collective (the eager ring's
# size, TERN_OFI_SIGNAL, TERN_TEST_FAULT=noorder, block mode) run them all.
tern_mp_test(NAME coll_bad SOURCES coll_bad.c RANKS 1 2 4 TIMEOUT 120)
# The eager ring of teams across nodes (core/coll_eager.c) with two entries
# of 8 KiB: reused every other call, and entries above the largest active
# message (put, then flag).
tern_mp_test(NAME coll_eager SOURCES coll.c RANKS 3 4 CONFIGS net mixed LIBS m TIMEOUT 180
  ENV TERN_COLL_EAGER_DEPTH=2 TERN_COLL_EAGER=8K)
# The eager allreduce at the ring's fit: 4 entries of 1 KiB hold two 2 KiB
# regions (3 and 4 members), so 2048 B is eager and 2049 B is not.
tern_mp_test(NAME coll_eager_fit SOURCES coll.c RANKS 3 4 CONFIGS net mixed LIBS m
  TIMEOUT 180 ENV TERN_COLL_EAGER_DEPTH=4 TERN_COLL_EAGER=1K)
# The eager broadcast above TERN_COLL_EAGER without writes that carry their
# flag (TERN_OFI_SIGNAL=0): the put, then an ordered flag write.
tern_mp_test(NAME coll_nosignal SOURCES coll.c RANKS 2 3 CONFIGS net mixed LIBS m
  TIMEOUT 180 ENV TERN_OFI_SIGNAL=0)
# The allreduces with a progress thread: the handler that combines an
# eager allreduce region straight into a waiting member's partial
# (core/coll_am.c, on_region) runs on that thread while the member posts
# and waits on its own.
tern_mp_test(NAME coll_pthread SOURCES coll.c RANKS 2 3 CONFIGS net mixed LIBS m
  TIMEOUT 180 ARGS allreduce ENV TERN_PROGRESS_THREAD=1)
# Every eager broadcast to a network child by the write that carries its
# flag (TERN_COLL_BCAST_PUT=0: from 1 byte, within the inject size too),
# forwarders and late members included.
tern_mp_test(NAME coll_bcast_put SOURCES coll.c RANKS 3 CONFIGS net mixed LIBS m
  TIMEOUT 180 ARGS barrier bcast exchange ENV TERN_COLL_BCAST_PUT=0)
# The pipelined broadcast of teams across nodes (core/coll_bcast.c) with
# small bounds: eager up to 2 KiB, chunks of 4 KiB, a chain from 12 KiB
# (coll.c broadcasts one byte under, at and over each, and 20 chunks).
tern_mp_test(NAME coll_pipe SOURCES coll.c RANKS 3 4 CONFIGS net mixed LIBS m TIMEOUT 180
  ARGS barrier bcast exchange ENV TERN_COLL_BCAST_EAGER=2K TERN_COLL_PIPE_CHUNK=4K TERN_COLL_BCAST_CHAIN=12K)
# Fcollect and all-to-all blocks above the Medium limit (8193 to 20000 B)
# in puts of 4 KiB (push_large, core/coll.c): several pieces per block,
# more than the window of 8 in flight; the flag behind the last piece by
# an ordered write, or (noorder) once every piece completed remotely.
tern_mp_test(NAME coll_xchg SOURCES coll.c RANKS 2 4 CONFIGS net mixed LIBS m TIMEOUT 180
  ARGS exchange ENV TERN_COLL_XCHG_PIECE=4K)
tern_mp_test(NAME coll_xchg_noorder SOURCES coll.c RANKS 3 CONFIGS net LIBS m TIMEOUT 180
  ENV TERN_COLL_XCHG_PIECE=4K TERN_TEST_FAULT=noorder)
# The ring allreduce of teams across nodes (core/coll_ring.c) from 2 KiB
# on: pieces of 1 KiB as messages with their flags (many per step, empty
# ones where a chunk ends), then pieces of 20 KiB as puts whose remote
# completion raises the flag (more than the window of 8 in flight).
# TERN_COLL_RHD_MAX=0: teams of 2^k members take the ring too.
tern_mp_test(NAME coll_ring SOURCES coll.c RANKS 2 3 4 7 8 CONFIGS net mixed LIBS m
  TIMEOUT 180 ARGS allreduce ENV TERN_COLL_RING_PIECE=1K TERN_COLL_TREE_MAX=2K TERN_COLL_RHD_MAX=0)
tern_mp_test(NAME coll_ring_put SOURCES coll.c RANKS 2 3 4 CONFIGS net mixed LIBS m
  TIMEOUT 180 ARGS allreduce ENV TERN_COLL_RING_PIECE=20K TERN_COLL_RHD_MAX=0)
# Recursive halving and doubling (core/coll_rhd.c) from 2 KiB on: every
# type and operation at 3000 elements, small and uneven halves, landing
# regions of a few hundred bytes (teams of 2, 4 and 8 members in the world
# team and its splits; 3 and 7 take the ring).
tern_mp_test(NAME coll_rhd SOURCES coll.c RANKS 4 8 CONFIGS net mixed LIBS m
  TIMEOUT 180 ARGS allreduce ENV TERN_COLL_TREE_MAX=2K)
# The 2-member exchange in pieces (core/coll_rhd.c, pair) from 2 KiB on, with
# pieces of 1 KiB: many pieces, a short last one, and the cap of 64 pieces
# (9001 doubles); teams of 2 in the world team and in the splits of 4.
tern_mp_test(NAME coll_pair SOURCES coll.c RANKS 2 4 CONFIGS net mixed LIBS m
  TIMEOUT 180 ARGS allreduce ENV TERN_COLL_TREE_MAX=2K TERN_COLL_PAIR_PIECE=1K)
# Waiters that sleep on a futex while not oversubscribed (block mode): the
# small broadcasts and exchanges of teams on one node wake members asleep
# on a stamp of their lines (core/coll_node.c).
tern_mp_test(NAME coll_block SOURCES coll.c RANKS 2 4 CONFIGS shm LIBS m TIMEOUT 180
  ENV TERN_WAIT_MODE=block)
# Team sequence numbers crossing 2^31 (TERN_TEST_FAULT=collseq:N, core/teams.c,
# from 2^31 - 64; not 2^32, where the zero flags of a new team would read as
# ahead of the calls): small broadcasts from every root between allreduces.
tern_mp_test(NAME coll_seqwrap SOURCES coll_seqwrap.c RANKS 2 3 4 TIMEOUT 60
  ENV TERN_TEST_FAULT=collseq:2147483584)
# A team barrier after small collectives that wrote no barrier flag while
# the team's count moved 2^31 past the flags (collstale: count from 2^31 -
# 64, flags left at 0; collseq now starts the flags there too): the
# members used to pass it before the last one entered (core/coll.h,
# tn_coll_refresh).
tern_mp_test(NAME coll_seqbar SOURCES coll_seqbar.c RANKS 2 3 4 TIMEOUT 60
  ENV TERN_TEST_FAULT=collstale:2147483584)
# Small collectives on one node numbered 0 mod 2^32 (collseq from 2^32 - 64):
# the lines no call had written hold stamp 0 (core/coll_node.c, next_stamp).
tern_mp_test(NAME coll_seqzero SOURCES coll_seqzero.c RANKS 2 3 4 TIMEOUT 60
  ENV TERN_TEST_FAULT=collseq:4294967232)
# Eager broadcasts by put and ordered flag (core/coll_eager.c) after the
# team's count moved 2^31 past flags never written (collstale from 2^31 -
# 64): the refresh every 2^28 calls writes both words of each flag.
tern_mp_test(NAME coll_ordstale SOURCES coll_ordstale.c RANKS 2 3 4 CONFIGS net mixed
  TIMEOUT 60 ENV TERN_TEST_FAULT=collstale:2147483584)

# Members whose unacknowledged network writes differ (one rank with
# TERN_TEST_FAULT=nowiden) agree on the records' size.
if(TERN_WITH_OFI)
  foreach(case "net;2" "net;3" "mixed;2" "mixed;4")
    list(GET case 0 cfg)
    list(GET case 1 n)
    add_test(NAME mp.coll_unacked.${cfg}.n${n}
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/coll_unacked.sh ${cfg}
      $<TARGET_FILE:ternrun> $<TARGET_FILE:mp_coll> ${n})
    set_tests_properties(mp.coll_unacked.${cfg}.n${n} PROPERTIES TIMEOUT 150
      LABELS "mp;${cfg}")
  endforeach()
endif()

# Allreduce as wide records (core/coll_eager.c, 113 B to TERN_COLL_WIDE_MAX
# as one write with local completion only, polled by the receiver) around
# their limits, back to back, in place, a member late (coll_wide.c); with a
# 1K limit, with none (the message path, same sums), with team sequence
# numbers crossing 2^31, and with every write's completion failing: the
# job ends with a message (coll_wide.sh).
tern_mp_test(NAME coll_wide SOURCES coll_wide.c RANKS 1 2 3 4 TIMEOUT 120)
tern_mp_test(NAME coll_wide_1k SOURCES coll_wide.c RANKS 2 3 CONFIGS net mixed TIMEOUT 120
  ENV TERN_COLL_WIDE_MAX=1K)
tern_mp_test(NAME coll_wide_off SOURCES coll_wide.c RANKS 2 CONFIGS net mixed TIMEOUT 120
  ENV TERN_COLL_WIDE_MAX=0)
tern_mp_test(NAME coll_wide_seqwrap SOURCES coll_wide.c RANKS 2 3 CONFIGS net mixed
  TIMEOUT 120 ENV TERN_TEST_FAULT=collseq:2147483520)
tern_mp_script_test(NAME coll_wide_faults SCRIPT coll_wide.sh PROGRAM mp_coll_wide
  RANKS 2 CONFIGS net mixed TIMEOUT 90)
