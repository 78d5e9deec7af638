"""What the reference scheduler knows about pods, nodes and PodGroups, read from API objects.

The objects are plain dataclasses built from the JSON the API server returns, so the core
never depends on the Kubernetes client's models and unit tests build them directly. They mirror
the fields of k8s.io/api (core/v1, scheduling/v1beta1, scheduling/v1alpha3) the scheduler reads.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from reference_scheduler import quantity

Obj = dict[str, Any]
CPU, MEMORY, PODS = "cpu", "memory", "pods"


@dataclasses.dataclass(frozen=True)
class Resources:
    """Amounts of resources: CPU in millicores, memory in bytes, pods and extended resources in units."""

    milli_cpu: int = 0
    memory: int = 0
    pods: int = 0
    scalar: tuple[tuple[str, int], ...] = ()

    @classmethod
    def from_map(cls, values: dict[str, Any] | None) -> Resources:
        values = values or {}
        scalar = tuple(sorted((k, quantity.units(v)) for k, v in values.items() if k not in (CPU, MEMORY, PODS)))
        return cls(
            milli_cpu=quantity.milli(values.get(CPU, 0)),
            memory=quantity.units(values.get(MEMORY, 0)),
            pods=quantity.units(values.get(PODS, 0)),
            scalar=scalar,
        )

    def get(self, name: str) -> int:
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == PODS:
            return self.pods
        return dict(self.scalar).get(name, 0)

    def names(self) -> set[str]:
        return {CPU, MEMORY, PODS} | {k for k, _ in self.scalar}

    def __add__(self, other: Resources) -> Resources:
        scalar = dict(self.scalar)
        for k, v in other.scalar:
            scalar[k] = scalar.get(k, 0) + v
        return Resources(self.milli_cpu + other.milli_cpu, self.memory + other.memory, self.pods + other.pods,
                         tuple(sorted(scalar.items())))

    def max(self, other: Resources) -> Resources:
        """The larger of the two amounts, resource by resource."""
        names = {k for k, _ in self.scalar} | {k for k, _ in other.scalar}
        return Resources(max(self.milli_cpu, other.milli_cpu), max(self.memory, other.memory),
                         max(self.pods, other.pods), tuple(sorted((k, max(self.get(k), other.get(k))) for k in names)))

    def __sub__(self, other: Resources) -> Resources:
        scalar = dict(self.scalar)
        for k, v in other.scalar:
            scalar[k] = scalar.get(k, 0) - v
        return Resources(self.milli_cpu - other.milli_cpu, self.memory - other.memory, self.pods - other.pods,
                         tuple(sorted(scalar.items())))


@dataclasses.dataclass(frozen=True)
class Toleration:
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""

    def tolerates(self, taint: Taint) -> bool:
        if self.effect and self.effect != taint.effect:
            return False
        if self.operator == "Exists":
            return not self.key or self.key == taint.key
        return self.key == taint.key and self.value == taint.value


@dataclasses.dataclass(frozen=True)
class Taint:
    key: str
    value: str = ""
    effect: str = "NoSchedule"


@dataclasses.dataclass(frozen=True)
class Pod:
    namespace: str
    name: str
    uid: str = ""
    scheduler_name: str = "default-scheduler"
    node_name: str = ""
    priority: int = 0
    preemption_policy: str = "PreemptLowerPriority"
    requests: Resources = Resources()
    node_selector: tuple[tuple[str, str], ...] = ()
    required_affinity: tuple[Any, ...] = ()  # nodeSelectorTerms, as API dicts
    tolerations: tuple[Toleration, ...] = ()
    scheduling_gates: tuple[str, ...] = ()
    pod_group: str | None = None
    phase: str = "Pending"
    deleting: bool = False
    created: str = ""  # RFC 3339, sorts in time order
    started: str = ""  # status.startTime, RFC 3339
    labels: tuple[tuple[str, str], ...] = ()

    def label(self, key: str) -> str | None:
        return dict(self.labels).get(key)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def group_key(self) -> str | None:
        return f"{self.namespace}/{self.pod_group}" if self.pod_group else None

    @property
    def active(self) -> bool:
        """Counts against its node: not finished."""
        return self.phase not in ("Succeeded", "Failed")

    @classmethod
    def from_api(cls, obj: Obj) -> Pod:
        meta, spec, status = obj.get("metadata") or {}, obj.get("spec") or {}, obj.get("status") or {}
        # What the pod asks of a node: its containers together, or its largest init container
        # if that is larger (they run one at a time, before the others), plus one pod slot.
        containers, init = Resources(), Resources()
        for container in spec.get("containers") or []:
            containers = containers + Resources.from_map((container.get("resources") or {}).get("requests"))
        for container in spec.get("initContainers") or []:
            init = init.max(Resources.from_map((container.get("resources") or {}).get("requests")))
        requests = containers.max(init) + Resources(pods=1)
        affinity = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution") or {}
        return cls(
            namespace=meta.get("namespace", ""),
            name=meta["name"],
            uid=meta.get("uid", ""),
            scheduler_name=spec.get("schedulerName") or "default-scheduler",
            node_name=spec.get("nodeName") or "",
            priority=int(spec.get("priority") or 0),
            preemption_policy=spec.get("preemptionPolicy") or "PreemptLowerPriority",
            requests=requests,
            node_selector=tuple(sorted((spec.get("nodeSelector") or {}).items())),
            required_affinity=tuple(affinity.get("nodeSelectorTerms") or ()),
            tolerations=tuple(Toleration(t.get("key") or "", t.get("operator") or "Equal", t.get("value") or "",
                                         t.get("effect") or "") for t in spec.get("tolerations") or []),
            scheduling_gates=tuple(g["name"] for g in spec.get("schedulingGates") or []),
            pod_group=((spec.get("schedulingGroup") or {}).get("podGroupName")),
            phase=status.get("phase") or "Pending",
            deleting=bool(meta.get("deletionTimestamp")),
            created=meta.get("creationTimestamp") or "",
            started=status.get("startTime") or "",
            labels=tuple(sorted((meta.get("labels") or {}).items())),
        )


@dataclasses.dataclass(frozen=True)
class Node:
    name: str
    labels: tuple[tuple[str, str], ...] = ()
    taints: tuple[Taint, ...] = ()
    allocatable: Resources = Resources()
    unschedulable: bool = False

    def label(self, key: str) -> str | None:
        return dict(self.labels).get(key)

    @classmethod
    def from_api(cls, obj: Obj) -> Node:
        meta, spec, status = obj.get("metadata") or {}, obj.get("spec") or {}, obj.get("status") or {}
        return cls(
            name=meta["name"],
            labels=tuple(sorted((meta.get("labels") or {}).items())),
            taints=tuple(Taint(t["key"], t.get("value") or "", t.get("effect") or "NoSchedule")
                         for t in spec.get("taints") or []),
            allocatable=Resources.from_map(status.get("allocatable")),
            unschedulable=bool(spec.get("unschedulable")),
        )


class _TreeNode:
    """What PodGroups and CompositePodGroups share as nodes of a pod-group tree."""

    namespace: str
    name: str
    parent: str | None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def parent_key(self) -> str | None:
        return f"{self.namespace}/{self.parent}" if self.parent else None


@dataclasses.dataclass(frozen=True)
class PodGroup(_TreeNode):
    namespace: str
    name: str
    #: ``None`` for the basic policy, else the gang's minCount.
    min_count: int | None = None
    priority: int = 0
    disruption_mode: str = "single"
    preemption_policy: str = "PreemptLowerPriority"
    initially_scheduled: bool = False
    #: ``schedulingConstraints.topology[0].key`` (v1.37 allows one), if any.
    topology_key: str | None = None
    #: ``spec.parentCompositePodGroupName``: the CompositePodGroup this group belongs to.
    parent: str | None = None
    #: The object's uid and its ``PodGroupInitiallyScheduled`` condition as (status, lastTransitionTime),
    #: as last seen: only for the writer, which keeps the time when the status does not change. Not
    #: compared: a status write is no change to the group the scheduler acts on.
    uid: str = dataclasses.field(default="", compare=False)
    scheduled_condition: tuple[str, str] | None = dataclasses.field(default=None, compare=False)

    @property
    def is_gang(self) -> bool:
        return self.min_count is not None

    @property
    def quorum(self) -> int:
        """How many members must be placed: minCount for a gang, 1 for basic (upstream's getMinCount)."""
        return self.min_count if self.min_count is not None else 1

    @classmethod
    def from_api(cls, obj: Obj) -> PodGroup:
        meta, spec = obj.get("metadata") or {}, obj.get("spec") or {}
        policy = spec.get("schedulingPolicy") or {}
        gang = policy.get("gang")
        conditions = (obj.get("status") or {}).get("conditions") or []
        return cls(
            namespace=meta.get("namespace", ""),
            name=meta["name"],
            min_count=int(gang["minCount"]) if gang is not None else None,
            priority=int(spec.get("priority") or 0),
            disruption_mode="all" if "all" in (spec.get("disruptionMode") or {}) else "single",
            preemption_policy=spec.get("preemptionPolicy") or "PreemptLowerPriority",
            initially_scheduled=any(c.get("type") == "PodGroupInitiallyScheduled" and c.get("status") == "True"
                                    for c in conditions),
            topology_key=_topology_key(spec),
            parent=spec.get("parentCompositePodGroupName") or None,
            uid=meta.get("uid") or "",
            scheduled_condition=next(((c.get("status") or "", c.get("lastTransitionTime") or "")
                                      for c in conditions if c.get("type") == "PodGroupInitiallyScheduled"), None),
        )


def _topology_key(spec: Obj) -> str | None:
    topology = (spec.get("schedulingConstraints") or {}).get("topology") or []
    return topology[0].get("key") if topology else None


@dataclasses.dataclass(frozen=True)
class CompositePodGroup(_TreeNode):
    """A ``scheduling.k8s.io/v1alpha3`` CompositePodGroup: a node of a pod-group tree.

    It owns no pods: its children are PodGroups and CompositePodGroups that name it in
    ``spec.parentCompositePodGroupName``. A gang CompositePodGroup needs ``minGroupCount``
    of its children to be satisfied; a basic one, one child.
    """

    namespace: str
    name: str
    #: ``None`` for the basic policy, else ``minGroupCount``.
    min_group_count: int | None = None
    priority: int = 0
    topology_key: str | None = None
    parent: str | None = None

    @property
    def quorum(self) -> int:
        return self.min_group_count if self.min_group_count is not None else 1

    @classmethod
    def from_api(cls, obj: Obj) -> CompositePodGroup:
        meta, spec = obj.get("metadata") or {}, obj.get("spec") or {}
        gang = (spec.get("schedulingPolicy") or {}).get("gang")
        return cls(
            namespace=meta.get("namespace", ""),
            name=meta["name"],
            min_group_count=int(gang["minGroupCount"]) if gang is not None else None,
            priority=int(spec.get("priority") or 0),
            topology_key=_topology_key(spec),
            parent=spec.get("parentCompositePodGroupName") or None,
        )
