# Many ranks on this machine (issue 13), label "scale": ctest -L scale.
# 256 ranks oversubscribe the two cores 128 times (docs/design/scale.md).
# One job per configuration runs the three patterns one after the other
# (tests/mp/scale.c): all2one first, so that every rank's first contact
# with rank 0 still comes right after start-up, then ring, then barrier.
# They were three jobs each; starting and ending 256 processes was almost
# all of each one's time (docs/design/ci-time.md, tenth round).
#
# RUN_SERIAL: ctest runs nothing beside them. Each job's start-up and exit
# (256 processes forked, mapped and torn down) keeps both cores busy, and
# the scheduler shares the CPU per process, so a 4-rank job beside three of
# them gets a few percent of it: mp.coll_pmix_nodes.n4, declared just
# before them and so started beside them on a fresh clone, took 51-69 s
# there (1.8 s alone). One at a time with nothing beside: the suite's range
# around them (ctest -I 826,880 -j3, no cost data) 67/76 s -> 56/65 s
# (docs/design/ci-time.md, seventh round).
tern_mp_test(NAME scale SOURCES scale.c RANKS 256 ARGS all2one,ring,barrier 10
  TIMEOUT 240 LABELS scale ENV TERN_SEGMENT_SIZE=1M)
foreach(cfg ${TERN_MP_CONFIGS})
  set_tests_properties(mp.scale.${cfg}.n256 PROPERTIES RUN_SERIAL TRUE)
endforeach()
