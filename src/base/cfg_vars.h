/* Every TERN_* variable, declared once.
 * X(field, NAME, TYPE, default, choices, flags, help) */
#ifndef TN_CFG_VARS_H
#define TN_CFG_VARS_H

#define TN_CFG_VARS(X)                                                                   \
    X(verbose, "TERN_VERBOSE", INT, "0", NULL, 0,                                        \
      "Log level: 0 warnings and errors, 1 start-up report and phase "                   \
      "times, 2 debug, 3 trace.")                                                        \
    X(trace, "TERN_TRACE", STRING, "", NULL, 0,                                          \
      "File to write a trace of every out-of-line operation (network "                   \
      "transfers, errors) with its arguments, one per rank: %r in the "                  \
      "name is replaced by the rank, else .RANK is appended. Empty: no file "            \
      "(TERN_VERBOSE=3 traces to standard error).")                                      \
    X(stats, "TERN_STATS", BOOL, "0", NULL, TN_CFG_JOB,                                  \
      "Count operations (by kind and transport), bytes, copies, "                        \
      "out-of-line calls, waits and network retries, and print a table per "             \
      "rank and one for the job at tern_finalize. Routes shared-memory "                 \
      "copies out of line while on.")                                                    \
    X(error_mode, "TERN_ERROR_MODE", ENUM, "return", "return|abort", 0,                  \
      "On an error, return the status to the caller, or print it and end "               \
      "the whole job.")                                                                  \
    X(segment_size, "TERN_SEGMENT_SIZE", SIZE, "64M", NULL, 0,                           \
      "Bytes of remotely accessible segment per rank (units K, M, G, T; or "             \
      "a percentage of physical memory such as 10%).")                                   \
    X(segment_faultin, "TERN_SEGMENT_FAULTIN", ENUM, "parallel", "parallel|serial|none", \
      0,                                                                                 \
      "How the segment's pages are touched at start-up: by worker threads "              \
      "pinned per NUMA domain, by the rank alone, or not at all (first use "             \
      "pays).")                                                                          \
    X(segment_numa, "TERN_SEGMENT_NUMA", STRING, "interleave", NULL, 0,                  \
      "Where the segment's pages go: interleave (round-robin over every "                \
      "NUMA domain of the node, spreading load over all memory "                         \
      "controllers), local (the domains of this rank's CPUs), bind:N (NUMA "             \
      "domain N), or firsttouch (no policy: where the fault-in touches "                 \
      "them). The placement obtained is read back and reported with "                    \
      "TERN_VERBOSE=1.")                                                                 \
    X(faultin_threads, "TERN_FAULTIN_THREADS", INT, "0", NULL, 0,                        \
      "Worker threads for parallel fault-in; 0 picks the cores of this "                 \
      "machine divided among the job's ranks on it.")                                    \
    X(hugepages, "TERN_HUGEPAGES", ENUM, "try", "try|on|off", 0,                         \
      "Back the segment with huge pages: try (use them when the system "                 \
      "allows, else 4 KiB pages and say why), on (fail without them), off.")             \
    X(shm_topo, "TERN_SHM_TOPO", ENUM, "auto", "auto|on|off", 0,                         \
      "Copies to and from shared-memory peers: auto chooses regular or "                 \
      "non-temporal stores per peer by its distance (same L3, same NUMA "                \
      "domain, other domain, other package) and the size, with thresholds "              \
      "measured on this machine; on uses non-temporal stores for every "                 \
      "copy; off uses regular copies only.")                                             \
    X(shm_calibrate, "TERN_SHM_CALIBRATE", ENUM, "auto", "auto|always|never", 0,         \
      "How TERN_SHM_TOPO=auto gets its thresholds: auto reuses this "                    \
      "machine's cached measurement and measures (under a second, once, on "             \
      "one rank per node) when there is none; always measures at every "                 \
      "start; never estimates them from the cache sizes hwloc reports. A "               \
      "measurement that looks busy is not used (the estimate is; tern-info "             \
      "--copy says why).")                                                               \
    X(shm_calib_dir, "TERN_SHM_CALIB_DIR", STRING, "", NULL, 0,                          \
      "Directory of the copy calibration cache; empty: "                                 \
      "$XDG_CACHE_HOME/tern or ~/.cache/tern (where that cannot be written: "            \
      "$TMPDIR/tern-cache-UID); none: no cache, measure at every start.")                \
    X(wait_mode, "TERN_WAIT_MODE", ENUM, "auto", "auto|spin|yield|block", 0,             \
      "How waiting calls wait: auto spins (up to TERN_SPIN_US) when this "               \
      "machine has a CPU for each of the job's ranks on it (counting every "             \
      "simulated node of "                                                               \
      "ternrun --nodes), and otherwise yields at once, then sleeps in the "              \
      "kernel after TERN_YIELD_COUNT yields; spin never yields; yield "                  \
      "always yields; block sleeps in the kernel after TERN_SPIN_COUNT polls "           \
      "(yielding between them when oversubscribed).")                                    \
    X(spin_count, "TERN_SPIN_COUNT", INT, "2000", NULL, 0,                               \
      "Polls before a waiting call sleeps (block mode).")                                \
    X(spin_us, "TERN_SPIN_US", INT, "50", NULL, 0,                                       \
      "Auto mode with a CPU for each rank: microseconds a waiting call spins "           \
      "before it waits as with more ranks than CPUs (yields, then after "                \
      "TERN_YIELD_COUNT yields a barrier's or collective's flag wait sleeps 50 us "      \
      "between polls); each new wait, and a wait whose progress completed "              \
      "something (a handler run, a request served), spins again; 0 spins for ever.")     \
    X(yield_count, "TERN_YIELD_COUNT", INT, "256", NULL, 0,                              \
      "Auto mode with more ranks than CPUs: yields before a waiting call "               \
      "sleeps in the kernel until its flag is written (shared-memory flags "             \
      "of barriers and collectives); past TERN_SPIN_US likewise, then 50 us "            \
      "sleeps; 0 never sleeps.")                                                         \
    X(net_poll_ns, "TERN_NET_POLL_NS", INT, "1000", NULL, 0,                             \
      "Jobs with shared-memory peers and a polled network (a mixed job): a "             \
      "spinning wait (tern_wait_until_*, shared-memory waits) polls the network at "     \
      "every step while its thread has sent or received over it in the last 256 "        \
      "times this many ns, and otherwise once this many ns have passed since its "       \
      "last poll: a network write after a quiet spell is seen at most about this "       \
      "much later. Waits for network completions, and steps that yield, poll it at "     \
      "every step. 0: every step.")                                                      \
    X(coll_eager, "TERN_COLL_EAGER", SIZE, "16K", NULL, TN_CFG_JOB,                      \
      "Jobs across nodes (or TERN_SHM=off): largest broadcast, and largest "             \
      "fcollect or all-to-all result per rank, of a team across nodes whose "            \
      "data travels with its flags into a ring of receive space in each "                \
      "member's team slot (no waiting for the receivers to enter); above, a "            \
      "team barrier comes first. Each of the 32 team slots holds a ring of "             \
      "TERN_COLL_EAGER_DEPTH times this size; 0: no ring.")                              \
    X(coll_eager_depth, "TERN_COLL_EAGER_DEPTH", INT, "2", NULL, TN_CFG_JOB,             \
      "Size of the eager ring in units of TERN_COLL_EAGER (at least 1): each "           \
      "eager call takes its bytes rounded up to 64, and a team barrier comes "           \
      "once per ring's worth of them (one 8-byte broadcast in 512 by default).")         \
    X(coll_world_ring, "TERN_COLL_WORLD_RING", SIZE, "512K", NULL, TN_CFG_JOB,           \
      "Jobs across nodes (or TERN_SHM=off): bytes of the world team's eager "            \
      "ring where larger than TERN_COLL_EAGER times TERN_COLL_EAGER_DEPTH "              \
      "(every other team's): a team barrier comes once per ring's worth of "             \
      "eager calls, so back-to-back broadcasts of the world team stop for one "          \
      "16 times less often with the default, and its broadcasts up to an "               \
      "eighth of it are eager. Segment memory per rank; at most 1T.")                    \
    X(coll_bcast_eager, "TERN_COLL_BCAST_EAGER", SIZE, "64K", NULL, TN_CFG_JOB,          \
      "Largest broadcast (bytes) of a team across nodes that goes through "              \
      "the eager ring (where it fits TERN_COLL_EAGER, or an eighth of the "              \
      "team's ring: the world team's TERN_COLL_WORLD_RING, others' "                     \
      "TERN_COLL_EAGER x TERN_COLL_EAGER_DEPTH); above, the pipelined "                  \
      "tree: chunks put straight into each member's dest and forwarded as "              \
      "they arrive.")                                                                    \
    X(coll_bcast_put, "TERN_COLL_BCAST_PUT", SIZE, "4K", NULL, TN_CFG_JOB,               \
      "Jobs across nodes (or TERN_SHM=off): an eager broadcast above this "              \
      "size goes to a network child by one write into its ring that carries "            \
      "its own arrival flag (TERN_OFI_SIGNAL; else the write and an ordered "            \
      "flag write) instead of active messages, where the provider orders "               \
      "unacknowledged writes.")                                                          \
    X(coll_bcast_chain, "TERN_COLL_BCAST_CHAIN", SIZE, "256K", NULL, TN_CFG_JOB,         \
      "Smallest pipelined broadcast (bytes) of a team of more than 2 members "           \
      "across nodes that runs down a chain (each member sends the data once); "          \
      "below, a binomial tree.")                                                         \
    X(coll_pipe_chunk, "TERN_COLL_PIPE_CHUNK", SIZE, "1M", NULL, TN_CFG_JOB,             \
      "Bytes per chunk of a pipelined broadcast across nodes: a member "                 \
      "forwards each chunk as soon as it arrived; 0: the whole broadcast in "            \
      "one chunk. At least 1K (smaller chunks made a broadcast crawl).")                 \
    X(coll_put_flag_msgs, "TERN_COLL_PUT_FLAG_MSGS", INT, "2", NULL, TN_CFG_JOB,         \
      "Most active messages (of TERN_AM_MEDIUM_MAX bytes each) that carry one "          \
      "piece of a collective's data with its flag to a network member, the "             \
      "flag on the last (eager ring entries above the Medium limit); larger "            \
      "pieces go by a put awaited for its remote completion, then the flag "             \
      "(the eager allreduce's regions above TERN_AM_MEDIUM_MAX, to members "             \
      "reached by ordered writes: one write that raises the flag on arrival, "           \
      "or without that capability a put and an ordered flag write behind it).")          \
    X(coll_leader_max, "TERN_COLL_LEADER_MAX", SIZE, "4K", NULL, TN_CFG_JOB,             \
      "Largest allreduce (bytes) of a team with 3 or more members on some "              \
      "node of a job across nodes that goes through one leader per node "                \
      "(members to their leader through shared memory, leaders exchange "                \
      "their node's partial, the result back through shared memory), where "             \
      "its regions fit the eager ring; above (up to TERN_COLL_TREE_MAX), "               \
      "recursive doubling between all members. Also the largest all-to-all "             \
      "result per member (members x block bytes) of a team with 2 or more "              \
      "members on some node that goes through one leader per node (one "                 \
      "message per pair of nodes), where it takes at most half the ring; "               \
      "above, every member sends every block. 0: never.")                                \
    X(coll_tree_max, "TERN_COLL_TREE_MAX", SIZE, "64K", NULL, TN_CFG_JOB,                \
      "Largest allreduce (bytes) of a team across nodes by recursive doubling "          \
      "in the eager ring, where its log2(n) regions fit (the world team, its "           \
      "members each on their own node: in half of "                                      \
      "TERN_COLL_WORLD_RING; other teams of 2 members: in half "                         \
      "the ring, above it the exchange of TERN_COLL_RHD_MAX; else a binomial "           \
      "tree up to the fast area's region per child); above, a ring "                     \
      "reduce-scatter and allgather (TERN_COLL_RING_PIECE).")                            \
    X(coll_rhd_max, "TERN_COLL_RHD_MAX", SIZE, "4M", NULL, TN_CFG_JOB,                   \
      "Largest allreduce (bytes) of a team across nodes whose size is a power "          \
      "of two by recursive halving and doubling (above TERN_COLL_TREE_MAX): a "          \
      "reduce-scatter then an allgather in log2(n) steps each, the data put "            \
      "into the partners' dests (2 members: both exchange the whole data, up "           \
      "to TERN_COLL_RHD_PAIR_MAX); above, and for other team sizes, the ring "           \
      "(TERN_COLL_RING_PIECE). 0: never.")                                               \
    X(coll_rhd_pair_max, "TERN_COLL_RHD_PAIR_MAX", SIZE, "256K", NULL, TN_CFG_JOB,       \
      "Largest allreduce (bytes) of a 2-member team across nodes by the "                \
      "exchange of the whole data in pieces (TERN_COLL_PAIR_PIECE; also "                \
      "bounded by TERN_COLL_RHD_MAX); above, the ring, which combines half "             \
      "the data per member instead of all of it.")                                       \
    X(coll_pair_piece, "TERN_COLL_PAIR_PIECE", SIZE, "256K", NULL, TN_CFG_JOB,           \
      "Bytes per piece of the exchange of a 2-member allreduce across nodes "            \
      "(up to TERN_COLL_RHD_PAIR_MAX): each piece goes into the partner's dest "         \
      "with its flag and is combined there as soon as it arrived, while later "          \
      "pieces travel (at most 64 pieces). 0: the whole data as one piece.")              \
    X(coll_ring_piece, "TERN_COLL_RING_PIECE", SIZE, "256K", NULL, TN_CFG_JOB,           \
      "Bytes per piece of the ring allreduce of a team across nodes (above "             \
      "TERN_COLL_TREE_MAX): each piece goes into the next member's dest with "           \
      "its flag and is combined and forwarded as soon as it arrived. Up to "             \
      "TERN_COLL_PUT_FLAG_MSGS Medium messages a piece travels as messages, "            \
      "above as a put whose remote completion raises the flag. 0: a chunk "              \
      "(1/n of the data) per piece.")                                                    \
    X(coll_xchg_piece, "TERN_COLL_XCHG_PIECE", SIZE, "512K", NULL, TN_CFG_JOB,           \
      "Bytes per put of the fcollect and all-to-all of a team across nodes "             \
      "with blocks above the Medium limit: each block goes to its member as "            \
      "puts of at most this size, its flag behind the last. 0: one put per "             \
      "block. At least 1K (smaller puts made an exchange crawl).")                       \
    X(coll_wide_max, "TERN_COLL_WIDE_MAX", SIZE, "2K", NULL, TN_CFG_JOB,                 \
      "Largest allreduce, and fcollect or all-to-all block (bytes), of a "               \
      "team whose members are each on their own node that goes as wide "                 \
      "records: above the stamped record's 112 bytes (tcp;ofi_rxm), each "               \
      "partial or block with its stamp and a check word as one network "                 \
      "write with local completion only, which the receiver polls in its "               \
      "memory, instead of one active message. At most 2K (the default); "                \
      "0: never.")                                                                       \
    X(boot_timeout, "TERN_BOOT_TIMEOUT", DOUBLE, "60", NULL, 0,                          \
      "Seconds the job may spend in start-up (every rank reaching and "                  \
      "finishing tern_init) before it is ended with an error; 0: no limit.")             \
    X(shm, "TERN_SHM", BOOL, "1", NULL, TN_CFG_JOB,                                      \
      "Use shared memory between ranks of one node; 0 sends everything, "                \
      "even to a rank on the same node, through the network transport (the "             \
      "nodes that tern_node_* and tern_local_* report do not change).")                  \
    X(static_data, "TERN_STATIC_DATA", BOOL, "1", NULL, 0,                               \
      "Make the program's global and static variables (the executable's "                \
      "data and bss) remotely accessible, as OpenSHMEM's symmetric data "                \
      "objects are: at tern_init they move into shared memory at the same "              \
      "addresses (when the node has several ranks) and are registered with "             \
      "the network transport. 0: only the segment is remotely accessible "               \
      "(for programs that fork children which must not share their "                     \
      "parent's variables).")                                                            \
    X(ofi_provider, "TERN_OFI_PROVIDER", STRING, "", NULL, 0,                            \
      "libfabric provider for the network transport (tcp;ofi_rxm, verbs;"                \
      "ofi_rxm, cxi, efa, psm3, sockets, ...); empty: the best available. "              \
      "Every rank must end up with the same one: tern_init compares the "                \
      "provider each chose (and, for ofi_rxm, the FI_OFI_RXM_* variables "               \
      "that decide its eager limit) and stops on every rank when they differ.")          \
    X(ofi_domain, "TERN_OFI_DOMAIN", STRING, "", NULL, 0,                                \
      "libfabric domain (device or interface, such as eth0 or mlx5_0); "                 \
      "empty: the provider's first.")                                                    \
    X(ofi_fabric, "TERN_OFI_FABRIC", STRING, "", NULL, 0,                                \
      "libfabric fabric (the tcp provider's IP network of the interface, such "          \
      "as 192.0.2.0/24 or fd00::/64, where one interface has several); empty: "          \
      "the first of the domain.")                                                        \
    X(ofi_tx_depth, "TERN_OFI_TX_DEPTH", INT, "0", NULL, 0,                              \
      "Network operations in flight per rank at most; more wait (or return "             \
      "TERN_ERR_AGAIN with TERN_FLAG_IMMEDIATE). 0: 256 with TERN_OFI_SIZE=tern, "       \
      "the provider's queue size with TERN_OFI_SIZE=provider.")                          \
    X(ofi_size, "TERN_OFI_SIZE", ENUM, "tern", "tern|provider", TN_CFG_JOB,              \
      "Who sizes the network provider's buffers and queues: tern sets the "              \
      "provider's variables (FI_OFI_RXM_BUFFER_SIZE, _TX_SIZE, _RX_SIZE, ...) "          \
      "from Tern's needs where the user has not set them (a user's FI_* "                \
      "setting wins; tern-info shows each value and why), with "                         \
      "TERN_OFI_TX_DEPTH=0 meaning 256 operations in flight; provider keeps "            \
      "the provider's defaults (tcp;ofi_rxm: about 80 MB per rank).")                    \
    X(ofi_mr_local, "TERN_OFI_MR_LOCAL", BOOL, "0", NULL, 0,                             \
      "Register or bounce local buffers even when the provider does not "                \
      "require it (FI_MR_LOCAL); for testing that path.")                                \
    X(ofi_max_msg, "TERN_OFI_MAX_MSG", SIZE, "0", NULL, 0,                               \
      "Largest network transfer issued as one operation; longer ones are "               \
      "split into fragments of this size. 0: the provider's maximum. At least "          \
      "1K (smaller fragments made a 1 MiB put or a collective take minutes).")           \
    X(ofi_put_bounce, "TERN_OFI_PUT_BOUNCE", SIZE, "16K", NULL, 0,                       \
      "Puts to network peers up to this size that may return at local "                  \
      "completion (nbi puts, blocking puts on partial and none contexts, "               \
      "libtshmem's blocking puts) are copied into a bounce slot of their "               \
      "descriptor, so that their source is reusable when the call returns; "             \
      "larger ones are locally complete once the provider has sent them. "               \
      "Costs TERN_OFI_TX_DEPTH slots of this size per rank (touched as "                 \
      "used). 0: no copy.")                                                              \
    X(ofi_signal, "TERN_OFI_SIGNAL", BOOL, "1", NULL, 0,                                 \
      "Let a network write carry its own arrival signal as remote CQ data "              \
      "(one message where a write and a flag write are two: the eager "                  \
      "broadcast above TERN_COLL_BCAST_PUT), where the provider offers 8 bytes of "      \
      "it and reports it at the target (not the sockets provider). 0: "                  \
      "the write and an ordered flag write behind it.")                                  \
    X(ofi_inject_guard, "TERN_OFI_INJECT_GUARD", BOOL, "0", NULL, 0,                     \
      "ofi_rxm (libfabric 1.17): send writes without completion (barrier "               \
      "flags, the atomic mailbox, small nbi puts) through ofi_rxm's own "                \
      "buffers, by binding a write counter, so that one that fails because "             \
      "its target rank left the job is reported instead of crashing this "               \
      "rank inside fi_cq_read (a NULL context dereferenced by ofi_rxm). "                \
      "Each such write then has a completion that tcp signals (measured: a "             \
      "2-PE network barrier 6.9 -> 9.3 us, a mailbox fetch-add 9.2 -> 12 us). "          \
      "0: a rank that dies mid-job (a signal; or exit() under PMIx: under "              \
      "ternrun a rank's error exit waits to be ended) can take a peer "                  \
      "writing to it down with SIGSEGV.")                                                \
    X(order, "TERN_ORDER", ENUM, "strict", "strict|partial|none", 0,                     \
      "Ordering mode of the default context and of contexts created "                    \
      "without one (docs/design/ordering.md): strict: a blocking put or "                \
      "non-fetching atomic to a network peer returns once it is visible "                \
      "at the target, so every blocking operation is seen in program order; "            \
      "partial: blocking operations of one kind (puts; atomics) to one "                 \
      "target stay in program order, returning early where the network "                 \
      "orders them; none: they return when their source is reusable and "                \
      "only tern_fence/tern_quiet order them. Shared-memory peers are in "               \
      "program order in every mode.")                                                    \
    X(ofi_atomics, "TERN_OFI_ATOMICS", ENUM, "auto", "auto|net|am", TN_CFG_JOB,          \
      "How atomic domains of a job that spans nodes run: auto uses the "                 \
      "provider's atomics where it carries out every op of the domain's set "            \
      "(fi_query_atomic) in the NIC, and active messages otherwise, also "               \
      "where the provider emulates atomics in the target's software (ofi_rxm, "          \
      "tcp, shm, efa, psm: tern-info says which); net uses the "                         \
      "provider's atomics only (a domain it cannot serve is refused); am "               \
      "never uses them: active messages run every op at its target with "                \
      "CPU atomics.")                                                                    \
    X(amo_combine, "TERN_AMO_COMBINE", SIZE, "2K", NULL, 0,                              \
      "Atomic domains on the active-message path: the nbi ops of a thread "              \
      "to one network target (and blocking non-fetching ones that return "               \
      "early) are combined into one message of at most this many bytes "                 \
      "(24-40 per op; at most 4K, and the target's TERN_AM_MEDIUM_MAX), "                \
      "sent when full, at a sync or wait, or when progress finds nothing "               \
      "else to do. 0: one message per op.")                                              \
    X(amo_mailbox, "TERN_AMO_MAILBOX", BOOL, "1", NULL, 0,                               \
      "Atomic domains on the active-message path: a blocking fetching op to "            \
      "a network target travels as two RMA writes without completions (into "            \
      "a mailbox slot at the target, the old value back into one here) "                 \
      "instead of two messages, where no op of the thread is still travelling "          \
      "by message. A target serves 64 (initiator, thread) pairs this way, "              \
      "the first to ask; 4.5 KiB of every rank's control area. 0: by "                   \
      "message.")                                                                        \
    X(get_mailbox, "TERN_GET_MAILBOX", SIZE, "104", NULL, 0,                             \
      "A blocking get of at most this many bytes (at most 104) from a "                  \
      "network target travels by the atomic mailbox (TERN_AMO_MAILBOX): a "              \
      "request written into a mailbox slot at the target, the bytes written "            \
      "back into one here by the target's progress, no completion at either "            \
      "end, instead of an RMA read (whose completion costs the tcp provider's "          \
      "signal), where no atomic-domain op of the thread still travels by "               \
      "message and the provider's inject size holds the reply (24 B more). "             \
      "0, or TERN_AMO_MAILBOX=0: every get by RMA read.")                                \
    X(ofi_lazy_addr, "TERN_OFI_LAZY_ADDR", BOOL, "1", NULL, TN_CFG_JOB,                  \
      "Resolve a remote rank's network address on first contact, through the "           \
      "launcher's key-value store (ternrun, PMIx_Get), and insert it into the "          \
      "address vector then: start-up moves no address table. 0: every "                  \
      "address is exchanged and inserted at start-up (also where the launcher "          \
      "has no key-value store).")                                                        \
    X(test_fault, "TERN_TEST_FAULT", STRING, "", NULL, 0,                                \
      "For testing error paths: issue:N makes every N-th network fragment "              \
      "fail when issued, complete:N every N-th network completion report "               \
      "an error, noamo:OP makes the provider's atomics lack operation OP "               \
      "(an op name such as fmult) for every type, noorder makes the network "            \
      "transport report no ordering (every put acknowledged, no flush reads), "          \
      "noack makes it acknowledge no put (each waits for a flush read, even "            \
      "one alone before a quiet), nowiden makes its unacknowledged writes "              \
      "keep the provider's default inject size, peertab:create makes the "               \
      "node's peer table fail to be created by the node's lowest rank and "              \
      "peertab:map fail to be mapped by the node's other ranks (they keep "              \
      "private copies), collseq:N numbers every team's collectives from N "              \
      "and starts its flags there (N = 2^31 - 64 crosses 2^31 as 2^31 "                  \
      "collectives do, 2^32 - 64 crosses 0 as 2^32 do), collstale:N the "                \
      "same with its flags left at 0 (last written N calls before), pagg:N "             \
      "makes every N-th message of combined nbi puts or gets fail as a send to a "       \
      "peer gone would. Empty: no faults.")                                              \
    X(progress_thread, "TERN_PROGRESS_THREAD", BOOL, "0", NULL, 0,                       \
      "Start a thread that drives network progress, for ranks that compute "             \
      "for long stretches without calling Tern (only in jobs with network "              \
      "peers). It sleeps while the application calls into the network (its "             \
      "looks backing off from 1 to 32 ms) and polls once the application "               \
      "was silent for a whole period.")                                                  \
    X(progress_thread_cpu, "TERN_PROGRESS_THREAD_CPU", INT, "-1", NULL, TN_CFG_SIGNED,   \
      "CPU to pin the progress thread to; -1: not pinned.")                              \
    X(am_medium_max, "TERN_AM_MEDIUM_MAX", SIZE, "8K", NULL, TN_CFG_JOB,                 \
      "Largest active-message Medium payload (and Long Reply over the "                  \
      "network); shared-memory queues hold at least two such messages. "                 \
      "At least 512.")                                                                   \
    X(signal_msg_max, "TERN_SIGNAL_MSG_MAX", SIZE, "8K", NULL, 0,                        \
      "Across nodes, a put with signal of at most this many bytes (and at "              \
      "most TERN_AM_MEDIUM_MAX) goes with its signal as one active message "             \
      "whose handler applies the signal once the data is in place, where "               \
      "signal words take CPU atomics at the target (TERN_OFI_ATOMICS auto "              \
      "on providers that emulate atomics, or am). Longer data, and 0, "                  \
      "wait for the data's remote completion before the signal.")                        \
    X(nbi_agg_max, "TERN_NBI_AGG_MAX", SIZE, "256", NULL, 0,                             \
      "nbi puts and nbi gets of at most this many bytes to or from a network "           \
      "peer are combined: a thread's consecutive puts to one peer travel as "            \
      "one active message (up to 8K and TERN_AM_MEDIUM_MAX) that the target "            \
      "unpacks, its consecutive gets as one message listing them whose "                 \
      "Reply brings them all; sent when full, before any other operation of "            \
      "the thread to that peer, at a sync, wait, barrier or poll. At most 4K. "          \
      "0: every nbi put and get goes alone.")                                            \
    X(vis_pack_max, "TERN_VIS_PACK_MAX", SIZE, "2K", NULL, 0,                            \
      "Non-contiguous puts to network peers whose pieces are at most this "              \
      "many bytes (on average) are packed into active messages and "                     \
      "unpacked by the target, instead of one RMA per piece (bounded by "                \
      "TERN_AM_MEDIUM_MAX). 0: never pack. Default from tern-bench vis_elem.")           \
    X(am_shm_queue, "TERN_AM_SHM_QUEUE", SIZE, "32K", NULL, TN_CFG_JOB,                  \
      "Bytes of the data ring of the shared-memory queue that carries "                  \
      "active messages from one rank of a node to another (raised to hold "              \
      "two of the largest messages; plus a 64-byte slot per 256 bytes, at "              \
      "least 64 and at most 128). Each rank holds one per rank of the largest "          \
      "node.")                                                                           \
    X(am_net_credits, "TERN_AM_NET_CREDITS", INT, "8", NULL, TN_CFG_JOB,                 \
      "Active messages one rank may have outstanding at one network peer "               \
      "before the peer's handlers have run (flow control; 2 to 32768, other "            \
      "values are refused). A peer that streams to a rank which sends nothing back "     \
      "gets up "                                                                         \
      "to 16 times as many (at most 65535), out of that rank's TERN_AM_NET_RECV "        \
      "buffers.")                                                                        \
    X(am_net_recv, "TERN_AM_NET_RECV", SIZE, "1M", NULL, 0,                              \
      "Bytes of receive buffers for network active messages, allocated at "              \
      "start-up: 16 stay posted while messages come a few at a time, up to all "         \
      "of them under a flood.")                                                          \
    X(boot_socket_dir, "TERN_BOOT_SOCKET_DIR", STRING, "", NULL, 0,                      \
      "Directory for ternrun's bootstrap socket; empty: an abstract socket "             \
      "(no file). Set it when ranks run in other network namespaces.")                   \
    X(cc, "TERN_CC", STRING, "", NULL, 0,                                                \
      "The C compiler that terncc runs, with options if need be (ccache gcc). "          \
      "Empty: the compiler Tern was built with. Read by terncc only: oshcc reads "       \
      "OSHCC_CC and oshc++ OSHCXX_CXX.")                                                 \
    X(boot_addr, "TERN_BOOT_ADDR", STRING, "", NULL, TN_CFG_INTERNAL,                    \
      "Set by ternrun: where a rank reaches the launcher.")                              \
    X(boot_rank, "TERN_BOOT_RANK", INT, "-1", NULL, TN_CFG_INTERNAL | TN_CFG_SIGNED,     \
      "Set by ternrun: this process's rank.")                                            \
    X(boot_size, "TERN_BOOT_SIZE", INT, "0", NULL, TN_CFG_INTERNAL,                      \
      "Set by ternrun: the number of ranks.")                                            \
    X(boot_node, "TERN_BOOT_NODE", STRING, "", NULL, TN_CFG_INTERNAL,                    \
      "Set by ternrun: the node identity of this rank (simulated nodes).")               \
    X(boot_jobid, "TERN_BOOT_JOBID", STRING, "", NULL, TN_CFG_INTERNAL,                  \
      "Set by ternrun: a job-unique identifier.")                                        \
    X(boot_cpuset, "TERN_BOOT_CPUSET", STRING, "", NULL, TN_CFG_INTERNAL,                \
      "Set by ternrun when the topology is simulated (HWLOC_XMLFILE, "                   \
      "HWLOC_SYNTHETIC): the CPUs planned for this rank, which it takes as "             \
      "its place instead of its real affinity.")

#endif
