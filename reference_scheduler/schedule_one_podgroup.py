"""The pod-group cycle and the tree cycle: one PodGroup (or CompositePodGroup tree) all or nothing.

Mirrors pkg/scheduler/schedule_one_podgroup.go: ``scheduleOnePodGroup``
(:meth:`PodGroupCycle.schedule_one_pod_group`), ``validatePodGroup``, the algorithms
(``podGroupSchedulingAlgorithm``, ``podGroupSchedulingDefaultAlgorithm``,
``podGroupSchedulingPlacementAlgorithm``, ``compositePodGroupScheduling*Algorithm``, in
:class:`PodGroupAlgorithms`), ``submitPodGroupAlgorithmResult`` and ``updatePodGroupCondition``.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Callable

from reference_scheduler.backend.queue import QueuedEntity
from reference_scheduler.backend.snapshot import Snapshot
from reference_scheduler.framework import Code, Status
from reference_scheduler.framework.cycle_state import CycleState
from reference_scheduler.framework.status import fit_error
from reference_scheduler.framework.types import EntityKey, Placement, PlacementProgress, PodGroupAssignments, PodGroupInfo
from reference_scheduler.model import CompositePodGroup, Pod, PodGroup

if TYPE_CHECKING:
    from reference_scheduler.scheduler import Scheduler

#: The error v1.37 wraps a failed pod-group cycle's status around (errPodGroupUnschedulable).
POD_GROUP_UNSCHEDULABLE = "pod group is unschedulable"


def placements_unavailable(total: int, first: str) -> str:
    """The group's message when no candidate placement is feasible (v1.37 reports the first one's)."""
    return f"0/{total} placements are available, first placement status: {first}"


@dataclasses.dataclass
class PodGroupAlgorithmResult:
    """What the pod-group algorithm made of one group (or tree node) in one cycle (podGroupAlgorithmResult)."""

    status: Status
    placed: list[tuple[Pod, str]] = dataclasses.field(default_factory=list)
    misfits: dict[str, str] = dataclasses.field(default_factory=dict)
    #: Keys of the pods the algorithm tried (placed or not) before it ended.
    tried: set[str] = dataclasses.field(default_factory=set)
    #: The cycle's snapshot with this result's placements added (successful results only).
    snapshot: Snapshot | None = None
    #: The cycle state of each placed pod, handed over with it to Permit and binding.
    states: dict[str, CycleState] = dataclasses.field(default_factory=dict)

    def error_text(self) -> str:
        """Upstream's ``AsError()`` text of the status: "pod group is unschedulable" where v1.37
        wraps the status around that error, else the status's own message."""
        return self.status.as_error_text()


def _unschedulable_if_waiting(status: Status) -> Status:
    """A Wait of PlacementFeasible left at the end of an algorithm fails it, wrapped around
    "pod group is unschedulable"."""
    if status.code is not Code.WAIT:
        return status
    return Status.of(Code.UNSCHEDULABLE, *status.reasons, plugin=status.plugin).with_error(POD_GROUP_UNSCHEDULABLE)


