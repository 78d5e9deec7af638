"""The Writer protocol: what the scheduler's core asks of the API server.

Mirrors kube-scheduler's API dispatcher (``fwk.APIDispatcher``, backend/api_dispatcher): the
calls a scheduler makes. The runner's :class:`~reference_scheduler.runner.api_writer.ApiWriter`
makes them against a real API server; the unit tests' fake records them.
"""

from __future__ import annotations

from typing import Protocol

from reference_scheduler.framework.status import Status
from reference_scheduler.model import Pod, PodGroup


class Writer(Protocol):
    def bind(self, pod: Pod, node: str) -> Status:
        """Bind ``pod`` to ``node``, now or later; a later failure comes back through
        :meth:`~reference_scheduler.scheduler.Scheduler.binding_failed`."""

    def pod_unschedulable(self, pod: Pod, reason: str, message: str) -> None:
        """Set the pod's ``PodScheduled=False`` condition and record a FailedScheduling event."""

    def group_condition(self, group: PodGroup, status: bool, reason: str, message: str) -> None:
        """Set the PodGroup's ``PodGroupInitiallyScheduled`` condition."""

    def preempt(self, victim: Pod, message: str) -> None:
        """Mark ``victim`` with DisruptionTarget (``message``) and delete it."""

    def group_disrupted(self, group: PodGroup, message: str) -> None:
        """Mark the PodGroup with DisruptionTarget (``message``): it is preempted as a whole."""

    def nominate(self, pod: Pod, node: str) -> None:
        """Record ``node`` as the pod's nominated node (``status.nominatedNodeName``); empty clears it."""
