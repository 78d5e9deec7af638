"""A node and what is placed on it, as the plugins see it during a cycle."""

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
