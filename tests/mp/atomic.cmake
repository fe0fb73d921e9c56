# Remote atomics: atomic domains, every op and type, contention, bad input.
tern_mp_test(NAME atomic SOURCES atomic.c RANKS 1 2 4 8)
tern_mp_test(NAME atomic_bad SOURCES atomic_bad.c RANKS 1 2)
tern_mp_test(NAME atomic_unsup SOURCES atomic_unsup.c RANKS 1 2 ENV TERN_OFI_ATOMICS=0)
tern_mp_test(NAME signal SOURCES signal.c RANKS 1 2 4 8)