class PodGroupAlgorithms:
    """The pod-group algorithms: where each member of a group (or each child of a tree) goes, on a fork
    of the cycle's snapshot, with trial Reserves reverted at the end."""

    def __init__(self, sched: Scheduler) -> None:
        self.sched = sched

    def pod_group_scheduling_algorithm(self, state: CycleState, group: PodGroup, pods: list[Pod], snapshot: Snapshot,
                                       allowed: frozenset[str] | None = None) -> PodGroupAlgorithmResult:
        """The algorithm for one PodGroup.

        Without TopologyAwareWorkloadScheduling: the default algorithm over every node (or
        ``allowed``). With it: the placement algorithm (GANG-TAS-001), which runs the default
        one per candidate placement and keeps the best feasible; when none is, the group's
        message is ``0/<n> placements are available, first placement status: ...``.
        """
        if not self.sched.features.topology_aware_workload_scheduling:
            return self.pod_group_default_algorithm(state, group, pods, snapshot, allowed)

        def attempt(nodes: frozenset[str]) -> tuple[PodGroupAlgorithmResult, list[tuple[Pod, str]], None]:
            result = self.pod_group_default_algorithm(state, group, pods, snapshot, nodes)
            return result, result.placed, None

        info = PodGroupInfo(group, tuple(pods), (group,))
        return self.placement_algorithm(state, info, allowed, snapshot, attempt)[0]

    def placement_algorithm(self, state: CycleState, group: PodGroupInfo, allowed: frozenset[str] | None,
                            snapshot: Snapshot, attempt: Callable) -> tuple[PodGroupAlgorithmResult, object]:
        """PlacementGenerate, ``attempt(nodes)`` on each candidate placement, PlacementScore on the feasible ones.

        ``attempt`` returns the result, the pods it would place with their nodes, and what the
        caller wants back with the chosen result (a CompositePodGroup's results per child). When
        no placement is feasible, the first one's payload comes back with the ``0/<n> placements``
        verdict. Upstream breaks ties between the best at random; the reference takes the first in
        domain order, which is one of the outcomes random allows.
        """
        framework = self.sched.framework
        parent = Placement("", allowed if allowed is not None else frozenset(snapshot))
        placements, status = framework.run_placement_generate_plugins(state, group, parent)
        if not status.ok:
            return PodGroupAlgorithmResult(status), None
        first: tuple[PodGroupAlgorithmResult, object] | None = None
        feasible = []
        for placement in placements:
            result, proposed, payload = attempt(placement.nodes)
            if result.status.code is Code.ERROR:
                return result, payload
            first = first or (result, payload)
            if result.status.ok:
                feasible.append((PodGroupAssignments(placement, tuple(proposed),
                                                     tuple(snapshot[n] for n in placement.nodes)), result, payload))
        if not feasible:
            # v1.37.2 reports the first candidate's attempt, members and all, under a verdict
            # wrapped around "pod group is unschedulable".
            result, payload = first
            failed = Status.of(Code.UNSCHEDULABLE, placements_unavailable(len(placements), result.error_text()))
            return PodGroupAlgorithmResult(failed.with_error(POD_GROUP_UNSCHEDULABLE), misfits=result.misfits,
                                           tried=result.tried), payload
        best = 0
        if len(feasible) > 1:
            totals, status = framework.run_placement_score_plugins(state, group, [a for a, _, _ in feasible])
            if not status.ok:
                return PodGroupAlgorithmResult(status), None
            best = max(range(len(totals)), key=lambda i: (totals[i], -i))
        _, result, payload = feasible[best]
        return result, payload

    def pod_group_default_algorithm(self, state: CycleState, group: PodGroup, pods: list[Pod], snapshot: Snapshot,
                                    allowed: frozenset[str] | None) -> PodGroupAlgorithmResult:
        """The default pod-group algorithm (GANG-CYCLE-001) on a fork of ``snapshot``.

        PlacementFeasible runs before the first pod and after each one; Unschedulable ends the
        loop early, a Wait left at the end becomes Unschedulable. Each pod gets a cycle state of
        its own in the pod-group cycle; its Reserve is a trial, reverted at the end. The result
        holds the placements and each misfit's own fit error.
        """
        framework, pod_cycle = self.sched.framework, self.sched.pod_cycle
        snapshot = snapshot.fork()
        scheduled = self.sched.pod_group_manager.state(group.namespace, group.name).scheduled
        remaining = len(pods)
        placement_state = CycleState(pod_group_cycle_state=state)
        result = PodGroupAlgorithmResult(framework.run_placement_feasible_plugins(
            placement_state, group, PlacementProgress(scheduled, remaining)))
        if result.status.code is Code.UNSCHEDULABLE:
            result.status = result.status.with_error(POD_GROUP_UNSCHEDULABLE)  # v1.37 wraps the first check's verdict
            return result
        reserved: list[tuple[Pod, str, CycleState]] = []
        for pod in pods:
            pod_state = CycleState(pod_group_cycle_state=state)
            found = pod_cycle.schedule_pod(pod_state, pod, snapshot, allowed)
            remaining -= 1
            result.tried.add(pod.key)
            if found.error is not None:
                result.misfits[pod.key] = found.error.as_error_text()
            elif found.node is None:
                result.misfits[pod.key] = fit_error(len(snapshot) if allowed is None else len(allowed),
                                                    found.statuses, found.pre_filter_msg)
            else:
                node = found.node
                status = framework.run_reserve_plugins_reserve(pod_state, pod, node)
                if not status.ok:
                    framework.run_reserve_plugins_unreserve(pod_state, pod, node)
                    result.misfits[pod.key] = fit_error(1, {node: status})
                else:
                    reserved.append((pod, node, pod_state))
                    snapshot.writable(node).add(pod)
                    result.placed.append((pod, node))
                    result.states[pod.key] = pod_state
                    scheduled += 1
            result.status = framework.run_placement_feasible_plugins(
                placement_state, group, PlacementProgress(scheduled, remaining))
            if result.status.code is Code.UNSCHEDULABLE:
                break  # PlacementFeasible ended the cycle early
        result.status = _unschedulable_if_waiting(result.status)
        for pod, node, pod_state in reserved:
            framework.run_reserve_plugins_unreserve(pod_state, pod, node)
        if result.status.ok:
            result.snapshot = snapshot
        else:
            result.placed = []
        return result

    # -- CompositePodGroup trees ---------------------------------------------------------------------------

    def composite_placement_algorithm(self, state: CycleState, cpg: CompositePodGroup, snapshot: Snapshot,
                                      allowed: frozenset[str] | None, pending: dict[str, list[Pod]],
                                      results: dict[str, PodGroupAlgorithmResult]) -> PodGroupAlgorithmResult:
        """The placement algorithm for a CompositePodGroup (always used for one, as in v1.37)."""
        leaves = self.sched.forest.leaves(cpg.key)

        def attempt(nodes: frozenset[str]) -> tuple[PodGroupAlgorithmResult, list[tuple[Pod, str]], dict]:
            subtree: dict[str, PodGroupAlgorithmResult] = {}
            result = self.composite_default_algorithm(state, cpg, snapshot, nodes, pending, subtree)
            proposed = [placed for leaf in leaves if leaf.key in subtree for placed in subtree[leaf.key].placed]
            return result, proposed, subtree

        result, subtree = self.placement_algorithm(state, PodGroupInfo(cpg, (), tuple(leaves)), allowed, snapshot, attempt)
        results.update(subtree or {})
        results[cpg.key] = result
        return result

    def composite_default_algorithm(self, state: CycleState, cpg: CompositePodGroup, snapshot: Snapshot,
                                    allowed: frozenset[str], pending: dict[str, list[Pod]],
                                    results: dict[str, PodGroupAlgorithmResult]) -> PodGroupAlgorithmResult:
        """Children in order, PlacementFeasible before them and after each, counting satisfied children."""
        framework = self.sched.framework
        children = self.sched.forest.children(cpg.key)
        scheduled, remaining = 0, len(children)
        placement_state = CycleState(pod_group_cycle_state=state)
        result = PodGroupAlgorithmResult(framework.run_placement_feasible_plugins(
            placement_state, cpg, PlacementProgress(scheduled, remaining)))
        if result.status.code is not Code.UNSCHEDULABLE:
            for child in children:
                if isinstance(child, CompositePodGroup):
                    child_result = self.composite_placement_algorithm(state, child, snapshot, allowed, pending, results)
                else:
                    child_result = results[child.key] = self.pod_group_scheduling_algorithm(
                        state, child, pending.get(child.key, []), snapshot, allowed)
                if child_result.status.code is Code.ERROR:
                    result.status = Status.as_error(
                        f"composite pod group evaluation failed due to child error: {child_result.error_text()}")
                    break
                remaining -= 1
                if child_result.status.ok:
                    scheduled += 1
                    snapshot = child_result.snapshot
                result.status = framework.run_placement_feasible_plugins(
                    placement_state, cpg, PlacementProgress(scheduled, remaining))
                if result.status.code is Code.UNSCHEDULABLE:
                    break
        result.status = _unschedulable_if_waiting(result.status)
        if result.status.ok:
            result.snapshot = snapshot
        results[cpg.key] = result
        return result


