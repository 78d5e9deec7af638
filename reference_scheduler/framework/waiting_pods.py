"""Pods held at Permit: one timer per Permit plugin that asked to wait.

Mirrors pkg/scheduler/framework/runtime/waiting_pods_map.go. A waiting pod goes on when every
plugin that made it wait has allowed it; it is rejected when any of them rejects it or when that
plugin's own timeout passes, with a message naming that plugin. Either way its ``done`` callback
is called once, with the outcome; a pod deleted while it waits is only dropped.
"""

from __future__ import annotations

from typing import Callable, Iterator

from reference_scheduler.clock import Clock, Timer
from reference_scheduler.framework.cycle_state import CycleState
from reference_scheduler.framework.status import Code, Status
from reference_scheduler.model import Pod


def permit_timeout_message(timeout: float, plugin: str) -> str:
    """Upstream's rejection of a pod whose Permit wait timed out; the wait is written as Go prints a Duration."""
    minutes, seconds = divmod(timeout, 60)
    hours, minutes = divmod(int(minutes), 60)
    text = f"{seconds:g}s"
    if minutes or hours:
        text = f"{minutes}m{text}"
    if hours:
        text = f"{hours}h{text}"
    return f"rejected due to timeout after waiting {text} at plugin {plugin}"


Done = Callable[["WaitingPod", Status], None]


class WaitingPod:
    """A pod assumed on ``node`` that waits for the Permit plugins in :attr:`pending`."""

    def __init__(self, pods: WaitingPods, pod: Pod, node: str, state: CycleState, done: Done) -> None:
        self.pod, self.node, self.state = pod, node, state
        #: Permit plugin -> the timer of its wait.
        self.pending: dict[str, Timer] = {}
        self._pods, self._done = pods, done

    def allow(self, plugin: str) -> None:
        """``plugin`` lets the pod go on; the last of the waiting plugins to allow it releases it."""
        timer = self.pending.pop(plugin, None)
        if timer is not None:
            timer.cancel()
        if not self.pending:
            self._finish(Status.success())

    def reject(self, plugin: str, message: str) -> None:
        self._finish(Status.of(Code.UNSCHEDULABLE, message, plugin=plugin))

    def _finish(self, status: Status) -> None:
        if self._pods.pop(self.pod.key) is self:
            self._done(self, status)


class WaitingPods:
    """The pods waiting at Permit, by pod key."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._pods: dict[str, WaitingPod] = {}

    def add(self, pod: Pod, node: str, state: CycleState, waits: dict[str, float], done: Done) -> WaitingPod:
        """Hold ``pod`` until every plugin of ``waits`` (plugin -> timeout in seconds) allows it."""
        waiting = self._pods[pod.key] = WaitingPod(self, pod, node, state, done)
        for plugin, timeout in waits.items():
            message = permit_timeout_message(timeout, plugin)
            waiting.pending[plugin] = self.clock.call_later(
                timeout, lambda plugin=plugin, message=message: waiting.reject(plugin, message))
        return waiting

    def get(self, pod_key: str) -> WaitingPod | None:
        return self._pods.get(pod_key)

    def pop(self, pod_key: str) -> WaitingPod | None:
        """Stop holding the pod (it was deleted, allowed or rejected): its timers are cancelled."""
        waiting = self._pods.pop(pod_key, None)
        if waiting is not None:
            for timer in waiting.pending.values():
                timer.cancel()
        return waiting

    def __contains__(self, pod_key: object) -> bool:
        return pod_key in self._pods

    def __iter__(self) -> Iterator[str]:
        return iter(self._pods)

    def __len__(self) -> int:
        return len(self._pods)
