"""GangScheduling: the quorum gate, the placement check and the Permit barrier of v1.37.

* PreEnqueue: a member of a gang PodGroup enters the queue only when the PodGroup exists and
  at least ``minCount`` members exist (scheduled ones included). Basic groups pass once the
  PodGroup exists.
* PlacementFeasible: during a pod-group cycle, ``scheduled + remaining < minCount`` ends the
  cycle as Unschedulable; ``scheduled < minCount`` is Wait ("not yet satisfied").
* Permit: a gang member waits (5 minutes at most, a fixed timeout) until the group has
  ``minCount`` members assumed or bound; the member that completes the count allows the others.
  While it waits it activates the group's unscheduled members.

The plugin reads group state through a :class:`GroupHandle`, which the scheduler provides.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

from reference_scheduler.framework import Code, Status
from reference_scheduler.framework.interface import ClusterEventWithHint
from reference_scheduler.model import Pod, PodGroup

NAME = "GangScheduling"
#: Upstream's ``permitTimeoutDuration``: fixed, not configurable.
PERMIT_TIMEOUT_SECONDS = 5 * 60

WAITING_FOR_QUORUM = "waiting for minCount pods from a gang to appear in scheduling queue"
WAITING_AT_PERMIT = "waiting for minCount pods from a gang to be scheduled"


def waiting_for_pod_group(name: str) -> str:
    # "pods's" is v1.37's spelling.
    return f'waiting for pods\'s pod group "{name}" to appear in scheduling queue'


def cannot_be_satisfied(min_count: int, scheduled: int, remaining: int) -> str:
    return f"minCount ({min_count}) cannot be satisfied: {scheduled} scheduled, {remaining} remaining"


def not_yet_satisfied(min_count: int, scheduled: int, remaining: int) -> str:
    return f"minCount ({min_count}) is not yet satisfied: {scheduled} scheduled, {remaining} remaining"


@dataclasses.dataclass(frozen=True)
class GroupState:
    """What the scheduler knows of one PodGroup's members right now."""

    all_pods: int
    #: Members assumed (placed in this scheduler's memory, not yet bound) or bound.
    scheduled: int
    assumed: tuple[Pod, ...] = ()
    unscheduled: tuple[Pod, ...] = ()


class GroupHandle(Protocol):
    def pod_group(self, namespace: str, name: str) -> PodGroup | None: ...

    def group_state(self, namespace: str, name: str) -> GroupState: ...

    def activate(self, pods: tuple[Pod, ...]) -> None: ...

    def allow_waiting(self, pod: Pod, plugin: str) -> None: ...


@dataclasses.dataclass(frozen=True)
class PlacementProgress:
    scheduled: int
    remaining: int


class GangScheduling:
    name = NAME

    def __init__(self, handle: GroupHandle):
        self.handle = handle

    def pre_enqueue(self, pod: Pod) -> Status:
        if pod.pod_group is None:
            return Status.success()
        group = self.handle.pod_group(pod.namespace, pod.pod_group)
        if group is None:
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, waiting_for_pod_group(pod.pod_group), plugin=NAME)
        if not group.is_gang:
            return Status.success()
        if self.handle.group_state(pod.namespace, pod.pod_group).all_pods < group.min_count:
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, WAITING_FOR_QUORUM, plugin=NAME)
        return Status.success()

    def placement_feasible(self, state: Any, group: PodGroup, scheduled: int, remaining: int) -> Status:
        quorum = group.quorum
        if scheduled + remaining < quorum:
            return Status.of(Code.UNSCHEDULABLE, cannot_be_satisfied(quorum, scheduled, remaining), plugin=NAME)
        if scheduled < quorum:
            return Status.of(Code.WAIT, not_yet_satisfied(quorum, scheduled, remaining), plugin=NAME)
        return Status.success()

    def permit(self, state: Any, pod: Pod, node_name: str) -> tuple[Status, float]:
        if pod.pod_group is None:
            return Status.success(), 0
        group = self.handle.pod_group(pod.namespace, pod.pod_group)
        if group is None:
            return Status.as_error(f"failed to get podGroup {pod.namespace}/{pod.pod_group}: not found",
                                   plugin=NAME), 0
        if not group.is_gang:
            return Status.success(), 0
        members = self.handle.group_state(pod.namespace, pod.pod_group)
        if members.scheduled < group.min_count:
            self.handle.activate(members.unscheduled)
            return Status.of(Code.WAIT, WAITING_AT_PERMIT, plugin=NAME), PERMIT_TIMEOUT_SECONDS
        for waiting in members.assumed:
            self.handle.allow_waiting(waiting, NAME)
        return Status.success(), 0

    def events_to_register(self) -> list[ClusterEventWithHint]:
        def same_group(pod: Pod, old: Any, new: Any) -> bool:
            return isinstance(new, Pod) and new.group_key == pod.group_key

        def group_added(pod: Pod, old: Any, new: Any) -> bool:
            return isinstance(new, PodGroup) and new.key == pod.group_key

        def min_count_decreased(pod: Pod, old: Any, new: Any) -> bool:
            if not (isinstance(new, PodGroup) and new.key == pod.group_key):
                return False
            if old is None or not old.is_gang or not new.is_gang:
                return True  # v1.37 queues (and logs) when either side is not a gang
            return new.min_count < old.min_count

        return [
            ClusterEventWithHint("UnscheduledPod", "Add", same_group),
            ClusterEventWithHint("AssignedPod", "Add", same_group),
            ClusterEventWithHint("PodGroup", "Add", group_added),
            ClusterEventWithHint("PodGroup", "Update", min_count_decreased),
        ]
