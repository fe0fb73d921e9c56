#!/usr/bin/env python3
"""Tern's OpenSHMEM against Open MPI's OSHMEM, side by side in one run.

Builds bench/shmem (shmem-bench, written once against plain shmem.h)
twice, with Tern's oshcc (build/src/shmem/oshcc; the Tern build adds the
Tern-native rows of shb_native.c) and with Open MPI's oshcc, runs both in
each chosen configuration and prints per row: Tern, OSHMEM, Tern's speed
relative to OSHMEM (>1: Tern faster) and, where a native row exists, what
libtshmem adds over Tern's native API. --json writes the rows as JSON
lines (a provenance record first) for bench/plot.py (tern-bench-plot).

The two libraries run alternately: each block of rows (one family by
default, --block) runs --rounds times as Tern's job, OSHMEM's job, Tern's,
OSHMEM's ... A row's Tern and OSHMEM figures are the medians over the
rounds of each run's own median (of --trials trials), its speedup the
ratio of the two medians, and its spread the lowest and highest speedup
of one round (a Tern run against the OSHMEM run right after it). On a VM
whose shared-memory latency moves between regimes minutes or seconds
apart, one Tern run followed by one OSHMEM run compares two regimes as
often as two libraries (docs/bench.md, "shmem-bench";
docs/design/shmem-bench.md).

    scripts/bench-shmem.py                        # shm, 2 PEs
    scripts/bench-shmem.py --config shm,net --json shmem.jsonl
    scripts/bench-shmem.py --row-time 0.05 --sizes 8,4K --rows lat,amo --rounds 5

Configurations: shm (Tern: same-node shared memory; OSHMEM: UCX with its
shared-memory transports), net (Tern: TERN_SHM=off, its libfabric path;
OSHMEM: UCX_TLS=self,tcp and MPI's btl self,tcp), mixed (Tern: two simulated nodes, oshrun
--nodes 2; OSHMEM as in net). Exit status 0; 77 with --skip-status when Open
MPI's oshcc is absent (the Tern side has then run alone); 1 on failure.
"""
import argparse
import datetime
import json
import math
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "bench", "shmem")
# Rows of one size family are plotted as lines, the others as bars.
LINE_FAMILIES = {
    "put_lat": "lat", "put_nbi_lat": "lat", "get_lat": "lat", "get_nbi_lat": "lat",
    "put_bw": "bw", "put_nbi_bw": "bw", "get_bw": "bw", "get_nbi_bw": "bw",
    "put_signal_pp": "coll", "broadcast64": "coll", "long_sum_to_all": "coll",
}
# shmem-bench's row families (--rows), in its order; "native" (Tern's
# native rows beside the library rows) is not a block of its own.
FAMILIES = ("lat", "bw", "rate", "amo", "signal", "barrier", "bcast", "reduce", "gups",
            "sort")


def log(msg):
    print(f"bench-shmem: {msg}", file=sys.stderr, flush=True)


def run(cmd, env=None, timeout=None, quiet=False):
    if not quiet:
        log("$ " + " ".join(cmd))
    # A session of its own, so that a run past the timeout ends with every
    # process it started (launcher and PEs), not only the launcher.
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise RuntimeError(f"not finished within {timeout:g} s: {' '.join(cmd)}")
    if p.returncode != 0:
        raise RuntimeError(f"exit status {p.returncode}: {' '.join(cmd)}")
    return out


def build(cc, impl, out, native):
    srcs = [os.path.join(SRC, "shb.c")]
    if native:
        srcs.append(os.path.join(SRC, "shb_native.c"))
    cmd = [cc, "-O2", "-g", f'-DSHB_IMPL="{impl}"', *srcs, "-o", out]
    run(cmd)
    return out


def parse_rows(text, what):
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise RuntimeError(f"{what}: line {n} of its output is not JSON ({e}): {line!r}")
    return rows


