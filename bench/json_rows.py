"""Reads the JSON lines that Tern's benchmarks write (tern-bench --json,
scripts/bench-shmem.py --json): the provenance record on the first line,
then one object per row. Shared by the smoke checkers of both."""
import json


def parse(lines, prov_keys, row_keys):
    """Returns (provenance, rows) from the non-empty lines, each checked for
    its keys; raises ValueError naming the first line that is wrong."""
    prov, rows = None, []
    lines = [l for l in lines if l.strip()]
    for n, line in enumerate(lines, 1):
        try:
            r = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"line {n} is not JSON ({e}): {line!r}")
        if not isinstance(r, dict):
            raise ValueError(f"line {n} is not a JSON object: {line!r}")
        # The first line says where the rows come from, and only it.
        if (r.get("record") == "provenance") != (n == 1):
            raise ValueError(f"line {n}: the provenance record must be line 1, once: {line}")
        miss = [k for k in (prov_keys if n == 1 else row_keys) if k not in r]
        if miss:
            raise ValueError(f"line {n} lacks {miss}: {line}")
        if n == 1:
            prov = r
        else:
            rows.append(r)
    return prov, rows
