"""DefaultBinder: the Bind plugin that writes the pod's Binding.

Mirrors pkg/scheduler/framework/plugins/defaultbinder, through the handle's API dispatcher (the
writer), which may bind later and report a failure to the scheduler's ``binding_failed``.
"""

from __future__ import annotations

from reference_scheduler.framework import Status
from reference_scheduler.framework.cycle_state import CycleState
from reference_scheduler.framework.handle import Handle
from reference_scheduler.model import Pod

NAME = "DefaultBinder"


class DefaultBinder:
    name = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        return self.handle.api_dispatcher.bind(pod, node_name)