def speed(tern, other, better):
    """How many times faster tern is than other (>1: tern faster)."""
    if tern is None or other is None or tern <= 0 or other <= 0:
        return None
    return other / tern if better == "lower" else tern / other


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", default="shm", help="shm, net or both as shm,net (default shm)")
    ap.add_argument("--np", type=int, default=2, help="PEs (default 2)")
    ap.add_argument("--row-time", default="0.3", help="seconds per row (default 0.3)")
    ap.add_argument("--rows", default="all", help="families: lat,bw,rate,amo,signal,barrier,"
                    "bcast,reduce,gups,sort,native (default all)")
    ap.add_argument("--sizes", help="sizes of the size rows, e.g. 8,64,4K")
    ap.add_argument("--trials", default="7", help="trials per row in one run (default 7)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="runs of each block per library, Tern's and OSHMEM's alternating "
                    "(default 3)")
    ap.add_argument("--block", choices=("family", "all"), default="family",
                    help="what one run holds: one row family (default) or every "
                    "selected row")
    ap.add_argument("--no-probe", action="store_true",
                    help="leave out the raw flag ping-pong (tern-bench put_pingpong) run "
                    "before each round that shows the machine's shm regime")
    ap.add_argument("--gups-log2", default="20", help="GUPS table words per PE, log2")
    ap.add_argument("--sort-keys", default="65536", help="integer sort keys per PE")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--oshmem-cc", default="/usr/bin/oshcc")
    ap.add_argument("--oshmem-run", default="/usr/bin/oshrun")
    ap.add_argument("--heap", default="64M", help="SHMEM_SYMMETRIC_SIZE for both (default 64M)")
    ap.add_argument("--json", help="write JSON lines here ('-': stdout, the table to stderr)")
    ap.add_argument("--work", help="directory for the two binaries (default: a temporary one)")
    ap.add_argument("--skip-status", action="store_true",
                    help="exit 77 when Open MPI's oshcc is absent (for CTest)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per run")
    a = ap.parse_args()

    configs = [c for c in a.config.split(",") if c]
    for c in configs:
        if c not in ("shm", "net", "mixed"):
            ap.error(f"--config: unknown configuration {c!r} (shm, net, mixed)")
    if not 1 <= a.rounds <= 99:
        ap.error("--rounds wants 1 .. 99")
    fams = list(FAMILIES) if a.rows == "all" else [f for f in a.rows.split(",") if f]
    for f in fams:
        if f not in FAMILIES + ("native",):
            ap.error(f"--rows: unknown family {f!r} ({', '.join(FAMILIES)}, native)")
    native = a.rows == "all" or "native" in fams
    fams = [f for f in fams if f != "native"]
    if a.block == "all" or not fams:
        blocks = [",".join(fams) or "native"]
    else:
        blocks = fams
    t_oshcc = os.path.join(a.build_dir, "src", "shmem", "oshcc")
    t_oshrun = os.path.join(a.build_dir, "src", "shmem", "oshrun")
    for f in (t_oshcc, t_oshrun):
        if not os.access(f, os.X_OK):
            print(f"bench-shmem: {f} is missing: build Tern first (scripts/build.sh) or "
                  f"give --build-dir", file=sys.stderr)
            return 1
    have_ompi = os.access(a.oshmem_cc, os.X_OK) and os.access(a.oshmem_run, os.X_OK)
    if not have_ompi:
        log(f"{a.oshmem_cc} or {a.oshmem_run} not found: Tern's side only "
            "(apt-get install openmpi-bin libopenmpi-dev for the comparison)")

    work = a.work or tempfile.mkdtemp(prefix="bench-shmem-")
    os.makedirs(work, exist_ok=True)
    tern_bin = build(t_oshcc, "tern", os.path.join(work, "shmem-bench-tern"), True)
    ompi_bin = None
    if have_ompi:
        ompi_bin = build(a.oshmem_cc, "oshmem", os.path.join(work, "shmem-bench-oshmem"),
                         False)

    args = ["--json", "--row-time", a.row_time, "--trials", a.trials, "--gups-log2",
            a.gups_log2, "--sort-keys", a.sort_keys]
    if a.sizes:
        args += ["--sizes", a.sizes]

    prov = {
        "record": "provenance", "host": platform.node(), "cpu": cpu_name(),
        "online_cpus": os.cpu_count(), "tern_version": tern_version(a.build_dir),
        "commit": git_commit(), "date": datetime.datetime.now(datetime.timezone.utc)
        .strftime("%Y-%m-%dT%H:%M:%SZ"), "pes": a.np, "row_time": float(a.row_time),
        "oshmem_version": ompi_version() if have_ompi else None,
        "baseline_name": "Open MPI OSHMEM", "rounds": a.rounds, "block": a.block,
    }
    out_rows = []
    table = []
    table_notes = []
    t0 = time.monotonic()
    for cfg in configs:
        env = dict(os.environ, SHMEM_SYMMETRIC_SIZE=a.heap)
        tenv = dict(env)
        if cfg == "net":
            tenv["TERN_SHM"] = "off"
        tcmd = [t_oshrun, "-np", str(a.np)]
        if cfg == "mixed":
            tcmd += ["--nodes", "2"]  # simulated nodes: the network between them
        tcmd += [tern_bin, *args]
        ocmd = None
        if ompi_bin:
            ocmd = [a.oshmem_run, "-np", str(a.np), "--oversubscribe", "--mca", "osc", "^rdma",
                    "-x", f"SHMEM_SYMMETRIC_SIZE={a.heap}"]
            if os.geteuid() == 0:
                ocmd.append("--allow-run-as-root")
            if cfg in ("net", "mixed"):
                # UCX (spml ucx: RMA and AMOs) over TCP, and MPI's byte
                # transfer layer too: OSHMEM's collectives (scoll mpi) and
                # barrier go through MPI, which would use shared memory.
                ocmd += ["-x", "UCX_TLS=self,tcp", "--mca", "btl", "self,tcp"]
            ocmd += [ompi_bin, *args]
        # Every run's rows, by round: runs[impl][round] = [rows].
        runs = {"tern": [[] for _ in range(a.rounds)], "oshmem": [[] for _ in range(a.rounds)]}
        probes = [[] for _ in range(a.rounds)]  # raw ns before each block's round
        for bi, blk in enumerate(blocks):
            trows = blk + (",native" if native and blk != "native" else "")
            for rnd in range(a.rounds):
                first = bi == 0 and rnd == 0
                raw = None if a.no_probe else probe(a.build_dir, a.timeout)
                probes[rnd].append(raw)
                sides = [("tern", tcmd, tenv, trows, "Tern's shmem-bench")]
                if ocmd:
                    sides.append(("oshmem", ocmd, env, blk, "Open MPI's shmem-bench"))
                took = []
                for impl, cmd, e, rows, what in sides:
                    s0 = time.monotonic()
                    out = parse_rows(run(cmd + ["--rows", rows], e, a.timeout,
                                         quiet=not first), what)
                    for r in out:
                        r["raw_ns"] = raw
                    runs[impl][rnd].extend(out)
                    took.append(f"{impl} {time.monotonic() - s0:.1f} s")
                if raw is not None:
                    took.insert(0, f"raw {raw:.0f} ns")
                log(f"{cfg}: {blk} round {rnd + 1}/{a.rounds} ({', '.join(took)}); "
                    f"block {bi + 1}/{len(blocks)}, {time.monotonic() - t0:.0f} s in all")
        tern_env = {k: v for k, v in tenv.items() if k.startswith(("TERN_", "SHMEM_"))}
        copy = tern_copy(a.build_dir, tenv) if cfg != "net" else None
        if copy:
            table_notes.append(f"# {cfg}: Tern's copies with shared-memory peers stream "
                               f"(non-temporal stores) from {copy['hot_nt_from']} (hot) "
                               f"and {copy['cold_nt_from']} (cold); calibration "
                               f"{copy['calibration']}")
        p = dict(prov, bench=f"shmem-{cfg}", config=cfg, tern_env=tern_env, tern_copy=copy,
                 tern_cmd=" ".join(tcmd) + " --rows BLOCK",
                 oshmem_cmd=" ".join(ocmd) + " --rows BLOCK" if ocmd else None,
                 blocks=blocks,
                 oshmem_transport=("UCX (spml ucx), UCX_TLS=self,tcp; MPI btl self,tcp"
                                   if cfg != "shm" else
                                   "UCX (spml ucx), its default shared-memory transports")
                 if ompi_bin else None)
        raws = [x for pr in probes for x in pr if x is not None]
        if raws:
            table_notes.append(f"# {cfg}: raw flag ping-pong before each round, half round "
                               f"trip {min(raws):.0f} .. {max(raws):.0f} ns (median "
                               f"{statistics.median(raws):.0f}), column raw ns: the median of a "
                               "row's rounds")
        p["raw_ns"] = raws
        out_rows.append(p)
        out_rows.extend(join(cfg, runs, a.np, table))
    text = "\n".join([format_table(table, prov, configs, bool(ompi_bin)), *table_notes])
    if a.json == "-":
        print(text, file=sys.stderr)
        for r in out_rows:
            print(json.dumps(r))
    else:
        print(text)
        if a.json:
            with open(a.json, "w") as f:
                for r in out_rows:
                    f.write(json.dumps(r) + "\n")
            log(f"JSON rows in {a.json} (plot: bench/plot.py {a.json})")
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)
    if not ompi_bin and a.skip_status:
        return 77
    return 0


