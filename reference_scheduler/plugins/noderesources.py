"""NodeResourcesFit: the pod's requests fit in what the node has free; LeastAllocated scores nodes.

Mirrors pkg/scheduler/framework/plugins/noderesources (Filter, Score with the default
LeastAllocated strategy, and ScorePlacement with MostAllocated). Filtering and scoring node by
node in Python costs tens of microseconds per node (a gang of a thousand pods over five thousand
nodes would take minutes), so :meth:`NodeResourcesFit.filter_and_score_all` does both for one pod
over every node at once on the snapshot's :class:`~reference_scheduler.backend.node_arrays.NodeArrays`,
with the same reasons, scores and choice as the node-by-node methods (the unit tests compare
the two).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from reference_scheduler.backend.node_arrays import BASE, NodeArrays
from reference_scheduler.backend.snapshot import NodeInfo
from reference_scheduler.framework import Code, Status
from reference_scheduler.framework.cycle_state import CycleState
from reference_scheduler.framework.interface import MAX_NODE_SCORE
from reference_scheduler.framework.types import PodGroupAssignments, PodGroupInfo
from reference_scheduler.model import CPU, MEMORY, Pod, Resources


class NodeResourcesFit:
    """Filter: the pod's requests fit in what the node has free. Score: LeastAllocated (the default)."""

    name = NAME = "NodeResourcesFit"
    TOO_MANY_PODS = "Too many pods"

    def __init__(self) -> None:
        #: The last candidates asked about, the node arrays' version then, and their columns.
        self._last: tuple[list[str], int, np.ndarray] | None = None

    @staticmethod
    def insufficient(pod: Pod, info: NodeInfo) -> list[str]:
        """The upstream reasons, in upstream order: pods, cpu, memory, then extended resources."""
        free = info.free()
        reasons = []
        if free.pods < 1:
            reasons.append(NodeResourcesFit.TOO_MANY_PODS)
        for name in (CPU, MEMORY):
            if pod.requests.get(name) and pod.requests.get(name) > free.get(name):
                reasons.append(f"Insufficient {name}")
        for name, amount in pod.requests.scalar:
            if amount and amount > free.get(name):
                reasons.append(f"Insufficient {name}")
        return reasons

    def filter(self, state: Any, pod: Pod, info: NodeInfo) -> Status:
        reasons = self.insufficient(pod, info)
        return Status.of(Code.UNSCHEDULABLE, *reasons, plugin=self.name) if reasons else Status.success()

    def score(self, state: Any, pod: Pod, info: NodeInfo) -> tuple[int, Status]:
        """LeastAllocated over cpu and memory, weight 1 each: more room left scores higher."""
        total = 0
        for name in (CPU, MEMORY):
            capacity = info.node.allocatable.get(name)
            used = info.requested.get(name) + pod.requests.get(name)
            total += 0 if capacity == 0 or used > capacity else (capacity - used) * MAX_NODE_SCORE // capacity
        return total // 2, Status.success()

    def score_placement(self, state: CycleState, group: PodGroupInfo, assignments: PodGroupAssignments
                        ) -> tuple[int, Status]:
        """MostAllocated over cpu and memory (weight 1 each) of the placement's nodes, the pods it
        would take included: tighter packing scores higher. Not normalized."""
        requested = Resources()
        for pod, _ in assignments.proposed:
            requested = requested + pod.requests
        allocatable = Resources()
        for info in assignments.nodes:
            requested = requested + info.requested
            allocatable = allocatable + info.node.allocatable
        total = weights = 0
        for name in (CPU, MEMORY):
            capacity = allocatable.get(name)
            if capacity == 0:
                continue
            total += min(requested.get(name), capacity) * MAX_NODE_SCORE // capacity
            weights += 1
        return (total // weights if weights else 0), Status.success()

    def filter_and_score_all(self, state: CycleState, pod: Pod, snapshot: Any, candidates: list[str]
                             ) -> tuple[str | None, dict[str, Status]] | None:
        """Filter and Score over every candidate node at once (BatchFilterScore); None without arrays."""
        used = snapshot.used()
        if used is None:
            return None
        arrays = snapshot.arrays
        best, failures = _fit_and_score(arrays, used, self._positions(arrays, candidates), pod)
        return (arrays.order[best] if best is not None else None), {
            arrays.order[p]: status for p, status in failures.items()}


    def _positions(self, arrays: NodeArrays, candidates: list[str]) -> np.ndarray:
        """The candidates' columns in the arrays. The members of a gang ask with the same list (the
        signed Filter verdicts they share), so the last answer is kept for as long as that list is
        (it is held here, so no other list can take its identity) and the arrays keep their columns."""
        last = self._last
        if last is not None and last[0] is candidates and last[1] == arrays.version:
            return last[2]
        positions = np.fromiter((arrays.pos[n] for n in candidates), dtype=np.int64, count=len(candidates))
        self._last = (candidates, arrays.version, positions)
        return positions


def _fit_and_score(arrays: NodeArrays, used: np.ndarray, candidates: np.ndarray, pod: Pod
                  ) -> tuple[int | None, dict[int, Status]]:
    """NodeResourcesFit Filter and Score for ``pod`` over the node positions ``candidates``.

    Returns the position of the best node (highest score, the first in node order on a tie)
    or None, and the failing positions with their statuses.
    """
    known = set(arrays.resources)
    request = np.array([pod.requests.get(r) for r in arrays.resources], dtype=np.int64)
    absent = [n for n, v in pod.requests.scalar if v and n not in known]  # no node offers these
    free = arrays.alloc[:, candidates] - used[:, candidates]
    wanted = request > 0
    wanted[0] = True  # a pod always needs a pod slot
    short = (request[:, None] > free) & wanted[:, None]
    fits = ~short.any(axis=0) if not absent else np.zeros(len(candidates), dtype=bool)
    failures: dict[int, Status] = {}
    if not fits.all():
        # Reasons in NodeResourcesFit's order: pods, cpu, memory, then extended resources by name.
        rows = {NodeResourcesFit.TOO_MANY_PODS: 0, f"Insufficient {CPU}": 1, f"Insufficient {MEMORY}": 2}
        extended = sorted([(r, i) for i, r in enumerate(arrays.resources) if i >= len(BASE)] + [(n, None) for n in absent])
        patterns: dict[bytes, Status] = {}
        for column in np.flatnonzero(~fits):
            row = short[:, column]
            key = row.tobytes()
            status = patterns.get(key)
            if status is None:
                reasons = [reason for reason, i in rows.items() if row[i]]
                reasons += [f"Insufficient {name}" for name, i in extended if i is None or row[i]]
                status = patterns[key] = Status.of(Code.UNSCHEDULABLE, *reasons, plugin=NodeResourcesFit.NAME)
            failures[int(candidates[column])] = status
    if not fits.any():
        return None, failures
    ok = candidates[fits]
    total = np.zeros(len(ok), dtype=np.int64)
    for r in (1, 2):  # cpu, memory: LeastAllocated
        capacity = arrays.alloc[r, ok]
        after = used[r, ok] + request[r]
        with np.errstate(divide="ignore", invalid="ignore"):
            part = np.where((capacity == 0) | (after > capacity), 0,
                            (capacity - after) * MAX_NODE_SCORE // np.maximum(capacity, 1))
        total += part
    total //= 2
    return int(ok[int(np.argmax(total))]), failures
