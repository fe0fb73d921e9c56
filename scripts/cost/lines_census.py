#!/usr/bin/env python3
"""Shared cache lines that cross between the two ranks of a ping-pong per
round, from lackey traces of scripts/cost/am_lines.c (scripts/am-lines.sh).

  lines_census.py STDERR TRACE0 TRACE1 ROUNDS

STDERR holds the program's MAP and MARKER lines; TRACEr is rank r's lackey
data trace (' L|S|M addr,size' lines). Every access to a tern memfd is named
by (inode, line); rounds are counted by the stores to the marker. A line
crosses in round i when one rank writes it in round i and the other reads or
writes it in round i or i+1: the least number of transfers (a line a
spinning reader takes back while the writer still writes moves more often,
which no trace shows; nor do prefetches, which lackey does not see)."""
import collections
import re
import sys


def main():
    errf, t0, t1, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    maps = {0: [], 1: []}
    marker = {}
    for line in open(errf):
        m = re.match(r'MAP (\d) ([0-9a-f]+)-([0-9a-f]+) \S+ ([0-9a-f]+) \S+ (\d+)\s+(\S+)', line)
        if m:
            maps[int(m[1])].append((int(m[2], 16), int(m[3], 16), int(m[4], 16),
                                    int(m[5]), m[6].replace('/memfd:', '')))
        m = re.match(r'MARKER (\d) (?:0x)?([0-9a-f]+)', line)
        if m:
            marker[int(m[1])] = int(m[2], 16)
    if len(marker) != 2:
        sys.exit('lines_census: no MARKER lines for both ranks in ' + errf)
    names = {ino: nm for r in maps for (_, _, _, ino, nm) in maps[r]}
    owner = {}  # inode -> rank that maps it first (its own segment comes first)
    lo, hi = rounds, 2 * rounds
    # per line: rounds written by 0, read by 0, written by 1, read by 1
    seen = collections.defaultdict(lambda: [set(), set(), set(), set()])
    for r, path in ((0, t0), (1, t1)):
        k = 0
        for line in open(path):
            if len(line) < 4 or line[0] != ' ' or line[1] not in 'LSM':
                continue
            op = line[1]
            a = int(line[3:line.index(',')], 16)
            if a == marker[r]:
                k += op in 'SM'
                continue
            i = k - 2
            if i < lo or i >= hi:
                continue
            for (s, e, off, ino, _) in maps[r]:
                if s <= a < e:
                    d = seen[(ino, (a - s + off) >> 6)]
                    if op in 'SM':
                        d[2 * r].add(i)
                    if op in 'LM':
                        d[2 * r + 1].add(i)
                    break
    groups = collections.OrderedDict()
    total = 0
    for key in sorted(seen):
        w0, r0, w1, r1 = seen[key]
        a0, a1 = w0 | r0, w1 | r1
        if not ((w0 and a1) or (w1 and a0)):
            continue
        x = sum(1 for i in w0 if i in a1 or i + 1 in a1) + \
            sum(1 for i in w1 if i in a0 or i + 1 in a0)
        total += x
        pat = ''.join(c if s else '.' for c, s in zip(('W', 'R', 'W', 'R'), (w0, r0, w1, r1)))
        g = groups.setdefault((names.get(key[0], '?') + ':' + str(key[0]), pat),
                              [0, 0, 0, 0, 0, 0, key[1], key[1]])
        g[0] += 1
        for j, sset in enumerate((w0, r0, w1, r1)):
            g[1 + j] += len(sset)
        g[5] += x
        g[6], g[7] = min(g[6], key[1]), max(g[7], key[1])
    n = hi - lo
    print('%d rounds counted; shared lines that both ranks touch, by memfd and pattern' % n)
    print('(W/R: written/read by rank 0, then by rank 1; per round: rounds in which it happens / rounds)')
    print('%-30s %-5s %6s %7s %7s %7s %7s %9s  %s' % ('memfd:inode', 'WRWR', 'lines', 'w0', 'r0',
                                                      'w1', 'r1', 'cross', 'lines at'))
    for (nm, pat), g in groups.items():
        print('%-30s %-5s %6d %7.3f %7.3f %7.3f %7.3f %9.3f  %d-%d' %
              (nm, pat, g[0], g[1] / n, g[2] / n, g[3] / n, g[4] / n, g[5] / n, g[6], g[7]))
    print('lines crossing per round trip: %.3f' % (total / n))


main()
