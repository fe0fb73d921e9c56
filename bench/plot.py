#!/usr/bin/env python3
"""Plot tern-bench JSON lines: Tern's value against its raw baseline.

    ternrun -n 2 tern-bench put_bw --json > put_bw.jsonl
    bench/plot.py put_bw.jsonl            # writes tern-bench-put_bw.png

Reads one or more files (or stdin with '-'), one JSON object per line (other
lines are ignored), and writes one PNG per benchmark: value against message
size (ranks for startup; bars per mode for faultin), Tern solid with its
p10..p90 band, the raw baseline of the same run dashed. The provenance
record tern-bench writes first (host, CPU, version, commit, date, TERN_*
settings) goes under each title. Installed as tern-bench-plot.
"""
import argparse
import json
import math
import sys
from collections import OrderedDict


def read_rows(paths, prov):
    rows = []
    for path in paths:
        f = sys.stdin if path == "-" else open(path, encoding="utf-8")
        with f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    r = json.loads(line)
                except json.JSONDecodeError as e:
                    print(f"plot.py: skipping a bad line in {path}: {e}", file=sys.stderr)
                    continue
                if r.get("record") == "provenance":
                    prov.setdefault(r.get("bench"), r)
                else:
                    rows.append(r)
    return rows


def prov_line(p):
    if not p:
        return ""
    return (f"\n{p.get('host', '?')}: {p.get('cpu', '?')}; Tern {p.get('tern_version', '?')}"
            f" {p.get('commit', '?')}; {p.get('date', '?')}")


def num(v):
    return float("nan") if v is None else float(v)


def size_label(n):
    for unit, div in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return str(int(n))


def plot_bars(plt, bench, rows, out, title=None):
    fig, ax = plt.subplots(figsize=(7, 4))
    labels = [r.get("op", "?") for r in rows]
    vals = [num(r.get("value")) for r in rows]
    ax.bar(range(len(rows)), vals, color="tab:blue", label="Tern")
    base = num(rows[0].get("baseline"))
    if not math.isnan(base):
        ax.axhline(base, color="tab:gray", linestyle="--", label="baseline")
    for i, r in enumerate(rows):
        if r.get("skipped"):
            ax.text(i, 0, "skipped", ha="center", va="bottom", rotation=90)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(labels, rotation=20)
    ax.set_ylabel(rows[0].get("unit", ""))
    ax.set_title(title or f"tern-bench {bench} ({size_label(rows[0].get('size', 0))})",
                 fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def plot_lines(plt, bench, rows, out, sub=""):
    xkey = "ranks" if bench == "startup" else "size"
    series = OrderedDict()
    for r in rows:
        series.setdefault(r.get("op", bench), []).append(r)
    fig, ax = plt.subplots(figsize=(8, 5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    unit = rows[0].get("unit", "")
    for i, (op, rs) in enumerate(series.items()):
        rs.sort(key=lambda r: r.get(xkey, 0))
        x = [r.get(xkey, 0) for r in rs]
        c = colors[i % len(colors)]
        ax.plot(x, [num(r.get("value")) for r in rs], "o-", color=c, label=f"Tern {op}")
        if all(k in rs[0] for k in ("p10", "p90")):
            ax.fill_between(x, [num(r["p10"]) for r in rs], [num(r["p90"]) for r in rs],
                            color=c, alpha=0.2)
        base = [num(r.get("baseline")) for r in rs]
        if not all(math.isnan(b) for b in base):
            name = rs[0].get("baseline_name", "raw baseline")
            ax.plot(x, base, "s--", color=c, alpha=0.7, label=f"{name} ({op})")
    if xkey == "size":
        ax.set_xscale("log", base=2)
        xs = sorted({r.get("size", 0) for r in rows})
        ax.set_xticks(xs)
        ax.set_xticklabels([size_label(s) for s in xs], rotation=45)
        ax.set_xlabel("message size (bytes)")
    else:
        ax.set_xlabel("ranks")
    if unit in ("ns", "MB/s"):
        ax.set_yscale("log")
    ax.set_ylabel(unit)
    ax.set_title(f"tern-bench {bench}{sub}", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def rel_speed(r):
    v, b = num(r.get("value")), num(r.get("baseline"))
    if math.isnan(v) or math.isnan(b) or v <= 0 or b <= 0:
        return None
    return b / v if r.get("better") == "lower" else v / b


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", help="JSON-lines files from tern-bench --json ('-': stdin)")
    ap.add_argument("--out", default="tern-bench", help="output prefix (default: tern-bench)")
    args = ap.parse_args()
    prov = {}
    rows = read_rows(args.files, prov)
    if not rows:
        print("plot.py: no JSON rows found (run tern-bench with --json)", file=sys.stderr)
        return 1
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: matplotlib is not installed, so no plot was made.\n"
              "  Install it with 'python3 -m pip install matplotlib' or "
              "'apt-get install python3-matplotlib';\n"
              f"  the {len(rows)} rows read are intact in the JSON files.",
              file=sys.stderr)
        return 2
    benches = OrderedDict()
    for r in rows:
        benches.setdefault(r.get("bench", "unknown"), []).append(r)
    for bench, rs in benches.items():
        out = f"{args.out}-{bench}.png"
        # scripts/bench-shmem.py: rows "shmem-<config>-<family>" under the
        # provenance record "shmem-<config>".
        sub = prov_line(prov.get(bench, prov.get(bench.rsplit("-", 1)[0])))
        if bench in ("faultin", "summary") or bench.endswith("-summary"):
            title = None
            if bench.endswith("-summary") and rs[0].get("baseline_name"):
                rs = [dict(r, op=f"{r.get('op')} {size_label(r.get('size', 0))}",
                           value=rel_speed(r), baseline=1.0,
                           unit=f"speed relative to {r['baseline_name']}")
                      for r in rs]
                title = (f"{bench}: Tern's speed relative to {rs[0]['baseline_name']} "
                         "(>1: faster)")
            elif bench == "summary":
                # Mixed units and directions: plot each line as Tern's speed
                # relative to raw (raw/tern where lower is better, tern/raw
                # where higher is), so that above 1 always means faster.
                rs = [dict(r, op=f"{r.get('measure', r.get('op'))} {size_label(r.get('size', 0))}",
                           value=rel_speed(r), baseline=1.0, unit="speed relative to raw")
                      for r in rs]
                title = "tern-bench summary: Tern's speed relative to raw (>1: faster)"
            plot_bars(plt, bench, rs, out,
                      (title or f"tern-bench {bench} ({size_label(rs[0].get('size', 0))})")
                      + sub)
        else:
            plot_lines(plt, bench, rs, out, sub)
        print(f"plot.py: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
