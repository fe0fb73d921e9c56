/* The transports this build of Tern has, as tern-info lists them.
 *
 * This is the one list to extend when a transport is added: put its entry
 * under the same condition that compiles it into libtern (the network
 * transport 'ofi' under TERN_HAVE_OFI, to be defined by src/CMakeLists.txt
 * when libfabric is found). If src/xport/ grows a registry of built-in
 * transports, replace this table with a loop over it. */
#ifndef TERN_INFO_TRANSPORTS_H
#define TERN_INFO_TRANSPORTS_H

typedef struct ti_transport {
    const char *name;
    const char *serves; /* which peers it serves, and how */
} ti_transport_t;

static const ti_transport_t ti_transports[] = {
    {"self", "this rank itself: a put or get is a memcpy"},
    {"shm", "ranks on this node: segments are cross-mapped, a put is a "
            "copy"},
#ifdef TERN_HAVE_OFI
    {"ofi", "ranks on other nodes: libfabric RDM endpoints"},
#endif
};

#endif
