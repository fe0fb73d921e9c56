/* Every TERN_* variable, declared once.
 * X(field, NAME, TYPE, default, choices, flags, help) */
#ifndef TN_CFG_VARS_H
#define TN_CFG_VARS_H

#define TN_CFG_VARS(X)                                                        \
    X(verbose, "TERN_VERBOSE", INT, "0", NULL, 0,                             \
      "Log level: 0 warnings and errors, 1 start-up report and phase "        \
      "times, 2 debug, 3 trace.")                                             \
    X(error_mode, "TERN_ERROR_MODE", ENUM, "return", "return|abort", 0,       \
      "On an error, return the status to the caller, or print it and end "    \
      "the whole job.")                                                       \
    X(segment_size, "TERN_SEGMENT_SIZE", SIZE, "64M", NULL, 0,                \
      "Bytes of remotely accessible segment per rank (units K, M, G, T; or "  \
      "a percentage of physical memory such as 10%).")                        \
    X(segment_faultin, "TERN_SEGMENT_FAULTIN", ENUM, "parallel",              \
      "parallel|serial|none", 0,                                              \
      "How the segment's pages are touched at start-up: by worker threads "   \
      "pinned per NUMA domain, by the rank alone, or not at all (first use "  \
      "pays).")                                                               \
    X(faultin_threads, "TERN_FAULTIN_THREADS", INT, "0", NULL, 0,             \
      "Worker threads for parallel fault-in; 0 picks the cores of this node " \
      "divided among its ranks.")                                             \
    X(hugepages, "TERN_HUGEPAGES", ENUM, "try", "try|on|off", 0,              \
      "Back the segment with huge pages: try (use them when the system "      \
      "allows, else 4 KiB pages and say why), on (fail without them), off.")  \
    X(wait_mode, "TERN_WAIT_MODE", ENUM, "auto", "auto|spin|yield|block", 0,  \
      "How waiting calls wait: auto spins briefly then yields when this "     \
      "node has more ranks than cores; spin never yields; yield always "      \
      "yields; block sleeps in the kernel between checks.")                   \
    X(spin_count, "TERN_SPIN_COUNT", INT, "2000", NULL, 0,                    \
      "Polls before a waiting call starts yielding (auto mode).")             \
    X(boot_timeout, "TERN_BOOT_TIMEOUT", DOUBLE, "60", NULL, 0,               \
      "Seconds the job may spend in start-up (every rank reaching and "       \
      "finishing tern_init) before it is ended with an error; 0: no limit.")               \
    X(boot_addr, "TERN_BOOT_ADDR", STRING, "", NULL, TN_CFG_INTERNAL,         \
      "Set by ternrun: where a rank reaches the launcher.")                   \
    X(boot_rank, "TERN_BOOT_RANK", INT, "-1", NULL, TN_CFG_INTERNAL | TN_CFG_SIGNED,          \
      "Set by ternrun: this process's rank.")                                 \
    X(boot_size, "TERN_BOOT_SIZE", INT, "0", NULL, TN_CFG_INTERNAL,           \
      "Set by ternrun: the number of ranks.")                                 \
    X(boot_node, "TERN_BOOT_NODE", STRING, "", NULL, TN_CFG_INTERNAL,         \
      "Set by ternrun: the node identity of this rank (simulated nodes).")    \
    X(boot_jobid, "TERN_BOOT_JOBID", STRING, "", NULL, TN_CFG_INTERNAL,       \
      "Set by ternrun: a job-unique identifier.")

#endif
