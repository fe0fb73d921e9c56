# Lazy network addressing (issue 13): addresses inserted only for the
# peers contacted, every pair still working; and the eager exchange
# (TERN_OFI_LAZY_ADDR=0) for comparison.
tern_mp_test(NAME lazy_addr SOURCES lazy_addr.c RANKS 2 8 ENV TERN_SEGMENT_SIZE=1M)
if(TERN_WITH_OFI)
  tern_mp_test(NAME lazy_addr_eager SOURCES lazy_addr.c RANKS 2 8 CONFIGS net mixed
    ENV TERN_SEGMENT_SIZE=1M TERN_OFI_LAZY_ADDR=0)
endif()
