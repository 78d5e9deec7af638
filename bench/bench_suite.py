"""Benchmark: the conformance matrix, per row: wall time, CPU seconds of the harness and of the cluster, peak memory.

Runs ``python -m fixtures.matrix`` (what ``make conformance`` runs) into a reports directory of
its own and samples its process tree from /proc every ``--every`` seconds. Each process is
counted to the row whose pytest it descends from, as *harness* (pytest and its xdist workers),
*scheduler* (the reference scheduler, when it is the one under test) or *cluster* (etcd,
kube-apiserver, kube-controller-manager, kube-scheduler, kwok). A process's CPU seconds are the
last sample's (up to ``--every`` seconds of a process's last moments are lost); a row's peak
memory is the largest sum of its processes' resident memory in one sample, the matrix's the
largest sum over all rows.

The floor is GangScheduling's fixed 5-minute Permit timeout, which the fault rows wait out:
the table gives the matrix's wall time as a multiple of it. ``--jobs 1`` runs the rows one after
another, as ``make conformance`` did before the rows ran side by side.

    .venv/bin/python bench/bench_suite.py                 # the whole matrix, 4 rows at a time
    .venv/bin/python bench/bench_suite.py --jobs 1 --profiles "beta alpha"
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: GangScheduling's Permit timeout in v1.37: the fault rows' wait, the matrix's floor.
FLOOR_S = 300.0
#: Target (issue 17): the whole matrix within this many seconds on two cores.
TARGET_S = 480.0
CLUSTER = {"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok", "controlplane"}
TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclasses.dataclass
class Seen:
    """One process as last sampled."""

    row: str
    kind: str
    cpu: float = 0.0


def _processes() -> dict[int, tuple[int, str, float, int]]:
    """pid -> (parent pid, kind of command, CPU seconds, resident bytes), for every process now."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
            cmdline = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        fields = text.rsplit(")", 1)[1].split()
        parent, cpu, rss = int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK, int(fields[21]) * PAGE
        found[int(stat.parent.name)] = (parent, _kind(cmdline), cpu, rss)
    return found


def _kind(cmdline: list[bytes]) -> str:
    words = [w.decode(errors="replace") for w in cmdline if w]
    name = Path(words[0]).name if words else ""
    if name in CLUSTER or any(Path(w).name in CLUSTER for w in words[:2]):
        return "cluster"
    if any("reference_scheduler" in w for w in words[:4]):
        return "scheduler"
    return "harness"


def _row_of(pid: int, table: dict, rows: dict[int, str]) -> str | None:
    """The row whose pytest ``pid`` is or descends from."""
    seen = set()
    while pid in table and pid not in seen:
        if pid in rows:
            return rows[pid]
        seen.add(pid)
        pid = table[pid][0]
    return None


def _row_pids(matrix_pid: int, table: dict) -> dict[int, str]:
    """The matrix's children (its rows' pytest processes), by their ``--profile`` and ``--scheduler``."""
    rows = {}
    for pid, (parent, _, _, _) in table.items():
        if parent != matrix_pid:
            continue
        try:
            words = (Path("/proc") / str(pid) / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        option = {w.split("=", 1)[0]: w.split("=", 1)[1] for w in words if w.startswith("--") and "=" in w}
        if "--only-profile" in option:
            rows[pid] = f"{option['--only-profile']}-{option.get('--scheduler', '?')}"
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profiles", default="beta alpha fault upgrade")
    parser.add_argument("--schedulers", default="kube-scheduler reference")
    parser.add_argument("--jobs", type=int, default=4, help="rows at a time (default 4; 1: one after another)")
    parser.add_argument("--workers", type=int, default=4, help="each row's xdist workers (default 4)")
    parser.add_argument("--every", type=float, default=0.5, help="seconds between two samples (default 0.5)")
    args = parser.parse_args()

    reports = Path(tempfile.mkdtemp(prefix="gangconf-bench-suite-"))
    log = reports / "matrix.log"
    command = [sys.executable, "-m", "fixtures.matrix", f"--profiles={args.profiles}",
               f"--schedulers={args.schedulers}", f"--reports-dir={reports}", f"--jobs={args.jobs}",
               f"--workers={args.workers}"]
    print(f"bench_suite: {' '.join(command[1:])} (output: {log})", flush=True)
    seen: dict[int, Seen] = {}
    rows: dict[int, str] = {}
    peak_total, peak_row = 0, {}
    started = time.monotonic()
    with log.open("w") as out:
        proc = subprocess.Popen(command, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            while proc.poll() is None:
                table = _processes()
                rows.update(_row_pids(proc.pid, table))
                total, per_row = 0, {}
                for pid, (_, kind, cpu, rss) in table.items():
                    row = _row_of(pid, table, rows)
                    if row is None:
                        continue
                    entry = seen.setdefault(pid, Seen(row, kind))
                    entry.cpu = max(entry.cpu, cpu)
                    total += rss
                    per_row[row] = per_row.get(row, 0) + rss
                peak_total = max(peak_total, total)
                for row, rss in per_row.items():
                    peak_row[row] = max(peak_row.get(row, 0), rss)
                time.sleep(args.every)  # sleep-ok: the sampling period of a benchmark
        except KeyboardInterrupt:
            proc.send_signal(2)
            proc.wait()
            raise
    wall = time.monotonic() - started

    figures = {(r["profile"] + "-" + r["scheduler"]): r
               for r in json.loads((reports / "matrix" / "rows.json").read_text())}
    cpu: dict[str, dict[str, float]] = {}
    for entry in seen.values():
        cpu.setdefault(entry.row, {}).setdefault(entry.kind, 0.0)
        cpu[entry.row][entry.kind] += entry.cpu
    print(f"\n{'row':<28} {'wall s':>7} {'harness cpu s':>14} {'scheduler cpu s':>16} {'cluster cpu s':>14} "
          f"{'peak MiB':>9}  checks")
    for name, row in figures.items():
        took = (row["ended"] or 0) - (row["started"] or 0)
        use = cpu.get(name, {})
        print(f"{name:<28} {took:>7.0f} {use.get('harness', 0):>14.0f} {use.get('scheduler', 0):>16.0f} "
              f"{use.get('cluster', 0):>14.0f} {peak_row.get(name, 0) / 2**20:>9.0f}  "
              f"{row['done']} done, {row['failed']} failed, exit {row['returncode']}")
    sums = {k: sum(c.get(k, 0) for c in cpu.values()) for k in ("harness", "scheduler", "cluster")}
    print(f"{'total':<28} {wall:>7.0f} {sums['harness']:>14.0f} {sums['scheduler']:>16.0f} {sums['cluster']:>14.0f} "
          f"{peak_total / 2**20:>9.0f}")
    print(f"\nwall time {wall:.0f} s = {wall / FLOOR_S:.2f} x the floor (the {FLOOR_S:.0f} s Permit timeout); "
          f"target {TARGET_S:.0f} s: {'met' if wall <= TARGET_S else 'NOT met'}; matrix exit code {proc.returncode}; "
          f"{args.jobs} rows at a time")
    print(f"reports: {reports}")
    return 0 if proc.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
