#!/bin/sh
# Runs one rank of a test program (ternrun -n N shifted_layout.sh PROG
# ARGS...) with address-space layout randomization off and its mmap area
# SHIFT_KB KiB (default 4096) lower per rank, so that every rank's segment
# lies a few MiB below its left neighbour's and overlaps it in address:
# the end of rank r+1's segment (as rank r+1 sees it) falls inside rank
# r's own segment, and rank r's own pointers inside rank r+1's segment.
# With ASLR this happens now and then by chance (net ranks map their
# segments where their kernels choose; the fresh-clone CI's ASan run hit it
# in mp.signal_order_none.net.n4, fixed by aff119e); here every time, so
# the bad-input tests must give their messages whatever the layout.
#
# How: the kernel puts a process's mmap base below its stack limit (a
# gap of at least 128 MiB), so a stack limit of 128 MiB + rank * SHIFT_KB
# moves every mapping SHIFT_KB lower per rank; setarch -R (personality
# ADDR_NO_RANDOMIZE) makes the rest of the layout the same in every rank.
# Exit status 77 (skip) when either cannot be had here.
shift_kb=${SHIFT_KB:-4096}
rank=${TERN_BOOT_RANK:?shifted_layout.sh runs under ternrun (TERN_BOOT_RANK)}
if ! setarch "$(uname -m)" -R true 2>/dev/null; then
  echo "shifted_layout.sh: setarch -R (ADDR_NO_RANDOMIZE) is not available here" >&2
  exit 77
fi
if ! ulimit -s $((131072 + shift_kb * rank)) 2>/dev/null; then
  echo "shifted_layout.sh: cannot raise the stack limit to $((128 + shift_kb * rank / 1024)) MiB (hard limit $(ulimit -Hs))" >&2
  exit 77
fi
exec setarch "$(uname -m)" -R "$@"
