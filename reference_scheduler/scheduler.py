"""The reference scheduler's core: cache, queue and the pod and pod-group cycles.

Pure and deterministic: it is driven by calls (``on_*`` for cluster changes,
:meth:`Scheduler.schedule_next` for one cycle) and talks to the outside only through a
:class:`Writer` (bind, conditions, events) and a :class:`~reference_scheduler.clock.Clock`.
The same object runs in unit tests in virtual time and, through ``runner.py``, against a
real API server.

Queue model (what v1.37 does, as far as it can be observed from outside):

* The queue's entries are *entities*: a PodGroup (all its pending members together) or a
  pod without a group. An entity is ready when every member passes PreEnqueue
  (SchedulingGates on any member holds the whole group; GangScheduling holds a gang below
  quorum or a group whose PodGroup object is missing) and its backoff has expired.
* Ready entities are taken by priority (a group's is the PodGroup's), then by the time the
  entity was first queued.
* A failed pod-group cycle sends the group to backoff and it is tried again without any
  cluster event. As in v1.37 the backoff (1 s doubling, capped at 10 s times the square root of
  the number of queued members) ends on a whole second: entities come back in one-second
  windows, and the entities of one window are taken in queue order (priority first). A single pod that does not fit waits for a cluster event
  (a node added or changed, a bound pod deleted) or five minutes. Members a successful group
  cycle did not place are retried at once, with the group.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import math

import numpy as np

from reference_scheduler.backend.node_arrays import NodeArrays
from reference_scheduler.backend.snapshot import NodeInfo, Snapshot
from reference_scheduler.backend.writer import Writer
from reference_scheduler.clock import Clock, Timer
from reference_scheduler.features import COMPOSITE, PREEMPTION_POLICY, TOPOLOGY_AWARE, Features
from reference_scheduler.framework import Code, Registry, Status, preemption
from reference_scheduler.framework.interface import HAND_OVER, TRIAL, CycleState
from reference_scheduler.framework.registry import Profile
from reference_scheduler.framework.status import fit_error, preemption_error
from reference_scheduler.framework.waiting_pods import permit_timeout_message
from reference_scheduler.model import CompositePodGroup, Node, Pod, PodGroup
from reference_scheduler.plugins import defaultpreemption, fault
from reference_scheduler.plugins import gangscheduling as gang
from reference_scheduler.plugins import topologyaware as topology
from reference_scheduler.plugins.nodeaffinity import NodeAffinity
from reference_scheduler.plugins.nodename import NodeName
from reference_scheduler.plugins.noderesources import NodeResourcesFit, fit_and_score
from reference_scheduler.plugins.nodeunschedulable import NodeUnschedulable
from reference_scheduler.plugins.queuesort import PrioritySort
from reference_scheduler.plugins.schedulinggates import SchedulingGates
from reference_scheduler.plugins.tainttoleration import TaintToleration

POD_GROUP_UNSCHEDULABLE = "pod group is unschedulable"
INITIAL_BACKOFF, MAX_BACKOFF = 1.0, 10.0
#: v1.37's backoff ordering window: expiries are cut down to it, and entities leave backoff per window.
BACKOFF_WINDOW = 1
#: Upstream's podMaxInUnschedulablePodsDuration.
MAX_IN_UNSCHEDULABLE = 300.0
#: DynamicResources' PodGroupPostFilter verdict when it had no claim to release (v1.37.2 reports
#: it for every PodGroup it looks at; it runs before DefaultPreemption).
CLAIMS_RELEASED = "deallocation and deletion of ResourceClaims completed"


def _first_failure(plugins, pod: Pod, info: NodeInfo) -> Status | None:
    """The first Filter plugin's rejection of ``pod`` on ``info`` (upstream stops there), or None."""
    for plugin in plugins:
        status = plugin.filter(None, pod, info)
        if not status.ok:
            return status
    return None


@dataclasses.dataclass
class _Entity:
    key: str
    priority: int
    timestamp: float
    attempts: int = 0
    backoff: Timer | None = None
    backoff_until: float = 0.0
    parked_at: float | None = None  # in the unschedulable pool since
    #: The PreEnqueue plugin that holds the entity (the gated pool); only an event whose
    #: queueing hint from that plugin says Queue lets it be tried again.
    gated_by: str | None = None


@dataclasses.dataclass
class _Outcome:
    """What the pod-group algorithm made of one group (or tree node) in one cycle."""

    status: Status
    placed: list[tuple[Pod, str]] = dataclasses.field(default_factory=list)
    misfits: dict[str, str] = dataclasses.field(default_factory=dict)
    #: Keys of the pods the algorithm tried (placed or not) before it ended.
    tried: set[str] = dataclasses.field(default_factory=set)
    #: The cycle's snapshot with this outcome's placements added (successful outcomes only).
    snapshot: Snapshot | None = None

    def error_text(self) -> str:
        """Upstream's ``AsError()`` text of the status: "pod group is unschedulable" where v1.37
        wraps the status around that error, else the status's own message."""
        return self.status.as_error_text()


@dataclasses.dataclass
class _Waiting:
    pod: Pod
    node: str
    timer: Timer


