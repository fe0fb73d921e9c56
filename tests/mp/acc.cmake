# Accumulate (issue 9, item 4): every type, exact sums under concurrent
# accumulates from every rank (and 4 threads per rank), pipelined large
# buffers, bad input.
tern_mp_test(NAME acc SOURCES acc.c RANKS 1 2 4 8 TIMEOUT 120 ONE_THREAD)
tern_mp_test(NAME acc_mt SOURCES acc.c RANKS 2 4 ARGS 4 TIMEOUT 120)
tern_mp_test(NAME acc_pt SOURCES acc.c RANKS 2 4 ENV TERN_PROGRESS_THREAD=1 TIMEOUT 120)
