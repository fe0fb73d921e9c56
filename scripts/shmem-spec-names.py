#!/usr/bin/env python3
"""Every C routine name of an OpenSHMEM specification, read from its LaTeX
sources, and which of them a library lacks.

    scripts/shmem-spec-names.py SPEC_CONTENT_DIR|NAMES_FILE [--lib libtshmem.so]
        [--header shmem.h --cc cc --cflags "-Iinclude ..."] [--list]

NAMES_FILE is what --list printed ("c NAME" / "c11 NAME" lines; the
1.6 list is tests/shmem/spec-1.6-names.txt, which shmem.spec_names checks
the built library against). SPEC_CONTENT_DIR is the content/ directory of openshmem-org/specification
at a tag (v1.6: `git archive v1.6 content | tar -x`). The C and C
deprecated synopses (Csynopsis, CsynopsisCol) are expanded over the type
tables their "where" sentence names (stdrmatypes, stdamotypes, ...,
teamreducetypes filtered by the reduction's operation), over explicit
type lists ("one of {int, long, long long}") and over SIZE lists. The C11
generic names (C11synopsis) are listed apart: in a library they are
macros, so they are checked in the header with the preprocessor.

With --lib, prints the C names that are not defined functions of the
library (nm -D) and exits 1 if any; with --header, the C11 names that are
neither a macro nor a function of the header. --list prints every name."""
import argparse
import glob
import os
import re
import subprocess
import sys


def tables(content):
    """label -> list of (TYPE, TYPENAME, ops set or None)."""
    out = {}
    for path in glob.glob(os.path.join(content, "*.tex")):
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"\\begin\{tabular\}(.*?)\\end\{tabular\}.*?\\label\{(\w+)\}",
                             text, re.S):
            body, label = m.group(1), m.group(2)
            rows = []
            for line in body.split("\\hline"):
                cells = [c.strip() for c in line.split("&")]
                if len(cells) < 2 or "TYPE" in cells[0] or not cells[1]:
                    continue
                ctype = cells[0].replace("\\_", "_")
                ctype = re.sub(r"\s+", " ", ctype.replace("\\\\", "")).strip()
                name = cells[1].replace("\\\\", "").strip()
                ops = None
                if len(cells) > 2:
                    ops = set(re.findall(r"[A-Z]+", " ".join(cells[2:])))
                rows.append((ctype, name, ops))
            if rows:
                out[label] = rows
    return out


def unlatex(s):
    s = s.replace("\\_", "_")
    s = re.sub(r"\\FuncParam\{(\w+)\}", r"{\1}", s)
    return s


def func_names(line):
    """Names in \\FuncDecl{...} of a synopsis line (braces nest)."""
    names = []
    i = line.find("\\FuncDecl{")
    while i >= 0:
        j, depth = i + len("\\FuncDecl{"), 1
        start = j
        while j < len(line) and depth:
            depth += {"{": 1, "}": -1}.get(line[j], 0)
            j += 1
        names.append(unlatex(line[start:j - 1]))
        i = line.find("\\FuncDecl{", j)
    return names


def clause_types(clause, tabs, name):
    """TYPENAMEs one clause of a "where" sentence allows."""
    std = {t: n for t, n, _ in tabs["stdrmatypes"]}
    std.update({t: n for t, n, _ in tabs["teamreducetypes"]})
    explicit = re.search(r"one of \\\{(.*?)\\\}", clause, re.S)
    if explicit:
        ctypes = re.findall(r"\\CTYPE\{([^}]*)\}", explicit.group(1))
        return [std[c.replace("\\_", "_")] for c in ctypes]
    ref = re.search(r"\\ref\{(\w+)\}", clause)
    if not ref:
        raise ValueError(f"no table for {name}: {clause[:120]!r}")
    rows = tabs[ref.group(1)]
    op = re.search(r"supported\s+for\s+the\s+([A-Z]+)\s+operation", clause)
    if op:
        return [n for _, n, ops in rows if ops and op.group(1) in ops]
    return [n for _, n, _ in rows]


def where_types(where, tabs, name):
    """TYPENAMEs a "where" sentence allows: its first clause and every
    "or \\TYPE{} is one of" clause (the deprecated types)."""
    out = []
    for clause in re.split(r"\bor\s+\\TYPE\{\}", where):
        if "TYPE" in clause or "CTYPE" in clause or "ref{" in clause:
            out += [t for t in clause_types(clause, tabs, name) if t not in out]
    return out


