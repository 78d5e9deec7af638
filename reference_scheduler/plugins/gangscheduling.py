"""GangScheduling: the quorum gate, the placement check and the Permit barrier of v1.37.

* PreEnqueue: a member of a gang PodGroup enters the queue only when the PodGroup exists and
  at least ``minCount`` members exist (scheduled ones included). Basic groups pass once the
  PodGroup exists.
* PlacementFeasible: during a pod-group cycle, ``scheduled + remaining < minCount`` ends the
  cycle as Unschedulable; ``scheduled < minCount`` is Wait ("not yet satisfied").
* Permit: a gang member waits (5 minutes at most, a fixed timeout) until the group has
  ``minCount`` members assumed or bound; the member that completes the count allows the others.
  While it waits it activates the group's unscheduled members.

With CompositePodGroup on, a PodGroup that names a parent is a leaf of a tree: PreEnqueue and
Permit then judge the whole tree from its root (a CompositePodGroup is satisfied when
``minGroupCount`` of its children are, or one child for a basic one; a leaf when it has
``minCount`` members, or one for basic), and PlacementFeasible counts satisfied children.

Mirrors pkg/scheduler/framework/plugins/gangscheduling. The plugin reads group state through the
handle's PodGroupManager and reaches the waiting pods and the queue through the handle.
"""

from __future__ import annotations

from typing import Any

from reference_scheduler.features import Features
from reference_scheduler.framework import Code, Status
from reference_scheduler.framework.cycle_state import CycleState
from reference_scheduler.framework.handle import Handle
from reference_scheduler.framework.interface import ClusterEventWithHint
from reference_scheduler.framework.types import PlacementProgress
from reference_scheduler.model import Pod, PodGroup

NAME = "GangScheduling"
#: Upstream's ``permitTimeoutDuration``: fixed, not configurable.
PERMIT_TIMEOUT_SECONDS = 5 * 60

WAITING_FOR_QUORUM = "waiting for minCount pods from a gang to appear in scheduling queue"
WAITING_AT_PERMIT = "waiting for minCount pods from a gang to be scheduled"


def waiting_for_pod_group(name: str) -> str:
    # "pods's" is v1.37's spelling.
    return f'waiting for pods\'s pod group "{name}" to appear in scheduling queue'


def waiting_for_tree(root: str) -> str:
    return f'waiting for composite pod group "{root}" tree to meet quorum'


def missing_composite(namespace: str, name: str) -> str:
    return ("failed to build hierarchy snapshot: composite pod group object not found in state for "
            f"{namespace}/{name}")


def cannot_be_satisfied(min_count: int, scheduled: int, remaining: int) -> str:
    return f"minCount ({min_count}) cannot be satisfied: {scheduled} scheduled, {remaining} remaining"


def not_yet_satisfied(min_count: int, scheduled: int, remaining: int) -> str:
    return f"minCount ({min_count}) is not yet satisfied: {scheduled} scheduled, {remaining} remaining"


class GangScheduling:
    name = NAME

    def __init__(self, handle: Handle, features: Features):
        self.handle = handle
        self.groups = handle.pod_group_manager
        #: CompositePodGroup: a PodGroup with a parent is judged with its whole tree.
        self.hierarchies = features.composite_pod_group

    def pre_enqueue(self, pod: Pod) -> Status:
        if pod.pod_group is None:
            return Status.success()
        group = self.groups.pod_group(pod.namespace, pod.pod_group)
        if group is None:
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, waiting_for_pod_group(pod.pod_group), plugin=NAME)
        if group.parent and self.hierarchies:
            root = self.groups.root_of(group)
            if root is None:
                return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, missing_composite(group.namespace, group.parent),
                                 plugin=NAME)
            if not self.groups.tree_ready(root, "all"):
                return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, waiting_for_tree(root.split("/", 1)[1]),
                                 plugin=NAME)
            return Status.success()
        if not group.is_gang:
            return Status.success()
        if self.groups.state(pod.namespace, pod.pod_group).all_pods < group.min_count:
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, WAITING_FOR_QUORUM, plugin=NAME)
        return Status.success()

    def placement_feasible(self, state: CycleState, group: Any, progress: PlacementProgress) -> Status:
        """``group`` is a PodGroup (counting pods) or a CompositePodGroup (counting satisfied children)."""
        quorum, scheduled, remaining = group.quorum, progress.scheduled, progress.remaining
        if scheduled + remaining < quorum:
            return Status.of(Code.UNSCHEDULABLE, cannot_be_satisfied(quorum, scheduled, remaining), plugin=NAME)
        if scheduled < quorum:
            return Status.of(Code.WAIT, not_yet_satisfied(quorum, scheduled, remaining), plugin=NAME)
        return Status.success()

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status, float]:
        if pod.pod_group is None:
            return Status.success(), 0
        group = self.groups.pod_group(pod.namespace, pod.pod_group)
        if group is None:
            return Status.as_error(f"failed to get podGroup {pod.namespace}/{pod.pod_group}: not found",
                                   plugin=NAME), 0
        if group.parent and self.hierarchies:
            return self._permit_in_tree(group)
        if not group.is_gang:
            return Status.success(), 0
        members = self.groups.state(pod.namespace, pod.pod_group)
        if members.scheduled < group.min_count:
            self.handle.activate(members.unscheduled)
            return Status.of(Code.WAIT, WAITING_AT_PERMIT, plugin=NAME), PERMIT_TIMEOUT_SECONDS
        self._allow(members.assumed)
        return Status.success(), 0

    def _permit_in_tree(self, group: PodGroup) -> tuple[Status, float]:
        root = self.groups.root_of(group)
        if root is None:
            return Status.as_error(missing_composite(group.namespace, group.parent), plugin=NAME), 0
        members = self.groups.tree_state(root)
        if not self.groups.tree_ready(root, "scheduled"):
            self.handle.activate(members.unscheduled)
            return Status.of(Code.WAIT, waiting_for_tree(root.split("/", 1)[1]), plugin=NAME), PERMIT_TIMEOUT_SECONDS
        self._allow(members.assumed)
        return Status.success(), 0

    def _allow(self, pods: tuple[Pod, ...]) -> None:
        """The quorum is met: let the members waiting at Permit go on (the pod asking is not waiting yet)."""
        for pod in pods:
            waiting = self.handle.get_waiting_pod(pod)
            if waiting is not None:
                waiting.allow(NAME)

    def _same_hierarchy(self, pod: Pod, group_key: str | None) -> bool:
        """Whether ``group_key`` (a PodGroup's or CompositePodGroup's) is the pod's group or, with
        CompositePodGroup on, in the same tree."""
        if group_key is None or pod.group_key is None:
            return False
        if group_key == pod.group_key:
            return True
        if not self.hierarchies:
            return False
        mine = self.groups.pod_group(pod.namespace, pod.pod_group)
        if mine is None or not mine.parent:
            return False
        root = self.groups.root_of(mine)
        if root is None:
            # The tree is incomplete: any object naming a CompositePodGroup on the way may complete it.
            return True
        return group_key == root or self.groups.in_tree(root, group_key)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        def same_group(pod: Pod, old: Any, new: Any) -> bool:
            return isinstance(new, Pod) and self._same_hierarchy(pod, new.group_key)

        def group_added(pod: Pod, old: Any, new: Any) -> bool:
            return new is not None and self._same_hierarchy(pod, new.key)

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
            ClusterEventWithHint("CompositePodGroup", "Add", group_added),
        ]
