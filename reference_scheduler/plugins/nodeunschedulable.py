"""NodeUnschedulable: a cordoned node (``spec.unschedulable``) takes no new pods.

Mirrors pkg/scheduler/framework/plugins/nodeunschedulable (its Filter; the taint toleration of
``node.kubernetes.io/unschedulable`` is not modelled).
"""

from __future__ import annotations

from typing import Any

from reference_scheduler.backend.snapshot import NodeInfo
from reference_scheduler.framework import Code, Status
from reference_scheduler.model import Pod

#: Upstream's ErrReasonUnschedulable.
ERR_REASON = "node(s) were unschedulable"


class NodeUnschedulable:
    name = NAME = "NodeUnschedulable"

    def sign_pod(self, pod: Pod) -> tuple:
        """The verdict depends on the node alone."""
        return ()

    def filter(self, state: Any, pod: Pod, info: NodeInfo) -> Status:
        if info.node.unschedulable:
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON, plugin=self.name)
        return Status.success()
