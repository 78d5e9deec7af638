"""SchedulingGates: a pod with scheduling gates stays out of the active queue.

Mirrors pkg/scheduler/framework/plugins/schedulinggates (PreEnqueue, EnqueueExtensions).
"""

from __future__ import annotations

from typing import Any

from reference_scheduler.framework import Code, Status
from reference_scheduler.framework.interface import ClusterEventWithHint
from reference_scheduler.model import Pod


class SchedulingGates:
    """PreEnqueue: a pod with scheduling gates stays out of the active queue."""

    name = NAME = "SchedulingGates"

    def pre_enqueue(self, pod: Pod) -> Status:
        if not pod.scheduling_gates:
            return Status.success()
        return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                         f"waiting for scheduling gates: [{' '.join(pod.scheduling_gates)}]", plugin=self.name)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        def gates_eliminated(pod: Pod, old: Any, new: Any) -> bool:
            return isinstance(new, Pod) and new.key == pod.key and not new.scheduling_gates

        return [ClusterEventWithHint("Pod", "Update", gates_eliminated)]
