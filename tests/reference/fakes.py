"""A fake API server for the reference scheduler's core, shared by the core's tests."""

from __future__ import annotations

import dataclasses

from reference_scheduler import CompositePodGroup, Node, Pod, PodGroup, Resources, Scheduler, SimClock, Status
from reference_scheduler.framework.registry import ProfileConfig, Registry
from reference_scheduler.framework.types import EntityKey

NAME = "gangconf-reference"


class Cluster:
    """A fake API server for the core: binds are applied back as informer updates, writes recorded."""

    def __init__(self, features: frozenset[str] = frozenset(), fault_reserve_label: str | None = None,
                 also_serve: tuple[str, ...] = (), registry: Registry | None = None,
                 profile: ProfileConfig | None = None) -> None:
        self.clock = SimClock()
        self.binds: list[tuple[str, str]] = []
        self.conditions: dict[str, tuple[str, str]] = {}  # pod -> (reason, message)
        self.group_conditions: dict[str, list[tuple[bool, str, str]]] = {}
        #: PodGroups marked DisruptionTarget as a whole: (name, message).
        self.group_disruptions: list[tuple[str, str]] = []
        self.fail_bind: set[str] = set()
        self.preempted: list[tuple[str, str]] = []  # (victim, message)
        self.victim_nodes: list[tuple[str, str]] = []  # (victim, the node it was evicted from)
        self.nominations: dict[str, str] = {}
        self.scheduler = Scheduler(NAME, self.clock, self, features=features, fault_reserve_label=fault_reserve_label,
                                   also_serve=also_serve, registry=registry, profile=profile)

    # Writer
    def bind(self, pod: Pod, node: str) -> Status:
        if pod.name in self.fail_bind:
            return Status.as_error("binding rejected")
        self.binds.append((pod.name, node))
        self.nominations.pop(pod.name, None)  # the API server clears nominatedNodeName on binding
        self.scheduler.on_pod(dataclasses.replace(pod, node_name=node), pod.key)
        return Status.success()

    def pod_unschedulable(self, pod: Pod, reason: str, message: str) -> None:
        self.conditions[pod.name] = (reason, message)

    def group_condition(self, group: PodGroup, status: bool, reason: str, message: str) -> None:
        self.group_conditions.setdefault(group.name, []).append((status, reason, message))

    def group_disrupted(self, group: PodGroup, message: str) -> None:
        self.group_disruptions.append((group.name, message))

    def preempt(self, victim: Pod, message: str) -> None:
        self.preempted.append((victim.name, message))
        self.victim_nodes.append((victim.name, victim.node_name))
        self.binds = [(p, n) for p, n in self.binds if p != victim.name]
        self.scheduler.on_pod(None, victim.key)  # the fake kubelet deletes at once

    def nominate(self, pod: Pod, node: str) -> None:
        if node:
            self.nominations[pod.name] = node
        else:
            self.nominations.pop(pod.name, None)

    # Building the cluster
    def nodes(self, count: int, cpu: str = "2", gpus: int = 0, prefix: str = "n",
              labels: dict[str, str] | None = None) -> None:
        for i in range(count):
            alloc = {"cpu": cpu, "memory": "8Gi", "pods": "110", **({"nvidia.com/gpu": str(gpus)} if gpus else {})}
            node = Node(f"{prefix}{i}", labels=tuple(sorted((labels or {}).items())),
                        allocatable=Resources.from_map(alloc))
            self.scheduler.on_node(node, node.name)

    def group(self, name: str, min_count: int | None = None, priority: int = 0, disruption: str = "single",
              preemption_policy: str = "PreemptLowerPriority", topology: str | None = None,
              parent: str | None = None) -> None:
        self.scheduler.on_pod_group(PodGroup("ns", name, min_count=min_count, priority=priority,
                                             disruption_mode=disruption, preemption_policy=preemption_policy,
                                             topology_key=topology, parent=parent),
                                    f"ns/{name}")

    def composite(self, name: str, min_group_count: int | None = None, topology: str | None = None,
                  parent: str | None = None) -> None:
        self.scheduler.on_composite_pod_group(
            CompositePodGroup("ns", name, min_group_count=min_group_count, topology_key=topology, parent=parent),
            f"ns/{name}")

    def node_of(self, pod: str) -> str | None:
        return dict(self.binds).get(pod)

    def pod(self, name: str, group: str | None = None, cpu: str = "1", gpus: int = 0, scheduler_name: str = NAME,
            **kw) -> Pod:
        req = {"cpu": cpu, "memory": "64Mi", **({"nvidia.com/gpu": str(gpus)} if gpus else {})}
        pod = Pod("ns", name, scheduler_name=scheduler_name, requests=Resources.from_map(req) + Resources(pods=1),
                  pod_group=group, created=kw.pop("created", f"{self.clock.now():020.6f}-{name}"), **kw)
        self.scheduler.on_pod(pod, pod.key)
        return pod

    def entity(self, group: str):
        """The queue's entry of PodGroup ``ns/<group>``."""
        return self.scheduler.queue.get(EntityKey.pod_group(f"ns/{group}"))

    def waiting(self) -> set[str]:
        """The keys of the pods held at Permit."""
        return set(self.scheduler.waiting_pods)

    def bound(self, prefix: str = "") -> list[str]:
        return [p for p, _ in self.binds if p.startswith(prefix)]

    def run(self) -> None:
        self.scheduler.run_until_idle()
