#!/usr/bin/env python3
"""Smoke check for tern-bench --json: run a command, require exit status 0,
and require that every line of its stdout is a JSON object carrying the
keys every row must have. Checks form only, never performance.

    check_json.py --bench put_lat --min-rows 2 -- ternrun -n 2 tern-bench put_lat --json ...
"""
import argparse
import json
import math
import os
import signal
import subprocess
import sys

import json_rows

REQUIRED = ("bench", "size", "value", "unit", "baseline")
PROVENANCE = ("bench", "host", "cpu", "tern_version", "commit", "date", "tern_env")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True, help="expected value of the 'bench' key")
    ap.add_argument("--min-rows", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=240)
    ap.add_argument("--positive", default="",
                    help="comma-separated keys every row must carry as positive numbers")
    ap.add_argument("--ops", default="",
                    help="comma-separated 'op' values the rows must have, in order")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("no command given")
    # A session of its own, so that a run past the timeout is ended with
    # every process it started (launcher and ranks), not only the first.
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=a.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        sys.stderr.write(err)
        print(f"FAIL: not finished within {a.timeout:g} s: {' '.join(cmd)}")
        return 1
    sys.stderr.write(err)
    if p.returncode != 0:
        print(f"FAIL: exit status {p.returncode}: {' '.join(cmd)}")
        print(out)
        return 1
    try:
        prov, rows = json_rows.parse(out.splitlines(), PROVENANCE, REQUIRED)
    except ValueError as e:
        print(f"FAIL: stdout {e}")
        return 1
    empty = [k for k in PROVENANCE if k != "tern_env" and not prov[k]]
    if empty:
        print(f"FAIL: the provenance record has empty {empty}: {prov}")
        return 1
    for n, row in enumerate(rows, 2):
        line = json.dumps(row)
        if not ({"ratio", "overhead"} & row.keys()):
            print(f"FAIL: line {n} has neither 'ratio' nor 'overhead': {line}")
            return 1
        if row["bench"] != a.bench:
            print(f"FAIL: line {n}: bench is {row['bench']!r}, expected {a.bench!r}")
            return 1
        if not isinstance(row["size"], int) or row["size"] < 0:
            print(f"FAIL: line {n}: size is not a byte count: {line}")
            return 1
        # A row may carry no figure only when it says why (faultin with
        # huge pages on a system that has none).
        v = row["value"]
        if v is None and not row.get("skipped"):
            print(f"FAIL: line {n}: value is null without a 'skipped' reason: {line}")
            return 1
        if v is not None and (not isinstance(v, (int, float)) or math.isnan(v) or v <= 0):
            print(f"FAIL: line {n}: value is not a positive number: {line}")
            return 1
        for k in filter(None, a.positive.split(",")):
            x = row.get(k)
            if not isinstance(x, (int, float)) or math.isnan(x) or x <= 0:
                print(f"FAIL: line {n}: {k} is not a positive number: {line}")
                return 1
    if a.ops and [r.get("op") for r in rows] != a.ops.split(","):
        print(f"FAIL: rows {[r.get('op') for r in rows]}, expected {a.ops.split(',')}")
        return 1
    if len(rows) < a.min_rows:
        print(f"FAIL: {len(rows)} JSON rows, expected at least {a.min_rows}")
        return 1
    print(f"PASS: {len(rows)} JSON rows from {a.bench}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
