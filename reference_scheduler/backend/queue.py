"""The scheduling queue: entities (a PodGroup with its pending members, or a pod without a group).

Mirrors pkg/scheduler/backend/queue: scheduling_queue.go (``Pop``, ``Activate``,
``MoveAllToActiveOrBackoffQueue``), active_queue.go, backoff_queue.go and
unschedulable_entities.go, as far as v1.37 can be observed from outside:

* An entity is ready when every pending member passes PreEnqueue (SchedulingGates on any member
  holds the whole group; GangScheduling holds a gang below quorum or a group whose PodGroup
  object is missing) and its backoff has expired. An entity a PreEnqueue plugin refused is
  *gated*: only an event whose queueing hint from that plugin says Queue lets it be tried again.
* Ready entities are taken in the QueueSort plugin's order (priority, a group's being the
  PodGroup's, then the time the entity was first queued); :meth:`pop` stops at the first one.
* A failed pod-group cycle sends the group to backoff and it is tried again without any cluster
  event. As in v1.37 the backoff (1 s doubling, capped at 10 s times the square root of the number
  of queued members) ends on a whole second: entities come back in one-second windows, and the
  entities of one window are taken in queue order. A single pod that does not fit goes to the
  unschedulable pool and waits for a cluster event (a node added or changed, a bound pod deleted)
  or five minutes.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Iterable

from reference_scheduler.backend.cache import Cache
from reference_scheduler.clock import Clock, Timer
from reference_scheduler.framework.runtime import Framework
from reference_scheduler.framework.types import POD, EntityKey
from reference_scheduler.framework.waiting_pods import WaitingPods
from reference_scheduler.model import Pod

INITIAL_BACKOFF, MAX_BACKOFF = 1.0, 10.0  # upstream's podInitialBackoffDuration, podMaxBackoffDuration
#: v1.37's backoff ordering window: expiries are cut down to it, and entities leave backoff per window.
BACKOFF_WINDOW = 1
#: Upstream's podMaxInUnschedulablePodsDuration.
MAX_IN_UNSCHEDULABLE = 300.0


@dataclasses.dataclass
class QueuedEntity:
    """One entity in the queue (upstream's QueuedEntityInfo): what QueueSort orders by, and where it waits."""

    key: EntityKey
    priority: int
    timestamp: float
    attempts: int = 0
    backoff: Timer | None = None
    backoff_until: float = 0.0
    #: In the unschedulable pool since then; None when not there.
    unschedulable_since: float | None = None
    #: The PreEnqueue plugin that holds the entity (the gated pool); only an event whose
    #: queueing hint from that plugin says Queue lets it be tried again.
    gated_by: str | None = None


class SchedulingQueue:
    def __init__(self, clock: Clock, framework: Framework, cache: Cache, waiting_pods: WaitingPods,
                 scheduler_names: frozenset[str]) -> None:
        self.clock, self.framework, self.cache = clock, framework, cache
        self.waiting_pods, self.scheduler_names = waiting_pods, scheduler_names
        self.entities: dict[EntityKey, QueuedEntity] = {}

    def get(self, key: EntityKey) -> QueuedEntity | None:
        return self.entities.get(key)

    def add(self, pod: Pod) -> QueuedEntity:
        """Queue the entity ``pod`` is scheduled as, if it is not queued yet."""
        key = EntityKey.of(pod)
        entity = self.entities.get(key)
        if entity is None:
            group = self.cache.groups.get(pod.group_key) if pod.group_key else None
            entity = self.entities[key] = QueuedEntity(key, group.priority if group else pod.priority, self.clock.now())
        return entity

    def delete_if_empty(self, pod: Pod | None) -> None:
        """Drop the entity of a pod that went away if no member of it is pending any more."""
        if pod is None:
            return
        key = EntityKey.of(pod)
        if key in self.entities and not self.pending_members(key):
            entity = self.entities.pop(key)
            if entity.backoff is not None:
                entity.backoff.cancel()

    def pending_members(self, key: EntityKey) -> list[Pod]:
        """The entity's members that still need a node, in the order a cycle tries them."""
        if key.type == POD:
            pod = self.cache.pods.get(key.key)
            pods = [pod] if pod else []
        else:
            pods = self.cache.members(key.key)
        assumed, waiting, names = self.cache.assumed, self.waiting_pods, self.scheduler_names
        pending = [p for p in pods if not p.node_name and p.key not in assumed and p.key not in waiting
                   and p.scheduler_name in names and p.active]
        arrival = self.cache.arrival
        return sorted(pending, key=lambda p: (-p.priority, p.created, arrival(p.key), p.name))

    def move_gated_on_event(self, resource: str, action: str, old, new) -> None:
        """A cluster event: let the gated entities whose gating plugin's hint says Queue be tried again."""
        hints_by_plugin = self.framework.queueing_hints
        for key, entity in self.entities.items():
            if entity.gated_by is None:
                continue
            hints = hints_by_plugin.get(entity.gated_by, {}).get((resource, action))
            if not hints:
                continue
            pods = self.pending_members(key)
            # A group's hints judge the group, so one member speaks for all; a pod update concerns that pod.
            candidates = pods if resource == "Pod" else pods[:1]
            if any(hint(pod, old, new) for hint in hints for pod in candidates):
                entity.gated_by = None

    def pop(self) -> QueuedEntity | None:
        """The first entity in queue order that may be tried now; those after it wait for a later pop."""
        return next((entity for entity in self._candidates() if self._admit(entity)), None)

    def _candidates(self) -> list[QueuedEntity]:
        """Entities neither gated, unschedulable nor backing off, in queue order (whether they have a
        member to try and pass PreEnqueue is :meth:`_admit`'s question)."""
        now = self.clock.now()
        candidates = []
        for entity in self.entities.values():
            if entity.gated_by is not None:
                continue
            if entity.unschedulable_since is not None:
                if now - entity.unschedulable_since < MAX_IN_UNSCHEDULABLE:
                    continue
                entity.unschedulable_since = None
            if entity.backoff_until > now:
                continue
            candidates.append(entity)
        return sorted(candidates, key=self.framework.queue_sort_key)

    def _admit(self, entity: QueuedEntity) -> bool:
        """Whether ``entity`` has members to try and they pass PreEnqueue; if not, it is gated by
        the plugin that refused."""
        pods = self.pending_members(entity.key)
        if not pods:
            return False
        gate = self.framework.run_pre_enqueue_plugins(pods)
        if not gate.ok:
            entity.gated_by = gate.plugin
            return False
        return True

    def add_unschedulable(self, entity: QueuedEntity) -> None:
        """Into the unschedulable pool: back on a cluster event (or after five minutes)."""
        entity.unschedulable_since = self.clock.now()

    def set_priority(self, key: EntityKey, priority: int) -> None:
        """A PodGroup's priority changed: its entity is ordered by the new one."""
        entity = self.entities.get(key)
        if entity is not None:
            entity.priority = priority

    def activate(self, pods: Iterable[Pod]) -> None:
        """Move the entities of ``pods`` from the unschedulable pool to the active queue (PodActivator)."""
        self.activate_entities({EntityKey.of(pod) for pod in pods})

    def activate_entities(self, keys: Iterable[EntityKey]) -> None:
        for key in keys:
            entity = self.entities.get(key)
            if entity is not None:
                entity.unschedulable_since = None

    def move_all_to_active(self) -> None:
        """Every entity leaves the unschedulable pool (a node was added or changed, room was freed)."""
        for entity in self.entities.values():
            entity.unschedulable_since = None

    def back_off(self, entity: QueuedEntity, size: int = 1) -> None:
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
