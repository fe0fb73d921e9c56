# The transport contract (tests/mp/xport_contract.c): every transport the
# configuration creates, through its ops table. Linked with the library
# internals (the registry, the segment).
tern_mp_test(NAME xport_contract SOURCES xport_contract.c RANKS 1 2 4 INTERNAL)
# Transfers of several fragments through the network transport.
if(TERN_WITH_OFI)
  tern_mp_test(NAME xport_contract_frag SOURCES xport_contract.c RANKS 1 2 4 CONFIGS net mixed
    ENV TERN_OFI_MAX_MSG=4K INTERNAL)
endif()
