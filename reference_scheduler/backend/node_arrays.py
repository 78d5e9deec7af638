"""Allocatable and requested amounts of every node as integer arrays, kept in step with the cache.

Not a file of upstream's: the reference scheduler's hot path. Allocatable and requested amounts
live in ``(resources, nodes)`` arrays in node order, rewritten only for the nodes that changed,
so that NodeResourcesFit can check one pod against every node with a handful of array
operations (:meth:`~reference_scheduler.plugins.noderesources.NodeResourcesFit.filter_and_score_all`).
"""

from __future__ import annotations

import numpy as np

from reference_scheduler.model import CPU, MEMORY, PODS, Resources

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
