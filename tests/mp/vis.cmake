# Non-contiguous put and get (vector, indexed, strided): every form and
# shape byte for byte, IMMEDIATE, overlapping destinations; bad input.
tern_mp_test(NAME vis SOURCES vis.c RANKS 1 2 4 TIMEOUT 120)
tern_mp_test(NAME vis_bad SOURCES vis_bad.c RANKS 1 2)
# The inline path of tern/vis.h (constant element sizes): 1-d strided and
# short indexed transfers byte for byte, and the bad input it leaves to
# the library.
tern_mp_test(NAME vis_inline SOURCES vis_inline.c RANKS 1 2)
# The network paths one by one: one RMA per piece (packing off), and
# packing into small messages (many per call, list pieces split across
# messages).
tern_mp_test(NAME vis_rma SOURCES vis.c RANKS 2 4 CONFIGS net mixed TIMEOUT 120
  ENV TERN_VIS_PACK_MAX=0)
tern_mp_test(NAME vis_pack_small SOURCES vis.c RANKS 2 4 CONFIGS net mixed TIMEOUT 120
  ENV TERN_VIS_PACK_MAX=64K TERN_AM_MEDIUM_MAX=600)
# Strided accumulate: every type and shape byte for byte, contention,
# bad input; over the network also with small messages (many per call)
# and with packing off (every piece a contiguous accumulate).
tern_mp_test(NAME vis_acc SOURCES vis_acc.c RANKS 1 2 4 TIMEOUT 120)
tern_mp_test(NAME vis_acc_pack_small SOURCES vis_acc.c RANKS 2 CONFIGS net mixed
  TIMEOUT 120 ENV TERN_VIS_PACK_MAX=64K TERN_AM_MEDIUM_MAX=600)
tern_mp_test(NAME vis_acc_nopack SOURCES vis_acc.c RANKS 2 CONFIGS net mixed TIMEOUT 120
  ENV TERN_VIS_PACK_MAX=0)
# Few message credits and a shallow send queue: IMMEDIATE accumulates are
# refused now and then, each whole (the others applied whole).
tern_mp_test(NAME vis_acc_scarce SOURCES vis_acc.c RANKS 2 4 CONFIGS net mixed TIMEOUT 120
  ENV TERN_AM_NET_CREDITS=2 TERN_OFI_TX_DEPTH=1)
# Forged packed messages sent straight to the internal handlers: refused
# at the target, nothing written, the reason logged. Linked with the
# library's internals.
tern_mp_test(NAME vis_forged SOURCES vis_forged.c RANKS 1 2 INTERNAL)
