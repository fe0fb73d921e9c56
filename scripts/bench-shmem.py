#!/usr/bin/env python3
"""Tern's OpenSHMEM against Open MPI's OSHMEM, side by side in one run.

Builds bench/shmem (shmem-bench, written once against plain shmem.h)
twice, with Tern's oshcc (build/src/shmem/oshcc; the Tern build adds the
Tern-native rows of shb_native.c) and with Open MPI's oshcc, runs both in
each chosen configuration and prints per row: Tern, OSHMEM, Tern's speed
relative to OSHMEM (>1: Tern faster) and, where a native row exists, what
libtshmem adds over Tern's native API. --json writes the rows as JSON
lines (a provenance record first) for bench/plot.py (tern-bench-plot).

    scripts/bench-shmem.py                        # shm, 2 PEs
    scripts/bench-shmem.py --config shm,net --json shmem.jsonl
    scripts/bench-shmem.py --row-time 0.05 --sizes 8,4K --rows lat,amo

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
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "bench", "shmem")
# Rows of one size family are plotted as lines, the others as bars.
LINE_FAMILIES = {
    "put_lat": "lat", "put_nbi_lat": "lat", "get_lat": "lat", "get_nbi_lat": "lat",
    "put_bw": "bw", "put_nbi_bw": "bw", "get_bw": "bw", "get_nbi_bw": "bw",
    "put_signal_pp": "coll", "broadcast64": "coll", "long_sum_to_all": "coll",
}


def log(msg):
    print(f"bench-shmem: {msg}", file=sys.stderr, flush=True)


def run(cmd, env=None, timeout=None):
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
    ap.add_argument("--trials", default="7", help="trials per row (default 7)")
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

    args = ["--json", "--row-time", a.row_time, "--trials", a.trials, "--rows", a.rows, "--gups-log2",
            a.gups_log2, "--sort-keys", a.sort_keys]
    if a.sizes:
        args += ["--sizes", a.sizes]

    prov = {
        "record": "provenance", "host": platform.node(), "cpu": cpu_name(),
        "online_cpus": os.cpu_count(), "tern_version": tern_version(a.build_dir),
        "commit": git_commit(), "date": datetime.datetime.now(datetime.timezone.utc)
        .strftime("%Y-%m-%dT%H:%M:%SZ"), "pes": a.np, "row_time": float(a.row_time),
        "oshmem_version": ompi_version() if have_ompi else None,
        "baseline_name": "Open MPI OSHMEM",
    }
    out_rows = []
    table = []
    table_notes = []
    for cfg in configs:
        env = dict(os.environ, SHMEM_SYMMETRIC_SIZE=a.heap)
        tenv = dict(env)
        if cfg == "net":
            tenv["TERN_SHM"] = "off"
        tcmd = [t_oshrun, "-np", str(a.np)]
        if cfg == "mixed":
            tcmd += ["--nodes", "2"]  # simulated nodes: the network between them
        tcmd += [tern_bin, *args]
        trows = parse_rows(run(tcmd, tenv, a.timeout), "Tern's shmem-bench")
        orows, ocmd = [], None
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
            orows = parse_rows(run(ocmd, env, a.timeout), "Open MPI's shmem-bench")
        tern_env = {k: v for k, v in tenv.items() if k.startswith(("TERN_", "SHMEM_"))}
        copy = tern_copy(a.build_dir, tenv) if cfg != "net" else None
        if copy:
            table_notes.append(f"# {cfg}: Tern's copies with shared-memory peers stream "
                               f"(non-temporal stores) from {copy['hot_nt_from']} (hot) "
                               f"and {copy['cold_nt_from']} (cold); calibration "
                               f"{copy['calibration']}")
        p = dict(prov, bench=f"shmem-{cfg}", config=cfg, tern_env=tern_env, tern_copy=copy,
                 tern_cmd=" ".join(tcmd), oshmem_cmd=" ".join(ocmd) if ocmd else None,
                 oshmem_transport=("UCX (spml ucx), UCX_TLS=self,tcp; MPI btl self,tcp"
                                   if cfg != "shm" else
                                   "UCX (spml ucx), its default shared-memory transports")
                 if ompi_bin else None)
        out_rows.append(p)
        out_rows.extend(join(cfg, trows, orows, a.np, table))
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


def join(cfg, trows, orows, npes, table):
    """One row per (op, size) of Tern's library rows, OSHMEM's and the native
    row of the same op beside it."""
    by = {}
    for r in trows + orows:
        by[(r["impl"], r["op"], r["size"])] = r
    rows = []
    for r in trows:
        if r["impl"] != "tern":
            continue
        key = (r["op"], r["size"])
        o = by.get(("oshmem",) + key)
        n = by.get(("tern-native",) + key)
        fam = LINE_FAMILIES.get(r["op"])
        row = {
            "bench": f"shmem-{cfg}-{fam}" if fam else f"shmem-{cfg}-summary",
            "config": cfg, "op": r["op"], "measure": r["op"], "size": r["size"],
            "value": r["value"], "unit": r["unit"], "p10": r["p10"], "p90": r["p90"],
            "better": r["better"], "trials": r["trials"], "ops": r["ops"], "ranks": npes,
            "nodes": 1, "method": r.get("method"),
            "baseline": o["value"] if o else None,
            "baseline_p10": o["p10"] if o else None,
            "baseline_p90": o["p90"] if o else None,
            "baseline_method": o.get("method") if o else None,
            "baseline_name": "Open MPI OSHMEM",
            "ratio": r["value"] / o["value"] if o and o["value"] else None,
            "speedup": speed(r["value"], o["value"] if o else None, r["better"]),
            "native": n["value"] if n else None,
            "native_p10": n["p10"] if n else None,
            "native_p90": n["p90"] if n else None,
            # >1: libtshmem slower than the native call by that factor
            "vs_native": speed(n["value"], r["value"], r["better"]) if n else None,
        }
        rows.append(row)
        table.append(row)
    return rows


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
           f"# OSHMEM: {prov['oshmem_version'] or 'absent'}; speedup = Tern's speed / "
           "OSHMEM's (>1: Tern faster); shmem/native = libtshmem's time / Tern native "
           "(1.00: no overhead)"]
    hdr = f"{'config':6} {'op':16} {'size':>6} {'unit':5} {'Tern':>9} {'OSHMEM':>9} " \
          f"{'speedup':>8} {'native':>9} {'shmem/native':>12}"
    out.append(hdr)
    for r in rows:
        sp = r["speedup"]
        vn = r["vs_native"]
        out.append(f"{r['config']:6} {r['op']:16} {size_label(r['size']):>6} {r['unit']:5} "
                   f"{fmt(r['value']):>9} {fmt(r['baseline']):>9} "
                   f"{(f'{sp:.2f}x' if sp else 'n/a'):>8} {fmt(r['native']):>9} "
                   f"{(f'{vn:.3f}' if vn else ''):>12}")
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
