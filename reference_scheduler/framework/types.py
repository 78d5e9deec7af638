"""Types the framework and its plugins share: entity keys, placements, pod-group views.

Mirrors the staged k8s.io/kube-scheduler/framework/types.go and pkg/scheduler/framework/types.go.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

POD, POD_GROUP = "pod", "podgroup"


class EntityKey(NamedTuple):
    """What the scheduling queue holds: a pod without a group, or a PodGroup with its pending members."""

    type: str  # POD or POD_GROUP
    namespace: str
    name: str

    @classmethod
    def of(cls, pod) -> EntityKey:
        """The entity ``pod`` is scheduled as: its PodGroup's, or its own."""
        return cls(POD_GROUP, pod.namespace, pod.pod_group) if pod.pod_group else cls(POD, pod.namespace, pod.name)

    @classmethod
    def pod_group(cls, key: str) -> EntityKey:
        namespace, name = key.split("/", 1)
        return cls(POD_GROUP, namespace, name)

    @property
    def key(self) -> str:
        """The object key (``namespace/name``) of the pod or PodGroup."""
        return f"{self.namespace}/{self.name}"

    def __str__(self) -> str:
        return f"{self.type}/{self.namespace}/{self.name}"


@dataclasses.dataclass(frozen=True)
class PlacementProgress:
    """How far a pod-group algorithm has got: members (or, for a CompositePodGroup, children)
    scheduled so far and still to try."""

    scheduled: int
    remaining: int


@dataclasses.dataclass(frozen=True)
class Placement:
    """A set of nodes a pod group may be placed in (upstream's fwk.Placement)."""

    #: The topology domain (the label's value); empty for an unconstrained placement.
    name: str
    nodes: frozenset[str]


@dataclasses.dataclass(frozen=True)
class PodGroupInfo:
    """A PodGroup or CompositePodGroup as the pod-group extension points see it (upstream's fwk.PodGroupInfo)."""

    #: The PodGroup, or the CompositePodGroup of a tree.
    group: object
    #: The members this cycle schedules (a PodGroup's), in the order the cycle tries them.
    pods: tuple = ()
    #: The PodGroups the group is made of: itself, or a CompositePodGroup's leaves.
    leaves: tuple = ()


@dataclasses.dataclass(frozen=True)
class PodGroupAssignments:
    """What the pod-group algorithm proposes in one feasible placement, for PlacementScore."""

    placement: Placement
    #: The pods the placement would take, each with its node.
    proposed: tuple = ()
    #: The placement's nodes as the algorithm saw them (before the proposed pods).
    nodes: tuple = ()


@dataclasses.dataclass(frozen=True)
class PostFilterResult:
    """A PostFilter plugin's answer with Success: the node the pod is nominated to."""

    nominated_node_name: str


@dataclasses.dataclass(frozen=True)
class PodGroupPostFilterResult:
    """A PodGroupPostFilter plugin's answer with Success: the node each member is nominated to."""

    nominations: tuple = ()
