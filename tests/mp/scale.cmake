# Many ranks on this machine (issue 13), label "scale": ctest -L scale.
# 256 ranks oversubscribe the two cores 128 times; each test ran in about
# 10-40 s here (docs/design/scale.md).
foreach(mode barrier ring all2one)
  tern_mp_test(NAME scale_${mode} SOURCES scale.c RANKS 256 ARGS ${mode} 10
    TIMEOUT 240 LABELS scale ENV TERN_SEGMENT_SIZE=1M)
endforeach()
