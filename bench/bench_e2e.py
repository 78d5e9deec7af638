"""Benchmark: end-to-end gang scheduling through a real API server, kube-scheduler beside the reference.

One local control plane (v1.37.2, gang-beta profile) and one pool of fake nodes serve both
schedulers in the same run, one after the other. For each scheduler and shape the members of
every gang are created first, naming PodGroups that do not exist yet, so that nothing is
scheduled while the pods are written; then the PodGroups are created and the clock runs from
the first PodGroup until every member is bound (seen through a watch).

    .venv/bin/python bench/bench_e2e.py                      # the small shape
    .venv/bin/python bench/bench_e2e.py --shape many-small-gangs --shape few-large-gangs

The reference scheduler's core is also run in process on each shape (no API server, bindings
applied back at once; bench_reference_core.py), so the table shows what the algorithm alone
costs next to the two schedulers end to end.

Shapes as in bench_reference_core.py, plus ``memory``: 5000 nodes and 9000 pods (3 gangs of
3000), after which the peak resident memory of both schedulers is reported. The 5000-node
shapes take many minutes on 2 cores, most of it writing nodes and pods; the pool lifts the
``not-ready`` taint from each node itself as soon as the node is Ready (the node-lifecycle
controller, held to its client rate limit, lifted about 1400 of 5000 in 250 s).
"""

from __future__ import annotations

import argparse
import sys
import shutil
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))


from fixtures.providers.local import binaries  # noqa: E402
from fixtures.builders import GangBuilder  # noqa: E402
from fixtures.labels import managed_labels, resource_name  # noqa: E402
from fixtures.timeline import node_name  # noqa: E402
from fixtures.pools import NodePool, NodeShape  # noqa: E402
from fixtures.processes import owned_tempdir, reap_orphans  # noqa: E402
from fixtures.profiles import Profile  # noqa: E402
from fixtures.providers.local import LocalControlPlane  # noqa: E402
from fixtures.reference import ReferenceScheduler  # noqa: E402
from fixtures.testenv import TestEnvironment  # noqa: E402
from bench_reference_core import run as run_core  # noqa: E402

SHAPES = {
    "small": (100, 10, 10),
    "many-small-gangs": (5000, 1000, 3),
    "few-large-gangs": (5000, 3, 1000),
    "memory": (5000, 3, 3000),
}


class AllBound:
    """The wait's predicate: ``count`` pods recorded, each with a node.

    The recorder calls it after every watch event (thousands per shape), so it must not look at
    every pod each time, which on 2 cores took CPU from the schedulers being measured: it keeps
    the pods not yet seen bound and looks only at the last of them (a pod's node never changes).
    """

    def __init__(self, count: int) -> None:
        self.count = count
        self.unseen: list[str] | None = None

    def __call__(self, state) -> bool:
        if self.unseen is None:
            if len(state.pods) < self.count:
                return False
            self.unseen = list(state.pods)
        while self.unseen and node_name(state.pods.get(self.unseen[-1]) or {}):
            self.unseen.pop()
        return not self.unseen


def measure(api, pool: NodePool, scheduler_name: str, shape: str, gangs: int, size: int, timeout: float) -> float:
    env = TestEnvironment(api, resource_name(f"bench-{scheduler_name}-{shape}"), managed_labels("bench", shape))
    recorder = env.record()
    builder = GangBuilder(api, env.namespace, pool, env.labels, scheduler_name=scheduler_name)
    try:
        for g in range(gangs):
            builder.pods(f"g{g}", size, group=f"g{g}", cpu="100m", memory="64Mi")
        started = time.monotonic()
        for g in range(gangs):
            builder.pod_group(f"g{g}", min_count=size)
        recorder.eventually(AllBound(gangs * size), timeout=timeout,
                            describe=f"all {gangs * size} pods bound by {scheduler_name}")
        return time.monotonic() - started
    finally:
        env.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", choices=[*sorted(SHAPES), "all"], action="append",
                        help="repeatable; default small; `all` runs every shape")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds allowed per measurement")
    args = parser.parse_args()
    shapes = list(SHAPES) if "all" in (args.shape or []) else args.shape or ["small"]
    bins = binaries.ensure()
    rows, peaks = [], []
    reap_orphans()
    run_dir = owned_tempdir("gangconf-bench-")
    try:
        plane = LocalControlPlane(bins, Profile.resolve("gang-beta"), Path(run_dir), start_timeout=120)
        cluster = plane.start()
        api = cluster.api_client()
        reference = ReferenceScheduler(api, run_id="bench", log=Path(run_dir) / "reference.log", start_timeout=120)
        try:
            for shape in shapes:
                nodes, gangs, size = SHAPES[shape]
                pool = NodePool(api, run_id="bench", test_id=shape, timeout=max(60.0, nodes / 5),
                                lift_not_ready=True)
                try:
                    pool.add(nodes, NodeShape(cpu="32", memory="256Gi"))
                    upstream = measure(api, pool, "default-scheduler", shape, gangs, size, args.timeout)
                    name = reference.start() if reference.proc is None else "gangconf-reference"
                    ours = measure(api, pool, name, shape, gangs, size, args.timeout)
                finally:
                    pool.close()
                core = run_core(nodes, gangs, size)["seconds"]
                rows.append((shape, nodes, gangs, size, upstream, ours, core))
                print(f"{shape}: kube-scheduler {upstream:.2f}s, reference {ours:.2f}s, reference core in process "
                      f"{core:.2f}s", flush=True)
                if shape == "memory":
                    peaks.append((peak_kib(plane.component("kube-scheduler").pid), peak_kib(reference.proc.pid)))
        finally:
            reference.stop()
            api.close()
            plane.stop()
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
    print()
    print(f"{'shape':<18} {'nodes':>6} {'gangs x size':>13} {'scheduler':<15} {'all bound (s)':>14} {'pods/s':>8}"
          f" {'groups/s':>9} {'ratio':>6}")
    for shape, nodes, gangs, size, upstream, ours, core in rows:
        for label, seconds in (("kube-scheduler", upstream), ("reference", ours), ("reference core", core)):
            print(f"{shape:<18} {nodes:>6} {f'{gangs} x {size}':>13} {label:<15} {seconds:>14.2f} "
                  f"{gangs * size / seconds:>8.0f} {gangs / seconds:>9.1f} {upstream / seconds:>6.2f}")
    print("\nratio: kube-scheduler's time over the row's (end to end target for the reference: at least 0.50); "
          "reference core: in process, without an API server")
    for upstream_kib, ours_kib in peaks:
        print(f"\npeak resident memory at 5000 nodes / 9000 pods: kube-scheduler {upstream_kib / 1024:.0f} MiB, "
              f"reference scheduler {ours_kib / 1024:.0f} MiB (ratio {ours_kib / max(1, upstream_kib):.2f})")
    return 0


def peak_kib(pid: int | None) -> int:
    """VmHWM of a live process: its peak resident set so far."""
    if pid is None:
        return 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # the finally blocks above have stopped the schedulers and the cluster
        print("bench_e2e: interrupted; the pool, the schedulers and the cluster were stopped", file=sys.stderr)
        sys.exit(130)
