"""The cache: what the informers show, and the pods assumed on nodes before their binding is seen.

Mirrors pkg/scheduler/backend/cache/cache.go (``AssumePod``, ``ForgetPod``, ``UpdateSnapshot``).
Nodes are kept as :class:`~reference_scheduler.backend.snapshot.NodeInfo` with the pods bound or
assumed there; a cycle works on a copy-on-write :meth:`snapshot`. With ``arrays`` the snapshot
carries the nodes' amounts as arrays (:mod:`~reference_scheduler.backend.node_arrays`), synced
here for the nodes that changed since the last snapshot.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools

from reference_scheduler.backend.node_arrays import NodeArrays
from reference_scheduler.backend.snapshot import NodeInfo, Snapshot
from reference_scheduler.model import CompositePodGroup, Node, Pod, PodGroup


class Cache:
    def __init__(self) -> None:
        self.nodes: dict[str, NodeInfo] = {}
        #: Every pod the informer shows, of any scheduler.
        self.pods: dict[str, Pod] = {}
        self.groups: dict[str, PodGroup] = {}
        self.composites: dict[str, CompositePodGroup] = {}
        #: Pod key -> node: placed in this scheduler's memory, its binding not seen yet.
        self.assumed: dict[str, str] = {}
        #: Bumped whenever a node is added, changed or deleted (not when pods move).
        self.nodes_version = 0
        self._members: dict[str, set[str]] = {}  # group key -> keys of its pods (an index)
        # pod key -> the order the pod was first seen: creationTimestamp has one-second resolution,
        # upstream orders members by the (nanosecond) time they were queued.
        self._arrival: dict[str, int] = {}
        self._arrivals = itertools.count()
        self._node_order: list[str] = []  # node names, sorted: the order filters visit them
        self._arrays = NodeArrays()
        self._dirty: set[str] = set()  # nodes whose requested amounts changed since the arrays were synced

    # -- nodes -------------------------------------------------------------------------------------

    def set_node(self, name: str, node: Node) -> bool:
        """Add or update a node; False when nothing the scheduler looks at changed (a heartbeat)."""
        info = self.nodes.get(name)
        if info is None:
            info = self.nodes[name] = NodeInfo(node)
            bisect.insort(self._node_order, name)
            for pod in self.pods.values():
                if pod.node_name == name or self.assumed.get(pod.key) == name:
                    info.add(pod)
        elif info.node == node:
            return False
        else:
            info.node = node
        self.nodes_version += 1
        return True

    def remove_node(self, name: str) -> None:
        if self.nodes.pop(name, None) is not None:
            self._node_order.remove(name)
            self.nodes_version += 1

    # -- pods --------------------------------------------------------------------------------------

    def update_pod(self, key: str, pod: Pod) -> Pod | None:
        """Add or update a pod (bound or not); returns the pod as it was before."""
        old = self._uncount(key)
        self.pods[key] = pod
        if key not in self._arrival:
            self._arrival[key] = next(self._arrivals)
        if pod.group_key:
            self._members.setdefault(pod.group_key, set()).add(key)
        if pod.node_name:
            self.assumed.pop(key, None)
        self._count(pod)
        return old

    def remove_pod(self, key: str) -> Pod | None:
        """Forget a pod (deleted, or a pending pod being deleted); returns the pod as it was."""
        old = self._uncount(key)
        self.pods.pop(key, None)
        self._arrival.pop(key, None)
        self.assumed.pop(key, None)
        return old

    def members(self, group_key: str) -> list[Pod]:
        """The pods of a PodGroup, of any scheduler, bound or not."""
        return [self.pods[k] for k in self._members.get(group_key, ())]

    def arrival(self, pod_key: str) -> int:
        """The order in which the pod was first seen."""
        return self._arrival.get(pod_key, 0)

    def assume_pod(self, pod: Pod, node: str) -> None:
        """Count ``pod`` on ``node`` before its binding is seen (AssumePod)."""
        self.assumed[pod.key] = node
        if node in self.nodes:
            self.nodes[node].add(pod)
            self._dirty.add(node)

    def forget_pod(self, pod: Pod) -> None:
        """Undo :meth:`assume_pod` (ForgetPod)."""
        node = self.assumed.pop(pod.key, None)
        if node and node in self.nodes:
            self.nodes[node].remove(pod)
            self._dirty.add(node)

    def _uncount(self, key: str) -> Pod | None:
        old = self.pods.get(key)
        if old is not None:
            node = old.node_name or self.assumed.get(old.key)
            if node and node in self.nodes:
                self.nodes[node].remove(old)
                self._dirty.add(node)
            if old.group_key:
                self._members.get(old.group_key, set()).discard(key)
        return old

    def _count(self, pod: Pod) -> None:
        node = pod.node_name or self.assumed.get(pod.key)
        if node and node in self.nodes:
            self.nodes[node].add(pod)
            self._dirty.add(node)

    # -- PodGroups and CompositePodGroups ---------------------------------------------------------------

    def update_pod_group(self, key: str, group: PodGroup) -> PodGroup | None:
        old = self.groups.get(key)
        if old is not None and old.initially_scheduled and not group.initially_scheduled and old.uid == group.uid:
            # PodGroupInitiallyScheduled=True is terminal (GANG-COND-001): a copy of the same group
            # written before the scheduler's own True (delivered late, or another client's status
            # write over it) does not make it forget; else its next failing cycle writes False over
            # True, as v1.37.2's informer-copy check does (DEV-COND-TERMINAL).
            group = dataclasses.replace(group, initially_scheduled=True)
        self.groups[key] = group
        return old

    def remove_pod_group(self, key: str) -> None:
        self.groups.pop(key, None)

    def update_composite_pod_group(self, key: str, cpg: CompositePodGroup) -> bool:
        """Add or update a CompositePodGroup; True when it is new."""
        added = key not in self.composites
        self.composites[key] = cpg
        return added

    def remove_composite_pod_group(self, key: str) -> None:
        self.composites.pop(key, None)

    # -- the snapshot ------------------------------------------------------------------------------

    def snapshot(self, *, arrays: bool) -> Snapshot:
        """The nodes as they are now, for one cycle (UpdateSnapshot); ``arrays`` syncs the node arrays first."""
        if arrays:
            self._arrays.sync(self.nodes, self._node_order, self.nodes_version, self._dirty)
        return Snapshot(self.nodes, self._node_order, self._arrays if arrays else None, self.nodes_version)
