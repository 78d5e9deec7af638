"""NodeResourcesFit over every node at once (numpy): the reference scheduler's hot path.

Filtering and scoring node by node in Python costs tens of microseconds per node; a gang of
a thousand pods over five thousand nodes would take minutes. Here allocatable and requested
amounts live in ``(resources, nodes)`` integer arrays, kept in step with the scheduler's
cache (only the nodes that changed are rewritten), and one pod is checked against every node
with a handful of array operations. The results (reasons, scores, the chosen node) are the
same as :class:`~reference_scheduler.plugins.basic.NodeResourcesFit` node by node; the unit
tests compare the two.
"""

from __future__ import annotations

import numpy as np

from reference_scheduler.framework import Code, Status
from reference_scheduler.model import CPU, MEMORY, PODS, Pod, Resources
from reference_scheduler.plugins.basic import MAX_NODE_SCORE, NodeResourcesFit

BASE = (PODS, CPU, MEMORY)  # upstream's order of reasons: pods, cpu, memory, then extended


class NodeArrays:
    """Allocatable and requested amounts of every node, as arrays in node order."""

    def __init__(self) -> None:
        self.version = -1
        self.order: list[str] = []
        self.pos: dict[str, int] = {}
        self.resources: list[str] = list(BASE)
        self.alloc = np.zeros((len(BASE), 0), dtype=np.int64)
        self.used = np.zeros((len(BASE), 0), dtype=np.int64)

    def vector(self, amounts: Resources) -> np.ndarray | None:
        """``amounts`` as a column, or None if it names a resource no node has."""
        known = set(self.resources)
        if any(name not in known for name, value in amounts.scalar if value):
            return None
        return np.array([amounts.get(r) for r in self.resources], dtype=np.int64)

    def sync(self, nodes: dict, order: list[str], version: int, dirty: set[str]) -> None:
        """Bring the arrays up to date with the cache: all of it after a node change, else ``dirty``."""
        if version == self.version:
            for name in dirty:
                column = self.vector(nodes[name].requested) if name in self.pos else None
                if column is None:
                    break  # a resource appeared that the arrays do not have: rebuild
                self.used[:, self.pos[name]] = column
            else:
                dirty.clear()
                return
        scalars = sorted({name for info in nodes.values()
                          for res in (info.node.allocatable, info.requested) for name, _ in res.scalar})
        self.resources = list(BASE) + scalars
        self.order = list(order)
        self.pos = {name: i for i, name in enumerate(self.order)}
        self.alloc = np.array([[nodes[n].node.allocatable.get(r) for n in self.order] for r in self.resources],
                              dtype=np.int64).reshape(len(self.resources), len(self.order))
        self.used = np.array([[nodes[n].requested.get(r) for n in self.order] for r in self.resources],
                             dtype=np.int64).reshape(len(self.resources), len(self.order))
        self.version = version
        dirty.clear()


def fit_and_score(arrays: NodeArrays, used: np.ndarray, candidates: np.ndarray, pod: Pod
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
