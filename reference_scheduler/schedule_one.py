"""The pod cycle: a pod without a group from the queue to its binding, and the hand-over every placed pod goes through.

Mirrors pkg/scheduler/schedule_one.go: ``scheduleOnePod`` (:meth:`PodCycle.schedule_one_pod`),
``schedulePod`` with ``findNodesThatFitPod`` and ``prioritizeNodes`` (:meth:`PodCycle.schedule_pod`),
``assumeAndReserve``, the binding cycle (Permit, PreBind, Bind, PostBind) and
``handleBindingCycleError``. The pod-group cycle places its members with :meth:`PodCycle.schedule_pod`
and hands them over with :meth:`PodCycle.assume_and_reserve` and :meth:`PodCycle.permit_and_bind`.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from reference_scheduler.backend.queue import QueuedEntity
from reference_scheduler.backend.snapshot import Snapshot
from reference_scheduler.framework import Code, Status
from reference_scheduler.framework.cycle_state import CycleState
from reference_scheduler.framework.status import fit_error
from reference_scheduler.framework.types import EntityKey
from reference_scheduler.framework.waiting_pods import WaitingPod
from reference_scheduler.model import Pod

if TYPE_CHECKING:
    from reference_scheduler.scheduler import Scheduler


@dataclasses.dataclass
class ScheduleResult:
    """Where the pod goes and why the other nodes do not fit (upstream's ScheduleResult and Diagnosis)."""

    node: str | None
    #: Per node that was not chosen: why it does not fit (the Filter verdict, or PreFilter's).
    statuses: dict[str, Status]
    #: PreFilter refused the pod on every node: its message (the FitError shows it alone).
    pre_filter_msg: str = ""
    #: A plugin failed with an error (PreScore, Score): the cycle fails with it.
    error: Status | None = None


class PodCycle:
    def __init__(self, sched: Scheduler) -> None:
        self.sched = sched

    def snapshot_for(self, pods: list[Pod]) -> Snapshot:
        """The nodes as a cycle for ``pods`` sees them: what is bound or assumed, plus the pods other
        preemptors of at least the same priority are nominated to (and the handle's lister shows it)."""
        sched = self.sched
        snapshot = sched.cache.snapshot(arrays=sched.framework.batch_filter_score is not None)
        sched.nominator.add_nominated_pods(snapshot, sched.cache.pods, pods)
        sched.handle.set_snapshot(snapshot)
        return snapshot

    def schedule_one_pod(self, entity: QueuedEntity) -> None:
        sched = self.sched
        (pod,) = sched.queue.pending_members(entity.key)
        sched.nominator.delete(pod.key)
        state = CycleState()
        snapshot = self.snapshot_for([pod])
        result = self.schedule_pod(state, pod, snapshot)
        if result.error is not None:
            sched.writer.pod_unschedulable(pod, "SchedulerError", result.error.message())
            sched.queue.back_off(entity)
            return
        if result.node is None:
            # PostFilter (preemption) may free a node for the next attempt; its reasons follow the FitError.
            message = fit_error(len(snapshot), result.statuses, result.pre_filter_msg)
            nominated, post = sched.framework.run_post_filter_plugins(state, pod, result.statuses)
            if post.reasons:
                message = f"{message} {post.message()}"
            if nominated is not None:
                sched.nominator.add(pod, nominated.nominated_node_name)
                sched.writer.nominate(pod, nominated.nominated_node_name)
            sched.writer.pod_unschedulable(pod, "Unschedulable", message)
            if nominated is not None:
                sched.queue.back_off(entity)  # victims are on their way out: try again soon
            else:
                sched.queue.add_unschedulable(entity)
            return
        if not self.assume_and_reserve(state, pod, result.node):
            sched.queue.back_off(entity)
            return
        permit = self.permit_and_bind(state, pod, result.node)
        if not permit.ok and permit.code is not Code.WAIT:
            sched.queue.back_off(entity)

    def schedule_pod(self, state: CycleState, pod: Pod, snapshot: Snapshot,
                     allowed: frozenset[str] | None = None) -> ScheduleResult:
        """The best node for ``pod`` (among ``allowed``, a placement, if given) and why the others fail.

        PreFilter, then Filter (the signing plugins' verdicts shared per signature, the others node
        by node, or all nodes at once by a BatchFilterScore plugin), PreScore and Score; the highest
        total wins, the first in node order on a tie.
        """
        framework = self.sched.framework
        narrowed, status, narrowed_by = framework.run_pre_filter_plugins(state, pod, snapshot)
        if not status.ok:
            if not status.rejected:
                return ScheduleResult(None, {}, error=status)
            return ScheduleResult(None, {name: status for name in (snapshot if allowed is None else allowed)},
                                  pre_filter_msg=status.message())
        passing, failed = framework.run_signed_filter_plugins(state, pod, snapshot)
        if allowed is not None:
            passing = [name for name in passing if name in allowed]
            failed = {name: s for name, s in failed.items() if name in allowed}
        statuses: dict[str, Status] = dict(failed)
        if narrowed is not None:
            outside = Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                f"node(s) didn't satisfy plugin(s) [{' '.join(narrowed_by)}]")
            statuses.update((name, outside) for name in passing if name not in narrowed)
            passing = [name for name in passing if name in narrowed]
        batch = framework.batch_filter_score
        if batch is not None and batch.name not in state.skip_filter_plugins:
            found = batch.filter_and_score_all(state, pod, snapshot, passing)
            if found is not None:
                statuses.update(found[1])
                return ScheduleResult(found[0], statuses)
        filters = framework.unsigned_filters
        feasible = []
        for name in passing:
            info = snapshot[name]
            verdict = framework.run_filter_plugins(state, pod, info, filters)
            if verdict.ok:
                feasible.append(info)
            else:
                statuses[name] = verdict
        if not feasible:
            return ScheduleResult(None, statuses)
        status = framework.run_pre_score_plugins(state, pod, feasible)
        if not status.ok:
            return ScheduleResult(None, statuses, error=status)
        totals, status = framework.run_score_plugins(state, pod, feasible)
        if not status.ok:
            return ScheduleResult(None, statuses, error=status)
        best = max(range(len(feasible)), key=lambda i: (totals[i], -i))
        return ScheduleResult(feasible[best].name, statuses)

    # -- the hand-over: assume, Reserve, Permit, binding ----------------------------------------------------

    def assume_and_reserve(self, state: CycleState, pod: Pod, node: str) -> bool:
        """Assume the pod on ``node`` and run Reserve. On a Reserve failure the pod is unreserved,
        forgotten and told why (its fit error when rejected, the error itself otherwise), and False
        is returned: the caller decides when it is retried."""
        sched = self.sched
        sched.cache.assume_pod(pod, node)
        reserved = sched.framework.run_reserve_plugins_reserve(state, pod, node)
        if reserved.ok:
            return True
        self.unreserve_and_forget(state, pod, node)
        sched.writer.pod_unschedulable(pod, "Unschedulable" if reserved.rejected else "SchedulerError",
                                       fit_error(1, {node: reserved}) if reserved.rejected else reserved.message())
        return False

    def unreserve_and_forget(self, state: CycleState, pod: Pod, node: str) -> None:
        self.sched.framework.run_reserve_plugins_unreserve(state, pod, node)
        self.sched.cache.forget_pod(pod)

    def permit_and_bind(self, state: CycleState, pod: Pod, node: str) -> Status:
        """Permit, then (at once, or when every waiting plugin allows it) the binding cycle.

        A rejected pod is unreserved, forgotten and told why; the Permit verdict is returned.
        """
        sched = self.sched
        waits, permit = sched.framework.run_permit_plugins(state, pod, node)
        if permit.code is Code.WAIT:
            sched.waiting_pods.add(pod, node, state, waits, self._permit_done)
        elif permit.ok:
            self.binding_cycle(state, pod, node)
        else:
            self.unreserve_and_forget(state, pod, node)
            sched.writer.pod_unschedulable(pod, "Unschedulable", permit.message())
        return permit

    def _permit_done(self, waiting: WaitingPod, status: Status) -> None:
        """A waiting pod was allowed (bind it) or rejected, e.g. at its timeout (v1.37's message: a
        FitError over its one node). A rejected pod loses its nomination and goes back to the queue,
        where the quorum gate holds its group again if fewer than minCount members are left."""
        if status.ok:
            self.binding_cycle(waiting.state, waiting.pod, waiting.node)
            return
        sched, pod = self.sched, waiting.pod
        self.unreserve_and_forget(waiting.state, pod, waiting.node)
        sched.writer.nominate(pod, "")
        sched.writer.pod_unschedulable(pod, "Unschedulable", fit_error(1, {waiting.node: status}))
        # Back to the queue with its group (whose entry may be gone if no other member was pending).
        sched.queue.back_off(sched.queue.add(pod))

    def binding_cycle(self, state: CycleState, pod: Pod, node: str) -> None:
        """PreBind, Bind (handed to the writer, which may bind later and report a failure through
        :meth:`handle_binding_failure`, as upstream's binding goroutines do), PostBind."""
        framework = self.sched.framework
        status = framework.run_pre_bind_plugins(state, pod, node)
        if status.ok:
            status = framework.run_bind_plugins(state, pod, node)
        if not status.ok:
            self.handle_binding_failure(pod.key, node, status.message(), state)
            return
        framework.run_post_bind_plugins(state, pod, node)

    def handle_binding_failure(self, pod_key: str, node: str, message: str, state: CycleState | None = None) -> None:
        """The binding of an assumed pod failed: forget the assumption and retry after backoff.

        A failure the writer reports later comes without the cycle's state (the cycle has ended):
        Unreserve then gets a new one.
        """
        sched = self.sched
        pod = sched.cache.pods.get(pod_key)
        if pod is None or sched.cache.assumed.get(pod_key) != node:
            return  # deleted meanwhile, or already confirmed elsewhere by the informer
        self.unreserve_and_forget(state or CycleState(), pod, node)
        sched.writer.pod_unschedulable(pod, "SchedulerError", message)
        entity = sched.queue.get(EntityKey.of(pod))
        if entity is not None:
            sched.queue.back_off(entity)
