# Small blocking gets by the atomic mailbox (TERN_GET_MAILBOX,
# core/atomic_mbox.c): every size 1-105 B at changing offsets from the
# segment and the static region, a get right after an nbi put to the same
# bytes, 1 and 6 threads per rank, and TERN_STATS shows the mailbox carried
# gets (tests/mp/mailbox_stats.sh); with the progress thread; and the same
# checks with every get by RMA read (TERN_GET_MAILBOX=0) and on shm.
add_executable(mp_get_mailbox get_mailbox.c)
target_link_libraries(mp_get_mailbox PRIVATE tern_mp_util Threads::Threads)
# The script runs 1 and 6 threads a rank: n2 and the progress thread are
# the ThreadSanitizer run's share (label threads), n3 and n4 the plain one's.
tern_mp_script_test(NAME get_mailbox SCRIPT mailbox_stats.sh PROGRAM mp_get_mailbox
  CONFIGS net mixed RANKS 2 TIMEOUT 120 LABELS threads)
tern_mp_script_test(NAME get_mailbox SCRIPT mailbox_stats.sh PROGRAM mp_get_mailbox
  CONFIGS net mixed RANKS 3 4 TIMEOUT 120)
tern_mp_script_test(NAME get_mailbox_pt SCRIPT mailbox_stats.sh PROGRAM mp_get_mailbox
  CONFIGS net mixed RANKS 2 TIMEOUT 120 ENV TERN_PROGRESS_THREAD=1 LABELS threads)
tern_mp_test(NAME get_mailbox_off SOURCES get_mailbox.c RANKS 2 3 CONFIGS net mixed ARGS 6
  ENV TERN_GET_MAILBOX=0 TIMEOUT 120)
tern_mp_test(NAME get_mailbox_shm SOURCES get_mailbox.c RANKS 2 3 CONFIGS shm ARGS 6
  TIMEOUT 120)
