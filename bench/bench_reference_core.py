"""Benchmark: the reference scheduler's core, in process, on scheduler_perf-like shapes.

No API server: nodes and pods are fed to the core directly and every Binding is applied back at
once, so this measures the scheduling algorithm alone (queue, filters, scores, the pod-group
cycle). Reports pods per second, groups per second, time to all bound and peak resident memory.

    .venv/bin/python bench/bench_reference_core.py                 # all shapes
    .venv/bin/python bench/bench_reference_core.py --shape small   # one shape

Shapes (issue 3): 100 nodes with 10 gangs of 10; 5000 nodes with 1000 gangs of 3; 5000 nodes
with 3 gangs of 1000.
"""

from __future__ import annotations

import argparse
import dataclasses
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reference_scheduler import Node, Pod, PodGroup, Resources, Scheduler, SimClock, Status  # noqa: E402

SHAPES = {
    "small": (100, 10, 10),
    "many-small-gangs": (5000, 1000, 3),
    "few-large-gangs": (5000, 3, 1000),
}


class ApplyingWriter:
    """Applies each binding back into the core at once, as a zero-latency API server would."""

    def __init__(self) -> None:
        self.scheduler: Scheduler | None = None
        self.bound = 0

    def bind(self, pod: Pod, node: str) -> Status:
        self.bound += 1
        self.scheduler.on_pod(dataclasses.replace(pod, node_name=node), pod.key)
        return Status.success()

    def pod_unschedulable(self, pod, reason, message) -> None:
        pass

    def group_condition(self, group, status, reason, message) -> None:
        pass

    def group_disrupted(self, group, message) -> None:
        pass

    def preempt(self, victim, message) -> None:
        self.scheduler.on_pod(None, victim.key)

    def nominate(self, pod, node) -> None:
        pass


def run(nodes: int, gangs: int, size: int) -> dict[str, float]:
    writer = ApplyingWriter()
    scheduler = Scheduler("bench", SimClock(), writer)
    writer.scheduler = scheduler
    alloc = Resources.from_map({"cpu": "32", "memory": "256Gi", "pods": "110"})
    for i in range(nodes):
        scheduler.on_node(Node(f"node-{i:05d}", allocatable=alloc), f"node-{i:05d}")
    request = Resources.from_map({"cpu": "1", "memory": "1Gi"}) + Resources(pods=1)
    for g in range(gangs):
        scheduler.on_pod_group(PodGroup("bench", f"g{g}", min_count=size), f"bench/g{g}")
        for m in range(size):
            pod = Pod("bench", f"g{g}-{m}", scheduler_name="bench", requests=request, pod_group=f"g{g}",
                      created=f"{g:06d}-{m:06d}")
            scheduler.on_pod(pod, pod.key)
    started = time.perf_counter()
    scheduler.run_until_idle(limit=gangs * 4 + 10)
    elapsed = time.perf_counter() - started
    pods = gangs * size
    assert writer.bound == pods, f"only {writer.bound} of {pods} pods bound"
    return {"seconds": elapsed, "pods_per_s": pods / elapsed, "groups_per_s": gangs / elapsed}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", choices=sorted(SHAPES), action="append",
                        help="run only this shape (repeatable; default all)")
    args = parser.parse_args()
    print(f"{'shape':<18} {'nodes':>6} {'gangs x size':>13} {'all bound (s)':>14} {'pods/s':>9} {'groups/s':>9}")
    for name in args.shape or list(SHAPES):
        nodes, gangs, size = SHAPES[name]
        result = run(nodes, gangs, size)
        print(f"{name:<18} {nodes:>6} {f'{gangs} x {size}':>13} {result['seconds']:>14.2f} "
              f"{result['pods_per_s']:>9.0f} {result['groups_per_s']:>9.1f}", flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory of the process: {peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