def spread(vals):
    """p10 and p90 of vals as shmem-bench takes them from its trials."""
    v = sorted(vals)
    return v[len(v) // 10], v[len(v) - 1 - len(v) // 10]


def join(cfg, runs, npes, table):
    """One row per (op, size) of Tern's library rows: the medians over the
    rounds of Tern's, OSHMEM's and the native row of the same op, the ratio
    of the medians and the spread of the per-round ratios."""
    rounds = len(runs["tern"])
    # by[(impl, op, size)] = [row of round 0 or None, row of round 1, ...]
    by = {}
    order = []
    for side in ("tern", "oshmem"):
        for rnd, rows in enumerate(runs[side]):
            for r in rows:
                key = (r["impl"], r["op"], r["size"])
                if key not in by:
                    by[key] = [None] * rounds
                    if r["impl"] == "tern":
                        order.append(key[1:])
                by[key][rnd] = r
    out = []
    for key in order:
        t = by[("tern",) + key]
        o = by.get(("oshmem",) + key, [None] * rounds)
        n = by.get(("tern-native",) + key, [None] * rounds)
        first = next(r for r in t if r)
        better = first["better"]

        def vals(rs):
            return [r["value"] for r in rs if r]

        def med(rs):
            v = vals(rs)
            return statistics.median(v) if v else None

        def p10_p90(rs):
            v = [r for r in rs if r]
            if not v:
                return None, None
            if len(v) == 1:  # one run: its own trials' spread
                return v[0]["p10"], v[0]["p90"]
            return spread([r["value"] for r in v])

        tv, ov, nv = med(t), med(o), med(n)
        raws = [r.get("raw_ns") for r in t if r and r.get("raw_ns") is not None]
        per_round = [speed(x["value"], y["value"], better)
                     for x, y in zip(t, o) if x and y]
        vs_nat = [speed(y["value"], x["value"], better) for x, y in zip(t, n) if x and y]
        tp10, tp90 = p10_p90(t)
        op10, op90 = p10_p90(o)
        np10, np90 = p10_p90(n)
        fam = LINE_FAMILIES.get(key[0])
        row = {
            "bench": f"shmem-{cfg}-{fam}" if fam else f"shmem-{cfg}-summary",
            "config": cfg, "op": key[0], "measure": key[0], "size": key[1],
            "value": tv, "unit": first["unit"], "p10": tp10, "p90": tp90,
            "better": better, "trials": first["trials"], "ops": first["ops"],
            "ranks": npes, "nodes": 1, "method": first.get("method"),
            "rounds": len(vals(t)),
            "tern_rounds": vals(t),
            "baseline": ov,
            "baseline_p10": op10,
            "baseline_p90": op90,
            "baseline_rounds": vals(o),
            "baseline_method": next((r.get("method") for r in o if r), None),
            "baseline_name": "Open MPI OSHMEM",
            "ratio": tv / ov if ov else None,
            "speedup": speed(tv, ov, better),
            # the slowest and fastest round: one Tern run against the OSHMEM
            # run right after it
            "speedup_min": min(per_round) if per_round else None,
            "speedup_max": max(per_round) if per_round else None,
            "native": nv,
            "native_p10": np10,
            "native_p90": np90,
            "native_rounds": vals(n),
            # >1: libtshmem slower than the native call by that factor (the
            # native row runs right after the library row, in the same run)
            "vs_native": speed(nv, tv, better) if nv else None,
            "vs_native_min": min(vs_nat) if vs_nat else None,
            "vs_native_max": max(vs_nat) if vs_nat else None,
            # the raw flag ping-pong's half round trip (ns) before each round
            "raw_ns": raws,
        }
        out.append(row)
        table.append(row)
    return out


def fmt(v):
    if v is None:
        return "n/a"
    if v == 0 or (abs(v) >= 0.01 and abs(v) < 1e6):
        return f"{v:.3g}" if abs(v) < 100 else f"{v:.0f}"
    return f"{v:.2e}"


def size_label(n):
    for u, s in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= s and n % s == 0:
            return f"{n // s}{u}"
    return str(n)


def format_table(rows, prov, configs, ompi):
    out = [f"# shmem-bench, {prov['pes']} PEs on {prov['host']} ({prov['cpu']}, "
           f"{prov['online_cpus']} CPUs), {prov['date']}, Tern {prov['tern_version']} "
           f"({prov['commit']}), row time {prov['row_time']} s",
           f"# OSHMEM: {prov['oshmem_version'] or 'absent'}; medians over {prov['rounds']} "
           f"rounds of Tern's run then OSHMEM's (one {prov['block']} per run); speedup = "
           "Tern's speed / OSHMEM's (>1: Tern faster), of the medians, [the slowest .. "
           "fastest round]; shmem/native = libtshmem's time / Tern native (1.00: no "
           "overhead)"]
    hdr = f"{'config':6} {'op':16} {'size':>6} {'unit':5} {'Tern':>9} {'OSHMEM':>9} " \
          f"{'speedup':>8} {'rounds':>13} {'native':>9} {'shmem/native':>12} {'raw ns':>6}"
    out.append(hdr)
    slower = []
    for r in rows:
        sp = r["speedup"]
        vn = r["vs_native"]
        rr = (f"[{r['speedup_min']:.2f}..{r['speedup_max']:.2f}]"
              if r["speedup_min"] is not None else "")
        raw = f"{statistics.median(r['raw_ns']):.0f}" if r["raw_ns"] else ""
        out.append(f"{r['config']:6} {r['op']:16} {size_label(r['size']):>6} {r['unit']:5} "
                   f"{fmt(r['value']):>9} {fmt(r['baseline']):>9} "
                   f"{(f'{sp:.2f}x' if sp else 'n/a'):>8} {rr:>13} {fmt(r['native']):>9} "
                   f"{(f'{vn:.3f}' if vn else ''):>12} {raw:>6}")
        if sp is not None and sp < 1:
            slower.append(f"{r['config']} {r['op']} {size_label(r['size'])} {sp:.2f}x {rr}")
    if ompi:
        out.append(f"# slower than OSHMEM (median): {len(slower)} of {len(rows)} rows"
                   + ("".join(f"\n#   {s}" for s in slower)))
    return "\n".join(out)


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def tern_version(build_dir):
    info = os.path.join(build_dir, "tools", "tern-info", "tern-info")
    try:
        return subprocess.run([info, "--version"], stdout=subprocess.PIPE, text=True,
                              timeout=30).stdout.strip().split()[-1]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "unknown"


def tern_copy(build_dir, env):
    """Which copy Tern's shared-memory puts and gets take, as tern-info
    --copy reports it in this environment: the calibration's origin and the
    sizes from which it streams (non-temporal stores) to a peer sharing this
    core's caches (hot) and to one that does not (cold). A 1 MiB copy with
    non-temporal stores takes about 2.4x a regular one here (185 against 76
    us, TERN_SHM_TOPO=on), so a shm table is read with this line."""
    info = os.path.join(build_dir, "tools", "tern-info", "tern-info")
    out = {"calibration": None, "hot_nt_from": None, "cold_nt_from": None}
    try:
        text = subprocess.run([info, "--copy"], stdout=subprocess.PIPE, text=True,
                              env=env, timeout=120).stdout
    except (OSError, subprocess.SubprocessError):
        return out
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("calibration:"):
            out["calibration"] = line.split(":", 1)[1].strip()
        elif "(hot): non-temporal from" in line:
            out["hot_nt_from"] = line.rsplit("from", 1)[1].strip()
        elif "(cold): non-temporal from" in line:
            out["cold_nt_from"] = line.rsplit("from", 1)[1].strip()
    return out


def probe(build_dir, timeout):
    """The raw half round trip (ns) of a flag ping-pong between two processes
    on this node (tern-bench put_pingpong's baseline: plain stores and a
    spin, no Tern on the path), or None when tern-bench is absent or fails.
    It tells which of the VM's two shm regimes a round ran in."""
    cmd = [os.path.join(build_dir, "tools", "ternrun", "ternrun"), "-n", "2",
           os.path.join(build_dir, "bench", "tern-bench"), "put_pingpong", "--sizes", "8",
           "--row-time", "0.05", "--trials", "3", "--json"]
    try:
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, timeout=min(timeout, 60)).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for line in out.splitlines():
        if line.startswith("{"):
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            if r.get("op") == "put+flag" and r.get("baseline"):
                return float(r["baseline"])
    return None


def git_commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              timeout=30).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def ompi_version():
    try:
        out = subprocess.run(["oshmem_info", "--parsable"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                             timeout=30).stdout
        for line in out.splitlines():
            if line.startswith("oshmem:version:full:"):
                return "Open MPI OSHMEM " + line.split(":")[-1]
    except (OSError, subprocess.SubprocessError):
        pass
    return "Open MPI (version unknown)"


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        print(f"bench-shmem: FAIL: {e}", file=sys.stderr)
        sys.exit(1)