def expand(name, where, tabs):
    names = [name]
    if "{TYPENAME}" in name:
        names = [name.replace("{TYPENAME}", t) for t in where_types(where, tabs, name)]
    if "{SIZE}" in name:
        m = re.search(r"\\SIZE\{\}\s+is\s+one\s+of\s+\\CONST\{([^}]*)\}", where)
        if not m:
            raise ValueError(f"no SIZE list for {name}: {where[:120]!r}")
        sizes = [s.strip() for s in m.group(1).split(",")]
        names = [n.replace("{SIZE}", s) for n in names for s in sizes]
    return names


def spec_names(content):
    tabs = tables(content)
    c_names, c11_names = set(), set()
    for path in sorted(glob.glob(os.path.join(content, "*.tex"))):
        lines = open(path, encoding="utf-8").read().split("\n")
        i = 0
        while i < len(lines):
            m = re.match(r"\s*\\begin\{(C11synopsis|Csynopsis|CsynopsisCol)\}", lines[i])
            if not m:
                i += 1
                continue
            kind, decls = m.group(1), []
            i += 1
            while not re.match(r"\s*\\end\{" + kind + r"\}", lines[i]):
                decls += func_names(lines[i])
                i += 1
            # The "where" sentence follows the block (after an optional
            # \end{DeprecateBlock}), up to the next block or blank line.
            j, where = i + 1, []
            while j < len(lines) and (lines[j].strip() or j == i + 1 or
                                      "DeprecateBlock" in lines[j - 1]):
                if re.search(r"\\begin\{(C|api)", lines[j]):
                    break
                where.append(lines[j])
                j += 1
            where = " ".join(where)
            if "where" not in where:
                where = ""
            for d in decls:
                target = c11_names if kind == "C11synopsis" else c_names
                if kind == "C11synopsis":
                    target.add(d)
                else:
                    target.update(expand(d, where, tabs))
            i += 1
    return sorted(c_names), sorted(c11_names)


def lib_functions(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True,
                         text=True, check=True).stdout
    return {l.split()[-1] for l in out.splitlines() if re.match(r"\S+ [TW] ", l)}


def header_names(cc, header, flags):
    """Macros and declared functions of the header (C11)."""
    src = f"#include <{header}>\n"
    macros = subprocess.run([cc, "-std=c11", "-E", "-dM", "-x", "c", "-"] + flags,
                            input=src, capture_output=True, text=True, check=True).stdout
    names = {m.group(1) for m in re.finditer(r"#define (\w+)", macros)}
    pre = subprocess.run([cc, "-std=c11", "-E", "-x", "c", "-"] + flags, input=src,
                         capture_output=True, text=True, check=True).stdout
    names |= set(re.findall(r"\b(\w+)\s*\(", pre))
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("content")
    ap.add_argument("--lib")
    ap.add_argument("--header")
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--cflags", default="", help="compiler flags for --header (-I...)")
    a = ap.parse_args()
    if os.path.isdir(a.content):
        c_names, c11_names = spec_names(a.content)
    else:
        rows = [l.split() for l in open(a.content) if l.strip() and l[0] != "#"]
        c_names = [n for k, n in rows if k == "c"]
        c11_names = [n for k, n in rows if k == "c11"]
    if a.list:
        for n in c_names:
            print("c", n)
        for n in c11_names:
            print("c11", n)
    print(f"specification: {len(c_names)} C routines, {len(c11_names)} C11 generic "
          f"names", file=sys.stderr)
    missing = 0
    if a.lib:
        missing += report(a.lib, "C routines", c_names, lib_functions(a.lib), "missing")
    if a.header:
        have = header_names(a.cc, a.header, a.cflags.split())
        missing += report(a.header, "C11 generic names", c11_names, have, "missing-c11")
    return 1 if missing else 0


def report(where, what, names, have, tag):
    """Prints how many of names where defines and each one it lacks."""
    lack = [n for n in names if n not in have]
    print(f"{where}: {len(names) - len(lack)} of {len(names)} {what} defined",
          file=sys.stderr)
    for n in lack:
        print(tag, n)
    return len(lack)


if __name__ == "__main__":
    sys.exit(main())
