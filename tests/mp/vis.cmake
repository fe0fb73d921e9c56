# Non-contiguous put and get (vector, indexed, strided): every form and
# shape byte for byte, IMMEDIATE, overlapping destinations; bad input.
tern_mp_test(NAME vis SOURCES vis.c RANKS 1 2 4 TIMEOUT 120)
tern_mp_test(NAME vis_bad SOURCES vis_bad.c RANKS 1 2)
