#!/usr/bin/env python3
"""Smoke check of scripts/bench-shmem.py (CTest): runs it with tiny rows in
one configuration, two rounds of Tern's run and OSHMEM's alternating, and
checks the form of its JSON: a provenance record, every row's keys, a
positive finite Tern value for every family (and the Tern-native rows)
from each round, and an OSHMEM value and the per-round spread beside each
when Open MPI's oshcc is present. Form only, never speed. Exit 0 pass, 1 fail, 77 when OSHMEM is
absent (after the Tern side has been checked).

    check_smoke.py BUILD_DIR CONFIG
"""
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import json_rows  # noqa: E402  (bench/json_rows.py)
ROW_KEYS = ("bench", "config", "op", "size", "value", "unit", "p10", "p90", "better",
            "baseline", "ratio", "speedup", "native", "vs_native", "ranks", "rounds",
            "tern_rounds", "baseline_rounds", "speedup_min", "speedup_max")
ROUNDS = 2
PROV_KEYS = ("bench", "record", "host", "cpu", "tern_version", "commit", "date", "tern_env")
TERN_OPS = ("put_lat", "put_nbi_lat", "get_lat", "get_nbi_lat", "put_bw", "put_nbi_bw",
            "get_bw", "get_nbi_bw", "put_nbi_rate", "fetch_add", "compare_swap", "add",
            "fetch", "put_signal_pp", "barrier_all", "broadcast64", "long_sum_to_all",
            "gups_xor", "int_sort")
NATIVE_OPS = ("put_lat", "get_lat", "put_nbi_bw", "fetch_add", "compare_swap", "add",
              "barrier_all", "put_signal_pp", "broadcast64", "long_sum_to_all")


def finite_pos(v):
    return isinstance(v, (int, float)) and math.isfinite(v) and v > 0


def main():
    build, cfg = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "rows.jsonl")
        cmd = [sys.executable, os.path.join(ROOT, "scripts", "bench-shmem.py"),
               "--build-dir", build, "--config", cfg, "--row-time", "0.01", "--trials", "3",
               "--sizes", "8", "--gups-log2", "10", "--sort-keys", "2000",
               "--timeout", "150", "--rounds", str(ROUNDS), "--block", "all", "--no-probe",
               "--skip-status", "--json", out]
        rc = subprocess.run(cmd).returncode
        if rc not in (0, 77):
            print(f"FAIL: bench-shmem.py exit status {rc}")
            return 1
        with open(out) as f:
            lines = f.read().splitlines()
    try:
        _, rows = json_rows.parse(lines, PROV_KEYS, ROW_KEYS)
    except ValueError as e:
        print(f"FAIL: {e}")
        return 1
    ops = {r["op"] for r in rows if finite_pos(r["value"]) and r["config"] == cfg}
    miss = [o for o in TERN_OPS if o not in ops]
    if miss:
        print(f"FAIL: Tern rows missing or not positive: {miss}")
        return 1
    bad = [(r["op"], r["size"]) for r in rows
           if r["rounds"] != ROUNDS or len(r["tern_rounds"]) != ROUNDS
           or not all(finite_pos(v) for v in r["tern_rounds"])]
    if bad:
        print(f"FAIL: rows without a Tern value from each of {ROUNDS} rounds: {bad}")
        return 1
    nat = {r["op"] for r in rows if finite_pos(r["native"])}
    miss = [o for o in NATIVE_OPS if o not in nat]
    if miss:
        print(f"FAIL: Tern-native rows missing: {miss}")
        return 1
    if rc == 77:
        if any(r["baseline"] is not None for r in rows):
            print("FAIL: OSHMEM values without OSHMEM")
            return 1
        print(f"SKIP: Open MPI's oshcc absent; Tern's {len(rows)} rows are well formed")
        return 77
    bad = [(r["op"], r["size"]) for r in rows
           if not finite_pos(r["baseline"]) or not finite_pos(r["speedup"])
           or len(r["baseline_rounds"]) != ROUNDS
           or not finite_pos(r["speedup_min"]) or not finite_pos(r["speedup_max"])
           or r["speedup_min"] > r["speedup_max"]]
    if bad:
        print(f"FAIL: rows without an OSHMEM value: {bad}")
        return 1
    print(f"PASS: {len(rows)} rows, Tern and OSHMEM alternating, {ROUNDS} rounds ({cfg})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
