"""The nominator: preemptors and the nodes their victims free, and their place in a cycle's snapshot.

Mirrors pkg/scheduler/backend/queue/nominator.go. A cycle sees, on each node, the pods nominated
there with at least the priority of what it schedules, so that nobody lower takes the room a
preemption freed.
"""

from __future__ import annotations

from typing import Iterable

from reference_scheduler.backend.snapshot import Snapshot
from reference_scheduler.model import Pod


class Nominator:
    def __init__(self) -> None:
        #: Pod key -> its nominated node.
        self.nominated: dict[str, str] = {}

    def add(self, pod: Pod, node: str) -> None:
        self.nominated[pod.key] = node

    def delete(self, pod_key: str) -> None:
        self.nominated.pop(pod_key, None)

    def delete_all(self, pods: Iterable[Pod]) -> None:
        """Clear the nominations of the pods a cycle is about to schedule again."""
        for pod in pods:
            self.nominated.pop(pod.key, None)

    def add_nominated_pods(self, snapshot: Snapshot, pods: dict[str, Pod], for_pods: list[Pod]) -> Snapshot:
        """Add to ``snapshot`` the pods nominated to its nodes with at least the lowest priority of
        ``for_pods`` (themselves excepted); ``pods`` are the informer's, by key."""
        if not self.nominated:
            return snapshot
        mine = {p.key for p in for_pods}
        floor = min((p.priority for p in for_pods), default=0)
        for key, node in self.nominated.items():
            pod = pods.get(key)
            if pod is not None and key not in mine and pod.priority >= floor and node in snapshot:
                snapshot.writable(node).add(pod)
        return snapshot
