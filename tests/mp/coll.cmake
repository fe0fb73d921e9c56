# Teams and collectives (tests/mp/coll.c, coll_bad.c): every collective on
# the world, node and split teams, in every configuration.
tern_mp_test(NAME coll SOURCES coll.c RANKS 1 2 3 4 7 8 16 LIBS m TIMEOUT 180)
tern_mp_test(NAME coll_bad SOURCES coll_bad.c RANKS 1 2 4 TIMEOUT 120)