class Scheduler:
    """One scheduler profile over one cluster. See the module docstring."""

    def __init__(self, scheduler_name: str, clock: Clock, writer: Writer, *, registry: Registry | None = None,
                 features: frozenset[str] = frozenset(), fault_reserve_label: str | None = None,
                 also_serve: tuple[str, ...] = ()):
        Features.of(features)  # refuses an unknown gate
        self.scheduler_name = scheduler_name
        #: Every ``spec.schedulerName`` this scheduler is responsible for: like kube-scheduler with
        #: several profiles (same plugins here), one queue serves them all, so the members of one
        #: PodGroup that name different profiles meet in one entity (GANG-SCHEDNAME-001).
        self.scheduler_names = frozenset((scheduler_name, *also_serve))
        #: PodGroupPreemptionPolicy: a PodGroup's own ``preemptionPolicy`` decides whether it preempts,
        #: and its members must agree with it; without it, any member with ``Never`` stops the group.
        self.group_preemption_policy = PREEMPTION_POLICY in features
        #: TopologyAwareWorkloadScheduling: every pod-group cycle runs the placement algorithm.
        self.topology_aware = TOPOLOGY_AWARE in features
        #: CompositePodGroup: PodGroups with a parent are scheduled as one tree.
        self.hierarchies = COMPOSITE in features
        self.composites: dict[str, CompositePodGroup] = {}
        self.clock = clock
        self.writer = writer
        #: The fault profile's hook: pods with this label fail Reserve (:mod:`~reference_scheduler.plugins.fault`).
        self.fault_reserve_label = fault_reserve_label
        self.nodes: dict[str, NodeInfo] = {}
        self.pods: dict[str, Pod] = {}  # every pod the informer shows, any scheduler
        self.groups: dict[str, PodGroup] = {}
        self.assumed: dict[str, str] = {}  # pod key -> node, placed but not yet seen bound
        self.entities: dict[str, _Entity] = {}
        self.waiting: dict[str, _Waiting] = {}  # pods held at Permit
        self.nominated: dict[str, str] = {}  # preemptors -> the node their victims free
        self._members: dict[str, set[str]] = {}  # group key -> keys of its pods (an index)
        # pod key -> the order the pod was first seen: creationTimestamp has one-second resolution,
        # upstream orders members by the (nanosecond) time they were queued.
        self._arrival: dict[str, int] = {}
        self._arrivals = itertools.count()
        self._node_order: list[str] = []  # node names, sorted: the order filters visit them
        self.profile = self._default_profile(registry)
        filters = self.profile.at("Filter")
        static = 0
        while static < len(filters) and getattr(filters[static], "static", False):
            static += 1
        self._static_plugins, self._dynamic_plugins = filters[:static], filters[static:]
        self._static_cache: dict[tuple, tuple[list[str], dict[str, Status]]] = {}
        self._nodes_version = 0
        # NodeResourcesFit over all nodes at once, when it is the only node-dependent filter and scorer.
        self._vector = (len(self._dynamic_plugins) == 1 and isinstance(self._dynamic_plugins[0], NodeResourcesFit)
                        and [type(p) for p in self.profile.at("Score")] == [NodeResourcesFit])
        self._arrays = NodeArrays()
        #: PreEnqueue plugin -> (resource, action) -> its queueing hints.
        self._hints: dict[str, dict[tuple[str, str], list]] = {}
        for plugin in self.profile.at("PreEnqueue"):
            for event in getattr(plugin, "events_to_register", lambda: [])():
                self._hints.setdefault(plugin.name, {}).setdefault((event.resource, event.action), []).append(
                    event.hint or (lambda pod, old, new: True))
        self._dirty: set[str] = set()  # nodes whose requested amounts changed since the arrays were synced

    # -- the profile ---------------------------------------------------------------------------

    def _default_profile(self, registry: Registry | None) -> Profile:
        if registry is None:
            registry = Registry()
            for cls in (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodeResourcesFit,
                        SchedulingGates, PrioritySort):
                registry.register(cls.NAME, lambda args, cls=cls: cls())
            registry.register(gang.NAME, lambda args: gang.GangScheduling(self))
            registry.register(fault.NAME, lambda args: fault.FaultReserve(args["label"]))
        reserve = [fault.NAME] if self.fault_reserve_label else []
        return registry.build_profile(self.scheduler_name, {
            "PreEnqueue": ["SchedulingGates", gang.NAME],
            "QueueSort": ["PrioritySort"],
            "Filter": ["NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodeResourcesFit"],
            "Score": ["NodeResourcesFit"],
            "Reserve": reserve,
            "Permit": [gang.NAME],
            "PlacementFeasible": [gang.NAME],
        }, args={fault.NAME: {"label": self.fault_reserve_label}})

    # -- GroupHandle, for GangScheduling ---------------------------------------------------------

    def pod_group(self, namespace: str, name: str) -> PodGroup | None:
        return self.groups.get(f"{namespace}/{name}")

    def members(self, group_key: str) -> list[Pod]:
        return [self.pods[k] for k in self._members.get(group_key, ())]

    def group_state(self, namespace: str, name: str) -> gang.GroupState:
        key = f"{namespace}/{name}"
        mine = [p for p in self.members(key) if p.scheduler_name in self.scheduler_names and p.active]
        assumed = tuple(p for p in mine if p.key in self.assumed and not p.node_name)
        unscheduled = tuple(p for p in mine if not p.node_name and p.key not in self.assumed)
        return gang.GroupState(all_pods=len(mine), scheduled=sum(1 for p in mine if p.node_name) + len(assumed),
                               assumed=assumed, unscheduled=unscheduled)

    def activate(self, pods: tuple[Pod, ...]) -> None:
        for key in {self._entity_key(pod) for pod in pods}:
            entity = self.entities.get(key)
            if entity is not None:
                self._unpark(entity)

    def allow_waiting(self, pod: Pod, plugin: str) -> None:
        waiting = self.waiting.pop(pod.key, None)
        if waiting is not None:
            waiting.timer.cancel()
            self._bind(waiting.pod, waiting.node)

    # -- the hierarchy (CompositePodGroup) ------------------------------------------------------------

    def root_of(self, group: PodGroup | CompositePodGroup) -> str | None:
        key, seen = group.parent_key, set()
        while key is not None:
            if key in seen:
                return None  # a cycle: the apiserver should have refused it; treat as incomplete
            seen.add(key)
            parent = self.composites.get(key)
            if parent is None:
                return None
            if parent.parent_key is None:
                return key
            key = parent.parent_key
        return None

    def children(self, cpg_key: str) -> list[PodGroup | CompositePodGroup]:
        """The direct children of a CompositePodGroup, in the order a cycle tries them (by name)."""
        found = [g for g in self.groups.values() if g.parent_key == cpg_key]
        found += [c for c in self.composites.values() if c.parent_key == cpg_key]
        return sorted(found, key=lambda g: g.name)

    def leaves(self, cpg_key: str) -> list[PodGroup]:
        out: list[PodGroup] = []
        for child in self.children(cpg_key):
            out.extend(self.leaves(child.key) if isinstance(child, CompositePodGroup) else [child])
        return out

    def tree_ready(self, root_key: str, count: str) -> bool:
        def ready(node: PodGroup | CompositePodGroup) -> bool:
            if isinstance(node, CompositePodGroup):
                return sum(1 for child in self.children(node.key) if ready(child)) >= node.quorum
            state = self.group_state(node.namespace, node.name)
            return (state.all_pods if count == "all" else state.scheduled) >= node.quorum

        root = self.composites.get(root_key)
        return root is not None and ready(root)

    def in_tree(self, root_key: str, group_key: str) -> bool:
        group = self.groups.get(group_key) or self.composites.get(group_key)
        return group is not None and (group.key == root_key or self.root_of(group) == root_key)

    def tree_state(self, root_key: str) -> gang.GroupState:
        states = [self.group_state(leaf.namespace, leaf.name) for leaf in self.leaves(root_key)]
        return gang.GroupState(
            all_pods=sum(s.all_pods for s in states), scheduled=sum(s.scheduled for s in states),
            assumed=tuple(p for s in states for p in s.assumed), unscheduled=tuple(p for s in states for p in s.unscheduled))

    def _tree_root(self, group: PodGroup) -> str | None:
        """The root CompositePodGroup a group is scheduled with, or None for a standalone group."""
        return self.root_of(group) if self.hierarchies and group.parent else None

    # -- cluster events --------------------------------------------------------------------------

    def on_node(self, node: Node | None, name: str) -> None:
        """A node was added or changed (``node``) or deleted (``None``)."""
        if node is None:
            if self.nodes.pop(name, None) is not None:
                self._node_order.remove(name)
                self._nodes_version += 1
            return
        info = self.nodes.get(name)
        if info is None:
            info = self.nodes[name] = NodeInfo(node)
            bisect.insort(self._node_order, name)
            for pod in self.pods.values():
                if pod.node_name == name or self.assumed.get(pod.key) == name:
                    info.add(pod)
        elif info.node == node:
            return  # a heartbeat: nothing the scheduler looks at changed
        else:
            info.node = node
        self._nodes_version += 1
        self._unpark_all()

    def on_pod(self, pod: Pod | None, key: str) -> None:
        """A pod was added or changed (``pod``) or deleted (``None``)."""
        old = self.pods.get(key)
        if old is not None:
            self._uncount(old)
        if old is not None and old.group_key:
            self._members.get(old.group_key, set()).discard(key)
        if pod is None or (pod.node_name == "" and pod.deleting):
            self.pods.pop(key, None)
            self._arrival.pop(key, None)
            self.assumed.pop(key, None)
            self.nominated.pop(key, None)
            waiting = self.waiting.pop(key, None)
            if waiting is not None:
                waiting.timer.cancel()
            if old is not None and old.node_name:
                self._unpark_all()  # freed capacity
            self._drop_entity_if_empty(old)
            return
        self.pods[key] = pod
        if key not in self._arrival:
            self._arrival[key] = next(self._arrivals)
        if pod.group_key:
            self._members.setdefault(pod.group_key, set()).add(key)
        if pod.node_name:
            self.assumed.pop(key, None)
            self.nominated.pop(key, None)
        self._count(pod)
        if old is not None and old.node_name and not pod.active:
            self._unpark_all()  # a finished pod frees its node
        if not pod.node_name and pod.scheduler_name in self.scheduler_names and pod.active:
            self._ensure_entity(pod)
        if pod.node_name and (old is None or not old.node_name):
            self._requeue_gated("AssignedPod", "Add", old, pod)
        elif old is None:
            self._requeue_gated("UnscheduledPod", "Add", None, pod)
        else:
            self._requeue_gated("Pod", "Update", old, pod)

    def on_composite_pod_group(self, cpg: CompositePodGroup | None, key: str) -> None:
        """A CompositePodGroup was added or changed, or deleted (``None``): its tree may now be complete."""
        if cpg is None:
            self.composites.pop(key, None)
            return
        added = key not in self.composites
        self.composites[key] = cpg
        if added:
            self._requeue_gated("CompositePodGroup", "Add", None, cpg)
            root = key if cpg.parent is None else self.root_of(cpg)
            for leaf in self.leaves(root) if root else ():
                entity = self.entities.get(f"group:{leaf.key}")
                if entity is not None:
                    self._unpark(entity)

    def on_pod_group(self, group: PodGroup | None, key: str) -> None:
        old = self.groups.get(key)
        if group is None:
            self.groups.pop(key, None)
            return
        self.groups[key] = group
        self._requeue_gated("PodGroup", "Add" if old is None else "Update", old, group)
        entity = self.entities.get(f"group:{key}")
        if entity is not None:
            entity.priority = group.priority
            decreased = old is not None and old.is_gang and group.is_gang and group.min_count < old.min_count
            if old is None or decreased:
                self._unpark(entity)

    # -- accounting --------------------------------------------------------------------------------

    def _count(self, pod: Pod) -> None:
        node = pod.node_name or self.assumed.get(pod.key)
        if node and node in self.nodes:
            self.nodes[node].add(pod)
            self._dirty.add(node)

    def _uncount(self, pod: Pod) -> None:
        node = pod.node_name or self.assumed.get(pod.key)
        if node and node in self.nodes:
            self.nodes[node].remove(pod)
            self._dirty.add(node)

    # -- the queue ---------------------------------------------------------------------------------

    @staticmethod
    def _entity_key(pod: Pod) -> str:
        return f"group:{pod.group_key}" if pod.group_key else f"pod:{pod.key}"

    def _ensure_entity(self, pod: Pod) -> None:
        key = self._entity_key(pod)
        if key not in self.entities:
            group = self.groups.get(pod.group_key) if pod.group_key else None
            self.entities[key] = _Entity(key, group.priority if group else pod.priority, self.clock.now())

    def _drop_entity_if_empty(self, pod: Pod | None) -> None:
        if pod is None:
            return
        key = self._entity_key(pod)
        if key in self.entities and not self._pending_of(key):
            entity = self.entities.pop(key)
            if entity.backoff is not None:
                entity.backoff.cancel()

    def _pending_of(self, entity_key: str) -> list[Pod]:
        """The entity's members that still need a node, in the order a cycle tries them."""
        if entity_key.startswith("pod:"):
            pod = self.pods.get(entity_key[4:])
            pods = [pod] if pod else []
        else:
            pods = self.members(entity_key[6:])
        pending = [p for p in pods if not p.node_name and p.key not in self.assumed and p.key not in self.waiting
                   and p.scheduler_name in self.scheduler_names and p.active]
        return sorted(pending, key=lambda p: (-p.priority, p.created, self._arrival.get(p.key, 0), p.name))

    def _pre_enqueue(self, pods: list[Pod]) -> Status:
        for plugin in self.profile.at("PreEnqueue"):
            for pod in pods:
                status = plugin.pre_enqueue(pod)
                if not status.ok:
                    return status.with_plugin(plugin.name)
        return Status.success()

    def _requeue_gated(self, resource: str, action: str, old, new) -> None:
        """A cluster event: let the gated entities whose gating plugin's hint says Queue be tried again."""
        for key, entity in self.entities.items():
            hints = self._hints.get(entity.gated_by or "", {}).get((resource, action))
            if not hints:
                continue
            pods = self._pending_of(key)
            # A group's hints judge the group, so one member speaks for all; a pod update concerns that pod.
            candidates = pods if resource == "Pod" else pods[:1]
            if any(hint(pod, old, new) for hint in hints for pod in candidates):
                entity.gated_by = None

    def _first_ready(self) -> _Entity | None:
        """The first entity in queue order that may be tried now. Those after it are judged in a
        later call (judging every entity at every cycle was quadratic in the number of PodGroups)."""
        return next((entity for entity in self._candidates() if self._admit(entity)), None)

    def _candidates(self) -> list[_Entity]:
        """Entities neither gated, parked nor backing off, in queue order (whether they have a
        member to try and pass PreEnqueue is :meth:`_admit`'s question)."""
        now = self.clock.now()
        candidates = []
        for entity in self.entities.values():
            if entity.gated_by is not None:
                continue
            if entity.parked_at is not None:
                if now - entity.parked_at < MAX_IN_UNSCHEDULABLE:
                    continue
                entity.parked_at = None
            if entity.backoff_until > now:
                continue
            candidates.append(entity)
        sort = self.profile.at("QueueSort")[0]
        key = getattr(sort, "sort_key", None)
        if key is None:
            less = sort.less
            key = functools.cmp_to_key(lambda a, b: -1 if less(a, b) else (1 if less(b, a) else 0))
        return sorted(candidates, key=key)

    def _admit(self, entity: _Entity) -> bool:
        """Whether ``entity`` has members to try and they pass PreEnqueue; if not, it is gated by
        the plugin that refused."""
        pods = self._pending_of(entity.key)
        if not pods:
            return False
        gate = self._pre_enqueue(pods)
        if not gate.ok:
            entity.gated_by = gate.plugin
            return False
        return True

    def _park(self, entity: _Entity) -> None:
        entity.parked_at = self.clock.now()

    def _unpark(self, entity: _Entity) -> None:
        entity.parked_at = None

    def _unpark_all(self) -> None:
        for entity in self.entities.values():
            entity.parked_at = None

    def _back_off(self, entity: _Entity, size: int = 1) -> None:
        """Send ``entity`` (``size`` queued pods) to backoff after a failed attempt.

        v1.37's backoff queue: the delay doubles from 1 s up to 10 s, times the square root of
        the entity's size for a group; the expiry is cut down to its one-second window, and an
        entity leaves backoff at the first whole second after that window, together with every
        other entity of the same window (then ordered as the active queue orders them).
        """
        entity.attempts += 1
        cap = MAX_BACKOFF * math.sqrt(size) if size > 1 else MAX_BACKOFF
        delay = min(INITIAL_BACKOFF * 2 ** (entity.attempts - 1), cap)
        now = self.clock.now()
        entity.backoff_until = math.floor(now + delay) + BACKOFF_WINDOW
        if entity.backoff is not None:
            entity.backoff.cancel()
        # Wakes the runner's loop when the backoff is over.
        entity.backoff = self.clock.call_later(entity.backoff_until - now, lambda: None)

    # -- cycles ------------------------------------------------------------------------------------

    def schedule_next(self) -> bool:
        """Run one cycle for the first ready entity; return False when none is ready."""
        entity = self._first_ready()
        if entity is None:
            return False
        if entity.key.startswith("pod:"):
            self._pod_cycle(entity)
        else:
            self._group_cycle(entity)
        return True

    def run_until_idle(self, limit: int = 10_000) -> int:
        """Run cycles until no entity is ready (virtual-time tests); return how many ran."""
        for count in range(limit):
            if not self.schedule_next():
                return count
        raise RuntimeError(f"still scheduling after {limit} cycles")

    def _snapshot(self, for_pods: list[Pod] = ()) -> Snapshot:
        """The nodes as a cycle sees them: what is bound or assumed, plus the pods other
        preemptors of at least the same priority are nominated to, so that nobody lower takes
        the room a preemption freed."""
        arrays = None
        if self._vector:
            self._arrays.sync(self.nodes, self._node_order, self._nodes_version, self._dirty)
            arrays = self._arrays
        snapshot = Snapshot(self.nodes, self._node_order, arrays)
        mine = {p.key for p in for_pods}
        floor = min((p.priority for p in for_pods), default=0)
        for key, node in self.nominated.items():
            pod = self.pods.get(key)
            if pod is not None and key not in mine and pod.priority >= floor and node in snapshot:
                snapshot.writable(node).add(pod)
        return snapshot

    def _static_filters(self, pod: Pod) -> tuple[list[str], dict[str, Status]]:
        """The leading Filter plugins that look only at the node object and the pod's spec.

        Their verdicts hold until a node changes, so they are computed once per pod shape
        (selector, affinity, tolerations, node name) and node set, not once per pod: the
        members of a gang share them.
        """
        key = (self._nodes_version, pod.node_name, pod.node_selector, repr(pod.required_affinity), pod.tolerations)
        cached = self._static_cache.get(key)
        if cached is not None:
            return cached
        if len(self._static_cache) > 1024 or (self._static_cache and next(iter(self._static_cache))[0] != key[0]):
            self._static_cache.clear()
        passing: list[str] = []
        failed: dict[str, Status] = {}
        for name in self._node_order:
            status = _first_failure(self._static_plugins, pod, self.nodes[name])
            if status is None:
                passing.append(name)
            else:
                failed[name] = status
        self._static_cache[key] = (passing, failed)
        return passing, failed

    def _find_node(self, pod: Pod, snapshot: Snapshot, allowed: frozenset[str] | None = None
                   ) -> tuple[str | None, dict[str, Status]]:
        """The best node for ``pod`` (among ``allowed``, a placement, if given) and why the others fail."""
        passing, failed = self._static_filters(pod)
        if allowed is not None:
            passing = [name for name in passing if name in allowed]
            failed = {name: status for name, status in failed.items() if name in allowed}
        statuses: dict[str, Status] = dict(failed)
        used = snapshot.used() if self._vector else None
        if used is not None:
            arrays = self._arrays
            positions = np.fromiter((arrays.pos[n] for n in passing), dtype=np.int64, count=len(passing))
            best, failures = fit_and_score(arrays, used, positions, pod)
            statuses.update((arrays.order[p], status) for p, status in failures.items())
            return (arrays.order[best] if best is not None else None), statuses
        feasible = []
        for name in passing:
            status = _first_failure(self._dynamic_plugins, pod, snapshot[name])
            if status is None:
                feasible.append(snapshot[name])
            else:
                statuses[name] = status
        if not feasible:
            return None, statuses
        best, best_score = None, -1
        for info in feasible:
            score = sum(plugin.score(None, pod, info)[0] for plugin in self.profile.at("Score"))
            if score > best_score:
                best, best_score = info, score
        return best.name, statuses

    def _pod_cycle(self, entity: _Entity) -> None:
        (pod,) = self._pending_of(entity.key)
        self.nominated.pop(pod.key, None)
        snapshot = self._snapshot([pod])
        node, statuses = self._find_node(pod, snapshot)
        if node is None:
            message = fit_error(len(snapshot), statuses)
            if pod.preemption_policy != "Never":
                message = self._preempt_for_pod(pod, snapshot, statuses, message)
            self.writer.pod_unschedulable(pod, "Unschedulable", message)
            if pod.key in self.nominated:
                self._back_off(entity)  # victims are on their way out: try again soon
            else:
                self._park(entity)
            return
        if not self._assume_and_reserve(pod, node):
            self._back_off(entity)
            return
        self._bind(pod, node)

    def _assume_and_reserve(self, pod: Pod, node: str) -> bool:
        """The start of a pod's hand-over: assume it on ``node`` and run Reserve. On a Reserve
        failure the pod is unreserved, forgotten and told why (its fit error when rejected, the
        error itself otherwise), and False is returned: the caller decides when it is retried."""
        self._assume(pod, node)
        reserved = self._reserve(pod, node, HAND_OVER)
        if reserved.ok:
            return True
        self._unreserve(pod, node, HAND_OVER)
        self._forget(pod)
        self.writer.pod_unschedulable(pod, "Unschedulable" if reserved.rejected else "SchedulerError",
                                      fit_error(1, {node: reserved}) if reserved.rejected else reserved.message())
        return False

    def _fits(self, pod: Pod, info: NodeInfo) -> bool:
        return _first_failure(self.profile.at("Filter"), pod, info) is None

    def _preempt_for_pod(self, pod: Pod, snapshot: Snapshot, statuses: dict[str, Status],
                         message: str) -> str:
        """PostFilter for a pod without a group; returns the message the pod is given."""
        units = preemption.victim_units([p for p in self.pods.values() if p.node_name], self.groups)
        helpful = lambda name: statuses.get(name) is None or statuses[name].code is not Code.UNSCHEDULABLE_AND_UNRESOLVABLE  # noqa: E731
        node, victims, reasons = preemption.preempt_for_pod(pod, snapshot, units, self._fits, helpful)
        if node is None:
            return f"{message} {preemption_error(len(snapshot), reasons)}"
        self._evict(victims, by_group=False, scheduler_name=pod.scheduler_name)
        self.nominated[pod.key] = node
        self.writer.nominate(pod, node)
        return message

    def _evict(self, victims: list[preemption.Unit], *, by_group: bool, scheduler_name: str) -> None:
        """Evict every pod of ``victims``, in the preemptor's profile's name (``scheduler_name``)."""
        text = defaultpreemption.disruption_message(scheduler_name, by_group)
        for unit in victims:
            for victim in unit.pods:
                self.writer.preempt(victim, text)

    def _validate_group(self, group: PodGroup, pods: list[Pod]) -> str | None:
        """v1.37's validatePodGroup, member by member (the queued ones, then the scheduled ones).

        Each member must name the first queued member's scheduler, have the PodGroup's priority,
        and have the same preemption policy: the PodGroup's with PodGroupPreemptionPolicy on, else
        the first member's.
        """
        first = pods[0]
        scheduled = [p for p in self.members(group.key) if p.node_name and p.active]
        policy = group.preemption_policy if self.group_preemption_policy else None
        for pod in pods + scheduled:
            if pod.scheduler_name != first.scheduler_name:
                return ("all pods in a single pod group should have the same .spec.schedulerName set, "
                        f'got: "{pod.scheduler_name}" and "{first.scheduler_name}"')
            if pod.priority != group.priority:
                return ("all pods in a single pod group should have the same priority as the pod group's priority, "
                        f"got {pod.priority} and {group.priority}")
            if self.group_preemption_policy:
                if pod.preemption_policy != policy:
                    return ("all pods in a single pod group should have the same preemption policy as the pod "
                            f"group's preemption policy, got {pod.preemption_policy} and {policy}")
            elif policy is None:
                policy = pod.preemption_policy
            elif pod.preemption_policy != policy:
                return ("all pods in a single pod group should have the same preemption policy, "
                        f"got {pod.preemption_policy} and {policy}")
        return None

    def _group_cycle(self, entity: _Entity) -> None:
        group = self.groups[entity.key[6:]]
        root = self._tree_root(group)
        if root is not None:
            self._tree_cycle(root)
            return
        pods = self._pending_of(entity.key)
        error = self._validate_group(group, pods)
        if error is not None:
            for pod in pods:
                self.writer.pod_unschedulable(pod, "SchedulerError", error)
            self._set_group_condition(group, False, "SchedulerError", error)
            self._back_off(entity, len(pods))
            return

        self.nominated = {k: v for k, v in self.nominated.items() if k not in {p.key for p in pods}}
        snapshot = self._snapshot(pods)
        outcome = self._place_group(group, pods, snapshot)
        if outcome.status.ok and outcome.placed:
            self._submit_success(group, pods, outcome)
            entity.attempts = 0
            return
        if outcome.status.ok:  # nothing new placed counts as a failure, wrapped around the bare error
            outcome.status = Status.of(Code.UNSCHEDULABLE).with_error(POD_GROUP_UNSCHEDULABLE)

        # The group failed: nothing is bound; every member says why. Members the cycle never
        # tried carry the group's verdict as it was before PodGroupPostFilter ran; the PodGroup
        # and the members that fit carry it with the post-filter outcome appended.
        verdict = outcome.status.message()
        post = self._pod_group_post_filter(group, pods)
        self._submit_failure(group, pods, outcome, f"{verdict}, {post.message()}", untried=verdict,
                             waiting=post.ok)
        self._back_off(entity, len(pods))

    def _submit_success(self, group: PodGroup, pods: list[Pod], outcome: _Outcome) -> None:
        """A placed group: the condition, then each placed member through Permit to binding."""
        self._set_group_condition(group, True, "Scheduled", "")
        for pod, node in outcome.placed:
            # One member after the other, as v1.37 submits them: assume, Reserve, then Permit, where
            # a gang member waits until the member that completes minCount allows them all. A member
            # that fails Reserve here is not waiting: it is sent back alone and, the cycle having
            # succeeded, retried at once (v1.37 requeues it straight to the active queue).
            if not self._assume_and_reserve(pod, node):
                continue
            permit, timeout = self._permit(pod, node)
            if permit.code is Code.WAIT:
                self._wait(pod, node, timeout)
            elif permit.ok:
                self._bind(pod, node)
            else:
                self._unreserve(pod, node, HAND_OVER)
                self._forget(pod)
                self.writer.pod_unschedulable(pod, "Unschedulable", permit.message())
        # v1.37's binding cycle nominates a member that will wait at Permit to its node
        # (NominatedNodeNameForExpectation) before it waits. Here the hand-over is one synchronous
        # loop, so only the members still waiting after it are nominated: those whose wait lasts.
        for pod, node in outcome.placed:
            if pod.key in self.waiting:
                self.writer.nominate(pod, node)
        for pod in pods:
            if pod.key in outcome.misfits:
                self.writer.pod_unschedulable(pod, "Unschedulable", outcome.misfits[pod.key])

    def _submit_failure(self, group: PodGroup, pods: list[Pod], outcome: _Outcome, message: str,
                        untried: str | None = None, *, waiting: bool = False) -> None:
        """A failed group: nothing is bound; each member says why, the PodGroup says ``Unschedulable``.

        A member that did not fit gives its own fit error; one that fit (or, with ``untried`` None,
        any other) gives ``pod group is unschedulable, <message>``, or ``message`` alone while the
        group waits for its victims to go (``waiting``); one the cycle never tried gives ``untried``.
        """
        for pod in pods:
            if pod.key in outcome.misfits:
                self.writer.pod_unschedulable(pod, "Unschedulable", outcome.misfits[pod.key])
            elif untried is None or pod.key in outcome.tried:
                self.writer.pod_unschedulable(pod, "Unschedulable",
                                              message if waiting else f"{POD_GROUP_UNSCHEDULABLE}, {message}")
            else:
                self.writer.pod_unschedulable(pod, "Unschedulable", untried)
        self._set_group_condition(group, False, "Unschedulable", message)

    def _feasible(self, group: PodGroup | CompositePodGroup, scheduled: int, remaining: int) -> Status:
        for plugin in self.profile.at("PlacementFeasible"):
            status = plugin.placement_feasible(None, group, scheduled, remaining)
            if not status.ok:
                return status
        return Status.success()

    def _place_group(self, group: PodGroup, pods: list[Pod], snapshot: Snapshot,
                     allowed: frozenset[str] | None = None) -> _Outcome:
        """The pod-group algorithm for one PodGroup, on a fork of ``snapshot``.

        Without TopologyAwareWorkloadScheduling: the default algorithm over every node (or
        ``allowed``). With it: the placement algorithm (GANG-TAS-001), which runs the default
        one per candidate placement and keeps the best feasible; when none is, the group's
        message is ``0/<n> placements are available, first placement status: ...``.
        """
        if not self.topology_aware:
            return self._place_default(group, pods, snapshot, allowed)

        def attempt(nodes: frozenset[str]) -> tuple[_Outcome, list[Pod], None]:
            outcome = self._place_default(group, pods, snapshot, nodes)
            return outcome, [pod for pod, _ in outcome.placed], None

        return self._placement_algorithm(group.topology_key, allowed, snapshot, [group], attempt)[0]

    def _placement_algorithm(self, key: str | None, allowed: frozenset[str] | None, snapshot: Snapshot,
                             leaves: list[PodGroup], attempt) -> tuple[_Outcome, object]:
        """Try ``attempt(nodes)`` on each candidate placement and keep the best feasible one.

        ``attempt`` returns the outcome, the pods it would place and what the caller wants back
        with the chosen outcome (a CompositePodGroup's results per child). When no placement is
        feasible, the first one's payload comes back with the ``0/<n> placements`` verdict.
        """
        parent = topology.Placement("", allowed if allowed is not None else frozenset(snapshot))
        placements, status = topology.TopologyPlacement().generate(
            key, parent, self._labels, self._scheduled_nodes(leaves))
        if not status.ok:
            return _Outcome(status), None
        first: tuple[_Outcome, object] | None = None
        feasible = []
        for placement in placements:
            outcome, proposed, payload = attempt(placement.nodes)
            if outcome.status.code is Code.ERROR:
                return outcome, payload
            first = first or (outcome, payload)
            if outcome.status.ok:
                feasible.append((placement, outcome, proposed, payload))
        if not feasible:
            # v1.37.2 reports the first candidate's attempt, members and all, under a verdict
            # wrapped around "pod group is unschedulable".
            outcome, payload = first
            failed = Status.of(Code.UNSCHEDULABLE, topology.placements_unavailable(len(placements), outcome.error_text()))
            return _Outcome(failed.with_error(POD_GROUP_UNSCHEDULABLE), misfits=outcome.misfits,
                            tried=outcome.tried), payload
        scheduled = sum(self.group_state(leaf.namespace, leaf.name).scheduled for leaf in leaves)
        best, status = topology.best_placement([
            (placement, scheduled, proposed, [snapshot[n] for n in placement.nodes])
            for placement, _, proposed, _ in feasible])
        if not status.ok:
            return _Outcome(status), None
        _, outcome, _, payload = feasible[best]
        return outcome, payload

    def _labels(self, node: str) -> dict[str, str]:
        info = self.nodes.get(node)
        return dict(info.node.labels) if info is not None else {}

    def _scheduled_nodes(self, groups: list[PodGroup]) -> list[str]:
        """The nodes the groups' members are bound or assumed to."""
        return [p.node_name or self.assumed[p.key] for g in groups for p in self.members(g.key)
                if p.active and (p.node_name or p.key in self.assumed)]

    def _place_default(self, group: PodGroup, pods: list[Pod], snapshot: Snapshot,
                       allowed: frozenset[str] | None) -> _Outcome:
        """The default pod-group algorithm (GANG-CYCLE-001) on a fork of ``snapshot``.

        PlacementFeasible runs before the first pod and after each one; Unschedulable ends the
        loop early, a Wait left at the end becomes Unschedulable. The outcome holds the
        placements and each misfit's own fit error.
        """
        snapshot = snapshot.fork()
        scheduled = self.group_state(group.namespace, group.name).scheduled
        remaining = len(pods)
        outcome = _Outcome(self._feasible(group, scheduled, remaining))
        if outcome.status.code is Code.UNSCHEDULABLE:
            outcome.status = outcome.status.with_error(POD_GROUP_UNSCHEDULABLE)  # v1.37 wraps the first check's verdict
            return outcome
        reserved: list[tuple[Pod, str]] = []
        for pod in pods:
            node, statuses = self._find_node(pod, snapshot, allowed)
            remaining -= 1
            outcome.tried.add(pod.key)
            if node is None:
                outcome.misfits[pod.key] = fit_error(len(snapshot) if allowed is None else len(allowed), statuses)
            else:
                # Assume and Reserve, as a trial: the algorithm's reservations are reverted at its end.
                status = self._reserve(pod, node, TRIAL)
                if not status.ok:
                    outcome.misfits[pod.key] = fit_error(1, {node: status})
                else:
                    reserved.append((pod, node))
                    snapshot.writable(node).add(pod)
                    outcome.placed.append((pod, node))
                    scheduled += 1
            outcome.status = self._feasible(group, scheduled, remaining)
            if outcome.status.code is Code.UNSCHEDULABLE:
                break  # PlacementFeasible ended the cycle early
        if outcome.status.code is Code.WAIT:
            outcome.status = Status.of(Code.UNSCHEDULABLE, *outcome.status.reasons,
                                       plugin=outcome.status.plugin).with_error(POD_GROUP_UNSCHEDULABLE)
        for pod, node in reserved:
            self._unreserve(pod, node, TRIAL)
        if outcome.status.ok:
            outcome.snapshot = snapshot
        else:
            outcome.placed = []
        return outcome

    # -- the tree cycle (CompositePodGroup) ---------------------------------------------------------

    def _tree_cycle(self, root_key: str) -> None:
        """One cycle for a whole CompositePodGroup tree: GANG-CPG-002.

        Children are tried in order, PlacementFeasible before them and after each, counting
        satisfied children against ``minGroupCount``. A failed CompositePodGroup takes its
        successful children down with it, so nothing in the tree binds unless the root is
        satisfied. Leaf PodGroups get their condition; CompositePodGroups get none (v1.37).
        """
        root = self.composites[root_key]
        leaves = self.leaves(root_key)
        pending = {leaf.key: self._pending_of(f"group:{leaf.key}") for leaf in leaves}
        everyone = [p for pods in pending.values() for p in pods]
        self.nominated = {k: v for k, v in self.nominated.items() if k not in {p.key for p in everyone}}
        results: dict[str, _Outcome] = {}
        outcome = self._evaluate_composite(root, self._snapshot(everyone), None, pending, results)
        if outcome.status.ok and not any(results[leaf.key].placed for leaf in leaves if leaf.key in results):
            # success needs at least one pod placed
            outcome.status = Status.of(Code.UNSCHEDULABLE).with_error(POD_GROUP_UNSCHEDULABLE)
            results[root_key] = outcome

        def propagate(key: str, parent: _Outcome) -> None:
            # A child its parent's failure takes down (or one the parent never tried) carries the
            # parent's verdict, and none of its members counts as tried.
            mine = results.get(key)
            if mine is None or (not parent.status.ok and mine.status.ok):
                mine = results[key] = _Outcome(parent.status)
            for child in self.children(key):
                propagate(child.key, mine)

        propagate(root_key, results[root_key])
        for leaf in leaves:
            pods = pending[leaf.key]
            result = results[leaf.key]
            entity = self.entities.get(f"group:{leaf.key}")
            if result.status.ok and result.placed:
                self._submit_success(leaf, pods, result)
                if entity is not None:
                    entity.attempts = 0
            elif pods:
                message = result.status.message() if not result.status.ok else POD_GROUP_UNSCHEDULABLE
                self._submit_failure(leaf, pods, result, message, untried=message)
                if entity is not None:
                    self._back_off(entity, len(everyone))  # the tree is one entity upstream

    def _evaluate_composite(self, cpg: CompositePodGroup, snapshot: Snapshot, allowed: frozenset[str] | None,
                            pending: dict[str, list[Pod]], results: dict[str, _Outcome]) -> _Outcome:
        """The placement algorithm for a CompositePodGroup (always used for one, as in v1.37)."""
        leaves = self.leaves(cpg.key)

        def attempt(nodes: frozenset[str]) -> tuple[_Outcome, list[Pod], dict[str, _Outcome]]:
            subtree: dict[str, _Outcome] = {}
            outcome = self._composite_default(cpg, snapshot, nodes, pending, subtree)
            proposed = [pod for leaf in leaves if leaf.key in subtree for pod, _ in subtree[leaf.key].placed]
            return outcome, proposed, subtree

        outcome, subtree = self._placement_algorithm(cpg.topology_key, allowed, snapshot, leaves, attempt)
        results.update(subtree or {})
        results[cpg.key] = outcome
        return outcome

    def _composite_default(self, cpg: CompositePodGroup, snapshot: Snapshot, allowed: frozenset[str],
                           pending: dict[str, list[Pod]], results: dict[str, _Outcome]) -> _Outcome:
        children = self.children(cpg.key)
        scheduled, remaining = 0, len(children)
        outcome = _Outcome(self._feasible(cpg, scheduled, remaining))
        if outcome.status.code is not Code.UNSCHEDULABLE:
            for child in children:
                if isinstance(child, CompositePodGroup):
                    result = self._evaluate_composite(child, snapshot, allowed, pending, results)
                else:
                    result = results[child.key] = self._place_group(child, pending.get(child.key, []), snapshot, allowed)
                if result.status.code is Code.ERROR:
                    outcome.status = Status.as_error(
                        f"composite pod group evaluation failed due to child error: {result.error_text()}")
                    break
                remaining -= 1
                if result.status.ok:
                    scheduled += 1
                    snapshot = result.snapshot
                outcome.status = self._feasible(cpg, scheduled, remaining)
                if outcome.status.code is Code.UNSCHEDULABLE:
                    break
        if outcome.status.code is Code.WAIT:
            outcome.status = Status.of(Code.UNSCHEDULABLE, *outcome.status.reasons,
                                       plugin=outcome.status.plugin).with_error(POD_GROUP_UNSCHEDULABLE)
        if outcome.status.ok:
            outcome.snapshot = snapshot
        results[cpg.key] = outcome
        return outcome

    def _pod_group_post_filter(self, group: PodGroup, pods: list[Pod]) -> Status:
        """PodGroupPostFilter as v1.37.2's default profile runs it: DynamicResources, then DefaultPreemption.

        A Success or an UnschedulableAndUnresolvable verdict ends the run and is the outcome on
        its own; Unschedulable verdicts are gathered. DynamicResources has no claim to release
        here; it says so for a PodGroup, but not for one with a topology constraint (it does not
        handle those when TopologyAwareWorkloadScheduling is on).
        """
        reasons: list[str] = []
        if not (self.topology_aware and group.topology_key):
            reasons.append(CLAIMS_RELEASED)
        status = self._preempt_for_group(group, pods)
        if status.ok or status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
            return status
        return Status.of(Code.UNSCHEDULABLE, *reasons, *status.reasons, plugin=status.plugin)

    def _preempt_for_group(self, group: PodGroup, pods: list[Pod]) -> Status:
        """DefaultPreemption's PodGroupPostFilter (workload-aware preemption), as a Status.

        The preemptor's policy is the PodGroup's with PodGroupPreemptionPolicy on; with it off,
        any member with ``preemptionPolicy: Never`` makes the group's Never.
        """
        never = (group.preemption_policy == "Never" if self.group_preemption_policy
                 else any(p.preemption_policy == "Never" for p in pods))
        if never:
            return Status.of(Code.UNSCHEDULABLE, defaultpreemption.NOT_ELIGIBLE, plugin=defaultpreemption.NAME)
        units = preemption.victim_units([p for p in self.pods.values() if p.node_name and p.group_key != group.key],
                                        self.groups)
        if not any(unit.priority < group.priority for unit in units):
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, defaultpreemption.NO_VICTIMS_FOR_GROUP,
                             plugin=defaultpreemption.NAME)
        base = self._snapshot(pods)

        def place(trial: Snapshot) -> tuple[list[tuple[Pod, str]], str]:
            outcome = self._place_group(group, pods, trial)
            if outcome.status.ok and outcome.placed:
                return outcome.placed, ""
            return [], outcome.status.message() or POD_GROUP_UNSCHEDULABLE

        result = preemption.preempt_for_group(group.priority, base, units, place, self._fits)
        if not result.assignments:
            # Even without every lower-priority unit the group does not place: the verdict of that trial.
            return Status.of(Code.UNSCHEDULABLE, f"{defaultpreemption.PREFIX}{result.failure}", plugin=defaultpreemption.NAME)
        self._evict(result.victims, by_group=True, scheduler_name=pods[0].scheduler_name)
        for pod, node in result.assignments:
            self.nominated[pod.key] = node
            self.writer.nominate(pod, node)
        return Status.of(Code.SUCCESS, defaultpreemption.found_placement(sum(len(u.pods) for u in result.victims)),
                         plugin=defaultpreemption.NAME)

    def _set_group_condition(self, group: PodGroup, status: bool, reason: str, message: str) -> None:
        current = self.groups.get(group.key, group)
        if current.initially_scheduled:
            return  # terminal once True (GANG-COND-001)
        if status:
            self.groups[group.key] = dataclasses.replace(current, initially_scheduled=True)
        self.writer.group_condition(current, status, reason, message)

    # -- assume, permit, bind ----------------------------------------------------------------------

    def _assume(self, pod: Pod, node: str) -> None:
        self.assumed[pod.key] = node
        if node in self.nodes:
            self.nodes[node].add(pod)
            self._dirty.add(node)

    def _forget(self, pod: Pod) -> None:
        node = self.assumed.pop(pod.key, None)
        if node and node in self.nodes:
            self.nodes[node].remove(pod)
            self._dirty.add(node)

    def _reserve(self, pod: Pod, node: str, state: CycleState) -> Status:
        """Run every Reserve plugin in order; the first failure is the verdict."""
        for plugin in self.profile.at("Reserve"):
            status = plugin.reserve(state, pod, node)
            if not status.ok:
                return status.with_plugin(plugin.name)
        return Status.success()

    def _unreserve(self, pod: Pod, node: str, state: CycleState) -> None:
        """Run every Reserve plugin's Unreserve, in reverse order (upstream's)."""
        for plugin in reversed(self.profile.at("Reserve")):
            plugin.unreserve(state, pod, node)

    def _permit(self, pod: Pod, node: str) -> tuple[Status, float]:
        longest = 0.0
        result = Status.success()
        for plugin in self.profile.at("Permit"):
            status, timeout = plugin.permit(None, pod, node)
            if status.code is Code.WAIT:
                result, longest = status, max(longest, timeout)
            elif not status.ok:
                return status, 0
        return result, longest

    def _wait(self, pod: Pod, node: str, timeout: float) -> None:
        """Hold ``pod`` at Permit for at most ``timeout`` seconds.

        At the timeout it is rejected with v1.37's message (a FitError over its one node), its
        nomination (see :meth:`_submit_success`) is cleared, and it goes back to the queue, where
        the quorum gate holds the group again if fewer than minCount members are left.
        """
        def reject() -> None:
            waiting = self.waiting.pop(pod.key, None)
            if waiting is None:
                return
            self._unreserve(pod, node, HAND_OVER)
            self._forget(pod)
            self.writer.nominate(pod, "")
            rejected = Status.of(Code.UNSCHEDULABLE, permit_timeout_message(timeout, gang.NAME), plugin=gang.NAME)
            self.writer.pod_unschedulable(pod, "Unschedulable", fit_error(1, {node: rejected}))
            # Back to the queue with its group (whose entry may be gone if no other member was pending).
            self._ensure_entity(pod)
            self._back_off(self.entities[self._entity_key(pod)])

        self.waiting[pod.key] = _Waiting(pod, node, self.clock.call_later(timeout, reject))

    def _bind(self, pod: Pod, node: str) -> None:
        """Hand ``pod`` to the writer's binding. A writer may bind later (the runner does, as
        upstream's binding goroutines do) and report a failure through :meth:`binding_failed`."""
        status = self.writer.bind(pod, node)
        if not status.ok:
            self.binding_failed(pod.key, node, status.message())

    def binding_failed(self, pod_key: str, node: str, message: str) -> None:
        """The binding of an assumed pod failed: forget the assumption and retry after backoff."""
        pod = self.pods.get(pod_key)
        if pod is None or self.assumed.get(pod_key) != node:
            return  # deleted meanwhile, or already confirmed elsewhere by the informer
        self._unreserve(pod, node, HAND_OVER)
        self._forget(pod)
        self.writer.pod_unschedulable(pod, "SchedulerError", message)
        entity = self.entities.get(self._entity_key(pod))
        if entity is not None:
            self._back_off(entity)
