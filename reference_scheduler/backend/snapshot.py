"""A node and what is placed on it, and the nodes as one cycle sees them (copy-on-write).

Mirrors pkg/scheduler/backend/cache/snapshot.go (and the NodeInfo of framework/types.go).
"""

from __future__ import annotations

import dataclasses

from reference_scheduler.model import Node, Pod, Resources


@dataclasses.dataclass
class NodeInfo:
    node: Node
    pods: dict[str, Pod] = dataclasses.field(default_factory=dict)
    requested: Resources = Resources()

    @property
    def name(self) -> str:
        return self.node.name

    def add(self, pod: Pod) -> None:
        """Count ``pod`` on this node (bound, or assumed during a cycle). Adding twice is a no-op."""
        if pod.key in self.pods or not pod.active:
            return
        self.pods[pod.key] = pod
        self.requested = self.requested + pod.requests

    def remove(self, pod: Pod) -> None:
        old = self.pods.pop(pod.key, None)
        if old is not None:
            self.requested = self.requested - old.requests

    def free(self) -> Resources:
        return self.node.allocatable - self.requested

    def copy(self) -> NodeInfo:
        return NodeInfo(self.node, dict(self.pods), self.requested)


class Snapshot:
    """The nodes as one cycle sees them, copy-on-write over the cache.

    Reads go to the cache; the first change to a node copies that node only, so a cycle over
    thousands of nodes costs what it changes, not what exists. The cache must not change while
    a snapshot is in use (the scheduler is single-threaded). With ``arrays`` (the cache's
    :class:`~reference_scheduler.backend.node_arrays.NodeArrays`, in step with it) :meth:`used` gives the
    requested amounts of every node as an array, this snapshot's changes included.
    """

    __slots__ = ("_base", "_order", "_own", "_arrays", "_used", "_stale", "version")

    def __init__(self, base: dict[str, NodeInfo], order: list[str], arrays=None, version: int = 0):
        self._base, self._order, self._arrays = base, order, arrays
        #: The cache's node set version this snapshot was taken at (node objects, not their pods).
        self.version = version
        self._own: dict[str, NodeInfo] = {}
        self._used = None
        self._stale: set[str] = set()

    def __getitem__(self, name: str) -> NodeInfo:
        own = self._own.get(name)
        return own if own is not None else self._base[name]

    def __contains__(self, name: str) -> bool:
        return name in self._base

    def __iter__(self):
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    @property
    def arrays(self):
        """The cache's node arrays this snapshot reads through, or None."""
        return self._arrays

    def writable(self, name: str) -> NodeInfo:
        """The node's own copy in this snapshot, to change."""
        own = self._own.get(name)
        if own is None:
            own = self._own[name] = self._base[name].copy()
        self._stale.add(name)
        return own

    def fork(self) -> Snapshot:
        other = Snapshot(self._base, self._order, self._arrays, self.version)
        other._own = {name: info.copy() for name, info in self._own.items()}
        other._used = None if self._used is None else self._used.copy()
        other._stale = set(self._stale)
        return other

    def used(self):
        """Requested amounts per node as an array (see the class docstring), or None."""
        if self._arrays is None:
            return None
        if self._used is None:
            self._used = self._arrays.used.copy()
        for name in self._stale:
            column = self._arrays.vector(self._own[name].requested)
            if column is None:
                return None
            self._used[:, self._arrays.pos[name]] = column
        self._stale.clear()
        return self._used