class PodGroupCycle:
    """One cycle for one PodGroup entity (or the tree it is a leaf of): validate, run the algorithm,
    PodGroupPostFilter on failure, submit the result."""

    def __init__(self, sched: Scheduler) -> None:
        self.sched = sched
        self.algorithms = PodGroupAlgorithms(sched)

    def schedule_one_pod_group(self, entity: QueuedEntity) -> None:
        sched = self.sched
        group = sched.cache.groups[entity.key.key]
        root = sched.forest.tree_root(group)
        if root is not None:
            self.schedule_one_tree(root)
            return
        pods = sched.queue.pending_members(entity.key)
        error = self.validate_pod_group(group, pods)
        if error is not None:
            for pod in pods:
                sched.writer.pod_unschedulable(pod, "SchedulerError", error)
            self.update_pod_group_condition(group, False, "SchedulerError", error)
            sched.queue.back_off(entity, len(pods))
            return

        sched.nominator.delete_all(pods)
        snapshot = sched.pod_cycle.snapshot_for(pods)
        state = CycleState()
        result = self.algorithms.pod_group_scheduling_algorithm(state, group, pods, snapshot)
        if result.status.ok and result.placed:
            self.submit_success(group, pods, result)
            entity.attempts = 0
            return
        if result.status.ok:  # nothing new placed counts as a failure, wrapped around the bare error
            result.status = Status.of(Code.UNSCHEDULABLE).with_error(POD_GROUP_UNSCHEDULABLE)

        # The group failed: nothing is bound; every member says why. Members the cycle never
        # tried carry the group's verdict as it was before PodGroupPostFilter ran; the PodGroup
        # and the members that fit carry it with the post-filter outcome appended.
        verdict = result.status.message()
        post = self.pod_group_post_filter(state, group, pods)
        message = f"{verdict}, {post.message()}" if post.message() else verdict
        self.submit_failure(group, pods, result, message, untried=verdict, waiting=post.ok)
        sched.queue.back_off(entity, len(pods))

    def pod_group_post_filter(self, state: CycleState, group: PodGroup, pods: list[Pod]) -> Status:
        """PodGroupPostFilter (DynamicResources, then DefaultPreemption in the in-tree profile); the
        members it nominates are recorded. The plugins may try the group's algorithm on other
        snapshots (without victims), with this cycle's state."""
        sched = self.sched

        def schedule(trial: Snapshot) -> tuple[list[tuple[Pod, str]], str]:
            result = self.algorithms.pod_group_scheduling_algorithm(state, group, pods, trial)
            if result.status.ok and result.placed:
                return result.placed, ""
            return [], result.status.message() or POD_GROUP_UNSCHEDULABLE

        found, status = sched.framework.run_pod_group_post_filter_plugins(
            state, PodGroupInfo(group, tuple(pods), (group,)), schedule)
        for pod, node in found.nominations if found is not None else ():
            sched.nominator.add(pod, node)
            sched.writer.nominate(pod, node)
        return status

    def validate_pod_group(self, group: PodGroup, pods: list[Pod]) -> str | None:
        """v1.37's validatePodGroup, member by member (the queued ones, then the scheduled ones).

        Each member must name the first queued member's scheduler, have the PodGroup's priority,
        and have the same preemption policy: the PodGroup's with PodGroupPreemptionPolicy on, else
        the first member's.
        """
        first = pods[0]
        scheduled = [p for p in self.sched.cache.members(group.key) if p.node_name and p.active]
        by_group = self.sched.features.pod_group_preemption_policy
        policy = group.preemption_policy if by_group else None
        for pod in pods + scheduled:
            if pod.scheduler_name != first.scheduler_name:
                return ("all pods in a single pod group should have the same .spec.schedulerName set, "
                        f'got: "{pod.scheduler_name}" and "{first.scheduler_name}"')
            if pod.priority != group.priority:
                return ("all pods in a single pod group should have the same priority as the pod group's priority, "
                        f"got {pod.priority} and {group.priority}")
            if by_group:
                if pod.preemption_policy != policy:
                    return ("all pods in a single pod group should have the same preemption policy as the pod "
                            f"group's preemption policy, got {pod.preemption_policy} and {policy}")
            elif policy is None:
                policy = pod.preemption_policy
            elif pod.preemption_policy != policy:
                return ("all pods in a single pod group should have the same preemption policy, "
                        f"got {pod.preemption_policy} and {policy}")
        return None

    def submit_success(self, group: PodGroup, pods: list[Pod], result: PodGroupAlgorithmResult) -> None:
        """A placed group: the condition, then each placed member through Permit to binding."""
        sched = self.sched
        self.update_pod_group_condition(group, True, "Scheduled", "")
        for pod, node in result.placed:
            # One member after the other, as v1.37 submits them: assume, Reserve, then Permit, where
            # a gang member waits until the member that completes minCount allows them all. A member
            # that fails Reserve here is not waiting: it is sent back alone and, the cycle having
            # succeeded, retried at once (v1.37 requeues it straight to the active queue).
            state = result.states[pod.key]
            state.leave_pod_group_cycle()
            if sched.pod_cycle.assume_and_reserve(state, pod, node):
                sched.pod_cycle.permit_and_bind(state, pod, node)
        # v1.37's binding cycle nominates a member that will wait at Permit to its node
        # (NominatedNodeNameForExpectation) before it waits. Here the hand-over is one synchronous
        # loop, so only the members still waiting after it are nominated: those whose wait lasts.
        for pod, node in result.placed:
            if pod.key in sched.waiting_pods:
                sched.writer.nominate(pod, node)
        for pod in pods:
            if pod.key in result.misfits:
                sched.writer.pod_unschedulable(pod, "Unschedulable", result.misfits[pod.key])

    def submit_failure(self, group: PodGroup, pods: list[Pod], result: PodGroupAlgorithmResult, message: str,
                       untried: str | None = None, *, waiting: bool = False) -> None:
        """A failed group: nothing is bound; each member says why, the PodGroup says ``Unschedulable``.

        A member that did not fit gives its own fit error; one that fit (or, with ``untried`` None,
        any other) gives ``pod group is unschedulable, <message>``, or ``message`` alone while the
        group waits for its victims to go (``waiting``); one the cycle never tried gives ``untried``.
        """
        writer = self.sched.writer
        for pod in pods:
            if pod.key in result.misfits:
                writer.pod_unschedulable(pod, "Unschedulable", result.misfits[pod.key])
            elif untried is None or pod.key in result.tried:
                writer.pod_unschedulable(pod, "Unschedulable", message if waiting else f"{POD_GROUP_UNSCHEDULABLE}, {message}")
            else:
                writer.pod_unschedulable(pod, "Unschedulable", untried)
        self.update_pod_group_condition(group, False, "Unschedulable", message)

    def update_pod_group_condition(self, group: PodGroup, status: bool, reason: str, message: str) -> None:
        """``PodGroupInitiallyScheduled``: written on each outcome until it is True, then never again (GANG-COND-001)."""
        groups = self.sched.cache.groups
        current = groups.get(group.key, group)
        if current.initially_scheduled:
            return
        if status:
            groups[group.key] = dataclasses.replace(current, initially_scheduled=True)
        self.sched.writer.group_condition(current, status, reason, message)

    # -- the tree cycle (CompositePodGroup) ---------------------------------------------------------------

    def schedule_one_tree(self, root_key: str) -> None:
        """One cycle for a whole CompositePodGroup tree: GANG-CPG-002.

        Children are tried in order, PlacementFeasible before them and after each, counting
        satisfied children against ``minGroupCount``. A failed CompositePodGroup takes its
        successful children down with it, so nothing in the tree binds unless the root is
        satisfied. Leaf PodGroups get their condition; CompositePodGroups get none (v1.37).
        """
        sched = self.sched
        root = sched.cache.composites[root_key]
        leaves = sched.forest.leaves(root_key)
        pending = {leaf.key: sched.queue.pending_members(EntityKey.pod_group(leaf.key)) for leaf in leaves}
        everyone = [p for pods in pending.values() for p in pods]
        sched.nominator.delete_all(everyone)
        results: dict[str, PodGroupAlgorithmResult] = {}
        state = CycleState()
        result = self.algorithms.composite_placement_algorithm(
            state, root, sched.pod_cycle.snapshot_for(everyone), None, pending, results)
        if result.status.ok and not any(results[leaf.key].placed for leaf in leaves if leaf.key in results):
            # success needs at least one pod placed
            result.status = Status.of(Code.UNSCHEDULABLE).with_error(POD_GROUP_UNSCHEDULABLE)
            results[root_key] = result

        def propagate(key: str, parent: PodGroupAlgorithmResult) -> None:
            # A child its parent's failure takes down (or one the parent never tried) carries the
            # parent's verdict, and none of its members counts as tried.
            mine = results.get(key)
            if mine is None or (not parent.status.ok and mine.status.ok):
                mine = results[key] = PodGroupAlgorithmResult(parent.status)
            for child in sched.forest.children(key):
                propagate(child.key, mine)

        propagate(root_key, results[root_key])
        for leaf in leaves:
            pods = pending[leaf.key]
            leaf_result = results[leaf.key]
            entity = sched.queue.get(EntityKey.pod_group(leaf.key))
            if leaf_result.status.ok and leaf_result.placed:
                self.submit_success(leaf, pods, leaf_result)
                if entity is not None:
                    entity.attempts = 0
            elif pods:
                message = leaf_result.status.message() if not leaf_result.status.ok else POD_GROUP_UNSCHEDULABLE
                self.submit_failure(leaf, pods, leaf_result, message, untried=message)
                if entity is not None:
                    sched.queue.back_off(entity, len(everyone))  # the tree is one entity upstream
